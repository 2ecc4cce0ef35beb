"""Safe re-runs against the sandbox: ``get_or_create`` and ``reuse=True`` charge nothing and
create nothing the second time (credits, usage rows and list counts compared before and
after), on the sync and the async client; a read before a run completes warns.

The four paid calls no list shows (Ask, pattern detections, tracking triggers, research
previews) are found again through the local ledger: in one process, in two processes
one after the other sharing ``RDSKIT_SANDBOX_DB``, and through ``%%ask --reuse``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from contract_support import POLL, PROMPT, WAIT, Account, finish

import rdskit
from rdskit import AsyncClient, Client
from rdskit._ledger import ledger_key, ledger_path
from rdskit.errors import (
    BudgetExceeded,
    DuplicateNameWarning,
    InvalidParameter,
    LedgerWarning,
    NotFound,
    PartialDataWarning,
    RunFailed,
)
from rdskit.models import Dataset, DateRange, PromptSearchQuery
from rdskit.models.account import INSTANCE_HEADER
from rdskit.resources._reuse import LEDGER, account_identity, comparable
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.runtime import clock

REVERSED = {**PROMPT, "sources": list(reversed(PROMPT["sources"]))}
SCHEDULE = {"frequency": "weekly", "time": "09:00", "day": "monday"}
QUESTION = "What do people complain about most?"
PREVIEW = {"search_query": "oat milk", "sources": ["reddit", "tiktok"], "time_filter": "past_week"}


@pytest.fixture(autouse=True)
def ledger_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The ledger of paid calls of each test lives in its own directory."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(directory))
    return directory


def spent(client: Client) -> tuple[Decimal | None, int]:
    """What the account has been charged: credits used and the number of usage rows."""
    usage = client.me().usage
    assert usage is not None
    return usage.credits_used, len(list(client.usage_history(limit=100)))


def inventory(client: Client, dataset_id: str | None = None) -> dict[str, int]:
    """How many of each resource the account has (and runs of ``dataset_id``)."""
    counts = {
        "datasets": len(list(client.datasets.list(limit=100))),
        "audience_datasets": len(list(client.audience_datasets.list(limit=100))),
        "custom_parameters": len(client.custom_parameters.list()),
        "tracking_agents": len(client.tracking_agents.list()),
    }
    if dataset_id is not None:
        counts["runs"] = len(list(client.datasets.runs.list(dataset_id, limit=100)))
    return counts


@contextmanager
def no_warning(category: type[Warning]) -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", category)
        yield


def collected_run(client: Client, name: str, **options: Any) -> tuple[Dataset, str]:
    dataset = client.datasets.get_or_create(name)
    run = client.datasets.runs.create(dataset.id, PROMPT, count=10, **options)
    assert finish(run).status.type == "completed"
    return dataset, run.id


# -- named containers --------------------------------------------------------------------
def test_dataset_get_or_create_creates_once(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    first = client.datasets.get_or_create("Oat milk")
    before = spent(client), inventory(client)
    again = client.datasets.get_or_create("Oat milk")
    assert again.id == first.id
    assert (spent(client), inventory(client)) == before
    assert before[1]["datasets"] == 1
    # Exact match: another case or a trailing space is another dataset.
    assert client.datasets.get_or_create("oat milk").id != first.id
    assert client.datasets.get_or_create("Oat milk ").id != first.id
    assert inventory(client)["datasets"] == 3


def test_duplicates_return_the_oldest_with_a_warning(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    oldest = client.datasets.create("Survey")
    newer = client.datasets.create("Survey")
    with pytest.warns(DuplicateNameWarning, match=newer.id) as caught:
        assert client.datasets.get_or_create("Survey").id == oldest.id
    assert oldest.id in str(caught[0].message) and "delete" in str(caught[0].message)
    with pytest.warns(DuplicateNameWarning):  # every time, not once per line
        assert client.datasets.get_or_create("Survey").id == oldest.id
    assert inventory(client)["datasets"] == 2


def test_get_or_create_reads_every_page(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    target = client.datasets.create("needle")
    for index in range(105):  # more than one page of 100
        client.datasets.create(f"hay {index}")
    assert client.datasets.get_or_create("needle").id == target.id
    assert inventory(client)["datasets"] == 106


def test_get_or_create_checks_the_name_before_reading(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    with pytest.raises(InvalidParameter) as raised:
        client.datasets.get_or_create(None)  # type: ignore[arg-type]
    assert raised.value.field == "name"
    assert inventory(client)["datasets"] == 0


def test_audience_dataset_get_or_create(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    first = client.audience_datasets.get_or_create("Fans")
    before = inventory(client)
    assert client.audience_datasets.get_or_create("Fans").id == first.id
    assert inventory(client) == before and before["audience_datasets"] == 1


# -- runs --------------------------------------------------------------------------------
def test_dataset_run_reuse_charges_nothing(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    dataset, run_id = collected_run(
        client, "Oat milk", content_analysis_actions=["sentiment", "hook"]
    )
    before = spent(client), inventory(client, dataset.id)
    reused = client.datasets.runs.create(
        dataset.id, REVERSED, count=10, content_analysis_actions=["hook", "sentiment"], reuse=True
    )
    assert reused.id == run_id and reused.status.type == "completed"
    assert (spent(client), inventory(client, dataset.id)) == before
    # Other parameters: a new run, charged.
    other = client.datasets.runs.create(dataset.id, PROMPT, count=11, reuse=True)
    assert other.id != run_id
    finish(other)
    assert inventory(client, dataset.id)["runs"] == 2
    assert spent(client)[0] > before[0][0]  # type: ignore[operator]


@pytest.mark.parametrize(
    "change",
    [
        {"count": 12},
        {"language": "es"},
        {"num_comments_per_post": 1},
        {"enable_transcribing": True},
        {"content_analysis_actions": ["sentiment"]},
        {"search_query": {**PROMPT, "search_query": "oat milk latte"}},
        {"search_query": {**PROMPT, "sources": ["reddit"]}},
    ],
)
def test_a_changed_parameter_is_a_new_run(
    new_account: Callable[..., Account], change: dict[str, Any]
) -> None:
    client = new_account().client
    dataset, run_id = collected_run(client, "Oat milk")
    options: dict[str, Any] = {"search_query": PROMPT, "count": 10, **change}
    query = options.pop("search_query")
    fresh = client.datasets.runs.create(dataset.id, query, reuse=True, **options)
    assert fresh.id != run_id
    finish(fresh)


def test_left_out_count_matches_and_false_matches_unset(
    new_account: Callable[..., Account],
) -> None:
    client = new_account().client
    dataset, run_id = collected_run(client, "Oat milk")
    before = spent(client)
    same = client.datasets.runs.create(dataset.id, PROMPT, enable_transcribing=False, reuse=True)
    assert same.id == run_id and spent(client) == before


def test_models_dates_and_dicts_compare_alike(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    window = {"from": "2025-10-01", "to": "2025-12-31"}
    dataset, run_id = collected_run(client, "Oat milk", date_range=window, language="en")
    query = PromptSearchQuery(sources=["tiktok", "reddit", "instagram"], search_query="oat milk")
    same = client.datasets.runs.create(
        dataset.id,
        query,
        count=10,
        date_range=DateRange.model_validate({"from": date(2025, 10, 1), "to": date(2025, 12, 31)}),
        language="en",
        reuse=True,
    )
    assert same.id == run_id
    shifted = client.datasets.runs.create(
        dataset.id, query, count=10, date_range={**window, "to": "2025-12-30"}, reuse=True
    )
    assert shifted.id != run_id
    finish(shifted)


def test_a_failed_run_is_not_reused(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    dataset = client.datasets.create("Failing")
    failing = {**PROMPT, "search_query": "oat __fail__"}
    first = client.datasets.runs.create(dataset.id, failing, count=5)
    with pytest.raises(RunFailed):
        finish(first)
    second = client.datasets.runs.create(dataset.id, failing, count=5, reuse=True)
    assert second.id != first.id


def test_a_run_in_flight_is_returned_not_doubled(
    new_account: Callable[..., Account], slowed: Callable[..., Any]
) -> None:
    client = new_account().client
    dataset = client.datasets.create("In flight")
    with slowed():
        first = client.datasets.runs.create(dataset.id, PROMPT, count=10)
        before = spent(client)
        again = client.datasets.runs.create(dataset.id, REVERSED, count=10, reuse=True)
        assert again.id == first.id and again.status.type in ("pending", "working")
        assert spent(client) == before
    assert finish(again).status.type == "completed"
    assert inventory(client, dataset.id)["runs"] == 1


def test_reuse_needs_no_budget(new_account: Callable[..., Account]) -> None:
    """A reused run is not paid for, so a budget that could not pay for it lets it through."""
    account = new_account()
    dataset, run_id = collected_run(account.client, "Oat milk")
    with Client(account.api_key, base_url=account.client.base_url, budget_credits=1) as tight:
        assert tight.datasets.runs.create(dataset.id, PROMPT, count=10, reuse=True).id == run_id
        with pytest.raises(BudgetExceeded):
            tight.datasets.runs.create(dataset.id, PROMPT, count=10)


def test_audience_run_reuse(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    dataset, _ = collected_run(client, "Oat milk")
    fans = client.audience_datasets.get_or_create("Fans")
    run = client.audience_datasets.runs.create(fans.id, dataset.id, total_profile_count=5)
    finish(run)
    before = spent(client), len(list(client.audience_datasets.runs.list(fans.id)))
    again = client.audience_datasets.runs.create(
        fans.id, dataset.id, total_profile_count=5, reuse=True
    )
    assert again.id == run.id
    assert (spent(client), len(list(client.audience_datasets.runs.list(fans.id)))) == before
    bigger = client.audience_datasets.runs.create(
        fans.id, dataset.id, total_profile_count=6, reuse=True
    )
    assert bigger.id != run.id
    finish(bigger)


# -- custom parameters -------------------------------------------------------------------
def test_custom_parameter_get_or_create(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    rule = client.custom_parameters.get_or_create("price", "The price quoted")
    before = inventory(client)
    assert client.custom_parameters.get_or_create("price", "The price quoted").id == rule.id
    assert inventory(client) == before and before["custom_parameters"] == 1
    with pytest.raises(InvalidParameter) as raised:
        client.custom_parameters.get_or_create("price", "The price in EUR")
    message = str(raised.value)
    assert raised.value.field == "instructions"
    assert rule.id in message and "The price quoted" in message and "update" in message
    assert client.custom_parameters.get(rule.id).instructions == "The price quoted"  # untouched
    with pytest.raises(InvalidParameter, match="value_type"):
        client.custom_parameters.get_or_create("price", "The price quoted", value_type="number")
    assert inventory(client) == before


def test_custom_parameter_run_reuse(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    dataset, _ = collected_run(client, "Oat milk")
    rule = client.custom_parameters.get_or_create("price", "The price quoted")
    run = finish(client.custom_parameters.runs.create(rule.id, dataset_id=dataset.id))
    before = spent(client), len(list(client.custom_parameters.runs.list(rule.id)))
    again = client.custom_parameters.runs.create(
        rule.id, {"kind": "dataset", "id": dataset.id}, reuse=True
    )
    assert again.id == run.id and again.is_complete
    assert (spent(client), len(list(client.custom_parameters.runs.list(rule.id)))) == before


# -- tracking agents ---------------------------------------------------------------------
def test_tracking_agent_get_or_create(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    one = client.datasets.create("One")
    two = client.datasets.create("Two")
    settings: dict[str, Any] = {
        "name": "watch",
        "instructions": "Complaints",
        "dataset_ids": [one.id, two.id],
        "schedule": SCHEDULE,
        "count": 5,
    }
    agent = client.tracking_agents.get_or_create(**settings)
    before = spent(client), inventory(client)
    again = client.tracking_agents.get_or_create(**{**settings, "dataset_ids": [two.id, one.id]})
    assert again.id == agent.id
    assert (spent(client), inventory(client)) == before and before[1]["tracking_agents"] == 1
    # Paused: resumed, not duplicated.
    client.tracking_agents.pause(agent.id)
    resumed = client.tracking_agents.get_or_create(**settings)
    assert resumed.id == agent.id and resumed.paused is False
    # Other settings: refused, naming what differs; the agent is untouched.
    with pytest.raises(InvalidParameter) as raised:
        client.tracking_agents.get_or_create(
            **{**settings, "schedule": {"frequency": "daily", "time": "08:00"}}
        )
    assert raised.value.field == "schedule" and agent.id in str(raised.value)
    assert client.tracking_agents.get(agent.id).schedule.frequency == "weekly"  # type: ignore[union-attr]
    assert inventory(client) == before[1]


def test_duplicate_agents_return_the_oldest(new_account: Callable[..., Account]) -> None:
    client = new_account(plan="Business").client
    dataset = client.datasets.create("One")
    settings: dict[str, Any] = {
        "name": "watch",
        "instructions": "Complaints",
        "dataset_ids": [dataset.id],
        "schedule": SCHEDULE,
    }
    oldest = client.tracking_agents.create(**settings)
    newer = client.tracking_agents.create(**settings)
    with pytest.warns(DuplicateNameWarning, match=newer.id):
        assert client.tracking_agents.get_or_create(**settings).id == oldest.id
    assert inventory(client)["tracking_agents"] == 2


def test_bad_input_is_refused_before_anything_is_read_or_made(
    new_account: Callable[..., Account],
) -> None:
    client = new_account().client
    dataset = client.datasets.create("One")
    before = spent(client), inventory(client, dataset.id)
    with pytest.raises(InvalidParameter) as raised:
        client.tracking_agents.get_or_create(
            name="watch",
            instructions="x",
            dataset_ids=[dataset.id],
            schedule={"frequency": "daily", "time": "25:00"},
        )
    assert raised.value.field.startswith("schedule")
    with pytest.raises(InvalidParameter) as raised:
        client.datasets.runs.create(dataset.id, {**PROMPT, "sources": []}, reuse=True)
    assert raised.value.field.startswith("search_query")
    with pytest.raises(InvalidParameter):
        client.custom_parameters.get_or_create("", "The price")
    with pytest.raises(NotFound):
        client.datasets.runs.create("ds_missing", PROMPT, count=5, reuse=True)
    assert (spent(client), inventory(client, dataset.id)) == before


# -- partial reads -----------------------------------------------------------------------
def counting_client(account: Account, base_url: str, seen: list[str]) -> Client:
    def record(request: httpx.Request) -> None:
        seen.append(f"{request.method} {request.url.path}")

    http = httpx.Client(event_hooks={"request": [record]})
    return Client(account.api_key, base_url=base_url, rate_limit=None, http_client=http)


def test_a_read_before_the_run_completes_warns(
    new_account: Callable[..., Account], slowed: Callable[..., Any]
) -> None:
    account = new_account()
    client = account.client
    done, _ = collected_run(client, "Done")
    waiting = client.datasets.create("Waiting")
    seen: list[str] = []
    with counting_client(account, client.base_url, seen) as counted, slowed():
        run = client.datasets.runs.create(waiting.id, PROMPT, count=10)
        with pytest.warns(PartialDataWarning) as caught:
            counted.mentions.list(dataset_ids=[done.id, waiting.id])
        assert len(caught) == 1  # the completed dataset says nothing
        message = str(caught[0].message)
        assert waiting.id in message and run.id in message and done.id not in message
        assert any(status in message for status in ("pending", "working"))
        runs_read = [line for line in seen if line.endswith("/runs")]
        assert sorted(runs_read) == sorted(
            f"GET /v1/datasets/{d}/runs" for d in (done.id, waiting.id)
        )  # one read per dataset
        with pytest.warns(PartialDataWarning, match=waiting.id):
            counted.mentions.to_frame(dataset_ids=[waiting.id])
    finish(run)
    with no_warning(PartialDataWarning):
        client.mentions.list(dataset_ids=[done.id, waiting.id])
        client.mentions.to_frame(dataset_ids=[waiting.id])


def test_next_pages_are_not_checked_again(
    new_account: Callable[..., Account], sandbox: SandboxHandle
) -> None:
    account = new_account()
    dataset, _ = collected_run(account.client, "Done")
    seen: list[str] = []
    with counting_client(account, sandbox.url, seen) as counted:
        mentions = list(counted.mentions.list(dataset_ids=[dataset.id], limit=3))
    assert len(mentions) == 10
    assert sum(line.endswith("/runs") for line in seen) == 1
    assert sum(line == "POST /v1/mentions" for line in seen) == 4


# -- plans -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("plan", "date_filter", "agents"),
    [("Trial", False, False), ("Starter", False, True), ("Pro", True, True)],
)
def test_plan_features(
    new_account: Callable[..., Account], plan: str, date_filter: bool, agents: bool
) -> None:
    client = new_account(plan=plan).client
    assert client.has_feature("custom_date_filter") is date_filter
    me = client.me()
    assert me.has_feature("custom_date_filter") is date_filter
    assert me.plan is not None and me.plan.allows_tracking_agents is agents
    with pytest.raises(InvalidParameter) as raised:
        client.has_feature("custom_date_filters")
    assert raised.value.field == "feature" and "custom_date_filter" in str(raised.value)


# -- the async client --------------------------------------------------------------------
def test_async_client_reruns(
    new_account: Callable[..., Account], sandbox: SandboxHandle, slowed: Callable[..., Any]
) -> None:
    account = new_account()

    async def main() -> None:
        async with AsyncClient(account.api_key, base_url=sandbox.url, rate_limit=None) as client:
            dataset = await client.datasets.get_or_create("Async")
            assert (await client.datasets.get_or_create("Async")).id == dataset.id
            run = await client.datasets.runs.create(dataset.id, PROMPT, count=10)
            await run.wait(timeout=WAIT, poll_interval=POLL)
            before = spent(account.client), inventory(account.client, dataset.id)
            again = await client.datasets.runs.create(dataset.id, REVERSED, count=10, reuse=True)
            assert again.id == run.id
            rule = await client.custom_parameters.get_or_create("price", "The price")
            assert (await client.custom_parameters.get_or_create("price", "The price")).id == (
                rule.id
            )
            assert await client.has_feature("custom_date_filter") is True
            assert (spent(account.client), inventory(account.client, dataset.id)) == (
                before[0],
                {**before[1], "custom_parameters": 1},
            )
            with slowed():
                pending = await client.datasets.runs.create(dataset.id, PROMPT, count=11)
                with pytest.warns(PartialDataWarning, match=pending.id):
                    page = await client.mentions.list(dataset_ids=[dataset.id])
                assert page.data
            await pending.wait(timeout=WAIT, poll_interval=POLL)
            with no_warning(PartialDataWarning):
                items = [m async for m in client.mentions.list(dataset_ids=[dataset.id])]
            assert items

    asyncio.run(main())


# -- paid calls no list shows: the ledger ------------------------------------------------
def paid_calls(client: Client, dataset_id: str, agent_id: str) -> dict[str, Any]:
    """Each of the four calls with ``reuse=True``, waited on; what each returned."""
    turn = client.ask(QUESTION, dataset_ids=[dataset_id], reuse=True)
    answer = finish(turn)
    detection = finish(
        client.pattern_detections.create(dataset_id, "switch", "Why do people switch?", reuse=True)
    )
    preview = client.research_previews.create(**PREVIEW, reuse=True)
    cycle = finish(client.tracking_agents.trigger(agent_id, reuse=True))
    return {
        "ask": (turn.chat_id, turn.message_id, answer.text),
        "pattern": (detection.run_id, detection.pattern_id),
        "preview": (preview.preview_id, len(preview.posts)),
        "cycle": (cycle.id, cycle.status.type),
    }


def watched(client: Client) -> tuple[Dataset, str]:
    dataset, _ = collected_run(client, "Oat milk")
    agent = client.tracking_agents.get_or_create(
        name="watch",
        instructions="Complaints",
        dataset_ids=[dataset.id],
        schedule=SCHEDULE,
        count=5,
    )
    return dataset, agent.id


def test_the_four_paid_calls_charge_once(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    dataset, agent_id = watched(client)
    before = spent(client)
    first = paid_calls(client, dataset.id, agent_id)
    charged = spent(client)
    assert charged[0] > before[0] and charged[1] >= before[1] + 4  # type: ignore[operator]
    assert first["ask"][2] and first["pattern"][1] and first["cycle"][1] == "completed"
    inventory_before = inventory(client, dataset.id)
    again = paid_calls(client, dataset.id, agent_id)
    assert again == first  # the same chat, detection, preview and cycle
    assert spent(client) == charged
    assert inventory(client, dataset.id) == inventory_before  # no new dataset run either
    chat_rows = list(client.chats.messages(first["ask"][0], order="asc"))
    assert [row.role for row in chat_rows] == ["user", "assistant"]
    # Each one alone, and each without reuse, pays.
    client.research_previews.create(**PREVIEW)
    client.research_previews.create(**{**PREVIEW, "sources": ["reddit"]}, reuse=True)
    assert spent(client)[1] == charged[1] + 2


def test_a_reused_result_costs_the_budget_nothing(new_account: Callable[..., Account]) -> None:
    account = new_account()
    dataset, agent_id = watched(account.client)
    rdskit.set_budget(100_000, reset=True)
    try:
        with Client(account.api_key, base_url=account.client.base_url, rate_limit=None) as client:
            paid_calls(client, dataset.id, agent_id)
            budget = rdskit.get_budget()
            assert budget is not None and budget.spent > 0
            committed = budget.spent
            rdskit.set_budget(committed)  # nothing left for a paid call
            paid_calls(client, dataset.id, agent_id)
            assert budget.spent == committed
            with pytest.raises(BudgetExceeded):
                client.ask("A question never asked?", reuse=True)
    finally:
        rdskit.set_budget(None)


def test_a_fresh_sandbox_with_a_stale_ledger_starts_anew(
    new_account: Callable[..., Account], sandbox: SandboxHandle
) -> None:
    client = new_account().client
    dataset, _ = collected_run(client, "Oat milk")
    # An entry of this very account pointing at a detection the service does not have.
    body = {"dataset_id": dataset.id, "name": "switch", "research_question": "Why?"}
    identity = client._run(account_identity(client._core))
    LEDGER.record(
        [ledger_key(identity, "pattern_detection", comparable(body))],
        "pattern_detection",
        {"run_id": "pdr_0000000000000000"},
    )
    before = spent(client)
    with pytest.warns(LedgerWarning, match=r"\(pdr_0000000000000000\) is stale: .*404"):
        run = finish(client.pattern_detections.create(**body, reuse=True))
    assert run.run_id != "pdr_0000000000000000" and spent(client)[1] == before[1] + 1
    assert client.pattern_detections.create(**body, reuse=True).run_id == run.run_id
    # A new sandbox of the same seed no longer hands out the same account and ids (each id
    # carries its database's instance); the ledger also keeps the account's creation time,
    # so what the old one answered is not looked for there.
    with Client(sandbox.api_key, base_url=sandbox.url, rate_limit=None) as default:
        finish(default.ask(QUESTION, reuse=True))
    with (
        start(speed=500, rate_limit=10_000, seed=41) as fresh_sandbox,
        Client(fresh_sandbox.api_key, base_url=fresh_sandbox.url, rate_limit=None) as fresh,
    ):
        assert fresh.me().account_id != sandbox.account_id
        fresh_dataset = fresh.datasets.create("Oat milk")
        finish(fresh.datasets.runs.create(fresh_dataset.id, PROMPT, count=10))
        rows = spent(fresh)[1]
        turn = fresh.ask(QUESTION, reuse=True)
        assert finish(turn).text and spent(fresh)[1] == rows + 1
        assert fresh.ask(QUESTION, reuse=True).message_id == turn.message_id
        assert spent(fresh)[1] == rows + 1


OTHER_QUESTION = "Which flavour do people like best?"
OTHER_PREVIEW = {"search_query": "soy milk", "sources": ["youtube"], "time_filter": "past_week"}


def _without_instance(response: httpx.Response) -> None:
    """The real service sends no instance header: take the sandbox's away."""
    response.headers.pop(INSTANCE_HEADER, None)


