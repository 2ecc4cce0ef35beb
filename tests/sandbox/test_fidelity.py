"""Mention fidelity: every field the spec lists is sent, null/empty decided per field;
``collections`` and ``speech_tempo`` produced; comments never erased by a later collection;
pagination ends on ``has_next`` (never on the last page's cursor)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rdskit import Client
from rdskit.sandbox import SandboxHandle, start

# Analysis results: filled only when the matching analyses ran (null otherwise).
ANALYSIS = [
    "summary",
    "category",
    "content_intention",
    "sentiment_score",
    "sentiment",
    "emotions",
    "tone_of_voice",
    "narrative_structure",
    "cta",
    "content_topics",
    "questions",
    "hooks",
    "vibe",
    "mentioned_brands",
    "entities",
]
# The spec's Mention table, field by field (Resources > Mention).
SPEC_FIELDS = [
    *[
        "source",
        "id",
        "content_type",
        "ad_meta",
        "ad_flight_days",
        "ad_flight_seconds",
        "author",
        "title",
        "text",
        "url",
        "language",
        "speech_tempo",
        "music_genre",
        "media",
        "sound",
        "num_views",
        "num_likes",
        "num_comments",
        "num_shares",
        "are_views_estimated",
        "engagement_rate",
        "created_at",
        "dataset_run_at",
        "datasets",
        "collections",
        "comments",
        "parameters",
        "pattern_assignments",
    ],
    *ANALYSIS,
]
EMPTY_LISTS = {"media", "comments", "datasets", "collections"}
EMPTY_MAPS = {"parameters", "pattern_assignments"}

QUERY = {
    "type": "prompt",
    "sources": ["tiktok", "youtube", "instagram"],
    "search_query": "oat milk",
}


@pytest.fixture(scope="module")
def box() -> Iterator[SandboxHandle]:
    with start(speed=500, rate_limit=1_000_000, seed=21) as handle:
        yield handle


@pytest.fixture(scope="module")
def http(box: SandboxHandle) -> Iterator[httpx.Client]:
    account = box.admin.create_account(plan="Business")
    with httpx.Client(base_url=box.url, headers={"x-api-key": account.api_key}, timeout=30) as c:
        yield c


def run(http: httpx.Client, name: str, **body: Any) -> str:
    """A dataset with one completed run of ``body``; returns the dataset id."""
    dataset: str = http.post("/v1/datasets", json={"name": name}).json()["data"]["id"]
    return collect(http, dataset, **body)


def collect(http: httpx.Client, dataset: str, **body: Any) -> str:
    started = http.post(f"/v1/datasets/{dataset}/runs", json={"search_query": QUERY} | body)
    assert started.status_code == 200, started.text
    run_id = started.json()["data"]["id"]
    deadline = time.monotonic() + 30
    while True:
        got = http.get(f"/v1/datasets/{dataset}/runs/{run_id}").json()["data"]
        if got["status"]["type"] in ("completed", "failed"):
            assert got["status"]["type"] == "completed", got
            return dataset
        assert time.monotonic() < deadline
        time.sleep(0.02)


def mentions(http: httpx.Client, dataset: str) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    cursor = None
    while True:
        body = {"dataset_ids": [dataset], "limit": 100, "cursor": cursor}
        page = http.post("/v1/mentions", json=body).json()
        got += page["data"]
        if not page["has_next"]:
            return got
        cursor = page["cursor"]


def test_every_spec_field_is_sent_with_its_no_value_form(http: httpx.Client) -> None:
    plain = mentions(http, run(http, "plain", count=30))
    assert plain
    for mention in plain:
        assert set(SPEC_FIELDS) <= set(mention), set(SPEC_FIELDS) - set(mention)
        for name in EMPTY_LISTS:
            assert isinstance(mention[name], list), (name, mention[name])
        for name in EMPTY_MAPS:
            assert mention[name] == {} or isinstance(mention[name], dict)
        for name in ANALYSIS:  # no analysis ran: null, not absent and not []
            assert mention[name] is None, (name, mention[name])
        assert mention["speech_tempo"] is None  # no transcription asked
        if mention["content_type"] == "organic":
            assert mention["ad_meta"] is None and mention["ad_flight_days"] is None
        if mention["source"] != "instagram":
            assert mention["sound"] is None
    assert all(m["comments"] == [] for m in plain)  # num_comments_per_post not asked


def test_analysed_fields_are_filled_and_empty_lists_mean_none_found(http: httpx.Client) -> None:
    analysed = mentions(
        http, run(http, "analysed", count=30, content_analysis_actions=["sentiment", "hook", "cta"])
    )
    for mention in analysed:
        for name in ("sentiment", "emotions", "tone_of_voice", "summary", "category"):
            assert mention[name] is not None, name
        for name in ("content_topics", "questions", "hooks", "mentioned_brands", "entities"):
            assert isinstance(mention[name], list), name  # analysed: a list, maybe empty


def test_collections_name_the_datasets_a_post_is_in(http: httpx.Client) -> None:
    first = run(http, "first", count=20)
    second = run(http, "second", count=20)  # same query: the same posts
    both = {m["id"]: m for m in mentions(http, second)}
    shared = [m for m in mentions(http, first) if m["id"] in both]
    assert shared
    for mention in shared:
        seen = both[mention["id"]]
        assert {first, second} <= {c["uid"] for c in seen["collections"]}
        assert seen["collections"] == [
            {"uid": d["id"], "name": d["name"]} for d in seen["datasets"]
        ]


def test_speech_tempo_comes_with_transcription_for_videos(http: httpx.Client) -> None:
    posts = mentions(http, run(http, "transcribed", count=40, enable_transcribing=True))
    videos = [p for p in posts if any(m["type"] == "video" for m in p["media"])]
    stills = [p for p in posts if not any(m["type"] == "video" for m in p["media"])]
    assert videos
    assert {p["speech_tempo"] for p in videos} <= {"slow", "moderate", "fast"}
    assert len({p["speech_tempo"] for p in videos}) > 1  # it varies with the post
    assert all(p["speech_tempo"] is None for p in stills)


def test_a_later_collection_never_erases_earlier_comments(http: httpx.Client) -> None:
    with_comments = run(http, "with comments", count=20, num_comments_per_post=5)
    first = mentions(http, with_comments)
    before = {m["id"]: m["comments"] for m in first}
    sources = {m["id"]: m["source"] for m in first}
    assert any(before.values())
    without = run(http, "without comments", count=20, num_comments_per_post=0)
    after = {m["id"]: m["comments"] for m in mentions(http, without)}
    shared = [post for post in after if before.get(post)]
    assert shared
    # Kept per (run, post): the first dataset still shows its run's comments ...
    again = {m["id"]: m["comments"] for m in mentions(http, with_comments)}
    assert all(again[post] == before[post] for post in shared)
    # ... the second shows what its own runs collected (none were asked for) ...
    assert all(after[post] == [] for post in shared)
    # ... and a query over every dataset merges them.
    refs = [{"source": sources[post], "id": post} for post in shared]
    merged = http.post("/v1/mentions", json={"post_refs": refs}).json()["data"]
    assert len(merged) == len(shared)
    assert all(m["comments"] == before[m["id"]] for m in merged)
    # A later run with comments into the second dataset leaves the first one's alone.
    collect(http, without, count=20, num_comments_per_post=2)
    latest = {m["id"]: m["comments"] for m in mentions(http, with_comments)}
    assert all(latest[post] == before[post] for post in shared)
    second = {m["id"]: m["comments"] for m in mentions(http, without)}
    assert all(len(second[post]) <= 2 for post in shared if post in second)


def test_the_last_page_has_no_next_and_the_client_stops_on_has_next() -> None:
    """The client must not depend on the last page's cursor: it stops on ``has_next``."""
    pages = [
        {"status": "success", "data": [{"id": "ds_1", "name": "a", "created_at": 1}],
         "has_next": True, "cursor": "c1"},
        # A last page that still carries a cursor (a server may do so): not followed.
        {"status": "success", "data": [{"id": "ds_2", "name": "b", "created_at": 2}],
         "has_next": False, "cursor": "c2"},
    ]  # fmt: skip
    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.params.get("cursor"))
        return httpx.Response(200, content=json.dumps(pages[len(seen) - 1]))

    client = Client("bz_test_" + "0" * 32, base_url="http://rds.test", rate_limit=None)
    client._http = httpx.Client(  # type: ignore[attr-defined]
        base_url="http://rds.test", transport=httpx.MockTransport(handler)
    )
    try:
        names = [d.name for d in client.datasets.list()]
    finally:
        client.close()
    assert names == ["a", "b"] and seen == [None, "c1"]


def test_the_sandbox_sends_a_null_cursor_on_the_last_page(http: httpx.Client) -> None:
    dataset = run(http, "paged", count=15)
    page = http.post("/v1/mentions", json={"dataset_ids": [dataset], "limit": 100}).json()
    assert page["has_next"] is False and page["cursor"] is None
