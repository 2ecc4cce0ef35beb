"""The one run state machine every run kind shares: lifecycle, reservation and settlement.

A run is accepted (its credits reserved in its kind's price category, one row inserted, its
first tick scheduled), walks its steps one worker tick each, and ends ``completed`` (the
kind's actual quantity charged, the rest of the reservation refunded: ``wallet.settle``) or
``failed`` (the step in progress fails, the reason is kept, the kind undoes its partial
writes and the whole reservation is refunded). A crash of a tick fails the run the same way.

A kind supplies only what is its own (:class:`RunKind`): its table (:class:`RunTable`), its
steps and their simulated durations, ``check`` (why the run must fail as a step ends),
``work`` (the slow pure part, run outside the write lock) and ``finish`` (store the result
and say :class:`Done` with the quantity to charge, :class:`Again` for another tick of the
last step, or :class:`Failed`). Its price is ``quantity`` x the unit price of its category
(:data:`rdskit.models.vocab.RUN_KIND_CATEGORIES`), reserved by :meth:`RunKind.accept`.

Ticks are idempotent: each names the step it ends (``job.payload["step"]``; ``None`` as
the run leaves the queue), and a tick that finds the run elsewhere (re-run after a
restart) does nothing.

Example:
    >>> from rdskit.sandbox.store.accounts import bootstrap
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from rdskit.models.vocab import RUN_KIND_CATEGORIES
from rdskit.sandbox.runtime.worker import ErrorHandler, Job, JobKind, WorkerStopped, schedule
from rdskit.sandbox.store import wallet
from rdskit.sandbox.store.cursors import ListParams, child_page
from rdskit.sandbox.store.db import Connection, Store, dumps, loads, new_id, row_or_404

__all__ = [
    "Again",
    "ChildRuns",
    "Done",
    "Failed",
    "Outcome",
    "RunKind",
    "RunTable",
    "Step",
    "failure",
    "internal_error",
]

T = TypeVar("T")


def internal_error(exc: BaseException) -> str:
    """The reason a crashed run gives: the exception's type, never its message; a worker
    that stopped says so and the fix (its own message, which holds no data).

    Example:
        >>> internal_error(KeyError("secret"))
        'internal error: KeyError'
    """
    if isinstance(exc, WorkerStopped):
        return str(exc)
    return f"internal error: {type(exc).__name__}"


def failure(row: sqlite3.Row | Mapping[str, Any]) -> dict[str, Any]:
    """What a run's wire status adds to its ``type``: why it failed (``reason``, a field
    the spec does not show, kept by clients as sent), for every kind that keeps it.

    Example:
        >>> failure({"status": "failed", "error": "internal error: KeyError"})
        {'reason': 'internal error: KeyError'}
        >>> failure({"status": "completed", "error": None})
        {}
    """
    return {"reason": row["error"]} if row["status"] == "failed" and row["error"] else {}


@dataclass(frozen=True)
class RunTable:
    """How one run kind stores its runs.

    ``live``: the statuses a failure may still end; ``steps``: whether the table has a
    ``steps`` JSON column (whose open step fails with the run); ``whole_seconds``: step
    times stored as whole seconds; ``undo``: the kind's clean-up of partial writes;
    ``errors``: whether the table keeps the failure reason (an ``error`` column);
    ``reserves``: whether its runs hold a reservation (a ``reservation_id`` column).
    """

    table: str
    live: tuple[str, ...]
    steps: bool = False
    whole_seconds: bool = False
    undo: Callable[[Connection, sqlite3.Row], None] | None = None
    errors: bool = True
    reserves: bool = True

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
        self, conn: Connection, run_id: str, status: str, steps: list[dict[str, Any]] | None
    ) -> None:
        """Record the run's status (and its steps, when the table has them)."""
        columns = {"status": status, "updated_at": conn.store.clock.now()}
        if self.steps and steps is not None:
            columns["steps"] = dumps(steps)
        self.update(conn, run_id, **columns)

    def update(self, conn: Connection, run_id: str, **columns: Any) -> None:
        """Set ``columns`` of the run (the kind's counters, its result's id...)."""
        assignments = ", ".join(f"{column} = ?" for column in columns)
        conn.execute(
            f"UPDATE {self.table} SET {assignments} WHERE id = ?", (*columns.values(), run_id)
        )

    def insert(self, conn: Connection, columns: Mapping[str, Any]) -> None:
        """Insert one run row."""
        names = ", ".join(columns)
        marks = ", ".join("?" * len(columns))
        sql = f"INSERT INTO {self.table} ({names}) VALUES ({marks})"
        conn.execute(sql, tuple(columns.values()))

    def fail(self, conn: Connection, run: sqlite3.Row, reason: str) -> None:
        """Failed: the open step fails, ``reason`` is kept, partial writes are undone and
        the whole reservation is refunded."""
        now = conn.store.clock.now()
        columns: dict[str, Any] = {"status": "failed"}
        if self.steps:
            steps = loads(run["steps"])
            for step in steps:
                if step["status"] == "working":
                    step.update(status="failed", finished_at=self.stamp(now))
            columns["steps"] = dumps(steps)
        if self.errors:
            columns["error"] = reason
        columns["updated_at"] = now
        self.update(conn, run["id"], **columns)
        if self.undo is not None:
            self.undo(conn, run)
        if self.reserves:
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


