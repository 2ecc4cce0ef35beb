"""Periods for people: ``"weekly"``, ``"month"`` or a pandas alias, one parser for every
``freq`` argument of ``df.rds`` and its charts.

Words name calendar periods labelled by their first day (``"weekly"`` -> weeks ending
Sunday, as pandas' ``"W"``; ``"monthly"`` -> ``"MS"``); any pandas offset alias (``"D"``,
``"W"``, ``"MS"``, ``"2W"``, ``"QS"``, ``"h"``...) is accepted as it is. Anything else raises
a one-line :class:`~rdskit.errors.InvalidParameter` naming the accepted values.

Example:
    >>> parse_period("weekly")
    Period(alias='W', words='week')
    >>> parse_period("2W").words, parse_period("monthly").alias
    ('2 weeks', 'MS')
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Final

from pandas.tseries.frequencies import to_offset
from pandas.tseries.offsets import BaseOffset

from rdskit.errors import InvalidParameter

__all__ = ["PERIOD_WORDS", "Period", "parse_period"]

PERIOD_WORDS: Final[dict[str, str]] = {
    "hourly": "h",
    "hour": "h",
    "daily": "D",
    "day": "D",
    "weekly": "W",
    "week": "W",
    "monthly": "MS",
    "month": "MS",
    "quarterly": "QS",
    "quarter": "QS",
    "yearly": "YS",
    "annual": "YS",
    "annually": "YS",
    "year": "YS",
}
"""Plain-English periods and the pandas alias each stands for."""

# Aliases pandas renamed (and pandas 3 refuses), read as their current names.
_RENAMED: Final[dict[str, str]] = {
    "M": "ME",
    "Q": "QE",
    "Y": "YE",
    "A": "YE",
    "H": "h",
    "T": "min",
    "S": "s",
}
_ALIAS = re.compile(r"^(\d*)([A-Za-z]+)(-\w+)?$")

# Unit names of pandas rule codes (the part before any "-SUN"/"-JAN" anchor).
_UNITS: Final[dict[str, str]] = {
    "D": "day",
    "B": "business day",
    "W": "week",
    "MS": "month",
    "ME": "month",
    "SMS": "half month",
    "SME": "half month",
    "QS": "quarter",
    "QE": "quarter",
    "BQS": "quarter",
    "YS": "year",
    "YE": "year",
    "h": "hour",
    "min": "minute",
    "s": "second",
}

_ACCEPTED = (
    "daily, weekly, monthly, quarterly, yearly, hourly (or day, week, month, quarter, year, "
    "hour), or a pandas offset alias such as 'D', 'W', 'MS', '2W'"
)


@dataclass(frozen=True)
class Period:
    """A parsed period: the pandas ``alias`` to group by and its ``words`` for titles."""

    alias: str
    words: str


def parse_period(freq: object, *, field: str = "freq") -> Period:
    """``freq`` as a :class:`Period`, or InvalidParameter naming ``field`` and the values
    accepted (never a pandas traceback).

    Example:
        >>> parse_period(" Quarterly ").alias
        'QS'
        >>> parse_period("fortnightly")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        rdskit.errors.InvalidParameter: freq: must be daily, weekly, ...; got 'fortnightly'
    """
    if isinstance(freq, BaseOffset):
        freq = freq.freqstr
    if not isinstance(freq, str) or not freq.strip():
        raise InvalidParameter(field, f"must be {_ACCEPTED}; got {freq!r}")
    text = freq.strip()
    alias = PERIOD_WORDS.get(text.lower(), text)
    parts = _ALIAS.match(alias)
    if parts and parts[2] in _RENAMED:
        alias = f"{parts[1]}{_RENAMED[parts[2]]}{parts[3] or ''}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # pandas' own alias renames
            offset = to_offset(alias)
    except (ValueError, TypeError):
        offset = None
    if offset is None or offset.n <= 0:
        raise InvalidParameter(field, f"must be {_ACCEPTED}; got {freq!r}")
    unit = _UNITS.get(offset.rule_code.split("-")[0], offset.rule_code)
    words = unit if offset.n == 1 else f"{offset.n} {unit}s"
    return Period(alias, words)
