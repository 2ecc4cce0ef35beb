"""Fixtures for sandbox tests: a real sandbox served over loopback HTTP.

- ``sandbox``: one handle per test session (speed 500, rate limit 10,000/s).
- ``http``: an ``httpx.Client`` on it with the default account's key; ``connect(handle, key)``
  opens more; ``rds``: the typed ``rdskit.Client`` on it.
- ``new_account``: a factory of isolated accounts (``plan``, ``wallet_usd``), each with its
  own ``http`` client; ``account`` is one fresh Pro account.
- ``api``: assertion helpers (``api.data``, ``api.error``) and ``api.wait_run(http, ds, run)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx
import pytest

from rdskit import Client
from rdskit.sandbox import SandboxHandle, start

FAST = 500.0  # simulated-time speed: a dataset run takes ~15 ms of waiting


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    """The shared sandbox of the session."""
    with start(speed=FAST, rate_limit=10_000, seed=7) as handle:
        yield handle


def client(handle: SandboxHandle, api_key: str | None) -> httpx.Client:
    """An HTTP client on the sandbox, authenticated with ``api_key`` when given."""
    headers = {"x-api-key": api_key} if api_key else {}
    return httpx.Client(base_url=handle.url, headers=headers, timeout=30)


@pytest.fixture
def connect() -> Iterator[Callable[[SandboxHandle, str | None], httpx.Client]]:
    """Factory: ``connect(handle, api_key)`` -> an httpx client closed after the test."""
    opened: list[httpx.Client] = []

    def make(handle: SandboxHandle, api_key: str | None) -> httpx.Client:
        opened.append(client(handle, api_key))
        return opened[-1]

    yield make
    for c in opened:
        c.close()


@pytest.fixture
def http(sandbox: SandboxHandle) -> Iterator[httpx.Client]:
    """The default account's client."""
    with client(sandbox, sandbox.api_key) as c:
        yield c


@pytest.fixture
def rds(sandbox: SandboxHandle) -> Iterator[Client]:
    """The typed ``rdskit.Client`` on the sandbox (default account, client rate limit off)."""
    with Client(sandbox.api_key, base_url=sandbox.url, rate_limit=None) as c:
        yield c


@dataclass
class Account:
    """An isolated test account."""

    account_id: str
    seat_id: str
    api_key: str
    http: httpx.Client


@pytest.fixture
def new_account(sandbox: SandboxHandle) -> Iterator[Callable[..., Account]]:
    """Factory: ``new_account(plan="Pro", wallet_usd=None)`` -> Account (closed after the test)."""
    made: list[Account] = []

    def make(plan: str = "Pro", wallet_usd: Decimal | str | None = None) -> Account:
        created = sandbox.admin.create_account(plan=plan, wallet_usd=wallet_usd)
        account = Account(
            created.account_id, created.seat_id, created.api_key, client(sandbox, created.api_key)
        )
        made.append(account)
        return account

    yield make
    for account in made:
        account.http.close()


@pytest.fixture
def account(new_account: Callable[..., Account]) -> Account:
    """A fresh Pro account with the plan's allotment (178 USD)."""
    return new_account()


class Api:
    """Assertion and polling helpers, shared through the ``api`` fixture."""

    @staticmethod
    def data(response: httpx.Response, status: int = 200) -> Any:
        """Assert the status and the success envelope; return ``data``."""
        assert response.status_code == status, response.text
        body = response.json()
        assert body["status"] in ("success", "info")
        return body["data"]

    @staticmethod
    def error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
        """Assert an error response in the spec's shape; return the body."""
        assert response.status_code == status, response.text
        body: dict[str, Any] = response.json()
        assert body["error_code"] == code, body
        assert body["status"] == ("client_error" if status in (402, 409, 429) else "info")
        assert isinstance(body["transient"], bool)
        assert "detail" in body
        return body

    @staticmethod
    def prompt_run(query: str = "oat milk", count: int = 20, **extra: Any) -> dict[str, Any]:
        """A dataset run request body with a prompt search."""
        return {
            "search_query": {
                "type": "prompt",
                "sources": ["reddit", "tiktok"],
                "search_query": query,
            },
            "count": count,
            **extra,
        }

    @staticmethod
    def wait_run(
        http: httpx.Client, dataset_id: str, run_id: str, timeout: float = 30
    ) -> dict[str, Any]:
        """Poll a dataset run until it is completed or failed."""
        deadline = time.monotonic() + timeout
        while True:
            run: dict[str, Any] = Api.data(http.get(f"/v1/datasets/{dataset_id}/runs/{run_id}"))
            if run["status"]["type"] in ("completed", "failed"):
                return run
            assert time.monotonic() < deadline, f"run {run_id} stuck in {run['status']}"
            time.sleep(0.02)


@pytest.fixture
def api() -> type[Api]:
    """Helpers: ``api.data``, ``api.error``, ``api.prompt_run``, ``api.wait_run``."""
    return Api


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give each operation schemathesis generates a node id of its own.

    Its items are named ``test_x[GET /v1/me]`` but share the bare id ``...::test_x``.
    pytest-xdist sends tests to its workers by node id, so the duplicates collapsed into
    one and 48 of the 49 operations were never fuzzed under ``-n 3``, silently: the run
    reported 48 fewer results than it collected, and nothing failed.
    """
    for item in items:
        suffix = item.name.partition("[")[2]
        if suffix and not item.nodeid.endswith("]"):
            unique = f"{item.nodeid}[{suffix}"
            if hasattr(item, "_id"):  # pytest 9 derives nodeid from a structured id
                from _pytest.nodeid import coerce_node_id

                item._id = coerce_node_id(unique)
            else:
                item._nodeid = unique
            assert item.nodeid == unique, (item.nodeid, unique)
