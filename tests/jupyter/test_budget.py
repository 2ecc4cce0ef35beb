"""The kernel-wide budget: ``%rds budget N`` / ``rdskit.set_budget`` cap every client.

Against the real sandbox over HTTP: clients made before and after the budget, plain
``rdskit.Client()`` from the environment, the async client, Ask counted after each reply
and refused once the budget is spent, re-setting semantics, and a failed ``%rds connect``
that changes nothing.
"""

from __future__ import annotations

import asyncio
import threading
from decimal import Decimal

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import QUERY, Seeded, run_cell

import rdskit
from rdskit.billing import Estimate
from rdskit.budget import Budget
from rdskit.errors import BudgetExceeded
from rdskit.jupyter.magics import session_of
from rdskit.sandbox import SandboxHandle


def runs_of(client: rdskit.Client, dataset_id: str) -> int:
    return len(client.datasets.runs.list(dataset_id, limit=100).data)


def assistant_rows(client: rdskit.Client) -> list:
    return [row for row in client.usage_history(limit=100) if row.category == "ai_assistant"]


def test_a_plain_client_made_after_the_budget_is_capped(
    shell: InteractiveShell, sandbox: SandboxHandle, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", sandbox.api_key)
    monkeypatch.setenv("RDSKIT_BASE_URL", sandbox.url)
    ran = run_cell(shell, "%rds budget 100")
    assert "100 credits for the paid calls of every rdskit client" in ran.stdout
    shell.user_ns.update(ds_id=seeded.dataset_id, query=QUERY)
    checker = rdskit.Client(sandbox.api_key, base_url=sandbox.url)
    before = runs_of(checker, seeded.dataset_id)

    ran = run_cell(
        shell,
        "import rdskit\nclient = rdskit.Client()\n"
        "client.datasets.runs.create(ds_id, search_query=query, count=500)",
    )
    error = ran.result.error_in_exec
    assert isinstance(error, BudgetExceeded) and error.scope == "process-wide"
    assert "refused by the process-wide budget: estimate 500 credits, 100 credits" in str(error)
    assert runs_of(checker, seeded.dataset_id) == before  # refused before it was sent

    ran = run_cell(shell, "client.datasets.runs.create(ds_id, search_query=query, count=30)")
    assert ran.result.success
    assert runs_of(checker, seeded.dataset_id) == before + 1
    plain = run_cell(shell, "%rds status").bundles[0]["text/plain"]
    assert "budget: 70 of 100 credits left (30 committed)" in plain
    assert "every rdskit client in this kernel" in plain


def test_clients_made_before_the_budget_and_async_clients_count_too(
    shell: InteractiveShell, sandbox: SandboxHandle, seeded: Seeded
) -> None:
    early = rdskit.Client(sandbox.api_key, base_url=sandbox.url)  # made before the budget
    rdskit.set_budget(50)
    early.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=20)
    assert rdskit.get_budget().spent == Decimal(20)

    async def both() -> tuple[BudgetExceeded | None, str]:
        async with rdskit.AsyncClient(sandbox.api_key, base_url=sandbox.url) as aclient:
            refused = None
            try:
                await aclient.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=31)
            except BudgetExceeded as exc:
                refused = exc
            run = await aclient.datasets.runs.create(
                seeded.dataset_id, search_query=QUERY, count=30
            )
            return refused, run.id

    refused, run_id = asyncio.run(both())
    assert refused is not None and refused.remaining == Decimal(30)
    assert run_id and rdskit.get_budget().remaining == 0
    with pytest.raises(BudgetExceeded):
        early.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=1)
    # A client's own budget still applies on top of the process-wide one.
    rdskit.set_budget(1000)
    capped = rdskit.Client(sandbox.api_key, base_url=sandbox.url, budget_credits=5)
    with pytest.raises(BudgetExceeded) as raised:
        capped.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=6)
    assert raised.value.scope == "client"
    assert rdskit.get_budget().spent == Decimal(50)  # the refused call gave back nothing


def test_ask_is_counted_after_each_reply_then_refused(
    shell: InteractiveShell, sandbox: SandboxHandle, seeded: Seeded
) -> None:
    client = session_of(shell).client
    assert client is not None
    rows_before = {row.id for row in assistant_rows(client)}
    run_cell(shell, "%rds budget 0.1")  # less than one reply's inference
    ran = run_cell(shell, f"%%ask --dataset {seeded.dataset_id} --new\nHow does sentiment split?")
    assert ran.result.success, ran.result.error_in_exec
    new_rows = [row for row in assistant_rows(client) if row.id not in rows_before]
    assert len(new_rows) == 1
    charged = new_rows[0].quantity_credits
    assert charged > Decimal("0.1")
    assert rdskit.get_budget().spent == charged  # counted once the reply was seen

    chat_id = session_of(shell).chat_id
    messages = len(client.chats.messages(chat_id, limit=100).data)
    ran = run_cell(shell, "%%ask\nAnd which source is the most negative?")
    error = ran.result.error_in_exec
    assert isinstance(error, BudgetExceeded) and error.kind == "ask"
    assert "nothing remains" in str(error)
    assert len(client.chats.messages(chat_id, limit=100).data) == messages  # nothing sent
    assert len(assistant_rows(client)) == len(rows_before) + 1


