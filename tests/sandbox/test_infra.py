"""Sandbox infrastructure over real HTTP: auth, envelopes, errors, pagination, cursors,
rate limits, persistence and concurrency."""

from __future__ import annotations

import base64
import json
import logging
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.runtime.ratelimit import RateLimiter
from rdskit.sandbox.runtime.worker import Worker, _busy, register, schedule
from rdskit.sandbox.store.cursors import Order, Sort, keyset

if TYPE_CHECKING:
    from conftest import Account, Api

Connect = Callable[[SandboxHandle, "str | None"], httpx.Client]
SPEED = 500.0


def test_startup_is_fast_and_stop_is_clean() -> None:
    began = time.monotonic()
    handle = start()
    try:
        assert time.monotonic() - began < 3
        assert handle.url.startswith("http://127.0.0.1:") and not handle.url.endswith("/v1")
        assert handle.api_key.startswith("bz_test_") and len(handle.api_key) == len("bz_test_") + 32
        assert httpx.get(f"{handle.url}/sandbox/health").status_code == 200
    finally:
        handle.stop()
        handle.stop()  # idempotent
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{handle.url}/sandbox/health")


def test_list_envelope(http: httpx.Client) -> None:
    body = http.get("/v1/datasets", params={"limit": 1}).json()
    assert set(body) == {"status", "data", "has_next", "cursor"}
    assert body["status"] == "success" and isinstance(body["has_next"], bool)


@pytest.mark.parametrize("headers", [{}, {"x-api-key": "bz_test_" + "0" * 32}])
def test_missing_or_unknown_key_is_401_without_rate_headers(
    sandbox: SandboxHandle, headers: dict[str, str], api: type[Api]
) -> None:
    response = httpx.get(f"{sandbox.url}/v1/datasets", params={"limit": 1}, headers=headers)
    body = api.error(response, 401, "unauthorized")
    assert body["transient"] is False
    assert "ratelimit-limit" not in response.headers


def test_revoked_key_fails_immediately(
    sandbox: SandboxHandle, account: Account, api: type[Api], connect: Connect
) -> None:
    spare = sandbox.admin.create_key(account.seat_id)
    spare_http = connect(sandbox, spare)
    api.data(spare_http.get("/v1/datasets", params={"limit": 1}))
    sandbox.admin.revoke_key(spare)
    api.error(spare_http.get("/v1/datasets", params={"limit": 1}), 401, "unauthorized")
    api.data(account.http.get("/v1/datasets", params={"limit": 1}))  # other keys unaffected


def test_removing_a_seat_deletes_its_keys(
    sandbox: SandboxHandle, account: Account, api: type[Api], connect: Connect
) -> None:
    seat = sandbox.admin.create_seat(account.account_id, email="mate@example.test", name="Mate")
    mate = connect(sandbox, sandbox.admin.create_key(seat))
    api.data(mate.get("/v1/datasets"))
    sandbox.admin.delete_seat(seat)
    api.error(mate.get("/v1/datasets"), 401, "unauthorized")


def test_admin_endpoints_need_the_token(sandbox: SandboxHandle) -> None:
    response = httpx.post(f"{sandbox.url}/sandbox/accounts", json={})
    assert response.status_code == 401
    wrong = httpx.post(f"{sandbox.url}/sandbox/accounts", json={}, headers={"x-admin-token": "x"})
    assert wrong.status_code == 401


def test_validation_error_shape(http: httpx.Client) -> None:
    response = http.post("/v1/datasets", json={})
    assert response.status_code == 422
    body = response.json()
    assert set(body) == {"detail"}
    for item in body["detail"]:
        assert set(item) == {"loc", "msg", "type"}
        assert all(isinstance(part, str) for part in item["loc"])
    assert ["body", "name"] in [item["loc"] for item in body["detail"]]


