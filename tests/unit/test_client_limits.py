"""A hostile server cannot take the client down (issue 22, item 2).

Each server here is hostile on purpose: a gzip bomb that never ends, a body that never
ends, a Content-Length of a terabyte, JSON nested 100,000 deep, ``Retry-After`` of 1e9,
``inf`` and ``nan``, a list that always has a next page. Every one ends in bounded time
and memory with an rdskit error that says what to do.
"""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
import samples as s
from mockapi import BASE_URL, MockAPI, Reply, error, make_aclient, make_key, ok

import rdskit
from rdskit.errors import (
    ConfigurationError,
    RepeatedCursor,
    ResponseTooLarge,
    TooManyPages,
    UnexpectedResponse,
)

MiB = 1024 * 1024


def _bomb_chunks() -> Iterator[bytes]:
    """An endless gzip stream of zeros (about 1 KiB per MiB decoded), made as it is read."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = bytes(MiB)
    while True:
        chunk = packer.compress(zeros)
        if chunk:
            yield chunk


class _Endless(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, chunks: Callable[[], Iterator[bytes]]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks():
            yield chunk


def _endless_zeros() -> Iterator[bytes]:
    while True:
        yield b"0" * 65536


def _streaming(headers: dict[str, str], chunks: Callable[[], Iterator[bytes]]) -> Any:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=headers, stream=_Endless(chunks))

    return handle


def _client(handler: Any, **options: Any) -> rdskit.Client:
    client = rdskit.Client(
        make_key(),
        base_url=BASE_URL,
        rate_limit=None,
        transport=httpx.MockTransport(handler),
        **options,
    )
    client._sleep = lambda seconds: None
    return client


def _bounded(call: Callable[[], Any]) -> tuple[BaseException, float, int]:
    """Run ``call`` (which must raise); its error, seconds taken and peak bytes allocated."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        call()
    except BaseException as exc:  # returned to the test to check
        caught = exc
    else:
        raise AssertionError("the hostile response was accepted")
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return caught, time.perf_counter() - started, peak


# -- body size -------------------------------------------------------------------------------
def test_an_endless_gzip_bomb_stops_at_the_cap_in_bounded_memory() -> None:
    client = _client(
        _streaming({"content-type": "application/json", "content-encoding": "gzip"}, _bomb_chunks),
        max_response_bytes=4 * MiB,
    )
    caught, seconds, peak = _bounded(client.me)
    assert isinstance(caught, ResponseTooLarge)
    assert "decodes to more than 4,194,304 bytes" in str(caught)
    assert "Client(max_response_bytes=...)" in str(caught)  # the one line of advice
    assert caught.limit == 4 * MiB
    assert seconds < 10
    assert peak < 16 * MiB  # the cap plus one chunk, not the bomb


def test_the_default_cap_stops_a_gzip_bomb_at_64_mib() -> None:
    client = _client(
        _streaming({"content-type": "application/json", "content-encoding": "gzip"}, _bomb_chunks)
    )
    caught, seconds, peak = _bounded(client.me)
    assert isinstance(caught, ResponseTooLarge)
    assert caught.limit == 64 * MiB
    assert peak < 3 * 64 * MiB
    assert seconds < 30


def test_an_endless_plain_body_stops_at_the_cap() -> None:
    client = _client(
        _streaming({"content-type": "application/json"}, _endless_zeros), max_response_bytes=MiB
    )
    caught, _, peak = _bounded(client.me)
    assert isinstance(caught, ResponseTooLarge)
    assert "more than 1,048,576 bytes arrived" in str(caught)
    assert peak < 8 * MiB


def test_a_declared_length_over_the_cap_is_refused_before_reading() -> None:
    def never(_: Any = None) -> Iterator[bytes]:
        raise AssertionError("the body was read")
        yield b""

    client = _client(
        _streaming({"content-type": "application/json", "content-length": str(10**12)}, never),
        max_response_bytes=MiB,
    )
    with pytest.raises(ResponseTooLarge, match="Content-Length is 1,000,000,000,000 bytes"):
        client.me()


