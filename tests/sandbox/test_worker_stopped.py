"""A sandbox whose worker dies (every thread of it, of an unexpected error: a broken
database, a bug in the loop) fails its runs with a clear reason, refunded, instead of
leaving them "pending · time left unknown" for ever; and a run asked for afterwards is
refused at once (400, nothing charged) instead of waiting for a worker that is gone.
Against a real sandbox over real HTTP, its worker broken in place."""

from __future__ import annotations

import sqlite3
import time
from datetime import timedelta
from typing import Any

import pytest

import rdskit
from rdskit.errors import APIError, RunFailed
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.runtime.worker import Worker

QUERY = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}
STOPPED = (
    "the sandbox's worker stopped (OperationalError: disk I/O error): no run can progress; "
    "restart the sandbox (in a notebook, restart the kernel) and start the run again"
)


def _agent(client: rdskit.Client, dataset_id: str) -> Any:
    """A tracking agent of ``dataset_id``, daily at 09:00, 20 posts a cycle."""
    return client.tracking_agents.create(
        name="watch",
        instructions="Complaints",
        dataset_ids=[dataset_id],
        schedule={"frequency": "daily", "time": "09:00"},
        count=20,
    )


class Breaker:
    """Breaks the workers of the sandboxes it is given, and no other: the patch is on the
    Worker class, shared by every sandbox of the process. It once broke every worker, the
    shared session sandbox of the same pytest worker included, whose later tests then met
    'the sandbox's worker stopped (OperationalError)' (two CI failures, twice)."""

    def __init__(self) -> None:
        self._stores: set[int] = set()

    def set(self, sandbox: SandboxHandle) -> None:
        """Every thread of ``sandbox``'s worker meets a broken database at its next claim."""
        self._stores.add(id(sandbox.store))

    def clear(self) -> None:
        self._stores.clear()

    def breaks(self, worker: Worker) -> bool:
        return id(worker.store) in self._stores


@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch) -> Breaker:
    breaker = Breaker()
    claim = Worker._claim

    def broken_claim(self: Worker) -> Any:
        if breaker.breaks(self):
            raise sqlite3.OperationalError("disk I/O error")
        return claim(self)

    monkeypatch.setattr(Worker, "_claim", broken_claim)
    return breaker


@pytest.mark.timeout(300)
def test_breaking_one_sandbox_leaves_the_others_of_the_process_working(broken: Breaker) -> None:
    with start(speed=1) as other, start(speed=1) as doomed:
        broken.set(doomed)
        assert _until(lambda: doomed.store.worker_stopped, 30)
        with rdskit.Client(other.api_key, base_url=other.url) as c:
            run = c.datasets.runs.create(c.datasets.create("still works").id, QUERY, count=20)
            assert c.wait(run, timeout=120, progress=False).status.type == "completed"
        assert other.store.worker_stopped is None


@pytest.mark.timeout(300)
def test_runs_fail_with_the_reason_and_new_runs_are_refused(broken: Breaker) -> None:
    with start(speed=1) as sandbox, rdskit.Client(sandbox.api_key, base_url=sandbox.url) as c:
        dataset = c.datasets.create("worker stops")
        used = c.me().usage.credits_used
        run = c.datasets.runs.create(dataset.id, QUERY, count=40)
        broken.set(sandbox)  # the worker's threads die at their next claim
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


