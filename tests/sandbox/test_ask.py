"""The assistant (Ask + chats): the pure answer engine, then the sandbox over real HTTP.

Figures quoted by answers are checked against numbers the tests compute themselves from
the posts (``POST /v1/mentions`` over HTTP), with the documented rules: a post's text is
its title and text; its sentiment is the largest share of ``sentiment`` (ties to neutral),
or the enrichment lexicon's verdict on its text when it was never analysed; a theme
covers the posts naming it as a whole word. Every cited post must exist in the data and
every marker must follow the spec's reference rule.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from itertools import pairwise
from typing import Any

import httpx
import pytest

from rdskit import Client
from rdskit.answers import Answer
from rdskit.mcp import McpSession
from rdskit.references import check_references
from rdskit.sandbox import SandboxHandle, assistant
from rdskit.sandbox.assistant import Related, Scope, Turn
from rdskit.sandbox.synth.enrichment import score_text

OAT = Scope("ds_oat", "Oat milk")
SOY = Scope("ds_soy", "Soy drinks")
SOURCES = ["reddit", "tiktok", "youtube", "instagram", "linkedin"]


def _post(
    number: int,
    text: str,
    *,
    source: str = "reddit",
    month: int = 1,
    mood: str | None = "positive",
    views: int = 100,
    likes: int = 10,
    dataset: Scope = OAT,
) -> dict[str, Any]:
    post: dict[str, Any] = {
        "source": source,
        "id": f"p{number}",
        "url": f"https://{source}.example/p{number}",
        "text": text,
        "author": {"title": f"author [{number}]"},  # brackets in labels must not break links
        "num_views": views,
        "num_likes": likes,
        "num_comments": number,
        "num_shares": 1,
        "created_at": int(datetime(2026, month, 5 + number % 20, tzinfo=UTC).timestamp()),
        "datasets": [{"id": dataset.id, "name": dataset.name}],
    }
    if mood is not None:  # None: never analysed, scored from the text
        scores = {"positive": "0.1", "neutral": "0.1", "negative": "0.1"}
        post["sentiment"] = scores | {mood: "0.8"}
    return post


CORPUS = [
    _post(1, "The foam collapses in seconds, the foam is awful", mood="negative", views=900),
    _post(2, "Oat latte foam is silky and the price is fair", views=1500, likes=80),
    _post(3, "Price went up again, too expensive now", mood="negative", month=2, source="tiktok"),
    _post(4, "Great foam every morning, no complaints at all.", month=2, views=300, mood=None),
    _post(5, "Neutral take: it is a milk alternative", mood="neutral", month=3, source="tiktok"),
    _post(6, "The packaging leaks [sic] with this brand", mood="negative", month=3, views=40),
    _post(7, "Love the barista edition foam 😍 𝔣𝔬𝔞𝔪", month=3, source="tiktok", views=2500),
    _post(8, "Soy is cheaper than Oatly", dataset=SOY, source="youtube", views=700),
]


def _answer(question: str, **options: Any) -> assistant.Reply:
    reply = assistant.answer(question, CORPUS, [OAT, SOY], **options)
    assert check_references(reply.text, reply.references) == []
    known = {(post["source"], post["id"]) for post in CORPUS}
    cited = [(ref["source"], ref["id"]) for ref in reply.references if ref["type"] == "post"]
    assert set(cited) <= known
    assert set(cited) <= set(reply.posts)  # only analysed posts are cited
    return reply


def _text(post: dict[str, Any]) -> str:
    title, text = post.get("title") or "", post.get("text") or ""
    return f"{title}\n{text}" if title else text


def _label(post: dict[str, Any]) -> str:
    """The largest sentiment share (a tie goes to neutral); the lexicon when not analysed."""
    scores = post.get("sentiment") or score_text(_text(post))
    values = {label: float(value) for label, value in scores.items()}
    return max(values, key=lambda label: (values[label], label == "neutral"))


def _names(post: dict[str, Any], theme: str) -> bool:
    """Whether the post names ``theme`` as a whole word (an aspect may be plural)."""
    return re.search(rf"(?<!\w){re.escape(theme)}s?(?!\w)", _text(post), re.I) is not None


def _month(post: dict[str, Any]) -> str:
    return datetime.fromtimestamp(post["created_at"], UTC).strftime("%Y-%m")


def _share(part: int, total: int) -> str:
    return f"{100 * part / total:.1f}%"


def _dataset_refs(reply: assistant.Reply) -> set[str]:
    return {ref["id"] for ref in reply.references if ref["type"] == "dataset"}


def _table(text: str, title: str) -> list[list[str]]:
    """The rows of the markdown table under ``**title**``, cells as strings."""
    block = text.split(f"**{title}**\n\n", 1)[1].split("\n\n", 1)[0]
    return [
        [cell.strip() for cell in line.strip("|").split("|")] for line in block.splitlines()[2:]
    ]


def _int(cell: str) -> int:
    return int(cell.replace(",", ""))


# --- the pure engine -------------------------------------------------------------------------


def test_sentiment_split_matches_an_independent_count() -> None:
    reply = _answer("How does sentiment split in Oat milk?")
    oat = [post for post in CORPUS if post["datasets"][0]["id"] == OAT.id]
    expected = Counter(_label(post) for post in oat)
    assert reply.intent == "sentiment"
    for label in ("positive", "neutral", "negative"):
        assert f"**{expected[label]}** {label} ({_share(expected[label], len(oat))})" in reply.text
    assert f"out of **{len(oat)}** posts" in reply.text
    assert _dataset_refs(reply) == {OAT.id}  # the question names one dataset
    assert "Sentiment analysis did not run on 1 post" in reply.text  # post 4


def test_top_posts_by_views_rank_like_a_sort() -> None:
    reply = _answer("What are the top 3 posts by views?")
    expected = sorted(CORPUS, key=lambda post: -post["num_views"])[:3]
    ranked = re.findall(r"^(\d)\. .*?\*\*([\d,]+)\*\* views .*\[(\d+)\]$", reply.text, re.M)
    assert [_int(views) for _, views, _ in ranked] == [post["num_views"] for post in expected]
    by_citation = {
        r["citation"]: (r["source"], r["id"]) for r in reply.references if "citation" in r
    }
    assert [by_citation[int(n)] for _, _, n in ranked] == [(p["source"], p["id"]) for p in expected]
    assert _dataset_refs(reply) == {OAT.id, SOY.id}


def test_themes_are_aspects_never_the_question_or_search_words() -> None:
    reply = _answer("What do people say?")
    assert reply.intent == "topics"
    rows = {row[0]: row for row in _table(reply.text, "Themes")}
    assert set(rows) == {"foam", "price"}  # "milk", "oat", "people", "say" are no themes
    foam = [post for post in CORPUS if _names(post, "foam")]
    assert _int(rows["foam"][1]) == len(foam)
    moods = [str(sum(_label(p) == mood for p in foam)) for mood in ("positive", "negative")]
    assert rows["foam"][3:] == moods
    assert "**Oatly** (1 post)" in reply.text  # brands are listed apart
    searched = Scope(OAT.id, OAT.name, ("oat milk foam",))
    own = assistant.answer("What do people say about the price?", CORPUS, [searched, SOY])
    assert "foam" not in own.figures["themes"] and "price" not in own.figures["themes"]


def test_complaints_are_negative_posts_never_no_complaints() -> None:
    reply = _answer("What do people complain about?")
    negative = [post for post in CORPUS if _label(post) == "negative"]
    assert reply.intent == "complaints"
    assert f"**{len(negative)}** of the {len(CORPUS)} posts" in reply.text
    cited = {(r["source"], r["id"]) for r in reply.references if r["type"] == "post"}
    assert cited == {(p["source"], p["id"]) for p in negative}
    assert ("reddit", "p4") not in cited  # "no complaints at all" reads as positive
    rows = {row[0]: row for row in _table(reply.text, "Complaints")}
    assert _int(rows["foam"][1]) == sum(_names(p, "foam") for p in negative)
    assert _int(rows["foam"][3]) == sum(_names(p, "foam") for p in CORPUS)


def test_compare_sources_counts_each_group() -> None:
    reply = _answer("Compare reddit vs tiktok")
    for source in ("reddit", "tiktok"):
        count = sum(post["source"] == source for post in CORPUS)
        assert f"- **{source}**: **{count}** posts" in reply.text
    assert "youtube" not in reply.text.split("Most engaging")[0]


def test_compare_datasets_when_the_scope_has_two() -> None:
    reply = _answer("Compare the datasets")
    assert reply.figures["by"] == "dataset"
    assert f"- **{SOY.name}**: **1** post (12.5%)" in reply.text


def test_trend_fills_empty_periods_and_names_the_biggest_change() -> None:
    reply = _answer("How did the volume change by month?")
    months = Counter(_month(post) for post in CORPUS)
    table = {row[0]: _int(row[1]) for row in _table(reply.text, "Posts and sentiment by month")}
    assert table == dict(months)
    steps = list(pairwise(sorted(table)))
    before, after = max(steps, key=lambda s: (abs(table[s[1]] - table[s[0]]), s[1]))
    assert f"from {before} to {after}: **{table[before]}** → **{table[after]}** posts" in reply.text


def test_narrowing_steps_that_empty_the_posts_are_said_plainly() -> None:
    unicorns = _answer("What do people say about unicorns?")
    assert unicorns.text.startswith(f"None of the {len(CORPUS)} posts")
    assert '"unicorn"' in unicorns.text and "Overview of" in unicorns.text  # never a dead end
    linkedin = _answer("Top posts on linkedin")
    assert "no posts from linkedin" in linkedin.text
    assert "Overview of" in linkedin.text  # never a dead end


def test_no_dataset_and_unknown_dataset_are_said_plainly() -> None:
    empty = assistant.answer("What do people say?", [], [])
    assert "no datasets yet" in empty.text and empty.references == []
    unknown = assistant.answer("What do people say?", [], [], unknown_dataset_ids=["ds_nope"])
    assert "`ds_nope`" in unknown.text


def test_post_refs_focus_and_follow_ups() -> None:
    focused = _answer("How does sentiment split?", post_refs=[{"source": "reddit", "id": "p1"}])
    assert focused.posts == [("reddit", "p1")]
    follow = _answer("And how does sentiment split?", history=[Turn("What about the foam?")])
    assert "continuing the previous question" in follow.text
    assert set(follow.posts) == {(p["source"], p["id"]) for p in CORPUS if _names(p, "foam")}
    tiktok = _answer("and on tiktok only?", history=[Turn("What do people complain about?")])
    assert tiktok.intent == "complaints"
    assert {source for source, _ in tiktok.posts} == {"tiktok"}
    chosen = [{"source": "reddit", "id": "p2"}]
    again = _answer("Top posts among these posts?", history=[Turn("hi", None, chosen)])
    assert again.posts == [("reddit", "p2")]


def test_pick_datasets_follows_context_names_and_earlier_turns() -> None:
    both = [OAT, SOY]
    assert assistant.pick_datasets([Turn("What do people say?")], both) == (both, [])
    assert assistant.pick_datasets([Turn("Top posts in Soy drinks")], both) == ([SOY], [])
    turns = [Turn("hi", [OAT.id, "ds_gone"]), Turn("and sentiment?")]
    assert assistant.pick_datasets(turns[:1], both) == ([OAT], ["ds_gone"])
    assert assistant.pick_datasets(turns, both) == ([OAT], [])  # kept, reported once
    gone = [Turn("hi", ["ds_gone"]), Turn("and sentiment?")]  # none found: still none
    assert assistant.pick_datasets(gone, both) == ([], ["ds_gone"])
    assert assistant.pick_datasets([Turn("hi")], both, default=[SOY.id]) == ([SOY], [])


def test_related_entities_are_cited_when_asked_about() -> None:
    pattern = Related("pattern", "pt_1", "Pattern “Foam”", "patterns", ("**Foam**: 3 posts.",))
    reply = _answer("Which patterns were found?", related=[pattern])
    assert {"type": "pattern", "id": "pt_1"} in reply.references and "**Foam**" in reply.text
    plain = _answer("What about foam?", related=[pattern])
    assert {"type": "pattern", "id": "pt_1"} not in plain.references
    none = _answer("Tell me about the audience", related=[pattern])
    assert "No audience dataset" in none.text


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Compare TikTok versus Reddit", "compare"),
        ("Which platform is most positive?", "compare"),
        ("What changed week over week?", "trend"),
        ("Have complaints increased lately?", "trend"),
        ("Most viewed posts", "top"),
        ("Show me the most negative posts", "top"),
        ("How do people feel about it?", "sentiment"),
        ("What are people saying?", "topics"),
        ("What are the top themes?", "topics"),
        ("What do people complain about?", "complaints"),
        ("What are the main gripes?", "complaints"),
        ("What don't people like?", "complaints"),
        ("What's wrong with it?", "complaints"),
        ("What do people like about it?", "praise"),
        ("What do fans love most?", "praise"),
        ("Who posts the most?", "authors"),
        ("Who complains the most?", "authors"),
        ("What questions do people ask?", "questions"),
        ("Which hooks work best?", "hooks"),
        ("Which calls to action do they use?", "ctas"),
        ("Which competitors come up?", "brands"),
        ("Summarize this", "overview"),
        ("hello", "help"),
        ("Which patterns were found?", "patterns"),
        ("Who is the audience?", "audience"),
    ],
)
def test_intent_detection(question: str, intent: str) -> None:
    assert assistant.detect_intent(question) == intent


def test_billing_helpers_and_chat_name() -> None:
    assert assistant.count_tokens("Hi, there!") == 4
    assert assistant.inference_cost(100) == assistant.ASSISTANT_USD_PER_TOKEN * 100
    name = assistant.chat_name("What do people complain about regarding oat milk prices?")
    assert name == "Complaints about oat milk price"
    assert assistant.chat_name("And the prices of oat milk?", ["oat milk"]) == (
        "What people say about price"
    )


# --- over real HTTP against a started sandbox ------------------------------------------------

Reply = tuple[dict[str, Any], dict[str, Any]]


@dataclass
class Corpus:
    """A module-wide account with one analysed dataset and its posts as the API lists them."""

    account_id: str
    http: httpx.Client
    dataset_id: str
    posts: list[dict[str, Any]]

    def keys(self) -> set[tuple[str, str]]:
        return {(post["source"], post["id"]) for post in self.posts}


def _all_mentions(http: httpx.Client, dataset_id: str, **query: Any) -> list[dict[str, Any]]:
    """Every post of the dataset through ``POST /v1/mentions`` (``query`` adds fields)."""
    posts: list[dict[str, Any]] = []
    body: dict[str, Any] = {"dataset_ids": [dataset_id], "limit": 100, **query}
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


def _until(check: Callable[[], Any], timeout: float = 30) -> Any:
    """Poll ``check`` until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
    return found


