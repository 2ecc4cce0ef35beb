"""A client budget shared by 16 threads (or 16 tasks) holds against a real sandbox.

Each worker grows shared datasets with dataset runs and runs custom parameters over
them, which the service prices from a dataset's size when it receives the call: without
reserve-before-send and the dataset gate, 16 threads on one ``Client(budget_credits=600)``
made the service charge 619.5 credits (a dataset grew between a run's estimate and its
arrival). The sandbox runs fast (speed 5,000), so runs finish between those two moments.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from contract_support import PROMPT

from rdskit import AsyncClient, BudgetExceeded, Client
from rdskit.models import DatasetRun
from rdskit.sandbox import SandboxHandle, start

BUDGET = 600
WORKERS = 16
ROUNDS = 12  # paid calls each worker tries (most are refused once the budget is spent)
WAIT = 60.0


@pytest.fixture(scope="module")
def quick() -> Iterator[SandboxHandle]:
    """A sandbox whose runs finish in about a millisecond."""
    with start(speed=5000, rate_limit=10_000, seed=44) as handle:
        yield handle


def charged(client: Client, runs: list[Any]) -> Decimal:
    """Credits the service charged the account, once every accepted run is over."""
    for run in runs:
        run.wait(timeout=WAIT, poll_interval=0.01)
    return sum((row.quantity_credits for row in client.usage_history()), Decimal(0))


def reserved(runs: list[Any]) -> Decimal:
    """What the service reserved for ``runs``: each dataset run's accepted count (1 credit a
    mention), each custom parameter run's posts (0.5 credit a post)."""
    return sum(
        (
            Decimal(run.count) if isinstance(run, DatasetRun) else Decimal(run.mentions_total) / 2
            for run in runs
        ),
        Decimal(0),
    )


def seeded(client: Client, datasets: int = 4) -> list[str]:
    """Datasets of 10 mentions each (collected before the budget is set)."""
    ids = []
    for index in range(datasets):
        dataset = client.datasets.create(f"shared {index}")
        client.datasets.runs.create(dataset.id, PROMPT, count=10).wait(
            timeout=WAIT, poll_interval=0.01
        )
        ids.append(dataset.id)
    return ids


def prepared(quick: SandboxHandle) -> tuple[str, list[str], list[Any], Decimal]:
    """A new account's key, its seeded datasets, one custom parameter per worker, and what
    it was charged so far (before any budget)."""
    key = quick.admin.create_account(plan="Pro").api_key
    with Client(key, base_url=quick.url, rate_limit=None) as setup:
        datasets = seeded(setup)
        rules = [setup.custom_parameters.create(f"brand {i}", "which brand") for i in range(16)]
        return key, datasets, rules, charged(setup, [])


def test_sixteen_threads_never_charge_past_the_budget(quick: SandboxHandle) -> None:
    key, datasets, rules, before = prepared(quick)
    client = Client(key, base_url=quick.url, rate_limit=None, budget_credits=BUDGET)
    accepted: list[Any] = []
    refused: list[BaseException] = []

    def work(worker: int) -> None:
        pick = random.Random(worker)
        for _ in range(ROUNDS):
            try:
                if pick.random() < 0.5:
                    dataset = pick.choice(datasets)
                    accepted.append(
                        client.datasets.runs.create(dataset, PROMPT, count=pick.randint(5, 20))
                    )
                else:
                    run = client.custom_parameters.runs.create(
                        rules[worker].id, dataset_id=pick.choice(datasets)
                    )
                    accepted.append(run)
                    run.wait(timeout=WAIT, poll_interval=0.01)  # one run of a rule at a time
            except Exception as exc:  # every refusal must be the budget's
                refused.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    total = charged(client, accepted) - before
    assert client.budget is not None
    assert refused and all(isinstance(exc, BudgetExceeded) for exc in refused), refused[:3]
    assert total <= BUDGET, f"{total} credits charged against a budget of {BUDGET}"
    assert client.budget.spent <= BUDGET
    assert client.budget.spent == reserved(accepted)
    assert total > BUDGET * 0.8  # the budget was nearly spent: the workers did compete
    client.close()


def test_sixteen_tasks_never_charge_past_the_budget(quick: SandboxHandle) -> None:
    key, datasets, rules, before = prepared(quick)

    async def main() -> tuple[list[Any], list[BaseException], AsyncClient]:
        aclient = AsyncClient(key, base_url=quick.url, rate_limit=None, budget_credits=BUDGET)
        accepted: list[Any] = []
        refused: list[BaseException] = []

        async def work(worker: int) -> None:
            pick = random.Random(worker)
            for _ in range(ROUNDS):
                try:
                    if pick.random() < 0.5:
                        accepted.append(
                            await aclient.datasets.runs.create(
                                pick.choice(datasets), PROMPT, count=pick.randint(5, 20)
                            )
                        )
                    else:
                        run = await aclient.custom_parameters.runs.create(
                            rules[worker].id, dataset_id=pick.choice(datasets)
                        )
                        accepted.append(run)
                        await run.wait(timeout=WAIT, poll_interval=0.01)
                except Exception as exc:
                    refused.append(exc)

        await asyncio.gather(*(work(i) for i in range(WORKERS)))
        for run in accepted:
            await run.wait(timeout=WAIT, poll_interval=0.01)
        await aclient.close()
        return accepted, refused, aclient

    accepted, refused, aclient = asyncio.run(main())
    with Client(key, base_url=quick.url, rate_limit=None) as reader:
        total = charged(reader, []) - before
    assert aclient.budget is not None
    assert refused and all(isinstance(exc, BudgetExceeded) for exc in refused), refused[:3]
    assert total <= BUDGET, f"{total} credits charged against a budget of {BUDGET}"
    assert aclient.budget.spent <= BUDGET
    assert aclient.budget.spent == reserved(accepted)  # settled to what the service reserved
    assert total > BUDGET * 0.8
