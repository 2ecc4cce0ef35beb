"""Comment questions over real HTTP (issue kdates 4): "comments asking how much it cost"
is a question a commenter asks about the price ("How much did you pay?"), not the words of
the question searched as written; the figure is checked against pandas over the comments
``POST /v1/mentions`` returns."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pandas as pd
import pytest
from eval_support import ask_over_http, collect, read_all

from rdskit.sandbox import SandboxHandle

# How commenters ask about a price, written here independently of the assistant's words.
PRICE = re.compile(r"\b(?:price|pricing|cost|pay|paid|how much|expensive|cheap|overpriced)")


@pytest.fixture(scope="module")
def oat(sandbox: SandboxHandle) -> Iterator[tuple[httpx.Client, str, pd.DataFrame]]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "oat milk", 300)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        rows = [
            {"id": p["id"], "body": str(c.get("body") or "").lower()}
            for p in posts
            for c in p.get("comments") or []
        ]
        yield http, dataset_id, pd.DataFrame(rows)


def _figure(text: str) -> int:
    return int(re.search(r"\*\*(\d+)\*\* posts? match", text)[1])  # type: ignore[index]


@pytest.mark.parametrize(
    "question",
    ["How many comments asking how much it cost?",
     "how many posts have comments asking about the price",
     "How many posts got a comment asking what it costs?"],
)  # fmt: skip
def test_comments_asking_about_the_price(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str
) -> None:
    http, dataset_id, comments = oat
    asking = comments[comments["body"].str.contains("?", regex=False)]
    expected = asking[asking["body"].str.contains(PRICE)]["id"].nunique()
    assert expected > 0
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _figure(text) == expected, text
    assert "did not understand" not in text, text
