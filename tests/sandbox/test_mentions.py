"""POST /v1/mentions over HTTP: scope, every filter type and sort, cursors, lookups."""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.backend.datasets import seed_mentions
from rdskit.sandbox.backend.mention_query import SORTS, MentionQuery, hydrate, search
from rdskit.sandbox.store.cursors import Page
from rdskit.sandbox.synth.enrichment import dominant

Mention = dict[str, Any]
ACTIONS = ["sentiment", "hook", "cta"]
SORT_KEYS: dict[str, Callable[[Mention], float]] = {
    "date": lambda m: m["created_at"],
    "likes": lambda m: m["num_likes"],
    "views": lambda m: m["num_views"],
    "comments": lambda m: m["num_comments"],
    "shares": lambda m: m["num_shares"],
    "engagement_rate": lambda m: float(m["engagement_rate"]),
    "sentiment_score": lambda m: float(m["sentiment_score"]),
    "dataset_run_at": lambda m: m["dataset_run_at"],
}


def data(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()["data"]


def error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error_code"] == code


def run(
    http: httpx.Client, dataset_id: str, query: str, count: int, **extra: Any
) -> dict[str, Any]:
    """Start a prompt run over every source and wait until it is completed."""
    body = {
        "search_query": {
            "type": "prompt",
            "sources": ["reddit", "tiktok", "youtube", "instagram", "linkedin"],
            "search_query": query,
        },
        "count": count,
        "num_comments_per_post": 2,
        "content_analysis_actions": ACTIONS,
        **extra,
    }
    started = data(http.post(f"/v1/datasets/{dataset_id}/runs", json=body))
    deadline = time.monotonic() + 60
    while True:
        got: dict[str, Any] = data(http.get(f"/v1/datasets/{dataset_id}/runs/{started['id']}"))
        if got["status"]["type"] in ("completed", "failed"):
            assert got["status"]["type"] == "completed", got
            return got
        assert time.monotonic() < deadline
        time.sleep(0.02)


def walk(http: httpx.Client, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every page of a query, following cursors."""
    cursor = None
    while True:
        response = http.post("/v1/mentions", json={**body, "cursor": cursor})
        assert response.status_code == 200, response.text
        got = response.json()
        yield got
        if not got["has_next"]:
            assert got["cursor"] is None
            return
        cursor = got["cursor"]


def everything(http: httpx.Client, body: dict[str, Any]) -> list[Mention]:
    return [m for got in walk(http, {"limit": 100, **body}) for m in got["data"]]


def ids(mentions: list[Mention]) -> set[tuple[str, str]]:
    return {(m["source"], m["id"]) for m in mentions}


@dataclass
class World:
    """A Pro account with two enriched datasets (Oat: 300 posts, Coffee: 60)."""

    http: httpx.Client
    oat: str
    coffee: str
    mentions: list[Mention]

    def matching(self, keep: Callable[[Mention], bool]) -> set[tuple[str, str]]:
        return ids([m for m in self.mentions if m["datasets"][0]["id"] == self.oat and keep(m)])

    def query(self, **body: Any) -> list[Mention]:
        return everything(self.http, {"dataset_ids": [self.oat], **body})


@pytest.fixture(scope="module")
def world(sandbox: SandboxHandle) -> Iterator[World]:
    account = sandbox.admin.create_account(plan="Pro")
    with httpx.Client(
        base_url=sandbox.url, headers={"x-api-key": account.api_key}, timeout=30
    ) as http:
        oat = data(http.post("/v1/datasets", json={"name": "Oat"}))["id"]
        coffee = data(http.post("/v1/datasets", json={"name": "Coffee"}))["id"]
        run(http, oat, "oat milk", 300)
        run(http, coffee, "coffee", 60)
        yield World(http, oat, coffee, everything(http, {}))


def test_default_query_spans_every_dataset_newest_first(world: World) -> None:
    got = world.http.post("/v1/mentions", json={}).json()
    assert got["status"] == "success" and len(got["data"]) == 10 and got["has_next"]
    assert len(world.mentions) == 360 == len(ids(world.mentions))
    first = got["data"][0]
    assert first == world.mentions[0]
    dates = [m["created_at"] for m in world.mentions]
    assert dates == sorted(dates, reverse=True)
    for mention in world.mentions:
        assert isinstance(mention["created_at"], int) and isinstance(mention["dataset_run_at"], int)
        assert mention["datasets"] in (
            [{"id": world.oat, "name": "Oat"}],
            [{"id": world.coffee, "name": "Coffee"}],
        )
        assert mention["parameters"] == {}  # none asked: every spec field is still sent
    names = {m["datasets"][0]["name"] for m in world.mentions}
    assert names == {"Oat", "Coffee"}


def test_dataset_scope_and_not_found(world: World, account: Any) -> None:
    assert len(world.query()) == 300
    foreign = data(account.http.post("/v1/datasets", json={"name": "Theirs"}))["id"]
    error(
        world.http.post("/v1/mentions", json={"dataset_ids": [foreign]}), 404, "dataset_not_found"
    )
    error(
        world.http.post("/v1/mentions", json={"dataset_ids": ["ds_nope"]}), 404, "dataset_not_found"
    )


def test_soft_deleted_datasets_are_excluded(sandbox: SandboxHandle, account: Any) -> None:
    http = account.http
    keep = data(http.post("/v1/datasets", json={"name": "Keep"}))["id"]
    gone = data(http.post("/v1/datasets", json={"name": "Gone"}))["id"]
    run(http, keep, "matcha", 10)
    run(http, gone, "kombucha", 10)
    assert len(everything(http, {})) == 20
    data(http.delete(f"/v1/datasets/{gone}"))
    remaining = everything(http, {})
    assert len(remaining) == 10 and {m["datasets"][0]["id"] for m in remaining} == {keep}
    error(http.post("/v1/mentions", json={"dataset_ids": [gone]}), 404, "dataset_not_found")


@pytest.mark.parametrize("sort", list(SORTS))
@pytest.mark.parametrize("order", ["desc", "asc"])
def test_every_sort_walks_all_pages_without_gaps(world: World, sort: str, order: str) -> None:
    pages = list(
        walk(world.http, {"dataset_ids": [world.oat], "sort": sort, "order": order, "limit": 40})
    )
    got = [m for page in pages for m in page["data"]]
    assert len(pages) == 8 and all(len(p["data"]) == 40 for p in pages[:-1])
    assert len(got) == len(ids(got)) == 300
    keys = [SORT_KEYS[sort](m) for m in got]
    assert keys == sorted(keys, reverse=order == "desc")


def test_cursors_are_bound_to_their_query(world: World) -> None:
    body = {"dataset_ids": [world.oat], "sort": "likes", "limit": 5}
    cursor = world.http.post("/v1/mentions", json=body).json()["cursor"]
    assert world.http.post("/v1/mentions", json={**body, "cursor": cursor}).status_code == 200
    for other in ({"sort": "views"}, {"order": "asc"}, {"sources": ["reddit"]}, {"q": "foam"}):
        error(
            world.http.post("/v1/mentions", json={**body, **other, "cursor": cursor}),
            400,
            "invalid_cursor",
        )
    error(
        world.http.post("/v1/mentions", json={**body, "cursor": cursor[:-3] + "abc"}),
        400,
        "invalid_cursor",
    )
    error(
        world.http.post("/v1/mentions", json={**body, "cursor": "not-a-cursor"}),
        400,
        "invalid_cursor",
    )


def test_request_validation(world: World) -> None:
    too_many = [
        [{"type": "source", "values": ["reddit"]}] * 6,
        [{"type": "has_media", "value": True}] * 5,
    ]
    for body in (
        {"filters": too_many},
        {"filters": [[{"type": "keyword", "operator": "is", "value": "oat milk latte"}]]},
        {"limit": 0},
        {"limit": 101},
        {"sort": "popularity"},
        {"filters": [[{"type": "creator_tier", "values": ["nano"]}]]},  # a profile filter
    ):
        response = world.http.post("/v1/mentions", json=body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["detail"][0]["msg"]


@pytest.mark.parametrize("operator", ["greater_than", "less_than", "changed_by"])
def test_a_metric_comparison_without_its_value_is_a_422_naming_it(
    world: World, operator: str
) -> None:
    """The model leaves ``value`` optional (the spec does not show it): it was a 500."""
    filt = {"type": "metric_change", "metric": "likes", "operator": operator}
    response = world.http.post("/v1/mentions", json={"filters": [[filt]]})
    assert response.status_code == 422, response.text
    assert "value" in response.json()["detail"][0]["msg"]


def text_of(m: Mention) -> str:
    return f"{m['title']}\n{m['text']}"


FILTERS: list[tuple[dict[str, Any], Callable[[Mention], bool]]] = [
    (
        {"type": "keyword", "operator": "is", "value": "price"},
        lambda m: bool(re.search(r"\bprice\b", text_of(m), re.I)),
    ),
    (
        {"type": "keyword", "operator": "is_not", "value": "oat milk"},
        lambda m: not re.search(r"\boat\W+milk\b", text_of(m), re.I),
    ),
    (
        {"type": "sentiment", "values": ["negative"]},
        lambda m: dominant(m["sentiment"]) == "negative",
    ),
    (
        {"type": "sentiment", "values": ["positive", "neutral"]},
        lambda m: dominant(m["sentiment"]) != "negative",
    ),
    (
        {"type": "dominant_emotion", "values": ["anger", "sadness"]},
        lambda m: dominant(m["emotions"]) in ("anger", "sadness"),
    ),
    (
        {"type": "source", "values": ["tiktok", "linkedin"]},
        lambda m: m["source"] in ("tiktok", "linkedin"),
    ),
    ({"type": "country_code", "values": ["GB", "CA"]}, lambda m: m["country_code"] in ("GB", "CA")),
    ({"type": "has_media", "value": True}, lambda m: bool(m["media"])),
    ({"type": "has_media", "value": False}, lambda m: not m["media"]),
    (
        {"type": "content_topic", "operator": "any_of", "values": ["Taste", "foam"]},
        lambda m: any(t["text"] in ("taste", "foam") for t in m["content_topics"]),
    ),
    (
        {"type": "content_intention", "operator": "any_of", "values": ["complaint", "question"]},
        lambda m: m["content_intention"] in ("complaint", "question"),
    ),
    (
        {"type": "tone_of_voice", "operator": "any_of", "values": ["enthusiastic"]},
        lambda m: m["tone_of_voice"]["text"] == "enthusiastic",
    ),
    (
        {"type": "hook", "operator": "any_of", "values": ["question", "list"]},
        lambda m: any(h["type"] in ("question", "list") for h in m["hooks"]),
    ),
    (
        {"type": "cta", "operator": "any_of", "values": ["link in bio", "Follow"]},
        lambda m: (m["cta"] or {}).get("text") in ("Link in bio", "Follow"),
    ),
    (
        {"type": "mentioned_brands", "operator": {"type": "any_of", "values": ["alpro", "Silk"]}},
        lambda m: bool({"Alpro", "Silk"} & set(m["mentioned_brands"])),
    ),
    (
        {"type": "mentioned_brands", "operator": {"type": "equals", "value": "Oatly"}},
        lambda m: "Oatly" in m["mentioned_brands"],
    ),
    (
        {"type": "mentioned_brands", "operator": {"type": "contains", "value": "farm"}},
        lambda m: any("farm" in b.lower() for b in m["mentioned_brands"]),
    ),
    (
        {"type": "metric_change", "metric": "likes", "operator": "greater_than", "value": 500},
        lambda m: m["num_likes"] > 500,
    ),
    (
        {"type": "metric_change", "metric": "views", "operator": "less_than", "value": 2000},
        lambda m: m["num_views"] < 2000,
    ),
    (
        {"type": "metric_change", "metric": "comments", "operator": "in_range", "min": 5},
        lambda m: m["num_comments"] >= 5,
    ),
    (
        {
            "type": "metric_change",
            "metric": "engagement_rate",
            "operator": "in_range",
            "min": 0.02,
            "max": 0.05,
        },
        lambda m: 0.02 <= float(m["engagement_rate"]) <= 0.05,
    ),
]


@pytest.mark.parametrize(
    ("filt", "keep"), FILTERS, ids=[f"{f['type']}-{i}" for i, (f, _) in enumerate(FILTERS)]
)
def test_every_filter_type(
    world: World, filt: dict[str, Any], keep: Callable[[Mention], bool]
) -> None:
    expected = world.matching(keep)
    assert 0 < len(expected) < 300, "the corpus should make this filter discriminate"
    assert ids(world.query(filters=[[filt]])) == expected


def test_groups_are_ored_and_filters_in_a_group_anded(world: World) -> None:
    tiktok_negative = [
        {"type": "source", "values": ["tiktok"]},
        {"type": "sentiment", "values": ["negative"]},
    ]
    reddit = [{"type": "source", "values": ["reddit"]}]
    expected = world.matching(
        lambda m: (
            (m["source"] == "tiktok" and dominant(m["sentiment"]) == "negative")
            or m["source"] == "reddit"
        )
    )
    assert ids(world.query(filters=[tiktok_negative, reddit])) == expected
    assert ids(world.query(filters=[tiktok_negative])) < expected


def test_sources_and_q(world: World) -> None:
    assert ids(world.query(sources=["youtube"])) == world.matching(
        lambda m: m["source"] == "youtube"
    )
    expected = world.matching(
        lambda m: bool(
            re.search(r"\bfoam", text_of(m), re.I) and re.search(r"\bbett", text_of(m), re.I)
        )
    )
    assert expected
    assert ids(world.query(q="Foam bett")) == expected
    assert ids(world.query(q="foam bett", search_mode="semantic", operation="select")) == expected


def test_metric_change_changed_by_compares_with_the_first_collection(
    world: World, account: Any
) -> None:
    http = account.http
    dataset = data(http.post("/v1/datasets", json={"name": "Again"}))["id"]
    run(http, dataset, "oat latte", 50)
    before = {(m["source"], m["id"]): m for m in everything(http, {})}
    run(http, dataset, "oat latte", 50)
    after = everything(http, {})
    grown = {
        (m["source"], m["id"])
        for m in after
        if (m["source"], m["id"]) in before
        and m["num_views"] != before[(m["source"], m["id"])]["num_views"]
    }
    assert grown
    body = {
        "filters": [
            [{"type": "metric_change", "metric": "views", "operator": "changed_by", "value": 1}]
        ]
    }
    changed = everything(http, body)
    assert ids(changed) == {
        key
        for key in grown
        if abs(
            next(m for m in after if (m["source"], m["id"]) == key)["num_views"]
            - before[key]["num_views"]
        )
        * 100
        >= before[key]["num_views"]
    }


def test_post_refs_keep_their_order(world: World) -> None:
    oat = [m for m in world.mentions if m["datasets"][0]["id"] == world.oat]
    coffee = [m for m in world.mentions if m["datasets"][0]["id"] == world.coffee]
    picks = [oat[7], oat[3], coffee[0]]
    refs = [{"source": m["source"], "id": m["id"]} for m in picks]
    body = {"post_refs": [*refs, {"source": "reddit", "id": "missing"}, refs[0]]}
    got = world.http.post("/v1/mentions", json=body).json()
    assert [m["id"] for m in got["data"]] == [m["id"] for m in picks]
    assert got["has_next"] is False and got["cursor"] is None
    scoped = data(world.http.post("/v1/mentions", json={**body, "dataset_ids": [world.oat]}))
    assert [m["id"] for m in scoped] == [m["id"] for m in picks[:2]]


def test_parameter_values_come_back_under_their_id(sandbox: SandboxHandle, world: World) -> None:
    target = world.mentions[0]
    # Custom parameter runs write these rows; the sandbox runs in-process, so write one here.
    with sandbox.store.transaction() as conn:
        (owner,) = conn.execute(
            "SELECT account_id FROM datasets WHERE id = ?", (world.oat,)
        ).fetchone()
        conn.execute(
            "INSERT INTO mention_parameters VALUES (?, ?, ?, 'cp_brand', ?, 'done', 1767225600)",
            (owner, target["source"], target["id"], '"Oatly"'),
        )
    body = {
        "post_refs": [{"source": target["source"], "id": target["id"]}],
        "parameter_ids": ["cp_brand", "cp_other"],
    }
    (got,) = data(world.http.post("/v1/mentions", json=body))
    assert got["parameters"] == {
        "cp_brand": {"value": "Oatly", "status": "done", "computed_at": 1767225600}
    }


def _vm_steps(conn: sqlite3.Connection, call: Callable[[], object]) -> int:
    """SQLite VM instructions (in hundreds) that ``call`` runs: a cost free of timing noise."""
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0

    conn.set_progress_handler(tick, 100)
    try:
        call()
    finally:
        conn.set_progress_handler(None, 100)
    return steps


def _seeded_dataset(sandbox: SandboxHandle, count: int) -> tuple[str, str]:
    """(account id, dataset id) of a fresh account with ``count`` seeded mentions."""
    account = sandbox.admin.create_account(plan="Business")
    with httpx.Client(base_url=sandbox.url, headers={"x-api-key": account.api_key}) as http:
        dataset_id = data(http.post("/v1/datasets", json={"name": "Big"}))["id"]
        seed_mentions(sandbox.store, account.account_id, dataset_id, count)
        assert data(http.get(f"/v1/datasets/{dataset_id}"))["mentions_count"] == count
    return account.account_id, dataset_id


@pytest.fixture(scope="module")
def seeded(sandbox: SandboxHandle) -> tuple[tuple[str, str], tuple[str, str]]:
    """A 20k-mention dataset and a 100-mention one, each in its own account."""
    return _seeded_dataset(sandbox, 20_000), _seeded_dataset(sandbox, 100)


@pytest.mark.parametrize("sort", ["date", "likes", "dataset_run_at"])
def test_deep_pages_cost_what_the_first_page_costs(
    sandbox: SandboxHandle, seeded: tuple[tuple[str, str], tuple[str, str]], sort: str
) -> None:
    """Page 900 of 20k mentions (and any page of a big dataset) costs what page 1 of a small
    one costs: keyset search plus per-page hydration, nothing that grows with the dataset.
    ``dataset_run_at`` is one 20k tie group (the seed is one run), the keyset's worst case."""
    big, small = seeded
    with sandbox.store.read() as conn:

        def page(account_dataset: tuple[str, str], cursor: str | None) -> Page:
            account_id, dataset_id = account_dataset
            query = MentionQuery(dataset_ids=[dataset_id], sort=sort, limit=20, cursor=cursor)
            got = search(conn, account_id, query)
            hydrate(conn, account_id, got.rows)
            return got

        cursor = None
        for _ in range(899):
            cursor = page(big, cursor).cursor
            assert cursor is not None
        first = _vm_steps(conn, lambda: page(big, None))
        deep = _vm_steps(conn, lambda: page(big, cursor))
        tiny = _vm_steps(conn, lambda: page(small, None))
    assert deep <= 1.5 * first, (deep, first)
    assert first <= 1.5 * tiny, (first, tiny)
