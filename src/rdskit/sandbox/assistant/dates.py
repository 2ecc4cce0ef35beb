"""The one date reader of the assistant: every period a question names, read the same way
for the figure reader (:mod:`~rdskit.sandbox.assistant.reader`) and the intent planner
(:mod:`~rdskit.sandbox.assistant.intents`), with one month vocabulary.

Periods are placed against an *anchor*: the newest post of the scope (or, without posts,
the sandbox clock's date), the same anchor "this month" uses. A month or a day said without
a year is the latest one not after the anchor ("since 5 March" with posts up to 20 March
2026 is 2026-03-05; "in May" is May 2025).

>>> from datetime import date
>>> anchor = date(2026, 3, 20)
>>> [(p.dim, p.value) for p in periods(iso_dates("posts since 5 march", anchor), anchor)]
[('since', '2026-03-05')]
>>> [(p.dim, p.value) for p in periods("in mars 2026 and the last 2 weeks", anchor)]
[('month', '2026-03'), ('days', '14')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from rdskit.sandbox.assistant.lexicon import NUMBER_WORDS

__all__ = [
    "MONTHS",
    "Period",
    "iso_dates",
    "looks_like_date",
    "periods",
    "span",
    "unreadable",
    "unsaid",
]

MONTHS: Mapping[str, int] = {
    name: number
    for number, names in enumerate(
        (
            "january jan janvier enero januar janeiro gennaio",
            "february feb février fevrier febrero februar fevereiro febbraio",
            "march mar mars marzo märz marz março",
            "april apr avril abril aprile",
            "may mai mayo maio maggio",
            "june jun juin junio juni junho giugno",
            "july jul juillet julio juli julho luglio",
            "august aug août aout agosto",
            "september sep sept septembre septiembre setembro settembre",
            "october oct octobre octubre oktober outubro ottobre",
            "november nov novembre noviembre novembro",
            "december dec décembre decembre diciembre dezember dezembro dicembre",
        ),
        start=1,
    )
    for name in names.split()
}
"""Month names (English, French, Spanish, German, Portuguese, Italian) to month numbers."""


def _alternation(names: Iterator[str] | list[str]) -> str:
    return "|".join(sorted(map(re.escape, names), key=len, reverse=True))


_MONTH = _alternation(list(MONTHS))
# Three letters or fewer ("may", "mar", "jan") are words too: read as a month only next to
# a number, after "in" or after a bound ("since may").
_LONG_MONTH = _alternation([name for name in MONTHS if len(name) > 3])
_DAY = r"(\d{1,2})(?:st|nd|rd|th|er|º)?"
_YEAR = r"(\d{4})"
_BARE_YEAR = r"((?:19|20)\d\d)"  # a year said alone: "in 1000 posts" is not a year
_ISO = r"(\d{4}-\d{2}-\d{2})"
_FROM = r"since|after|from|starting|depuis|desde|seit|ab|a partir de|à partir de"
_TO = r"until|till|before|through|up to|to|jusqu'au|jusqu'à|hasta|bis|até"
_IN = r"in|during|for|en|im|em|de|du mois de|durante"
_DATE_BEFORE = rf"(?:{_FROM}|{_TO}|between|and|on|le|el|am|vom|del|entre)"


# --- written dates -> ISO ----------------------------------------------------------------------

_WRITTEN = re.compile(
    rf"(?<![\w-])(?:{_DAY}(?: of| de)? ({_MONTH})\.?,?|({_MONTH})\.? {_DAY},?) {_YEAR}(?![\w-])",
    re.IGNORECASE,
)
# "between 1 and 15 March (2026)", "from the 5th to the 20th of October": the first day
# borrows the second's month and year.
_BETWEEN_DAYS = re.compile(
    rf"\b(between|entre|zwischen|from|du|desde|de|von|vom) (?:the )?{_DAY}"
    rf" (and|et|y|und|e|to|till|until|through|au|al|a|à|bis|até) (?:the )?{_DAY}"
    rf"(?: of| de)? ({_MONTH})\b(?: {_YEAR})?",
    re.IGNORECASE,
)
_YEARLESS = re.compile(
    rf"\b({_DATE_BEFORE}) (?:the )?(?:{_DAY}(?: of| de)? ({_MONTH})|({_MONTH})\.? {_DAY})"
    r"(?![\w-]| ?,? ?\d{4})",
    re.IGNORECASE,
)


def _place(day: int, month: int, anchor: date | None) -> date:
    """The latest ``day`` of ``month`` not after ``anchor`` (ValueError: no such day)."""
    if anchor is None:
        raise ValueError("no anchor")
    date(2000, month, day)  # a day no year has ("30 February") -> ValueError
    year = anchor.year
    while True:
        try:
            found = date(year, month, day)
        except ValueError:  # 29 February of a common year
            year -= 1
            continue
        if found <= anchor:
            return found
        year -= 1


def iso_dates(text: str, anchor: date | None = None) -> str:
    """``text`` with its written dates as ISO dates, the one form both readers apply:
    "5 March 2026", "March 5th, 2026"; a day said without a year after "since", "before",
    "between"... is the latest such day not after ``anchor`` ("since 5 March"). A day the
    calendar does not have ("31 Feb 2026") stays as written, so the answer names it.

    >>> iso_dates("posts after 5 March 2026 and before Apr 2, 2026")
    'posts after 2026-03-05 and before 2026-04-02'
    >>> iso_dates("between 1 and 15 March, since 30 feb", date(2026, 3, 20))
    'between 2026-03-01 and 2026-03-15, since 30 feb'
    """

    def written(found: re.Match[str]) -> str:
        day, month = (found[1], found[2]) if found[1] else (found[4], found[3])
        try:
            return date(int(found[5]), MONTHS[month.lower()], int(day)).isoformat()
        except ValueError:
            return found[0]

    def between(found: re.Match[str]) -> str:
        month = MONTHS[found[5].lower()]
        try:
            if found[6]:
                last = date(int(found[6]), month, int(found[4]))
            else:
                last = _place(int(found[4]), month, anchor)
            first = last.replace(day=int(found[2]))
        except ValueError:
            return found[0]
        return f"{found[1]} {first.isoformat()} {found[3]} {last.isoformat()}"

    def yearless(found: re.Match[str]) -> str:
        day, month = (found[2], found[3]) if found[2] else (found[5], found[4])
        try:
            return f"{found[1]} {_place(int(day), MONTHS[month.lower()], anchor).isoformat()}"
        except ValueError:
            return found[0]

    text = _WRITTEN.sub(written, text)
    text = _BETWEEN_DAYS.sub(between, text)
    return _YEARLESS.sub(yearless, text)


def unreadable(text: str) -> list[str]:
    """The dates of ``text`` (after :func:`iso_dates`) no reader can apply: a day the
    calendar does not have, written or ISO, or a day without a year and no anchor.

    >>> unreadable("since 31 Feb 2026 and before 2026-02-30, in the last 3 days")
    ['31 feb 2026', '2026-02-30']
    """
    found = [m for p in (_WRITTEN, _BETWEEN_DAYS, _YEARLESS) for m in p.finditer(text)]
    written = [m[0].lower() for m in found]
    written = [
        re.sub(rf"^(?:{_DATE_BEFORE}|between|entre|zwischen) (?:the )?", "", w) for w in written
    ]
    return [*dict.fromkeys(written), *(iso for iso in re.findall(_ISO, text) if not _real(iso))]


_DATE_LIKE = re.compile(
    rf"\d.*\b(?:{_MONTH})\b|\b(?:{_MONTH})\b.*\d|\b(?:{_LONG_MONTH})\b"
    r"|\d{4}-\d{1,2}-\d{1,2}|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{1,2}(?:st|nd|rd|th) of\b"
    # "12/03/2026" as the reader leaves it, punctuation gone: "12 03 2026".
    r"|\b\d{1,2} \d{1,2} \d{4}\b",
    re.IGNORECASE,
)


def looks_like_date(words: str) -> bool:
    """Whether words a reader could not map read as a date: a month's full name, a number
    next to a month's name, a numeric date or "5th of ...". "may" or "mar" alone are not
    dates (they are words too).

    >>> [looks_like_date(w) for w in ("feb 2026", "march", "2026-02-31", "12 03 2026")]
    [True, True, True, True]
    >>> [looks_like_date(w) for w in ("may", "mar", "viral", "5 brands")]
    [False, False, False, False]
    """
    return _DATE_LIKE.search(words) is not None


TIME_DIMS = frozenset({"days", "year", "month", "since", "until"})
"""The dimensions of a :class:`Period`: a condition on them is a time window."""


# --- periods -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    """One period said in a question: the characters ``start``..``end`` of the text read
    set ``dim`` (``days`` back from the anchor, ``since`` / ``until`` an inclusive ISO
    day, ``month`` ``YYYY-MM``, ``year`` ``YYYY``) to ``value``."""

    start: int
    end: int
    dim: str
    value: str


_UNIT_DAYS = {
    **dict.fromkeys(("day", "jour", "día", "dia", "tag"), 1),
    **dict.fromkeys(("week", "semaine", "semana", "woche"), 7),
    **dict.fromkeys(("month", "mois", "mes", "mês", "monat"), 30),
    **dict.fromkeys(("quarter", "trimestre", "quartal"), 90),
    **dict.fromkeys(("year", "an", "année", "año", "ano", "jahr"), 365),
}
_NUMBER = _alternation(list(NUMBER_WORDS))
_RELATIVE = re.compile(
    r"\b(?:(?:in|over|during|for|within) )?(?:the )?(?:last|past|previous|recent|these"
    r"|derniers?|dernières?|últimos?|últimas?|letzten?)"
    rf" (?:(\d+|{_NUMBER}|few) )?({_alternation(list(_UNIT_DAYS))})(?:s|es|e|en|n)?\b"
)
_SINGLE = re.compile(r"\b(yesterday|today|last night|ayer|gestern|ontem)\b")
_BETWEEN_ISO = re.compile(rf"\b(?:between|entre|zwischen) {_ISO} (?:and|et|y|und|e) {_ISO}")
_FROM_ISO = re.compile(rf"\b({_FROM}) {_ISO}")
_TO_ISO = re.compile(rf"\b({_TO}) {_ISO}")
_ON_ISO = re.compile(rf"\b(?:on|le|el|am) {_ISO}")
_STRICT = {"after": 1, "before": -1}
"""Bounds that leave their own day out: "after 5 March" starts on 6 March."""
_THIS = re.compile(r"\b(?:(?:in|during) )?(?:this|the current) (week|month|year)\b")
_QUARTER = re.compile(
    r"\b(?:(?:in|during|for) )?(?:the )?(?:q([1-4])|(first|second|third|fourth|1st|2nd|3rd|4th)"
    rf" quarter)(?: of)?(?: {_YEAR})?\b"
)
_QUARTER_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
_MONTH_YEAR = re.compile(
    rf"\b(?:(?:{_IN}) )?(?:the month of )?({_MONTH}),?(?: de| del)? {_YEAR}\b"
)  # "octobre 2026", "agosto de 2026"
# "to March" alone is no bound ("compare March to April"); "from January to March" is.
_BOUND = re.compile(rf"\b({_FROM}|{_TO.replace('|to|', '|')}) ({_MONTH})(?:,? {_YEAR})?\b")
_MONTH_RANGE = re.compile(
    rf"\b(?:from|between) ({_MONTH})(?:,? {_YEAR})? (?:to|and|until|till|through) ({_MONTH})"
    rf"(?:,? {_YEAR})?\b"
)
_IN_MONTH = re.compile(rf"\b(?:in ({_MONTH})|(?:{_IN}) ({_LONG_MONTH}))\b(?!,? ?\d)")
_IN_YEAR = re.compile(rf"\b(?:in|during|from|for|of|en|im|em|de|durante) {_BARE_YEAR}\b")


def _first(year: int, month: int) -> date:
    """The first day of ``month`` of ``year`` (months past 12 roll into the next year)."""
    return date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def _year_of(month: int, year: str | None, anchor: date) -> int:
    """The year said, else the latest one whose ``month`` starts on or before ``anchor``."""
    if year:
        return int(year)
    return anchor.year if month <= anchor.month else anchor.year - 1


def _real(iso: str) -> bool:
    """Whether ``iso`` is a day of the calendar ("2026-02-31" is not: it is named)."""
    try:
        date.fromisoformat(iso)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=4096)
def periods(text: str, anchor: date) -> tuple[Period, ...]:
    """The periods ``text`` (lower case, written dates already ISO: :func:`iso_dates`)
    names, in the order of the rules; a later rule never reads characters an earlier one
    took. Relative windows count back from ``anchor``. Cached: a question's parts and
    clauses are read by both paths."""
    taken: list[tuple[int, int]] = []
    out: list[Period] = []

    def free(found: re.Match[str]) -> bool:
        return not any(found.start() < end and start < found.end() for start, end in taken)

    def add(found: re.Match[str], *conds: tuple[str, str]) -> None:
        taken.append((found.start(), found.end()))
        out.extend(Period(found.start(), found.end(), dim, value) for dim, value in conds)

    # A written date left as written is a day the calendar lacks: its month and year are
    # not a period ("31 Feb 2026" is not February 2026); it is named (unreadable()).
    taken += [m.span() for p in (_WRITTEN, _BETWEEN_DAYS, _YEARLESS) for m in p.finditer(text)]
    for found in _BETWEEN_ISO.finditer(text):
        if _real(found[1]) and _real(found[2]):
            add(found, ("since", found[1]), ("until", found[2]))
    for found in filter(free, _ON_ISO.finditer(text)):  # "on 14 March": that day alone
        if _real(found[1]):
            add(found, ("since", found[1]), ("until", found[1]))
    for pattern, dim in ((_FROM_ISO, "since"), (_TO_ISO, "until")):
        for found in filter(free, pattern.finditer(text)):
            if _real(found[2]):
                day = date.fromisoformat(found[2]) + timedelta(days=_STRICT.get(found[1], 0))
                add(found, (dim, day.isoformat()))
    for found in filter(free, _RELATIVE.finditer(text)):
        amount = found[1]
        number = int(amount) if amount and amount.isdigit() else NUMBER_WORDS.get(amount or "", 1)
        if amount == "few":
            number = NUMBER_WORDS["a few"]
        add(found, ("days", str(number * _UNIT_DAYS[found[2]])))
    for found in filter(free, _SINGLE.finditer(text)):
        add(found, ("days", "1"))
    for found in filter(free, _THIS.finditer(text)):
        if found[1] == "year":
            add(found, ("year", str(anchor.year)))
        elif found[1] == "month":
            add(found, ("month", anchor.strftime("%Y-%m")))
        else:
            add(found, ("since", (anchor - timedelta(days=anchor.weekday())).isoformat()))
    for found in filter(free, _QUARTER.finditer(text)):
        month = 3 * (int(found[1]) if found[1] else _QUARTER_WORDS[found[2]]) - 2
        first = _first(_year_of(month, found[3], anchor), month)
        last = _first(first.year, first.month + 3) - timedelta(days=1)
        add(found, ("since", first.isoformat()), ("until", last.isoformat()))
    for found in filter(free, _MONTH_YEAR.finditer(text)):
        add(found, ("month", f"{found[2]}-{MONTHS[found[1]]:02d}"))
    for found in filter(free, _MONTH_RANGE.finditer(text)):
        month, last_month = MONTHS[found[1]], MONTHS[found[3]]
        last = _first(_year_of(last_month, found[4], anchor), last_month)
        first = _first(int(found[2]) if found[2] else last.year - (month > last_month), month)
        end = _first(last.year, last_month + 1) - timedelta(days=1)
        add(found, ("since", first.isoformat()), ("until", end.isoformat()))
    for found in filter(free, _BOUND.finditer(text)):
        month = MONTHS[found[2]]
        first = _first(_year_of(month, found[3], anchor), month)
        if re.fullmatch(_FROM, found[1]):
            after = found[1] == "after"
            add(found, ("since", (_first(first.year, month + 1) if after else first).isoformat()))
        elif found[1] == "before":
            add(found, ("until", (first - timedelta(days=1)).isoformat()))
        else:
            add(found, ("until", (_first(first.year, month + 1) - timedelta(days=1)).isoformat()))
    for found in filter(free, _IN_MONTH.finditer(text)):
        month = MONTHS[found[1] or found[2]]
        add(found, ("month", f"{_year_of(month, None, anchor)}-{month:02d}"))
    for found in filter(free, _IN_YEAR.finditer(text)):
        add(found, ("year", found[1]))
    return tuple(sorted(out, key=lambda period: period.start))


def span(period: Period) -> tuple[int | None, date | None, date | None]:
    """``period`` as (days back from the anchor, first day, last day), the planner's slots.

    >>> span(Period(0, 8, "month", "2026-02"))
    (None, datetime.date(2026, 2, 1), datetime.date(2026, 2, 28))
    """
    if period.dim == "days":
        return int(period.value), None, None
    if period.dim == "since":
        return None, date.fromisoformat(period.value), None
    if period.dim == "until":
        return None, None, date.fromisoformat(period.value)
    if period.dim == "year":
        return None, date(int(period.value), 1, 1), date(int(period.value), 12, 31)
    first = date.fromisoformat(f"{period.value}-01")
    return None, first, _first(first.year, first.month + 1) - timedelta(days=1)


def unsaid(text: str) -> str:
    """``text`` with the words of its periods blanked (what is left is read for topics,
    sizes and filters; where a period is does not depend on the anchor).

    >>> unsaid("top 3 posts of the last 5 days since 2026-03-01").split()
    ['top', '3', 'posts', 'of']
    """
    out = list(text)
    for period in periods(text, date(2000, 1, 1)):
        out[period.start : period.end] = " " * (period.end - period.start)
    return "".join(out)


def window_start(newest: float, days: int) -> str:
    """How a window of ``days`` back from ``newest`` (a timestamp) starts, said in words.

    >>> window_start(1773964800, 7), window_start(1773964800, 3650000)[:15]
    ('after 2026-03-13', 'a start before ')
    """
    try:
        return f"after {datetime.fromtimestamp(newest - days * 86400, UTC).date()}"
    except (ValueError, OverflowError, OSError):  # "the last 10000 years": before year 1
        return "a start before the calendar's first year, so no post is outside it"