@pytest.mark.timeout(300)
def test_every_kind_of_work_fails_with_the_reason_on_its_wire(broken: Breaker) -> None:
    """Audience profiles, custom parameter and pattern runs, a tracking cycle and an
    assistant reply, all in flight when the worker dies: each ends failed (none stays
    pending) with the stop and its fix on its own wire, and waiting on it raises
    :class:`RunFailed` naming them; a research preview, which needs no worker, still
    answers afterwards. Nothing is charged."""
    with start(speed=1) as sandbox, rdskit.Client(sandbox.api_key, base_url=sandbox.url) as c:
        dataset = c.datasets.create("worker stops")
        c.wait(c.datasets.runs.create(dataset.id, QUERY, count=40), progress=False)
        used = c.me().usage.credits_used
        audience = c.audience_datasets.create("worker stops")
        parameter = c.custom_parameters.create(
            name="price", instructions="Is the price mentioned?", value_type="boolean"
        )
        agent = _agent(c, dataset.id)
        in_flight = {
            "audience run": c.audience_datasets.runs.create(
                audience.id, dataset.id, total_profile_count=20
            ),
            "custom parameter run": c.custom_parameters.runs.create(
                parameter.id, dataset_id=dataset.id
            ),
            "pattern detection": c.pattern_detections.create(
                dataset.id, name="why", research_question="Why do people switch?"
            ),
            "assistant reply": c.ask("How many posts are there?", dataset_ids=[dataset.id]),
        }
        cycle = c.tracking_agents.trigger(agent.id)
        broken.set(sandbox)

        for what, started in in_flight.items():
            with pytest.raises(RunFailed) as failed:
                c.wait(started, timeout=120, progress=False)
            assert STOPPED in str(failed.value), (what, str(failed.value))
        reread = {
            "audience run": c.audience_datasets.runs.get(
                audience.id, in_flight["audience run"].id
            ).status,
            "custom parameter run": c.custom_parameters.runs.get(
                parameter.id, in_flight["custom parameter run"].id
            ).status,
            "pattern detection": c.pattern_detections.get(
                in_flight["pattern detection"].run_id
            ).status,
        }
        for what, status in reread.items():
            assert (status.type, status.reason) == ("failed", STOPPED), what
        (reply,) = [
            m
            for m in c.chats.messages(in_flight["assistant reply"].chat_id).data
            if m.id == in_flight["assistant reply"].message_id
        ]
        assert (reply.status, reply.stop_reason) == ("failed", "error")
        assert reply.text == f"Sorry, I could not answer this question: {STOPPED}."
        # The cycle's collection is a dataset run of its own: failed, with the reason.
        (collected,) = cycle.dataset_run_ids
        status = c.datasets.runs.get(dataset.id, collected).status
        assert (status.type, status.reason) == ("failed", STOPPED)

        assert c.me().usage.credits_used == used  # every reservation refunded

        preview = c.research_previews.create(
            search_query="oat milk", sources=["reddit"], time_filter="past_week"
        )
        assert preview.posts, "a preview needs no worker: it still answers"


def _until(check: Any, seconds: float = 60) -> Any:
    """``check()`` once it is truthy (polled), else its last value."""
    deadline = time.monotonic() + seconds
    while not (value := check()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return value


@pytest.mark.timeout(300)
def test_a_tracking_agent_says_why_then_runs_again_after_a_restart(
    broken: Breaker, tmp_path: Any
) -> None:
    """A tracking agent whose cycle was running when the worker died is not left running
    for ever: the cycle fails with the stop's reason, a trigger says why nothing can run
    (not "a cycle is still running"); a sandbox restarted on the same database (the fix
    the reason names) runs a triggered cycle and the agent's next scheduled one, with
    their alerts. Nothing is charged for the cycle the stop cut short."""
    db = tmp_path / "sandbox.db"
    with (
        start(speed=1, db=db) as sandbox,
        rdskit.Client(sandbox.api_key, base_url=sandbox.url) as c,
    ):
        dataset = c.datasets.create("worker stops")
        c.wait(c.datasets.runs.create(dataset.id, QUERY, count=40), progress=False)
        agent = _agent(c, dataset.id)
        used = c.me().usage.credits_used
        cycle = c.tracking_agents.trigger(agent.id)
        broken.set(sandbox)
        with pytest.raises(RunFailed) as failed:
            cycle.wait(timeout=120, progress=False)
        assert STOPPED in str(failed.value)
        assert _until(lambda: sandbox.store.worker_stopped, 30)
        with pytest.raises(APIError) as refused:
            c.tracking_agents.trigger(agent.id)
        # not 409 tracking_agent_run_in_progress: the cut cycle is over, and why none runs
        assert (refused.value.status, refused.value.error_code) == (400, "sandbox_worker_stopped")
        assert STOPPED in str(refused.value)
        assert c.me().usage.credits_used == used
        assert c.tracking_agents.messages(agent.id).data == []
        api_key = sandbox.api_key
    broken.clear()

    with start(speed=1, db=db) as sandbox, rdskit.Client(api_key, base_url=sandbox.url) as c:
        assert c.tracking_agents.trigger(agent.id).wait(timeout=120, progress=False)
        assert _until(lambda: len(c.tracking_agents.messages(agent.id).data) == 1)
        before = c.tracking_agents.get(agent.id).next_run_at
        assert before is not None and before.timestamp() > sandbox.store.clock.now()
        sandbox.store.clock.advance(before.timestamp() - sandbox.store.clock.now() + 1)
        assert _until(lambda: len(c.tracking_agents.messages(agent.id).data) == 2), (
            "the agent's scheduled cycle did not run after the restart"
        )
        fired = c.tracking_agents.get(agent.id)
        assert fired.last_run_at is not None and fired.last_run_at >= before
        assert fired.next_run_at == before + timedelta(days=1)
