"""The client side of the Jupyter gateway: find it, and trade its secret for kernel tokens.

A Jupyter server running the rdskit extension (``rdskit.jupyter.gateway``) holds the API
key itself. It writes a discovery file (mode 0600, in the Jupyter runtime dir) and puts
its path in ``RDSKIT_GATEWAY`` for the kernels it spawns. A client built with no key and
no base URL (see :func:`rdskit._base_client.resolve_credentials`) uses a :class:`GatewayKey`:

- before a request, when it holds no fresh token, the client's request flow (the sans-IO
  flow of :mod:`rdskit._base_client`) sends ``POST {gateway}/token`` with the file's
  current bootstrap secret (it rotates, so the file is read again each time), the
  kernel's id and an HMAC of both under the kernel's connection key: the gateway binds
  the token to that kernel and revokes it when the kernel shuts down. The exchange is a
  step of the flow, so an ``AsyncClient`` never blocks its event loop on it;
- the token goes where a key would (``x-api-key``) and is renewed before it expires.

This module is core: it imports nothing from ``rdskit.jupyter`` (kernels need it before
any notebook feature is loaded).

Example:
    >>> import rdskit
    >>> client = rdskit.Client()  # in a kernel of such a server  # doctest: +SKIP
    >>> client.base_url, client._core.api_key  # doctest: +SKIP
    ('http://127.0.0.1:8888/rdskit', GatewayKey('jupyter gateway token'))
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import sys
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from rdskit import _hooks
from rdskit._config import ENV_GATEWAY, SecretKey
from rdskit._flow import Send
from rdskit.errors import APIConnectionError, ConfigurationError

__all__ = [
    "REFRESH_MARGIN",
    "TOKEN_HEADER",
    "GatewayInfo",
    "GatewayKey",
    "announce_to_gateway",
    "gateway_credentials",
    "kernel_identity",
    "kernel_proof",
    "read_gateway_file",
]

REFRESH_MARGIN = 0.2
"""A token is renewed once this share of its lifetime is left (before it can expire)."""

TOKEN_HEADER = "x-api-key"
"""Kernels send their token where a client sends its key, so the HTTP core is unchanged."""

EXCHANGE_TIMEOUT = 10.0
_KERNEL_FILE = re.compile(r"kernel-(?P<id>[0-9A-Za-z-]+)\.json$")

Identity = tuple[str, bytes] | None
"""A kernel's ``(kernel_id, connection key)``, or None outside a Jupyter kernel."""


@dataclass(frozen=True)
class GatewayInfo:
    """The content of a gateway discovery file (``secret`` is never shown in a repr)."""

    url: str
    mode: str
    secret: str = field(repr=False)


