"""The one run state machine (``backend/runs.py``): lifecycle, reservation and settlement.

A fake kind (its own table, three steps, a work function the test controls) is driven tick
by tick on a real store, so each rule is seen once for every kind: a failure at a step
refunds everything (and undoes the kind's writes), actuals below the reservation refund
the rest, a replayed tick is a no-op, a crash fails the run without leaking its message,
and a worker stopped mid-run re-queues the run on restart, which then completes and is
charged once. The last tests prove every real kind is built on it and registered.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from rdskit.models.vocab import RUN_KIND_CATEGORIES
from rdskit.sandbox import registry
from rdskit.sandbox.backend import audiences, custom_parameters, datasets, patterns, tracking
from rdskit.sandbox.backend.runs import Again, Done, Failed, Outcome, RunKind, RunTable, Step
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.runtime.worker import Job, Worker
from rdskit.sandbox.store import wallet
from rdskit.sandbox.store.accounts import bootstrap
from rdskit.sandbox.store.db import Connection, Store, loads

TABLE = """
CREATE TABLE IF NOT EXISTS fake_runs (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    status         TEXT NOT NULL,
    steps          TEXT NOT NULL DEFAULT '[]',
    reservation_id TEXT,
    error          TEXT,
    note           TEXT,
    undone         INTEGER NOT NULL DEFAULT 0,
    created_at     REAL NOT NULL,
    updated_at     REAL NOT NULL
)
"""
QUANTITY = 10  # units reserved per run
UNIT = "post_processing"  # the fake kind's price category (it names custom_parameter_run)


@dataclass
class Script:
    """What the fake kind does: the test sets it before the ticks."""

    fail_at: str | None = None  # check() fails the run as this step ends
    actual: int = 4  # units charged on completion
    finish_fails: bool = False
    again: int = 0  # ticks of the last step answering Again before Done
    crash: bool = False  # work() raises
    gate: threading.Event | None = None  # work() waits on it (once), to be stopped mid-run
    entered: threading.Event = field(default_factory=threading.Event)
    work_calls: int = 0


def make_kind(script: Script) -> RunKind[int]:
    def check(conn: Connection, run: sqlite3.Row, step: str | None) -> str | None:
        return f"{step} broke" if step is not None and step == script.fail_at else None

    def work(store: Store, run: sqlite3.Row) -> int:
        script.work_calls += 1
        script.entered.set()
        if script.gate is not None and script.work_calls == 1:
            script.gate.wait(10)
        if script.crash:
            raise RuntimeError("secret detail that must not reach the run")
        return script.actual

    def finish(conn: Connection, run: sqlite3.Row, actual: int) -> Outcome:
        if script.finish_fails:
            return Failed("finish said no")
        if script.again:
            script.again -= 1
            return Again(started=True)
        conn.execute("UPDATE fake_runs SET note = 'written' WHERE id = ?", (run["id"],))
        return Done(actual)

    def undo(conn: Connection, run: sqlite3.Row) -> None:
        conn.execute("UPDATE fake_runs SET undone = 1, note = NULL WHERE id = ?", (run["id"],))

    return RunKind(
        "custom_parameter_run",
        RunTable("fake_runs", live=("pending", "working"), steps=True, undo=undo),
        id_prefix="fkr",
        job="fake_run.advance",
        steps=(Step("one", 0.01), Step("two", 0.01), Step("three", 0.01)),
        check=check,
        work=work,
        finish=finish,
        queue_seconds=0.01,
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "engine.db") as opened:
        with opened.transaction() as conn:
            bootstrap(conn)
            conn.execute(TABLE)
        yield opened


def account_of(store: Store) -> str:
    with store.read() as conn:
        (account_id,) = conn.execute("SELECT id FROM accounts LIMIT 1").fetchone()
    return str(account_id)


def available(store: Store) -> Decimal:
    with store.read() as conn:
        return wallet.balance(conn, account_of(store)).available


def unit_usd(store: Store) -> Decimal:
    with store.read() as conn:
        return wallet.terms(conn, account_of(store)).unit_usd(UNIT)


def accept(store: Store, kind: RunKind[Any]) -> str:
    with store.transaction() as conn:
        run = kind.accept(
            conn, account_of(store), {}, quantity=QUANTITY, error_code="insufficient_credits"
        )
    return str(run["id"])


def run_row(store: Store, run_id: str) -> dict[str, Any]:
    with store.read() as conn:
        row = conn.execute("SELECT * FROM fake_runs WHERE id = ?", (run_id,)).fetchone()
        reservation = conn.execute(
            "SELECT state FROM reservations WHERE id = ?", (row["reservation_id"],)
        ).fetchone()
    return {**dict(row), "steps": loads(row["steps"]), "reservation": reservation["state"]}


def next_job(store: Store, run_id: str) -> Job | None:
    """Take the run's due job off the queue, as a worker would."""
    with store.transaction() as conn:
        row = conn.execute(
            "SELECT * FROM jobs WHERE ref_id = ? AND state = 'pending' ORDER BY id LIMIT 1",
            (run_id,),
        ).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE jobs SET state = 'done' WHERE id = ?", (row["id"],))
    return Job(row["id"], row["kind"], row["ref_id"], loads(row["payload"]), 1)