def _collect(http: httpx.Client, name: str, count: int, actions: Sequence[str]) -> str:
    """A dataset with one completed run of ``count`` posts about ``name``; its id."""
    dataset = _data(http.post("/v1/datasets", json={"name": name}))
    search = {"type": "prompt", "sources": SOURCES, "search_query": name}
    body = {"search_query": search, "count": count, "content_analysis_actions": list(actions)}
    run = _data(http.post(f"/v1/datasets/{dataset['id']}/runs", json=body))
    path = f"/v1/datasets/{dataset['id']}/runs/{run['id']}"

    def finished() -> str | None:
        status: str = _data(http.get(path))["status"]["type"]
        return status if status in ("completed", "failed") else None

    assert _until(finished) == "completed"
    return str(dataset["id"])


@pytest.fixture(scope="module")
def corpus(sandbox: SandboxHandle) -> Iterator[Corpus]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as http:
        dataset_id = _collect(http, "oat milk", 120, ["sentiment", "hook", "cta"])
        posts = _all_mentions(http, dataset_id)
        assert len(posts) == 120
        yield Corpus(created.account_id, http, dataset_id, posts)


def _ask(http: httpx.Client, message: str, **body: Any) -> Reply:
    """POST /v1/ask, then poll the reply until it is no longer working."""
    accepted = _data(http.post("/v1/ask", json={"message": message, **body}), 202)
    assert accepted.keys() == {"chat_id", "message_id", "status"}  # never the reply itself
    assert accepted["status"] == "working"
    path = f"/v1/chats/{accepted['chat_id']}/messages/{accepted['message_id']}"

    def answered() -> dict[str, Any] | None:
        row: dict[str, Any] = _data(http.get(path))
        return row if row["status"] != "working" else None

    reply = _until(answered)
    assert reply["status"] == "completed" and reply["role"] == "assistant"
    return accepted, reply