@pytest.mark.parametrize("instance_header", [True, False], ids=["sandbox", "no-instance-header"])
def test_a_ledger_kept_across_fresh_sandboxes_of_one_date_never_hands_back_another_object(
    ledger_dir: Path, instance_header: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two fresh sandboxes of one seed on one fixed date: what the first one answered must
    not come back for the second one's ``reuse=True`` request. Their ids once repeated (the
    account, its seat, every object), so the ledger needed the instance header to keep them
    apart; each database's instance is now in every id (issue 34), so the second's account
    differs and the first's entries are not even looked up, with or without the header."""
    options: dict[str, Any] = {"speed": 500, "rate_limit": 10_000, "seed": 7}
    options["today"] = date(2026, 11, 20)

    def fresh() -> SandboxHandle:
        # Its clock held still while it starts: the account is made at the fixed date's
        # very midday, as on an idle machine (a loaded one may tick a second first).
        frozen = clock.wall_time()
        with monkeypatch.context() as patch:
            patch.setattr(clock, "wall_time", lambda: frozen)
            return start(**options)

    def connect(handle: SandboxHandle) -> Client:
        hooks = {} if instance_header else {"response": [_without_instance]}
        http = httpx.Client(event_hooks=hooks)
        return Client(handle.api_key, base_url=handle.url, rate_limit=None, http_client=http)

    with fresh() as first_sandbox, connect(first_sandbox) as first:
        me = first.me()
        turn = first.ask(QUESTION, reuse=True)
        finish(turn)
        preview = first.research_previews.create(**PREVIEW, reuse=True)
    with fresh() as second_sandbox, connect(second_sandbox) as second:
        again = second.me()
        # The old defect's premise is gone: the ids differ from the first sandbox's.
        assert (again.account_id, again.id) != (me.account_id, me.id)
        other = second.ask(OTHER_QUESTION)
        assert (other.chat_id, other.message_id) != (turn.chat_id, turn.message_id)
        finish(other)
        other_preview = second.research_previews.create(**OTHER_PREVIEW)
        assert other_preview.preview_id != preview.preview_id
        rows = spent(second)[1]
        stale = warnings.catch_warnings(record=True)
        with stale as caught:
            warnings.simplefilter("always")
            asked = second.ask(QUESTION, reuse=True)
            previewed = second.research_previews.create(**PREVIEW, reuse=True)
        lines = [str(w.message) for w in caught if issubclass(w.category, LedgerWarning)]
        assert lines == []  # another account: the first's entries are not even looked up
        assert asked.message_id != turn.message_id  # a new turn, not the other question's
        question = [m for m in second.chats.messages(asked.chat_id, order="asc")][-2]
        assert (question.role, question.text) == ("user", QUESTION)
        assert finish(asked).status == "completed"
        assert previewed.preview_id != preview.preview_id
        assert spent(second)[1] == rows + 2  # both were paid for, once
        # The fresh entries are found again, free.
        assert second.ask(QUESTION, reuse=True).message_id == asked.message_id
        assert second.research_previews.create(**PREVIEW, reuse=True).preview_id == (
            previewed.preview_id
        )
        assert spent(second)[1] == rows + 2


