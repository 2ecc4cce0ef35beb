"""Progress that moves: the bar follows step weights and counters, a time-left estimate
appears once it can be known, Ask stages are words, and amounts read for people."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from jupyter_support import QUERY

import rdskit
from rdskit.jupyter import progress as p
from rdskit.models import AskAccepted, ChatMessage, DatasetRun
from rdskit.progress import Snapshot, time_left
from rdskit.runs import describe
from rdskit.sandbox import start


class Recorder:
    """A view keeping every snapshot it was shown."""

    def __init__(self) -> None:
        self.snaps: list[Snapshot] = []

    def open(self, snap: Snapshot) -> None:
        self.snaps.append(snap)

    show = close = open


def run_with(steps: list[str], mentions: int | None = 0, status: str = "working") -> DatasetRun:
    names = ("scraping", "enrichment", "analysis")
    return DatasetRun.model_validate(
        {
            "id": "dsr_9",
            "dataset_id": "ds_9",
            "created_at": 0,
            "count": 50,
            "mentions_count": mentions,
            "status": {
                "type": status,
                "steps": [{"name": n, "status": s} for n, s in zip(names, steps, strict=True)],
            },
        }
    )


def test_the_bar_moves_with_steps_when_the_count_stays_zero() -> None:
    shares = [
        describe(run_with(steps)).fraction
        for steps in (
            ["pending", "pending", "pending"],
            ["working", "pending", "pending"],
            ["completed", "working", "pending"],
            ["completed", "completed", "working"],
        )
    ]
    assert shares == sorted(shares) and len(set(shares)) == 4
    assert shares[0] == 0.0 and 0 < shares[1] < shares[3] < 1
    assert describe(run_with(["completed"] * 3, 50, "completed")).fraction == 1.0
    # a counter the service reports moves the working step; "0 of 50" never shows
    half = describe(run_with(["completed", "working", "pending"], 10)).fraction
    assert half == pytest.approx((1 + 10 / 50) / 3)
    assert describe(run_with(["working", "pending", "pending"])).counters[0] == (
        "mentions",
        "50 requested",
    )


def test_time_left_appears_once_the_pace_is_known() -> None:
    steady = [(1.0, 0.2), (3.0, 0.4), (5.0, 0.6)]
    assert time_left(steady[:2], 5.0) is None  # one pace says nothing
    assert time_left(steady, 5.0) == pytest.approx(4.0)
    assert time_left([(0.0, 0.01), (1.0, 0.02), (2.0, 0.03)], 2.0) is None  # under 5 %
    # uneven steps (10 s, then 1 s for the same share): no estimate
    assert time_left([(0.0, 0.2), (10.0, 0.4), (11.0, 0.6)], 11.0) is None
    now = [0.0]
    view = Recorder()
    rep = p.Reporter(run_with(["pending"] * 3), view, clock=lambda: now[0], tick=3600)
    rep.open()
    for second, steps in enumerate(
        (
            ["working", "pending", "pending"],
            ["completed", "pending", "pending"],
            ["completed", "working", "pending"],
        ),
        start=1,
    ):
        now[0] = 3.0 * second
        rep.update(run_with(steps))
    rep.finish("completed")
    live = [snap for snap in view.snaps if snap.state == "running"]
    assert live[0].left is None and "time left unknown" in p.timing(live[0])
    assert live[-1].left is not None and live[-1].left > 0
    assert "left" in p.timing(live[-1]) and "elapsed" in p.timing(live[-1])
    assert view.snaps[-1].left is None and p.timing(view.snaps[-1]).startswith("working in ")


def test_time_left_never_rises_while_the_bar_stands_still() -> None:
    now = [0.0]
    view = Recorder()
    rep = p.Reporter(run_with(["pending"] * 3), view, clock=lambda: now[0], tick=3600)
    rep.open()
    for at, steps in (
        (2.0, ["working", "pending", "pending"]),
        (4.0, ["completed", "pending", "pending"]),
        (6.0, ["completed", "working", "pending"]),
    ):
        now[0] = at
        rep.update(run_with(steps))
    stuck = run_with(["completed", "working", "pending"])
    lefts = []
    for tick in range(1, 40):  # the bar stands at the same share for 20 s
        now[0] = 6.0 + tick * 0.5
        rep.update(stuck)
        lefts.append(view.snaps[-1].left)
    known = [left for left in lefts if left is not None]
    assert known and known == sorted(known, reverse=True), lefts
    # once the estimate is used up the display says so, rather than "about 1s left"
    assert lefts[-1] is None and "time left unknown" in p.timing(view.snaps[-1])
    assert all(left is None for left in lefts[lefts.index(None) :]), lefts
    rep.finish("completed")


def test_live_and_final_share_one_layout() -> None:
    live = p.progress_html(
        Snapshot(describe(run_with(["completed", "working", "pending"])), "running", 2.0)
    )
    final = p.progress_html(
        Snapshot(describe(run_with(["completed"] * 3, 50, "completed")), "completed", 4.8)
    )
    for html in (live, final):
        assert "<table" not in html  # JupyterLab stripes and right-aligns tables
        assert html.count('class="rds-progress-bar"') == 1
    blocks = [re.findall(r'class="(rds-progress[\w-]*)', html)[:4] for html in (live, final)]
    assert blocks[0] == blocks[1]
    assert "completed in 4.8s" in final and "completed · completed" not in final


def test_ask_stages_are_words() -> None:
    turn = AskAccepted.model_validate({"chat_id": "ch_1", "message_id": "m_1", "status": "working"})
    working = ChatMessage.model_validate(
        {"id": "m_1", "chat_id": "ch_1", "role": "assistant", "status": "working", "content": ""}
    )
    answered = ChatMessage.model_validate(
        {
            "id": "m_1",
            "chat_id": "ch_1",
            "role": "assistant",
            "status": "completed",
            "content": "x",
            "references": [],
        }
    )
    sent, busy, done = (describe(obj) for obj in (turn, working, answered))
    assert sent.status == "question sent" and busy.status == "the assistant is working"
    assert [step.name for step in sent.steps] == [
        "question sent",
        "assistant working",
        "references resolved",
    ]
    assert done.status == "answered" and "references resolved (0 references)" in [
        step.name for step in done.steps
    ]
    assert sent.fraction is not None and busy.fraction is not None
    assert 0 < sent.fraction < busy.fraction < done.fraction == 1.0


def test_a_real_run_moves_the_bar_and_bills_for_people(monkeypatch: pytest.MonkeyPatch) -> None:
    view = Recorder()
    monkeypatch.setattr(
        "rdskit.waiting._reporter", lambda obj, progress: p.Reporter(obj, view, tick=0.2)
    )
    # a sandbox at a speed where a run takes seconds, as a person sees it
    with start(speed=3) as sandbox, rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        dataset = client.datasets.create("progress that moves")
        run = client.datasets.runs.create(dataset.id, search_query=QUERY, count=20)
        fetched = run.wait(poll_interval=0.2, progress=True)
    assert fetched.status.type == "completed"
    shares = [snap.view.fraction or 0.0 for snap in view.snaps]
    assert shares == sorted(shares), shares  # never goes back
    assert any(0 < share < 1 for share in shares), shares  # moved before the end
    final = p.progress_html(view.snaps[-1])
    assert re.search(r"\d+\.\d{3,}", re.sub(r"width:[\d.]+%", "", final)) is None
    assert "for this run" in final and "usage row" not in final


class _Text(HTMLParser):
    """Text as a renderer that drops every style shows it: block elements on their own
    lines (GitHub and nbviewer strip ``style`` and ``<style>``)."""

    BLOCKS = frozenset({"div", "p", "li", "tr", "h4"})

    def __init__(self) -> None:
        super().__init__()
        self.text = ""

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.BLOCKS:
            self.text += "\n"

    def handle_data(self, data: str) -> None:
        self.text += data


def test_the_panel_reads_as_text_without_any_style() -> None:
    view = describe(run_with(["completed", "working", "pending"]))
    stamped = view.__class__(
        view.title,
        view.status,
        tuple(
            step.__class__(step.name, step.status, datetime(2026, 1, 2, 9, 30, 5, tzinfo=UTC))
            for step in view.steps
        ),
        view.counters,
        view.fraction,
    )
    parser = _Text()
    parser.feed(p.progress_html(Snapshot(stamped, "running", 2.0)))
    lines = [line.strip() for line in parser.text.splitlines() if line.strip()]
    assert lines[0] == "Dataset run dsr_9 · working · 2.0s elapsed · time left unknown"
    assert "scraping: completed, started 09:30:05 UTC" in lines
    assert "enrichment: working, started 09:30:05 UTC" in lines
    assert "mentions 50 requested" in lines
    assert "<style" not in p.progress_html(Snapshot(stamped, "running", 2.0))