def test_malformed_json_is_422(http: httpx.Client) -> None:
    response = http.post(
        "/v1/datasets", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert set(response.json()) == {"detail"}


def test_unknown_route_and_removed_credit_prices_are_404(
    http: httpx.Client, api: type[Api]
) -> None:
    for method in ("GET", "POST", "PUT", "DELETE"):
        api.error(http.request(method, "/v1/credit_prices"), 404, "not_found")
    api.error(http.get("/v1/nothing_here"), 404, "not_found")


@pytest.mark.parametrize(
    "params", [{"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"order": "sideways"}]
)
def test_list_parameter_bounds(http: httpx.Client, params: dict[str, object]) -> None:
    response = http.get("/v1/datasets", params=params)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][0] == "query"


def _create_datasets(account: Account, n: int, api: type[Api]) -> list[str]:
    return [
        api.data(account.http.post("/v1/datasets", json={"name": f"d{i}"}))["id"] for i in range(n)
    ]


def _walk(http: httpx.Client, path: str, **params: object) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        query = {**params, **({"cursor": cursor} if cursor else {})}
        body = http.get(path, params=query).json()
        pages.append([item["id"] for item in body["data"]])
        if not body["has_next"]:
            assert body["cursor"] is None
            return pages
        cursor = body["cursor"]
        assert isinstance(cursor, str) and cursor


def test_keyset_pagination_defaults_and_orders(account: Account, api: type[Api]) -> None:
    created = _create_datasets(account, 23, api)
    default = account.http.get("/v1/datasets").json()
    assert len(default["data"]) == 10 and default["has_next"] is True
    desc = _walk(account.http, "/v1/datasets")
    assert [len(p) for p in desc] == [10, 10, 3]
    assert [i for p in desc for i in p] == created[::-1]
    asc = _walk(account.http, "/v1/datasets", order="asc", limit=7)
    assert [i for p in asc for i in p] == created
    everything = account.http.get("/v1/datasets", params={"limit": 100}).json()
    assert len(everything["data"]) == 23 and everything["has_next"] is False


def test_pagination_is_stable_while_rows_are_added(account: Account, api: type[Api]) -> None:
    created = _create_datasets(account, 5, api)
    first = account.http.get("/v1/datasets", params={"limit": 2}).json()
    _create_datasets(account, 3, api)  # newer rows must not shift the next page
    rest = account.http.get("/v1/datasets", params={"limit": 10, "cursor": first["cursor"]}).json()
    assert [d["id"] for d in first["data"] + rest["data"]] == created[::-1]


def test_invalid_cursors(account: Account, api: type[Api]) -> None:
    _create_datasets(account, 3, api)
    cursor = account.http.get("/v1/datasets", params={"limit": 1}).json()["cursor"]
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    forged_payload = json.loads(raw[12:]) | {"k": [0, "ds_0"]}
    forged = base64.urlsafe_b64encode(raw[:12] + json.dumps(forged_payload).encode()).decode()
    for bad in ("garbage!", "bm90IGEgY3Vyc29y", forged):
        body = api.error(
            account.http.get("/v1/datasets", params={"cursor": bad}), 400, "invalid_cursor"
        )
        assert body["transient"] is False
    # the same cursor under another order is another sort dimension
    api.error(
        account.http.get("/v1/datasets", params={"cursor": cursor, "order": "asc"}),
        400,
        "invalid_cursor",
    )


def test_a_cursor_is_bound_to_its_list(account: Account, api: type[Api]) -> None:
    ids = _create_datasets(account, 2, api)
    for dataset_id in ids:
        for _ in range(2):
            api.data(
                account.http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=1))
            )
    cursor = account.http.get(f"/v1/datasets/{ids[0]}/runs", params={"limit": 1}).json()["cursor"]
    api.error(
        account.http.get(f"/v1/datasets/{ids[1]}/runs", params={"cursor": cursor}),
        400,
        "invalid_cursor",
    )
    datasets_cursor = account.http.get("/v1/datasets", params={"limit": 1}).json()["cursor"]
    assert account.http.get("/v1/datasets", params={"cursor": datasets_cursor}).status_code == 200
    api.error(
        account.http.get("/v1/me/usage_history", params={"cursor": datasets_cursor}),
        400,
        "invalid_cursor",
    )


