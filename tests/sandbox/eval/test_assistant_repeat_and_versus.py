"""Fresh figure questions that were answered with a confident wrong figure: "how many
authors posted more than once" counted every author, and "views on YouTube vs TikTok" pooled
the two platforms into one mean. Each figure is checked against pandas over the posts
``POST /v1/mentions`` returns, over real HTTP."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pandas as pd
import pytest
from eval_support import ask_over_http, collect, read_all

from rdskit.sandbox import SandboxHandle


@pytest.fixture(scope="module")
def oat(sandbox: SandboxHandle) -> Iterator[tuple[httpx.Client, str, pd.DataFrame]]:
    created = sandbox.admin.create_account(plan="Pro")
    with httpx.Client(
        base_url=sandbox.url, headers={"x-api-key": created.api_key}, timeout=60
    ) as http:
        dataset_id = collect(http, "oat milk", 300)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        frame = pd.DataFrame(
            {
                "source": p["source"],
                # An author is their profile link, else their name (the Mention's author).
                "author": (p.get("author") or {}).get("title_url")
                or (p.get("author") or {}).get("title"),
                "views": p.get("num_views"),
                "likes": p.get("num_likes"),
            }
            for p in posts
        )
        yield http, dataset_id, frame


@pytest.mark.parametrize(
    ("question", "least", "source"),
    [("How many authors posted more than once?", 2, None),
     ("How many distinct authors have at least 3 posts?", 3, None),
     ("How many creators posted multiple times on Instagram?", 2, "instagram"),
     ("How many authors posted more than 2 times?", 3, None)],
)  # fmt: skip
def test_authors_who_posted_often_are_counted_out_of_all_authors(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, least: int, source: str | None
) -> None:
    http, dataset_id, posts = oat
    scope = posts if source is None else posts[posts["source"] == source]
    per_author = scope["author"].value_counts()
    often = int((per_author >= least).sum())
    assert 0 < often < len(per_author)  # the two readings differ here
    text = ask_over_http(http, question, None, dataset_id)["text"]
    found = re.search(
        r"\*\*([\d,]+)\*\* of the ([\d,]+) distinct authors wrote at least (\d+)", text
    )
    assert found, text
    assert (int(found[1]), int(found[2]), int(found[3])) == (often, len(per_author), least)
    assert "did not understand" not in text, text


@pytest.mark.parametrize(
    ("question", "metric", "statistic", "sources"),
    [("Average views per post on YouTube vs TikTok?", "views", "mean", ("youtube", "tiktok")),
     ("Median likes on Reddit compared to Instagram", "likes", "median", ("reddit", "instagram"))],
)  # fmt: skip
def test_a_comparison_gives_one_figure_per_value_compared(
    oat: tuple[httpx.Client, str, pd.DataFrame],
    question: str,
    metric: str,
    statistic: str,
    sources: tuple[str, str],
) -> None:
    http, dataset_id, posts = oat
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert "grouped by source" in text and "did not understand" not in text, text
    rows = re.findall(r"^\| (\w+) \| ([\d,.]+) \| (\d+) \|$", text, re.MULTILINE)
    assert {source for source, _, _ in rows} == set(sources), text
    for source, value, n in rows:
        values = posts.loc[posts["source"] == source, metric].dropna()
        expected = values.mean() if statistic == "mean" else values.median()
        assert float(value.replace(",", "")) == pytest.approx(expected, abs=0.01), source
        assert int(n) == len(values), source
