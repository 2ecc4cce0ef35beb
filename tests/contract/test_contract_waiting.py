"""``wait()`` on failing and slow runs, and the AsyncClient, against the sandbox."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from contract_support import POLL, PROMPT, WAIT, Account, Collected, finish

from rdskit import AsyncClient, AsyncPager, Client, RunFailed, WaitTimeout
from rdskit.errors import DatasetNotFound
from rdskit.models import DatasetRun, Mention
from rdskit.pagination import AsyncPage
from rdskit.sandbox import SandboxHandle


def test_a_failed_dataset_run_raises_and_refunds(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    dataset = client.datasets.create("doomed run")
    run = client.datasets.runs.create(dataset.id, {**PROMPT, "search_query": "__fail__"}, count=10)
    updates: list[str] = []
    with pytest.raises(RunFailed) as raised:
        client.wait(
            run, timeout=WAIT, poll_interval=POLL, on_update=lambda r: updates.append(r.status.type)
        )
    failed = raised.value.obj
    assert isinstance(failed, DatasetRun) and failed.status.type == "failed"
    assert updates[-1] == "failed"
    me = client.me()
    assert me.usage is not None and me.usage.balance_used == 0  # the reservation came back
    assert list(client.usage_history()) == []


def test_a_failed_audience_run_raises(client: Client, collected: Collected) -> None:
    audience = client.audience_datasets.create("__fail__ audience")
    run = client.audience_datasets.runs.create(
        audience.id, collected.dataset.id, total_profile_count=2
    )
    with pytest.raises(RunFailed) as raised:
        finish(run)
    assert raised.value.obj.status.type == "failed"


def test_wait_gives_up_after_its_timeout(client: Client, slowed: Callable[..., Any]) -> None:
    dataset = client.datasets.create("slow")
    with slowed():
        run = client.datasets.runs.create(dataset.id, PROMPT, count=5)
        with pytest.raises(WaitTimeout) as raised:
            run.wait(timeout=0.05, poll_interval=POLL)
    assert raised.value.obj.id == run.id
    assert raised.value.obj.status.type in ("pending", "working")
    assert finish(raised.value.obj).status.type == "completed"  # waiting again resumes


def test_async_client(sandbox: SandboxHandle, collected: Collected) -> None:
    async def main() -> None:
        async with AsyncClient(sandbox.api_key, base_url=sandbox.url, rate_limit=None) as client:
            pager = client.mentions.list(dataset_ids=[collected.dataset.id], limit=7)
            assert isinstance(pager, AsyncPager)
            first = await pager
            assert isinstance(first, AsyncPage) and len(first.data) == 7 and first.has_next
            every = [
                m async for m in client.mentions.list(dataset_ids=[collected.dataset.id], limit=7)
            ]
            assert len(every) == collected.run.mentions_count
            assert all(isinstance(m, Mention) for m in every)
            datasets = await client.datasets.list(limit=1)
            assert datasets.data and datasets.has_next
            dataset = await client.datasets.create("async")
            run = await client.datasets.runs.create(dataset.id, PROMPT, count=5)
            done = await run.wait(timeout=WAIT, poll_interval=POLL)
            assert done.status.type == "completed"
            runs = [r.id async for r in client.datasets.runs.list(dataset.id)]
            assert runs == [run.id]
            me, prices = await asyncio.gather(client.me(), client.prices())
            assert me.account_id == sandbox.account_id and prices.currency == "usd"
            with pytest.raises(DatasetNotFound):
                await client.datasets.get("ds_missing")

    asyncio.run(main())
