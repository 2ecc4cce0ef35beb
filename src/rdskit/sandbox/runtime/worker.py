"""Background worker: runs persisted jobs when they fall due.

Each part declares its job kinds (``JOBS``, a tuple of :class:`JobKind`), the app hands
the explicit list :data:`rdskit.sandbox.registry.JOBS` to its :class:`Worker`, and parts
schedule jobs inside the transaction that creates the work, so a job exists if and only
if its work was accepted::

    def advance(store: Store, job: Job) -> None:       # runs inside a transaction
        with store.transaction() as conn:                # joins it
            conn.execute("UPDATE things SET status = 'done' WHERE id = ?", (job.ref_id,))

    JOBS = (JobKind("thing.finish", advance),)
    ...
    schedule(conn, "thing.finish", thing_id, delay=conn.store.clock.scaled(30))

:func:`register` adds a kind to every worker of the process (tests use it for their own
kinds).

Jobs live in the ``jobs`` table: a restart with a file database resumes them (jobs caught
mid-run are run again, so handlers must be idempotent: check the state they expect first).
A handler registered with ``atomic=False`` manages its own transactions, to do slow pure
work (generating mentions) without holding the write lock.

Fairness: every job carries the ``account_id`` whose work it is. A free thread takes the
due job of the account served least recently among those below their share of threads
(``threads - 1`` each when there are two or more, so one thread is always free for
another account), and every job runs under a CPU budget (:mod:`rdskit.sandbox.runtime.cpu_budget`):
over it, the handler's ``on_error`` fails the run and refunds it. Jobs re-queued after a
restart are claimed by the same rule.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rdskit._safe import one_line
from rdskit.sandbox.errors import ApiError
from rdskit.sandbox.runtime import cpu_budget
from rdskit.sandbox.store.db import Connection, Store, StoreClosed, dumps, loads

__all__ = ["Job", "JobKind", "Worker", "WorkerStopped", "register", "schedule"]

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
    account_id: str = ""


class WorkerStopped(RuntimeError):
    """Every worker thread of the sandbox died of an unexpected error: the runs still
    waiting for one fail with this reason (see :meth:`Worker._died`)."""

    def __init__(self, cause: str) -> None:
        super().__init__(
            f"the sandbox's worker stopped ({cause}): no run can progress; restart the "
            "sandbox (in a notebook, restart the kernel) and start the run again"
        )


Handler = Callable[[Store, Job], None]
ErrorHandler = Callable[[Store, Job, BaseException], None]


@dataclass(frozen=True)
class JobKind:
    """How jobs of ``kind`` run: ``handler(store, job)``, in one transaction with the job's
    completion when ``atomic``; ``on_error(store, job, exc)`` (in a transaction) when the
    handler raises, e.g. to mark a run failed and refund it (the job is then ``failed``).

    Example:
        >>> JobKind("thing.finish", lambda store, job: None).atomic
        True
    """

    kind: str
    handler: Handler
    atomic: bool = True
    on_error: ErrorHandler | None = None


_REGISTRY: dict[str, JobKind] = {}

_current = threading.local()  # .account: whose job this worker thread is running


def register(
    kind: str, handler: Handler, *, atomic: bool = True, on_error: ErrorHandler | None = None
) -> None:
    """Handle jobs of ``kind`` with ``handler(store, job)``.

    ``atomic=True`` runs the handler and the job's completion in one transaction.
    ``on_error(store, job, exc)`` runs (in a transaction) when the handler raises, e.g. to
    mark a run failed and refund it; the job is then marked ``failed``.
    """
    _REGISTRY[kind] = JobKind(kind, handler, atomic, on_error)


def schedule(
    conn: Connection,
    kind: str,
    ref_id: str,
    *,
    run_at: float | None = None,
    delay: float = 0.0,
    payload: dict[str, Any] | None = None,
    account_id: str | None = None,
) -> int:
    """Persist a job due at ``run_at`` (Unix seconds) or ``delay`` real seconds from now.

    Once every worker thread has died (:class:`WorkerStopped`), the work is refused with
    a 400 ``sandbox_worker_stopped`` naming the fix (the sandbox's status for a rule the
    spec gives none: nothing started), and its transaction rolls back
    (nothing reserved, nothing charged), instead of a run that would wait forever.

    Pass simulated durations through ``clock.scaled(...)``. ``account_id`` is whose work it
    is (the fair share it counts against); by default the account of the job scheduling
    it, so a run's next step stays that account's work. Returns the job id.
    """
    if conn.store.worker_stopped:  # nothing would ever run it: refuse the work instead
        raise ApiError(400, "sandbox_worker_stopped", conn.store.worker_stopped)
    if account_id is None:
        account_id = getattr(_current, "account", "")
    now = conn.store.clock.now()
    cursor = conn.execute(
        "INSERT INTO jobs (kind, ref_id, payload, run_at, created_at, account_id)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            kind,
            ref_id,
            dumps(payload or {}),
            now + delay if run_at is None else run_at,
            now,
            account_id,
        ),
    )
    conn.after_commit(conn.store.jobs_changed.set)
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Whether ``exc`` is a lock timeout (worth retrying) rather than a broken statement."""
    # An error raised by hand (not by SQLite) has no code: not a lock timeout. The code is
    # SQLite's *extended* one (SQLITE_BUSY_SNAPSHOT is 517: a read transaction that must
    # write after another writer committed, under load in WAL mode); its primary code is
    # the low byte. Read whole, a busy snapshot stopped the worker for good.
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class Worker:
    """Threads that claim and run due jobs until ``stop()``.

    Example:
        >>> store = Store()
        >>> worker = Worker(store, threads=1)
        >>> worker.start(); worker.stop(); store.close()
    """

    def __init__(
        self,
        store: Store,
        *,
        threads: int = 2,
        budget_seconds: float | None = None,
        jobs: Iterable[JobKind] = (),
    ) -> None:
        self.store = store
        self._jobs = {job.kind: job for job in jobs}
        self.budget_seconds = budget_seconds
        # Running jobs one account may hold: with two threads or more, one stays free for
        # the other accounts, so a flood never makes them wait for a long job to end.
        self.share = max(1, threads - 1)
        self._served: dict[str, int] = {}  # account -> claim number of its latest job
        self._claims = 0
        self._threads = [
            threading.Thread(target=self._loop, name=f"rdskit-sandbox-worker-{n}", daemon=True)
            for n in range(threads)
        ]
        self._stopping = threading.Event()
        self._dead = 0  # threads ended by an unexpected error
        self._dead_lock = threading.Lock()
        self.stopped_by: str | None = None  # why every thread died, once they all have

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
        try:
            self._serve()
        except Exception as exc:  # the thread dies: say so, and never leave runs waiting
            self._died(exc)

    def _died(self, exc: Exception) -> None:
        """A thread ended on an unexpected error (a broken database, a bug in the loop).
        When it was the last one, every job still pending or running that has an
        ``on_error`` is failed through it with :class:`WorkerStopped` (a run fails,
        refunded, its reason saying the worker stopped and the fix), instead of waiting
        forever for a worker that is gone. A job without one has no run waiting on it (a
        tracking agent's next scheduled cycle): it stays due, so a sandbox restarted on the
        same database (the fix the reason names) runs it, where a failed job would be lost
        and the agent would never run on schedule again."""
        log.error("sandbox worker thread stopped", exc_info=exc)
        with self._dead_lock:
            self._dead += 1
            if self._dead < len(self._threads) or self._stopping.is_set():
                return
            # The error's type and message on one line (bounded): a run's reason, a 400's
            # message and a bug report then say what broke, not only its class.
            said = one_line(exc)[:160]
            self.stopped_by = f"{type(exc).__name__}: {said}" if said else type(exc).__name__
        stopped = WorkerStopped(self.stopped_by)
        try:
            with self.store.read() as conn:
                rows = conn.execute(
                    "SELECT id, kind, ref_id, payload, attempts, account_id FROM jobs"
                    " WHERE state IN ('pending', 'running')"
                ).fetchall()
        except Exception:  # the database itself is broken: nothing more can be recorded
            log.exception("sandbox worker: its jobs could not be read to fail them")
            rows = []
        for row in rows:
            job = Job(
                row["id"],
                row["kind"],
                row["ref_id"],
                loads(row["payload"]),
                row["attempts"],
                row["account_id"],
            )
            registration = self._jobs.get(job.kind) or _REGISTRY.get(job.kind)
            if registration is not None and registration.on_error is None:
                continue  # nothing waits on it: kept for a restart (see above)
            try:
                with self.store.transaction():
                    if registration is not None and registration.on_error is not None:
                        registration.on_error(self.store, job, stopped)
                    self._finish(job, "failed", str(stopped))
            except Exception:
                log.exception("sandbox worker: job %s could not be failed", job.id)
        # From now on new work is refused (schedule()), so nothing waits for this worker.
        self.store.worker_stopped = str(stopped)

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                job = self._claim()
                if job is None:
                    self.store.jobs_changed.wait(self._idle_wait())
                    self.store.jobs_changed.clear()
                    continue
                self._run(job)
            except StoreClosed:
                # stop() waits a bounded time; a job that outlived it finds the store closed.
                return
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
                # Another writer held the lock past busy_timeout: try again, never die.
                log.warning("sandbox worker: database busy, retrying")
                self._stopping.wait(_IDLE_POLL)

    def _idle_wait(self) -> float:
        """How long to sleep when nothing could be claimed: until the next job falls due.

        Due jobs held back by their account's share do not count (waiting on them would
        spin): a finishing job wakes the threads (``_finish``) to claim them.
        """
        now = self.store.clock.now()
        with self.store.read() as conn:
            (next_at,) = conn.execute(
                "SELECT MIN(run_at) FROM jobs WHERE state = 'pending' AND run_at > ?", (now,)
            ).fetchone()
        if next_at is None:
            return _IDLE_POLL
        return min(max(float(next_at) - now, 0.0), _IDLE_POLL)

    def _claim(self) -> Job | None:
        """The next due job by the fair rule (module docstring), marked ``running``."""
        with self.store.transaction() as conn:
            now = self.store.clock.now()
            running = dict(
                conn.execute(
                    "SELECT account_id, COUNT(*) FROM jobs WHERE state = 'running'"
                    " GROUP BY account_id"
                ).fetchall()
            )
            due = conn.execute(
                "SELECT account_id, MIN(run_at) FROM jobs WHERE state = 'pending'"
                " AND run_at <= ? GROUP BY account_id",
                (now,),
            ).fetchall()
            # The sandbox's own jobs ("") are short bookkeeping: never held back.
            eligible = [
                (self._served.get(account, -1), first, account)
                for account, first in due
                if account == "" or running.get(account, 0) < self.share
            ]
            if not eligible:
                return None
            account = min(eligible)[2]
            row = conn.execute(
                "SELECT id, kind, ref_id, payload, attempts FROM jobs"
                " WHERE state = 'pending' AND run_at <= ? AND account_id = ?"
                " ORDER BY run_at, id LIMIT 1",
                (now, account),
            ).fetchone()
            conn.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1 WHERE id = ?",
                (row["id"],),
            )
            self._claims += 1
            self._served[account] = self._claims
        return Job(
            row["id"],
            row["kind"],
            row["ref_id"],
            loads(row["payload"]),
            row["attempts"] + 1,
            account,
        )

    def _run(self, job: Job) -> None:
        registration = self._jobs.get(job.kind) or _REGISTRY.get(job.kind)
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

    def _attempt(self, job: Job, registration: JobKind | None) -> None:
        try:
            if registration is None:
                raise LookupError(f"no handler registered for job kind {job.kind!r}")
            _current.account = job.account_id
            with cpu_budget.limited(self.budget_seconds):
                if registration.atomic:
                    with self.store.transaction():
                        registration.handler(self.store, job)
                        self._finish(job, "done")
                else:
                    registration.handler(self.store, job)
                    self._finish(job, "done")
        except StoreClosed:
            raise  # the sandbox is stopping: the job is re-queued on restart
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
            # The account's share has room again: wake idle threads to claim its next job.
            conn.after_commit(self.store.jobs_changed.set)