def test_accounts_are_isolated(new_account: Callable[..., Account], api: type[Api]) -> None:
    owner, stranger = new_account(), new_account()
    dataset_id = api.data(owner.http.post("/v1/datasets", json={"name": "mine"}))["id"]
    for request in (
        stranger.http.get(f"/v1/datasets/{dataset_id}"),
        stranger.http.patch(f"/v1/datasets/{dataset_id}", json={"name": "theirs"}),
        stranger.http.delete(f"/v1/datasets/{dataset_id}"),
        stranger.http.get(f"/v1/datasets/{dataset_id}/runs"),
        stranger.http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run()),
    ):
        api.error(request, 404, "dataset_not_found")
    assert api.data(stranger.http.get("/v1/datasets")) == []
    assert api.data(owner.http.get(f"/v1/datasets/{dataset_id}"))["name"] == "mine"


def test_keys_of_one_account_share_its_resources(
    sandbox: SandboxHandle, account: Account, api: type[Api], connect: Connect
) -> None:
    seat = sandbox.admin.create_seat(account.account_id, email="b@example.test", name="B")
    teammate = connect(sandbox, sandbox.admin.create_key(seat))
    dataset_id = api.data(teammate.post("/v1/datasets", json={"name": "shared"}))["id"]
    assert api.data(account.http.get(f"/v1/datasets/{dataset_id}"))["name"] == "shared"


# -- rate limit -----------------------------------------------------------------------
@pytest.fixture
def limited() -> Iterator[SandboxHandle]:
    """A sandbox with the service's real rate: 5 requests per second per key."""
    with start(speed=SPEED) as handle:
        yield handle


def test_rate_limit_headers_and_429(
    limited: SandboxHandle, api: type[Api], connect: Connect
) -> None:
    http = connect(limited, limited.api_key)
    first = http.get("/v1/datasets", params={"limit": 1})
    assert first.headers["RateLimit-Limit"] == "5"
    assert first.headers["RateLimit-Remaining"] == "4"
    assert int(first.headers["RateLimit-Reset"]) >= 1
    responses = [http.get("/v1/datasets", params={"limit": 1}) for _ in range(10)]
    refused = next(r for r in responses if r.status_code == 429)
    body = api.error(refused, 429, "too_many_requests")
    assert body["transient"] is True
    assert isinstance(body["retry_after_seconds"], int | float) and body["retry_after_seconds"] > 0
    assert refused.headers["Retry-After"] == "1"  # whole seconds, rounded up
    assert refused.headers["RateLimit-Remaining"] == "0"
    # another key has its own bucket
    other = limited.admin.create_account()
    assert connect(limited, other.api_key).get("/v1/datasets").status_code == 200
    time.sleep(float(refused.headers["Retry-After"]))
    assert http.get("/v1/datasets", params={"limit": 1}).status_code == 200


def test_admin_and_unauthenticated_calls_are_not_limited(limited: SandboxHandle) -> None:
    codes = {httpx.get(f"{limited.url}/sandbox/health").status_code for _ in range(12)}
    assert codes == {200}


# -- persistence ------------------------------------------------------------------------
def _until(http: httpx.Client, path: str, done: Callable[[Any], bool]) -> None:
    """Poll ``GET path`` until ``done(data)``."""
    deadline = time.monotonic() + 30
    while not done(http.get(path).json()["data"]):
        assert time.monotonic() < deadline, f"{path} never got there"
        time.sleep(0.02)


def _over(data: Any) -> bool:
    return data["status"]["type"] in ("completed", "failed")


