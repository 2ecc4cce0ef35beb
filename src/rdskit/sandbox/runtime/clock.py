"""The sandbox's one notion of "now": the only place in the sandbox that reads the wall clock.

Every timestamp the sandbox writes (``created_at``, run steps, ledger rows), every window
it computes ("the past 365 days" of a run without a date range, a preview's "past week", a
``url`` search's year), every tracking schedule and every answer of the assistant reads a
store's :class:`Clock` (``store.clock``), never ``time.time()`` or ``datetime.now()``
(``tests/sandbox/test_clock.py`` scans the package for such reads).

**A fixed date.** ``Clock(today=date(2026, 11, 20))`` (``rdskit sandbox --today
2026-11-20``, ``rdskit.sandbox.start(today=...)``, or ``RDSKIT_SANDBOX_TODAY=2026-11-20``
for ``start()``, ``Client.sandbox()`` and the Jupyter gateway's sandbox) starts the clock
at :data:`FIXED_TIME` UTC of that date when the clock is created, then lets it run with the
real clock (a constant offset): waiting, progress and tracking schedules still move, and
what a fresh sandbox does in its first hour no longer depends on the day it is run (a window
ending "now" ends at the start of the hour: :func:`indexed_until`). The notebooks are
executed and checked under :data:`NOTEBOOK_TODAY` this way. A database kept across
restarts (``--db``) keeps the moment its fixed-date clock started (:meth:`Clock.anchor`):
a later session goes on from there, so its time never runs back behind rows written before
(kernels that share one sandbox file, as a course on one account does).

Example:
    >>> from datetime import date
    >>> clock = Clock(today=date(2026, 11, 20))
    >>> clock.today(), clock.now() >= 1_795_176_000  # 2026-11-20T12:00:00Z
    (datetime.date(2026, 11, 20), True)
    >>> Clock(speed=100).scaled(60)
    0.6
"""

from __future__ import annotations

import os
import time
from datetime import UTC, date, datetime, timedelta

from rdskit.errors import ConfigurationError

__all__ = [
    "ENV_TODAY",
    "FIXED_TIME",
    "NOTEBOOK_TODAY",
    "Clock",
    "indexed_until",
    "parse_today",
    "today_from_env",
    "wall_time",
]

ENV_TODAY = "RDSKIT_SANDBOX_TODAY"
"""Environment variable: a fixed date (YYYY-MM-DD) for sandboxes started by ``start()``."""

NOTEBOOK_TODAY = "2026-11-20"
"""The date the course notebooks (``notebooks/*.ipynb``) are executed and checked under: their
kernels get ``RDSKIT_SANDBOX_TODAY`` set to it (``notebooks/conftest.py`` for nbval,
``tests/notebook_runs.py`` for the re-run tests); re-execute them with it too
(``docs/notebooks.md``)."""

FIXED_TIME = timedelta(hours=12)
"""A fixed-date clock starts at this time of that day, UTC (midday: a window ending "now"
then holds half a day of posts, whatever the learner's time zone)."""


def wall_time() -> float:
    """The real clock, Unix seconds: the sandbox's only wall-clock read (tests patch it)."""
    return time.time()


def indexed_until(now: datetime) -> datetime:
    """Where a window that ends "now" ends: the start of the current hour (UTC).

    The sandbox's posts are indexed up to the last whole hour, so runs started within one
    hour collect the same posts whatever their second (a tracking cycle a moment late, a
    lesson on a slower machine).

    Example:
        >>> indexed_until(datetime(2026, 11, 20, 12, 34, 56, tzinfo=UTC)).isoformat()
        '2026-11-20T12:00:00+00:00'
    """
    return now.replace(minute=0, second=0, microsecond=0)


def parse_today(value: str | date) -> date:
    """A fixed date from ``YYYY-MM-DD`` (or a ``date``); ``ValueError`` names the format.

    Example:
        >>> parse_today("2026-11-20")
        datetime.date(2026, 11, 20)
    """
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"today must be a date written YYYY-MM-DD, got {value!r}") from None


def today_from_env() -> date | None:
    """:data:`ENV_TODAY` as a date, ``None`` when unset or empty.

    Raises ``rdskit.errors.ConfigurationError`` naming the variable when it is not a date.
    """
    text = os.environ.get(ENV_TODAY, "").strip()
    if not text:
        return None
    try:
        return parse_today(text)
    except ValueError:
        raise ConfigurationError(
            f"{ENV_TODAY}={text!r} is not a date; write it YYYY-MM-DD, e.g. 2026-11-20"
        ) from None


class Clock:
    """Sandbox time: the real clock, or a fixed date's midday moving with it; plus duration
    scaling for ``--speed``.

    ``now()`` is Unix seconds, shifted by ``advance()``; simulated durations shrink:
    ``scaled(60)`` is 0.6 s at ``speed=100``. ``today`` fixes the date (see the module).
    """

    def __init__(self, speed: float = 1.0, *, today: date | None = None) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = speed
        self.fixed_today = today
        self._offset = 0.0
        if today is not None:
            start = datetime(today.year, today.month, today.day, tzinfo=UTC) + FIXED_TIME
            self._offset = start.timestamp() - wall_time()

    def now(self) -> float:
        """Current sandbox time in Unix seconds (float)."""
        return wall_time() + self._offset

    def datetime(self) -> datetime:
        """``now()`` as an aware UTC datetime."""
        return datetime.fromtimestamp(self.now(), tz=UTC)

    def today(self) -> date:
        """The sandbox's current date (UTC)."""
        return self.datetime().date()

    def scaled(self, seconds: float) -> float:
        """A simulated duration converted to real seconds at the current speed."""
        return seconds / self.speed

    def reading(self) -> tuple[float, float]:
        """(sandbox time, wall time) now: what :meth:`anchor` goes on from later."""
        return self.now(), wall_time()

    def anchor(self, started: float, wall_then: float) -> None:
        """Go on from a clock that read ``started`` when the wall clock read ``wall_then``
        (a fixed-date database reopened: its time continues instead of starting again)."""
        self._offset = started - wall_then

    def advance(self, seconds: float) -> None:
        """Shift ``now()`` forward, e.g. to reach a tracking agent's next schedule."""
        self._offset += seconds
