"""Client-side rate limiting: the service's 5 requests per second per key, process-wide.

One :class:`RateLimiter` exists per (key digest, rate) in the process; every thread and
every sync or async client using that key shares it (:func:`shared_limiter`). The limiter
only *computes* waits; the caller sleeps (``time.sleep`` or ``asyncio.sleep``) and asks
again, so the same object serves both worlds.

The bucket holds ``capacity`` tokens and each token taken comes back exactly one window
later. That is stricter than a classic refilling bucket: it guarantees that no more than
``capacity`` requests start in any window (5 in any second), so the server's own bucket,
which refills continuously, never runs dry for a lone client. The limiter also obeys the
server: ``RateLimit-Remaining: 0`` that its own starts do not explain (another process
spends the key) holds every request until ``RateLimit-Reset``, and a 429 holds them for its
retry delay.

Example:
    >>> now = [0.0]
    >>> limiter = RateLimiter(2, clock=lambda: now[0], margin=0)
    >>> limiter.try_acquire(), limiter.try_acquire(), limiter.try_acquire()
    (0.0, 0.0, 1.0)
    >>> now[0] = 1.0
    >>> limiter.try_acquire()
    0.0
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping

__all__ = ["DEFAULT_RATE", "RateLimiter", "shared_limiter"]

DEFAULT_RATE = 5.0
"""The service's cap: requests per second per API key."""

# Starts are spaced a little more than a window apart: the request reaches the server a
# moment after the token is taken, and that delay varies between requests.
_DEFAULT_MARGIN = 0.02


class RateLimiter:
    """At most ``capacity`` request starts per window, ``rate`` per second on average.

    Thread-safe. ``capacity`` is ``floor(rate)`` (at least 1) and the window is
    ``capacity / rate`` seconds, so the default 5.0 means 5 starts in any second.
    """

    def __init__(
        self,
        rate: float = DEFAULT_RATE,
        *,
        clock: Callable[[], float] = time.monotonic,
        margin: float = _DEFAULT_MARGIN,
    ) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be positive, got {rate!r}")
        self.rate = float(rate)
        self.capacity = max(1, math.floor(rate))
        self.window = self.capacity / self.rate
        self._margin = margin
        self._clock = clock
        self._starts: deque[float] = deque(maxlen=self.capacity)
        self._held_until = -math.inf
        self._opened: float | None = None  # when the latest window-opening answer came
        self._lock = threading.Lock()

    def try_acquire(self) -> float:
        """Take a token and return 0.0, or return how many seconds to wait before retrying.

        The token is taken only when one is free *now*, so a caller that overslept never
        starts earlier than its slot: sleep the returned time, then call again.
        """
        with self._lock:
            now = self._clock()
            ready_at = self._held_until
            if len(self._starts) == self.capacity:
                ready_at = max(ready_at, self._starts[0] + self.window + self._margin)
            if ready_at > now:
                return ready_at - now
            self._starts.append(now)
            return 0.0

    def held(self) -> float:
        """Seconds left of the current hold (0.0: none); takes no token."""
        with self._lock:
            return max(0.0, self._held_until - self._clock())

    def hold(self, seconds: float) -> None:
        """Let no request start for ``seconds`` from now (a 429's retry delay)."""
        with self._lock:
            self._held_until = max(self._held_until, self._clock() + max(0.0, seconds))

    def observe(self, headers: Mapping[str, str]) -> None:
        """Adapt to a response's ``RateLimit-Remaining`` / ``RateLimit-Reset`` headers.

        When the server says no call is left in its window, hold until the window ends.
        The service's windows open with their first call, so when this limiter's own
        starts fill the window, it ends one window after the answer that said so
        (``Remaining`` one below the limit) at the latest: holding the whole
        ``RateLimit-Reset`` (rounded up to whole seconds, counted from the last answer)
        would idle most of a window every time, ~60 % of the cap for a sequential caller.
        Otherwise (another process spends the key too) the reset is trusted.
        """
        remaining = _number(headers.get("ratelimit-remaining"))
        reset = _number(headers.get("ratelimit-reset"))
        limit = _number(headers.get("ratelimit-limit"))
        with self._lock:
            now = self._clock()
            if remaining is not None and limit is not None and remaining == limit - 1:
                self._opened = now  # this answer's call opened a window, before now
            if remaining is None or remaining > 0 or reset is None:
                return
            own = len(self._starts) == self.capacity and (
                now - self._starts[0] <= 2 * self.window + self._margin
            )
            until = now + reset
            if own and self._opened is not None and now - self._opened < self.window:
                until = min(until, self._opened + self.window + self._margin)
            self._held_until = max(self._held_until, until)


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


_LIMITERS: dict[tuple[str, float], RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def shared_limiter(key_digest: str, rate: float = DEFAULT_RATE) -> RateLimiter:
    """The process-wide limiter of a key (by its SHA-256 digest) at ``rate`` requests/s.

    Clients built with the same key and rate get the same object, whatever their thread
    or flavour (sync or async).

    Example:
        >>> shared_limiter("ab" * 32) is shared_limiter("ab" * 32)
        True
    """
    with _LIMITERS_LOCK:
        limiter = _LIMITERS.get((key_digest, rate))
        if limiter is None:
            limiter = _LIMITERS[(key_digest, rate)] = RateLimiter(rate)
        return limiter
