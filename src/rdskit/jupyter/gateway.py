"""The rdskit Jupyter server extension: one API gateway for every kernel of the server.

Enabled by ``jupyter-config/jupyter_server_config.d/rdskit.json`` (installed into
``etc/jupyter``). Inside the Jupyter server it:

- **holds the API key** (``c.RdsGateway.api_key`` or the server's ``RDSKIT_API_KEY``) and
  removes ``RDSKIT_API_KEY``/``RDSKIT_BASE_URL`` from the server's environment, so kernels
  never inherit them. Kernels get ``RDSKIT_GATEWAY``: the path of a 0600 discovery file
  (Jupyter runtime dir) with the gateway URL and a bootstrap secret, which
  :mod:`rdskit.jupyter.discovery` trades at ``POST /rdskit/token`` for short-lived tokens;
- **proxies** ``/rdskit/v1/...`` to the service through ONE request bucket for all kernels
  (5 requests per second by default): requests queue in arrival order instead of being
  rejected, so many notebooks together never see a 429. Status codes, bodies and the
  ``RateLimit-*``/``Retry-After`` headers pass through;
- **hosts a shared sandbox** when no key is configured (the default), started by the
  first kernel request: a file database in the Jupyter data dir, so its state outlives
  kernel (and server) restarts.

Only loopback clients are served. The key is never logged, written or sent to a kernel.

Example (``jupyter_server_config.py``)::

    c.RdsGateway.base_url = "https://rds.example.com"   # key from RDSKIT_API_KEY
    c.RdsGateway.rate_limit = 5.0
    c.RdsGateway.token_ttl = 900
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import json
import os
import secrets
import time
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any, NoReturn

import httpx
from jupyter_core.paths import jupyter_data_dir, jupyter_runtime_dir
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.extension.application import ExtensionApp
from tornado import web
from traitlets import Float, Unicode

from rdskit._config import ENV_API_KEY, ENV_BASE_URL, ENV_GATEWAY, SecretKey, resolve_base_url
from rdskit._ratelimit import DEFAULT_RATE, RateLimiter
from rdskit.jupyter.discovery import TOKEN_HEADER

__all__ = [
    "PREFIX",
    "Gateway",
    "RdsGateway",
    "SharedBucket",
    "TokenBook",
    "Upstream",
    "make_handlers",
]

PREFIX = "rdskit"
"""The gateway's path under the server's ``base_url``."""

# Request headers worth forwarding (the key header is replaced, cookies never leave).
_FORWARD_REQUEST = ("accept", "content-type", "user-agent")
# Response headers passed back to the kernel.
_FORWARD_RESPONSE = (
    "content-type",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "retry-after",
)


class TokenBook:
    """Short-lived tokens handed to kernels; only their SHA-256 digests are kept.

    Example:
        >>> book = TokenBook(ttl=60)
        >>> token, lifetime = book.mint()
        >>> book.check(token), book.check("forged"), lifetime
        ('valid', 'invalid', 60.0)
    """

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        if ttl <= 0:
            raise ValueError(f"token_ttl must be positive, got {ttl!r}")
        self.ttl = float(ttl)
        self._clock = clock
        self._expiry: dict[str, float] = {}  # digest -> monotonic expiry

    def mint(self) -> tuple[str, float]:
        """A new token and its lifetime in seconds."""
        now = self._clock()
        # Forget tokens expired for a whole lifetime; newer ones still answer "expired".
        self._expiry = {d: t for d, t in self._expiry.items() if t > now - self.ttl}
        token = secrets.token_urlsafe(32)
        self._expiry[_digest(token)] = now + self.ttl
        return token, self.ttl

    def check(self, token: str | None) -> str:
        """``"valid"``, ``"expired"`` or ``"invalid"``."""
        expiry = self._expiry.get(_digest(token or ""))
        if expiry is None:
            return "invalid"
        return "valid" if self._clock() < expiry else "expired"


class SharedBucket:
    """One request bucket for every kernel: callers queue in arrival order for a slot.

    At most ``floor(rate)`` requests start in any window of ``floor(rate) / rate`` seconds
    (5 in any second by default; see :class:`rdskit._ratelimit.RateLimiter`), and the
    service's own ``RateLimit-*``/429 answers hold the queue (:meth:`observe`).
    """

    def __init__(self, rate: float = DEFAULT_RATE) -> None:
        self.limiter = RateLimiter(rate)
        self.waiting = 0
        self._turn: asyncio.Lock | None = None  # made in the server's event loop

    async def acquire(self) -> None:
        """Wait for this request's slot (FIFO: asyncio locks wake waiters in order)."""
        if self._turn is None:
            self._turn = asyncio.Lock()
        self.waiting += 1
        try:
            async with self._turn:
                while (wait := self.limiter.try_acquire()) > 0:
                    await asyncio.sleep(wait)
        finally:
            self.waiting -= 1

    def observe(self, response: httpx.Response) -> None:
        """Hold the queue when the service says its window is spent or answered 429."""
        self.limiter.observe(response.headers)
        if response.status_code == 429:
            retry_after = response.headers.get("retry-after", "1")
            self.limiter.hold(float(retry_after) if retry_after.isdigit() else 1.0)