@pytest.mark.parametrize(
    "question",
    ["Please delete all my datasets", "What is the income of the authors?"],
    ids=["refusal", "not collected"],
)
def test_a_free_answer_shows_its_charge_and_releases_its_hold_at_once(
    shell: InteractiveShell, seeded: Seeded, question: str
) -> None:
    """A refusal, or a question about data the service does not collect, is not charged:
    the reply says so (``charged_tokens`` 0) and its Ask allowance is given back as soon as
    the reply is final (not after the 120 s wait for a usage row that never comes). Its
    bill: tests/jupyter/test_progress.py."""
    client = session_of(shell).client
    assert client is not None
    rows_before = {row.id for row in assistant_rows(client)}
    run_cell(shell, "%rds budget 100 --reset")
    ran = run_cell(shell, f"%%ask --dataset {seeded.dataset_id} --new --out reply\n{question}")
    assert ran.result.success, ran.result.error_in_exec
    assert shell.user_ns["reply"].charged_tokens == 0
    assert [row for row in assistant_rows(client) if row.id not in rows_before] == []
    budget = rdskit.get_budget()
    assert budget is not None and (budget.held, budget.spent) == (0, 0)
    assert "held" not in str(budget) and str(budget).startswith("100 of 100 credits left")
    # A charged reply still holds its allowance until its usage row is committed.
    ran = run_cell(shell, f"%%ask --dataset {seeded.dataset_id}\nHow does sentiment split?")
    assert ran.result.success, ran.result.error_in_exec
    new_rows = [row for row in assistant_rows(client) if row.id not in rows_before]
    assert len(new_rows) == 1 and budget.spent == new_rows[0].quantity_credits > 0
    assert budget.held == 0


def test_an_ask_not_waited_on_is_counted_before_the_next_paid_call(
    sandbox: SandboxHandle, seeded: Seeded
) -> None:
    client = rdskit.Client(sandbox.api_key, base_url=sandbox.url)
    try:
        rdskit.set_budget(100)
        turn = client.ask("How does sentiment split?", dataset_ids=[seeded.dataset_id])
        # Someone else reads the reply (not client.wait): nothing is counted yet.
        other = rdskit.Client(sandbox.api_key, base_url=sandbox.url)
        other.wait(other.chats.message(turn.chat_id, turn.message_id), timeout=60)
        spent_after_reply = rdskit.get_budget().spent
        client.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=10)
        row = next(r for r in client.usage_history(limit=100) if r.category == "ai_assistant")
        assert rdskit.get_budget().spent == spent_after_reply + row.quantity_credits + 10
    finally:
        rdskit.set_budget(None)


def test_an_async_ask_is_counted_when_its_reply_is_waited_on(
    sandbox: SandboxHandle, seeded: Seeded
) -> None:
    async def ask_twice() -> tuple[Decimal, BudgetExceeded | None]:
        async with rdskit.AsyncClient(sandbox.api_key, base_url=sandbox.url) as aclient:
            turn = await aclient.ask("Top complaints?", dataset_ids=[seeded.dataset_id])
            await aclient.wait(turn, timeout=60, progress=False)
            spent = rdskit.get_budget().spent
            try:
                await aclient.ask("And the praise?", chat_id=turn.chat_id)
            except BudgetExceeded as exc:
                return spent, exc
            return spent, None

    try:
        rdskit.set_budget("0.01")
        spent, refused = asyncio.run(ask_twice())
        client = rdskit.Client(sandbox.api_key, base_url=sandbox.url)
        newest = next(r for r in client.usage_history(limit=100) if r.category == "ai_assistant")
        assert spent == newest.quantity_credits > 0
        assert refused is not None and refused.kind == "ask"
    finally:
        rdskit.set_budget(None)


def test_setting_it_again_keeps_the_spend_unless_reset(
    shell: InteractiveShell, seeded: Seeded
) -> None:
    run_cell(shell, "%rds budget 100")
    session_of(shell).client.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=40)
    ran = run_cell(shell, "%rds budget 100")  # the same cell run again
    assert "Budget unchanged: 60 of 100 credits left (40 committed)" in ran.stdout
    assert "--reset" in ran.stdout
    ran = run_cell(shell, "%rds budget 1,000")
    assert "Budget changed to 1,000 credits: 960 of 1,000 credits left" in ran.stdout
    assert rdskit.get_budget().spent == 40
    ran = run_cell(shell, "%rds budget 100 --reset")
    assert "starting from zero" in ran.stdout and rdskit.get_budget().spent == 0
    assert "Budget: 100 of 100 credits left" in run_cell(shell, "%rds budget").stdout
    ran = run_cell(shell, "%rds budget off")
    assert "no longer capped" in ran.stdout and rdskit.get_budget() is None
    assert "No budget" in run_cell(shell, "%rds budget").stdout