KERNEL = textwrap.dedent(
    """
    import json, sys
    import rdskit

    client = rdskit.Client.sandbox(rate_limit=None)
    wait = {"timeout": 60, "poll_interval": 0.01}
    dataset = client.datasets.get_or_create("Oat milk")
    query = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}
    client.datasets.runs.create(dataset.id, query, count=10, reuse=True).wait(**wait)
    agent = client.tracking_agents.get_or_create(name="watch", instructions="Complaints",
        dataset_ids=[dataset.id], schedule={"frequency": "daily", "time": "08:00"}, count=5)
    turn = client.ask(sys.argv[1], dataset_ids=[dataset.id], reuse=True)
    text = turn.wait(**wait).text
    detection = client.pattern_detections.create(dataset.id, "switch", "Why switch?",
        reuse=True).wait(**wait)
    preview = client.research_previews.create(search_query="oat milk", sources=["reddit"],
        time_filter="past_week", reuse=True)
    cycle = client.tracking_agents.trigger(agent.id, reuse=True).wait(**wait)
    follow = client.ask("And on which platform?", chat_id=turn.chat_id, reuse=True)
    follow.wait(**wait)
    usage = client.me().usage
    print(json.dumps({
        "ids": [turn.message_id, follow.message_id, detection.run_id, preview.preview_id,
                cycle.id, cycle.status.type, len(text) > 0],
        "credits_used": str(usage.credits_used),
        "rows": len(list(client.usage_history(limit=100))),
        "datasets": len(list(client.datasets.list())),
        "agents": len(client.tracking_agents.list()),
    }))
    """
)