def _cited(reply: dict[str, Any], posts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Markers follow the spec rule; the cited posts, each one a post of ``posts``."""
    assert check_references(reply["text"], reply["references"]) == []
    by_key = {(post["source"], post["id"]): post for post in posts}
    cited = [(r["source"], r["id"]) for r in reply["references"] if r["type"] == "post"]
    assert cited and set(cited) <= set(by_key)
    return [by_key[post] for post in cited]


def _in_dataset(corpus: Corpus, message: str) -> Reply:
    return _ask(corpus.http, message, context={"dataset_ids": [corpus.dataset_id]})


def test_three_questions_cite_real_posts_with_figures_that_match_the_data(corpus: Corpus) -> None:
    posts, total = corpus.posts, len(corpus.posts)
    dataset_ref = {"type": "dataset", "id": corpus.dataset_id}
    opinions = posts  # one ads policy per chat, ads in unless the chat leaves them out

    _, split = _in_dataset(corpus, "How does sentiment split?")
    _cited(split, opinions)
    assert dataset_ref in split["references"]
    counts = Counter(map(_label, opinions))
    for label in ("positive", "neutral", "negative"):
        share = _share(counts[label], len(opinions))
        assert f"**{counts[label]}** {label} ({share})" in split["text"]

    _, top = _in_dataset(corpus, "What are the top 5 posts by views?")
    expected = sorted(posts, key=lambda p: (-p["num_views"], p["source"], p["id"]))[:5]
    assert _cited(top, posts) == expected
    quoted = re.findall(r"^\d\. .*?\*\*([\d,]+)\*\* views", top["text"], re.M)
    assert [_int(views) for views in quoted] == [p["num_views"] for p in expected]

    _, themes = _in_dataset(corpus, "What do people say about it?")
    _cited(themes, opinions)
    posts, total = opinions, len(opinions)
    rows = _table(themes["text"], "Themes")
    assert len(rows) >= 3 and [_int(r[1]) for r in rows] == sorted((_int(r[1]) for r in rows),
                                                                   reverse=True)  # fmt: skip
    for theme, count, share, positive, negative in rows:
        assert not {"oat", "milk", "people", "say"} & set(theme.split())
        about = [post for post in posts if _names(post, theme)]
        assert (_int(count), share) == (len(about), _share(len(about), total))
        assert (_int(positive), _int(negative)) == (
            sum(_label(p) == "positive" for p in about),
            sum(_label(p) == "negative" for p in about),
        )


def _check_complaints(reply: dict[str, Any], posts: Sequence[dict[str, Any]]) -> None:
    negative = [post for post in posts if _label(post) == "negative"]
    assert f"**{len(negative)}** of the {len(posts)} posts" in reply["text"]
    cited = _cited(reply, posts)
    assert all(_label(post) == "negative" for post in cited)
    assert not any("no complaints" in _text(post).lower() for post in cited)
    for theme, complaints, _, about, _ in _table(reply["text"], "Complaints"):
        assert _int(complaints) == sum(_names(post, theme) for post in negative)
        assert _int(about) == sum(_names(post, theme) for post in posts)


def test_complaints_never_cite_no_complaints(
    corpus: Corpus, new_account: Callable[..., Any]
) -> None:
    assert any("no complaints" in _text(post).lower() for post in corpus.posts)  # a real trap
    _, reply = _in_dataset(corpus, "What do people complain about?")
    _check_complaints(reply, corpus.posts)

    bare = new_account()  # a fresh account: its posts never had sentiment analysis
    dataset_id = _collect(bare.http, "oat milk", 40, [])
    posts = _all_mentions(bare.http, dataset_id)
    assert not any(post.get("sentiment") for post in posts)
    _, reply = _ask(bare.http, "What are the main complaints?")
    _check_complaints(reply, posts)
    assert f"Sentiment analysis did not run on {len(posts)} posts" in reply["text"]


def test_time_change_by_month_matches_the_data(corpus: Corpus) -> None:
    _, reply = _in_dataset(corpus, "How did the volume change by month?")
    _cited(reply, corpus.posts)
    months = Counter(map(_month, corpus.posts))
    table = {row[0]: _int(row[1]) for row in _table(reply["text"], "Posts and sentiment by month")}
    assert {month: n for month, n in table.items() if n} == dict(months)
    steps = list(pairwise(sorted(table)))
    before, after = max(steps, key=lambda s: (abs(table[s[1]] - table[s[0]]), s[1]))
    change = f"from {before} to {after}: **{table[before]}** → **{table[after]}** posts"
    assert change in reply["text"]


def test_source_comparison_matches_the_data(corpus: Corpus) -> None:
    _, reply = _in_dataset(corpus, "Compare reddit and tiktok")
    _cited(reply, corpus.posts)
    pair = [post for post in corpus.posts if post["source"] in ("reddit", "tiktok")]
    for source in ("reddit", "tiktok"):
        group = [post for post in pair if post["source"] == source]
        labels = Counter(map(_label, group))
        engagement = sum(p["num_likes"] + p["num_comments"] + p["num_shares"] for p in group)
        line = (
            f"- **{source}**: **{len(group)}** posts ({_share(len(group), len(pair))}), average "
            f"engagement **{engagement / len(group):,.1f}**, "
            f"**{sum(p['num_views'] for p in group):,}** views, "
            f"{_share(labels['positive'], len(group))} positive, "
            f"{_share(labels['negative'], len(group))} negative"
        )
        assert line in reply["text"]
    assert "**youtube**" not in reply["text"]


def test_follow_up_keeps_the_dataset_and_narrows_by_source(corpus: Corpus) -> None:
    accepted, _ = _in_dataset(corpus, "What do people complain about?")
    _, reply = _ask(corpus.http, "and on tiktok only?", chat_id=accepted["chat_id"])
    tiktok = [post for post in corpus.posts if post["source"] == "tiktok"]
    _check_complaints(reply, tiktok)
    assert {"type": "dataset", "id": corpus.dataset_id} in reply["references"]


def test_post_refs_focus_the_answer_and_are_capped_at_50(corpus: Corpus) -> None:
    http = corpus.http
    refs = [{"source": p["source"], "id": p["id"]} for p in corpus.posts]
    too_many = {"message": "hi", "context": {"post_refs": (refs * 51)[:51]}}
    assert http.post("/v1/ask", json=too_many).status_code == 422
    chosen = refs[:3]
    context = {"dataset_ids": [corpus.dataset_id], "post_refs": chosen}
    accepted, reply = _ask(http, "How does sentiment split?", context=context)
    keys = {(r["source"], r["id"]) for r in chosen}
    assert {(p["source"], p["id"]) for p in _cited(reply, corpus.posts)} <= keys
    assert "out of **3** posts" in reply["text"]
    _, again = _ask(http, "What are the top posts among these posts?", chat_id=accepted["chat_id"])
    assert {(p["source"], p["id"]) for p in _cited(again, corpus.posts)} == keys
    assert "limited to the 3 posts selected earlier" in again["text"]


def test_no_dataset_is_said_plainly(account: Any) -> None:
    _, reply = _ask(account.http, "What do people complain about?")
    assert "no datasets yet" in reply["text"] and reply["references"] == []
    _, reply = _ask(account.http, "Top posts?", context={"dataset_ids": ["ds_missing"]})
    assert "`ds_missing`" in reply["text"] and reply["references"] == []


def test_chat_is_named_after_the_second_turn(corpus: Corpus) -> None:
    http = corpus.http
    first = "What do people complain about regarding the price?"
    accepted, _ = _in_dataset(corpus, first)
    chat_path = f"/v1/chats/{accepted['chat_id']}"
    assert _data(http.get(chat_path))["name"] is None  # one turn: not named yet
    again, follow = _ask(http, "And how does sentiment split?", chat_id=accepted["chat_id"])
    assert again["chat_id"] == accepted["chat_id"]
    chat = _data(http.get(chat_path))
    assert chat["name"] == "Complaints about price"
    assert chat["tracking_agent_id"] is None and isinstance(chat["created_at"], int)
    _ask(http, "Who are the top authors?", chat_id=accepted["chat_id"])
    assert _data(http.get(chat_path))["name"] == "Complaints about price"  # named once

    newest_first = http.get(f"{chat_path}/messages").json()
    assert [row["role"] for row in newest_first["data"]] == ["assistant", "user"] * 3
    oldest_first = _data(http.get(f"{chat_path}/messages", params={"order": "asc"}))
    assert oldest_first[0]["context"] == {"dataset_ids": [corpus.dataset_id]}
    assert oldest_first[3]["references"] == follow["references"]
    assert oldest_first[2]["text"] == "And how does sentiment split?"
    seen, cursor = [], None
    while True:  # one row per page, walking the cursor
        params = {"limit": 1, "order": "asc", **({"cursor": cursor} if cursor else {})}
        page = http.get(f"{chat_path}/messages", params=params).json()
        seen += [row["id"] for row in page["data"]]
        if not page["has_next"]:
            break
        cursor = page["cursor"]
    assert seen == [row["id"] for row in oldest_first]
    _error(http.get(f"{chat_path}/messages", params={"cursor": "garbage"}), 400, "invalid_cursor")
    assert http.get(f"{chat_path}/messages", params={"limit": 101}).status_code == 422


def test_tracking_alerts_open_a_dialogue_for_the_creating_seat(
    sandbox: SandboxHandle, new_account: Callable[..., Any], connect: Any
) -> None:
    owner = new_account()
    http = owner.http
    dataset_id = _collect(http, "cold brew", 20, ["sentiment"])
    agent = _data(
        http.post(
            "/v1/tracking_agents",
            json={"name": "Brew watch", "instructions": "", "dataset_ids": [dataset_id],
                  "count": 15, "num_comments_per_post": 0,
                  "schedule": {"frequency": "daily", "time": "09:00"}},
        )
    )  # fmt: skip
    cycle = _data(http.post(f"/v1/tracking_agents/{agent['id']}/trigger"))
    path = f"/v1/tracking_agents/{agent['id']}/messages"
    (alert,) = _until(lambda: _data(http.get(path)))
    chat_path = f"/v1/chats/{alert['chat_id']}"
    chat = _data(http.get(chat_path))
    assert (chat["tracking_agent_id"], chat["name"]) == (agent["id"], "Brew watch")
    (row,) = _data(http.get(f"{chat_path}/messages"))
    assert row["role"] == "assistant" and row["status"] == "completed"
    assert (row["text"], row["references"]) == (alert["text"], alert["references"])

    _, reply = _ask(http, "What's new?", chat_id=alert["chat_id"])
    posts = _all_mentions(http, dataset_id)
    cited = _cited(reply, posts)
    assert f"limited to the {alert['new_mention_count']} posts of the latest alert" in reply["text"]
    assert all(post["dataset_run_at"] >= cycle["created_at"] for post in cited)  # the new posts
    assert {"type": "dataset", "id": dataset_id} in reply["references"]

    seat = sandbox.admin.create_seat(owner.account_id, email="teammate@example.test")
    teammate = connect(sandbox, sandbox.admin.create_key(seat))
    _error(teammate.get(chat_path), 404, "chat_not_found")
    _error(teammate.post("/v1/ask", json={"message": "hi", "chat_id": alert["chat_id"]}), 404,
           "chat_not_found")  # fmt: skip


def test_answers_about_patterns_and_audiences_cite_them(corpus: Corpus) -> None:
    http = corpus.http
    detection = _data(
        http.post(
            "/v1/pattern_detections",
            json={"dataset_id": corpus.dataset_id, "name": "Pains",
                  "research_question": "What do people complain about?"},
        )
    )  # fmt: skip
    run_path = f"/v1/pattern_detections/{detection['run_id']}"
    pattern_id = _until(lambda: _data(http.get(run_path)).get("pattern_id"))
    pattern = _data(http.get(f"/v1/patterns/{pattern_id}"))
    _, reply = _in_dataset(corpus, "Which patterns were found?")
    _cited(reply, corpus.posts)  # each item's most typical post
    assert {"type": "pattern", "id": pattern_id} in reply["references"]
    assert {"type": "pattern_detection_run", "id": detection["run_id"]} in reply["references"]
    assert all(f"**{item['title']}**: {item['post_count']} posts" in reply["text"]
               for item in pattern["items"])  # fmt: skip

    audience = _data(http.post("/v1/audience_datasets", json={"name": "Brew fans"}))
    base = f"/v1/audience_datasets/{audience['id']}"
    run = _data(http.post(f"{base}/runs", json={"source_dataset_id": corpus.dataset_id,
                                                "total_profile_count": 10}))  # fmt: skip
    _until(lambda: _data(http.get(f"{base}/runs/{run['id']}"))["status"]["type"] == "completed")
    profiles = _data(http.get(base))["profile_count"]
    _, reply = _in_dataset(corpus, "Who is the audience of this dataset?")
    assert {"type": "audience_dataset", "id": audience["id"]} in reply["references"]
    assert f"“Brew fans”: {profiles} profiles" in reply["text"]
    assert check_references(reply["text"], reply["references"]) == []


def test_answers_about_custom_parameters_and_previews_cite_them(corpus: Corpus) -> None:
    http = corpus.http
    brand = {"name": "Rival", "value_type": "string",
             "instructions": "Which brand is named? One of: Alpro, Oatly, Silk"}  # fmt: skip
    parameter = _data(http.post("/v1/custom_parameters", json=brand))
    scope = {"scope": {"kind": "dataset", "id": corpus.dataset_id}}
    runs = f"/v1/custom_parameters/{parameter['id']}/runs"
    run_id = _data(http.post(runs, json=scope))["run_id"]
    _until(lambda: _data(http.get(f"{runs}/{run_id}"))["status"]["type"] == "completed")
    extracted = [
        post["parameters"][parameter["id"]]
        for post in _all_mentions(http, corpus.dataset_id, parameter_ids=[parameter["id"]])
    ]
    values = Counter(
        str(item["value"]) for item in extracted if item["status"] == "completed" and item["value"]
    )
    _, reply = _in_dataset(corpus, "What did the custom parameter extract?")
    assert {"type": "custom_parameter_run", "id": run_id} in reply["references"]
    value, count = values.most_common(1)[0]
    assert f"{value}: {count} posts" in reply["text"]

    preview = _data(
        http.post(
            "/v1/research_previews",
            json={"type": "prompt", "search_query": "oat milk", "sources": ["reddit"],
                  "time_filter": "past_month"},
        )
    )  # fmt: skip
    _, reply = _ask(http, "Which research previews did I run?")
    assert {"type": "research_preview", "id": preview["preview_id"]} in reply["references"]
    estimate = preview["estimated_number_of_results"]
    assert f"about {estimate} results" in reply["text"]


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
        assert _data(account.http.get("/v1/me/usage_history")) == []  # nothing charged
    sandbox.admin.set_assistant_failure(account.account_id, None)
    _, reply = _ask(account.http, "What do people say?")
    assert "no datasets yet" in reply["text"]


def test_each_reply_is_charged_as_ai_assistant_usage(account: Any) -> None:
    # (A reply naming only datasets the account cannot see is free: see below.)
    question = "How does sentiment split?"
    _, reply = _ask(account.http, question)
    tokens = assistant.count_tokens(question, json.dumps({}), reply["text"])
    rows = _data(account.http.get("/v1/me/usage_history"))
    assert [row["category"] for row in rows] == ["ai_assistant"]
    assert Decimal(str(rows[0]["quantity"])) == assistant.inference_cost(tokens)


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
        assert client.chats.get(answer.chat_id).name == "Top posts in oat milk"


def test_words_that_leave_ads_out_are_the_policy_not_the_topic() -> None:
    # "Leaving ads out" sets the chat's ads policy; read as a topic it once answered about
    # ads, or filtered to the ads alone.
    with_ad = [{**CORPUS[0], "content_type": "ad"}, *CORPUS[1:]]
    organic = [post for post in with_ad if post.get("content_type") != "ad"]
    for question in (
        "Leaving ads out: how does sentiment split?",
        "How does sentiment split? Leave ads out.",
        "Without ads, how does sentiment split?",
    ):
        reply = assistant.answer(question, with_ad, [OAT, SOY])
        assert reply.intent == "sentiment", (question, reply.intent)
        assert "ads and advertisers" not in reply.text.lower(), question
        assert "ads only" not in reply.text, question
        assert f"out of **{len(organic)}** posts" in reply.text, question


def test_a_grouped_count_has_one_column_of_posts() -> None:
    reply = _answer("How many negative posts per month?")
    header = next(line for line in reply.text.splitlines() if line.startswith("| month"))
    assert header == "| month | posts |"
    negative = [post for post in CORPUS if _label(post) == "negative"]
    rows = _table(reply.text, "Posts by month")
    assert sum(_int(count) for _, count in rows) == len(negative)


def test_the_overview_counts_the_posts_its_read_as_line_names() -> None:
    # It said "ads included" and then left the ads out of its sentiment figures.
    with_ad = [{**CORPUS[0], "content_type": "ad"}, *CORPUS[1:]]
    for question, posts in (
        ("Summarize the dataset", with_ad),
        ("Summarize the dataset without ads", with_ad[1:]),
    ):
        reply = assistant.answer(question, with_ad, [OAT, SOY])
        assert reply.intent == "overview", (question, reply.intent)
        counts = Counter(_label(post) for post in posts if post.get("sentiment"))
        assert f"**{counts['negative']:,}** negative" in reply.text, (question, reply.text)
        assert "left out of sentiment" not in reply.text


@pytest.mark.parametrize("span", ["10000 years", "100000000 days"])
def test_a_window_longer_than_the_calendar_counts_every_post_and_says_so(span: str) -> None:
    # It crashed the reply job: the start of the window was before year 1.
    reply = _answer(f"How many posts are in Oat milk in the last {span}?")
    oat = [post for post in CORPUS if post["datasets"][0]["id"] == OAT.id]
    assert f"**{len(oat)}** posts match" in reply.text
    assert "a start before the calendar's first year, so no post is outside it" in reply.text


def test_asking_about_another_accounts_dataset_charges_nothing(
    sandbox: SandboxHandle, corpus: Corpus
) -> None:
    """An Ask (REST, or MCP's ask and query tools) naming only a dataset the account cannot
    see reads nothing of its data, reveals nothing and charges nothing (it charged 0.021
    credits); nor does a follow-up in that chat (it said "This account has no datasets yet"
    and charged 0.028 credits)."""
    other = sandbox.admin.create_account(plan="Pro")
    with httpx.Client(base_url=sandbox.url, headers={"x-api-key": other.api_key},
                      timeout=30) as http:  # fmt: skip
        _collect(http, "cold brew", 20, [])  # the account has data of its own
        before = _data(http.get("/v1/me"))["usage"]["credits_used"]
        accepted, reply = _ask(http, "How does sentiment split?",
                               context={"dataset_ids": [corpus.dataset_id]})  # fmt: skip
        assert corpus.dataset_id in reply["text"] and "couldn't find" in reply["text"]
        assert reply["references"] == []
        _, follow_up = _ask(http, "And on reddit only?", chat_id=accepted["chat_id"])
        assert follow_up["text"] == reply["text"] and follow_up["references"] == []
        with McpSession(other.api_key, base_url=sandbox.url) as mcp:
            asked = mcp.call("ask", message="Top posts?", dataset_ids=[corpus.dataset_id])
            by_mcp = mcp.call("service__get_message", **asked)
            query = mcp.call("query", question="Top posts?", dataset_ids=[corpus.dataset_id])
        for said in (by_mcp, query):
            assert "couldn't find" in json.dumps(said) and corpus.dataset_id in json.dumps(said)
        assert query["references"] == []
        assert _data(http.get("/v1/me"))["usage"]["credits_used"] == before
        rows = _data(http.get("/v1/me/usage_history"))
        assert [row["category"] for row in rows] == ["mention"]  # the collection only