class Step(NamedTuple):
    """A step of a run: its name and how long it takes in simulated seconds."""

    name: str
    seconds: float


class Done(NamedTuple):
    """The run is complete: charge ``quantity`` units (``None``: the kind reserves nothing)."""

    quantity: int | None = None


class Again(NamedTuple):
    """The last step needs another tick; ``started``: the run is now visibly at work."""

    started: bool = False


class Failed(NamedTuple):
    """The run fails with ``reason`` (refunded in full)."""

    reason: str


Outcome = Done | Again | Failed


def _no_check(conn: Connection, run: sqlite3.Row, step: str | None) -> str | None:
    return None


def _no_work(store: Store, run: sqlite3.Row) -> None:
    return None


@dataclass(frozen=True)
class RunKind(Generic[T]):
    """One kind of run: what it stores, its steps, its work and its price; the lifecycle,
    the reservation and the settlement are this class's, written once for every kind.

    - ``name``: the kind of paid work (a key of ``vocab.RUN_KIND_CATEGORIES``, which gives
      the price category reserved and charged); ``id_prefix``: its run ids' prefix;
      ``job``: the worker job kind that ticks it (listed in the registry through ``JOBS``).
    - ``steps``: each ends with one tick; a table without a ``steps`` column has one hidden
      step. The last step's tick runs ``work(store, run)`` (outside the write lock unless
      ``atomic``), then ``finish(conn, run, result)`` in a transaction.
    - ``check(conn, run, step)``: a reason to fail the run as ``step`` ends (``None``: as
      it leaves the queue), or ``None`` to go on.
    - ``queue_seconds``: how long an accepted run waits ``pending`` before its first step;
      ``None``: accepted straight into its first step (still ``accepted`` until ``finish``
      says :class:`Again` with ``started``).
    - ``list_steps``: the pending run lists its steps (else they appear when work starts).

    Example:
        >>> kind = RunKind("dataset_run", RunTable("thing_runs", live=("pending", "working")),
        ...                "thr", "thing.advance", (Step("work", 1.0),),
        ...                finish=lambda conn, run, result: Done(1))
        >>> kind.category, kind.job_kind.kind, kind.job_kind.atomic
        ('mention', 'thing.advance', False)
    """

    name: str
    table: RunTable
    id_prefix: str
    job: str
    steps: tuple[Step, ...]
    finish: Callable[[Connection, sqlite3.Row, T], Outcome]
    work: Callable[[Store, sqlite3.Row], T] = field(default=_no_work)  # type: ignore[assignment]
    check: Callable[[Connection, sqlite3.Row, str | None], str | None] = _no_check
    queue_seconds: float | None = 1.0
    accepted: str = "pending"
    working: str = "working"
    atomic: bool = False
    list_steps: bool = True

    def __post_init__(self) -> None:
        if self.name not in RUN_KIND_CATEGORIES:
            raise ValueError(f"{self.name!r} is no kind of paid work (vocab.RUN_KIND_CATEGORIES)")
        if not self.steps or (not self.table.steps and len(self.steps) != 1):
            raise ValueError("a run has steps; without a steps column, exactly one")

    @property
    def category(self) -> str | None:
        """The price category its runs reserve and are charged in (``None``: no reservation)."""
        return RUN_KIND_CATEGORIES[self.name] if self.table.reserves else None

    @property
    def job_kind(self) -> JobKind:
        """The worker job that ticks this kind's runs (its ``on_error`` fails them in full)."""
        return JobKind(
            self.job,
            self.advance,
            atomic=self.atomic,
            on_error=self.table.crash_handler(),
        )

    # -- accepting --------------------------------------------------------------------
    def accept(
        self,
        conn: Connection,
        account_id: str,
        columns: Mapping[str, Any],
        *,
        quantity: int = 0,
        error_code: str = "insufficient_credits",
        top_up_url: str = "",
    ) -> sqlite3.Row:
        """Reserve ``quantity`` units, insert the run (``columns`` + the lifecycle's own),
        schedule its first tick and return its row.

        Raises the 402 ``error_code`` with nothing written when the wallet cannot hold it.
        """
        run_id = new_id(conn, self.id_prefix)
        row: dict[str, Any] = {"id": run_id, "account_id": account_id, **columns}
        if self.category is not None:
            row["reservation_id"] = wallet.reserve(
                conn,
                account_id,
                self.category,
                quantity,
                run_id,
                error_code=error_code,
                top_up_url=top_up_url,
            )
        now = conn.store.clock.now()
        row.update(status=self.accepted, created_at=now, updated_at=now)
        if self.table.steps and self.list_steps:
            row["steps"] = dumps(self._pending_steps())
        self.table.insert(conn, row)
        # The first tick leaves the queue (step None), or ends the first step when none.
        first = None if self.queue_seconds is not None else 0
        delay = self.steps[0].seconds if self.queue_seconds is None else self.queue_seconds
        schedule(
            conn,
            self.job,
            run_id,
            delay=conn.store.clock.scaled(delay),
            payload={"step": first},
            account_id=account_id,
        )
        accepted = self.table.get(conn, run_id)
        assert accepted is not None
        return accepted

    def fail(self, conn: Connection, run: sqlite3.Row, reason: str) -> None:
        """Fail ``run`` now (refunded in full), e.g. when what it works on is deleted."""
        self.table.fail(conn, run, reason)

    def cut_short(self, conn: Connection, run: sqlite3.Row, quantity: int) -> None:
        """Charge the ``quantity`` done so far and release the rest, for a live run that
        goes away with its parent (a deleted custom parameter takes its runs along)."""
        if self.table.reserves:
            wallet.settle(conn, run["reservation_id"], quantity)

    # -- the state machine --------------------------------------------------------------
    def position(self, run: sqlite3.Row) -> int | None:
        """The index of the step the run is in; ``None`` while queued or over."""
        if run["status"] not in self.table.live:
            return None
        if self.queue_seconds is not None and run["status"] == self.accepted:
            return None
        if not self.table.steps:
            return 0
        steps = loads(run["steps"])
        return next((i for i, step in enumerate(steps) if step["status"] == "working"), None)

    def _at(self, conn: Connection, run_id: str, step: int | None) -> sqlite3.Row | None:
        """The run if it is live at ``step`` (a tick replayed after a restart finds it
        elsewhere and does nothing)."""
        run = self.table.get(conn, run_id)
        if run is None or run["status"] not in self.table.live or self.position(run) != step:
            return None
        return run

    def advance(self, store: Store, job: Job) -> None:
        """One tick: end the step ``job.payload["step"]`` (none: leave the queue)."""
        last = len(self.steps) - 1
        with store.transaction() as conn:
            step = self._step_of(conn, job)
            run = self._at(conn, job.ref_id, step)
            if run is None:
                return
            reason = self.check(conn, run, None if step is None else self.steps[step].name)
            if reason is not None:
                self.fail(conn, run, reason)
                return
            if step is None or step < last:
                self._next(conn, run, step)
                return
        result = self.work(store, run)  # slow pure work: outside the write lock
        with store.transaction() as conn:
            run = self._at(conn, job.ref_id, step)
            if run is None:
                return
            outcome = self.finish(conn, run, result)
            if isinstance(outcome, Failed):
                self.fail(conn, run, outcome.reason)
            elif isinstance(outcome, Again):
                if outcome.started and run["status"] != self.working:
                    self.table.set_state(conn, run["id"], self.working, None)
                self._schedule(conn, run["id"], last)
            else:
                self._complete(conn, run, outcome)

    def _step_of(self, conn: Connection, job: Job) -> int | None:
        """The step ``job`` ends. A job written before ticks named their step (a database
        from an older sandbox) ends the step its run is in, so such runs still finish."""
        if "step" in job.payload:
            step: int | None = job.payload["step"]
            return step
        run = self.table.get(conn, job.ref_id)
        return None if run is None else self.position(run)

    def _pending_steps(self) -> list[dict[str, Any]]:
        return [
            {"name": step.name, "status": "pending", "started_at": None, "finished_at": None}
            for step in self.steps
        ]

    def _schedule(self, conn: Connection, run_id: str, step: int) -> None:
        delay = conn.store.clock.scaled(self.steps[step].seconds)
        schedule(conn, self.job, run_id, delay=delay, payload={"step": step})

    def _next(self, conn: Connection, run: sqlite3.Row, step: int | None) -> None:
        """Step ``step`` completed (none: the queue left); the next one is at work."""
        nxt = 0 if step is None else step + 1
        steps = None
        if self.table.steps:
            now = self.table.stamp(conn.store.clock.now())
            steps = loads(run["steps"]) or self._pending_steps()
            if step is not None:
                steps[step].update(status="completed", finished_at=now)
            steps[nxt].update(status="working", started_at=now)
        self.table.set_state(conn, run["id"], self.working, steps)
        self._schedule(conn, run["id"], nxt)

    def _complete(self, conn: Connection, run: sqlite3.Row, outcome: Done) -> None:
        """Completed: the last step ends and the actual quantity is charged."""
        steps = None
        if self.table.steps:
            steps = loads(run["steps"])
            steps[-1].update(
                status="completed", finished_at=self.table.stamp(conn.store.clock.now())
            )
        self.table.set_state(conn, run["id"], "completed", steps)
        if self.table.reserves:
            wallet.settle(conn, run["reservation_id"], outcome.quantity or 0)