def _build_everything(http: httpx.Client, api: type[Api]) -> tuple[list[str], str]:
    """One of every resource, finished; the GET paths showing them and the parameter id."""
    dataset_id = api.data(http.post("/v1/datasets", json={"name": "kept"}))["id"]
    run_id = api.data(http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run()))["id"]
    api.wait_run(http, dataset_id, run_id)
    audience_id = api.data(http.post("/v1/audience_datasets", json={"name": "a"}))["id"]
    body = {"source_dataset_id": dataset_id, "total_profile_count": 5}
    audience_run = api.data(http.post(f"/v1/audience_datasets/{audience_id}/runs", json=body))
    parameter = {"name": "Brand", "instructions": "One of: Oatly, Alpro", "value_type": "string"}
    parameter_id = api.data(http.post("/v1/custom_parameters", json=parameter))["id"]
    scope = {"scope": {"kind": "dataset", "id": dataset_id}}
    parameter_run = api.data(http.post(f"/v1/custom_parameters/{parameter_id}/runs", json=scope))
    question = {"dataset_id": dataset_id, "name": "p", "research_question": "Why?"}
    detection = api.data(http.post("/v1/pattern_detections", json=question))["run_id"]
    preview = {"type": "prompt", "search_query": "oat", "sources": ["reddit"], "time_filter": "1w"}
    preview_id = api.data(http.post("/v1/research_previews", json=preview))["preview_id"]
    agent = {
        "name": "t",
        "instructions": "complaints",
        "dataset_ids": [dataset_id],
        "count": 5,
        "num_comments_per_post": 0,
        "schedule": {"frequency": "weekly", "time": "09:00", "day": "monday"},
    }
    agent_id = api.data(http.post("/v1/tracking_agents", json=agent))["id"]
    api.data(http.post(f"/v1/tracking_agents/{agent_id}/trigger"))
    _until(http, f"/v1/audience_datasets/{audience_id}/runs/{audience_run['id']}", _over)
    _until(http, f"/v1/custom_parameters/{parameter_id}/runs/{parameter_run['run_id']}", _over)
    _until(http, f"/v1/pattern_detections/{detection}", lambda data: "pattern_id" in data)
    _until(http, f"/v1/tracking_agents/{agent_id}/messages", bool)
    paths = [
        "/v1/me",
        "/v1/me/usage_history",
        "/v1/datasets",
        f"/v1/datasets/{dataset_id}/runs",
        "/v1/audience_datasets",
        f"/v1/audience_datasets/{audience_id}/runs",
        "/v1/custom_parameters",
        f"/v1/custom_parameters/{parameter_id}/runs",
        f"/v1/pattern_detections/{detection}",
        f"/v1/research_previews/{preview_id}",
        "/v1/tracking_agents",
        f"/v1/tracking_agents/{agent_id}/messages",
    ]
    return paths, parameter_id


def _everything(http: httpx.Client, paths: list[str], parameter_id: str) -> list[Any]:
    """Every list and resource of the account as the API shows it."""
    shown = [http.get(path).json() for path in paths]
    mentions = {"limit": 100, "parameter_ids": [parameter_id]}
    shown.append(http.post("/v1/mentions", json=mentions).json())
    shown.append(http.post("/v1/audience_profiles", json={"limit": 100}).json())
    return shown


def test_file_database_survives_restart(tmp_path: Path, api: type[Api], connect: Connect) -> None:
    path = tmp_path / "sandbox.db"
    with start(db=path, speed=SPEED, rate_limit=1000, seed=3) as first:
        other = first.admin.create_account(plan="Starter")
        revoked = first.admin.create_key(other.seat_id)
        first.admin.revoke_key(revoked)
        http = connect(first, first.api_key)
        paths, parameter_id = _build_everything(http, api)
        before = _everything(http, paths, parameter_id)
    assert all(shown["status"] == "success" and shown["data"] for shown in before)
    with start(db=path, speed=SPEED, rate_limit=1000, seed=99) as second:
        assert second.api_key == first.api_key  # the database keeps its seed
        http = connect(second, second.api_key)
        assert _everything(http, paths, parameter_id) == before
        assert connect(second, other.api_key).get("/v1/me").status_code == 200
        api.error(connect(second, revoked).get("/v1/me"), 401, "unauthorized")


