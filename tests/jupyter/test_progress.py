"""The progress display of ``wait()``: widget state, terminal line, billing figures."""

from __future__ import annotations

import asyncio
import io
import time
from typing import Any

import pytest
from IPython.utils.capture import capture_output
from jupyter_support import QUERY, Seeded

import rdskit
from rdskit.errors import WaitTimeout
from rdskit.jupyter import progress as p
from rdskit.models import (
    AskAccepted,
    ChatMessage,
    CustomParameterRun,
    DatasetRun,
    PatternDetectionRun,
    Prices,
    UsageRow,
)
from rdskit.sandbox import SandboxHandle

STEPS = [
    {
        "name": "scraping",
        "status": "completed",
        "started_at": "2026-01-01T10:00:00Z",
        "finished_at": "2026-01-01T10:00:05Z",
    },
    {
        "name": "enrichment",
        "status": "working",
        "started_at": "2026-01-01T10:00:05Z",
        "finished_at": None,
    },
]


def dataset_run(status: str, mentions: int | None = None, steps: list | None = None) -> DatasetRun:
    return DatasetRun.model_validate(
        {
            "id": "dsr_1",
            "dataset_id": "ds_1",
            "created_at": "2026-01-01T10:00:00Z",
            "count": 40,
            "mentions_count": mentions,
            "status": {"type": status, "steps": steps or []},
        }
    )


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.usefixtures("_loaded_shell")  # display() needs a running IPython
def test_widget_follows_a_sequence_of_runs() -> None:
    clock = Clock()
    view = p.WidgetView()
    reporter = p.Reporter(dataset_run("pending"), view, clock=clock, tick=3600)
    states = [
        dataset_run("pending"),
        dataset_run("working", 12, STEPS),
        dataset_run("working", 30, STEPS),
        dataset_run("completed", 40, [{**s, "status": "completed"} for s in STEPS]),
    ]
    with capture_output() as captured:
        reporter.open()
        seen = []
        for seconds, run in enumerate(states, start=1):
            clock.now += 1.5
            reporter.update(run)
            seen.append(view.widget.value)
            assert f"{1.5 * seconds:.1f}s elapsed" in seen[-1]
        reporter.finish("completed", billing=[p.BillingLine("charged", "40 credits", "1 row")])
    assert 'data-state="running"' in seen[0] and "pending · " in seen[0]
    assert "mentions <b>12 of 40</b>" in seen[1] and "scraping" in seen[1]
    # two steps: scraping done (1), enrichment working at 12 of 40 (0.3): 65 %
    assert "10:00:05" in seen[1] and 'style="width:65.0%;' in seen[1]
    assert "mentions <b>30 of 40</b>" in seen[2] and 'style="width:87.5%;' in seen[2]
    opened, closed = (output.data for output in captured.outputs)
    assert "application/vnd.jupyter.widget-view+json" in opened
    assert opened["text/plain"].startswith("Dataset run dsr_1: pending")
    # once over, the output is static HTML and text: a saved notebook shows the end state
    assert set(closed) == {"text/html", "text/plain"}
    final = closed["text/html"]
    assert 'data-state="completed"' in final and "40 credits" in final
    assert final.count('class="rds-progress"') == 1
    assert closed["text/plain"].startswith("Dataset run dsr_1: completed in 6.0s")
    assert "completed · completed" not in final and 'style="width:100.0%;' in final
    assert "charged 40 credits" in closed["text/plain"]
    assert view.widget.comm is None  # closed


@pytest.mark.usefixtures("_loaded_shell")
def test_html_view_updates_one_display() -> None:
    view = p.DisplayView()
    reporter = p.Reporter(dataset_run("pending"), view, tick=3600)
    with capture_output() as captured:
        reporter.open()
        reporter.update(dataset_run("working", 5, STEPS))
        reporter.finish("failed")
    texts = [output.data["text/plain"] for output in captured.outputs]
    assert len(texts) == 3 and all("rds-progress" in o.data["text/html"] for o in captured.outputs)
    assert texts[0].startswith("Dataset run dsr_1: pending · ")
    assert texts[1].startswith("Dataset run dsr_1: working · ") and "mentions 5 of 40" in texts[1]
    assert texts[2].startswith("Dataset run dsr_1: working, failed after ")