def tick_until_over(store: Store, kind: RunKind[Any], run_id: str) -> list[Job]:
    ticks = []
    while (job := next_job(store, run_id)) is not None:
        kind.advance(store, job)
        ticks.append(job)
        assert len(ticks) < 20, "the run never ends"
    return ticks


def test_a_run_walks_its_steps_and_actuals_below_the_reservation_refund_the_rest(
    store: Store,
) -> None:
    kind = make_kind(Script(actual=4))
    before = available(store)
    run_id = accept(store, kind)
    accepted = run_row(store, run_id)
    assert accepted["status"] == "pending" and accepted["reservation"] == "held"
    assert [s["status"] for s in accepted["steps"]] == ["pending"] * 3
    assert available(store) == before - QUANTITY * unit_usd(store)  # the whole price held

    ticks = tick_until_over(store, kind, run_id)

    done = run_row(store, run_id)
    assert [job.payload.get("step") for job in ticks] == [None, 0, 1, 2]
    assert done["status"] == "completed" and done["note"] == "written"
    assert [s["status"] for s in done["steps"]] == ["completed"] * 3
    assert all(s["started_at"] <= s["finished_at"] for s in done["steps"])
    assert done["reservation"] == "settled"
    assert available(store) == before - 4 * unit_usd(store)  # 4 charged, 6 back
    with store.read() as conn:
        usage = conn.execute("SELECT * FROM usage_rows WHERE ref = ?", (run_id,)).fetchall()
    assert len(usage) == 1


@pytest.mark.parametrize("step", ["one", "two", "three"])
def test_a_failure_at_a_step_refunds_everything_and_undoes_the_kind(
    store: Store, step: str
) -> None:
    script = Script(fail_at=step)
    kind = make_kind(script)
    before = available(store)
    run_id = accept(store, kind)

    tick_until_over(store, kind, run_id)

    failed = run_row(store, run_id)
    names = [s["name"] for s in failed["steps"]]
    at = names.index(step)
    assert failed["status"] == "failed" and failed["error"] == f"{step} broke"
    assert [s["status"] for s in failed["steps"]] == (
        ["completed"] * at + ["failed"] + ["pending"] * (2 - at)
    )
    assert failed["undone"] == 1 and failed["reservation"] == "refunded"
    assert available(store) == before
    assert script.work_calls == 0  # the work of a failed run never starts


def test_a_failed_finish_refunds_everything(store: Store) -> None:
    kind = make_kind(Script(finish_fails=True))
    before = available(store)
    run_id = accept(store, kind)
    tick_until_over(store, kind, run_id)
    failed = run_row(store, run_id)
    assert (failed["status"], failed["error"], failed["reservation"]) == (
        "failed",
        "finish said no",
        "refunded",
    )
    assert failed["steps"][-1]["status"] == "failed"
    assert available(store) == before


def test_again_ticks_the_last_step_until_done(store: Store) -> None:
    script = Script(again=2, actual=10)
    kind = make_kind(script)
    run_id = accept(store, kind)
    ticks = tick_until_over(store, kind, run_id)
    assert [job.payload.get("step") for job in ticks] == [None, 0, 1, 2, 2, 2]
    assert script.work_calls == 3
    done = run_row(store, run_id)
    assert done["status"] == "completed" and done["reservation"] == "settled"


def test_a_replayed_tick_is_a_no_op(store: Store) -> None:
    kind = make_kind(Script())
    before = available(store)
    run_id = accept(store, kind)
    ticks = tick_until_over(store, kind, run_id)
    after = run_row(store, run_id)
    for job in ticks:  # a restart replays every tick the run already took
        kind.advance(store, job)
    assert run_row(store, run_id) == after
    assert available(store) == before - 4 * unit_usd(store)
    assert next_job(store, run_id) is None  # and schedules nothing


def test_jobs_written_by_an_older_sandbox_still_finish_the_run(store: Store) -> None:
    # Older sandboxes wrote some ticks without naming their step (a file database kept
    # across an upgrade): such a tick ends the step its run is in.
    kind = make_kind(Script())
    run_id = accept(store, kind)
    for _ in range(4):
        with store.transaction() as conn:
            conn.execute("UPDATE jobs SET payload = '{}' WHERE ref_id = ?", (run_id,))
        job = next_job(store, run_id)
        assert job is not None and job.payload == {}
        kind.advance(store, job)
    assert run_row(store, run_id)["status"] == "completed"
    assert next_job(store, run_id) is None


