"""'this month' / 'this week' / 'this year' read one way on every path: the calendar period
of the newest post, whether the answer lists posts or counts them (issue: the listing path
read "this month" as the last 30 days while figures read the calendar month)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from rdskit.sandbox import assistant
from rdskit.sandbox.assistant import Scope

OAT = Scope("ds_oat", "Oat milk")
# Newest post on Friday 2026-03-20: the last 30 days reach back into February and the last
# 7 days into the previous ISO week, so a rolling window and the calendar period differ.
DAYS = [date(2026, 3, 20), date(2026, 3, 16), date(2026, 3, 14), date(2026, 3, 2),
        date(2026, 2, 25), date(2025, 12, 30)]  # fmt: skip


def _post(number: int, day: date) -> dict[str, Any]:
    return {
        "source": "reddit",
        "id": f"p{number}",
        "url": f"https://reddit.example/p{number}",
        "text": f"oat foam note {number}",
        "author": {"title": f"author {number}"},
        "num_views": 100,
        "num_likes": 10 + number,
        "num_comments": number,
        "num_shares": 1,
        "created_at": int(datetime(day.year, day.month, day.day, 12, tzinfo=UTC).timestamp()),
        "datasets": [{"id": OAT.id, "name": OAT.name}],
        "sentiment": {"positive": "0.8", "neutral": "0.1", "negative": "0.1"},
    }


POSTS = [_post(number, day) for number, day in enumerate(DAYS, 1)]
NEWEST = max(DAYS)
CALENDAR = {
    "month": {d for d in DAYS if (d.year, d.month) == (NEWEST.year, NEWEST.month)},
    "week": {d for d in DAYS if d >= NEWEST - timedelta(days=NEWEST.weekday())},
    "year": {d for d in DAYS if d.year == NEWEST.year},
}


def _cited(reply: assistant.Reply) -> set[date]:
    ids = {ref["id"] for ref in reply.references if ref["type"] == "post"}
    return {DAYS[int(i[1:]) - 1] for i in ids}


@pytest.mark.parametrize("period", ["month", "week", "year"])
def test_listing_and_count_read_the_same_calendar_period(period: str) -> None:
    expected = CALENDAR[period]
    listed = assistant.answer(f"Top posts this {period}", POSTS, [OAT])
    assert _cited(listed) == expected, listed.text
    assert "last 30 days" not in listed.text and "last 7 days" not in listed.text
    shown = assistant.answer(f"Show me posts from this {period}", POSTS, [OAT])
    assert _cited(shown) == expected, shown.text
    counted = assistant.answer(f"How many posts this {period}?", POSTS, [OAT])
    assert f"**{len(expected)}** posts match" in counted.text, counted.text


@pytest.mark.parametrize(
    ("written", "first"),
    [("5 March 2026", date(2026, 3, 5)), ("Mar 14th, 2026", date(2026, 3, 14)),
     ("1 jan 2026", date(2026, 1, 1))],
)  # fmt: skip
def test_written_dates_are_applied_on_both_paths(written: str, first: date) -> None:
    expected = {d for d in DAYS if d >= first}
    listed = assistant.answer(f"Top posts since {written}", POSTS, [OAT])
    assert _cited(listed) == expected, listed.text
    assert first.isoformat() in listed.text.splitlines()[0]  # the read-as line states it
    counted = assistant.answer(f"How many posts since {written}?", POSTS, [OAT])
    assert f"**{len(expected)}** posts match" in counted.text, counted.text
    assert f"on or after {first.isoformat()}" in counted.text.splitlines()[0]