def test_terminal_line_is_rewritten_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    stream = Tty()
    reporter = p.Reporter(dataset_run("pending"), p.LineView(stream), tick=3600)
    reporter.open()
    reporter.update(dataset_run("working", 12, STEPS))
    reporter.finish("completed", billing=[p.BillingLine("charged", "12 credits")])
    out = stream.getvalue()
    assert out.count("\r") == 3 and out.endswith("\n") and out.count("\n") == 1
    running, final = out.split("\r")[2:]
    # Cut to the terminal's width (50 - 1), the cut shown by an ellipsis.
    assert running == "Dataset run dsr_1: working · 0.0s elapsed · time…\x1b[K"
    assert final.startswith("Dataset run dsr_1: working in 0.0s | mentions 12")
    assert final.endswith("enrichment working | charged 12 credits\x1b[K\n")  # whole


def test_text_line_without_a_terminal_prints_each_change_once() -> None:
    stream = io.StringIO()
    reporter = p.Reporter(dataset_run("pending"), p.LineView(stream), tick=3600)
    reporter.open()
    for run in (dataset_run("working", 1), dataset_run("working", 2), dataset_run("working", 3)):
        reporter.update(run)
    reporter.finish("completed")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3 and "\r" not in stream.getvalue()
    assert lines[0].startswith("Dataset run dsr_1: pending · ")
    assert lines[1].startswith("Dataset run dsr_1: working · ") and "mentions 1 of 40" in lines[1]
    assert lines[2].startswith("Dataset run dsr_1: working in ")
    assert "mentions 3 of 40" in lines[2]


def test_the_ticker_refreshes_the_elapsed_time() -> None:
    stream = Tty()
    reporter = p.Reporter(dataset_run("working", 1), p.LineView(stream), tick=0.02)
    reporter.open()
    time.sleep(0.3)
    reporter.finish("completed")
    ticks = stream.getvalue().count("\r")
    assert ticks >= 5  # the line was redrawn between polls
    settled = stream.getvalue()
    time.sleep(0.1)
    assert stream.getvalue() == settled  # and stops with the wait


def test_interrupt_and_errors_end_the_display() -> None:
    stream = io.StringIO()
    reporter = p.Reporter(dataset_run("working", 1), p.LineView(stream), tick=3600)

    def interrupted(flow: Any) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reporter.run(interrupted, iter(()))
    assert reporter.outcome == "interrupted"
    # Where the run goes on, for a client of the service (the default of Reporter.run).
    assert "working, interrupted after" in stream.getvalue()
    assert "stopped waiting; the run continues on the service" in stream.getvalue()


# -- billing figures ------------------------------------------------------------------------
PRICES = Prices.model_validate(
    {
        "prices_credits": {"mention": "1.000000", "post_processing": "0.500000"},
        "prices": {"mention": 0.02, "post_processing": 0.01},
        "billing": {"unit": "credits", "credit_rate_usd": "0.02"},
    }
)


def row(row_id: int, category: str, credits: str, usd: float) -> UsageRow:
    return UsageRow.model_validate(
        {
            "id": row_id,
            "category": category,
            "quantity": usd,
            "quantity_credits": credits,
            "created_at": 0,
        }
    )


def figures(lines: list[p.BillingLine]) -> dict[str, str]:
    return {line.label: line.figure for line in lines}


def test_completed_run_reserved_charged_refunded() -> None:
    terms = p.charge_terms(dataset_run("completed", 33))
    lines = p.billing_lines(
        terms,
        failed=False,
        prices=PRICES,
        rows=[row(8, "mention", "33.000000", 0.66), row(9, "ai_assistant", "0.2", 0.004)],
    )
    assert figures(lines) == {
        "reserved": "40 credits (0.80 USD)",
        "charged": "33 credits (0.66 USD)",
        "refunded": "7 credits (0.14 USD)",
    }


