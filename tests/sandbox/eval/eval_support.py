"""Checks of the assistant evaluation: a case's plan against its expectations.

Used by ``test_assistant_eval.py`` and by ``benchmarks/bench_assistant.py``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

import httpx
from assistant_case import Case

from rdskit.sandbox.assistant.intents import Intent, Plan, Vocabulary, plan
from rdskit.sandbox.synth.extractor import stem

_TIME_UNITS = {"day", "week", "month", "time"}
SOURCES = ["reddit", "tiktok", "youtube", "instagram", "linkedin"]


def collect(
    http: httpx.Client,
    name: str,
    count: int,
    *,
    sources: Sequence[str] = SOURCES,
    comments: int = 3,
    actions: Sequence[str] = ("sentiment", "hook", "cta"),
) -> str:
    """A dataset named and searched ``name`` with one completed run of ``count`` posts."""
    dataset = http.post("/v1/datasets", json={"name": name}).json()["data"]
    body = {
        "search_query": {"type": "prompt", "sources": list(sources), "search_query": name},
        "count": count,
        "num_comments_per_post": comments,
        "content_analysis_actions": list(actions),
    }
    run = http.post(f"/v1/datasets/{dataset['id']}/runs", json=body).json()["data"]
    path = f"/v1/datasets/{dataset['id']}/runs/{run['id']}"
    deadline = time.monotonic() + 120
    while (status := http.get(path).json()["data"]["status"]["type"]) not in (
        "completed",
        "failed",
    ):
        assert time.monotonic() < deadline, "run stuck"
        time.sleep(0.02)
    assert status == "completed"
    return str(dataset["id"])


def read_all(http: httpx.Client, body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every post ``POST /v1/mentions`` returns for ``body``, page after page."""
    posts: list[dict[str, Any]] = []
    request = {"limit": 100, **body}
    while True:
        response = http.post("/v1/mentions", json=request)
        assert response.status_code == 200, response.text
        page = response.json()
        posts += page["data"]
        if not page["has_next"]:
            return posts
        request["cursor"] = page["cursor"]


def ask_over_http(
    http: httpx.Client, message: str, chat_id: str | None, dataset_id: str | Sequence[str]
) -> dict[str, Any]:
    """One Ask turn over HTTP in ``dataset_id`` (or several, a list) (in ``chat_id`` when
    given), polled until the reply is written; the reply row with its ``chat_id``."""
    ids = [dataset_id] if isinstance(dataset_id, str) else list(dataset_id)
    body: dict[str, Any] = {"message": message, "context": {"dataset_ids": ids}}
    if chat_id:
        body["chat_id"] = chat_id
    response = http.post("/v1/ask", json=body)
    assert response.status_code == 202, response.text
    accepted = response.json()["data"]
    path = f"/v1/chats/{accepted['chat_id']}/messages/{accepted['message_id']}"
    deadline = time.monotonic() + 30
    while (reply := http.get(path).json()["data"])["status"] == "working":
        assert time.monotonic() < deadline, "reply timed out"
        time.sleep(0.01)
    assert reply["status"] == "completed", reply
    reply["chat_id"] = accepted["chat_id"]
    return dict(reply)


def plan_case(case: Case, vocab: Vocabulary) -> Plan:
    """The plan of the case's question after its earlier turns."""
    history: list[Plan] = []
    for earlier in case.after:
        history.append(plan(earlier, vocab, history))
    return plan(case.question, vocab, history)


def _stems(values: Any) -> set[str]:
    return {" ".join(stem(word) for word in str(v).lower().split()) for v in values}


def _slot_problems(intent: Intent, expected: dict[str, Any]) -> list[str]:
    slots = intent.slots
    problems = []
    for name in ("terms", "missing"):
        wanted, found = _stems(expected.get(name, ())), _stems(getattr(slots, name))
        if wanted != found:
            problems.append(f"{intent.name}.{name}: {sorted(found)} != {sorted(wanted)}")
    for name, want in expected.items():
        if name in ("terms", "missing"):
            continue
        got: Any
        if name == "sources":
            got = set(slots.sources)
            ok = got == set(want)
        elif name in ("brands", "hashtags", "authors"):
            got = {value.lower() for value in getattr(slots, name)}
            ok = got == {value.lower() for value in want}
        elif name == "group_by":
            got = slots.group_by
            ok = got == want or (want == "time" and got in _TIME_UNITS)
        elif name in ("since", "until"):
            got = getattr(slots, name)
            ok = got is not None and got.isoformat().startswith(want)
        elif name == "since_month":
            got = slots.since.month if slots.since else None
            ok = got == want
        else:
            got = getattr(slots, name)
            ok = got == want
        if not ok:
            problems.append(f"{intent.name}.{name}: {got!r} != {want!r}")
    return problems


def plan_problems(case: Case, vocab: Vocabulary) -> list[str]:
    """What is wrong with the case's plan (empty: it passes)."""
    got = plan_case(case, vocab)
    if got.names != case.intents:
        return [f"intents {got.names} != {case.intents}"]
    problems = []
    for index, intent in enumerate(got.intents):
        expected = dict(case.slots)
        if index < len(case.per):
            expected.update(case.per[index])
        problems += _slot_problems(intent, expected)
    return problems


def rate(cases: Sequence[Case], vocab: Vocabulary) -> tuple[float, list[str]]:
    """The share of cases whose plan passes, and a line per failing case."""
    failures = []
    for case in cases:
        problems = plan_problems(case, vocab)
        if problems:
            failures.append(f"[{case.style}] {case.question!r}: {'; '.join(problems)}")
    return 1 - len(failures) / len(cases), failures


def wire_label(scores: dict[str, str] | None) -> str | None:
    """The wire filter's sentiment label: the largest share, a tie going to neutral."""
    if not scores:
        return None
    values = {label: float(value) for label, value in scores.items()}
    return max(values, key=lambda label: (values[label], label == "neutral"))


def post_counts(text: str) -> list[int]:
    """Every "**N** posts match" of an answer, in order."""
    return [int(n.replace(",", "")) for n in re.findall(r"\*\*([\d,]+)\*\* posts? match", text)]


def table_rows(text: str) -> list[str]:
    """The first column of the answer's table, header and rule left out."""
    lines = [line for line in text.splitlines() if line.startswith("|")][2:]
    return [line.split("|")[1].strip() for line in lines]


def understood(text: str) -> str:
    """``text``, checked to name no word as not understood."""
    assert "did not understand" not in text, text
    return text
