"""The answer view and the rich reprs of models and errors."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest
from jupyter_support import Seeded

import rdskit
from rdskit.answers import Answer
from rdskit.errors import (
    BudgetExceeded,
    InvalidParameter,
    RdsError,
    error_from_response,
)
from rdskit.jupyter.render import EXCERPT_CHARS, answer_bundle, markdown_html
from rdskit.jupyter.reprs import html_of, plain_of
from rdskit.models import (
    Account,
    AudienceDataset,
    AudienceRun,
    CustomParameterRun,
    Dataset,
    DatasetRun,
    Pattern,
    PatternDetectionRun,
    TrackingAgent,
    TrackingMessage,
    TrackingRun,
)
from rdskit.sandbox import SandboxHandle


@pytest.fixture(scope="module")
def answer(sandbox: SandboxHandle, seeded: Seeded) -> Answer:
    client = rdskit.Client(sandbox.api_key, base_url=sandbox.url)
    turn = client.ask("How does sentiment split?", dataset_ids=[seeded.dataset_id])
    reply: Answer = turn.wait()
    return reply


def test_every_marker_opens_the_card_of_its_post(answer: Answer) -> None:
    page = answer_bundle(answer)["text/html"]
    posts = answer.posts().set_index("citation")
    refs = answer.post_references
    assert refs, "the sandbox answer cites posts"
    markers = re.findall(r'<details class="rds-marker" data-ref="(\d+)"', page)
    assert sorted({int(m) for m in markers}) == [ref.citation for ref in refs]
    for ref in refs:
        post = posts.loc[ref.citation]
        marker = page.split(f'<details class="rds-marker" data-ref="{ref.citation}"', 1)[1]
        card = marker.split("</details>")[0]
        text = " ".join(post["text"].split())
        assert html.escape(text[:200]) in card
        if len(text) > EXCERPT_CHARS:  # an excerpt, not the whole post
            assert html.escape(text) not in card and "…" in card
        assert html.escape(post["url"]) in card and f"{post['num_likes']:,} like" in card
        assert post["source"] in card and html.escape(post["author_title"]) in card
    listed = re.findall(r'<li data-ref="(\d+)">', page)
    assert [int(n) for n in listed] == [ref.citation for ref in refs]
    assert page.count('class="rds-references"') == 1 and 'class="rds-answer"' in page
    # a native <details> toggle: no script, and nothing a sanitizer strips (tabindex, role)
    assert "<script" not in page and "tabindex" not in page and "role=" not in page
    assert page.count("<summary") == page.count("<details") == len(markers)
    assert "<p>" not in page.split('class="rds-answer-body"')[1].split("</ol>")[0]
    assert ":hover::details-content" in page and ":focus-visible" in page


def test_markdown_and_plain_text_footnotes(answer: Answer) -> None:
    bundle = answer_bundle(answer)
    posts = answer.posts().set_index("citation")
    for ref in answer.post_references:
        url = posts.loc[ref.citation, "url"]
        assert f"[[{ref.citation}]]({url})" in bundle["text/markdown"]
        assert f"\n[{ref.citation}] {ref.source} · " in bundle["text/plain"]
        assert f"    {url}" in bundle["text/plain"]
    assert bundle["text/plain"].startswith((answer.text or "").rstrip())


def test_raw_html_in_answers_is_escaped_and_unbound_answers_still_render() -> None:
    text = "Bold **claim** <script>alert(1)</script> [1] and [2] and [9]"
    reply = Answer.model_validate(
        {
            "id": "msg_1",
            "chat_id": "ch_1",
            "role": "assistant",
            "text": text,
            "references": [
                {
                    "type": "post",
                    "source": "reddit",
                    "id": "a",
                    "citation": 1,
                    "start_index": text.index("[1]"),
                    "end_index": text.index("[1]") + 3,
                },
                {
                    "type": "post",
                    "source": "tiktok",
                    "id": "b",
                    "citation": 2,
                    "start_index": text.index("[2]"),
                    "end_index": text.index("[2]") + 3,
                },
                {"type": "dataset", "id": "ds_9"},
            ],
        }
    )
    bundle = answer_bundle(reply)
    page = bundle["text/html"]
    assert "<script>" not in page and "&lt;script&gt;" in page and "<strong>claim</strong>" in page
    assert page.count('class="rds-marker"') == 2 and "[9]" in page  # [9] cites nothing
    assert "not bound to a client" in page and "dataset <code>ds_9</code>" in page
    assert (
        "(post details unavailable: this message is not bound to a client)" in bundle["text/plain"]
    )


def test_markdown_tables_render() -> None:
    assert "<table>" in markdown_html("| a | b |\n|---|---|\n| 1 | 2 |\n")


# -- reprs ------------------------------------------------------------------------------
STEPS = {
    "type": "working",
    "steps": [
        {
            "name": "scraping",
            "status": "completed",
            "started_at": "2026-01-01T10:00:00Z",
            "finished_at": "2026-01-01T10:00:04Z",
        }
    ],
}

CASES: list[tuple[Any, list[str]]] = [
    (
        Dataset.model_validate(
            {
                "id": "ds_1",
                "name": "Oat <milk>",
                "created_at": 0,
                "mentions_count": 1234,
                "url": "https://app.example/ds_1",
            }
        ),
        ["rds-dataset", "Oat &lt;milk&gt;", "1,234", "https://app.example/ds_1"],
    ),
    (
        DatasetRun.model_validate(
            {
                "id": "dsr_1",
                "dataset_id": "ds_1",
                "created_at": 0,
                "count": 50,
                "mentions_count": 20,
                "status": STEPS,
                "params": {
                    "search_query": {
                        "type": "prompt",
                        "sources": ["reddit"],
                        "search_query": "oat milk",
                    }
                },
            }
        ),
        ["Dataset run dsr_1", "20 of 50", "scraping", "2026-01-01 10:00:04 UTC", "oat milk"],
    ),
    (
        AudienceRun.model_validate(
            {
                "id": "adr_1",
                "audience_dataset_id": "ad_1",
                "source_dataset_id": "ds_1",
                "created_at": 0,
                "status": {"type": "working"},
                "profile_count": 120,
                "target_profile_count": 300,
            }
        ),
        ["Audience run adr_1", "120 of 300", "ad_1"],
    ),
    (
        CustomParameterRun.model_validate(
            {
                "id": "cpr_1",
                "custom_parameter_id": "cp_1",
                "status": {"type": "processing"},
                "mentions_total": 10,
                "mentions_done": 6,
                "mentions_error": 1,
                "scope": {"kind": "dataset", "id": "ds_1"},
            }
        ),
        ["Custom parameter run cpr_1", "6 of 10", "failed", "processing"],
    ),
    (
        PatternDetectionRun.model_validate(
            {
                "run_id": "pdr_1",
                "collection_id": "ds_1",
                "status": {"type": "completed"},
                "pattern_id": "pt_1",
                "research_question": "Why oat?",
            }
        ),
        ["Pattern detection pdr_1", "pt_1", "Why oat?"],
    ),
    (
        TrackingRun.model_validate(
            {
                "id": "tar_1",
                "agent_id": "ta_1",
                "dataset_run_ids": ["dsr_7"],
                "status": {"type": "pending"},
            }
        ),
        ["Tracking run tar_1", "dsr_7", "ta_1"],
    ),
    (
        AudienceDataset.model_validate(
            {"id": "ad_1", "name": "Fans", "created_at": 0, "profile_count": 42}
        ),
        ["Audience dataset Fans", "42"],
    ),
    (
        Pattern.model_validate(
            {
                "id": "pt_1",
                "summary": "Two themes",
                "items": [
                    {"item_id": "it_1", "title": "Price", "synopsis": "Too dear", "post_count": 7},
                    {"item_id": "it_2", "title": "Foam", "synopsis": "Great foam", "post_count": 3},
                ],
            }
        ),
        ["Two themes", "<b>Price</b>", "Too dear", "<td>7</td>", "it_2", "Great foam"],
    ),
    (
        TrackingAgent.model_validate(
            {
                "id": "ta_1",
                "name": "Oat watch",
                "dataset_ids": ["ds_1"],
                "paused": True,
                "count": 25,
                "schedule": {"frequency": "weekly", "time": "08:30", "day": "monday"},
            }
        ),
        ["Oat watch", "paused", "weekly monday 08:30", "ds_1", "25"],
    ),
    (
        TrackingMessage.model_validate(
            {
                "message_id": "tam_1",
                "agent_id": "ta_1",
                "agent_name": "Oat watch",
                "new_mention_count": 12,
                "sentiment_score": 0.25,
                "text": "Spike in **foam** talk",
                "references": [],
            }
        ),
        ["Alert tam_1", "Oat watch", "12", "0.25", "<strong>foam</strong>", "rds-answer"],
    ),
]


@pytest.mark.parametrize(("obj", "expected"), CASES, ids=lambda v: type(v).__name__)
def test_model_reprs(obj: Any, expected: list[str]) -> None:
    page = obj._repr_html_()
    assert page == html_of(obj) and page.startswith('<div class="rds-repr')
    for piece in expected:
        assert piece in page


def test_account_shows_balance_in_credits_and_usd_features_and_limits() -> None:
    account = Account.model_validate(
        {
            "id": "u1",
            "email": "a@example.com",
            "team_name": "Team",
            "created_at": 0,
            "plan": {
                "name": "Pro",
                "type": "subscription",
                "features": {"mcp": True, "webhooks": False},
                "limits": {"num_seats": 2, "tracking_agents": 5},
            },
            "usage": {
                "credits_used": "250.500000",
                "credits_total": "12000.000000",
                "balance_used": 3.7158,
                "balance_total": 178,
                "billing": {"unit": "credits", "credit_rate_usd": "0.014833333333"},
            },
        }
    )
    page = html_of(account)
    assert "<b>11,749.5 credits</b> (174.28 USD) available" in page
    assert "✓ mcp" in page and "✗ webhooks" in page
    assert "<th>num_seats</th>" in page and "<td>5</td>" in page
    assert plain_of(account) == (
        "Account a@example.com (Team), plan Pro: 11,749.5 credits (174.28 USD) available"
    )


def test_insufficient_credits_shows_amounts_and_the_top_up_link() -> None:
    exc = error_from_response(
        402,
        {
            "status": "client_error",
            "error_code": "insufficient_credits_dataset_run",
            "transient": False,
            "detail": {
                "message": "Insufficient balance",
                "required": "1.48",
                "available": "0.2",
                "required_credits": "100.000000",
                "available_credits": "13.483146",
                "top_up_url": "https://app.example/billing",
            },
        },
        method="POST",
        path="/v1/datasets/ds_1/runs",
    )
    page = exc._repr_html_()
    assert "<b>100 credits</b> (1.48 USD)" in page and "<b>13.48 credits</b> (0.20 USD)" in page
    assert 'href="https://app.example/billing"' in page
    assert "insufficient_credits_dataset_run" in page and "POST /v1/datasets/ds_1/runs" in page


def test_validation_error_names_each_field() -> None:
    exc = error_from_response(
        422,
        {
            "detail": [
                {"loc": ["body", "count"], "msg": "must be positive", "type": "value_error"},
                {"loc": ["body", "search_query", "sources"], "msg": "required", "type": "missing"},
            ]
        },
        method="POST",
        path="/v1/datasets/ds_1/runs",
    )
    page = html_of(exc)
    assert "<code>body.count</code>" in page and "must be positive" in page
    assert "<code>body.search_query.sources</code>" in page and "missing" in page


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (
            InvalidParameter("limit", "must be between 1 and 100"),
            ["<code>limit</code>", "must be between 1 and 100", "no request was made"],
        ),
        (
            BudgetExceeded("dataset_run", None, Decimal(3), "no price"),
            ["dataset_run", "unknown", "3 credits", "no price"],
        ),
        (
            error_from_response(
                404,
                {"error_code": "dataset_not_found", "detail": "gone", "transient": False},
                method="GET",
                path="/v1/datasets/x",
            ),
            ["dataset_not_found", "404", "GET /v1/datasets/x", "gone"],
        ),
        (RdsError("plain trouble"), ["RdsError", "plain trouble"]),
    ],
    ids=["invalid-parameter", "budget", "api-error", "rds-error"],
)
def test_error_reprs(exc: RdsError, expected: list[str]) -> None:
    page = exc._repr_html_()
    assert "rds-error" in page
    for piece in expected:
        assert piece in page


def test_plain_models_have_no_rich_repr() -> None:
    from rdskit.models import PostRef

    assert PostRef(source="reddit", id="a")._repr_html_() is None


def test_import_rdskit_does_not_import_ipython() -> None:
    code = "import sys, rdskit; print('IPython' in sys.modules, 'ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
