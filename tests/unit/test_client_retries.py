"""Which calls are retried, and which raise OutcomeUnknown instead."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import samples as s
from mockapi import MockAPI, Reply, error, make_aclient, ok, page

import rdskit
from rdskit._base_client import HTTPCore
from rdskit.errors import (
    APIConnectionError,
    APITimeoutError,
    NotFound,
    OutcomeUnknown,
    ServerError,
    TooManyRequests,
)

UNAVAILABLE = Reply(
    503, {"status": "info", "error_code": "unavailable", "detail": "down", "transient": True}
)
TOO_MANY = error(429, "too_many_requests", "slow down", transient=True, retry_after_seconds=0.25)

Call = Callable[[Any], Any]

# (call, method, path, success reply) per kind of call.
READS: dict[str, tuple[Call, str, str, Reply]] = {
    "GET dataset": (lambda c: c.datasets.get("ds_1"), "GET", "/v1/datasets/ds_1", ok(s.DATASET)),
    "GET list": (lambda c: c.datasets.list(), "GET", "/v1/datasets", page([s.DATASET])),
    "POST mentions": (
        # (no dataset_ids: with them, the datasets' runs are read first for the partial check)
        lambda c: c.mentions.list(sources=["reddit"]),
        "POST",
        "/v1/mentions",
        page([s.MENTION]),
    ),
    "POST audience_profiles": (
        lambda c: c.audience_profiles.list(),
        "POST",
        "/v1/audience_profiles",
        page([s.PROFILE]),
    ),
    "POST preview": (
        lambda c: c.custom_parameters.preview("price", post_refs=[{"source": "reddit", "id": "a"}]),
        "POST",
        "/v1/custom_parameters/preview",
        ok({"results": []}),
    ),
}
UNSAFE: dict[str, tuple[Call, str, str, Reply]] = {
    "dataset run": (
        lambda c: c.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=5),
        "POST",
        "/v1/datasets/ds_1/runs",
        ok(s.DATASET_RUN),
    ),
    "dataset create": (lambda c: c.datasets.create("x"), "POST", "/v1/datasets", ok(s.DATASET)),
    "audience run": (
        lambda c: c.audience_datasets.runs.create("ad_1", source_dataset_id="ds_1"),
        "POST",
        "/v1/audience_datasets/ad_1/runs",
        ok(s.AUDIENCE_RUN),
    ),
    "ask": (lambda c: c.ask("Hi"), "POST", "/v1/ask", ok(s.ACCEPTED, 202)),
    "trigger": (
        lambda c: c.tracking_agents.trigger("ta_1"),
        "POST",
        "/v1/tracking_agents/ta_1/trigger",
        ok(s.TRACKING_RUN),
    ),
    "pause": (
        lambda c: c.tracking_agents.pause("ta_1"),
        "POST",
        "/v1/tracking_agents/ta_1/pause",
        Reply(204),
    ),
    "patch": (
        lambda c: c.datasets.update("ds_1", name="n"),
        "PATCH",
        "/v1/datasets/ds_1",
        ok(s.DATASET),
    ),
    "delete": (
        lambda c: c.custom_parameters.delete("cp_1"),
        "DELETE",
        "/v1/custom_parameters/cp_1",
        Reply(204),
    ),
    "research preview": (
        lambda c: c.research_previews.create(
            search_query="oat", sources=["reddit"], time_filter="past_week"
        ),
        "POST",
        "/v1/research_previews",
        ok(s.PREVIEW),
    ),
    "pattern detection": (
        lambda c: c.pattern_detections.create("ds_1", name="n", research_question="q"),
        "POST",
        "/v1/pattern_detections",
        ok(s.DETECTION),
    ),
}


@pytest.mark.parametrize("name", READS)
def test_reads_are_retried_on_5xx(name: str, api: MockAPI, client: rdskit.Client) -> None:
    call, method, path, success = READS[name]
    api.on(method, path, UNAVAILABLE, Reply(500, None), success)
    call(client)
    assert len(api.sent(method, path)) == 3
    assert len(client.slept) == 2  # a backoff before each retry


@pytest.mark.parametrize("name", READS)
def test_reads_are_retried_on_read_timeouts(name: str, api: MockAPI, client) -> None:
    call, method, path, success = READS[name]
    api.on(method, path, httpx.ReadTimeout("slow"), success)
    call(client)
    assert len(api.sent(method, path)) == 2


def test_reads_retry_a_transient_error_body(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/me", error(400, "ai_assistant_timeout", transient=True), ok(s.ME))
    assert client.me().id == "usr_1"
    assert len(api.calls) == 2


def test_reads_give_up_after_max_retries(api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/me", UNAVAILABLE)
    with pytest.raises(ServerError):
        make_client(max_retries=3).me()
    assert len(api.calls) == 4


def test_definitive_errors_are_not_retried(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/datasets/ds_1", error(404, "dataset_not_found"))
    with pytest.raises(NotFound):
        client.datasets.get("ds_1")
    assert len(api.calls) == 1


@pytest.mark.parametrize("name", UNSAFE)
@pytest.mark.parametrize(
    "failure",
    [UNAVAILABLE, httpx.ReadTimeout("slow"), httpx.RemoteProtocolError("dropped")],
    ids=["503", "read-timeout", "dropped"],
)
def test_paid_and_writes_are_never_resent(
    name: str, failure: Any, api: MockAPI, client: rdskit.Client
) -> None:
    call, method, path, success = UNSAFE[name]
    api.on(method, path, failure, success)
    with pytest.raises(OutcomeUnknown) as raised:
        call(client)
    assert len(api.sent(method, path)) == 1
    message = str(raised.value)
    assert "outcome" in message and "unknown" in message and "To check:" in message
    assert raised.value.__cause__ is not None


def test_outcome_unknown_says_how_to_check(api: MockAPI, client: rdskit.Client) -> None:
    api.on("POST", "/v1/datasets/ds_1/runs", UNAVAILABLE)
    with pytest.raises(OutcomeUnknown, match=r"client\.datasets\.runs\.list\('ds_1'\)"):
        client.datasets.runs.create("ds_1", s.PROMPT_QUERY)


def test_paid_4xx_transient_error_is_raised_as_is(api: MockAPI, client) -> None:
    # The service answered: the code says what happened, so no OutcomeUnknown and no retry.
    api.on("POST", "/v1/ask", error(400, "ai_assistant_unavailable", transient=True))
    with pytest.raises(rdskit.errors.AIAssistantUnavailable):
        client.ask("Hi")
    assert len(api.calls) == 1


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (503, "ai_assistant_unavailable", rdskit.errors.AIAssistantUnavailable),
        (504, "ai_assistant_timeout", rdskit.errors.AIAssistantTimeout),
    ],
)
def test_paid_5xx_with_a_spec_code_is_raised_as_is(
    status: int, code: str, cls: type, api: MockAPI, client
) -> None:
    # The sandbox answers Ask this way: the code says the turn did not happen.
    api.on("POST", "/v1/ask", error(status, code, transient=True))
    with pytest.raises(cls) as raised:
        client.ask("Hi")
    assert (raised.value.status, raised.value.transient) == (status, True)
    assert len(api.calls) == 1


@pytest.mark.parametrize("name", [*READS, *UNSAFE])
def test_every_call_is_retried_on_429_after_retry_after(
    name: str, api: MockAPI, client: rdskit.Client
) -> None:
    call, method, path, success = {**READS, **UNSAFE}[name]
    api.on("GET", "/v1/me", ok(s.ME))  # a run's count is read against the plan first
    api.on(method, path, TOO_MANY, success)
    call(client)
    assert len(api.sent(method, path)) == 2
    assert client.slept == [0.25]  # the body's retry_after_seconds, exactly


def test_429_falls_back_to_the_retry_after_header(api: MockAPI, client) -> None:
    api.on(
        "GET",
        "/v1/me",
        Reply(429, {"error_code": "too_many_requests"}, {"Retry-After": "2"}),
        ok(s.ME),
    )
    client.me()
    assert client.slept == [2.0]


def test_429_gives_up_after_max_retries(api: MockAPI, make_client) -> None:
    api.on("POST", "/v1/datasets", TOO_MANY)
    with pytest.raises(TooManyRequests) as raised:
        make_client(max_retries=1).datasets.create("x")
    assert raised.value.retry_after == 0.25
    assert len(api.calls) == 2


@pytest.mark.parametrize("name", [*READS, *UNSAFE])
@pytest.mark.parametrize(
    "failure",
    [httpx.ConnectError("refused"), httpx.ConnectTimeout("slow"), httpx.PoolTimeout("full")],
    ids=["connect", "connect-timeout", "pool-timeout"],
)
def test_every_call_is_retried_when_nothing_was_sent(
    name: str, failure: Exception, api: MockAPI, client
) -> None:
    call, method, path, success = {**READS, **UNSAFE}[name]
    api.on(method, path, failure, success)
    call(client)
    assert len(api.sent(method, path)) == 2


def test_connection_errors_surface_after_retries(api: MockAPI, make_client) -> None:
    api.on("POST", "/v1/datasets", httpx.ConnectError("refused"))
    with pytest.raises(APIConnectionError):
        make_client(max_retries=2).datasets.create("x")
    assert len(api.calls) == 3
    api.on("GET", "/v1/me", httpx.ConnectTimeout("slow"))
    with pytest.raises(APITimeoutError):
        make_client(max_retries=0).me()


def test_backoff_is_full_jitter_and_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[float, float]] = []
    monkeypatch.setattr("random.uniform", lambda lo, hi: seen.append((lo, hi)) or hi)
    delays = [HTTPCore._jitter(attempt) for attempt in range(1, 9)]
    assert [lo for lo, _ in seen] == [0] * 8
    assert delays == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]


def test_async_client_follows_the_same_policy(api: MockAPI) -> None:
    api.on("GET", "/v1/datasets/ds_1", UNAVAILABLE, ok(s.DATASET))
    api.on("POST", "/v1/datasets/ds_1/runs", httpx.ReadTimeout("slow"))
    api.on("POST", "/v1/datasets", TOO_MANY, ok(s.DATASET))

    async def main() -> None:
        async with make_aclient(api) as client:
            assert (await client.datasets.get("ds_1")).id == "ds_1"
            with pytest.raises(OutcomeUnknown):
                await client.datasets.runs.create("ds_1", s.PROMPT_QUERY)
            await client.datasets.create("x")
            assert client.slept[-1] == 0.25

    asyncio.run(main())
    assert [
        len(api.sent(*route))
        for route in [
            ("GET", "/v1/datasets/ds_1"),
            ("POST", "/v1/datasets/ds_1/runs"),
            ("POST", "/v1/datasets"),
        ]
    ] == [2, 1, 2]