def read_gateway_file(path: str | Path) -> GatewayInfo:
    """Read a discovery file written by the server extension (never through a symlink).

    Raises:
        ConfigurationError: the file is missing or malformed (e.g. the server stopped).

    Example:
        >>> read_gateway_file("/run/user/1000/jupyter/rdskit-gateway-123.json")  # doctest: +SKIP
        GatewayInfo(url='http://127.0.0.1:8888/rdskit', mode='service')
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, encoding="utf-8") as handle:
            data = json.loads(handle.read())
        return GatewayInfo(url=data["url"], mode=data["mode"], secret=data["secret"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigurationError(
            f"the Jupyter gateway file {str(path)!r} named by RDSKIT_GATEWAY cannot be read "
            f"({type(exc).__name__}); is the Jupyter server still running? Pass api_key= and "
            "base_url= to bypass the gateway"
        ) from exc


def kernel_identity() -> Identity:
    """The running Jupyter kernel's id and connection (HMAC) key, or None elsewhere.

    The id is the ``kernel-<id>.json`` name Jupyter servers give connection files.

    Example:
        >>> kernel_identity() is None  # not in a kernel
        True
    """
    if "ipykernel.kernelapp" not in sys.modules:  # never import ipykernel ourselves
        return None
    app_class = sys.modules["ipykernel.kernelapp"].IPKernelApp
    if not app_class.initialized():
        return None
    app = app_class.instance()
    found = _KERNEL_FILE.search(str(getattr(app, "connection_file", "") or ""))
    key = getattr(getattr(app, "session", None), "key", b"")
    if found is None or not key:
        return None
    return found["id"], bytes(key)


def announce_to_gateway() -> None:
    """In a kernel of a Jupyter server with the rdskit gateway, tell the gateway (in the
    background) which client the kernel uses now and its budget: its JupyterLab status
    item and panel follow the notebook. Elsewhere nothing happens.

    Example:
        >>> announce_to_gateway()  # not in a kernel: nothing to tell
    """
    if os.environ.get(ENV_GATEWAY, "").strip() and kernel_identity() is not None:
        _hooks.announce_client.call()


def kernel_proof(kernel_id: str, key: bytes, secret: str) -> str:
    """What a kernel sends to show it holds ``kernel_id``'s connection key.

    Example:
        >>> len(kernel_proof("k1", b"conn-key", "boot-secret"))
        64
    """
    message = f"rdskit-gateway-token:{kernel_id}:{secret}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


class GatewayKey(SecretKey):
    """Stands in for an API key: :meth:`auth_flow` yields a valid short-lived token.

    Its digest (the client-side rate limiter's bucket id) is fixed per gateway, so every
    client of one kernel shares one bucket.
    """

    __slots__ = ("_clock", "_grant", "_identity", "_info", "_path")

    def __init__(
        self,
        path: str | Path,
        info: GatewayInfo | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        identity: Callable[[], Identity] = kernel_identity,
    ) -> None:
        self._path = Path(path)
        self._info = info or read_gateway_file(path)
        super().__init__(f"rdskit-gateway:{self._info.url}")
        self._clock = clock
        self._identity = identity
        self._grant: tuple[str, float] | None = None  # (token, renew at); swapped whole

    @property
    def masked(self) -> str:
        """The display form: no token, no secret."""
        return "jupyter gateway token"

    def __repr__(self) -> str:
        return f"GatewayKey({self.masked!r})"

    @property
    def url(self) -> str:
        """The gateway's root URL."""
        return self._info.url

    @property
    def mode(self) -> str:
        """``"service"`` (the server holds a real key) or ``"sandbox"`` (its shared sandbox)."""
        return self._info.mode

    def forget(self) -> bool:
        """Drop the token (the gateway refused it): the next request gets a new one."""
        self._grant = None
        return True

    def auth_flow(self) -> Generator[Any, Any, str]:
        """Flow finishing with a fresh token; yields a ``Send`` step when it must exchange.

        Example:
            >>> token = yield from core.api_key.auth_flow()  # doctest: +SKIP
        """
        grant = self._grant
        if grant is not None and self._clock() < grant[1]:
            return grant[0]

        info = read_gateway_file(self._path)  # the secret rotates: read the current one
        body: dict[str, str] = {"secret": info.secret}
        identity = self._identity()
        if identity is not None:
            kernel_id, key = identity
            body |= {"kernel_id": kernel_id, "proof": kernel_proof(kernel_id, key, info.secret)}
        started = self._clock()
        request = httpx.Request(
            "POST",
            f"{info.url}/token",
            json=body,
            extensions={"timeout": httpx.Timeout(EXCHANGE_TIMEOUT).as_dict()},
        )
        try:
            response: httpx.Response = yield Send(request)
        except httpx.TransportError as exc:
            raise APIConnectionError(
                f"cannot reach the Jupyter gateway at {info.url} ({type(exc).__name__})"
            ) from exc
        response.read()
        if response.status_code != 200:
            raise ConfigurationError(
                f"the Jupyter gateway at {info.url} refused this kernel "
                f"(HTTP {response.status_code}: {_error_code(response)}); only kernels of "
                "that Jupyter server may use it: restart the kernel, or pass api_key= and "
                "base_url="
            )
        grant_body = response.json()
        token = str(grant_body["token"])
        lifetime = float(grant_body["expires_in"])
        self._grant = (token, started + lifetime * (1 - REFRESH_MARGIN))
        return token

    def reveal(self) -> str:
        """The current token (the request flow renews it ahead of expiry through
        :meth:`auth_flow`); without one yet, a blocking exchange (sync callers only)."""
        grant = self._grant
        if grant is not None:
            return grant[0]  # still valid: it is renewed at 80% of its lifetime
        flow = self.auth_flow()
        reply: Any = None
        with httpx.Client() as http:
            while True:
                try:
                    step = flow.send(reply)
                except StopIteration as stop:
                    token: str = stop.value
                    return token
                try:
                    reply = http.send(step.request)
                except httpx.TransportError as exc:
                    reply = None
                    flow.throw(exc)


def _error_code(response: httpx.Response) -> str:
    try:
        return str(response.json().get("error_code", "refused"))
    except (ValueError, AttributeError):
        return "refused"


def gateway_credentials(path: str | Path) -> tuple[GatewayKey, str]:
    """The key stand-in and base URL of the gateway whose discovery file is ``path``.

    Example:
        >>> key, url = gateway_credentials(os.environ["RDSKIT_GATEWAY"])  # doctest: +SKIP
        >>> url  # doctest: +SKIP
        'http://127.0.0.1:8888/rdskit'
    """
    key = GatewayKey(path)
    return key, key.url
