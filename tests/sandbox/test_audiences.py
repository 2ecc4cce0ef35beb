"""Audience datasets, runs (409/402/404, refunds, stop-early) and profile queries over HTTP."""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
import pytest

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.synth.corpus import parse_profile_url

PROFILE_FIELDS = {
    "id", "run_id", "source", "username", "display_name", "bio", "external_link", "is_verified",
    "follower_count", "following_count", "content_count", "engagement_rate",
    "authenticity_score", "authenticity_confidence", "authenticity_score_version",
    "authenticity_reason", "score", "posting_cadence", "creator_tier", "aesthetic",
    "communication_tone", "occupation", "industry", "location_country", "location_city",
    "primary_language", "summary", "age", "gender", "content_niche", "interest_clusters",
    "brand_affinities", "ocean", "platform_metadata", "avatar", "created_at", "custom_parameters",
}  # fmt: skip


def data(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()["data"]


def error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["error_code"] == code, body
    return body


def wait(http: httpx.Client, path: str) -> dict[str, Any]:
    """Poll a run resource until it reaches a terminal state."""
    deadline = time.monotonic() + 60
    while True:
        got: dict[str, Any] = data(http.get(path))
        if got["status"]["type"] in ("completed", "failed"):
            return got
        assert time.monotonic() < deadline, got
        time.sleep(0.02)


def dataset(http: httpx.Client, name: str, query: str, count: int, comments: int) -> str:
    """A dataset with one completed run."""
    dataset_id: str = data(http.post("/v1/datasets", json={"name": name}))["id"]
    body = {
        "search_query": {
            "type": "prompt",
            "sources": ["reddit", "tiktok", "instagram"],
            "search_query": query,
        },
        "count": count,
        "num_comments_per_post": comments,
    }
    started = data(http.post(f"/v1/datasets/{dataset_id}/runs", json=body))
    assert (
        wait(http, f"/v1/datasets/{dataset_id}/runs/{started['id']}")["status"]["type"]
        == "completed"
    )
    return dataset_id


def audience(http: httpx.Client, name: str = "Audience") -> str:
    created = data(http.post("/v1/audience_datasets", json={"name": name}))
    assert set(created) == {"id", "name", "created_at"} and created["created_at"].endswith("Z")
    return str(created["id"])


def profile_run(
    http: httpx.Client, audience_id: str, source_id: str, target: int
) -> dict[str, Any]:
    """Start an audience run and wait for it."""
    body = {"source_dataset_id": source_id, "total_profile_count": target}
    started = data(http.post(f"/v1/audience_datasets/{audience_id}/runs", json=body))
    assert set(started) == {
        "id",
        "audience_dataset_id",
        "source_dataset_id",
        "created_at",
        "status",
    }
    assert started["status"] == {"type": "pending"}
    return wait(http, f"/v1/audience_datasets/{audience_id}/runs/{started['id']}")


def profiles(http: httpx.Client, **body: Any) -> list[dict[str, Any]]:
    """Every profile of a query, following cursors."""
    out, cursor = [], None
    while True:
        got = http.post(
            "/v1/audience_profiles", json={"limit": 100, **body, "cursor": cursor}
        ).json()
        out += got["data"]
        if not got["has_next"]:
            return out
        cursor = got["cursor"]


def unit_usd(http: httpx.Client) -> Decimal:
    """The account's USD price of one audience profile."""
    return Decimal(str(data(http.get("/v1/prices"))["prices"]["audience_profile"]))


def used_usd(sandbox: SandboxHandle, account_id: str) -> Decimal:
    return Decimal(sandbox.admin.account(account_id)["wallet"]["used_usd"])


def people(http: httpx.Client, dataset_id: str) -> tuple[list[str], list[str]]:
    """(authors, commenters) of a dataset, newest post first, each once."""
    mentions: list[dict[str, Any]] = []
    cursor = None
    while True:
        got = http.post(
            "/v1/mentions", json={"dataset_ids": [dataset_id], "limit": 100, "cursor": cursor}
        ).json()
        mentions += got["data"]
        if not got["has_next"]:
            break
        cursor = got["cursor"]
    authors = [
        parsed[2] for m in mentions if (parsed := parse_profile_url(m["author"]["title_url"]))
    ]
    commenters = [c["author_username"] for m in mentions for c in m["comments"]]
    authors = list(dict.fromkeys(authors))
    return authors, [c for c in dict.fromkeys(commenters) if c not in authors]


@dataclass
class Setup:
    http: httpx.Client
    account_id: str
    source: str


@pytest.fixture
def setup(sandbox: SandboxHandle, account: Any) -> Setup:
    return Setup(account.http, account.account_id, dataset(account.http, "Oat", "oat milk", 30, 2))


def test_audience_dataset_crud(account: Any, new_account: Any) -> None:
    http = account.http
    made = [audience(http, f"A{i}") for i in range(3)]
    page = http.get("/v1/audience_datasets", params={"limit": 2}).json()
    assert [d["id"] for d in page["data"]] == made[::-1][:2] and page["has_next"]
    rest = http.get("/v1/audience_datasets", params={"limit": 2, "cursor": page["cursor"]}).json()
    assert [d["id"] for d in rest["data"]] == [made[0]] and not rest["has_next"]
    got = data(http.get(f"/v1/audience_datasets/{made[0]}"))
    assert got["profile_count"] == 0 and got["updated_at"].endswith("Z")
    renamed = data(http.patch(f"/v1/audience_datasets/{made[0]}", json={"name": "Fans"}))
    assert renamed["name"] == "Fans"
    data(http.delete(f"/v1/audience_datasets/{made[0]}"))
    error(http.get(f"/v1/audience_datasets/{made[0]}"), 404, "audience_dataset_not_found")
    assert made[0] not in [d["id"] for d in data(http.get("/v1/audience_datasets"))]
    other = new_account()
    error(other.http.get(f"/v1/audience_datasets/{made[1]}"), 404, "audience_dataset_not_found")
    error(
        http.post("/v1/audience_datasets/ad_nope/runs", json={"source_dataset_id": "x"}),
        404,
        "audience_dataset_not_found",
    )


def test_a_run_profiles_authors_first_newest_first(sandbox: SandboxHandle, setup: Setup) -> None:
    http = setup.http
    authors, commenters = people(http, setup.source)
    assert len(authors) > 5 and commenters
    audience_id = audience(http)
    used = used_usd(sandbox, setup.account_id)
    done = profile_run(http, audience_id, setup.source, 5)
    assert done["status"]["type"] == "completed"
    assert done["profile_count"] == 5 and done["target_profile_count"] == 5
    assert done["created_at"].endswith("Z") and done["updated_at"].endswith("Z")
    got = profiles(http, audience_dataset_ids=[audience_id])
    assert {p["username"] for p in got} == set(authors[:5])
    assert used_usd(sandbox, setup.account_id) - used == 5 * unit_usd(http)  # reserved 5, charged 5
    for profile in got:
        assert set(profile) == PROFILE_FIELDS
        assert profile["run_id"] == done["id"] and isinstance(profile["created_at"], int)
        assert profile["custom_parameters"] == {}
    assert data(http.get(f"/v1/audience_datasets/{audience_id}"))["profile_count"] == 5


def test_a_run_moves_on_to_commenters_and_stops_early(sandbox: SandboxHandle, setup: Setup) -> None:
    http = setup.http
    authors, commenters = people(http, setup.source)
    audience_id = audience(http)
    used = used_usd(sandbox, setup.account_id)
    first = profile_run(http, audience_id, setup.source, len(authors) + 3)
    assert first["profile_count"] == len(authors) + 3
    assert {p["username"] for p in profiles(http, audience_dataset_ids=[audience_id])} == set(
        authors + commenters[:3]
    )
    # A second run skips the people the audience already holds and stops when people run out.
    second = profile_run(http, audience_id, setup.source, 2000)
    assert second["status"]["type"] == "completed"
    assert second["profile_count"] == len(commenters) - 3 < 2000
    assert used_usd(sandbox, setup.account_id) - used == (
        len(authors) + len(commenters)
    ) * unit_usd(http)
    runs = data(http.get(f"/v1/audience_datasets/{audience_id}/runs"))
    assert [r["id"] for r in runs] == [second["id"], first["id"]]


def test_run_errors_start_nothing(sandbox: SandboxHandle, setup: Setup, new_account: Any) -> None:
    http = setup.http
    audience_id = audience(http)
    error(
        http.post(
            f"/v1/audience_datasets/{audience_id}/runs", json={"source_dataset_id": "ds_nope"}
        ),
        404,
        "dataset_not_found",
    )
    empty = data(http.post("/v1/datasets", json={"name": "Empty"}))["id"]
    body = {"source_dataset_id": empty}
    error(
        http.post(f"/v1/audience_datasets/{audience_id}/runs", json=body),
        400,
        "source_dataset_has_no_completed_run",
    )
    for bad in (0, 2001, "many"):
        response = http.post(
            f"/v1/audience_datasets/{audience_id}/runs",
            json={"source_dataset_id": setup.source, "total_profile_count": bad},
        )
        assert response.status_code == 422
    poor = new_account(wallet_usd="1")
    poor_audience = audience(poor.http)
    poor_source = dataset(poor.http, "Tiny", "oat milk", 5, 0)
    body = error(
        poor.http.post(
            f"/v1/audience_datasets/{poor_audience}/runs", json={"source_dataset_id": poor_source}
        ),
        402,
        "insufficient_credits_audience_dataset_run",
    )
    assert Decimal(body["detail"]["required"]) == 300 * unit_usd(
        poor.http
    )  # the default target, reserved
    assert data(poor.http.get(f"/v1/audience_datasets/{poor_audience}/runs")) == []
    assert Decimal(sandbox.admin.account(poor.account_id)["wallet"]["held_usd"]) == 0


def test_a_failed_run_refunds_everything(sandbox: SandboxHandle, setup: Setup) -> None:
    audience_id = audience(setup.http, "Broken __fail__")
    used = used_usd(sandbox, setup.account_id)
    failed = profile_run(setup.http, audience_id, setup.source, 10)
    assert failed["status"]["type"] == "failed" and failed["profile_count"] == 0
    assert used_usd(sandbox, setup.account_id) == used
    assert profiles(setup.http, audience_dataset_ids=[audience_id]) == []


def test_one_run_in_flight_per_audience_dataset() -> None:
    # A slow sandbox keeps the first run pending long enough to race it deterministically.
    with (
        start(speed=5, rate_limit=1000, seed=3) as slow,
        httpx.Client(base_url=slow.url, headers={"x-api-key": slow.api_key}, timeout=30) as http,
    ):
        source = dataset(http, "Oat", "oat milk", 10, 0)
        audience_id = audience(http)
        body = {"source_dataset_id": source, "total_profile_count": 3}
        first = data(http.post(f"/v1/audience_datasets/{audience_id}/runs", json=body))
        error(
            http.post(f"/v1/audience_datasets/{audience_id}/runs", json=body),
            409,
            "audience_dataset_run_already_in_flight",
        )
        other = audience(http, "Other")
        data(http.post(f"/v1/audience_datasets/{other}/runs", json=body))  # other datasets are free
        assert (
            wait(http, f"/v1/audience_datasets/{audience_id}/runs/{first['id']}")["status"]["type"]
            == "completed"
        )
        data(http.post(f"/v1/audience_datasets/{audience_id}/runs", json=body))


def test_a_deleted_source_dataset_keeps_its_audience(setup: Setup) -> None:
    http = setup.http
    audience_id = audience(http)
    profile_run(http, audience_id, setup.source, 4)
    data(http.delete(f"/v1/datasets/{setup.source}"))
    assert len(profiles(http, audience_dataset_ids=[audience_id])) == 4
    body = {"source_dataset_id": setup.source}
    error(
        http.post(f"/v1/audience_datasets/{audience_id}/runs", json=body), 404, "dataset_not_found"
    )


def test_profile_queries(setup: Setup, new_account: Any) -> None:
    http = setup.http
    first, second = audience(http, "One"), audience(http, "Two")
    profile_run(http, first, setup.source, 25)
    profile_run(http, second, setup.source, 10)
    every = profiles(http)
    assert len(every) == 35
    assert len(profiles(http, audience_dataset_ids=[second])) == 10
    tiers = {p["creator_tier"] for p in every}
    assert len(tiers) > 1
    tier = sorted(tiers)[0]
    by_tier = profiles(http, filters=[[{"type": "creator_tier", "values": [tier]}]])
    assert {p["id"] for p in by_tier} == {p["id"] for p in every if p["creator_tier"] == tier}
    verified = profiles(http, filters=[[{"type": "is_verified", "value": False}]])
    assert {p["id"] for p in verified} == {p["id"] for p in every if not p["is_verified"]}
    both = profiles(
        http,
        filters=[
            [{"type": "creator_tier", "values": [tier]}, {"type": "is_verified", "value": True}],
            [{"type": "creator_tier", "values": ["mega"]}],
        ],
    )
    assert {p["id"] for p in both} == {
        p["id"]
        for p in every
        if (p["creator_tier"] == tier and p["is_verified"]) or p["creator_tier"] == "mega"
    }
    error(
        http.post("/v1/audience_profiles", json={"audience_dataset_ids": ["ad_nope"]}),
        404,
        "audience_dataset_not_found",
    )
    foreign = audience(new_account().http)
    error(
        http.post("/v1/audience_profiles", json={"audience_dataset_ids": [foreign]}),
        404,
        "audience_dataset_not_found",
    )
    too_many = [[{"type": "is_verified", "value": True}] * 11]
    for body in (
        {"filters": too_many},
        {"filters": [[{"type": "sentiment", "values": ["positive"]}]]},  # a mention filter
        {"sort": "follower_count"},
        {"limit": 101},
    ):
        assert http.post("/v1/audience_profiles", json=body).status_code == 422, body
    data(http.delete(f"/v1/audience_datasets/{second}"))
    assert len(profiles(http)) == 25


@pytest.mark.parametrize("sort", ["created_at", "audience_dataset_run_at"])
@pytest.mark.parametrize("order", ["desc", "asc"])
def test_profile_sorts_and_cursors(setup: Setup, sort: str, order: str) -> None:
    http = setup.http
    first, second = audience(http, "Early"), audience(http, "Late")
    early = profile_run(http, first, setup.source, 12)
    late = profile_run(http, second, setup.source, 12)
    pages = []
    cursor = None
    while True:
        got = http.post(
            "/v1/audience_profiles",
            json={"sort": sort, "order": order, "limit": 5, "cursor": cursor},
        ).json()
        pages.append(got)
        if not got["has_next"]:
            break
        cursor = got["cursor"]
    walked = [p for page in pages for p in page["data"]]
    assert len(pages) == 5 and len({p["id"] for p in walked}) == len(walked) == 24
    runs = [p["run_id"] for p in walked]
    newest_first = [late["id"]] * 12 + [early["id"]] * 12
    assert runs == (newest_first if order == "desc" else newest_first[::-1])
    other = "audience_dataset_run_at" if sort == "created_at" else "created_at"
    response = http.post(
        "/v1/audience_profiles",
        json={"sort": other, "order": order, "limit": 5, "cursor": pages[0]["cursor"]},
    )
    error(response, 400, "invalid_cursor")
