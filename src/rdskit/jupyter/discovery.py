"""The kernel side of the Jupyter gateway: find it, and trade its secret for tokens.

A Jupyter server running the rdskit extension (:mod:`rdskit.jupyter.gateway`) holds the
API key itself. It writes a discovery file (mode 0600, in the Jupyter runtime dir) and
puts its path in ``RDSKIT_GATEWAY`` for the kernels it spawns. A client built with no key
and no base URL (see :func:`rdskit._config.resolve_credentials`) reads the file, sends
its bootstrap secret to ``POST {gateway}/token`` and uses the short-lived token it gets in
place of an API key; the token is renewed shortly before it expires.

Example:
    >>> import rdskit
    >>> client = rdskit.Client()  # in a kernel of such a server  # doctest: +SKIP
    >>> client.base_url, client._core.api_key  # doctest: +SKIP
    ('http://127.0.0.1:8888/rdskit', GatewayKey('jupyter gateway token'))
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from rdskit._config import SecretKey
from rdskit.errors import APIConnectionError, ConfigurationError

__all__ = [
    "REFRESH_MARGIN",
    "TOKEN_HEADER",
    "GatewayInfo",
    "GatewayKey",
    "gateway_credentials",
    "gateway_status",
    "read_gateway_file",
]

REFRESH_MARGIN = 0.2
"""A token is renewed once this share of its lifetime is left (before it can expire)."""

TOKEN_HEADER = "x-api-key"
"""Kernels send their token where a client sends its key, so the HTTP core is unchanged."""

_EXCHANGE_TIMEOUT = 10.0


@dataclass(frozen=True)
class GatewayInfo:
    """The content of a gateway discovery file (``secret`` is never shown in a repr)."""

    url: str
    mode: str
    secret: str = field(repr=False)


def read_gateway_file(path: str | Path) -> GatewayInfo:
    """Read a discovery file written by the server extension.

    Raises:
        ConfigurationError: the file is missing or malformed (e.g. the server stopped).

    Example:
        >>> read_gateway_file("/run/user/1000/jupyter/rdskit-gateway-123.json")  # doctest: +SKIP
        GatewayInfo(url='http://127.0.0.1:8888/rdskit', mode='service')
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return GatewayInfo(url=data["url"], mode=data["mode"], secret=data["secret"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigurationError(
            f"the Jupyter gateway file {str(path)!r} named by RDSKIT_GATEWAY cannot be read "
            f"({type(exc).__name__}); is the Jupyter server still running? Pass api_key= and "
            "base_url= to bypass the gateway"
        ) from exc


class GatewayKey(SecretKey):
    """Stands in for an API key: ``reveal()`` returns a valid short-lived gateway token.

    Its digest (the client-side rate limiter's bucket id) is fixed per gateway, so every
    client of one kernel shares one bucket. Thread-safe.
    """

    __slots__ = ("_clock", "_expires_at", "_info", "_lock", "_send", "_token")

    def __init__(
        self,
        info: GatewayInfo,
        *,
        send: Callable[..., httpx.Response] = httpx.post,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(f"rdskit-gateway:{info.url}")
        self._info = info
        self._send = send
        self._clock = clock
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = threading.Lock()

    @property
    def masked(self) -> str:
        """The display form: no token, no secret."""
        return "jupyter gateway token"

    def __repr__(self) -> str:
        return f"GatewayKey({self.masked!r})"

    @property
    def mode(self) -> str:
        """``"service"`` (the server holds a real key) or ``"sandbox"`` (its shared sandbox)."""
        return self._info.mode

    def reveal(self) -> str:
        """A token valid for a while yet (exchanged for a fresh one when it runs low)."""
        with self._lock:
            if self._token is None or self._clock() >= self._expires_at:
                self._exchange()
            assert self._token is not None
            return self._token

    def _exchange(self) -> None:
        started = self._clock()
        try:
            response = self._send(
                f"{self._info.url}/token",
                json={"secret": self._info.secret},
                timeout=_EXCHANGE_TIMEOUT,
            )
        except httpx.TransportError as exc:
            raise APIConnectionError(
                f"cannot reach the Jupyter gateway at {self._info.url} ({type(exc).__name__})"
            ) from exc
        if response.status_code != 200:
            raise ConfigurationError(
                f"the Jupyter gateway at {self._info.url} refused this kernel's bootstrap "
                f"secret (HTTP {response.status_code}); restart the kernel"
            )
        grant = response.json()
        lifetime = float(grant["expires_in"])
        self._token = str(grant["token"])
        self._expires_at = started + lifetime * (1 - REFRESH_MARGIN)


def gateway_credentials(path: str | Path) -> tuple[GatewayKey, str]:
    """The key stand-in and base URL of the gateway whose discovery file is ``path``.

    Example:
        >>> key, url = gateway_credentials(os.environ["RDSKIT_GATEWAY"])  # doctest: +SKIP
        >>> url  # doctest: +SKIP
        'http://127.0.0.1:8888/rdskit'
    """
    info = read_gateway_file(path)
    return GatewayKey(info), info.url


def gateway_status(client: Any) -> dict[str, Any] | None:
    """The gateway's ``/status`` (mode, upstream, shared rate, queue) when ``client`` goes
    through one, else None.

    Example:
        >>> gateway_status(rdskit.Client())["rate_limit"]  # doctest: +SKIP
        5.0
    """
    key = client._core.api_key
    if not isinstance(key, GatewayKey):
        return None
    response = httpx.get(
        f"{client.base_url}/status",
        headers={TOKEN_HEADER: key.reveal()},
        timeout=_EXCHANGE_TIMEOUT,
    )
    response.raise_for_status()
    status: dict[str, Any] = response.json()
    return status
