"""Tracking agents: lifecycle, triggers, alert messages and their errors, via the client."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from contract_support import Account, collect_into, finish

from rdskit import Client, Conflict, InsufficientCredits, NotFound
from rdskit.errors import (
    DatasetHasNoQueries,
    InsufficientCreditsGeneric,
    InvalidCursor,
    ResourceNotFound,
    TrackingAgentLimitReached,
    TrackingAgentRunInProgress,
)
from rdskit.models import (
    EntityReference,
    PostReference,
    Schedule,
    TrackingAgent,
    TrackingMessage,
    TrackingRun,
)

DAILY = {"frequency": "daily", "time": "06:30"}


@pytest.fixture(scope="module")
def watched(client: Client) -> str:
    """A dataset with a completed search, for agents to re-run."""
    return collect_into(client, "watched", count=10).id


def _agent(client: Client, dataset_id: str, **extra: Any) -> TrackingAgent:
    return client.tracking_agents.create(
        name="Oat watch",
        instructions="Is it a complaint?",
        dataset_ids=[dataset_id],
        schedule=extra.pop("schedule", DAILY),
        count=8,
        num_comments_per_post=1,
        integration_ids=[],
        **extra,
    )


def test_lifecycle(client: Client, watched: str) -> None:
    agent = _agent(
        client, watched, schedule=Schedule(frequency="weekly", time="09:00", day="monday")
    )
    assert isinstance(agent, TrackingAgent) and agent.id.startswith("ta_")
    assert (agent.paused, agent.dataset_ids, agent.count) == (False, [watched], 8)
    assert agent.schedule is not None and agent.schedule.day == "monday"
    assert agent.next_run_at is not None and agent.next_run_at.weekday() == 0
    assert isinstance(agent.to_wire()["created_at"], int)
    listed = client.tracking_agents.list()
    assert isinstance(listed, list) and agent.id in {a.id for a in listed}
    assert client.tracking_agents.get(agent.id).name == "Oat watch"
    updated = client.tracking_agents.update(agent.id, name="Renamed", schedule=DAILY)
    assert updated.name == "Renamed" and updated.schedule is not None
    assert (updated.schedule.frequency, updated.schedule.time) == ("daily", "06:30")
    assert updated.next_run_at is not None
    assert updated.next_run_at.strftime("%H:%M") == "06:30"  # schedules are UTC
    assert client.tracking_agents.pause(agent.id) is None
    assert client.tracking_agents.get(agent.id).paused is True
    assert client.tracking_agents.resume(agent.id) is None
    assert client.tracking_agents.get(agent.id).paused is False
    assert client.tracking_agents.delete(agent.id) is None
    assert agent.id not in {a.id for a in client.tracking_agents.list()}
    with pytest.raises(ResourceNotFound) as raised:
        client.tracking_agents.get(agent.id)
    assert isinstance(raised.value, NotFound)
    assert (raised.value.status, raised.value.error_code) == (404, "not_found")


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.tracking_agents.get("ta_missing"),
        lambda c: c.tracking_agents.update("ta_missing", name="x"),
        lambda c: c.tracking_agents.delete("ta_missing"),
        lambda c: c.tracking_agents.pause("ta_missing"),
        lambda c: c.tracking_agents.resume("ta_missing"),
        lambda c: c.tracking_agents.trigger("ta_missing"),
        lambda c: c.tracking_agents.messages("ta_missing"),
        lambda c: _agent(c, "ds_missing"),
    ],
    ids=["get", "update", "delete", "pause", "resume", "trigger", "messages", "create"],
)
def test_missing_agent_or_dataset_is_not_found(client: Client, call: Callable[..., Any]) -> None:
    with pytest.raises(ResourceNotFound):
        call(client)


def test_trigger_runs_a_cycle_and_posts_an_alert(client: Client, watched: str) -> None:
    agent = _quiet_for_a_week(client, _agent(client, watched))
    run = client.tracking_agents.trigger(agent.id)
    assert isinstance(run, TrackingRun) and run.id.startswith("tar_")
    assert (run.agent_id, run.status.type) == (agent.id, "pending")
    assert run.dataset_run_ids and all(i.startswith("dsr_") for i in run.dataset_run_ids)
    assert finish(run).status.type == "completed"
    for dataset_run_id in run.dataset_run_ids:
        assert client.datasets.runs.get(watched, dataset_run_id).status.type == "completed"
    messages = _messages(client, agent.id, 1)
    message = messages[0]
    assert isinstance(message, TrackingMessage) and message.message_id.startswith("tam_")
    assert (message.agent_id, message.agent_name) == (agent.id, "Oat watch")
    assert isinstance(message.new_mention_count, int) and message.short_preview_message
    assert message.created_at is not None and message.text is not None
    for ref in message.references or []:
        assert isinstance(ref, PostReference | EntityReference)
        if isinstance(ref, PostReference):
            assert message.text[ref.start_index : ref.end_index] == f"[{ref.citation}]"
    assert client.tracking_agents.get(agent.id).last_run_at is not None


def _messages(client: Client, agent_id: str, at_least: int) -> list[TrackingMessage]:
    """The agent's messages once ``at_least`` arrived (the alert follows the run)."""
    deadline = time.monotonic() + 10
    while len(messages := list(client.tracking_agents.messages(agent_id))) < at_least:
        assert time.monotonic() < deadline, f"{len(messages)} of {at_least} alerts arrived"
        time.sleep(0.02)
    return messages


