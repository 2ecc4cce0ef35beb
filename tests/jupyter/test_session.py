"""One client per kernel, explicit: the magics use the client the notebook made last (or
``%rds connect``'s), say which in one line when that is not obvious, never switch silently,
and no message advises the command that just ran."""

from __future__ import annotations

from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import QUERY, Seeded, run_cell

from rdskit.answers import Answer
from rdskit.jupyter.magics import session_of
from rdskit.sandbox import SandboxHandle


def test_ask_uses_the_client_the_notebook_made(
    shell: InteractiveShell, sandbox: SandboxHandle, seeded: Seeded
) -> None:
    # The session starts on the fixture's account; the notebook then makes its own client
    # of another account (as a lesson does with rdskit.Client.sandbox()) and a dataset.
    other = sandbox.admin.create_account(plan="Pro")
    shell.user_ns["key"], shell.user_ns["url"] = other.api_key, sandbox.url
    made = run_cell(
        shell,
        "import rdskit\nclient = rdskit.Client(key, base_url=url)\n"
        "ds = client.datasets.create('Only in the notebook client')\n"
        f"client.datasets.runs.create(ds.id, search_query={QUERY!r}, count=20).wait()",
    )
    assert made.result.success, made.stderr
    ran = run_cell(shell, '%%ask --dataset "Only in the notebook client"\nWhat is said?')
    assert ran.result.success, ran.stdout + ran.stderr
    assert isinstance(ran.result.result, Answer)
    notes = [line for line in ran.stdout.splitlines() if line.startswith("rdskit:")]
    assert notes == [f"rdskit: using `client`, connected to {sandbox.url}."], ran.stdout
    client = shell.user_ns["client"]
    assert session_of(shell).client is client
    # the Ask went to the notebook's client's account, not the session's first one
    asked = client.usage_history(limit=20).data
    assert any(row.category == "ai_assistant" for row in asked)
    # the same client again: nothing more is said
    again = run_cell(shell, '%%ask --dataset "Only in the notebook client"\nAnd else?')
    assert again.result.success and "rdskit:" not in again.stdout
    client.close()


def test_a_dataset_of_the_first_account_is_not_found_after_the_switch(
    shell: InteractiveShell, sandbox: SandboxHandle, seeded: Seeded
) -> None:
    other = sandbox.admin.create_account(plan="Pro")
    shell.user_ns["key"], shell.user_ns["url"] = other.api_key, sandbox.url
    run_cell(shell, "import rdskit\nmine = rdskit.Client(key, base_url=url)")
    ran = run_cell(shell, f"%%ask --dataset {seeded.dataset_id}\nQ?")
    assert "rdskit: using `mine`" in ran.stdout  # said before anything is refused
    assert not ran.result.success  # the other account has no such dataset: refused
    shell.user_ns["mine"].close()
    back = run_cell(shell, f"%%ask --dataset {seeded.dataset_id}\nQ?")
    assert back.result.success and "rdskit: using" in back.stdout  # the switch back is said


def test_the_hint_never_repeats_the_command_just_run(shell: InteractiveShell) -> None:
    # the kernel has a client (the fixture's %rds connect); rdskit.Client() finds no key
    ran = run_cell(shell, "import rdskit\nrdskit.Client()")
    assert not ran.result.success
    shown = ran.stdout + ran.stderr
    assert "%rds connect --sandbox" not in shown
    assert "rdskit.jupyter.current_session().client" in shown
