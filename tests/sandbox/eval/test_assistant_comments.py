"""Comment questions over real HTTP (issue kdates 4): "comments asking how much it cost"
is a question a commenter asks about the price ("How much did you pay?"), not the words of
the question searched as written; the figure is checked against pandas over the comments
``POST /v1/mentions`` returns. "How many posts ..." counts the posts with such a comment,
"how many comments ..." the comments themselves (issue kfix 3), out of those collected."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pandas as pd
import pytest
from eval_support import ask_over_http, collect, read_all

from rdskit.sandbox import SandboxHandle

# How commenters ask about a price, or where to buy, written here independently of the
# assistant's words.
PRICE = re.compile(r"\b(?:price|pricing|cost|pay|paid|how much|expensive|cheap|overpriced)")
WHERE_TO_BUY = re.compile(r"\bwhere (?:\w+ ){0,3}(?:buy|bought|get|got|find)\b")


@pytest.fixture(scope="module")
def oat(sandbox: SandboxHandle) -> Iterator[tuple[httpx.Client, str, pd.DataFrame]]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "oat milk", 300)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        rows = [
            {
                "id": p["id"],
                "source": p["source"],
                "num_comments": p.get("num_comments") or 0,
                "body": str(c.get("body") or "").lower(),
            }
            for p in posts
            for c in p.get("comments") or []
        ]
        yield http, dataset_id, pd.DataFrame(rows)


def _figure(text: str) -> int:
    return int(re.search(r"\*\*(\d+)\*\* posts? match", text)[1])  # type: ignore[index]


@pytest.mark.parametrize(
    "question",
    ["how many posts have comments asking about the price",
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


_COMMENTS = re.compile(
    r"\*\*(\d+)\*\* comments? match, on (\d+) posts? \(.*? of the (\d+) comments"
)


def _comment_figures(text: str) -> tuple[int, int, int]:
    """(comments counted, posts holding them, comments collected) of a count of comments."""
    found = _COMMENTS.search(text)
    assert found, text
    return int(found[1]), int(found[2]), int(found[3])


@pytest.mark.parametrize(
    ("question", "subject"),
    [("How many comments ask how much it costs?", PRICE),
     ("How many comments asking how much it cost?", PRICE),
     ("How many comments are asking where to buy it?", WHERE_TO_BUY),
     ("What is the number of comments that ask where you can buy it?", WHERE_TO_BUY)],
)  # fmt: skip
def test_how_many_comments_counts_comments(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, subject: re.Pattern[str]
) -> None:
    http, dataset_id, comments = oat
    asking = comments[comments["body"].str.contains("?", regex=False)]
    matching = asking[asking["body"].str.contains(subject)]
    # More comments than posts: a count of posts would be a different number.
    assert len(matching) > matching["id"].nunique() > 0
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _comment_figures(text) == (len(matching), matching["id"].nunique(), len(comments))
    assert "count of the comments that ask a question" in text, text  # the read-as line
    assert "posts match" not in text and "did not understand" not in text, text
    # The rest of the posts' comments were never collected: the answer says so.
    total = int(comments.drop_duplicates("id")["num_comments"].sum())
    assert f"these posts count {total:,} comments in all" in text, text


def test_a_follow_up_counts_comments_again(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, comments = oat
    first = ask_over_http(http, "How many comments ask how much it costs?", None, dataset_id)
    text = ask_over_http(http, "And on TikTok?", first["chat_id"], dataset_id)["text"]
    tiktok = comments[comments["source"] == "tiktok"]
    asking = tiktok[tiktok["body"].str.contains("?", regex=False)]
    matching = asking[asking["body"].str.contains(PRICE)]
    assert _comment_figures(text) == (len(matching), matching["id"].nunique(), len(tiktok))
    assert "posts where source is tiktok" in text, text


def test_comments_by_source_are_counted_per_source(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, comments = oat
    question = "How many comments ask how much it costs, by source?"
    text = ask_over_http(http, question, None, dataset_id)["text"]
    asking = comments[comments["body"].str.contains("?", regex=False)]
    matching = asking[asking["body"].str.contains(PRICE)]
    assert "| source | comments | posts with one |" in text, text
    for source, group in matching.groupby("source"):
        assert f"| {source} | {len(group)} | {group['id'].nunique()} |" in text, text