def test_jobs_resume_after_a_restart(tmp_path: Path, api: type[Api], connect: Connect) -> None:
    path = tmp_path / "sandbox.db"
    with start(db=path, speed=0.01, rate_limit=1000) as slow:
        http = connect(slow, slow.api_key)
        dataset_id = api.data(http.post("/v1/datasets", json={"name": "resume"}))["id"]
        run = api.prompt_run(count=3)
        run_id = api.data(http.post(f"/v1/datasets/{dataset_id}/runs", json=run))["id"]
    with start(db=path, speed=1e6, rate_limit=1000) as fast:
        # The persisted job is due 100 s from its creation (old speed): bring it forward.
        with fast.store.transaction() as conn:
            conn.execute("UPDATE jobs SET run_at = 0 WHERE ref_id = ?", (run_id,))
        fast.store.jobs_changed.set()
        finished = api.wait_run(connect(fast, fast.api_key), dataset_id, run_id)
        assert finished["status"]["type"] == "completed"


# -- concurrency ------------------------------------------------------------------------
def test_concurrent_creates_reads_and_deletes_lose_nothing(
    account: Account, api: type[Api]
) -> None:
    created: list[str] = []
    deleted: list[str] = []
    lock = threading.Lock()
    failures: list[str] = []

    def worker(n: int) -> None:
        for i in range(12):
            response = account.http.post("/v1/datasets", json={"name": f"w{n}-{i}"})
            if response.status_code != 200:
                failures.append(response.text)
                continue
            dataset_id = response.json()["data"]["id"]
            with lock:
                created.append(dataset_id)
            listing = account.http.get("/v1/datasets", params={"limit": 5})
            if listing.status_code != 200:
                failures.append(listing.text)
            if i % 3 == 0:
                gone = account.http.delete(f"/v1/datasets/{dataset_id}")
                if gone.status_code != 200:
                    failures.append(gone.text)
                with lock:
                    deleted.append(dataset_id)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    assert not failures
    assert len(set(created)) == len(created) == 96
    remaining = [i for p in _walk(account.http, "/v1/datasets", limit=100) for i in p]
    assert sorted(remaining) == sorted(set(created) - set(deleted))


def test_concurrent_runs_never_overspend(
    new_account: Callable[..., Account], api: type[Api]
) -> None:
    # Pro: one mention costs 0.0148333333333333 USD; fund exactly five runs of 10 mentions.
    account = new_account(wallet_usd="0.741666666666665")
    dataset_id = api.data(account.http.post("/v1/datasets", json={"name": "race"}))["id"]

    def attempt(_: int) -> int:
        response = account.http.post(
            f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=10)
        )
        return response.status_code

    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(attempt, range(12)))
    assert sorted(codes) == [200] * 5 + [402] * 7
    runs = api.data(account.http.get(f"/v1/datasets/{dataset_id}/runs", params={"limit": 100}))
    assert len(runs) == 5


# -- command line -----------------------------------------------------------------------
def test_cli_serves_and_stops_on_sigterm(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "rdskit.cli",
        "sandbox",
        "--port",
        "0",
        "--db",
        str(tmp_path / "cli.db"),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(5)]
        found = dict(re.findall(r"(base URL|API key)\s*: (\S+)", "".join(lines)))
        response = httpx.get(
            f"{found['base URL']}/v1/me", headers={"x-api-key": found["API key"]}, timeout=60
        )
        assert response.status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        # Bounds for a loaded 2-core machine (seconds idle): a hang still fails here.
        assert process.wait(timeout=90) == 0


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ("datasets", "account_id = ? AND deleted_at IS NULL"),
        ("dataset_runs", "dataset_id = ?"),
        ("usage_rows", "account_id = ?"),
    ],
)
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_keyset_pages_are_index_searches(
    sandbox: SandboxHandle, table: str, where: str, order: Order
) -> None:
    """A deep page costs what the first costs: an index search, no sort, no OFFSET."""
    key_where, key_params, order_by = keyset(
        Sort("created_at", "created_at", "id"), order, (1.0, "x")
    )
    sql = f"SELECT * FROM {table} WHERE ({where}) AND {key_where} ORDER BY {order_by} LIMIT 11"
    with sandbox.store.read() as conn:
        plan = " ".join(
            row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", ["a", *key_params])
        )
    assert "USING INDEX" in plan and "TEMP B-TREE" not in plan, plan


