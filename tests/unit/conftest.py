"""Fixtures of the client unit tests: ``api`` (a :class:`mockapi.MockAPI`), ``client`` and
``make_client(**options)`` (sync clients on it; limiter off, sleeps recorded in
``client.slept``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from mockapi import BASE_URL, MockAPI, make_key

import rdskit


@pytest.fixture
def api() -> MockAPI:
    return MockAPI()


@pytest.fixture
def make_client(api: MockAPI) -> Iterator[Callable[..., rdskit.Client]]:
    """Factory of sync clients on ``api`` (limiter off, sleeps recorded) closed after."""
    made: list[rdskit.Client] = []

    def make(**options: Any) -> rdskit.Client:
        options.setdefault("api_key", make_key())
        options.setdefault("rate_limit", None)
        client = rdskit.Client(
            base_url=BASE_URL, transport=httpx.MockTransport(api.handle), **options
        )
        client.slept = []
        client._sleep = client.slept.append
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def client(make_client: Callable[..., rdskit.Client]) -> rdskit.Client:
    return make_client()