def test_two_kernels_one_after_the_other_pay_once(tmp_path: Path, ledger_dir: Path) -> None:
    env = {
        **os.environ,
        "RDSKIT_SANDBOX_DB": str(tmp_path / "sandbox.db"),
        "RDSKIT_SANDBOX_SPEED": "500",
        "RDSKIT_CACHE_DIR": str(ledger_dir),
    }
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        env.pop(name, None)

    def kernel() -> dict[str, Any]:
        done = subprocess.run(
            [sys.executable, "-c", KERNEL, QUESTION],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    first = kernel()
    assert first["ids"][-2:] == ["completed", True] and first["rows"] >= 6
    second = kernel()  # another process: another port, the same service state
    assert second == first
    assert QUESTION.encode() not in ledger_path().read_bytes()


# -- %%ask --reuse -------------------------------------------------------------------------
@pytest.fixture
def notebook(new_account: Callable[..., Account]) -> Iterator[tuple[Any, Account]]:
    """An IPython shell with the rdskit magics, connected to a new account."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    from rdskit.jupyter.magics import session_of

    config = Config()
    config.HistoryManager.hist_file = ":memory:"  # never the user's IPython history
    shell = InteractiveShell.instance(config=config)
    if "RdsMagics" not in shell.magics_manager.registry:
        shell.run_line_magic("load_ext", "rdskit")
    account = new_account()
    session = session_of(shell)
    session.connect(Client(account.api_key, base_url=account.client.base_url), "the test sandbox")
    yield shell, account
    session.close()


def _timeless(shown: dict[str, Any]) -> dict[str, Any]:
    """A display bundle with its provenance's time of asking and duration blanked."""
    when = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ · answered in [\d.]+s")
    return {k: when.sub("WHEN", v) if isinstance(v, str) else v for k, v in shown.items()}


def test_ask_magic_reuse_rerun_charges_nothing(notebook: tuple[Any, Account]) -> None:
    from IPython.utils.capture import capture_output

    from rdskit.jupyter import current_session

    shell, account = notebook
    client = account.client
    dataset, _ = collected_run(client, "Oat milk")
    cells = [
        f"%%ask --reuse --dataset {dataset.id}\n{QUESTION}",
        "%%ask --reuse\nAnd which platform is the most negative?",
    ]

    def run(cell: str) -> tuple[Any, dict[str, str]]:
        with capture_output():
            ran = shell.run_cell(cell, store_history=True)
        assert ran.success, ran.error_in_exec
        return ran.result, shell.display_formatter.format(ran.result)[0]

    first = [run(cell) for cell in cells]
    chat_id = current_session().chat_id
    assert first[0][0].chat_id == first[1][0].chat_id == chat_id
    charged = spent(client)
    # The same kernel re-runs both cells: its current chat is now the first cell's chat.
    again = [run(cell) for cell in cells]
    assert [answer.id for answer, _ in again] == [answer.id for answer, _ in first]
    # renders the same answer; only its provenance's "when" (this cell's run) differs
    assert [_timeless(shown) for _, shown in again] == [_timeless(shown) for _, shown in first]
    assert spent(client) == charged
    # A new kernel (no current chat) re-runs them.
    current_session().chat_id = None
    assert [run(cell)[0].id for cell in cells] == [answer.id for answer, _ in first]
    assert spent(client) == charged and current_session().chat_id == chat_id
    assert len(list(client.chats.messages(chat_id))) == 4  # two questions, two replies
    # Without --reuse the cell asks again.
    run(cells[1].replace(" --reuse", ""))
    assert spent(client)[1] == charged[1] + 1
