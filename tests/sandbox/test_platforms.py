"""``POST /sandbox/platforms`` over HTTP: a brand-new sandbox of the same seed, told the runs
a shared study's posts came from, holds those posts as the first sandbox served them, so a
``url`` run by their links re-collects them (emulator only: the corpus cannot rebuild a post
from its link alone). Deleted posts stay missing, another seed's corpus holds none, and the
route is opened by an account's key, checked before the body, within bounds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.datasets import MAX_HELD_POSTS
from rdskit.study.package import dehydrated_url

if TYPE_CHECKING:
    from tests.sandbox.conftest import Account, Api

TODAY = "2026-11-20"
SEED = 7  # the session sandbox's (tests/sandbox/conftest.py)
WINDOW = {"from": "2026-09-01", "to": "2026-10-31"}
METRICS = ("num_views", "num_likes", "num_comments", "num_shares")


def _mentions(http: httpx.Client, api: type[Api], body: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor = None
    while True:
        got = http.post("/v1/mentions", json={"limit": 100, **body, "cursor": cursor})
        assert got.status_code == 200, got.text
        out += got.json()["data"]
        cursor = got.json()["cursor"]
        if not got.json()["has_next"]:
            return out


@pytest.fixture
def shared(account: Account, api: type[Api]) -> dict[str, Any]:
    """User A's dataset: two runs (the second shifts its slice and finds grown metrics), the
    runs as a package's provenance records them, and the posts as A holds them."""
    http = account.http
    dataset = api.data(http.post("/v1/datasets", json={"name": "Oat milk"}))["id"]
    for _ in range(2):
        body = api.prompt_run("oat milk", 30, date_range=WINDOW, num_comments_per_post=2)
        run = api.data(http.post(f"/v1/datasets/{dataset}/runs", json=body))
        assert api.wait_run(http, dataset, run["id"])["status"]["type"] == "completed"
    runs = [
        {
            "id": r["id"],
            "dataset_id": r["dataset_id"],
            "status": r["status"]["type"],
            "created_at": r["created_at"],
            "mentions_count": r["mentions_count"],
            "params": r["params"],
        }
        for r in api.data(http.get(f"/v1/datasets/{dataset}/runs"))
    ]
    posts = _mentions(http, api, {"dataset_ids": [dataset]})
    return {"runs": runs, "posts": {(p["source"], p["id"]): p for p in posts}}


@pytest.fixture
def fresh() -> Iterator[Callable[[int], SandboxHandle]]:
    """Factory: a brand-new sandbox of ``seed`` (its own temporary database)."""
    opened: list[SandboxHandle] = []

    def make(seed: int) -> SandboxHandle:
        opened.append(start(speed=500, rate_limit=10_000, seed=seed, today=TODAY))
        return opened[-1]

    yield make
    for handle in opened:
        handle.stop()


def _hold(
    handle: SandboxHandle, key: str, runs: list[dict[str, Any]], keys: list[tuple[str, str]]
) -> httpx.Response:
    body = {"runs": runs, "posts": [{"source": s, "id": i} for s, i in keys]}
    return httpx.post(f"{handle.url}/sandbox/platforms", json=body, headers={"x-api-key": key})


def test_a_fresh_sandbox_holds_the_shared_posts_and_a_url_run_finds_them(
    shared: dict[str, Any], fresh: Callable[[int], SandboxHandle], api: type[Api]
) -> None:
    other = fresh(SEED)
    user = other.admin.create_account(plan="Pro")
    keys = sorted(shared["posts"])
    assert len(keys) > 30  # two runs, partly overlapping
    held = api.data(_hold(other, user.api_key, shared["runs"], keys))
    assert held == {"runs": 2, "posts": 60, "known": len(keys)}
    # Told again (a resumed re-collection): nothing is replayed twice.
    assert api.data(_hold(other, user.api_key, shared["runs"], keys))["runs"] == 0

    gone = keys[:3]
    links = [dehydrated_url(s, i, None) for s, i in keys]
    assert other.admin.change_posts(links[:3], deleted=True) == 3
    with httpx.Client(base_url=other.url, headers={"x-api-key": user.api_key}) as http:
        dataset = api.data(http.post("/v1/datasets", json={"name": "again"}))["id"]
        body = {"search_query": {"type": "url", "source_urls": links}, "count": len(links)}
        run = api.data(http.post(f"/v1/datasets/{dataset}/runs", json=body))
        done = api.wait_run(http, dataset, run["id"])
        assert done["status"]["type"] == "completed" and done["mentions_count"] == len(keys) - 3
        again = {
            (p["source"], p["id"]): p for p in _mentions(http, api, {"dataset_ids": [dataset]})
        }
    assert set(again) == set(keys) - set(gone)
    for key, post in again.items():  # as A holds it: the later run's copy, metrics included
        then = shared["posts"][key]
        assert [post[m] for m in METRICS] == [then[m] for m in METRICS], key
        assert (post["text"], post["created_at"]) == (then["text"], then["created_at"])


def test_another_seed_holds_none_of_them(
    shared: dict[str, Any], fresh: Callable[[int], SandboxHandle], api: type[Api]
) -> None:
    other = fresh(SEED + 1)
    user = other.admin.create_account(plan="Pro")
    keys = sorted(shared["posts"])
    assert api.data(_hold(other, user.api_key, shared["runs"], keys))["known"] == 0


def test_the_route_needs_a_key_and_stays_in_bounds(
    sandbox: SandboxHandle, account: Account, shared: dict[str, Any], api: type[Api]
) -> None:
    runs = shared["runs"]
    for headers in ({}, {"x-api-key": "rds_wrong"}, {"x-admin-token": sandbox.admin_token}):
        refused = httpx.post(
            f"{sandbox.url}/sandbox/platforms", json={"runs": runs}, headers=headers
        )
        api.error(refused, 401, "unauthorized")
    too_many = [
        {**runs[0], "id": f"dsr_{n}", "mentions_count": MAX_HELD_POSTS // 2 + 1} for n in range(2)
    ]
    refused = _hold(sandbox, account.api_key, too_many, [])
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"] == ["body", "runs"]
    bad = [{**runs[0], "params": {"search_query": {"type": "prompt"}, "count": "many"}}]
    refused = _hold(sandbox, account.api_key, bad, [])
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["loc"][:4] == ["body", "runs", "0", "params"]