@dataclass(frozen=True)
class ChildRuns:
    """The runs of a parent resource as the API reads them (a dataset's, an audience
    dataset's, a custom parameter's): the parent's own 404 first, then the run, whose
    absence answers the parent's code (the spec has no ``*_run_not_found``).

    Example:
        >>> reads = ChildRuns("dataset_runs", "dataset_id", "dataset_not_found",
        ...                   parent_or_404=lambda conn, account_id, parent_id: None,
        ...                   wire=lambda row: dict(row))
        >>> with Store(":memory:") as store, store.read() as conn:
        ...     reads.page(conn, "acc_1", "ds_1", ListParams(10, None, "desc"))["data"]
        []
    """

    table: str
    parent: str
    missing: str
    parent_or_404: Callable[[sqlite3.Connection, str, str], Any]
    wire: Callable[[sqlite3.Row], dict[str, Any]]

    def page(
        self, conn: Connection, account_id: str, parent_id: str, params: ListParams
    ) -> dict[str, Any]:
        """The list envelope of the parent's runs (newest first by default; cursors bound
        to the parent)."""
        self.parent_or_404(conn, account_id, parent_id)
        return child_page(
            conn,
            source=self.table,
            parent=self.parent,
            parent_id=parent_id,
            params=params,
            wire=self.wire,
        )

    def get(
        self, conn: sqlite3.Connection, account_id: str, parent_id: str, run_id: str
    ) -> dict[str, Any]:
        """One run of the parent, as its wire dict."""
        self.parent_or_404(conn, account_id, parent_id)
        match: dict[str, Any] = {"id": run_id, self.parent: parent_id}
        row = row_or_404(
            conn, self.table, self.missing, f"Run {run_id} not found in {parent_id}", **match
        )
        return self.wire(row)
