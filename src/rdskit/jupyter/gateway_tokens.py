"""The gateway's token book: short-lived tokens bound to kernels, kept as digests only.

Example:
    >>> book = TokenBook(ttl=60)
    >>> token, _ = book.mint()
    >>> book.check(token)
    'valid'
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable

__all__ = ["TokenBook"]


class TokenBook:
    """Short-lived tokens handed to kernels; only their SHA-256 digests are kept.

    A token minted for a kernel is valid while that kernel runs (``alive``): its
    shutdown revokes it, even before its lifetime ends.

    Example:
        >>> book = TokenBook(ttl=60, alive=lambda kernel_id: kernel_id == "k1")
        >>> token, lifetime = book.mint("k1")
        >>> book.check(token), book.check("forged"), lifetime
        ('valid', 'invalid', 60.0)
        >>> book.alive = lambda kernel_id: False  # the kernel shut down
        >>> book.check(token)
        'revoked'
    """

    def __init__(
        self,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        alive: Callable[[str], bool] | None = None,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"token_ttl must be positive, got {ttl!r}")
        self.ttl = float(ttl)
        self.alive = alive
        self._clock = clock
        self._grants: dict[str, tuple[float, str | None]] = {}  # digest -> (expiry, kernel)

    def mint(self, kernel_id: str | None = None) -> tuple[str, float]:
        """A new token (bound to ``kernel_id`` when given) and its lifetime in seconds."""
        now = self._clock()
        # Forget tokens expired for a whole lifetime; newer ones still answer "expired".
        self._grants = {d: g for d, g in self._grants.items() if g[0] > now - self.ttl}
        token = secrets.token_urlsafe(32)
        self._grants[_digest(token)] = (now + self.ttl, kernel_id)
        return token, self.ttl

    def check(self, token: str | None) -> str:
        """``"valid"``, ``"expired"``, ``"revoked"`` (its kernel is gone) or ``"invalid"``."""
        digest = _digest(token or "")
        grant = self._grants.get(digest)
        if grant is None:
            return "invalid"
        expiry, kernel_id = grant
        if kernel_id is not None and self.alive is not None and not self.alive(kernel_id):
            self.revoke_kernel(kernel_id)
            return "revoked"
        return "valid" if self._clock() < expiry else "expired"

    def kernel_of(self, token: str | None) -> str | None:
        """The kernel a valid token was minted for (None: invalid, expired, or unbound)."""
        if self.check(token) != "valid":
            return None
        return self._grants[_digest(token or "")][1]

    def revoke_kernel(self, kernel_id: str) -> int:
        """Drop every token of ``kernel_id``; returns how many there were."""
        kept = {d: g for d, g in self._grants.items() if g[1] != kernel_id}
        dropped = len(self._grants) - len(kept)
        self._grants = kept
        return dropped


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