def test_failed_run_is_refunded_in_full() -> None:
    terms = p.charge_terms(dataset_run("failed"))
    lines = figures(p.billing_lines(terms, failed=True, prices=PRICES, rows=[]))
    assert lines["refunded"] == lines["reserved"] == "40 credits (0.80 USD)"
    assert lines["charged"] == "nothing expected"


def test_unknowable_figures_say_so() -> None:
    pattern = PatternDetectionRun.model_validate(
        {"run_id": "pdr_1", "collection_id": "ds_1", "status": {"type": "completed"}}
    )
    lines = p.billing_lines(p.charge_terms(pattern), failed=False, prices=PRICES, rows=None)
    assert figures(lines) == {"reserved": "not shown", "charged": "unknown"}
    assert "latest completed run" in lines[0].detail
    turn = AskAccepted.model_validate({"chat_id": "ch_1", "message_id": "m", "status": "working"})
    lines = p.billing_lines(p.charge_terms(turn), failed=False, prices=PRICES, rows=[])
    assert figures(lines) == {"reserved": "none", "charged": "not recorded"}
    # A reply that says it was charged no tokens is free; one that says nothing is unknown.
    for tokens, charged in ((0, "0 credits (0 USD)"), (None, "not recorded"), (5, "not recorded")):
        reply = ChatMessage.model_validate(
            {"id": "m", "role": "assistant", "status": "completed", "charged_tokens": tokens}
        )
        lines = p.billing_lines(p.charge_terms(reply), failed=False, prices=PRICES, rows=[])
        assert figures(lines) == {"reserved": "none", "charged": charged}


def test_other_work_in_the_same_category_is_not_mistaken_for_a_refund() -> None:
    run = CustomParameterRun.model_validate(
        {"id": "cpr_1", "status": {"type": "processing"}, "mentions_total": 10}
    )
    rows = [row(3, "post_processing", "5", 0.1), row(4, "post_processing", "2", 0.04)]
    lines = figures(p.billing_lines(p.charge_terms(run), failed=False, prices=PRICES, rows=rows))
    assert lines == {
        "reserved": "5 credits (0.10 USD)",
        "charged": "7 credits (0.14 USD)",
        "refunded": "not computed",
    }


# -- against the sandbox ---------------------------------------------------------------------
@pytest.fixture
def client(sandbox: SandboxHandle) -> rdskit.Client:
    with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        yield client


def test_wait_shows_progress_and_the_bill(
    client: rdskit.Client, seeded: Seeded, capsys: pytest.CaptureFixture[str]
) -> None:
    run = client.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=20)
    done = run.wait(progress=True)
    assert done.status.type == "completed"
    final = capsys.readouterr().err.strip().splitlines()[-1]
    prices = client.prices()
    unit = prices.prices_credits["mention"]
    charged = done.mentions_count * unit
    assert final.startswith(f"Dataset run {run.id}: completed in ")
    assert f"reserved {(20 * unit).normalize():f} credits" in final
    assert f"charged {charged.normalize():f} credits" in final
    assert f"refunded {(20 * unit - charged).normalize():f} credits" in final


