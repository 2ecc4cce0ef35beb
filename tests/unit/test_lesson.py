"""``rdskit.lesson.checkpoint``: one line, whatever a student (or a post) puts in it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rdskit.errors import InsufficientCreditsGeneric, NotFound
from rdskit.lesson import LIMIT, checkpoint, paid_step


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


def test_paid_step_turns_a_402_into_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    detail = {"required": "2.97", "available": "0.5", "top_up_url": "https://x.invalid/b"}
    service = SimpleNamespace(base_url="https://api.example.test/v1")  # not a sandbox's
    with paid_step("one cycle", service):
        raise InsufficientCreditsGeneric(402, "insufficient_credits", detail)
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("✗ Out of credits: one cycle needs 2.97 USD")
    assert "holds 0.50 USD" in out and "nothing was charged" in out
    # the real service's client: the fix is its top-up page (even beside a sandbox)
    assert out.rstrip().endswith("Top up at https://x.invalid/b, or ask for less.")


def test_paid_step_lets_other_errors_through() -> None:
    with pytest.raises(NotFound), paid_step("a read"):
        raise NotFound(404, "not_found", {"message": "no such dataset"})
