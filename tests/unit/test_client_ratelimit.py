"""The client-side rate limit: 5 request starts per second per key, process-wide."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import httpx
import pytest
import samples as s
from mockapi import BASE_URL, MockAPI, Reply, error, make_aclient, make_key, ok

import rdskit
from rdskit._ratelimit import RateLimiter, shared_limiter


class FakeClock:
    """A clock that only moves when slept on."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def max_in_any_window(starts: list[float], window: float = 1.0) -> int:
    """The most starts inside any half-open interval [t, t + window)."""
    starts = sorted(starts)
    return max(sum(1 for u in starts if t <= u < t + window) for t in starts)


def test_five_per_window_then_wait_for_the_oldest() -> None:
    clock = FakeClock()
    limiter = RateLimiter(5, clock=clock, margin=0)
    assert [limiter.try_acquire() for _ in range(5)] == [0.0] * 5
    assert limiter.try_acquire() == pytest.approx(1.0)
    clock.now += 0.4
    assert limiter.try_acquire() == pytest.approx(0.6)
    clock.now += 0.6
    assert limiter.try_acquire() == 0.0


def test_a_waiting_caller_does_not_take_a_token() -> None:
    clock = FakeClock()
    limiter = RateLimiter(1, clock=clock, margin=0)
    assert limiter.try_acquire() == 0.0
    assert limiter.try_acquire() == limiter.try_acquire() == pytest.approx(1.0)


def test_fractional_rates_keep_the_average() -> None:
    limiter = RateLimiter(2.5, clock=FakeClock(), margin=0)
    assert (limiter.capacity, limiter.window) == (2, pytest.approx(0.8))


def test_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        RateLimiter(0)


def test_server_headers_hold_the_bucket() -> None:
    clock = FakeClock()
    limiter = RateLimiter(5, clock=clock, margin=0)
    limiter.observe(httpx.Headers({"RateLimit-Remaining": "3", "RateLimit-Reset": "1"}))
    assert limiter.try_acquire() == 0.0
    limiter.observe(httpx.Headers({"RateLimit-Remaining": "0", "RateLimit-Reset": "2"}))
    assert limiter.try_acquire() == pytest.approx(2.0)
    limiter.observe(httpx.Headers({"RateLimit-Remaining": "soon", "RateLimit-Reset": "nan"}))
    clock.now += 2
    assert limiter.try_acquire() == 0.0


def test_buckets_are_per_key_digest_and_shared() -> None:
    key = make_key()
    http = httpx.Client()  # shared so that no client opens connections of its own
    sync = rdskit.Client(key, base_url=BASE_URL, http_client=http)
    other = rdskit.Client(make_key(), base_url=BASE_URL, http_client=http)
    unlimited = rdskit.Client(key, base_url=BASE_URL, rate_limit=None, http_client=http)
    asynchronous = rdskit.AsyncClient(key, base_url=BASE_URL, http_client=httpx.AsyncClient())
    assert sync._core.limiter is asynchronous._core.limiter
    assert sync._core.limiter is shared_limiter(sync._core.api_key.digest)
    assert sync._core.limiter is not other._core.limiter
    assert unlimited._core.limiter is None
    http.close()


def _timed_api(starts: list[float]) -> Callable[[httpx.Request], httpx.Response]:
    lock = threading.Lock()

    def handle(_: httpx.Request) -> httpx.Response:
        with lock:
            starts.append(time.monotonic())
        return Reply(200, {"status": "success", "data": s.ME}).response()

    return handle


@pytest.mark.timeout(30)
def test_four_threads_never_exceed_five_in_any_second() -> None:
    starts: list[float] = []
    with rdskit.Client(
        make_key(), base_url=BASE_URL, transport=httpx.MockTransport(_timed_api(starts))
    ) as client:

        def work() -> None:
            for _ in range(6):
                client.me()

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(starts) == 24
    assert max_in_any_window(starts) == 5
    assert max(starts) - min(starts) >= 4.0  # 24 starts need at least 5 windows


@pytest.mark.timeout(30)
def test_sync_and_async_clients_of_a_key_share_one_bucket() -> None:
    key = make_key()
    starts: list[float] = []
    handle = _timed_api(starts)

    async def handle_async(request: httpx.Request) -> httpx.Response:
        return handle(request)

    async def async_side() -> None:
        async with rdskit.AsyncClient(
            key, base_url=BASE_URL, transport=httpx.MockTransport(handle_async)
        ) as client:
            for _ in range(4):
                await client.me()

    with rdskit.Client(key, base_url=BASE_URL, transport=httpx.MockTransport(handle)) as sync:
        thread = threading.Thread(target=lambda: [sync.me() for _ in range(4)])
        thread.start()
        asyncio.run(async_side())
        thread.join()
    assert len(starts) == 8
    assert max_in_any_window(starts) == 5


def _client_on_fake_clock(
    make_client: Callable[..., rdskit.Client],
) -> tuple[rdskit.Client, FakeClock]:
    clock = FakeClock()
    client = make_client()
    client._core.limiter = RateLimiter(5, clock=clock, margin=0)
    client._sleep = clock.sleep
    return client, clock


def test_client_waits_for_the_reset_when_none_remain(api: MockAPI, make_client) -> None:
    client, clock = _client_on_fake_clock(make_client)
    api.on(
        "GET",
        "/v1/me",
        Reply(
            200,
            {"status": "success", "data": s.ME},
            {"RateLimit-Remaining": "0", "RateLimit-Reset": "1"},
        ),
    )
    client.me()
    assert clock.slept == []
    client.me()
    assert clock.slept == [pytest.approx(1.0)]


def test_a_429_holds_every_client_of_the_key(api: MockAPI, make_client) -> None:
    client, clock = _client_on_fake_clock(make_client)
    limiter = client._core.limiter
    others_wait: list[float] = []

    def sleep(seconds: float) -> None:
        others_wait.append(limiter.try_acquire())  # what any other caller is told meanwhile
        clock.sleep(seconds)

    client._sleep = sleep
    api.on("GET", "/v1/me", error(429, "too_many_requests", retry_after_seconds=0.5), ok(s.ME))
    client.me()
    assert clock.slept == [0.5]
    assert others_wait == [pytest.approx(0.5)]


def test_async_client_sleeps_for_the_bucket(api: MockAPI) -> None:
    clock = FakeClock()
    api.on("GET", "/v1/me", ok(s.ME))

    async def main() -> None:
        async with make_aclient(api) as client:
            client._core.limiter = RateLimiter(2, clock=clock, margin=0)

            async def sleep(seconds: float) -> None:
                clock.sleep(seconds)

            client._sleep = sleep
            for _ in range(3):
                await client.me()

    asyncio.run(main())
    assert clock.slept == [pytest.approx(1.0)]
