"""Dates read one way (issue kdates): one date reader for the figure and the listing path
(months in five languages, any four-digit year), a day without a year placed at the latest
such day up to the newest post (the anchor "this month" uses), and an impossible or
unreadable date always named, even when another window applies."""

from __future__ import annotations

import re
from datetime import date

import pytest
from test_ask_this_period import DAYS, OAT, POSTS, _cited

from rdskit.sandbox import assistant


def _counted(question: str) -> tuple[int, str]:
    text = assistant.answer(question, POSTS, [OAT]).text
    found = text.split("**")
    number = next(int(found[i]) for i in range(1, len(found), 2) if found[i].isdigit())
    return number, text


@pytest.mark.parametrize(
    ("said", "first", "last"),
    [("in mars 2026", date(2026, 3, 1), date(2026, 3, 31)),
     ("in Dezember 2025", date(2025, 12, 1), date(2025, 12, 31)),
     ("in 2025", date(2025, 1, 1), date(2025, 12, 31)),
     ("since 5 March", date(2026, 3, 5), DAYS[0]),
     ("since March 15th", date(2026, 3, 15), DAYS[0]),
     ("between 1 and 15 March", date(2026, 3, 1), date(2026, 3, 15)),
     ("after 25 December", date(2025, 12, 26), DAYS[0])],
)  # fmt: skip
def test_the_same_window_on_both_paths(said: str, first: date, last: date) -> None:
    expected = {d for d in DAYS if first <= d <= last}
    listed = assistant.answer(f"Show me posts {said}", POSTS, [OAT])
    assert re.search(rf"\*\*{len(expected)}\*\* posts? match", listed.text), listed.text
    assert _cited(listed) <= expected, listed.text
    assert "did not understand" not in listed.text, listed.text
    number, counted = _counted(f"How many posts {said}?")
    assert number == len(expected), counted
    assert "did not understand" not in counted, counted


@pytest.mark.parametrize(
    ("said", "year"),
    [("since 5 March", "2026-03-05"), ("after 25 December", "2025-12-26"),
     ("between 1 and 15 March", "2026-03-01")],
)  # fmt: skip
def test_a_day_without_a_year_states_the_year_chosen(said: str, year: str) -> None:
    for question in (f"Show me posts {said}", f"How many posts {said}?"):
        first = assistant.answer(question, POSTS, [OAT]).text.splitlines()[0]
        assert year in first, (question, first)


@pytest.mark.parametrize(
    "question",
    ["How many posts in the last 10000 years since 31 Feb 2026?",
     "Show me posts in the last 10000 years since 31 Feb 2026",
     "Show me posts from the last 30 days before 30 February",
     "How many posts in the last year since 32 March 2026?"],
)  # fmt: skip
def test_an_impossible_date_is_named_even_when_a_window_applies(question: str) -> None:
    text = assistant.answer(question, POSTS, [OAT]).text
    lines = text.splitlines()
    assert lines[1].startswith("**I did not understand"), text  # before any figure
    assert "feb" in lines[1] or "march" in lines[1], text


@pytest.mark.parametrize(
    ("said", "expected"),
    [("after 14 March 2026", {d for d in DAYS if d > date(2026, 3, 14)}),
     ("after 2026-03-14", {d for d in DAYS if d > date(2026, 3, 14)}),
     ("before 16 March", {d for d in DAYS if d < date(2026, 3, 16)}),
     ("before 2026-03-16", {d for d in DAYS if d < date(2026, 3, 16)})],
)  # fmt: skip
def test_after_and_before_a_day_leave_that_day_out(said: str, expected: set[date]) -> None:
    number, counted = _counted(f"How many posts {said}?")
    assert number == len(expected), counted
    listed = assistant.answer(f"Show me posts {said}", POSTS, [OAT])
    assert re.search(rf"\*\*{len(expected)}\*\* posts? match", listed.text), listed.text


@pytest.mark.parametrize(
    "said", ["on 14 March 2026", "on 14 March", "on 2026-03-14", "on the 14th of March"]
)
def test_a_single_day_is_that_day_on_both_paths(said: str) -> None:
    expected = {d for d in DAYS if d == date(2026, 3, 14)}
    number, counted = _counted(f"How many posts {said}?")
    assert number == len(expected) and "did not understand" not in counted, counted
    listed = assistant.answer(f"Show me posts {said}", POSTS, [OAT])
    assert _cited(listed) == expected and "did not understand" not in listed.text, listed.text


def test_a_month_range_is_read_and_to_alone_is_no_bound() -> None:
    number, counted = _counted("How many posts from December to February?")
    assert "on or after 2025-12-01 and posted on or before 2026-02-28" in counted, counted
    assert number == len([d for d in DAYS if date(2025, 12, 1) <= d <= date(2026, 2, 28)])
    compared = assistant.answer("Compare March to April", POSTS, [OAT]).text
    assert "2025-04-30" not in compared and "dated" not in compared.splitlines()[0], compared