# -- robustness ---------------------------------------------------------------------------
def test_rate_limit_windows() -> None:
    """Five calls per one-second window per key, whatever the pace inside the window."""
    now = [100.0]
    limiter = RateLimiter(5, clock=lambda: now[0])
    burst = [limiter.hit("key") for _ in range(6)]
    assert [d.allowed for d in burst] == [True] * 5 + [False]
    assert [d.remaining for d in burst] == [4, 3, 2, 1, 0, 0]
    assert burst[0].headers() == {
        "RateLimit-Limit": "5",
        "RateLimit-Remaining": "4",
        "RateLimit-Reset": "1",
    }
    now[0] += 0.75  # a slow burst is no better off: the window has not ended
    refused = limiter.hit("key")
    assert not refused.allowed and refused.retry_after == pytest.approx(0.25)
    assert refused.headers()["Retry-After"] == "1"
    assert limiter.hit("another key").remaining == 4
    now[0] += 0.25
    assert limiter.hit("key").remaining == 4  # a new window


def test_worker_survives_a_write_lock_longer_than_busy_timeout(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = open_store(tmp_path / "busy.db", busy_timeout=0.05)
    ran = threading.Event()
    register("test.after_lock", lambda _store, _job: ran.set())
    worker = Worker(store, threads=1)
    worker.start()
    blocker = sqlite3.connect(store.path, isolation_level=None)
    try:
        with store.transaction() as conn:
            schedule(conn, "test.after_lock", "x")
        blocker.execute("BEGIN IMMEDIATE")  # e.g. a huge seed holding the write lock
        with caplog.at_level(logging.WARNING, logger="rdskit.sandbox.runtime.worker"):
            deadline = time.monotonic() + 10
            while "database busy" not in caplog.text:
                assert time.monotonic() < deadline, "the worker never hit the lock"
                time.sleep(0.02)
        blocker.execute("COMMIT")
        assert ran.wait(10), "the job did not run once the lock was released"
        assert all(thread.is_alive() for thread in worker._threads)
    finally:
        blocker.close()
        worker.stop()
        store.close()


def test_runs_reads_and_deletes_interleaved_lose_and_duplicate_nothing(
    sandbox: SandboxHandle, new_account: Callable[..., Account], api: type[Api]
) -> None:
    """Runs start, complete, are read and have their dataset deleted from eight threads.
    Afterwards every run is over, each live dataset holds exactly the posts its completed
    runs brought (once each), runs of the deleted dataset either finished first or failed,
    and the wallet charged exactly the completed runs with nothing left on hold."""
    account = new_account(plan="Business", wallet_usd="1000")
    http = account.http
    datasets = [api.data(http.post("/v1/datasets", json={"name": f"c{n}"}))["id"] for n in range(3)]
    doomed = datasets[2]
    started: list[tuple[str, str]] = []
    problems: list[str] = []
    lock = threading.Lock()

    def starter(n: int) -> None:
        for i in range(5):
            dataset_id = datasets[(n + i) % 3]
            body = api.prompt_run(query=("oat milk", "cold brew", "matcha")[i % 3], count=15)
            response = http.post(f"/v1/datasets/{dataset_id}/runs", json=body)
            if response.status_code == 200:
                with lock:
                    started.append((dataset_id, response.json()["data"]["id"]))
            elif (dataset_id, response.status_code) != (doomed, 404):
                problems.append(response.text)

    def reader(_: int) -> None:
        for _ in range(15):
            for response in (
                http.post("/v1/mentions", json={"dataset_ids": datasets[:2], "limit": 50}),
                http.get(f"/v1/datasets/{datasets[0]}/runs", params={"limit": 100}),
                http.get("/v1/datasets", params={"limit": 100}),
            ):
                if response.status_code != 200:
                    problems.append(response.text)

    def deleter(_: int) -> None:
        time.sleep(0.05)
        if http.delete(f"/v1/datasets/{doomed}").status_code != 200:
            problems.append("delete failed")

    with ThreadPoolExecutor(8) as pool:
        jobs = [pool.submit(starter, n) for n in range(5)]
        jobs += [pool.submit(reader, n) for n in range(2)] + [pool.submit(deleter, 0)]
        for job in jobs:
            job.result()
    assert not problems
    deadline = time.monotonic() + 60
    while True:
        with sandbox.store.read() as conn:
            rows = [
                conn.execute("SELECT * FROM dataset_runs WHERE id = ?", (run_id,)).fetchone()
                for _, run_id in started
            ]
        if all(row["status"] in ("completed", "failed") for row in rows):
            break
        assert time.monotonic() < deadline, "runs never finished"
        time.sleep(0.05)
    completed = [row for row in rows if row["status"] == "completed"]
    assert all(row["dataset_id"] == doomed for row in rows if row["status"] == "failed")
    for dataset_id in datasets[:2]:
        mine = [row for row in completed if row["dataset_id"] == dataset_id]
        listed = [(m["source"], m["id"]) for page in _walk_mentions(http, dataset_id) for m in page]
        assert len(listed) == len(set(listed)) == sum(row["new_mentions_count"] for row in mine)
    with sandbox.store.read() as conn:
        (doomed_members,) = conn.execute(
            "SELECT COUNT(*) FROM dataset_mentions WHERE dataset_id = ?", (doomed,)
        ).fetchone()
    assert doomed_members == sum(
        row["new_mentions_count"] for row in completed if row["dataset_id"] == doomed
    )
    wallet = sandbox.admin.account(account.account_id)["wallet"]
    unit = Decimal(str(api.data(http.get("/v1/prices"))["prices"]["mention"]))
    assert Decimal(wallet["held_usd"]) == 0
    assert Decimal(wallet["used_usd"]) == sum(row["mentions_count"] for row in completed) * unit


def _walk_mentions(http: httpx.Client, dataset_id: str) -> Iterator[list[dict[str, object]]]:
    cursor = None
    while True:
        page = http.post(
            "/v1/mentions", json={"dataset_ids": [dataset_id], "limit": 100, "cursor": cursor}
        ).json()
        yield page["data"]
        if not page["has_next"]:
            return
        cursor = page["cursor"]


@pytest.mark.parametrize(
    ("code", "busy"),
    [
        (sqlite3.SQLITE_BUSY, True),
        (517, True),  # SQLITE_BUSY_SNAPSHOT: it stopped the worker in CI under load
        (261, True),  # SQLITE_BUSY_RECOVERY
        (262, True),  # SQLITE_LOCKED_SHAREDCACHE
        (sqlite3.SQLITE_CORRUPT, False),
        (None, False),  # raised by hand, not by SQLite
    ],
)
def test_a_busy_database_is_known_by_its_primary_code(code: int | None, busy: bool) -> None:
    exc = sqlite3.OperationalError("database is locked")
    if code is not None:
        exc.sqlite_errorcode = code
    assert _busy(exc) is busy


_CLOSE_DURING_A_STATEMENT = """
import sqlite3, sys, threading, time
from rdskit.sandbox.store.db import Store, StoreClosed

store = Store(sys.argv[1])
started, ended = threading.Event(), []

def long_read():
    try:
        with store.read() as conn:
            started.set()
            # A statement of several seconds: close() arrives while it runs.
            conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                " WHERE i < 300000000) SELECT count(*) FROM n"
            ).fetchone()
        ended.append("finished")
    except StoreClosed:
        ended.append("closed")

thread = threading.Thread(target=long_read)
thread.start()
started.wait()
time.sleep(0.2)
began = time.monotonic()
store.close()
thread.join()
print(ended[0], round(time.monotonic() - began, 1))
"""


def test_closing_the_store_under_a_running_statement_ends_it_quietly(tmp_path: Path) -> None:
    """CI crashed (SIGSEGV in the worker's executemany) when Worker.stop() gave up on a
    long job and Store.close() closed the connection under its statement. close() now
    interrupts it and waits for the thread to leave before closing."""
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-c",
            _CLOSE_DURING_A_STATEMENT,
            str(tmp_path / "db.sqlite"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    outcome, seconds = done.stdout.split()
    assert outcome == "closed"  # interrupted, not run to its end
    assert float(seconds) < 5
