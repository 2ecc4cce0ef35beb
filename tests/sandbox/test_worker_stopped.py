"""A sandbox whose worker dies (every thread of it, of an unexpected error: a broken
database, a bug in the loop) fails its runs with a clear reason, refunded, instead of
leaving them "pending · time left unknown" for ever; and a run asked for afterwards is
refused at once (400, nothing charged) instead of waiting for a worker that is gone.
Against a real sandbox over real HTTP, its worker broken in place."""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

import pytest

import rdskit
from rdskit.errors import APIError, RunFailed
from rdskit.sandbox import start
from rdskit.sandbox.runtime.worker import Worker

QUERY = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}
STOPPED = (
    "the sandbox's worker stopped (OperationalError): no run can progress; restart the "
    "sandbox (in a notebook, restart the kernel) and start the run again"
)


@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set it, and every worker thread's next claim meets a broken database."""
    breaking = threading.Event()
    claim = Worker._claim

    def broken_claim(self: Worker) -> Any:
        if breaking.is_set():
            raise sqlite3.OperationalError("disk I/O error")
        return claim(self)

    monkeypatch.setattr(Worker, "_claim", broken_claim)
    return breaking


@pytest.mark.timeout(300)
def test_runs_fail_with_the_reason_and_new_runs_are_refused(broken: threading.Event) -> None:
    with start(speed=1) as sandbox, rdskit.Client(sandbox.api_key, base_url=sandbox.url) as c:
        dataset = c.datasets.create("worker stops")
        used = c.me().usage.credits_used
        run = c.datasets.runs.create(dataset.id, QUERY, count=40)
        broken.set()  # the worker's threads die at their next claim
        with pytest.raises(RunFailed) as failed:
            c.wait(run, timeout=120, progress=False)
        assert str(failed.value) == f"dataset run {run.id} failed: failed ({STOPPED})"
        assert c.me().usage.credits_used == used  # the reservation was refunded

        deadline = time.monotonic() + 30  # the last thread records the stop
        while sandbox.store.worker_stopped is None and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(APIError) as refused:
            c.datasets.runs.create(dataset.id, QUERY, count=40)
        assert (refused.value.status, refused.value.error_code) == (400, "sandbox_worker_stopped")
        assert STOPPED in str(refused.value)
        assert c.me().usage.credits_used == used  # nothing charged, nothing waiting
        assert [r.status.type for r in c.datasets.runs.list(dataset.id)] == ["failed"]
