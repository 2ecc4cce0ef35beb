"""Ask never gives a figure for a wider scope as the answer (issue 35, the invariant).

A word of a question the reader cannot map is named. On the figure path no figure is
given for the scope without it (what was read is stated, with the offer to ask again
without the word); an analysis of the scope without it comes only under a "without
'<word>'" label. The property test splices unknown words (letters no post and no
vocabulary has, plain or as a hashtag) into the condition slot of figure and analysis
questions over every path (counts, statistics, shares, groupings, rankings, listings,
analyses) and checks, on each reply: the word is named, and no figure is stated before
the label. One case runs the same over real HTTP.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import httpx
from eval_support import ask_over_http, collect, read_all
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.assistant import Reply, Scope, answer

OAT = Scope("ds_oat", "Oat milk", ("oat milk",))
_SOURCES = ("reddit", "tiktok", "instagram")
_MOODS = ("positive", "negative", "neutral")
_TEXTS = (
    "The foam collapses and the price is terrible",
    "Great foam and a fair price, love it #barista",
    "Price went up again, too expensive now @oatly",
    "Silky foam every morning, Alpro cannot compete",
    "Is the price worth it? Honest question",
)


def _post(number: int) -> dict[str, Any]:
    mood = _MOODS[number % 3]
    scores = {"positive": "0.1", "neutral": "0.1", "negative": "0.1"} | {mood: "0.8"}
    likes = 7 * number % 50
    return {
        "source": _SOURCES[number % 3],
        "id": f"p{number}",
        "text": _TEXTS[number % len(_TEXTS)],
        "content_type": "ad" if number % 7 == 0 else "organic",
        "author": {"title": f"Author {number % 4}"},
        "num_views": 100 * number,
        "num_likes": likes,
        "num_comments": number % 5,
        "num_shares": number % 3,
        "engagement_rate": f"{likes / (100 * number):.4f}",
        "sentiment": scores,
        "created_at": int(datetime(2026, 1 + number % 6, 1 + number % 27, tzinfo=UTC).timestamp()),
        "datasets": [{"id": OAT.id, "name": OAT.name}],
    }


POSTS = [_post(number) for number in range(1, 41)]

QUESTIONS = (
    "How many {w} posts are there?",
    "How many {w} posts on TikTok?",
    "How many negative posts are {w}?",
    "What is the average number of likes of {w} posts?",
    "median views of {w} posts on reddit",
    "what share of {w} posts are negative",
    "Which source has the most {w} posts?",
    "How does sentiment split among {w} posts?",
    "Top 3 posts by likes among {w} posts",
    "How many distinct authors wrote {w} posts?",
    "Show me {w} posts",
    "What do people complain about in {w} posts?",
    "How many posts from {w} authors?",
    "Count posts per month for {w} posts",
)
# Consonants only: no English or dataset word is one edit away, so no repair applies.
_UNREAD = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=6, max_size=10)
_FIGURE = re.compile(r"\*\*-?[\d,.]+%?\*\*|^\|")


def _dominant(scores: dict[str, str] | None) -> str | None:
    """The wire filter's sentiment label: the largest share, a tie going to neutral."""
    if not scores:
        return None
    values = {label: float(value) for label, value in scores.items()}
    return max(values, key=lambda label: (values[label], label == "neutral"))


def unlabelled(reply: Reply, word: str) -> list[str]:
    """What breaks the invariant in ``reply`` to a question with ``word`` spliced in."""
    text = reply.text
    if word.lstrip("#").lower() not in text.lower():
        return [f"{word!r} dropped in silence"]
    named = re.search(rf"did not understand [^\n]*'{re.escape(word.lstrip('#').lower())}", text)
    if named is None:  # read: then the read-as line says how
        read_as = text.split("\n", 1)[0]
        return [] if word.lstrip("#").lower() in read_as.lower() else ["read, not said how"]
    label = f"without '{word.lstrip('#').lower()}'"
    lines = text.splitlines()
    figures = [i for i, line in enumerate(lines) if _FIGURE.search(line)]
    labelled = [i for i, line in enumerate(lines) if label in line.lower()]
    if figures and (not labelled or figures[0] < labelled[0]):
        return [f"a figure before the {label!r} label: {lines[figures[0]]!r}"]
    return []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(QUESTIONS), _UNREAD, st.booleans())
def test_no_unlabelled_figure_comes_back_for_an_unread_condition(
    question: str, word: str, hashtag: bool
) -> None:
    said = f"#{word}" if hashtag else word
    reply = answer(question.format(w=said), POSTS, [OAT])
    assert unlabelled(reply, word) == [], reply.text


def test_the_reply_says_what_was_read_and_gives_no_figure() -> None:
    reply = answer("How many zqrtvx posts on TikTok?", POSTS, [OAT])
    lines = reply.text.splitlines()
    assert "source is tiktok" in lines[0], reply.text  # what was read
    assert "did not understand 'zqrtvx'" in lines[1], reply.text
    assert "I give no figure" in lines[1] and "without 'zqrtvx'" in lines[1], reply.text
    tiktok = sum(1 for post in POSTS if post["source"] == "tiktok")
    assert f"**{tiktok}**" not in reply.text and "posts match" not in reply.text, reply.text
    assert reply.figures["unknown"] == ["zqrtvx"] and reply.figures["n"] is None


def test_a_grouped_question_gives_no_table() -> None:
    reply = answer("Which source has the most zqrtvx posts?", POSTS, [OAT])
    assert "grouped by source" in reply.text.splitlines()[0], reply.text
    assert "|---|" not in reply.text and not reply.blocks[1:], reply.text


def test_over_http_an_unread_condition_gets_no_unlabelled_figure(sandbox: SandboxHandle) -> None:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "oat milk", 120)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        text = ask_over_http(http, "How many qwxzrt posts are negative?", None, dataset_id)["text"]
    negative = sum(1 for post in posts if _dominant(post.get("sentiment")) == "negative")
    lines = text.splitlines()
    assert "sentiment is negative" in lines[0] and "did not understand 'qwxzrt'" in lines[1], text
    assert f"**{negative:,}**" not in text and "posts match" not in text, text
