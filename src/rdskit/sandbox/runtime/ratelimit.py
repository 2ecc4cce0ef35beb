"""Per-key request windows: the spec's 5 requests per second, shared by REST and MCP.

Counters are keyed by the SHA-256 digest of the API key. The spec describes a window:
``RateLimit-Remaining`` is "calls left in the current one-second window", so a key gets
``limit`` calls per window. A window opens with the key's first call after the previous
one ended and lasts ``limit / rate`` seconds (one second at the service's integer rate),
so the outcome of a burst does not depend on how fast the server answered it.

Example:
    >>> limiter = RateLimiter(2)
    >>> [limiter.hit("digest").allowed for _ in range(3)]
    [True, True, False]
    >>> len(limiter)  # idle keys are evicted once their window has ended
    1
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Decision", "RateLimiter"]


@dataclass(frozen=True)
class Decision:
    """The outcome of one request against its window, with the headers it implies."""

    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int  # whole seconds until the window ends (the allowance is full again)
    retry_after: float  # seconds until a call is allowed again (0 when allowed)

    def headers(self) -> dict[str, str]:
        """``RateLimit-*`` headers, plus ``Retry-After`` (whole seconds, rounded up) on a 429."""
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_seconds),
        }
        if not self.allowed:
            headers["Retry-After"] = str(max(1, math.ceil(self.retry_after)))
        return headers


class RateLimiter:
    """Thread-safe fixed windows: ``rate`` requests per second per key digest.

    ``clock`` (seconds, monotonic) is for tests: patching ``time.monotonic`` instead froze
    it for every thread of the process, other sandboxes' included.
    """

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.limit = max(1, math.floor(rate))
        self.window = self.limit / rate  # 1.0 s whenever rate is a whole number
        self._windows: dict[str, tuple[float, int]] = {}  # digest -> (window start, calls)
        self._lock = threading.Lock()
        self._clock = clock
        self._swept = clock()

    def __len__(self) -> int:
        """Keys with a live window (idle ones are evicted, so random keys cannot pile up)."""
        return len(self._windows)

    def _evict_idle(self, now: float) -> None:
        """Drop windows that ended: a key seen again simply opens a new one.

        Runs at most once per window length, so the cost is one pass over the live keys
        per second, however many requests arrive.
        """
        if now - self._swept < self.window:
            return
        self._swept = now
        ended = [d for d, (start, _) in self._windows.items() if now - start >= self.window]
        for digest in ended:
            del self._windows[digest]

    def hit(self, digest: str) -> Decision:
        """Count a call of ``digest`` in its current window if the window has room."""
        now = self._clock()
        with self._lock:
            self._evict_idle(now)
            start, calls = self._windows.get(digest, (now, 0))
            if now - start >= self.window:
                start, calls = now, 0
            allowed = calls < self.limit
            if allowed:
                calls += 1
                self._windows[digest] = (start, calls)
        left = start + self.window - now
        return Decision(
            allowed=allowed,
            limit=self.limit,
            remaining=self.limit - calls,
            reset_seconds=max(1, math.ceil(left)),
            retry_after=0.0 if allowed else left,
        )
