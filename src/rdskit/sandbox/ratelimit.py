"""Per-key token buckets: the spec's 5 requests per second, shared by REST and MCP.

Buckets are keyed by the SHA-256 digest of the API key. A bucket holds ``rate`` tokens and
refills at ``rate`` per second; each request takes one.

Example:
    >>> limiter = RateLimiter(2)
    >>> [limiter.hit("digest").allowed for _ in range(3)]
    [True, True, False]
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

__all__ = ["Decision", "RateLimiter"]


@dataclass(frozen=True)
class Decision:
    """The outcome of one request against its bucket, with the headers it implies."""

    allowed: bool
    limit: int
    remaining: int
    reset_seconds: int  # until the bucket is full again
    retry_after: float  # seconds until one token is available (0 when allowed)

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
    """Thread-safe token buckets, ``rate`` requests per second per key digest."""

    def __init__(self, rate: float) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.rate = rate
        self._buckets: dict[str, tuple[float, float]] = {}  # digest -> (tokens, last refill)
        self._lock = threading.Lock()

    def hit(self, digest: str) -> Decision:
        """Take a token from ``digest``'s bucket if one is there."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(digest, (self.rate, now))
            tokens = min(self.rate, tokens + (now - last) * self.rate)
            allowed = tokens >= 1
            if allowed:
                tokens -= 1
            self._buckets[digest] = (tokens, now)
        return Decision(
            allowed=allowed,
            limit=math.floor(self.rate),
            remaining=math.floor(tokens),
            reset_seconds=math.ceil((self.rate - tokens) / self.rate),
            retry_after=0.0 if allowed else (1 - tokens) / self.rate,
        )