def test_an_agent_whose_cycle_does_not_fit_is_neither_created_nor_resumed(
    sandbox: SandboxHandle, seeded: Seeded
) -> None:
    """An agent charges every cycle on its own schedule, outside any budget: under a budget,
    creating, resuming or growing one whose single cycle does not fit is refused before it is
    sent; nothing is committed for the ones that fit (the service charges their cycles)."""
    client = rdskit.Client(sandbox.api_key, base_url=sandbox.url)
    agents = client.tracking_agents
    daily = {"frequency": "daily", "time": "09:00"}
    common = {"instructions": "Complaints", "dataset_ids": [seeded.dataset_id], "schedule": daily}
    small = agents.create(name="fits later", count=10, **common)
    agents.pause(small.id)
    before = {agent.id for agent in agents.list()}
    rdskit.set_budget(5)
    try:
        for call in (
            lambda: agents.create(name="daily thousand", count=1000, **common),
            lambda: agents.get_or_create(name="daily thousand", count=1000, **common),
            lambda: agents.create(name="unbounded", **common),  # no count: no estimate
            lambda: agents.resume(small.id),
            lambda: agents.get_or_create(name="fits later", count=10, **common),  # a resume
        ):
            with pytest.raises(BudgetExceeded) as refused:
                call()
            assert refused.value.kind == "tracking_trigger"
        assert {agent.id for agent in agents.list()} == before
        assert agents.get(small.id).paused
        assert rdskit.get_budget().spent == 0

        agents.update(small.id, count=1000)  # paused: it charges nothing until resumed
        with pytest.raises(BudgetExceeded, match="on the agent's schedule"):
            agents.resume(small.id)
        agents.update(small.id, count=4)
        agents.resume(small.id)  # 4 credits a cycle fit the 5 left
        assert not agents.get(small.id).paused
        with pytest.raises(BudgetExceeded):
            agents.update(small.id, count=6)  # active: growing it past the budget is refused
        assert agents.get(small.id).count == 4
        assert rdskit.get_budget().spent == 0  # checked, never committed
    finally:
        rdskit.set_budget(None)
        agents.delete(small.id)


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "lots", "1e400x"])
def test_a_bad_budget_names_the_problem(shell: InteractiveShell, value: str) -> None:
    ran = run_cell(shell, f"%rds budget {value}")
    assert isinstance(ran.result.error_in_exec, UsageError)
    assert "number of credits or 'off'" in str(ran.result.error_in_exec)
    assert rdskit.get_budget() is None
    for bad in (value, True, [5]):
        with pytest.raises(rdskit.InvalidParameter) as raised:
            rdskit.set_budget(bad)  # type: ignore[arg-type]
        assert raised.value.field == "credits"
    with pytest.raises(rdskit.InvalidParameter) as raised:
        Budget(value)  # a client's own budget_credits= gets the same check
    assert raised.value.field == "budget_credits"


def test_reset_goes_with_a_budget_value(shell: InteractiveShell) -> None:
    ran = run_cell(shell, "%rds status --reset")
    assert "--reset goes with %rds budget N" in str(ran.result.error_in_exec)


def test_a_failed_connect_changes_nothing(
    shell: InteractiveShell, sandbox: SandboxHandle, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", sandbox.api_key)  # no key prompt
    session = session_of(shell)
    client, origin = session.client, session.origin
    run_cell(shell, f"%%ask --dataset {seeded.dataset_id} --new\nHow does sentiment split?")
    chat_id = session.chat_id
    run_cell(shell, "%rds budget 100")
    client.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=10)
    spent = rdskit.get_budget().spent

    ran = run_cell(shell, "%rds connect --base-url http://127.0.0.1:9")  # nothing listens
    error = ran.result.error_in_exec
    assert isinstance(error, UsageError)
    lines = str(error).splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("Could not connect to http://127.0.0.1:9: nothing answered")
    assert "still connected to the test sandbox" in lines[1] and "check the URL" in lines[1]
    assert "Traceback" not in ran.stdout + ran.stderr
    assert (session.client, session.origin, session.chat_id) == (client, origin, chat_id)
    assert rdskit.get_budget().spent == spent and rdskit.get_budget().total == 100
    # A wrong URL (something answers, but not the service at that path): the same.
    ran = run_cell(shell, f"%rds connect --base-url {sandbox.url}/not-the-api")
    first, second = str(ran.result.error_in_exec).splitlines()
    assert "no Research Data Service answers at this URL (HTTP 404" in first
    assert "give the service's root URL" in second
    assert (session.client, session.chat_id) == (client, chat_id)
    plain = run_cell(shell, "%rds status").bundles[0]["text/plain"]
    assert "connected to: the test sandbox" in plain


def test_the_budget_is_thread_safe() -> None:
    budget = Budget(100)
    estimate = Estimate("dataset_run", "mention", 10, None, Decimal(10))
    accepted: list[int] = []
    barrier = threading.Barrier(40)

    def reserve() -> None:
        barrier.wait()
        try:
            budget.reserve(estimate)
            accepted.append(1)
        except BudgetExceeded:
            pass

    threads = [threading.Thread(target=reserve) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(accepted) == 10 and budget.remaining == 0
