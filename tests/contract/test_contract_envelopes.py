"""What the client parses: the raw envelopes, error bodies and headers behind typed calls.

The client is given an ``httpx.Client`` whose response hook keeps every raw exchange, then
a sweep of typed calls (success, list and error answers) runs; each raw answer must have
the spec's shape, and the typed values must say what the bodies say.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from contract_support import PROMPT, Collected, finish

from rdskit import APIError, Client
from rdskit.sandbox import SandboxHandle

Exchange = tuple[httpx.Request, httpx.Response, Any]


@pytest.fixture
def recorded(sandbox: SandboxHandle) -> Iterator[tuple[Client, list[Exchange]]]:
    """A typed client whose every raw exchange is kept, in order."""
    seen: list[Exchange] = []

    def keep(response: httpx.Response) -> None:
        response.read()
        seen.append((response.request, response, response.json() if response.content else None))

    with (
        httpx.Client(event_hooks={"response": [keep]}, timeout=30) as http,
        Client(sandbox.api_key, base_url=sandbox.url, rate_limit=None, http_client=http) as c,
    ):
        yield c, seen


def _sweep(client: Client, collected: Collected) -> None:
    """One call of each kind the spec describes, errors included."""
    dataset = client.datasets.create("envelopes")
    finish(client.datasets.runs.create(dataset.id, PROMPT, count=5))
    client.datasets.list(limit=2)
    client.datasets.runs.list(dataset.id)
    client.mentions.list(dataset_ids=[collected.dataset.id], limit=3)
    client.custom_parameters.list()
    client.tracking_agents.list()
    client.me()
    client.usage_history(limit=2)
    client.prices()
    for failing in (
        lambda: client.datasets.get("ds_missing"),
        lambda: client.mentions.list(sort="loudness"),
        lambda: client.mentions.list(cursor="garbage"),
    ):
        with pytest.raises(APIError):
            failing()


def _is_page(request: httpx.Request) -> bool:
    """A paginated list call of the sweep."""
    path = request.url.path
    if request.method == "POST":
        return path == "/v1/mentions"
    return path in ("/v1/datasets", "/v1/me/usage_history") or path.endswith("/runs")


def test_every_answer_has_the_spec_shape(
    recorded: tuple[Client, list[Exchange]], collected: Collected
) -> None:
    client, seen = recorded
    _sweep(client, collected)
    assert len(seen) > 10
    for request, response, body in seen:
        where = f"{request.method} {request.url.path}"
        assert {"ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"} <= set(
            response.headers
        ), where
        if response.is_success:
            assert body["status"] in ("info", "success") and "data" in body, where
            if _is_page(request):
                assert isinstance(body["has_next"], bool), where
                assert body["cursor"] is None or isinstance(body["cursor"], str), where
        elif response.status_code == 422:
            assert all({"loc", "msg", "type"} <= set(issue) for issue in body["detail"]), where
        else:
            assert set(body) >= {"status", "error_code", "detail", "transient"}, where
            assert isinstance(body["transient"], bool), where


def test_plain_lists_have_no_pagination_fields(
    recorded: tuple[Client, list[Exchange]],
) -> None:
    client, seen = recorded
    assert isinstance(client.custom_parameters.list(), list)
    assert isinstance(client.tracking_agents.list(), list)
    for _, _, body in seen:
        assert isinstance(body["data"], list) and "has_next" not in body


def test_typed_values_say_what_the_bodies_say(
    recorded: tuple[Client, list[Exchange]], collected: Collected
) -> None:
    client, seen = recorded
    calls: list[Callable[[], Any]] = [
        lambda: client.datasets.get(collected.dataset.id),
        lambda: client.datasets.runs.get(collected.dataset.id, collected.run.id),
        lambda: client.me(),
        lambda: client.prices(),
    ]
    for call in calls:
        value = call()
        body = seen[-1][2]
        assert value.to_wire() == body["data"]  # timestamps, money and extras round-trip
    pages: list[Callable[[], Any]] = [
        lambda: client.mentions.list(dataset_ids=[collected.dataset.id], limit=20),
        lambda: client.usage_history(limit=20),
        lambda: client.datasets.runs.list(collected.dataset.id),
    ]
    for call in pages:
        page = call()
        body = seen[-1][2]
        assert [item.to_wire() for item in page.data] == body["data"]
        assert (page.has_next, page.cursor) == (body["has_next"], body["cursor"])
