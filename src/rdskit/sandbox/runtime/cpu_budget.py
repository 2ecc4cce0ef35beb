"""Per-job CPU budgets: a job that works longer than its budget fails instead of blocking.

The worker opens a budget around each job (:func:`limited`); long loops (generating posts,
enriching them) call :func:`check` now and then. Time is the thread's own CPU time, so a
job is not blamed for waiting on the GIL or on SQLite locks held by others.

Example:
    >>> with limited(0.0):
    ...     try:
    ...         sum(range(100_000))
    ...         check()
    ...     except BudgetExceeded as exc:
    ...         print("stopped:", str(exc).split(" (")[0])
    4999950000
    stopped: the job used more than its 0.0 s CPU budget
    >>> check()  # outside a budget: never raises
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["BudgetExceeded", "check", "limited"]

_local = threading.local()


class BudgetExceeded(RuntimeError):
    """A job went over its CPU budget; the worker fails (and refunds) its run."""


@contextmanager
def limited(seconds: float | None) -> Iterator[None]:
    """Run the body with ``seconds`` of this thread's CPU time (``None``: unlimited)."""
    outer = getattr(_local, "budget", None)
    _local.budget = None if seconds is None else (time.thread_time() + seconds, seconds)
    try:
        yield
    finally:
        _local.budget = outer


def check() -> None:
    """Raise :class:`BudgetExceeded` once the current job's CPU time is spent.

    Also hands the GIL over: a long job calls this often, and without it a thread with
    a short job of another account (or a request) waits up to the interpreter's switch
    interval (5 ms) at each of its many GIL acquisitions.
    """
    time.sleep(0)
    budget = getattr(_local, "budget", None)
    if budget is not None and time.thread_time() > budget[0]:
        raise BudgetExceeded(
            f"the job used more than its {budget[1]} s CPU budget (it was stopped, not"
            " allowed to delay other accounts' work)"
        )