def test_compressed_bodies_within_the_cap_are_read(api: MockAPI) -> None:
    body = json.dumps({"status": "success", "data": s.ME}).encode()
    packer = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    gz = packer.compress(body) + packer.flush()
    raw_packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    replies = {
        "gzip": gz,
        "deflate": zlib.compress(body),
        "raw-deflate": raw_packer.compress(body) + raw_packer.flush(),
    }
    for name, content in replies.items():
        encoding = "deflate" if name == "raw-deflate" else name
        headers = {"content-type": "application/json", "content-encoding": encoding}
        client = _client(_streaming(headers, lambda content=content: iter([content])))
        assert client.me().email == s.ME["email"], name
    client = _client(
        _streaming(
            {"content-type": "application/json", "content-encoding": "br"}, lambda: iter([b"x"])
        )
    )
    with pytest.raises(UnexpectedResponse, match="content-encoding 'br' is not one rdskit"):
        client.me()


def test_the_client_asks_only_for_encodings_it_bounds(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/me", ok(s.ME))
    client.me()
    assert api.calls[0].headers["accept-encoding"] == "gzip, deflate"


def test_an_async_client_stops_a_gzip_bomb_too() -> None:
    handler = _streaming(
        {"content-type": "application/json", "content-encoding": "gzip"}, _bomb_chunks
    )

    async def ahandle(request: httpx.Request) -> httpx.Response:
        return handler(request)

    async def main() -> None:
        async with rdskit.AsyncClient(
            make_key(),
            base_url=BASE_URL,
            rate_limit=None,
            transport=httpx.MockTransport(ahandle),
            max_response_bytes=2 * MiB,
        ) as aclient:
            await aclient.me()

    caught, _, peak = _bounded(lambda: asyncio.run(main()))
    assert isinstance(caught, ResponseTooLarge)
    assert peak < 16 * MiB


@pytest.mark.parametrize(
    "options",
    [
        {"max_response_bytes": 0},
        {"max_retry_after": float("inf")},
        {"max_pages": 0},
        {"max_retry_after": -1},
    ],
)
def test_limits_must_be_sensible(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError, match=next(iter(options))):
        rdskit.Client(make_key(), base_url=BASE_URL, **options)


# -- JSON depth ------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [300, 100_000])
def test_deep_json_is_an_unexpected_response(
    api: MockAPI, client: rdskit.Client, depth: int
) -> None:
    nested = b'{"status": "success", "data": ' + b"[" * depth + b"]" * depth + b"}"
    api.on("GET", "/v1/me", Reply(200, nested))
    started = time.perf_counter()
    with pytest.raises(UnexpectedResponse, match="nested more than 256 levels deep"):
        client.me()
    assert time.perf_counter() - started < 2


def test_a_deep_error_body_is_an_unexpected_response_too(
    api: MockAPI, client: rdskit.Client
) -> None:
    api.on("GET", "/v1/me", Reply(500, b"[" * 100_000))
    with pytest.raises(UnexpectedResponse):
        client.me()


def test_json_nested_within_the_cap_is_read(api: MockAPI, client: rdskit.Client) -> None:
    deep: Any = "leaf"
    for _ in range(200):
        deep = [deep]
    api.on("GET", "/v1/mentions/x", ok(deep))  # uncast path: data as it came
    assert client._request(rdskit._base_client.APIRequest("GET", "/v1/mentions/x")) == deep


# -- Retry-After -----------------------------------------------------------------------------
def _limited(header: str | None = None, body_seconds: Any = None) -> Reply:
    extra = {} if body_seconds is None else {"retry_after_seconds": body_seconds}
    reply = error(429, "too_many_requests", "slow", transient=True, **extra)
    if header is not None:
        reply.headers["retry-after"] = header
    return reply


def test_a_huge_retry_after_is_cut_to_the_cap(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/me", _limited("1e9"), _limited(body_seconds=10**12), ok(s.ME))
    client.me()
    assert client.slept == [60.0, 60.0]


def test_the_retry_after_cap_is_configurable(
    api: MockAPI, make_client: Callable[..., rdskit.Client]
) -> None:
    client = make_client(max_retry_after=5)
    api.on("GET", "/v1/me", _limited("1e9"), ok(s.ME))
    client.me()
    assert client.slept == [5.0]


@pytest.mark.parametrize("bad", ["inf", "nan", "-5", "-inf", "soon", "1e999"])
def test_a_nonsense_retry_after_falls_back_to_backoff(
    api: MockAPI, client: rdskit.Client, bad: str
) -> None:
    api.on("GET", "/v1/me", _limited(bad, body_seconds=bad), _limited(bad), ok(s.ME))
    client.me()
    assert len(client.slept) == 2
    assert all(0 <= seconds <= 1.0 for seconds in client.slept)  # the jittered backoff


def test_a_nonsense_retry_after_is_not_reported(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/me", _limited("nan", body_seconds="inf"))
    with pytest.raises(rdskit.errors.RateLimited) as caught:
        client.me()
    assert caught.value.retry_after is None


def test_real_sleeps_stay_bounded_with_a_hostile_retry_after(api: MockAPI) -> None:
    # No recorded sleep here: the client's own time.sleep runs, capped at 0.05 s.
    client = rdskit.Client(
        make_key(),
        base_url=BASE_URL,
        rate_limit=None,
        max_retry_after=0.05,
        transport=httpx.MockTransport(api.handle),
    )
    api.on("GET", "/v1/me", _limited("1e9"), _limited("inf"), ok(s.ME))
    started = time.perf_counter()
    assert client.me().email == s.ME["email"]
    assert time.perf_counter() - started < 3


# -- paging ----------------------------------------------------------------------------------
def _endless_pages(cursor_of: Callable[[int], str]) -> Callable[[Any], Reply]:
    served = [0]

    def answer(call: Any) -> Reply:
        served[0] += 1
        item = {**s.DATASET, "id": f"ds_{served[0]}"}
        return Reply(
            200,
            {"status": "success", "data": [item], "has_next": True, "cursor": cursor_of(served[0])},
        )

    return answer


def test_a_list_that_never_ends_stops_at_max_pages(
    api: MockAPI, make_client: Callable[..., rdskit.Client]
) -> None:
    client = make_client(max_pages=25)
    api.on("GET", "/v1/datasets", _endless_pages(lambda n: f"c{n}"))
    seen: list[str] = []
    with pytest.raises(TooManyPages, match=r"more than 25 pages.*raise Client\(max_pages=") as c:
        for dataset in client.datasets.list():
            seen.append(dataset.id)
    assert len(seen) == 25  # every page read so far was delivered
    assert len(api.calls) == 25
    assert isinstance(c.value, rdskit.errors.PaginationStopped)


def test_a_repeated_cursor_stops_paging(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/datasets", _endless_pages(lambda n: "same" if n > 2 else f"c{n}"))
    with pytest.raises(RepeatedCursor, match=r"already sent \(after 4 pages\)"):
        list(client.datasets.list())
    assert len(api.calls) == 4  # c1, c2, same, then "same" again is refused


def test_an_async_list_that_never_ends_stops(api: MockAPI) -> None:
    api.on("GET", "/v1/datasets", _endless_pages(lambda n: "loop"))

    async def main() -> list[str]:
        seen: list[str] = []
        async with make_aclient(api, max_pages=10) as aclient:
            async for dataset in aclient.datasets.list():
                seen.append(dataset.id)
        return seen

    with pytest.raises(RepeatedCursor):
        asyncio.run(main())
    assert len(api.calls) == 2


def test_a_name_lookup_over_every_page_stops_too(
    api: MockAPI, make_client: Callable[..., rdskit.Client]
) -> None:
    client = make_client(max_pages=5)
    api.on("GET", "/v1/datasets", _endless_pages(lambda n: f"c{n}"))
    with pytest.raises(TooManyPages):
        client.datasets.get_or_create("Oat milk never found")
    assert len(api.calls) == 5
