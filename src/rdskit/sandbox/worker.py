"""Background worker: runs persisted jobs when they fall due.

Route modules register handlers at import time and schedule jobs inside the transaction
that creates the work, so a job exists if and only if its work was accepted::

    def advance(store: Store, job: Job) -> None:       # runs inside a transaction
        with store.transaction() as conn:                # joins it
            conn.execute("UPDATE things SET status = 'done' WHERE id = ?", (job.ref_id,))

    register("thing.finish", advance)
    ...
    schedule(conn, "thing.finish", thing_id, delay=conn.store.clock.scaled(30))

Jobs live in the ``jobs`` table: a restart with a file database resumes them (jobs caught
mid-run are run again, so handlers must be idempotent: check the state they expect first).
A handler registered with ``atomic=False`` manages its own transactions, to do slow pure
work (generating mentions) without holding the write lock.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rdskit.sandbox.db import Connection, Store, dumps, loads

__all__ = ["Job", "Worker", "register", "schedule"]

log = logging.getLogger(__name__)

_IDLE_POLL = 0.1  # seconds; an upper bound on how late a job starts if a wake-up is missed


@dataclass(frozen=True)
class Job:
    """A due job as handed to its handler."""

    id: int
    kind: str
    ref_id: str
    payload: dict[str, Any]
    attempts: int


Handler = Callable[[Store, Job], None]
ErrorHandler = Callable[[Store, Job, BaseException], None]


@dataclass(frozen=True)
class _Registration:
    handler: Handler
    atomic: bool
    on_error: ErrorHandler | None


_REGISTRY: dict[str, _Registration] = {}


def register(
    kind: str, handler: Handler, *, atomic: bool = True, on_error: ErrorHandler | None = None
) -> None:
    """Handle jobs of ``kind`` with ``handler(store, job)``.

    ``atomic=True`` runs the handler and the job's completion in one transaction.
    ``on_error(store, job, exc)`` runs (in a transaction) when the handler raises, e.g. to
    mark a run failed and refund it; the job is then marked ``failed``.
    """
    _REGISTRY[kind] = _Registration(handler, atomic, on_error)


def schedule(
    conn: Connection,
    kind: str,
    ref_id: str,
    *,
    run_at: float | None = None,
    delay: float = 0.0,
    payload: dict[str, Any] | None = None,
) -> int:
    """Persist a job due at ``run_at`` (Unix seconds) or ``delay`` real seconds from now.

    Pass simulated durations through ``clock.scaled(...)``. Returns the job id.
    """
    now = conn.store.clock.now()
    cursor = conn.execute(
        "INSERT INTO jobs (kind, ref_id, payload, run_at, created_at) VALUES (?, ?, ?, ?, ?)",
        (kind, ref_id, dumps(payload or {}), now + delay if run_at is None else run_at, now),
    )
    conn.after_commit(conn.store.jobs_changed.set)
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` is a lock timeout (worth retrying) rather than a broken statement."""
    return exc.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class Worker:
    """Threads that claim and run due jobs until ``stop()``.

    Example:
        >>> store = Store()
        >>> worker = Worker(store, threads=1)
        >>> worker.start(); worker.stop(); store.close()
    """

    def __init__(self, store: Store, *, threads: int = 2) -> None:
        self.store = store
        self._threads = [
            threading.Thread(target=self._loop, name=f"rdskit-sandbox-worker-{n}", daemon=True)
            for n in range(threads)
        ]
        self._stopping = threading.Event()

    def start(self) -> None:
        """Requeue jobs interrupted by a previous shutdown, then start the threads."""
        with self.store.transaction() as conn:
            conn.execute("UPDATE jobs SET state = 'pending' WHERE state = 'running'")
        for thread in self._threads:
            thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the jobs in progress finish."""
        self._stopping.set()
        self.store.jobs_changed.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(timeout)

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                job = self._claim()
                if job is None:
                    self.store.jobs_changed.wait(self._idle_wait())
                    self.store.jobs_changed.clear()
                    continue
                self._run(job)
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
                # Another writer held the lock past busy_timeout: try again, never die.
                log.warning("sandbox worker: database busy, retrying")
                self._stopping.wait(_IDLE_POLL)

    def _idle_wait(self) -> float:
        with self.store.read() as conn:
            (next_at,) = conn.execute(
                "SELECT MIN(run_at) FROM jobs WHERE state = 'pending'"
            ).fetchone()
        if next_at is None:
            return _IDLE_POLL
        return min(max(next_at - self.store.clock.now(), 0.0), _IDLE_POLL)

    def _claim(self) -> Job | None:
        with self.store.transaction() as conn:
            row = conn.execute(
                "SELECT id, kind, ref_id, payload, attempts FROM jobs"
                " WHERE state = 'pending' AND run_at <= ? ORDER BY run_at, id LIMIT 1",
                (self.store.clock.now(),),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1 WHERE id = ?",
                (row["id"],),
            )
        return Job(
            row["id"], row["kind"], row["ref_id"], loads(row["payload"]), row["attempts"] + 1
        )

    def _run(self, job: Job) -> None:
        registration = _REGISTRY.get(job.kind)
        try:
            self._attempt(job, registration)
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
            # Not the handler's fault: put the job back for another attempt (handlers are
            # idempotent), then let the loop back off.
            with self.store.transaction() as conn:
                conn.execute("UPDATE jobs SET state = 'pending' WHERE id = ?", (job.id,))
            raise

    def _attempt(self, job: Job, registration: _Registration | None) -> None:
        try:
            if registration is None:
                raise LookupError(f"no handler registered for job kind {job.kind!r}")
            if registration.atomic:
                with self.store.transaction():
                    registration.handler(self.store, job)
                    self._finish(job, "done")
            else:
                registration.handler(self.store, job)
                self._finish(job, "done")
        except Exception as exc:
            if isinstance(exc, sqlite3.OperationalError) and _busy(exc):
                raise
            log.exception("sandbox job %s (%s %s) failed", job.id, job.kind, job.ref_id)
            with self.store.transaction():
                if registration is not None and registration.on_error is not None:
                    registration.on_error(self.store, job, exc)
                self._finish(job, "failed", "".join(traceback.format_exception_only(exc)))

    def _finish(self, job: Job, state: str, error: str | None = None) -> None:
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE jobs SET state = ?, last_error = ? WHERE id = ?", (state, error, job.id)
            )
