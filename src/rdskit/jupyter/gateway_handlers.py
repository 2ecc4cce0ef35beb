"""The gateway's tornado handlers: the token exchange, the status and its human page, and the
proxy of ``/rdskit/v1/...`` (loopback peers only; errors in the service's shape).
:class:`GatewayHandler` is the base the JupyterLab endpoints (:mod:`rdskit.jupyter.lab_api`)
build on.

Example:
    >>> from rdskit.jupyter.gateway_core import Gateway
    >>> [p for p, *_ in make_handlers(Gateway(("http://127.0.0.1:1", "k"), mode="service"))]
    ['/rdskit/?', '/rdskit/token', '/rdskit/status', '/rdskit/(v1/.*)']
"""

from __future__ import annotations

import html
import ipaddress
import json
import re
from typing import Any, NoReturn

import httpx
from jupyter_server.auth.decorator import allow_unauthenticated
from tornado import web

from rdskit._gateway_auth import TOKEN_HEADER
from rdskit.jupyter.gateway_core import Gateway, Refused
from rdskit.jupyter.gateway_paths import upstream_path
from rdskit.jupyter.hardening import carries_key, redact_key
from rdskit.models.account import INSTANCE_HEADER

__all__ = [
    "PREFIX",
    "GatewayHandler",
    "PageHandler",
    "ProxyHandler",
    "StatusHandler",
    "TokenHandler",
    "loopback",
    "make_handlers",
]


PREFIX = "rdskit"
"""The gateway's path under the server's ``base_url``."""

# Request headers worth forwarding (the key header is replaced, cookies never leave).
_FORWARD_REQUEST = ("accept", "content-type", "user-agent")
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
# Response headers passed back to the kernel (the service's instance: a kernel behind the
# gateway keys its ledger of paid calls as a client of the service itself does).
_FORWARD_RESPONSE = (
    "content-type",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "retry-after",
    INSTANCE_HEADER,
)


def loopback(address: str | None) -> bool:
    """Whether ``address`` (a peer IP, maybe with a ``%zone``) is a loopback address.

    Example:
        >>> loopback("127.0.0.1"), loopback("::1"), loopback("10.0.0.1"), loopback(None)
        (True, True, False, False)
    """
    try:
        return ipaddress.ip_address((address or "").split("%")[0]).is_loopback
    except ValueError:
        return False


