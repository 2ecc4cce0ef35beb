"""``%%ask --dataset`` takes ids or names and refuses mistakes before any paid call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import Seeded, run_cell

import rdskit
from rdskit.answers import Answer
from rdskit.jupyter.magics import session_of
from rdskit.sandbox import SandboxHandle

SEEDED_NAME = "Oat milk (jupyter tests)"


def spent_on_ask(client: rdskit.Client) -> int:
    """ai_assistant usage rows (%%ask waits for the reply, so a sent Ask adds one)."""
    return len([r for r in client.usage_history(limit=100) if r.category == "ai_assistant"])


def last_context(client: rdskit.Client, answer: Answer) -> list[str]:
    rows = client.chats.messages(answer.chat_id, order="asc", limit=100)
    users = [row for row in rows if row.role == "user"]
    return list(users[-1].context.dataset_ids or [])


def refused(shell: InteractiveShell, options: str) -> str:
    session = session_of(shell)
    before = spent_on_ask(session.client), session.chat_id
    ran = run_cell(shell, f"%%ask {options}\nHow does sentiment split?")
    error = ran.result.error_in_exec
    assert isinstance(error, UsageError), error
    assert (spent_on_ask(session.client), session.chat_id) == before  # nothing was sent
    return str(error)


def test_a_name_is_resolved_to_its_id(shell: InteractiveShell, seeded: Seeded) -> None:
    client = session_of(shell).client
    for option in (f'"{SEEDED_NAME}"', f"'{SEEDED_NAME.upper()}'"):  # quoted, any case
        answer = run_cell(shell, f"%%ask --new --dataset {option}\nWhat do people like?").result
        assert isinstance(answer.result, Answer), answer.error_in_exec
        assert last_context(client, answer.result) == [seeded.dataset_id]


def test_ids_and_names_mix_and_repeat_once(shell: InteractiveShell, seeded: Seeded) -> None:
    client = session_of(shell).client
    other = client.datasets.create("Almond milk (ask names)")
    ran = run_cell(
        shell,
        f'%%ask --new -d {seeded.dataset_id} "{SEEDED_NAME}" -d "Almond milk (ask names)"\nQ?',
    )
    assert isinstance(ran.result.result, Answer), ran.result.error_in_exec
    assert last_context(client, ran.result.result) == [seeded.dataset_id, other.id]


def test_an_unknown_id_or_name_is_refused_with_the_choices(
    shell: InteractiveShell, seeded: Seeded
) -> None:
    message = refused(shell, "--new --dataset ds_doesnotexist")
    assert message.startswith("--dataset: no dataset has the id or name 'ds_doesnotexist'")
    assert "nothing was sent or charged" in message
    assert f"{SEEDED_NAME!r} ({seeded.dataset_id})" in message
    assert "/v1/" not in message


def test_an_unquoted_name_with_spaces_gets_a_quoting_hint(
    shell: InteractiveShell, seeded: Seeded
) -> None:
    message = refused(shell, f"--new --dataset {SEEDED_NAME}")
    assert f"quote a name with spaces: --dataset {SEEDED_NAME!r}" in message


def test_a_shared_name_is_ambiguous(shell: InteractiveShell, seeded: Seeded) -> None:
    client = session_of(shell).client
    twins = [client.datasets.create("Twin (ask names)") for _ in range(2)]
    message = refused(shell, '--new --dataset "twin (ask names)"')
    assert "2 datasets are named 'twin (ask names)'" in message
    assert all(twin.id in message for twin in twins) and "give the id instead" in message


@pytest.fixture
def empty_account(shell: InteractiveShell, sandbox: SandboxHandle) -> Iterator[rdskit.Client]:
    account = sandbox.admin.create_account(plan="Pro")
    client = rdskit.Client(account.api_key, base_url=sandbox.url)
    session_of(shell).connect(client, "an empty account")
    yield client


def test_no_datasets_gets_python_hints_not_rest_paths(
    shell: InteractiveShell, empty_account: rdskit.Client
) -> None:
    for options in ("", "--new", "--dataset ds_1"):
        message = refused(shell, options)
        assert "no datasets yet" in message and "nothing was sent or charged" in message
        assert "client.datasets.create(" in message and "client.datasets.runs.create(" in message
        assert "POST" not in message and "/v1/" not in message
    assert empty_account.usage_history(limit=100).data == []