def _quiet_for_a_week(client: Client, agent: TrackingAgent) -> TrackingAgent:
    """``agent`` with its next scheduled cycle a simulated week away. At speed 500 a day
    passes in under three minutes, and a daily cycle once started between two triggers of
    a test (the second was refused: a cycle was running, as it should be)."""
    assert agent.created_at is not None
    before = agent.created_at - timedelta(minutes=1)
    schedule = {"frequency": "weekly", "time": f"{before:%H:%M}", "day": f"{before:%A}".lower()}
    quiet = client.tracking_agents.update(agent.id, schedule=schedule)
    assert quiet.next_run_at is not None
    assert quiet.next_run_at - agent.created_at > timedelta(days=6)
    return quiet


def test_messages_page_newest_first(client: Client, watched: str) -> None:
    agent = _quiet_for_a_week(client, _agent(client, watched))
    for _ in range(3):
        finish(client.tracking_agents.trigger(agent.id))
    everything = _messages(client, agent.id, 3)
    page = client.tracking_agents.messages(agent.id, limit=2)
    assert (len(page.data), page.has_next) == (2, True) and page.cursor
    walked = list(page)
    assert [m.message_id for m in walked] == [m.message_id for m in everything]
    assert len({m.message_id for m in walked}) == 3
    stamps = [m.created_at for m in walked]
    assert stamps == sorted(stamps, reverse=True)  # type: ignore[type-var]
    with pytest.raises(InvalidCursor):
        client.tracking_agents.messages(agent.id, cursor="garbage")


def test_trigger_during_a_cycle_is_refused(
    client: Client, watched: str, slowed: Callable[..., Any]
) -> None:
    agent = _quiet_for_a_week(client, _agent(client, watched))
    with slowed():
        run = client.tracking_agents.trigger(agent.id)
        with pytest.raises(TrackingAgentRunInProgress) as raised:
            client.tracking_agents.trigger(agent.id)
    assert isinstance(raised.value, Conflict)
    finish(run)


def test_dataset_without_a_search_cannot_be_triggered(client: Client) -> None:
    bare = client.datasets.create("never searched")
    agent = _agent(client, bare.id)
    with pytest.raises(DatasetHasNoQueries):
        client.tracking_agents.trigger(agent.id)


def test_trigger_without_funds_is_402(
    new_account: Callable[..., Account], collect: Callable[..., Any]
) -> None:
    account = new_account(wallet_usd="0.2")
    dataset = collect(account.client, "nearly spent", count=10)
    agent = account.client.tracking_agents.create(
        name="pricey",
        instructions="all",
        dataset_ids=[dataset.id],
        schedule=DAILY,
        count=500,
    )
    with pytest.raises(InsufficientCreditsGeneric) as raised:
        account.client.tracking_agents.trigger(agent.id)
    assert isinstance(raised.value, InsufficientCredits)
    assert (raised.value.status, raised.value.error_code) == (402, "insufficient_credits")


def test_agent_quota(new_account: Callable[..., Account]) -> None:
    client = new_account(plan="Trial").client
    dataset = client.datasets.create("trial")
    with pytest.raises(TrackingAgentLimitReached):
        _agent(client, dataset.id)
