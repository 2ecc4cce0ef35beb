"""The gateway's one request bucket: every kernel's requests queue for its slots in arrival
order, so many notebooks together never see a 429.

Example:
    >>> SharedBucket(5).capacity
    5
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable

import httpx

from rdskit._ratelimit import DEFAULT_RATE, RateLimiter

__all__ = ["SharedBucket"]


class SharedBucket:
    """One request bucket for every kernel: callers queue in arrival order for a slot.

    The service counts ``floor(rate)`` calls per window of ``floor(rate) / rate`` seconds
    (5 per second), a window opening with its first call. The bucket holds that many
    tokens; a request takes one when it is sent and the token comes back one window after
    its *answer* arrived. A call reaches the service before its answer returns, so any
    window of the service holds at most ``floor(rate)`` of them whatever the network or
    scheduling delays (never a 429 while the gateway is the key's only user), and the
    cost is one round trip per window (~98 % of the cap on loopback). The service's own
    ``RateLimit-*``/429 answers hold the queue too (:meth:`observe`), for other users of
    the key.

    Example:
        >>> bucket = SharedBucket(2)
        >>> bucket.capacity, bucket.window
        (2, 1.0)
    """

    def __init__(
        self, rate: float = DEFAULT_RATE, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limiter = RateLimiter(rate, clock=clock)  # server holds (429, Remaining: 0)
        self.rate = self.limiter.rate
        self.capacity = self.limiter.capacity
        self.window = self.limiter.window
        self.waiting = 0
        self._clock = clock
        self._sent = 0  # requests sent whose answer has not come back
        self._returns: deque[float] = deque()  # when answered tokens come back
        self._turn: asyncio.Lock | None = None  # made in the server's event loop
        self._freed: asyncio.Event | None = None

    def _wait(self) -> float | None:
        """Seconds until a token is free (0: take it now; None: when an answer arrives)."""
        now = self._clock()
        while self._returns and self._returns[0] <= now:
            self._returns.popleft()
        held = self.limiter.held()
        if held > 0:
            return held
        if self._sent + len(self._returns) < self.capacity:
            return 0.0
        return self._returns[0] - now if self._returns else None

    async def acquire(self) -> None:
        """Wait for this request's slot (FIFO: asyncio locks wake waiters in order)."""
        if self._turn is None:
            self._turn = asyncio.Lock()
            self._freed = asyncio.Event()
        assert self._freed is not None
        self.waiting += 1
        try:
            async with self._turn:
                while (wait := self._wait()) != 0.0:
                    self._freed.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._freed.wait(), wait)
                self._sent += 1
        finally:
            self.waiting -= 1

    def release(self) -> None:
        """The answer (or failure) of a sent request arrived: its token returns a window later."""
        self._sent -= 1
        self._returns.append(self._clock() + self.window + _MARGIN)
        if self._freed is not None:
            self._freed.set()

    def observe(self, response: httpx.Response) -> None:
        """Hold the queue when the service answered 429, or says its window is spent while
        this bucket's own tokens do not explain it (another user of the key)."""
        spent = response.headers.get("ratelimit-remaining", "").strip() in ("0", "0.0")
        if spent and self._sent + len(self._returns) < self.capacity:
            self.limiter.observe(response.headers)  # holds until the service's reset
        if response.status_code == 429:
            retry_after = response.headers.get("retry-after", "1")
            self.limiter.hold(float(retry_after) if retry_after.isdigit() else 1.0)


# Clocks of the gateway and the service differ by rounding only; a hair of slack.
_MARGIN = 0.005
