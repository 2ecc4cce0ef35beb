"""Datasets and dataset runs against a real sandbox: shapes, state machine, run rules."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from rdskit import Client
from rdskit.errors import DatasetNotFound, InsufficientCreditsDatasetRun
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.datasets import STEPS
from rdskit.sandbox.runtime.clock import indexed_until
from rdskit.sandbox.runtime.worker import schedule

if TYPE_CHECKING:
    from conftest import Account, Api

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def _new_dataset(http: httpx.Client, api: type[Api], name: str = "oat milk") -> str:
    dataset_id: str = api.data(http.post("/v1/datasets", json={"name": name}))["id"]
    return dataset_id


def _run(
    http: httpx.Client, api: type[Api], dataset_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    run: dict[str, Any] = api.data(http.post(f"/v1/datasets/{dataset_id}/runs", json=body))
    return run


def _mentions(sandbox: SandboxHandle, dataset_id: str) -> list[dict[str, Any]]:
    """The dataset's stored mentions (read from the store: the mentions API is another part)."""
    with sandbox.store.read() as conn:
        rows = conn.execute(
            "SELECT m.created_at, dm.run_id FROM dataset_mentions dm JOIN datasets d"
            " ON d.id = dm.dataset_id JOIN mentions m ON m.account_id = d.account_id"
            " AND m.source = dm.source AND m.id = dm.id WHERE dm.dataset_id = ?",
            (dataset_id,),
        ).fetchall()
    return [dict(row) for row in rows]


def test_create_get_rename_delete(account: Account, api: type[Api]) -> None:
    created = api.data(account.http.post("/v1/datasets", json={"name": "Oat milk"}))
    assert set(created) == {"id", "name", "created_at"}
    assert created["id"].startswith("ds_") and ISO.match(created["created_at"])
    dataset_id = created["id"]

    got = api.data(account.http.get(f"/v1/datasets/{dataset_id}"))
    assert got["name"] == "Oat milk" and got["created_at"] == created["created_at"]
    assert ISO.match(got["updated_at"])
    assert (got["mentions_count"], got["images_count"], got["videos_count"]) == (0, 0, 0)
    assert got["url"].endswith(f"/datasets/{dataset_id}")

    renamed = api.data(account.http.patch(f"/v1/datasets/{dataset_id}", json={"name": "Oat"}))
    assert renamed["name"] == "Oat" and renamed["updated_at"] >= got["updated_at"]

    api.data(account.http.delete(f"/v1/datasets/{dataset_id}"))
    for response in (
        account.http.get(f"/v1/datasets/{dataset_id}"),
        account.http.patch(f"/v1/datasets/{dataset_id}", json={"name": "x"}),
        account.http.delete(f"/v1/datasets/{dataset_id}"),
        account.http.get(f"/v1/datasets/{dataset_id}/runs"),
        account.http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run()),
    ):
        api.error(response, 404, "dataset_not_found")
    assert dataset_id not in [d["id"] for d in api.data(account.http.get("/v1/datasets"))]


def test_soft_delete_keeps_the_rows(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    dataset_id = _new_dataset(account.http, api)
    run = _run(account.http, api, dataset_id, api.prompt_run(count=5))
    api.wait_run(account.http, dataset_id, run["id"])
    api.data(account.http.delete(f"/v1/datasets/{dataset_id}"))
    with sandbox.store.read() as conn:
        row = conn.execute("SELECT deleted_at FROM datasets WHERE id = ?", (dataset_id,)).fetchone()
    assert row["deleted_at"] is not None
    assert _mentions(sandbox, dataset_id)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"search_query": {"type": "prompt"}},
        {"search_query": {"type": "carrier_pigeon", "search_query": "x"}},
        {"search_query": {"type": "url"}},
        {"search_query": {"type": "prompt", "sources": ["myspace"], "search_query": "x"}},
        {"search_query": {"type": "prompt", "sources": ["reddit", "Reddit"], "search_query": "x"}},
    ],
)
def test_run_request_validation(http: httpx.Client, api: type[Api], body: dict[str, Any]) -> None:
    dataset_id = _new_dataset(http, api)
    response = http.post(f"/v1/datasets/{dataset_id}/runs", json=body)
    assert response.status_code == 422
    assert all(item["loc"][0] == "body" for item in response.json()["detail"])