class GatewayHandler(web.RequestHandler):
    """Base handler: loopback only, JSON errors in the service's error shape."""

    gateway: Gateway

    def initialize(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def check_xsrf_cookie(self) -> None:
        """Callers authenticate with a secret or token header, never a cookie: no XSRF."""

    def prepare(self) -> None:
        if not loopback(self.request.remote_ip):
            self._fail(403, "gateway_forbidden", "the rdskit gateway serves local kernels only")

    def _fail(self, status: int, code: str, detail: str) -> NoReturn:
        self.set_status(status)
        self.set_header("content-type", "application/json")
        self.finish({"status": "info", "error_code": code, "detail": detail, "transient": False})
        raise web.Finish()

    def _authorize(self) -> None:
        state = self.gateway.tokens.check(self.request.headers.get(TOKEN_HEADER))
        if state != "valid":
            self._fail(
                401,
                f"gateway_token_{state}",
                f"the gateway token is {state}; the rdskit client renews it by itself, so "
                "restart the kernel if this persists",
            )


class TokenHandler(GatewayHandler):
    """``POST /rdskit/token`` ``{secret, kernel_id, proof}`` -> ``{token, expires_in}``."""

    @allow_unauthenticated
    def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            body = None
        try:
            token, lifetime = self.gateway.grant(body)
        except Refused as refused:
            self._fail(refused.status, refused.code, refused.detail)
        self.finish({"token": token, "expires_in": lifetime})


class StatusHandler(GatewayHandler):
    """``GET /rdskit/status``: mode, upstream URL, shared rate and queue length."""

    @allow_unauthenticated
    def get(self) -> None:
        self._authorize()
        self.finish(self.gateway.status())


class PageHandler(GatewayHandler):
    """``GET /rdskit``: a small human page at the URL ``%rds status`` prints (no secrets,
    no token needed: what it shows is the gateway's mode, rate and queue)."""

    @allow_unauthenticated
    def get(self) -> None:
        # A rebinding page names another host: only the loopback names this server has.
        host = (self.request.host_name or "").lower()
        if host not in ("localhost", "127.0.0.1", "::1", "[::1]") and not host.endswith(
            ".localhost"
        ):
            self._fail(403, "gateway_host_refused", "the rdskit page answers loopback hosts only")
        facts = self.gateway.status()
        rows = "".join(
            f"<tr><th>{html.escape(label)}</th><td>{html.escape(str(facts[key]))}</td></tr>"
            for key, label in _PAGE_FACTS
            if facts.get(key) is not None
        )
        self.set_header("content-type", "text/html; charset=utf-8")
        self.set_header(
            "content-security-policy",
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        )
        self.set_header("x-frame-options", "DENY")
        self.finish(
            "<!doctype html><meta charset=utf-8><title>rdskit gateway</title>"
            "<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:44em}"
            "th{text-align:left;padding-right:1em;font-weight:600}</style>"
            "<h1>rdskit gateway</h1><p>This Jupyter server forwards its kernels' rdskit "
            "requests here, through one shared request bucket. Kernels connect with "
            "<code>rdskit.Client()</code> or <code>%rds connect</code>; this page is for "
            f"people.</p><table>{rows}</table>"
        )


_PAGE_FACTS = (
    ("mode", "mode"),
    ("upstream", "service URL"),
    ("sandbox_db", "shared sandbox database"),
    ("rate_limit", "requests per second (all kernels)"),
    ("queued", "requests queued now"),
    ("token_ttl", "kernel token lifetime (s)"),
)


class ProxyHandler(GatewayHandler):
    """``/rdskit/v1/...``: forwarded upstream through the shared bucket."""

    @allow_unauthenticated
    async def get(self, decoded: str) -> None:
        request = self.request
        # Tornado hands over the path decoded; the upstream must get the bytes that came in,
        # checked as they are (an encoded "/" decoded here would become a separator there).
        root = str(self.settings.get("base_url") or "/").rstrip("/") + f"/{PREFIX}/"
        raw = request.path[len(root) :] if request.path.startswith(root) else ""
        path = upstream_path(raw)
        if path is None:
            self._fail(
                400,
                "gateway_path_refused",
                "the gateway forwards normalised /v1/... paths only (no dot or empty "
                "segments, no encoded '/', '\\', '?', '#' or '.')",
            )
        self._authorize()
        headers = {
            name: request.headers[name] for name in _FORWARD_REQUEST if name in request.headers
        }
        if not all(_PRINTABLE_ASCII.fullmatch(value) for value in headers.values()):
            # httpx sends ASCII header values only: refused here, not a 500 and a traceback.
            self._fail(
                400,
                "gateway_header_refused",
                f"the headers {', '.join(_FORWARD_REQUEST)} must be printable ASCII",
            )
        kernel_id = self.gateway.tokens.kernel_of(request.headers.get(TOKEN_HEADER))
        try:
            response = await self.gateway.forward(
                request.method or "GET", path, request.query, request.body, headers, kernel_id
            )
        except Refused as refused:
            self._fail(refused.status, refused.code, refused.detail)
        except (httpx.TransportError, OSError, RuntimeError) as exc:
            # Unreachable service, or a shared sandbox that could not start.
            self._fail(
                502,
                "gateway_upstream_unreachable",
                f"the gateway could not reach the service ({type(exc).__name__})",
            )
        _, key = await self.gateway.upstream()
        forwarded = [(n, response.headers[n]) for n in _FORWARD_RESPONSE if n in response.headers]
        content, forwarded = redact_key(response.content, forwarded, key.reveal())
        if carries_key(content, key.reveal()):  # encoded: not cut out, so not passed on
            self._fail(
                502,
                "gateway_upstream_echoed_key",
                "the service's answer carried the API key in an encoded form; the gateway "
                "did not pass it on",
            )
        # The standard reason phrase: the upstream's own could carry anything (the key).
        self.set_status(response.status_code)
        self.clear_header("content-type")
        for name, value in forwarded:
            self.set_header(name, value)
        self.finish(content)

    post = patch = put = delete = get


def make_handlers(gateway: Gateway, base_url: str = "/") -> list[tuple[str, type, dict[str, Any]]]:
    """The gateway's tornado routes under ``base_url``.

    Example:
        >>> gw = Gateway(("http://127.0.0.1:1", "k"), mode="service")
        >>> [pattern for pattern, *_ in make_handlers(gw)]
        ['/rdskit/?', '/rdskit/token', '/rdskit/status', '/rdskit/(v1/.*)']
    """
    root = base_url.rstrip("/") + "/" + PREFIX
    kwargs = {"gateway": gateway}
    return [
        (f"{root}/?", PageHandler, kwargs),
        (f"{root}/token", TokenHandler, kwargs),
        (f"{root}/status", StatusHandler, kwargs),
        (f"{root}/(v1/.*)", ProxyHandler, kwargs),
    ]
