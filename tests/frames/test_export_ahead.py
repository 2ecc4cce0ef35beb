"""``rdskit export`` fetches the next page while it writes the current one: one page ahead,
never more, and a failed fetch reaches the caller."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from rdskit.errors import RepeatedCursor
from rdskit.frames.stream_export import _one_ahead


def test_the_next_page_is_fetched_while_this_one_is_handled_and_no_further() -> None:
    fetched: list[int] = []

    def pages() -> Iterator[int]:
        for number in range(4):
            fetched.append(number)
            yield number

    handled = []
    for page in _one_ahead(pages()):
        expected = min(page + 2, 4)  # this page and the next one, not the one after
        deadline = time.monotonic() + 10
        while len(fetched) < expected and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)  # room for a fetch too many to show up
        assert len(fetched) == expected, (page, fetched)
        handled.append(page)
    assert handled == [0, 1, 2, 3]


def test_a_failed_fetch_reaches_the_caller_after_the_pages_before_it() -> None:
    def pages() -> Iterator[int]:
        yield 0
        raise RepeatedCursor("POST", "/v1/mentions", pages=1)

    handled = []
    with pytest.raises(RepeatedCursor):
        for page in _one_ahead(pages()):
            handled.append(page)
    assert handled == [0]
