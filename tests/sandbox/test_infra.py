"""Sandbox infrastructure over real HTTP: auth, envelopes, errors, pagination, cursors,
rate limits, persistence and concurrency."""

from __future__ import annotations

import base64
import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.cursors import Order, Sort, keyset

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
    api.error(http.get("/v1/credit_prices"), 404, "not_found")
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
def test_file_database_survives_restart(tmp_path: Path, api: type[Api], connect: Connect) -> None:
    path = tmp_path / "sandbox.db"
    with start(db=path, speed=SPEED, rate_limit=1000, seed=3) as first:
        other = first.admin.create_account(plan="Starter")
        revoked = first.admin.create_key(other.seat_id)
        first.admin.revoke_key(revoked)
        http = connect(first, first.api_key)
        dataset_id = api.data(http.post("/v1/datasets", json={"name": "kept"}))["id"]
        run = api.prompt_run(count=5)
        run_id = api.data(http.post(f"/v1/datasets/{dataset_id}/runs", json=run))["id"]
        finished = api.wait_run(http, dataset_id, run_id)
        usage_before = api.data(http.get("/v1/me"))["usage"]
    with start(db=path, speed=SPEED, rate_limit=1000, seed=99) as second:
        assert second.api_key == first.api_key  # the database keeps its seed
        http = connect(second, second.api_key)
        assert api.data(http.get(f"/v1/datasets/{dataset_id}"))["name"] == "kept"
        assert api.data(http.get(f"/v1/datasets/{dataset_id}/runs/{run_id}")) == finished
        assert api.data(http.get("/v1/me"))["usage"] == usage_before
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
    # Pro: one mention costs 0.014833333333 USD; fund exactly five runs of 10 mentions.
    account = new_account(wallet_usd="0.74166666665")
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
        response = httpx.get(f"{found['base URL']}/v1/me", headers={"x-api-key": found["API key"]})
        assert response.status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0


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
