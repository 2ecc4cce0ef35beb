"""The running line on a narrow terminal is cut at its width, ending with an ellipsis and
never with a dangling separator (" | ")."""

from __future__ import annotations

import io

import pytest

from rdskit.jupyter.progress import LineView, Snapshot
from rdskit.runs import RunView, Step


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


VIEW = RunView(
    "Dataset run dsr_1", "working", (Step("scraping", "working"),), (("mentions", "12 of 40"),)
)
HEAD = "Dataset run dsr_1: working · 3.0s elapsed · time left unknown"
LINE = f"{HEAD} | mentions 12 of 40 | scraping working"


@pytest.mark.parametrize("columns", range(len(HEAD) - 2, len(HEAD) + 8))
def test_a_cut_line_ends_with_an_ellipsis_not_a_separator(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    stream = Terminal()
    LineView(stream).show(Snapshot(VIEW, "running", 3.0))
    shown = stream.getvalue().removeprefix("\r").removesuffix("\x1b[K")
    assert len(shown) <= columns - 1 and shown.endswith("…")
    assert not shown.removesuffix("…").endswith((" ", "|"))
    assert LINE.startswith(shown.removesuffix("…"))


def test_a_line_that_fits_is_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    stream = Terminal()
    LineView(stream).show(Snapshot(VIEW, "running", 3.0))
    assert stream.getvalue() == f"\r{LINE}\x1b[K"
