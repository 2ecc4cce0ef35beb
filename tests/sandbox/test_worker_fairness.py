"""The fair worker: one account's flood never delays another's work; jobs over their CPU
budget fail (refunded) instead of blocking; re-queued jobs obey the same rule."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.runtime import cpu_budget
from rdskit.sandbox.runtime.worker import Job, Worker, register, schedule
from rdskit.sandbox.store.db import Store

PROMPT = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}

_done: dict[str, float] = {}
_failed: dict[str, str] = {}
_cpu_used: dict[str, float] = {}  # the CPU seconds a failed job had burnt when it was stopped
_started_cpu: dict[str, float] = {}
_order: list[str] = []  # the jobs in the order they finished
_lock = threading.Lock()


def _burn(store: Store, job: Job) -> None:
    """A CPU-heavy job: spins for ``payload["seconds"]`` of CPU, checking its budget."""
    begun = time.thread_time()
    with _lock:
        _started_cpu[job.ref_id] = begun
    until = begun + job.payload.get("seconds", 0.0)
    while time.thread_time() < until:
        cpu_budget.check()
        sum(range(2_000))
    with _lock:
        _done[job.ref_id] = time.monotonic()
        _order.append(job.ref_id)


def _burn_failed(store: Store, job: Job, exc: BaseException) -> None:
    # on_error runs on the worker thread that ran the job, so its CPU clock is the job's.
    with _lock:
        _failed[job.ref_id] = type(exc).__name__
        _cpu_used[job.ref_id] = time.thread_time() - _started_cpu[job.ref_id]


register("test.burn", _burn, atomic=False, on_error=_burn_failed)


def _wait(keys: list[str], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not all(k in _done or k in _failed for k in keys):
        assert time.monotonic() < deadline, ({k: k in _done for k in keys}, _failed)
        time.sleep(0.005)


def _flood(store: Store, n: int, seconds: float, account: str = "flood") -> list[str]:
    keys = [f"{account}-{time.monotonic_ns()}-{i}" for i in range(n)]
    with store.transaction() as conn:
        for key in keys:
            schedule(conn, "test.burn", key, payload={"seconds": seconds}, account_id=account)
    return keys


def test_a_flood_does_not_delay_other_accounts() -> None:
    store = open_store()
    worker = Worker(store, threads=2)
    worker.start()
    try:
        flood = _flood(store, 12, 0.25)
        time.sleep(0.05)  # the flood is running and queued first
        with _lock:
            flood_done_before = sum(k in _done for k in flood)
        small = _flood(store, 1, 0.0, account="acc_a") + _flood(store, 1, 0.0, account="acc_b")
        _wait(small, timeout=30)
        # Told by the order jobs finished in, not by the wall clock (a loaded machine slows
        # every job alike): each of the two threads finishes at most the flood job it holds,
        # then takes the other accounts' jobs ahead of the eleven flood jobs still queued.
        last_small = max(_order.index(k) for k in small)
        flood_done_by_then = sum(k in _order[:last_small] for k in flood)
        assert flood_done_by_then - flood_done_before <= 2, (flood_done_before, _order)
        _wait(flood, timeout=60)
    finally:
        worker.stop()
        store.close()


def test_a_job_over_its_budget_fails_instead_of_blocking() -> None:
    store = open_store()
    worker = Worker(store, threads=2, budget_seconds=0.1)
    worker.start()
    try:
        (endless,) = _flood(store, 1, 60.0)  # a minute of CPU: far over the budget
        _wait([endless], timeout=60)
        assert _failed.get(endless) == "BudgetExceeded"
        # Stopped near its 0.1 s budget of CPU (the job's own clock: unlike the wall clock,
        # it does not stretch on a loaded machine), not after the minute it asked for.
        assert _cpu_used[endless] < 1.0, _cpu_used[endless]
        with store.read() as conn:
            state, error = conn.execute(
                "SELECT state, last_error FROM jobs WHERE ref_id = ?", (endless,)
            ).fetchone()
        assert state == "failed" and "CPU budget" in error
    finally:
        worker.stop()
        store.close()


def test_requeued_jobs_after_a_restart_obey_the_same_rule(tmp_path: Path) -> None:
    path = tmp_path / "sandbox.db"
    store = open_store(path)
    flood = _flood(store, 10, 0.25)
    with store.transaction() as conn:  # a crash left the flood's jobs "running"
        conn.execute("UPDATE jobs SET state = 'running' WHERE account_id = 'flood'")
    small = _flood(store, 1, 0.0, account="acc_c")
    store.close()

    reopened = open_store(path)
    worker = Worker(reopened, threads=2)
    worker.start()  # re-queues the flood, then claims fairly
    try:
        _wait(small, timeout=30)
        # At most the flood jobs the two threads took first finish before it, not all ten.
        assert sum(k in _order[: _order.index(small[0])] for k in flood) <= 2, _order
        _wait(flood, timeout=60)
    finally:
        worker.stop()
        reopened.close()


# -- end to end, over HTTP -----------------------------------------------------------------
@pytest.fixture(scope="module")
def box() -> Iterator[SandboxHandle]:
    with start(speed=50, rate_limit=1_000_000, seed=8) as handle:
        yield handle


def _client(box: SandboxHandle) -> httpx.Client:
    created = box.admin.create_account(plan="Business", wallet_usd="100000")
    return httpx.Client(base_url=box.url, headers={"x-api-key": created.api_key}, timeout=30)


def _start_run(http: httpx.Client, count: int) -> tuple[str, str]:
    dataset = http.post("/v1/datasets", json={"name": "d"}).json()["data"]["id"]
    run = http.post(f"/v1/datasets/{dataset}/runs", json={"search_query": PROMPT, "count": count})
    assert run.status_code == 200, run.text
    return dataset, run.json()["data"]["id"]


def _status(http: httpx.Client, dataset: str, run: str) -> str:
    status: str = http.get(f"/v1/datasets/{dataset}/runs/{run}").json()["data"]["status"]["type"]
    return status


def _finish(http: httpx.Client, dataset: str, run: str, timeout: float = 60) -> float:
    started = time.monotonic()
    while (status := _status(http, dataset, run)) not in ("completed", "failed"):
        assert time.monotonic() - started < timeout
        time.sleep(0.01)
    assert status == "completed"
    return time.monotonic()


def test_two_accounts_runs_complete_on_time_while_a_third_floods(box: SandboxHandle) -> None:
    a, b, flooder = _client(box), _client(box), _client(box)
    try:
        alone_started = time.monotonic()
        alone = _finish(a, *_start_run(a, 20)) - alone_started
        flood = [_start_run(flooder, 5_000) for _ in range(5)]  # ~0.5 s of CPU each
        time.sleep(0.3)
        started = time.monotonic()
        runs = [(a, *_start_run(a, 20)), (b, *_start_run(b, 20))]
        took = max(_finish(http, ds, run) for http, ds, run in runs) - started
        # Without fairness they would wait for the whole flood (seconds of CPU); with it,
        # about their own pipeline plus sharing the CPU with the one flood job running.
        print(f"\nsmall run alone {alone:.2f} s, during the flood {took:.2f} s")
        assert took < alone + 1.5, (alone, took)
        assert any(_status(flooder, ds, run) != "completed" for ds, run in flood)
    finally:
        for http in (a, b, flooder):
            http.close()


def test_a_run_over_its_cpu_budget_fails_refunded() -> None:
    with start(speed=500, rate_limit=1_000_000, job_cpu_budget=0.05) as tight:
        created = tight.admin.create_account(plan="Business", wallet_usd="100000")
        with httpx.Client(
            base_url=tight.url, headers={"x-api-key": created.api_key}, timeout=30
        ) as http:
            dataset, run = _start_run(http, 20_000)
            while (status := _status(http, dataset, run)) not in ("completed", "failed"):
                time.sleep(0.02)
            assert status == "failed"
            wallet = tight.admin.account(created.account_id)["wallet"]
            assert Decimal(wallet["held_usd"]) == 0 and Decimal(wallet["used_usd"]) == 0
            small = _start_run(http, 5)  # the worker is not blocked: the next run completes
            _finish(http, *small)


def test_a_job_outliving_stop_ends_quietly_when_the_store_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # stop() waits a bounded time; the sandbox then closes its store under a job still running.
    crashes: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", crashes.append)
    store = open_store(tmp_path / "closing.db")
    worker = Worker(store, threads=1)
    worker.start()
    key = _flood(store, 1, 0.4, account="slow")[0]
    deadline = time.monotonic() + 10
    while not worker._threads[0].is_alive() or _running(store) == 0:
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.01)
    worker.stop(timeout=0.05)
    store.close()
    worker._threads[0].join(10)
    assert not worker._threads[0].is_alive()
    assert crashes == [], [c.exc_value for c in crashes]
    reopened = open_store(tmp_path / "closing.db")  # its end was not recorded: re-queued on start
    try:
        with reopened.read() as conn:
            state = conn.execute("SELECT state FROM jobs WHERE ref_id = ?", (key,)).fetchone()
        assert state[0] == "running"
    finally:
        reopened.close()


def _running(store: Store) -> int:
    with store.read() as conn:
        return int(conn.execute("SELECT COUNT(*) FROM jobs WHERE state = 'running'").fetchone()[0])
