"""Sandbox settings: the knobs of ``start()`` and ``rdskit sandbox``.

Example:
    >>> Settings(rate_limit=50.0).rate_limit
    50.0
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Settings"]


@dataclass(frozen=True)
class Settings:
    """Everything a sandbox app needs besides its store (which owns seed and speed).

    ``rate_limit`` is requests per second per API key (the service's is 5);
    ``admin_token`` guards the ``/sandbox/...`` admin endpoints (random per process);
    ``job_cpu_budget`` is the CPU seconds one worker job may use before its run fails
    (refunded): the largest run (100,000 mentions) needs about 10 s.
    """

    rate_limit: float = 5.0
    admin_token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    app_url: str = "https://app.sandbox.rdskit.invalid"
    worker_threads: int = 2
    job_cpu_budget: float | None = 30.0
    chaos: tuple[tuple[str, dict[str, Any]], ...] = ()
    """Chaos controls set at start: ``(control, body)`` pairs (``rdskit.sandbox.runtime.chaos``)."""

    @property
    def top_up_url(self) -> str:
        """Where a 402 body sends the user to add funds."""
        return f"{self.app_url}/settings/billing"
