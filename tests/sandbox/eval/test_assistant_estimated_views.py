"""Answers comparing views or engagement rate across sources say when some sources' views
are estimated (issue 25 item 3), over real HTTP against the sandbox.

Which posts have estimated views is read from the posts themselves (``are_views_estimated``
as ``POST /v1/mentions`` returns them), never from a list in the test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from eval_support import ask_over_http, collect, read_all

from rdskit.sandbox import SandboxHandle

NOTE = "not like-for-like across sources"


@dataclass
class Data:
    http: httpx.Client
    dataset_id: str
    posts: list[dict[str, Any]]

    def ask(self, message: str) -> str:
        return str(ask_over_http(self.http, message, None, self.dataset_id)["text"])


@pytest.fixture(scope="module")
def data(sandbox: SandboxHandle) -> Iterator[Data]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as http:
        dataset_id = collect(http, "oat milk", 80)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        yield Data(http, dataset_id, posts)


def _estimated(data: Data) -> list[str]:
    return sorted({p["source"] for p in data.posts if p.get("are_views_estimated")})


def test_the_data_mixes_estimated_and_counted_views(data: Data) -> None:
    counted = {p["source"] for p in data.posts if not p.get("are_views_estimated")}
    assert _estimated(data) and counted  # else the tests below could not fail


@pytest.mark.parametrize(
    "question",
    [
        "Which platform has the highest engagement rate?",
        "Which source gets the most views?",
        "median views by platform",
        "average engagement rate per source",
        "top posts by views",
        "What is the mean number of views?",
        "What's the engagement rate?",
        "Compare the sources",
    ],
)
def test_cross_source_views_and_engagement_rate_name_the_estimated_sources(
    data: Data, question: str
) -> None:
    text = data.ask(question)
    assert NOTE in text, text
    note = next(line for line in text.splitlines() if NOTE in line)
    assert f"views of {', '.join(_estimated(data))} posts are estimated" in note


def test_a_ranking_by_views_marks_the_estimated_rows(data: Data) -> None:
    text = data.ask("top 20 posts by views")
    ranked = re.findall(r"^\d+\. .*\(on (\w+)(, views estimated)?\)", text, re.M)
    assert len(ranked) == 20, text
    assert {source for source, _ in ranked} & set(_estimated(data)), "nothing to mark"
    for source, flagged in ranked:
        assert bool(flagged) == (source in _estimated(data)), (source, flagged)


@pytest.mark.parametrize(
    "question",
    [
        "views of tiktok posts",
        "median views of tiktok posts",
        "top tiktok posts by views",
        "How does sentiment split by source?",
        "How many posts per source?",
        "How many posts have more than 1000 views?",
    ],
)
def test_one_source_or_no_view_figure_gets_no_note(data: Data, question: str) -> None:
    assert NOTE not in data.ask(question)
