"""A request too large for the service is refused before it is sent (issue 34, h34-more
item 3): a 50 MB question costs no time, no copy and no request; the bound is on the bytes
the body encodes to (escapes and UTF-8 included); a body at the bound is sent."""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc

import httpx
import pytest
import samples as s
from mockapi import BASE_URL, MockAPI, make_aclient, ok

import rdskit
from rdskit._bodies import MAX_REQUEST_BYTES
from rdskit.errors import InvalidParameter, RequestTooLarge

LIMIT = f"{MAX_REQUEST_BYTES:,} bytes"


def _encoded(body: object) -> int:
    """The bytes httpx sends for ``body`` as JSON."""
    return len(httpx.Request("POST", BASE_URL, json=body).content)


def test_a_50_mb_question_is_refused_at_once_without_a_copy(
    api: MockAPI, client: rdskit.Client
) -> None:
    api.on("POST", "/v1/ask", ok(s.ACCEPTED, 202))
    question = "What is this? " * 3_600_000  # 50.4 MB
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(RequestTooLarge) as refused:
            client.ask(question, dataset_ids=["ds_1"])
        took = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    error = refused.value
    assert isinstance(error, InvalidParameter)  # raised before any request, as those are
    assert (error.field, error.limit) == ("message", MAX_REQUEST_BYTES)
    assert error.size > len(question)
    assert str(error).startswith("message: ") and LIMIT in str(error)
    assert "nothing was sent" in str(error)
    assert api.calls == []
    assert took < 1.0, took
    assert peak < 1_000_000, peak  # no encoding of the question, no copy of it


def test_the_bound_is_on_the_encoded_bytes(api: MockAPI, client: rdskit.Client) -> None:
    """600,000 characters fit by count, not once encoded (2 bytes each in UTF-8): refused
    with the size that would have been sent."""
    api.on("POST", "/v1/ask", ok(s.ACCEPTED, 202))
    question = "é" * 600_000
    with pytest.raises(RequestTooLarge) as refused:
        client.ask(question)
    assert refused.value.field == "message"
    assert refused.value.size == _encoded({"message": question}) > MAX_REQUEST_BYTES
    assert api.calls == []


def test_a_body_at_the_bound_is_sent_and_one_byte_more_is_not(
    api: MockAPI, client: rdskit.Client
) -> None:
    api.on("POST", "/v1/ask", ok(s.ACCEPTED, 202), ok(s.ACCEPTED, 202))
    fits = "x" * (MAX_REQUEST_BYTES - _encoded({"message": ""}))
    assert _encoded({"message": fits}) == MAX_REQUEST_BYTES
    assert client.ask(fits).message_id == "msg_2"
    (sent,) = api.calls
    assert sent.json == {"message": fits}
    with pytest.raises(RequestTooLarge) as refused:
        client.ask(fits + "x")
    assert refused.value.size == MAX_REQUEST_BYTES + 1
    assert len(api.calls) == 1


def test_the_field_named_is_the_one_that_makes_it_too_large(
    api: MockAPI, client: rdskit.Client
) -> None:
    """A dataset's name, a tracking agent's instructions: each refusal names its field."""
    with pytest.raises(RequestTooLarge) as refused:
        client.datasets.create("n" * (MAX_REQUEST_BYTES + 1))
    assert refused.value.field == "name"
    with pytest.raises(RequestTooLarge) as refused:
        client.tracking_agents.create(
            name="watch",
            instructions="i" * 2 * MAX_REQUEST_BYTES,
            dataset_ids=["ds_1"],
            schedule={"frequency": "daily", "time": "09:00"},
        )
    assert refused.value.field == "instructions"
    # escapes: 200,000 quotes are 400,000 bytes of JSON, with the question's other 700,000
    body = {"message": "q" * 700_000, "chat_id": '"' * 200_000}
    assert _encoded(body) > MAX_REQUEST_BYTES
    with pytest.raises(RequestTooLarge) as refused:
        client.ask(body["message"], chat_id=body["chat_id"])
    assert refused.value.field == "message"  # the largest field of the body
    assert api.calls == []


def test_the_async_client_refuses_it_too(api: MockAPI) -> None:
    async def main() -> None:
        async with make_aclient(api) as aclient:
            with pytest.raises(RequestTooLarge) as refused:
                await aclient.ask("x" * (MAX_REQUEST_BYTES + 1))
            assert refused.value.field == "message"

    asyncio.run(main())
    assert api.calls == []


def test_the_sandbox_takes_the_same_bound() -> None:
    """One bound: the sandbox answers 413 past the bytes the client sends at most."""
    from rdskit.sandbox.runtime import guard

    assert guard.MAX_BODY_BYTES == MAX_REQUEST_BYTES
    fits = json.dumps({"name": "x" * 10}).encode()
    assert guard.check_body(fits + b" " * (MAX_REQUEST_BYTES - len(fits))) is None
    assert guard.check_body(fits + b" " * (MAX_REQUEST_BYTES + 1 - len(fits))) is not None
