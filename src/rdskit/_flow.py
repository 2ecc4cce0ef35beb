"""The steps of a sans-IO flow (see :mod:`rdskit._base_client`), in a module of their own
so that every part of the core that writes flows (the HTTP core, the Jupyter gateway's
token exchange) can import them without importing the HTTP core.

Example:
    >>> def pause() -> Flow[str]:
    ...     yield Sleep(0.5)
    ...     return "rested"
    >>> flow = pause()
    >>> next(flow)
    Sleep(seconds=0.5)
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import httpx

__all__ = ["Flow", "Send", "Sleep"]

T = TypeVar("T")


@dataclass(frozen=True)
class Sleep:
    """Flow step: sleep ``seconds``."""

    seconds: float


@dataclass(frozen=True)
class Send:
    """Flow step: send ``request``; the response (or transport error) comes back.

    ``auth`` (the client's :class:`~rdskit._base_client.KeyHeader`) adds the ``x-api-key``
    header as httpx's last step before the transport, so the raw key is in no request
    description, no dict and no local variable of rdskit's flows (a traceback with locals
    never shows it).
    """

    request: httpx.Request
    auth: httpx.Auth | None = None


Flow: TypeAlias = Generator[Sleep | Send, Any, T]
"""A sans-IO flow that finishes with a ``T``."""