def test_run_lifecycle(account: Account, api: type[Api]) -> None:
    dataset_id = _new_dataset(account.http, api)
    body = api.prompt_run(
        count=30,
        num_comments_per_post=2,
        language="en",
        country_code="US",
        content_analysis_actions=["sentiment", "hook"],
        enable_transcribing=False,
        enable_visual_recognition=True,
    )
    created = _run(account.http, api, dataset_id, body)
    assert set(created) == {"id", "dataset_id", "count", "requested_count", "created_at", "status"}
    assert created["id"].startswith("dsr_") and created["dataset_id"] == dataset_id
    assert created["status"] == {"type": "pending"}
    assert created["count"] == created["requested_count"] == 30
    assert ISO.match(created["created_at"])

    run = api.wait_run(account.http, dataset_id, created["id"])
    assert run["status"]["type"] == "completed"
    assert [step["name"] for step in run["status"]["steps"]] == list(STEPS)
    for step in run["status"]["steps"]:
        assert step["status"] == "completed"
        assert ISO.match(step["started_at"]) and ISO.match(step["finished_at"])
        assert step["started_at"] <= step["finished_at"]
    assert ISO.match(run["updated_at"]) and run["updated_at"] >= run["created_at"]
    assert 0 < run["mentions_count"] <= 30
    assert run["new_mentions_count"] == run["mentions_count"]
    params = run["params"]
    assert params["search_query"] == body["search_query"]
    for key in ("count", "num_comments_per_post", "language", "country_code"):
        assert params[key] == body[key]
    assert params["content_analysis_actions"] == ["sentiment", "hook"]

    dataset = api.data(account.http.get(f"/v1/datasets/{dataset_id}"))
    assert dataset["mentions_count"] == run["mentions_count"]
    assert dataset["images_count"] + dataset["videos_count"] >= 0
    (listed,) = api.data(account.http.get(f"/v1/datasets/{dataset_id}/runs"))
    assert listed == run


def test_runs_are_observable_while_in_flight(api: type[Api]) -> None:
    seen: set[str] = set()
    with (
        start(speed=20, rate_limit=1000) as slow,  # slow enough to watch every state
        httpx.Client(base_url=slow.url, headers={"x-api-key": slow.api_key}) as http,
    ):
        dataset_id = _new_dataset(http, api)
        run = _run(http, api, dataset_id, api.prompt_run(count=3))
        deadline = time.monotonic() + 10
        while "completed" not in seen and time.monotonic() < deadline:
            got = api.data(http.get(f"/v1/datasets/{dataset_id}/runs/{run['id']}"))
            seen.add(got["status"]["type"])
            if got["status"]["type"] == "working":
                working = [s["name"] for s in got["status"]["steps"] if s["status"] == "working"]
                assert len(working) == 1
            time.sleep(0.01)
    assert seen == {"pending", "working", "completed"}


def test_several_runs_in_flight_and_mentions_accumulate(account: Account, api: type[Api]) -> None:
    dataset_id = _new_dataset(account.http, api)
    runs = [_run(account.http, api, dataset_id, api.prompt_run(count=25)) for _ in range(3)]
    finished = [api.wait_run(account.http, dataset_id, run["id"]) for run in runs]
    assert all(run["status"]["type"] == "completed" for run in finished)
    dataset = api.data(account.http.get(f"/v1/datasets/{dataset_id}"))
    assert dataset["mentions_count"] == sum(run["new_mentions_count"] for run in finished)
    assert all(run["new_mentions_count"] <= run["mentions_count"] for run in finished)
    listed = api.data(account.http.get(f"/v1/datasets/{dataset_id}/runs"))
    assert [run["id"] for run in listed] == [run["id"] for run in runs][::-1]


