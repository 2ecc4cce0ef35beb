"""'this month' / 'this week' / 'this year' read one way on every path: the calendar period
of the newest post, whether the answer lists posts or counts them (issue: the listing path
read "this month" as the last 30 days while figures read the calendar month)."""

from __future__ import annotations

import re
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


@pytest.mark.parametrize(
    "question",
    ["List posts since 31 Feb 2026", "Show me posts between 1 and 15 March",
     "Top posts since the 5th of Marchh", "Oat milk posts from 12/03/2026"],
)  # fmt: skip
def test_a_date_no_reader_applies_is_named_not_dropped(question: str) -> None:
    reply = assistant.answer(question, POSTS, [OAT])
    lines = reply.text.splitlines()
    # Either the date is applied (the read-as line states a window) or it is named.
    applied = re.search(r"\d{4}-\d\d-\d\d", lines[0]) is not None or "dated from" in lines[0]
    named = "as a date; the answer below covers all dates" in reply.text
    assert applied or named, reply.text
    if named:
        assert lines[1].startswith("**I did not understand"), reply.text  # before any figure


def test_in_may_is_the_month_and_may_the_verb_is_not_a_date() -> None:
    counted = assistant.answer("How many posts in May?", POSTS, [OAT])
    assert "posted in 2025-05" in counted.text.splitlines()[0], counted.text  # newest: 2026-03
    assert "**0** posts match" in counted.text, counted.text
    verb = assistant.answer("Show posts that may mention foam", POSTS, [OAT])
    assert "2025-05" not in verb.text and "as a date" not in verb.text, verb.text
    assert "window: all dates" in verb.text.splitlines()[0], verb.text
