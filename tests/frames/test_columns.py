"""The column catalogue and docs/columns.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from rdskit.frames.columns import FRAMES, Column, render_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "columns.md"


def test_docs_are_generated_from_the_catalogue() -> None:
    assert DOC.read_text(encoding="utf-8") == render_markdown(), (
        "docs/columns.md is stale: run `python -m rdskit.frames > docs/columns.md`"
    )


@pytest.mark.parametrize("spec", FRAMES, ids=lambda spec: spec.name)
def test_every_column_is_documented_once(spec: object) -> None:
    doc = render_markdown()
    for entry in spec.entries:  # type: ignore[attr-defined]
        name = entry.name if isinstance(entry, Column) else entry.pattern
        assert f"| `{name}` | `{entry.dtype_name}` | `{entry.source}` |" in doc
