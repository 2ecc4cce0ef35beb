"""Capabilities of the reader (issue 35), each asked over real HTTP in several languages
and checked against pandas over the posts ``POST /v1/mentions`` returns, on a dataset of
this file's own ("cold brew", 150 posts over three sources):

- the spec's composite engagement (likes + comments + shares; "interactions") is summed,
  never read as one of its parts;
- a one-letter slip a context settles ("more then 1000 views") keeps its condition.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pandas as pd
import pytest
from eval_support import ask_over_http, collect, read_all

from rdskit.sandbox import SandboxHandle


@pytest.fixture(scope="module")
def brew(sandbox: SandboxHandle) -> Iterator[tuple[httpx.Client, str, pd.DataFrame]]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "cold brew", 150, sources=("reddit", "tiktok", "youtube"))
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        frame = pd.DataFrame(
            {
                "source": p["source"],
                "views": p.get("num_views"),
                "likes": p.get("num_likes"),
                "comments": p.get("num_comments"),
                "shares": p.get("num_shares"),
            }
            for p in posts
        )
        yield http, dataset_id, frame


def _figure(text: str) -> float:
    found = re.search(r"is \*\*(-?[\d,.]+)\*\*", text)
    assert found, text
    return float(found[1].replace(",", ""))


@pytest.mark.parametrize(
    ("question", "source"),
    [
        ("What is the total engagement (likes + comments + shares)?", None),
        ("How many interactions did the TikTok posts get in total?", "tiktok"),
        ("Quel est l'engagement total des publications ?", None),
        ("Combien d'interactions ont les publications TikTok au total ?", "tiktok"),
        ("Wie hoch ist das gesamte Engagement aller Beiträge?", None),
        ("¿Cuántas interacciones tienen las publicaciones en total?", None),
        ("Qual é o engajamento total das publicações?", None),
    ],
)
def test_engagement_is_likes_plus_comments_plus_shares(
    brew: tuple[httpx.Client, str, pd.DataFrame], question: str, source: str | None
) -> None:
    http, dataset_id, posts = brew
    scope = posts if source is None else posts[posts["source"] == source]
    parts = scope[["likes", "comments", "shares"]]
    want = parts.sum(axis=1, min_count=1).sum()
    assert want != scope["comments"].sum()  # the part the old reading answered with
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert "engagement (likes + comments + shares)" in text.splitlines()[0], text
    assert "did not understand" not in text, text
    assert _figure(text) == want


@pytest.mark.parametrize(
    "question",
    ["How many posts have more then 1000 views?", "how many posts with views more then 1000"],
)
def test_more_then_is_more_than(
    brew: tuple[httpx.Client, str, pd.DataFrame], question: str
) -> None:
    http, dataset_id, posts = brew
    want = int((posts["views"] > 1000).sum())
    assert 0 < want < len(posts)  # the condition matters here
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert "did not understand" not in text, text
    found = re.search(r"\*\*([\d,]+)\*\* posts? match", text)
    assert found and int(found[1].replace(",", "")) == want, text