def test_a_run_cut_short_pays_for_its_progress_only(store: Store) -> None:
    # A custom parameter deleted mid-run takes its run along: the posts done are charged.
    kind = make_kind(Script())
    before = available(store)
    run_id = accept(store, kind)
    job = next_job(store, run_id)
    assert job is not None
    kind.advance(store, job)  # leaves the queue: working
    with store.transaction() as conn:
        run = conn.execute("SELECT * FROM fake_runs WHERE id = ?", (run_id,)).fetchone()
        kind.cut_short(conn, run, 3)
    assert run_row(store, run_id)["reservation"] == "settled"
    assert available(store) == before - 3 * unit_usd(store)


def test_a_crash_fails_the_run_in_full_without_its_message(store: Store) -> None:
    kind = make_kind(Script(crash=True))
    before = available(store)
    run_id = accept(store, kind)
    worker = Worker(store, threads=1, jobs=[kind.job_kind])
    worker.start()
    try:
        failed = wait_for(store, run_id, lambda row: row["status"] == "failed")
    finally:
        worker.stop()
    assert failed["error"] == "internal error: RuntimeError"
    assert "secret" not in repr(failed)
    assert failed["reservation"] == "refunded" and failed["undone"] == 1
    assert available(store) == before


def test_a_worker_stopped_mid_run_requeues_it_and_the_restart_completes_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "restart.db"
    gate = threading.Event()
    script = Script(actual=7, gate=gate)
    kind = make_kind(script)
    with open_store(path) as first:
        with first.transaction() as conn:
            bootstrap(conn)
            conn.execute(TABLE)
        before = available(first)
        run_id = accept(first, kind)
        worker = Worker(first, threads=1, jobs=[kind.job_kind])
        worker.start()
        assert script.entered.wait(10), "the run never reached its work"
        worker.stop(timeout=0.05)  # the job is still in its work: the process goes away
    gate.set()  # the orphaned thread wakes to a closed store and ends quietly
    worker.stop(timeout=10)

    with open_store(path) as second:
        stuck = run_row(second, run_id)
        assert stuck["status"] == "working" and stuck["reservation"] == "held"
        with second.read() as conn:
            (running,) = conn.execute(
                "SELECT COUNT(*) FROM jobs WHERE ref_id = ? AND state = 'running'", (run_id,)
            ).fetchone()
        assert running == 1
        restarted = Worker(second, threads=1, jobs=[kind.job_kind])
        restarted.start()  # re-queues the running job
        try:
            done = wait_for(second, run_id, lambda row: row["status"] == "completed")
        finally:
            restarted.stop()
        assert script.work_calls == 2  # the interrupted step's work ran again
        assert done["reservation"] == "settled"
        assert available(second) == before - 7 * unit_usd(second)  # charged once
        with second.read() as conn:
            usage = conn.execute("SELECT * FROM usage_rows WHERE ref = ?", (run_id,)).fetchall()
        assert len(usage) == 1


def wait_for(
    store: Store, run_id: str, ready: Callable[[dict[str, Any]], bool], timeout: float = 20
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = run_row(store, run_id)
        if ready(row):
            return row
        time.sleep(0.02)
    raise AssertionError(f"run {run_id} is still {run_row(store, run_id)['status']}")


def test_a_kind_must_be_a_kind_of_paid_work() -> None:
    table = RunTable("fake_runs", live=("pending",))
    with pytest.raises(ValueError, match="no kind of paid work"):
        RunKind("fake", table, "fk", "fake.advance", (Step("one", 1),), finish=lambda *a: Done())
    with pytest.raises(ValueError, match="exactly one"):
        RunKind(
            "dataset_run",
            table,
            "fk",
            "fake.advance",
            (Step("one", 1), Step("two", 1)),  # no steps column: one step at most
            finish=lambda *a: Done(),
        )


# -- the real kinds ---------------------------------------------------------------------
REAL_KINDS: dict[str, RunKind[Any]] = {
    "dataset_run": datasets.RUN,
    "audience_run": audiences.RUN,
    "custom_parameter_run": custom_parameters.RUN,
    "pattern_detection": patterns.RUN,
    "tracking_trigger": tracking.CYCLE,
}


def test_every_real_kind_is_a_run_kind_of_the_registry() -> None:
    # Every kind of paid work that runs in the background (a research preview is answered
    # at once) is one of the engine's kinds, listed in the registry, its job among the
    # worker's jobs with the engine's tick as handler.
    background = set(RUN_KIND_CATEGORIES) - {"research_preview"}
    assert set(REAL_KINDS) == background
    assert {kind.name for kind in registry.RUN_KINDS} == background
    assert list(registry.RUN_KINDS) == [REAL_KINDS[kind.name] for kind in registry.RUN_KINDS]
    jobs = {job.kind: job for job in registry.JOBS}
    for kind in registry.RUN_KINDS:
        assert jobs[kind.job].handler == kind.advance, kind.name
        assert jobs[kind.job].on_error is not None, kind.name


def test_the_real_kinds_reserve_in_their_price_category() -> None:
    for name, kind in REAL_KINDS.items():
        expected = None if name == "tracking_trigger" else RUN_KIND_CATEGORIES[name]
        assert kind.category == expected, name  # a cycle's dataset runs reserve for it