def test_prompt_search_covers_the_past_year(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    dataset_id = _new_dataset(account.http, api)
    # The window ends where the index ends, the start of the hour the run began in.
    window_end = indexed_until(datetime.now(UTC))
    run = _run(account.http, api, dataset_id, api.prompt_run(count=40))
    api.wait_run(account.http, dataset_id, run["id"])
    now = datetime.now(UTC)
    stamps = [row["created_at"] for row in _mentions(sandbox, dataset_id)]
    assert stamps
    assert min(stamps) >= (window_end - timedelta(days=365)).timestamp()
    assert max(stamps) <= now.timestamp() + 60


def test_explicit_date_range(sandbox: SandboxHandle, account: Account, api: type[Api]) -> None:
    dataset_id = _new_dataset(account.http, api)
    window = {"from": "2024-03-01", "to": "2024-03-31"}
    run = _run(account.http, api, dataset_id, api.prompt_run(count=20, date_range=window))
    finished = api.wait_run(account.http, dataset_id, run["id"])
    assert finished["params"]["date_range"] == window
    start = datetime(2024, 3, 1, tzinfo=UTC).timestamp()
    end = datetime(2024, 4, 1, tzinfo=UTC).timestamp()
    assert all(start <= row["created_at"] < end for row in _mentions(sandbox, dataset_id))


def test_date_range_needs_the_plan_feature(
    new_account: Callable[..., Account], api: type[Api]
) -> None:
    starter = new_account(plan="Starter")
    dataset_id = _new_dataset(starter.http, api)
    body = api.prompt_run(date_range={"from": "2024-01-01", "to": "2024-02-01"})
    response = starter.http.post(f"/v1/datasets/{dataset_id}/runs", json=body)
    api.error(response, 400, "date_filter_unavailable")
    assert api.data(starter.http.get(f"/v1/datasets/{dataset_id}/runs")) == []
    # a url search applies no date filter, so the plan restriction does not apply
    url_run = {"search_query": {"type": "url", "source_urls": ["https://reddit.com/r/oat"]}}
    api.data(starter.http.post(f"/v1/datasets/{dataset_id}/runs", json=url_run))


def test_count_is_capped_by_research_depth(
    new_account: Callable[..., Account], api: type[Api]
) -> None:
    starter = new_account(plan="Starter")  # max_research_depth 500
    dataset_id = _new_dataset(starter.http, api)
    created = _run(starter.http, api, dataset_id, api.prompt_run(count=800))
    assert (created["count"], created["requested_count"]) == (500, 800)


def test_content_type_mismatch(account: Account, api: type[Api]) -> None:
    dataset_id = _new_dataset(account.http, api)
    _run(account.http, api, dataset_id, api.prompt_run(count=2))
    ads = api.prompt_run(count=2)
    ads["search_query"]["content_type"] = "ad"
    response = account.http.post(f"/v1/datasets/{dataset_id}/runs", json=ads)
    api.error(response, 400, "collection_content_type_mismatch")


def test_failed_run(account: Account, api: type[Api]) -> None:
    dataset_id = _new_dataset(account.http, api)
    run = _run(account.http, api, dataset_id, api.prompt_run("oat __fail__", count=10))
    failed = api.wait_run(account.http, dataset_id, run["id"])
    assert failed["status"]["type"] == "failed"
    scraping = failed["status"]["steps"][0]
    assert scraping["name"] == "scraping" and scraping["status"] == "failed"
    assert failed["mentions_count"] == 0
    assert api.data(account.http.get(f"/v1/datasets/{dataset_id}"))["mentions_count"] == 0


def test_a_replayed_tick_changes_nothing(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    """Jobs can run twice after a crash; a stale tick must not re-advance or re-charge."""
    dataset_id = _new_dataset(account.http, api)
    run = _run(account.http, api, dataset_id, api.prompt_run(count=5))
    done = api.wait_run(account.http, dataset_id, run["id"])
    usage = api.data(account.http.get("/v1/me"))["usage"]
    with sandbox.store.transaction() as conn:
        jobs = [
            schedule(conn, "dataset_run.advance", run["id"], payload={"step": step})
            for step in (None, 0, 1, 2)
        ]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with sandbox.store.read() as conn:
            marks = ",".join("?" * len(jobs))
            states = conn.execute(f"SELECT state FROM jobs WHERE id IN ({marks})", jobs).fetchall()
        if all(row["state"] == "done" for row in states):
            break
        time.sleep(0.02)
    assert all(row["state"] == "done" for row in states)
    assert api.data(account.http.get(f"/v1/datasets/{dataset_id}/runs/{run['id']}")) == done
    assert api.data(account.http.get("/v1/me"))["usage"] == usage


def test_through_the_typed_client(sandbox: SandboxHandle, rds: Client) -> None:
    """The rdskit client and the sandbox agree on every shape of this part."""
    dataset = rds.datasets.create("typed")
    assert dataset.id.startswith("ds_") and dataset.mentions_count is None
    query = {"type": "prompt", "sources": ["youtube"], "search_query": "cold brew"}
    run = rds.datasets.runs.create(dataset.id, query, count=12, content_analysis_actions=["cta"])
    assert run.status.type == "pending" and run.requested_count == 12
    done = rds.wait(run, timeout=30)
    assert done.status.type == "completed" and done.mentions_count
    assert [step.name for step in done.status.steps or []] == list(STEPS)
    assert all(step.finished is not None for step in done.status.steps or [])
    assert rds.datasets.get(dataset.id).mentions_count == done.new_mentions_count
    assert dataset.id in [d.id for d in rds.datasets.list(limit=2)]  # iterates every page
    rds.datasets.delete(dataset.id)
    with pytest.raises(DatasetNotFound):
        rds.datasets.get(dataset.id)
    poor = sandbox.admin.create_account(wallet_usd="0.01")
    with Client(poor.api_key, base_url=sandbox.url, rate_limit=None) as broke:
        target = broke.datasets.create("poor")
        with pytest.raises(InsufficientCreditsDatasetRun) as caught:
            broke.datasets.runs.create(target.id, query, count=10)
    assert caught.value.available == Decimal("0.01")
    assert caught.value.required_credits == Decimal("10")
