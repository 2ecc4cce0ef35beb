"""docs/assistant.md lists what can be asked as the catalogue generates it."""

from __future__ import annotations

from pathlib import Path

from rdskit.sandbox.assistant.reader import askable

DOC = Path(__file__).resolve().parents[3] / "docs" / "assistant.md"


def test_the_askable_section_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("<!-- askable:start -->\n", 1)[1].split("<!-- askable:end -->", 1)[0]
    assert section == askable(), "regenerate it from reader.askable()"
