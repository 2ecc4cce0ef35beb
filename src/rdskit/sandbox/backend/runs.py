"""The run lifecycle every run kind shares: how a run fails, and how a crash fails it.

A run is ``pending`` when accepted (its credits reserved), ``working`` while its steps
run, then ``completed`` (the actual work charged, the rest of the reservation refunded:
``wallet.settle``) or ``failed``: the step in progress fails, the reason is kept, the
kind undoes its partial writes, and the whole reservation is refunded. A kind describes
its table with a :class:`RunTable`; :meth:`RunTable.fail` and :meth:`RunTable.crash_handler`
(the worker's ``on_error``) are then written once for every kind.

Example:
    >>> from rdskit.sandbox.accounts import bootstrap
    >>> runs = RunTable("thing_runs", live=("pending", "working"), steps=True)
    >>> with Store(":memory:") as store, store.transaction() as conn:
    ...     account = bootstrap(conn)
    ...     before = wallet.balance(conn, account).available
    ...     held = wallet.reserve(conn, account, "post_processing", 100, "tr_1",
    ...                           error_code="insufficient_credits", top_up_url="")
    ...     _ = conn.execute("CREATE TEMP TABLE thing_runs (id TEXT, status TEXT, steps TEXT,"
    ...                      " error TEXT, updated_at REAL, reservation_id TEXT)")
    ...     steps = dumps([{"name": "work", "status": "working", "finished_at": None}])
    ...     _ = conn.execute("INSERT INTO thing_runs VALUES ('tr_1', 'working', ?, NULL, 0, ?)",
    ...                      (steps, held))
    ...     runs.fail(conn, runs.get(conn, "tr_1"), "it broke")
    ...     row = runs.get(conn, "tr_1")
    ...     refunded = wallet.balance(conn, account).available == before
    >>> row["status"], row["error"], loads(row["steps"])[0]["status"], refunded
    ('failed', 'it broke', 'failed', True)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rdskit.sandbox import wallet
from rdskit.sandbox.db import Connection, Store, dumps, loads
from rdskit.sandbox.worker import ErrorHandler, Job

__all__ = ["RunTable", "internal_error"]


def internal_error(exc: BaseException) -> str:
    """The reason a crashed run gives: the exception's type, never its message.

    Example:
        >>> internal_error(KeyError("secret"))
        'internal error: KeyError'
    """
    return f"internal error: {type(exc).__name__}"


@dataclass(frozen=True)
class RunTable:
    """How one run kind stores its runs.

    ``live``: the statuses a failure may still end; ``steps``: whether the table has a
    ``steps`` JSON column (whose open step fails with the run); ``whole_seconds``: step
    times stored as whole seconds; ``undo``: the kind's clean-up of partial writes.
    """

    table: str
    live: tuple[str, ...]
    steps: bool = False
    whole_seconds: bool = False
    undo: Callable[[Connection, sqlite3.Row], None] | None = None

    def get(self, conn: sqlite3.Connection, run_id: str) -> sqlite3.Row | None:
        """The run ``run_id``, or None."""
        row: sqlite3.Row | None = conn.execute(
            f"SELECT * FROM {self.table} WHERE id = ?", (run_id,)
        ).fetchone()
        return row

    def stamp(self, now: float) -> float:
        """A step time as this kind stores it."""
        return int(now) if self.whole_seconds else now

    def set_state(
        self, conn: Connection, run_id: str, status: str, steps: list[dict[str, Any]]
    ) -> None:
        """Record the run's status and steps."""
        conn.execute(
            f"UPDATE {self.table} SET status = ?, steps = ?, updated_at = ? WHERE id = ?",
            (status, dumps(steps), conn.store.clock.now(), run_id),
        )

    def fail(self, conn: Connection, run: sqlite3.Row, reason: str) -> None:
        """Failed: the open step fails, ``reason`` is kept, partial writes are undone and
        the whole reservation is refunded."""
        now = conn.store.clock.now()
        if self.steps:
            steps = loads(run["steps"])
            for step in steps:
                if step["status"] == "working":
                    step.update(status="failed", finished_at=self.stamp(now))
            conn.execute(
                f"UPDATE {self.table} SET status = 'failed', steps = ?, error = ?,"
                " updated_at = ? WHERE id = ?",
                (dumps(steps), reason, now, run["id"]),
            )
        else:
            conn.execute(
                f"UPDATE {self.table} SET status = 'failed', error = ?, updated_at = ?"
                " WHERE id = ?",
                (reason, now, run["id"]),
            )
        if self.undo is not None:
            self.undo(conn, run)
        wallet.refund(conn, run["reservation_id"])

    def crash_handler(
        self, reason: Callable[[BaseException], str] = internal_error
    ) -> ErrorHandler:
        """The worker's ``on_error`` for this kind: a crash fails a live run in full."""

        def on_error(store: Store, job: Job, exc: BaseException) -> None:
            with store.transaction() as conn:
                run = self.get(conn, job.ref_id)
                if run is not None and run["status"] in self.live:
                    self.fail(conn, run, reason(exc))

        return on_error