def test_a_reused_run_says_this_call_charged_nothing_and_what_the_run_cost(
    client: rdskit.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    """Runs charged after the reused one (here a second, different run) are not its cost,
    and reusing it charges nothing."""
    dataset = client.datasets.create("reuse bill")
    first = client.datasets.runs.create(dataset.id, search_query=QUERY, count=12, reuse=True)
    done = first.wait(progress=False)
    other = client.datasets.runs.create(dataset.id, search_query=QUERY, count=7)
    other.wait(progress=False)
    again = client.datasets.runs.create(dataset.id, search_query=QUERY, count=12, reuse=True)
    assert again.id == first.id and again._reused
    before = client.me().usage.credits_used
    again.wait(progress=True)
    assert client.me().usage.credits_used == before  # nothing charged by the reuse
    final = capsys.readouterr().err.strip().splitlines()[-1]
    unit = client.prices().prices_credits["mention"]
    cost = (done.mentions_count * unit).normalize()
    assert "| charged 0 credits (0 USD) |" in final, final
    assert f"| run cost {cost:f} credits" in final, final
    assert "reserved" not in final and "refunded" not in final


@pytest.mark.parametrize(
    "question",
    ["Please delete all my datasets", "What is the income of the authors?"],
    ids=["refusal", "not collected"],
)
def test_a_free_answer_shows_its_charge(
    client: rdskit.Client, seeded: Seeded, capsys: pytest.CaptureFixture[str], question: str
) -> None:
    """A refusal or a question about data not collected is charged nothing, and its bill
    says so (it said "charged not recorded"); a charged answer shows its charge."""
    turn = client.ask(question, dataset_ids=[seeded.dataset_id])
    assert turn.wait(progress=True, poll_interval=0.01).charged_tokens == 0
    final = capsys.readouterr().err.strip().splitlines()[-1]
    assert "| charged 0 credits (0 USD)" in final and "not recorded" not in final, final
    turn = client.ask("How does sentiment split?", dataset_ids=[seeded.dataset_id])
    assert turn.wait(progress=True, poll_interval=0.01).charged_tokens
    final = capsys.readouterr().err.strip().splitlines()[-1]
    assert "| charged " in final and "| charged 0 credits" not in final, final
    assert "not recorded" not in final, final


def test_progress_off_and_auto_outside_a_terminal(
    client: rdskit.Client, seeded: Seeded, capsys: pytest.CaptureFixture[str]
) -> None:
    run = client.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=5)
    run.wait(progress=False)
    run.wait()  # pytest's stderr is no terminal and this is no interactive session
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_timeout_says_the_run_goes_on(
    client: rdskit.Client, seeded: Seeded, capsys: pytest.CaptureFixture[str]
) -> None:
    run = client.datasets.runs.create(seeded.dataset_id, search_query=QUERY, count=5)
    with pytest.raises(WaitTimeout):
        client.wait(run, timeout=0.000001, progress=True)
    assert "pending, timed out after" in capsys.readouterr().err


def test_async_wait_shows_the_same_display(
    sandbox: SandboxHandle, seeded: Seeded, capsys: pytest.CaptureFixture[str]
) -> None:
    async def main() -> Any:
        async with rdskit.AsyncClient(sandbox.api_key, base_url=sandbox.url) as aclient:
            turn = await aclient.ask("How does sentiment split?", dataset_ids=[seeded.dataset_id])
            return await aclient.wait(turn, progress=True)

    answer = asyncio.run(main())
    final = capsys.readouterr().err.strip().splitlines()[-1]
    assert final.startswith("Assistant reply: answered in ")
    assert f"chat {answer.chat_id}" in final and "references resolved (" in final
    assert "reserved none" in final and "charged " in final
    assert "ai_assistant" not in final and "usage row" not in final


@pytest.mark.parametrize(
    ("progress", "kernel", "expected"),
    [(False, True, None), (None, True, "widget"), (True, False, "text"), (None, False, None)],
)
def test_choose_mode(
    monkeypatch: pytest.MonkeyPatch, progress: bool | None, kernel: bool, expected: str | None
) -> None:
    shell = type("Shell", (), {"kernel": object() if kernel else None})()
    monkeypatch.setattr(p, "_ipython", lambda: shell if kernel else None)
    assert p.choose_mode(progress) == expected


def test_amounts_round_only_for_display() -> None:
    lines = p.billing_lines(
        p.ChargeTerms(("mention",), "dataset_run", 30),
        failed=False,
        prices=Prices.model_validate(
            {"prices_credits": {"mention": "1.000000"}, "prices": {"mention": 0.014833333333}}
        ),
        rows=[],
    )
    # 0.44499999999 USD: cents for people, rounded once (not 0.445 then 0.45)
    assert figures(lines)["reserved"] == "30 credits (0.44 USD)"
