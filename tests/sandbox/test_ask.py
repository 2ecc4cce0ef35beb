"""The assistant (Ask + chats): the pure answer engine, then the sandbox over real HTTP.

Figures quoted by answers are checked against numbers the tests compute themselves from
the same posts; every cited post must exist in the data and every marker must follow the
spec's reference rule.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import httpx
import pytest

from rdskit import Client
from rdskit.answers import Answer
from rdskit.references import check_references
from rdskit.sandbox import SandboxHandle, assistant
from rdskit.sandbox.assistant import Related, Scope
from rdskit.sandbox.enrichment import dominant, score_text

OAT = Scope("ds_oat", "Oat milk")
SOY = Scope("ds_soy", "Soy drinks")


def _post(
    number: int,
    text: str,
    *,
    source: str = "reddit",
    month: int = 1,
    mood: str = "positive",
    views: int = 100,
    likes: int = 10,
    dataset: Scope = OAT,
) -> dict[str, Any]:
    scores = {"positive": "0.1", "neutral": "0.1", "negative": "0.1"}
    scores[mood] = "0.8"
    return {
        "source": source,
        "id": f"p{number}",
        "url": f"https://{source}.example/p{number}",
        "text": text,
        "author": {"title": f"author [{number}]"},  # brackets in labels must not break links
        "num_views": views,
        "num_likes": likes,
        "num_comments": number,
        "num_shares": 1,
        "sentiment": scores,
        "created_at": int(datetime(2026, month, 5 + number % 20, tzinfo=UTC).timestamp()),
        "datasets": [{"id": dataset.id, "name": dataset.name}],
    }


CORPUS = [
    _post(
        1, "The battery of this frother dies fast, battery life is poor", mood="negative", views=900
    ),
    _post(2, "Oat latte foam is silky and the price is fair", views=1500, likes=80),
    _post(3, "Price went up again, too expensive now", mood="negative", month=2, source="tiktok"),
    _post(4, "Battery lasts a week, great foam every morning", month=2, views=300, likes=55),
    _post(5, "Neutral take: it is a milk alternative", mood="neutral", month=3, source="tiktok"),
    _post(6, "Foam collapses quickly [sic] with this brand", mood="negative", month=3, views=40),
    _post(7, "Love the barista edition foam 😍 𝔣𝔬𝔞𝔪", month=3, source="tiktok", views=2500),
    _post(8, "Soy is cheaper than oat", dataset=SOY, source="youtube", views=700),
]


def _answer(question: str, **options: Any) -> assistant.Reply:
    reply = assistant.answer(question, CORPUS, [OAT, SOY], **options)
    assert check_references(reply.text, reply.references) == []
    known = {(post["source"], post["id"]) for post in CORPUS}
    cited = [(ref["source"], ref["id"]) for ref in reply.references if ref["type"] == "post"]
    assert set(cited) <= known
    assert set(cited) <= set(reply.posts)  # only analysed posts are cited
    return reply


def _month(post: dict[str, Any]) -> str:
    return datetime.fromtimestamp(post["created_at"], UTC).strftime("%Y-%m")


def _dataset_refs(reply: assistant.Reply) -> set[str]:
    return {ref["id"] for ref in reply.references if ref["type"] == "dataset"}


def _label(post: dict[str, Any]) -> str:
    """The largest sentiment share; a tie goes to neutral."""
    scores = {label: float(value) for label, value in post["sentiment"].items()}
    return max(scores, key=lambda label: (scores[label], label == "neutral"))


def test_sentiment_split_matches_an_independent_count() -> None:
    reply = _answer("How does sentiment split in Oat milk?")
    oat = [post for post in CORPUS if post["datasets"][0]["id"] == OAT.id]
    expected = Counter(_label(post) for post in oat)
    assert reply.intent == "sentiment"
    for label in ("positive", "neutral", "negative"):
        share = f"{100 * expected[label] / len(oat):.1f}%"
        assert f"**{expected[label]}** {label} ({share})" in reply.text
    assert f"out of **{len(oat)}** posts" in reply.text
    assert _dataset_refs(reply) == {OAT.id}  # the question names one dataset


def test_top_posts_by_views_rank_like_a_sort() -> None:
    reply = _answer("What are the top 3 posts by views?")
    expected = sorted(CORPUS, key=lambda post: -post["num_views"])[:3]
    ranked = re.findall(r"^(\d)\. .*?\*\*([\d,]+)\*\* views .*\[(\d+)\]$", reply.text, re.M)
    assert [int(views.replace(",", "")) for _, views, _ in ranked] == [
        post["num_views"] for post in expected
    ]
    by_citation = {
        ref["citation"]: (ref["source"], ref["id"])
        for ref in reply.references
        if ref["type"] == "post"
    }
    assert [by_citation[int(n)] for _, _, n in ranked] == [(p["source"], p["id"]) for p in expected]
    assert _dataset_refs(reply) == {OAT.id, SOY.id}


def test_themes_quote_posts_about_the_topic() -> None:
    reply = _answer("What do people say about the battery?")
    about = [post for post in CORPUS if "battery" in post["text"].lower()]
    assert reply.intent == "themes"
    assert f"_Based on {len(about)} posts in datasets" in reply.text
    assert sorted(reply.posts) == sorted((p["source"], p["id"]) for p in about)
    assert any(ref["type"] == "post" for ref in reply.references)


def test_compare_sources_counts_each_group() -> None:
    reply = _answer("Compare reddit vs tiktok")
    for source in ("reddit", "tiktok"):
        count = sum(post["source"] == source for post in CORPUS)
        assert f"- **{source}**: **{count}** posts," in reply.text
    assert "youtube" not in reply.text.split("Most engaging")[0]


def test_compare_datasets_when_the_scope_has_two() -> None:
    reply = _answer("Compare the datasets")
    assert reply.figures["by"] == "dataset"
    assert f"- **{SOY.name}**: **1** post," in reply.text


def test_trend_by_month_counts_each_period() -> None:
    reply = _answer("How did the volume change over time?")
    months = Counter(_month(post) for post in CORPUS)
    table = dict(re.findall(r"^\| (2026-\d\d) \| (\d+) \|", reply.text, re.M))
    assert {month: int(count) for month, count in table.items()} == dict(months)


def test_no_matching_posts_is_said_plainly() -> None:
    reply = _answer("What do people say about unicorns?")
    assert reply.text.startswith(f"None of the {len(CORPUS)} posts")
    assert '"unicorn"' in reply.text
    assert not [ref for ref in reply.references if ref["type"] == "post"]


def test_no_dataset_and_unknown_dataset_are_said_plainly() -> None:
    empty = assistant.answer("What do people say?", [], [])
    assert "no datasets yet" in empty.text and empty.references == []
    unknown = assistant.answer("What do people say?", [], [], unknown_dataset_ids=["ds_nope"])
    assert "`ds_nope`" in unknown.text


def test_post_refs_focus_and_follow_up_topic() -> None:
    focused = _answer("How does sentiment split?", post_refs=[{"source": "reddit", "id": "p1"}])
    assert focused.posts == [("reddit", "p1")]
    follow = _answer("And how does sentiment split?", previous_questions=["What about battery?"])
    assert "continuing the earlier topic" in follow.text
    assert set(follow.posts) == {("reddit", "p1"), ("reddit", "p4")}


def test_related_entities_are_cited_when_asked_about() -> None:
    pattern = Related("pattern", "pt_1", "Pattern: foam complaints", "pattern")
    reply = _answer("Which patterns were found about foam?", related=[pattern])
    assert {"type": "pattern", "id": "pt_1"} in reply.references
    plain = _answer("What about foam?", related=[pattern])
    assert {"type": "pattern", "id": "pt_1"} not in plain.references


def test_missing_enrichment_is_scored_like_the_enrichment() -> None:
    bare = [{**CORPUS[0], "sentiment": None, "text": "I love it, amazing foam"}]
    reply = assistant.answer("sentiment?", bare, [OAT])
    assert dominant(score_text(bare[0]["text"])) == "positive"
    assert "**1** positive (100.0%)" in reply.text


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Compare TikTok versus Reddit", "compare"),
        ("What changed week over week?", "trend"),
        ("Most viewed posts", "top"),
        ("How do people feel about it?", "sentiment"),
        ("What are people saying?", "themes"),
    ],
)
def test_intent_detection(question: str, intent: str) -> None:
    assert assistant.detect_intent(question) == intent


def test_billing_helpers_and_chat_name() -> None:
    assert assistant.count_tokens("Hi, there!") == 4
    assert assistant.inference_cost(100) == assistant.ASSISTANT_USD_PER_TOKEN * 100
    assert assistant.chat_name("What do people say about oat milk prices?") == "Oat milk price"


# --- over real HTTP against a started sandbox ------------------------------------------------

Reply = tuple[dict[str, Any], dict[str, Any]]


@dataclass
class Corpus:
    """A module-wide account with one collected dataset and its posts as the API lists them."""

    account_id: str
    http: httpx.Client
    dataset_id: str
    posts: list[dict[str, Any]]

    def keys(self) -> set[tuple[str, str]]:
        return {(post["source"], post["id"]) for post in self.posts}


def _all_mentions(http: httpx.Client, dataset_id: str) -> list[dict[str, Any]]:
    posts: list[dict[str, Any]] = []
    body: dict[str, Any] = {"dataset_ids": [dataset_id], "limit": 100}
    while True:
        page = http.post("/v1/mentions", json=body).json()
        posts += page["data"]
        if not page["has_next"]:
            return posts
        body["cursor"] = page["cursor"]


def _data(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()["data"]


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error_code"] == code, body
    return body


def _collect(http: httpx.Client, name: str, count: int) -> str:
    """A dataset with one completed run of ``count`` posts (sentiment analysed); its id."""
    dataset = _data(http.post("/v1/datasets", json={"name": name}))
    search = {"type": "prompt", "sources": ["reddit", "tiktok", "youtube"], "search_query": name}
    body = {"search_query": search, "count": count, "content_analysis_actions": ["sentiment"]}
    run = _data(http.post(f"/v1/datasets/{dataset['id']}/runs", json=body))
    deadline = time.monotonic() + 30
    path = f"/v1/datasets/{dataset['id']}/runs/{run['id']}"
    while (status := _data(http.get(path))["status"]["type"]) not in ("completed", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert status == "completed"
    return str(dataset["id"])


@pytest.fixture(scope="module")
def corpus(sandbox: SandboxHandle) -> Iterator[Corpus]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as http:
        dataset_id = _collect(http, "oat milk", 60)
        posts = _all_mentions(http, dataset_id)
        assert len(posts) > 20
        yield Corpus(created.account_id, http, dataset_id, posts)


def _ask(http: httpx.Client, message: str, **body: Any) -> Reply:
    """POST /v1/ask, then poll the reply until it is no longer working."""
    accepted = _data(http.post("/v1/ask", json={"message": message, **body}), 202)
    assert accepted.keys() == {"chat_id", "message_id", "status"}  # never the reply itself
    assert accepted["status"] == "working"
    path = f"/v1/chats/{accepted['chat_id']}/messages/{accepted['message_id']}"
    deadline = time.monotonic() + 30
    while (reply := _data(http.get(path)))["status"] == "working":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert reply["status"] == "completed" and reply["role"] == "assistant"
    return accepted, reply


def _check_citations(reply: dict[str, Any], corpus: Corpus) -> list[tuple[str, str]]:
    """Markers follow the spec rule and every cited post is a post of the dataset."""
    assert check_references(reply["text"], reply["references"]) == []
    cited = [(r["source"], r["id"]) for r in reply["references"] if r["type"] == "post"]
    assert cited and set(cited) <= corpus.keys()
    assert {"type": "dataset", "id": corpus.dataset_id} in reply["references"]
    return cited


def test_sentiment_answer_quotes_the_dataset_figures(corpus: Corpus) -> None:
    _, reply = _ask(
        corpus.http, "How does sentiment split?", context={"dataset_ids": [corpus.dataset_id]}
    )
    _check_citations(reply, corpus)
    counts = Counter(_label(post) for post in corpus.posts)
    total = len(corpus.posts)
    for label in ("positive", "neutral", "negative"):
        assert f"**{counts[label]}** {label} ({100 * counts[label] / total:.1f}%)" in reply["text"]


def test_top_posts_answer_ranks_by_views(corpus: Corpus) -> None:
    _, reply = _ask(
        corpus.http,
        "What are the top 5 posts by views?",
        context={"dataset_ids": [corpus.dataset_id]},
    )
    cited = _check_citations(reply, corpus)
    expected = sorted(corpus.posts, key=lambda p: (-p["num_views"], p["source"], p["id"]))[:5]
    assert cited == [(p["source"], p["id"]) for p in expected]
    quoted = [
        int(v.replace(",", ""))
        for v in re.findall(r"^\d\. .*?\*\*([\d,]+)\*\* views", reply["text"], re.M)
    ]
    assert quoted == [p["num_views"] for p in expected]


def test_trend_answer_counts_posts_per_month(corpus: Corpus) -> None:
    _, reply = _ask(
        corpus.http,
        "How did the volume change by month?",
        context={"dataset_ids": [corpus.dataset_id]},
    )
    _check_citations(reply, corpus)
    months = Counter(_month(post) for post in corpus.posts)
    table = re.findall(r"^\| (\d{4}-\d\d) \| ([\d,]+) \|", reply["text"], re.M)
    assert {month: int(count) for month, count in table} == dict(months)


def test_follow_up_continues_the_chat_and_names_it(corpus: Corpus) -> None:
    http = corpus.http
    first = "What do people say about the texture of oat milk?"
    accepted, _ = _ask(http, first, context={"dataset_ids": [corpus.dataset_id]})
    chat_path = f"/v1/chats/{accepted['chat_id']}"
    assert _data(http.get(chat_path))["name"] is None  # one turn: not named yet
    again, follow = _ask(http, "And how does sentiment split?", chat_id=accepted["chat_id"])
    assert again["chat_id"] == accepted["chat_id"]
    chat = _data(http.get(chat_path))
    assert chat["name"] == assistant.chat_name(first)
    assert chat["tracking_agent_id"] is None and isinstance(chat["created_at"], int)

    newest_first = http.get(f"{chat_path}/messages").json()
    assert [row["role"] for row in newest_first["data"]] == [
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert newest_first["data"][0]["id"] == again["message_id"]
    oldest_first = _data(http.get(f"{chat_path}/messages", params={"order": "asc"}))
    assert [row["text"] for row in oldest_first if row["role"] == "user"] == [
        first,
        "And how does sentiment split?",
    ]
    assert oldest_first[0]["context"] == {"dataset_ids": [corpus.dataset_id]}
    assert oldest_first[3]["references"] == follow["references"]

    seen, cursor = [], None
    while True:  # one row per page, walking the cursor
        page = http.get(
            f"{chat_path}/messages",
            params={"limit": 1, "order": "asc", **({"cursor": cursor} if cursor else {})},
        ).json()
        seen += [row["id"] for row in page["data"]]
        if not page["has_next"]:
            break
        cursor = page["cursor"]
    assert seen == [row["id"] for row in oldest_first]
    _error(http.get(f"{chat_path}/messages", params={"cursor": "garbage"}), 400, "invalid_cursor")
    assert http.get(f"{chat_path}/messages", params={"limit": 101}).status_code == 422


def test_chat_is_private_to_the_seat_that_created_it(
    sandbox: SandboxHandle, corpus: Corpus, connect: Any
) -> None:
    seat = sandbox.admin.create_seat(corpus.account_id, email="member@example.test")
    member = connect(sandbox, sandbox.admin.create_key(seat))
    accepted, _ = _ask(member, "What do people say?")
    owner = corpus.http
    chat = f"/v1/chats/{accepted['chat_id']}"
    for response in (
        owner.get(chat),
        owner.get(f"{chat}/messages"),
        owner.get(f"{chat}/messages/{accepted['message_id']}"),
        owner.post("/v1/ask", json={"message": "hi", "chat_id": accepted["chat_id"]}),
        member.get("/v1/chats/ch_unknown"),
    ):
        _error(response, 404, "chat_not_found")
    assert _data(member.get(chat))["id"] == accepted["chat_id"]


def test_spent_balance_is_402_with_no_turn_and_no_charge(new_account: Any) -> None:
    account = new_account(wallet_usd="0")
    body = _error(
        account.http.post("/v1/ask", json={"message": "How does sentiment split?"}),
        402,
        "insufficient_credits_ask",
    )
    assert Decimal(body["detail"]["available"]) == 0 and Decimal(body["detail"]["required"]) > 0
    assert _data(account.http.get("/v1/me/usage_history")) == []


def test_admin_switch_makes_ask_fail(sandbox: SandboxHandle, account: Any) -> None:
    for failure, status in (("ai_assistant_unavailable", 503), ("ai_assistant_timeout", 504)):
        sandbox.admin.set_assistant_failure(account.account_id, failure)
        body = _error(account.http.post("/v1/ask", json={"message": "hi"}), status, failure)
        assert body["transient"] is True
    sandbox.admin.set_assistant_failure(account.account_id, None)
    _, reply = _ask(account.http, "What do people say?")
    assert "no datasets yet" in reply["text"]  # said plainly, with no references
    assert reply["references"] == []


def test_each_reply_is_charged_as_ai_assistant_usage(account: Any) -> None:
    question = "How does sentiment split?"
    _, reply = _ask(account.http, question, context={"dataset_ids": ["ds_missing"]})
    assert "`ds_missing`" in reply["text"]
    tokens = assistant.count_tokens(
        question, json.dumps({"dataset_ids": ["ds_missing"]}, separators=(",", ":")), reply["text"]
    )
    rows = _data(account.http.get("/v1/me/usage_history"))
    assert [row["category"] for row in rows] == ["ai_assistant"]
    assert Decimal(str(rows[0]["quantity"])) == assistant.inference_cost(tokens)


def test_post_refs_focus_the_answer_and_are_capped_at_50(corpus: Corpus) -> None:
    http = corpus.http
    refs = [{"source": p["source"], "id": p["id"]} for p in corpus.posts]
    assert (
        http.post(
            "/v1/ask", json={"message": "hi", "context": {"post_refs": (refs * 51)[:51]}}
        ).status_code
        == 422
    )
    chosen = refs[:3]
    _, reply = _ask(
        http,
        "How does sentiment split?",
        context={"dataset_ids": [corpus.dataset_id], "post_refs": chosen},
    )
    cited = _check_citations(reply, corpus)
    assert set(cited) <= {(r["source"], r["id"]) for r in chosen}
    assert "out of **3** posts" in reply["text"]


def test_client_answer_end_to_end(sandbox: SandboxHandle, corpus: Corpus) -> None:
    key = corpus.http.headers["x-api-key"]
    with Client(key, base_url=sandbox.url) as client:
        turn = client.ask("What are the top 3 posts by likes?", dataset_ids=[corpus.dataset_id])
        answer = turn.wait(timeout=30, poll_interval=0.02)
        assert isinstance(answer, Answer) and answer.problems() == []
        frame = answer.posts()
        expected = sorted(corpus.posts, key=lambda p: (-p["num_likes"], p["source"], p["id"]))[:3]
        assert list(frame["citation"]) == [1, 2, 3]
        assert list(zip(frame["source"], frame["id"], strict=True)) == [
            (p["source"], p["id"]) for p in expected
        ]
        linked = answer.to_markdown()
        assert all(f"[[{n}]]({p['url']})" in linked for n, p in enumerate(expected, start=1))
        (dataset,) = [answer.resolve(ref) for ref in answer.entity_references]
        assert dataset.id == corpus.dataset_id and dataset.name == "oat milk"
        follow = answer.follow_up("And how does sentiment split?").wait(poll_interval=0.02)
        assert follow.chat_id == answer.chat_id and follow.message_id != answer.message_id
        assert client.chats.get(answer.chat_id).name == "Top posts"
