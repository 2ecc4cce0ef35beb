"""Contract tests: the typed ``rdskit.Client`` against a real sandbox over loopback HTTP.

One sandbox serves the whole session (speed 500, so runs finish in milliseconds; rate
limit 10,000/s, so only the rate-limit tests meet a 429). Fixtures:

- ``sandbox``: the session's :class:`~rdskit.sandbox.SandboxHandle`;
- ``client``: an ``rdskit.Client`` on its default Pro account (client-side limiter off);
- ``new_account(plan=..., wallet_usd=..., **client_options)``: an isolated account with
  its own client, for tests that count, list or spend;
- ``collected``: a dataset of the default account with one completed, analysed run,
  shared read-only by the tests that read mentions, profiles and patterns;
- ``collect(client, name)``: a fresh dataset with a completed run; ``finish(obj)`` waits
  on a run-like object at the sandbox's pace;
- ``slowed(sandbox)``: a context manager that slows simulated time, so a run stays in
  flight long enough to be raced deterministically.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import pytest
from contract_support import FAST, PROMPT, SLOW, Account, Collected, collect_into, finish

from rdskit import Client
from rdskit._base_client import HTTPCore
from rdskit.models import Dataset
from rdskit.models._base import unknown_fields
from rdskit.sandbox import SandboxHandle, start


@pytest.fixture(autouse=True)
def strict_responses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every response model the client reads from the sandbox is checked strictly: a field
    or union variant the models do not declare (a misspelled ``mention_count``) fails the
    test, while the client's models themselves stay lenient to the real service."""
    bind = HTTPCore.bind

    def strict_bind(core: HTTPCore, value: Any) -> Any:
        problems = unknown_fields(value)
        assert not problems, f"the sandbox sent what the models do not declare: {problems}"
        return bind(core, value)

    monkeypatch.setattr(HTTPCore, "bind", strict_bind)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    """The session's sandbox."""
    with start(speed=FAST, rate_limit=10_000, seed=41) as handle:
        yield handle


@pytest.fixture(scope="session")
def client(sandbox: SandboxHandle) -> Iterator[Client]:
    """The default account's typed client (the client's own rate limiter off)."""
    with Client(sandbox.api_key, base_url=sandbox.url, rate_limit=None) as c:
        yield c


@pytest.fixture
def new_account(sandbox: SandboxHandle) -> Iterator[Callable[..., Account]]:
    """Factory: ``new_account(plan="Pro", wallet_usd=None, **client_options)``."""
    made: list[Client] = []

    def make(plan: str = "Pro", wallet_usd: Decimal | str | None = None, **options: Any) -> Account:
        created = sandbox.admin.create_account(plan=plan, wallet_usd=wallet_usd)
        options.setdefault("rate_limit", None)
        made.append(Client(created.api_key, base_url=sandbox.url, **options))
        return Account(created.account_id, created.seat_id, created.api_key, made[-1])

    yield make
    for c in made:
        c.close()


@pytest.fixture
def collect() -> Callable[..., Dataset]:
    """``collect(client, name, count=20, **run_options)`` -> a dataset with a completed run."""
    return collect_into


@pytest.fixture(scope="session")
def collected(client: Client) -> Collected:
    """40 analysed mentions with comments, in the default account (read-only for tests)."""
    dataset = client.datasets.create("Oat milk (shared)")
    run = client.datasets.runs.create(
        dataset.id,
        PROMPT,
        count=40,
        num_comments_per_post=2,
        content_analysis_actions=["sentiment", "hook", "cta"],
    )
    return Collected(client.datasets.get(dataset.id), finish(run))


@contextmanager
def _slowed(handle: SandboxHandle, speed: float = SLOW) -> Iterator[None]:
    clock = handle.store.clock
    fast, clock.speed = clock.speed, speed
    try:
        yield
    finally:
        clock.speed = fast


@pytest.fixture
def slowed(sandbox: SandboxHandle) -> Callable[..., Any]:
    """``with slowed():`` work scheduled inside waits ~``1/SLOW`` s per simulated second."""
    return lambda speed=SLOW: _slowed(sandbox, speed)