Upstream = Callable[[], tuple[str, str]]
"""Starts the upstream on first use and returns its ``(base_url, api_key)`` (may block)."""


class Gateway:
    """What the handlers share: upstream, key, bootstrap secret, tokens and bucket.

    ``upstream`` is ``(base_url, api_key)``, or an :data:`Upstream` run once, in a worker
    thread, when the first request needs it (the shared sandbox starts that way).
    ``transport`` replaces the upstream transport (tests record upstream traffic with it).
    """

    def __init__(
        self,
        upstream: tuple[str, str] | Upstream,
        *,
        mode: str,
        rate_limit: float = DEFAULT_RATE,
        token_ttl: float = 900.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.mode = mode
        self.secret = secrets.token_urlsafe(32)
        self.tokens = TokenBook(token_ttl)
        self.bucket = SharedBucket(rate_limit)
        self._start = upstream if callable(upstream) else None
        self._target = None if callable(upstream) else _target(*upstream)
        self._starting: asyncio.Lock | None = None  # made in the server's event loop
        self._transport = transport
        self._http: httpx.AsyncClient | None = None  # made in the server's event loop

    @property
    def base_url(self) -> str | None:
        """The upstream root URL (None until a lazy upstream has started)."""
        return None if self._target is None else self._target[0]

    def __repr__(self) -> str:
        key = None if self._target is None else self._target[1]
        return f"Gateway(base_url={self.base_url!r}, mode={self.mode!r}, api_key={key!r})"

    async def _upstream(self) -> tuple[str, SecretKey]:
        if self._target is None:
            if self._starting is None:
                self._starting = asyncio.Lock()
            async with self._starting:  # one start, however many requests wait for it
                if self._target is None and self._start is not None:
                    started = await asyncio.get_running_loop().run_in_executor(None, self._start)
                    self._target = _target(*started)
        assert self._target is not None
        return self._target

    def secret_matches(self, candidate: Any) -> bool:
        """Constant-time comparison with the bootstrap secret."""
        return isinstance(candidate, str) and hmac.compare_digest(candidate, self.secret)

    async def forward(
        self, method: str, path: str, query: str, body: bytes, headers: dict[str, str]
    ) -> httpx.Response:
        """Send one request upstream with the real key, after waiting for its slot."""
        if self._http is None:
            self._http = httpx.AsyncClient(transport=self._transport, timeout=60.0)
        base_url, key = await self._upstream()
        url = f"{base_url}/{path}" + (f"?{query}" if query else "")
        await self.bucket.acquire()
        response = await self._http.request(
            method, url, content=body or None, headers={**headers, "x-api-key": key.reveal()}
        )
        self.bucket.observe(response)
        return response

    def status(self) -> dict[str, Any]:
        """What ``GET /rdskit/status`` reports (nothing secret)."""
        return {
            "mode": self.mode,
            "upstream": self.base_url or "starts with the first request",
            "rate_limit": self.bucket.limiter.rate,
            "queued": self.bucket.waiting,
            "token_ttl": self.tokens.ttl,
        }

    async def aclose(self) -> None:
        """Close the upstream connections."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def publish(self, path: Path, url: str) -> None:
        """Write the discovery file (0600) for kernels; it holds the secret, never the key."""
        path.parent.mkdir(parents=True, exist_ok=True)
        content = json.dumps({"url": url, "mode": self.mode, "secret": self.secret})
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # before writing: an older file may have had wider permissions
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(content)


def _target(base_url: str, api_key: str) -> tuple[str, SecretKey]:
    return resolve_base_url(base_url), SecretKey(api_key)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _loopback(address: str | None) -> bool:
    try:
        return ipaddress.ip_address((address or "").split("%")[0]).is_loopback
    except ValueError:
        return False


class _GatewayHandler(web.RequestHandler):
    """Base handler: loopback only, JSON errors in the service's error shape."""

    gateway: Gateway

    def initialize(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def check_xsrf_cookie(self) -> None:
        """Callers authenticate with a secret or token header, never a cookie: no XSRF."""

    def prepare(self) -> None:
        if not _loopback(self.request.remote_ip):
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


class TokenHandler(_GatewayHandler):
    """``POST /rdskit/token`` ``{secret}`` -> ``{token, expires_in}``."""

    @allow_unauthenticated
    def post(self) -> None:
        try:
            secret = json.loads(self.request.body or b"{}").get("secret")
        except (ValueError, AttributeError):
            secret = None
        if not self.gateway.secret_matches(secret):
            self._fail(403, "gateway_secret_invalid", "wrong bootstrap secret")
        token, lifetime = self.gateway.tokens.mint()
        self.finish({"token": token, "expires_in": lifetime})


class StatusHandler(_GatewayHandler):
    """``GET /rdskit/status``: mode, upstream URL, shared rate and queue length."""

    @allow_unauthenticated
    def get(self) -> None:
        self._authorize()
        self.finish(self.gateway.status())


class ProxyHandler(_GatewayHandler):
    """``/rdskit/v1/...``: forwarded upstream through the shared bucket."""

    @allow_unauthenticated
    async def get(self, path: str) -> None:
        self._authorize()
        request = self.request
        headers = {
            name: request.headers[name] for name in _FORWARD_REQUEST if name in request.headers
        }
        try:
            response = await self.gateway.forward(
                request.method or "GET", path, request.query, request.body, headers
            )
        except (httpx.TransportError, OSError, RuntimeError) as exc:
            # Unreachable service, or a shared sandbox that could not start.
            self._fail(
                502,
                "gateway_upstream_unreachable",
                f"the gateway could not reach the service ({type(exc).__name__})",
            )
        self.set_status(response.status_code, reason=response.reason_phrase or "Unknown")
        self.clear_header("content-type")
        for name in _FORWARD_RESPONSE:
            if name in response.headers:
                self.set_header(name, response.headers[name])
        self.finish(response.content)

    post = patch = put = delete = get


def make_handlers(gateway: Gateway, base_url: str = "/") -> list[tuple[str, type, dict[str, Any]]]:
    """The gateway's tornado routes under ``base_url``.

    Example:
        >>> gw = Gateway(("http://127.0.0.1:1", "k"), mode="service")
        >>> [pattern for pattern, *_ in make_handlers(gw)]
        ['/rdskit/token', '/rdskit/status', '/rdskit/(v1/.*)']
    """
    root = base_url.rstrip("/") + "/" + PREFIX
    kwargs = {"gateway": gateway}
    return [
        (f"{root}/token", TokenHandler, kwargs),
        (f"{root}/status", StatusHandler, kwargs),
        (f"{root}/(v1/.*)", ProxyHandler, kwargs),
    ]


class RdsGateway(ExtensionApp):
    """The server extension (configure it as ``c.RdsGateway.<trait>``)."""

    name = "rdskit"

    api_key = Unicode(
        None,
        allow_none=True,
        config=True,
        help="API key of the service; default: RDSKIT_API_KEY of the server's environment. "
        "Without one, the gateway serves a shared sandbox.",
    )
    base_url = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Root URL of the service; default: RDSKIT_BASE_URL of the server's environment.",
    )
    rate_limit = Float(DEFAULT_RATE, config=True, help="Requests per second for all kernels.")
    token_ttl = Float(900.0, config=True, help="Seconds a kernel token stays valid.")
    sandbox_db = Unicode(
        None,
        allow_none=True,
        config=True,
        help="SQLite file of the shared sandbox; default: <jupyter data dir>/rdskit/sandbox.db.",
    )
    sandbox_speed = Float(1.0, config=True, help="Simulated-time speed-up of the sandbox.")

    gateway: Gateway | None = None
    _stop_sandbox: Callable[[], None] | None = None
    _file: Path | None = None

    def initialize_settings(self) -> None:
        """Take the key out of the environment, then start the gateway (or the sandbox)."""
        key = self.api_key or os.environ.get(ENV_API_KEY, "").strip() or None
        url = self.base_url or os.environ.get(ENV_BASE_URL, "").strip() or None
        # Kernels and terminals inherit this process's environment: they must not see the key.
        for name in (ENV_API_KEY, ENV_BASE_URL):
            os.environ.pop(name, None)
        if key is not None and url is None:
            self.log.error("rdskit gateway off: an API key is configured but no base URL")
            return
        upstream: tuple[str, str] | Upstream
        if key is not None and url is not None:
            upstream, mode = (url, key), "service"
        elif all(find_spec(name) for name in ("fastapi", "uvicorn")):
            upstream, mode = self._start_sandbox, "sandbox"
        else:
            self.log.warning(
                "rdskit gateway off: no API key is configured and the sandbox extra "
                "(pip install 'rdskit[sandbox]') is not installed"
            )
            return
        self.gateway = Gateway(
            upstream, mode=mode, rate_limit=self.rate_limit, token_ttl=self.token_ttl
        )
        self._file = Path(jupyter_runtime_dir()) / f"rdskit-gateway-{os.getpid()}.json"
        os.environ[ENV_GATEWAY] = str(self._file)
        self.log.info("rdskit gateway: %s mode (%s)", mode, self.gateway.status()["upstream"])

    def _start_sandbox(self) -> tuple[str, str]:
        """Start the shared sandbox (on the first request that needs it)."""
        from rdskit.sandbox import start

        db = Path(self.sandbox_db or Path(jupyter_data_dir()) / "rdskit" / "sandbox.db")
        db.parent.mkdir(parents=True, exist_ok=True)
        handle = start(db=db, speed=self.sandbox_speed)
        self._stop_sandbox = handle.stop
        self.log.info("rdskit gateway: shared sandbox with database %s", db)
        return handle.url, handle.api_key

    def initialize_handlers(self) -> None:
        """Register the routes (the ExtensionApp prefixes the server's base_url)."""
        if self.gateway is not None:
            self.handlers.extend(
                (pattern.lstrip("/"), handler, kwargs)
                for pattern, handler, kwargs in make_handlers(self.gateway)
            )

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        """Publish the discovery file once the server listens (its port is known)."""
        if self.gateway is None or self._file is None:
            return
        if serverapp.sock:
            self.log.warning("rdskit gateway: unix-socket servers are not supported")
            return
        host = (
            serverapp.ip
            if serverapp.ip not in ("", "*", "0.0.0.0", "::", "localhost")
            else ("127.0.0.1")
        )
        host = f"[{host}]" if ":" in host else host
        scheme = "https" if serverapp.certfile else "http"
        url = f"{scheme}://{host}:{serverapp.port}{serverapp.base_url.rstrip('/')}/{PREFIX}"
        self.gateway.publish(self._file, url)

    async def stop_extension(self) -> None:
        """Remove the discovery file, close connections, stop the sandbox."""
        if self._file is not None:
            self._file.unlink(missing_ok=True)
        if self.gateway is not None:
            await self.gateway.aclose()
        if self._stop_sandbox is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._stop_sandbox)
