"""The assistant's planner and engine on edge cases, and hostile input over real HTTP.

- The planner: deterministic, time windows, instruction words of every language, clean
  text from hostile input, bounded time on a 50,000-character question.
- The engine: ads never quoted as opinions, multi-part replies number citations across
  sections by the spec's rule, follow-ups, never a dead end.
- Over HTTP: an empty message, 50,000 characters, emoji, lone surrogates and 51
  ``post_refs`` get 422 or an answer, never a 500; ``service__query`` (MCP) uses the same
  planner as REST Ask.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from eval_support import collect

from rdskit.mcp import McpSession, McpToolError
from rdskit.references import check_references
from rdskit.sandbox import SandboxHandle, assistant
from rdskit.sandbox.assistant import Scope, Turn
from rdskit.sandbox.assistant.frontend import clean
from rdskit.sandbox.assistant.intents import Vocabulary, plan

OAT = Scope("ds_oat", "Oat milk", ("oat milk",))


def _post(
    number: int,
    text: str,
    *,
    mood: str = "positive",
    day: int = 1,
    month: int = 3,
    source: str = "reddit",
    ad: bool = False,
    likes: int = 10,
) -> dict[str, Any]:
    scores = {"positive": "0.1", "neutral": "0.1", "negative": "0.1"} | {mood: "0.8"}
    post: dict[str, Any] = {
        "source": source,
        "id": f"p{number}",
        "text": text,
        "content_type": "ad" if ad else "organic",
        "author": {"title": f"Author {number}"},
        "num_views": 100 * number,
        "num_likes": likes,
        "num_comments": 1,
        "num_shares": 0,
        "engagement_rate": f"{likes / (100 * number):.4f}",
        "sentiment": scores,
        "created_at": int(datetime(2026, month, day, tzinfo=UTC).timestamp()),
        "datasets": [{"id": OAT.id, "name": OAT.name}],
        "comments": [
            {
                "id": f"c{number}",
                "author_name": "Sam",
                "body": "So true, the foam!",
                "num_likes": number,
            }
        ],
    }
    if ad:
        post["ad_meta"] = {
            "advertiser_name": "Oatly",
            "publisher_platforms": ["reddit"],
            "cta_text": "Shop now",
            "is_active": True,
        }
    return post


POSTS = [
    _post(1, "The foam collapses, awful foam and the price is terrible", mood="negative"),
    _post(2, "Great foam and a fair price, love it", day=5),
    _post(3, "Price went up again, too expensive now", mood="negative", month=1, source="tiktok"),
    _post(
        4,
        "Terrible other milks! Switch to Oatly, the foam never fails. Shop now",
        mood="negative",
        ad=True,
        likes=900,
    ),
    _post(5, "Silky foam every morning, Alpro cannot compete", month=2, source="tiktok"),
    _post(6, "Is the price worth it? Honest question", mood="neutral", month=2),
]


def _answer(question: str, **options: Any) -> assistant.Reply:
    reply = assistant.answer(question, POSTS, [OAT], **options)
    assert check_references(reply.text, reply.references) == []
    return reply


def _cited(reply: assistant.Reply) -> list[str]:
    return [ref["id"] for ref in reply.references if ref["type"] == "post"]


# --- the planner ----------

VOCAB = Vocabulary.of(POSTS, ["Oat milk", "oat milk"])


def test_plans_are_deterministic_and_typed() -> None:
    question = "Top 3 negative tiktok posts by likes in the last two weeks, and the complaints?"
    first, second = plan(question, VOCAB), plan(question, VOCAB)
    assert first == second
    top, complaints = first.intents
    assert (top.name, complaints.name) == ("top", "complaints")
    assert top.slots.limit == 3 and top.slots.metric == "likes"
    assert top.slots.sentiment == "negative" and top.slots.sources == ("tiktok",)
    assert top.slots.window_days == 14
    assert complaints.slots.sources == ("tiktok",)  # said once for the sentence


@pytest.mark.parametrize(
    ("question", "window", "since", "until"),
    [
        ("sentiment in the last three months", 90, None, None),
        ("posts since 2026-05-01", None, date(2026, 5, 1), None),
        ("posts between 2026-01-01 and 2026-01-31", None, date(2026, 1, 1), date(2026, 1, 31)),
        ("complaints in March", None, date(2026, 3, 1), date(2026, 3, 31)),
        ("complaints in December", None, date(2025, 12, 1), date(2025, 12, 31)),  # before newest
        ("top posts in 2025", None, date(2025, 1, 1), date(2025, 12, 31)),
        ("overview of yesterday", 1, None, None),
    ],
)
def test_time_windows(
    question: str, window: int | None, since: date | None, until: date | None
) -> None:
    slots = plan(question, VOCAB).intents[0].slots
    assert (slots.window_days, slots.since, slots.until) == (window, since, until)


@pytest.mark.parametrize(
    "question",
    [
        "Give me the exact count of posts, please",
        "Donne-moi le nombre exact de publications",
        "Dame el número exacto de publicaciones, por favor",
        "Gib mir bitte die genaue Anzahl der Beiträge",
        "Quero saber o número exato de publicações",
        "Write a short report for my boss",
        "Show me a list, quote them",
    ],
)
def test_instruction_words_are_never_terms(question: str) -> None:
    for intent in plan(question, VOCAB).intents:
        assert intent.slots.terms == () and intent.slots.missing == (), intent


def test_terms_come_from_the_data_by_stem_and_absent_ones_are_named() -> None:
    slots = plan("What do people say about prices and the foaming?", VOCAB).intents[0].slots
    assert set(slots.terms) == {"price", "foaming"}
    slots = plan("Any complaints about almonds?", VOCAB).intents[0].slots
    assert slots.terms == () and slots.missing == ("almond",)
    slots = plan('How many posts say "fair price"?', VOCAB).intents[0].slots
    assert slots.terms == ("fair price",)
    assert plan("Which posts mention Alpro?", VOCAB).intents[0].slots.brands == ("Alpro",)


def test_hostile_text_is_cleaned_and_planned_fast() -> None:
    assert clean("a\ud800b\x00c  d") == "a b c d"
    huge = "why " * 12_500  # 50,000 characters
    began = time.perf_counter()
    planned = plan(huge + "\ud83d", VOCAB)
    assert time.perf_counter() - began < 0.5
    assert planned.intents
    assert plan("🙂🙂🙂", VOCAB).names == ("overview",)
    assert not plan("🙂🙂🙂", VOCAB).understood


# --- the engine ----------


def test_one_ads_policy_per_chat_and_ads_are_reported_as_ads() -> None:
    """Ads are in every analysis of a chat unless a turn leaves them out; then they are out
    of every later analysis, and each answer says which (issue 23.4)."""
    sentiment = _answer("How does sentiment split?")
    assert sentiment.figures["total"] == len(POSTS) and "ads included" in sentiment.text
    count = _answer("How many posts are there?")
    assert count.figures["value"] == len(POSTS)
    out = [assistant.Turn("Leave the ads out of everything, please.")]
    sentiment = _answer("How does sentiment split?", history=out)
    assert sentiment.figures["total"] == len(POSTS) - 1 and "(1 ad left out)" in sentiment.text
    complaints = _answer("What do people complain about?", history=out)
    assert "p4" not in _cited(complaints)
    count = _answer("How many posts are there?", history=out)
    assert count.figures["value"] == len(POSTS) - 1 and "ads left out" in count.text
    ads = _answer("Are there any ads? Who runs them?")
    assert ads.plan is not None and ads.plan.names == ("ads",)
    assert _cited(ads) == ["p4"] and "**Oatly**" in ads.text


def test_multi_part_reply_numbers_citations_across_sections() -> None:
    reply = _answer("What are the top 2 posts by likes, and what do people complain about?")
    assert reply.plan is not None and reply.plan.names == ("top", "complaints")
    assert reply.text.count("### ") == 2
    ids = _cited(reply)
    assert len(ids) == len(set(ids))  # a post cited in both sections keeps one reference
    numbers = [ref["citation"] for ref in reply.references if ref["type"] == "post"]
    assert numbers == list(range(1, len(numbers) + 1))


def test_follow_ups_use_the_chat() -> None:
    history = [Turn("How does sentiment split?")]
    reply = _answer("And on TikTok?", history=history)
    assert reply.intent == "sentiment"
    assert set(_cited(reply)) <= {"p3", "p5"} and "from tiktok" in reply.text


def test_never_a_dead_end() -> None:
    unknown = _answer("blorp zint")  # not answered with an overview: examples instead
    assert "did not understand 'blorp zint'" in unknown.text and not _cited(unknown)
    assert "for example" in unknown.text
    absent = _answer("What do people say about almond?")
    assert 'mention "almond"' in absent.text and "Overview of" in absent.text
    assert _cited(absent)


def test_comments_are_quoted_with_the_post_they_answer() -> None:
    reply = _answer("What do commenters say?")
    assert "**6** comments on **6** posts" in reply.text
    assert '"So true, the foam!"' in reply.text


def test_report_has_several_sections() -> None:
    reply = _answer("Write a short report for my boss.")
    for title in (
        "Overview",
        "Sentiment split",
        "Complaints",
        "Praise",
        "Top posts",
        "Recommendations",
    ):
        assert f"#### {title}" in reply.text


# --- over HTTP ----------


@pytest.fixture(scope="module")
def account(sandbox: SandboxHandle) -> Iterator[tuple[str, httpx.Client, str]]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as http:
        dataset_id = collect(http, "cold brew", 30, sources=["reddit", "tiktok"], comments=0)
        yield created.api_key, http, dataset_id


def _reply(http: httpx.Client, accepted: dict[str, Any]) -> dict[str, Any]:
    path = f"/v1/chats/{accepted['chat_id']}/messages/{accepted['message_id']}"
    deadline = time.monotonic() + 30
    while (row := http.get(path).json()["data"])["status"] == "working":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return dict(row)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"message": ""}',
        b'{"message": "   "}',
        b'{"message": "' + b"why " * 12_500 + b'"}',
        '{"message": "🙂🙂🙂 🔥"}'.encode(),
        b'{"message": "top posts \\ud800 please"}',
        b'{"message": "\\udfff"}',
        b'{"message": "hi", "context": {"post_refs": ['
        + b", ".join(b'{"source": "reddit", "id": "%d"}' % n for n in range(51))
        + b"]}}",
    ],
)
def test_bad_input_is_422_or_an_answer_never_a_500(
    account: tuple[str, httpx.Client, str], raw: bytes
) -> None:
    _, http, _ = account
    response = http.post("/v1/ask", content=raw, headers={"content-type": "application/json"})
    assert response.status_code in (202, 422), response.text
    if response.status_code == 422:
        assert response.json()["detail"][0]["loc"][:2] == ["body", "message"] or (
            response.json()["detail"][0]["loc"][:3] == ["body", "context", "post_refs"]
        )
        return
    reply = _reply(http, response.json()["data"])
    assert reply["status"] == "completed" and reply["text"].strip()
    assert check_references(reply["text"], reply["references"]) == []


def test_fifty_post_refs_are_accepted(account: tuple[str, httpx.Client, str]) -> None:
    _, http, dataset_id = account
    posts = http.post("/v1/mentions", json={"dataset_ids": [dataset_id], "limit": 50}).json()
    refs = [{"source": p["source"], "id": p["id"]} for p in posts["data"]]
    body = {"message": "How does sentiment split?", "context": {"post_refs": refs}}
    response = http.post("/v1/ask", json=body)
    assert response.status_code == 202
    reply = _reply(http, response.json()["data"])
    assert "limited to the 30 posts you selected" in reply["text"]


def test_mcp_query_uses_the_same_planner(
    sandbox: SandboxHandle, account: tuple[str, httpx.Client, str]
) -> None:
    api_key, http, dataset_id = account
    question = "How many posts are negative? And which brands are mentioned?"
    with McpSession(api_key, base_url=sandbox.url) as session:
        answer = session.call("service__query", question=question, dataset_ids=[dataset_id])
        with pytest.raises(McpToolError) as caught:
            session.call("service__query", question="", dataset_ids=[dataset_id])
    assert caught.value.status == 422
    assert answer["text"].count("### ") == 2
    assert "### Count" in answer["text"] and "### Brands" in answer["text"]
    rest = http.post(
        "/v1/ask", json={"message": question, "context": {"dataset_ids": [dataset_id]}}
    )
    reply = _reply(http, rest.json()["data"])
    assert reply["text"] == answer["text"]
