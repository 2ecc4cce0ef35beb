"""``%rds`` and ``%%ask`` driven through a real IPython shell against the sandbox."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import Seeded, assert_no_secret, run_cell

import rdskit
from rdskit._format import credits_text
from rdskit.answers import Answer
from rdskit.errors import BudgetExceeded
from rdskit.jupyter import current_session
from rdskit.jupyter.magics import session_of
from rdskit.models import AskAccepted
from rdskit.sandbox import SandboxHandle


def ask(shell: InteractiveShell, options: str, question: str = "How does sentiment split?"):
    return run_cell(shell, f"%%ask {options}\n{question}")


def user_rows(client: rdskit.Client, chat_id: str) -> list:
    return [row for row in client.chats.messages(chat_id, order="asc") if row.role == "user"]


# -- arguments and help -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("%rds --help", ["%rds", "connect", "status", "datasets", "budget", "--base-url URL"]),
        ("%rds", ["connect", "--sandbox"]),
        ("%%ask --help\nQ?", ["%ask", "--dataset", "--posts DF", "--chat ID", "--new", "--out"]),
    ],
)
def test_help_lists_every_option(shell: InteractiveShell, source: str, expected: list[str]) -> None:
    ran = run_cell(shell, source)
    assert ran.result.success
    for word in expected:
        assert word in ran.stdout


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("%rds bogus", "invalid choice"),
        ("%rds status --sandbox", "go with %rds connect"),
        ("%rds connect --sandbox --base-url http://x.example", "choose one"),
        ("%rds budget lots", "number of credits"),
        ("%rds chat old", "'new' or nothing"),
        ("%%ask --chat ch_1 --new\nQ?", "exclude each other"),
        ("%%ask\n   \n", "write the question"),
        ("%%ask --out 1x\nQ?", "variable name"),
        ("%%ask --posts not_defined_here\nQ?", "NameError"),
        ("%%ask --posts 42\nQ?", "needs a DataFrame"),
    ],
)
def test_usage_errors_name_the_problem(shell: InteractiveShell, source: str, message: str) -> None:
    ran = run_cell(shell, source)
    assert not ran.result.success
    assert isinstance(ran.result.error_in_exec, UsageError)
    assert message in str(ran.result.error_in_exec)


def test_dataset_option_takes_several_ids_and_repeats(shell: InteractiveShell) -> None:
    magics = shell.magics_manager.registry["RdsMagics"]
    from IPython.core.magic_arguments import parse_argstring

    args = parse_argstring(magics.ask, "--dataset ds_1 ds_2 -d ds_3 --out a")
    assert args.datasets == ["ds_1", "ds_2", "ds_3"] and args.out == "a" and not args.new


# -- %%ask ------------------------------------------------------------------------------------
def test_ask_continues_the_chat_until_told_otherwise(
    shell: InteractiveShell, seeded: Seeded
) -> None:
    client = current_session().client
    first = ask(shell, f"--dataset {seeded.dataset_id}").result.result
    second = ask(shell, "", "And which source is the most negative?").result.result
    assert isinstance(first, Answer) and isinstance(second, Answer)
    assert second.chat_id == first.chat_id
    assert len(user_rows(client, first.chat_id)) == 2

    fresh = ask(shell, "--new").result.result
    assert fresh.chat_id != first.chat_id
    assert current_session().chat_id == fresh.chat_id

    back = ask(shell, f"--chat {first.chat_id}").result.result
    assert back.chat_id == first.chat_id
    assert len(user_rows(client, first.chat_id)) == 3
    assert current_session().chat_id == first.chat_id

    run_cell(shell, "%rds chat new")
    assert ask(shell, "").result.result.chat_id not in (first.chat_id, fresh.chat_id)


def test_ask_value_out_name_and_posts(shell: InteractiveShell, seeded: Seeded) -> None:
    ran = ask(shell, f"--dataset {seeded.dataset_id} --out answer")
    answer = shell.user_ns["answer"]
    assert isinstance(answer, Answer)
    assert ran.result.result is answer and shell.user_ns["_"] is answer
    posts = answer.posts()
    assert list(posts["citation"]) == [ref.citation for ref in answer.post_references]
    assert list(posts["id"]) == [ref.id for ref in answer.post_references]
    assert len(posts) > 0


def test_posts_dataframe_is_the_context(shell: InteractiveShell, seeded: Seeded) -> None:
    shell.user_ns["picked"] = seeded.frame.head(3)
    answer = ask(shell, "--posts picked --new", "What do these posts say?").result.result
    context = user_rows(current_session().client, answer.chat_id)[-1].context
    sent = [(ref.source, ref.id) for ref in context.post_refs]
    assert sent == list(zip(seeded.frame["source"][:3], seeded.frame["id"][:3], strict=True))


def test_answer_displays_as_html_markdown_and_text(shell: InteractiveShell, seeded: Seeded) -> None:
    ran = ask(shell, f"--dataset {seeded.dataset_id} --new")
    answer = ran.result.result
    bundle = shell.display_formatter.format(answer)[0]
    assert {"text/html", "text/markdown", "text/plain"} <= set(bundle)
    html = bundle["text/html"]
    for ref in answer.post_references:
        assert f'class="rds-marker" data-ref="{ref.citation}"' in html
    assert html.count('class="rds-card"') >= len(answer.post_references)
    assert "References" in bundle["text/plain"] and (answer.text or "")[:40] in bundle["text/plain"]


def test_interrupt_stops_waiting_cleanly(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(self: AskAccepted, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(AskAccepted, "wait", interrupted)
    ran = ask(shell, "--new --out never")
    assert ran.result.success and ran.result.result is None
    assert "Stopped waiting" in ran.stdout and "never" not in shell.user_ns
    assert current_session().chat_id is not None and current_session().chat_id in ran.stdout


def test_without_a_connection_it_connects_and_says_so(
    shell: InteractiveShell, sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_of(shell)
    session.close()
    monkeypatch.setattr(rdskit.client, "_made", {})  # no client in this kernel at all
    used: list[str] = []

    def fake_embedded(cls: type[rdskit.Client], **options: object) -> rdskit.Client:
        used.append("sandbox")  # the test sandbox stands in for the slow embedded one
        return cls(sandbox.api_key, base_url=sandbox.url)

    monkeypatch.setattr(rdskit.Client, "sandbox", classmethod(fake_embedded))
    ran = ask(shell, "")
    assert used == ["sandbox"]
    assert ran.stdout.count("connected to the embedded sandbox") == 1
    assert isinstance(ran.result.result, Answer)
    assert "connected to" not in ask(shell, "").stdout  # said once


# -- %rds ------------------------------------------------------------------------------------
def test_status_shows_account_balance_rate_and_budget(shell: InteractiveShell) -> None:
    run_cell(shell, "%rds budget 50")
    ran = run_cell(shell, "%rds status")
    (bundle,) = ran.bundles
    me = current_session().client.me()
    left = me.usage.credits_total - me.usage.credits_used
    plain = bundle["text/plain"]
    assert f"{credits_text(left)} credits (" in plain and "USD" in plain  # for people
    assert "rate limit:" in plain and "of 5 requests left" in plain
    assert "budget: 50 of 50 credits left" in plain
    assert 'class="rds-repr rds-account"' in bundle["text/html"]
    assert "plan" in bundle["text/html"] and "Pro" in bundle["text/html"]


def test_budget_guards_paid_calls_and_the_error_shows_a_card(
    shell: InteractiveShell, seeded: Seeded
) -> None:
    ran = run_cell(shell, "%rds budget 5")
    assert "Budget: 5 credits" in ran.stdout
    shell.user_ns["ds_id"] = seeded.dataset_id
    code = (
        "client = rdskit.jupyter.current_session().client\n"
        "client.datasets.runs.create(ds_id, search_query={'type': 'prompt', "
        "'sources': ['reddit'], 'search_query': 'oat'}, count=10)"
    )
    ran = run_cell(shell, "import rdskit\n" + code)
    assert isinstance(ran.result.error_in_exec, BudgetExceeded)
    cards = [b["text/html"] for b in ran.bundles if "text/html" in b]
    assert len(cards) == 1 and "rds-budget-exceeded" in cards[0] and "10 credits" in cards[0]
    run_cell(shell, "%rds budget off")
    assert current_session().client.budget is None


def test_datasets_is_a_table(shell: InteractiveShell, seeded: Seeded) -> None:
    frame = run_cell(shell, "%rds datasets").result.result
    assert seeded.dataset_id in list(frame["id"])


def test_connect_by_url_prompts_and_never_shows_the_key(
    shell: InteractiveShell,
    sandbox: SandboxHandle,
    monkeypatch: pytest.MonkeyPatch,
    seeded: Seeded,
) -> None:
    prompts: list[str] = []

    def getpass(prompt: str) -> str:
        prompts.append(prompt)
        return sandbox.api_key

    monkeypatch.setattr("getpass.getpass", getpass)
    ran = [run_cell(shell, f"%rds connect --base-url {sandbox.url}")]
    assert prompts == [f"API key for {sandbox.url} (input hidden): "]
    assert "Connected to" in ran[0].stdout and "owner@" in ran[0].stdout
    for source in (
        "%rds status",
        "%rds datasets",
        "%rds chat",
        f"%%ask --dataset {seeded.dataset_id}\nWhy?",
        "current = rdskit.jupyter.current_session().client\ncurrent",
        "current._core",
        "raise rdskit.errors.InsufficientCredits(402, 'insufficient_credits',"
        " {'required': '1', 'available': '0', 'top_up_url': 'https://app.example/top-up'})",
    ):
        ran.append(run_cell(shell, "import rdskit\n" + source))
    history = "\n".join(shell.history_manager.input_hist_raw)
    assert_no_secret(sandbox.api_key, history, *(r.everything for r in ran))
    assert sandbox.api_key not in repr(shell.user_ns["current"])


def test_connect_from_the_environment_and_sandbox(
    shell: InteractiveShell, sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", sandbox.api_key)
    monkeypatch.setenv("RDSKIT_BASE_URL", sandbox.url)
    ran = run_cell(shell, "%rds connect")
    assert f"Connected to {sandbox.url} as owner@" in ran.stdout
    monkeypatch.delenv("RDSKIT_BASE_URL")
    monkeypatch.delenv("RDSKIT_API_KEY")
    ran = run_cell(shell, "%rds connect")
    assert isinstance(ran.result.error_in_exec, UsageError)
    assert "nothing to connect to" in str(ran.result.error_in_exec)


def test_a_failed_connect_keeps_the_session(
    shell: InteractiveShell, sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = session_of(shell).client
    monkeypatch.setenv("RDSKIT_API_KEY", "bz_test_" + "f" * 32)  # not a key of this sandbox
    ran = run_cell(shell, f"%rds connect --base-url {sandbox.url}")
    error = ran.result.error_in_exec
    assert isinstance(error, UsageError)  # shown as two lines, no traceback
    first, second = str(error).splitlines()
    assert "refused the API key (HTTP 401)" in first and "RDSKIT_API_KEY" in second
    assert session_of(shell).client is before


def test_models_print_as_one_line_text(shell: InteractiveShell, seeded: Seeded) -> None:
    dataset = current_session().client.datasets.get(seeded.dataset_id)
    bundle = shell.display_formatter.format(dataset)[0]
    name = "Oat milk (jupyter tests)"
    assert bundle["text/plain"].startswith(f"Dataset {seeded.dataset_id} {name!r}: ")
    assert 'class="rds-repr rds-dataset"' in bundle["text/html"] and name in bundle["text/html"]


def test_unload_and_reload(shell: InteractiveShell) -> None:
    run_cell(shell, "%unload_ext rdskit")
    assert "rds" not in shell.magics_manager.magics["line"]
    assert "ask" not in shell.magics_manager.magics["cell"]
    run_cell(shell, "%load_ext rdskit")
    assert "rds" in shell.magics_manager.magics["line"]
    assert session_of(shell)._own is None  # the new session made no client
