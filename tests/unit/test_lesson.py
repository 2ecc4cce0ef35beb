"""``rdskit.lesson.checkpoint``: one line, whatever a student (or a post) puts in it."""

from __future__ import annotations

import pytest

from rdskit.lesson import LIMIT, checkpoint


def test_on_track_and_not_yet(capsys: pytest.CaptureFixture[str]) -> None:
    checkpoint([1], "the frame has rows.")
    checkpoint(0, "the frame has rows", hint="did the run complete?")
    checkpoint("", "no hint given")
    assert capsys.readouterr().out.splitlines() == [
        "✓ On track: the frame has rows.",
        "✗ Not yet: the frame has rows. Hint: did the run complete?",
        "✗ Not yet: no hint given.",
    ]


@pytest.mark.parametrize(
    "hostile",
    [
        "x" * 100_000,
        "line1\nline2\r\n\x1b]52;c;aGk=\x07\x1b[31mred",
        "lone \ud800 surrogate",
        5,
        None,
    ],
)
def test_any_text_prints_one_short_line(
    capsys: pytest.CaptureFixture[str], hostile: object
) -> None:
    checkpoint(False, hostile, hint=hostile)  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("✗ Not yet: ")
    assert len(out) <= 2 * LIMIT + 40
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    out.encode("utf-8")  # printable: no lone surrogate reaches stdout
