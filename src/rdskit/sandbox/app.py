"""The sandbox's FastAPI application.

``create_app(store, settings)`` wires the error handlers, the rate-limit middleware and the
routers listed in :mod:`rdskit.sandbox.registry` (included explicitly, in that order),
mounts the MCP server (``sandbox/mcp_server.py``) at ``/mcp/`` (built in the
background, see :class:`DeferredMcp`), and starts/stops the worker with the app's lifespan.

Example:
    >>> from rdskit.sandbox.backend.tables import open_store
    >>> store = open_store()
    >>> app = create_app(store, Settings())
    >>> "/v1/datasets" in app.openapi()["paths"]
    True
    >>> store.close()
"""

from __future__ import annotations

import asyncio
import hmac
import importlib
import logging
import math
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio
from anyio.abc import TaskStatus
from fastapi import Depends, FastAPI
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from rdskit.sandbox import openapi, registry
from rdskit.sandbox.api._common import (
    conform,
    error_response,
    install_error_handlers,
)
from rdskit.sandbox.errors import ApiError
from rdskit.sandbox.runtime import chaos, guard
from rdskit.sandbox.runtime.ratelimit import RateLimiter
from rdskit.sandbox.runtime.worker import Worker
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store import accounts
from rdskit.sandbox.store.accounts import key_digest
from rdskit.sandbox.store.db import Store

__all__ = [
    "GUARDED_PREFIXES",
    "RATE_LIMITED_PREFIXES",
    "BodyGuardMiddleware",
    "ChaosMiddleware",
    "DeferredMcp",
    "RateLimitMiddleware",
    "RequestIdMiddleware",
    "Settings",
    "connection_limits",
    "create_app",
]

RATE_LIMITED_PREFIXES = ("/v1", "/mcp", *guard.KEYED_SANDBOX_PATHS)
"""Paths whose requests count against the caller's key bucket (REST and MCP share it)."""


class RateLimitMiddleware:
    """429 ``too_many_requests`` over the per-key rate, ``RateLimit-*`` headers otherwise.

    Requests without ``x-api-key`` pass through (they end in 401). Headers are added to
    every response except a 401, i.e. to every authenticated response.
    """

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(RATE_LIMITED_PREFIXES):
            await self.app(scope, receive, send)
            return
        api_key = dict(scope["headers"]).get(b"x-api-key")
        if not api_key:
            await self.app(scope, receive, send)
            return
        decision = self.limiter.hit(key_digest(api_key.decode("latin-1")))
        if not decision.allowed:
            error = ApiError(
                429,
                "too_many_requests",
                f"Rate limit of {decision.limit} requests per second exceeded.",
                transient=True,
                # Never 0: a client honouring it must actually wait for the window to end.
                extra={"retry_after_seconds": max(round(decision.retry_after, 3), 0.001)},
                headers=decision.headers(),
            )
            await error_response(error)(scope, receive, send)
            return
        extra = [(k.lower().encode(), v.encode()) for k, v in decision.headers().items()]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] != 401:
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


HEADER_SECONDS = 10.0
"""A connection must have sent a whole request head within this time (slow or idle
connections are closed: they hold a file descriptor and nothing else)."""

KEEP_ALIVE_SECONDS = 5
"""An idle keep-alive connection is closed after this long."""

HEADER_BYTES = 16 * 1024
"""Largest request head (h11's incomplete-event limit): no legitimate head is near it."""

FD_RESERVE = 128
"""File descriptors kept back from connections: the database, worker threads, logs."""


ACCEPT_BURST = FD_RESERVE // 4
"""Connections accepted at once (the listen backlog, which asyncio also takes as the most
accepts in one go): a burst of 2,048 (uvicorn's default) past a budget near the
descriptor limit failed accept() with EMFILE, and asyncio then stops accepting anyone for
a second. Shedding makes room before the next burst, within :data:`FD_RESERVE`."""

IDLE_PER_CLIENT_SHARE = 4
"""One peer address may hold at most 1/4 of the connection budget idle (no request in
progress); opening more closes its longest-idle one."""


def connection_limits(max_connections: int | None = None) -> dict[str, Any]:
    """uvicorn settings that bound what connections can hold: a connection budget below
    the file-descriptor limit (raised to the hard limit first), a deadline for the request
    head, keep-alive and header-size limits, and idle connections shed first.

    ``max_connections`` sets the budget (default: the file-descriptor limit less
    :data:`FD_RESERVE`). No request in progress is ever cut: near the budget, and past a
    peer address's share of it (:data:`IDLE_PER_CLIENT_SHARE`), the connection idle the
    longest is closed, one that never sent a request before one kept alive after its
    answer, so a client hoarding connections cannot keep another from being served
    (:class:`_BoundedH11`). Only when every connection has a request in progress is a new
    one closed at once (accept() never fails with EMFILE, the log is never flooded).

    Example:
        >>> limits = connection_limits()
        >>> limits["timeout_keep_alive"], limits["h11_max_incomplete_event_size"]
        (5, 16384)
        >>> connection_limits(max_connections=40)["http"].per_client
        10
    """
    budget = max_connections or max(64, _raise_fd_limit() - FD_RESERVE)
    logging.getLogger("uvicorn.error").addFilter(_REPEATS)
    logging.getLogger("asyncio").addFilter(_REPEATS)
    protocol = type(
        "BoundedH11",
        (_BoundedH11,),
        {"budget": budget, "per_client": max(1, budget // IDLE_PER_CLIENT_SHARE), "idle": _Idle()},
    )
    return {
        "http": protocol,
        # uvicorn answers 503 once connections reach this; shedding keeps them below it.
        "limit_concurrency": budget + 1,
        "backlog": ACCEPT_BURST,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        "h11_max_incomplete_event_size": HEADER_BYTES,
    }


def _raise_fd_limit() -> int:
    """The soft RLIMIT_NOFILE after raising it to the hard limit (unchanged elsewhere)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return 8192
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return int(min(soft, 1 << 20)) if soft != resource.RLIM_INFINITY else 1 << 20


class _Idle:
    """A server's connections without a request in progress, longest idle first: those
    that never sent a request before those kept alive after an answer, overall and per
    peer address (insertion-ordered dicts: adding, removing and the oldest are O(1))."""

    def __init__(self) -> None:
        self.unused: dict[_BoundedH11, None] = {}
        self.kept: dict[_BoundedH11, None] = {}
        self.by_peer: dict[str, tuple[dict[_BoundedH11, None], dict[_BoundedH11, None]]] = {}

    def add(self, conn: _BoundedH11, peer: str, *, served: bool) -> None:
        self.discard(conn, peer)
        (self.kept if served else self.unused)[conn] = None
        self.by_peer.setdefault(peer, ({}, {}))[served][conn] = None

    def discard(self, conn: _BoundedH11, peer: str) -> None:
        self.unused.pop(conn, None)
        self.kept.pop(conn, None)
        mine = self.by_peer.get(peer)
        if mine is not None:
            mine[0].pop(conn, None)
            mine[1].pop(conn, None)
            if not mine[0] and not mine[1]:
                del self.by_peer[peer]

    def count(self, peer: str) -> int:
        mine = self.by_peer.get(peer)
        return len(mine[0]) + len(mine[1]) if mine else 0

    def oldest(self, peer: str | None = None) -> _BoundedH11 | None:
        """The connection to shed first (of ``peer``, or of all), or ``None``."""
        unused, kept = (
            (self.unused, self.kept) if peer is None else self.by_peer.get(peer, ({}, {}))
        )
        return next(iter(unused or kept), None)


class _BoundedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a connection budget, a request-head deadline and
    idle connections shed first (see :func:`connection_limits`)."""

    budget = 1024
    per_client = 256
    idle = _Idle()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self.peer = self.client[0] if self.client else ""
        # Room is made before this one counts as idle: the new connection is not the one
        # shed for being idle, it has not had the time to send its request.
        while self.idle.count(self.peer) >= self.per_client:
            self._shed(self.idle.oldest(self.peer))
        while len(self.connections) > self.budget:
            oldest = self.idle.oldest()
            if oldest is None:
                self._shed(self)  # every other one is answering: this one is refused
                return
            self._shed(oldest)
        self.idle.add(self, self.peer, served=False)
        self.loop.call_later(HEADER_SECONDS, self._head_deadline)

    def _shed(self, conn: _BoundedH11 | None) -> None:
        """Close ``conn`` (an idle one: no request of it is cut) and forget it at once,
        so the counts above see it gone before its transport reports the loss."""
        if conn is None:
            return
        self.idle.discard(conn, conn.peer)
        self.connections.discard(conn)
        conn.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:
            self.idle.discard(self, self.peer)  # a request in progress is never shed

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self.idle.add(self, self.peer, served=True)

    def connection_lost(self, exc: Exception | None) -> None:
        self.idle.discard(self, self.peer)
        super().connection_lost(exc)

    def _head_deadline(self) -> None:
        if self.cycle is None and not self.transport.is_closing():
            self.transport.close()  # no request head yet: idle or slow, not served


class _RepeatFilter(logging.Filter):
    """Lets the same log message through at most 5 times a minute (an accept() failing
    in a loop once wrote 33 MB/s); says how many were dropped when it lets one through."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: dict[str, tuple[float, int, int]] = {}  # msg -> (window start, shown, dropped)

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        key = f"{record.name}:{record.msg}"
        start, shown, dropped = self._seen.get(key, (now, 0, 0))
        if now - start > 60:
            start, shown = now, 0
        if shown >= 5:
            self._seen[key] = (start, shown, dropped + 1)
            return False
        if dropped:
            record.msg = f"{record.msg} (and {dropped} more like it dropped)"
        if len(self._seen) > 1000:
            self._seen.clear()
        self._seen[key] = (start, shown + 1, 0)
        return True


_REPEATS = _RepeatFilter()

GUARDED_PREFIXES = ("/v1", "/sandbox")
"""Paths whose JSON bodies pass :func:`rdskit.sandbox.runtime.guard.check_body` before any route."""


class RequestIdMiddleware:
    """Give every request an id (outermost): the ``x-request-id`` response header names
    the request in the server log, and a 500 body quotes it instead of internals."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = request_id
        header = (b"x-request-id", request_id.encode())

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), header]}
            await send(message)

        await self.app(scope, receive, send_with_id)


class BodyGuardMiddleware:
    """Refuse oversized or hostile bodies before any work, after the rate limiter.

    Bodies are read here once (at most ``guard.MAX_BODY_BYTES`` + 1 bytes are buffered)
    and replayed to the route. The size is checked for every request; the walk over the
    JSON (bounded by ``guard.MAX_NODES``) only for a request whose key is a known one,
    and on a worker thread, never on the event loop: a request without a valid key costs
    a size check and then its 401, so crafted bodies cannot stall other accounts.
    """

    def __init__(self, app: ASGIApp, store: Store, admin_token: str) -> None:
        self.app = app
        self.store = store
        self._admin_token = admin_token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        send_with_id = send
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not scope["path"].startswith(GUARDED_PREFIXES) or scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send_with_id)
            return
        headers = dict(scope["headers"])
        # The admin routes' own token guards them; a keyed one is checked as /v1 is.
        admin = (
            scope["path"].startswith("/sandbox") and scope["path"] not in guard.KEYED_SANDBOX_PATHS
        )
        if admin and not hmac.compare_digest(headers.get(b"x-admin-token", b""), self._admin_token):
            # The admin token before the body: without it, not one byte is read or parsed.
            refused = ApiError(401, "unauthorized", "Missing or wrong x-admin-token header.")
            await error_response(refused)(scope, _no_body, send_with_id)
            return
        declared = headers.get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > guard.MAX_BODY_BYTES:
            await self._refuse(guard.too_large(int(declared)), scope, send_with_id)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break  # the client went away; the route sees the disconnect
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > guard.MAX_BODY_BYTES:
                await self._refuse(guard.too_large(size), scope, send_with_id)
                return
        body = b"".join(chunks)
        api_key = dict(scope["headers"]).get(b"x-api-key", b"").decode("latin-1")
        rejection = await anyio.to_thread.run_sync(self._check, api_key, body, admin)
        if rejection is not None:
            await self._refuse(rejection, scope, send_with_id)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send_with_id)

    def _check(self, api_key: str, body: bytes, admin: bool) -> guard.Rejection | None:
        """The body's rejection: 401 for a missing or unknown key (as the routes answer,
        without parsing the body), else the bounds of :func:`guard.check_body`."""
        if not admin:
            with self.store.read() as conn:
                if not api_key or accounts.key_owner(conn, key_digest(api_key)) is None:
                    return guard.Rejection(401, message=accounts.refusal(conn, api_key))
        return guard.check_body(body)

    @staticmethod
    async def _refuse(rejection: guard.Rejection, scope: Scope, send: Send) -> None:
        if rejection.status == 401:
            response = error_response(ApiError(401, "unauthorized", rejection.message))
        elif rejection.status == 413:
            response = error_response(ApiError(413, "request_too_large", rejection.message))
        else:
            response = JSONResponse({"detail": rejection.items}, status_code=rejection.status)
        await response(scope, _no_body, send)


class ChaosMiddleware:
    """Inject the ``fault`` chaos rules (latency, 5xx, dropped connection, 429) into ``/v1``.

    Runs inside the rate limiter, so an injected 429 looks exactly like a real one.
    """

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app = app
        self.chaos = chaos.of(store)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(RATE_LIMITED_PREFIXES):
            await self.app(scope, receive, send)
            return
        rule = self.chaos.fault_for(scope["method"], scope["path"])
        if rule is None:
            await self.app(scope, receive, send)
        elif rule.kind == "latency":
            await anyio.sleep(rule.latency_ms / 1000)
            await self.app(scope, receive, send)
        elif rule.kind == "rate_limit":
            wait = rule.retry_after_seconds
            await error_response(
                ApiError(
                    429,
                    "too_many_requests",
                    "Rate limit exceeded (injected by a sandbox chaos rule).",
                    transient=True,
                    extra={"retry_after_seconds": wait},
                    headers={"Retry-After": str(max(1, math.ceil(wait)))},
                )
            )(scope, receive, send)
        elif rule.kind == "error":
            await error_response(
                ApiError(
                    rule.status,
                    "service_unavailable" if rule.status == 503 else "internal_error",
                    "The service failed (injected by a sandbox chaos rule).",
                    transient=True,
                )
            )(scope, receive, send)
        else:  # drop: promise a body, send part of it, close the connection
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", b"64")],
                }
            )
            await send({"type": "http.response.body", "body": b'{"status":', "more_body": True})
            raise ConnectionAbortedError("connection dropped by a sandbox chaos rule")


async def _no_body() -> Message:
    return {"type": "http.disconnect"}


class DeferredMcp:
    """``/mcp``: the MCP server, imported and started by the lifespan's task when the first
    MCP request arrives (that request waits until it is ready).

    Importing the MCP SDK and building the server take about a second of CPU: a sandbox that
    is never asked over MCP (a notebook's embedded one, ``rdskit demo``, almost every test)
    never pays it, and REST never waits for it.
    The SDK is optional (the ``mcp`` extra, so rdskit installs beside packages that pin
    another major version of it, such as jupyter-ai 3): without a usable one, REST and the
    worker run as ever and ``/mcp`` answers 503 ``mcp_unavailable`` naming the extra (the
    first such request also logs it as a warning; nothing is said at start).
    """

    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings
        self._endpoint: ASGIApp | None = None
        self._ready: anyio.Event | None = None
        self._wanted: anyio.Event | None = None  # set by the first MCP request
        self._missing: str | None = None  # why the MCP server could not be built
        self._said = False  # the missing extra logged (at the first MCP request)

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Build the server and keep its session manager running until cancelled."""
        self._ready, self._wanted = anyio.Event(), anyio.Event()
        task_status.started()
        await self._wanted.wait()
        try:
            module = await anyio.to_thread.run_sync(
                importlib.import_module, f"{__package__}.mcp_server"
            )
        except ImportError as exc:
            # Quiet at start (a REST user, e.g. README's `rdskit demo`, has no use for
            # it): said when an MCP request comes (``__call__``) and in ``--help``.
            self._missing = mcp_missing(exc)
            logging.getLogger(__name__).debug("rdskit sandbox: %s", self._missing)
            self._ready.set()
            return
        endpoint, running = await anyio.to_thread.run_sync(
            module.mcp_app, self._store, self._settings
        )
        async with running():
            self._endpoint = endpoint
            self._ready.set()
            await anyio.sleep_forever()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._ready is None or self._wanted is None:
            raise RuntimeError("the MCP server starts with the app's lifespan")
        self._wanted.set()
        await self._ready.wait()
        if self._missing is not None:
            if not self._said:
                self._said = True  # once per sandbox: the 503 body says it every time
                logging.getLogger(__name__).warning("rdskit sandbox: %s", self._missing)
            refused = error_response(ApiError(503, "mcp_unavailable", self._missing))
            await refused(scope, receive, send)
            return
        assert self._endpoint is not None
        await self._endpoint(scope, receive, send)


def mcp_missing(error: ImportError) -> str:
    """Why the sandbox's MCP endpoint is off, and the extra that turns it on.

    Example:
        >>> print(mcp_missing(ModuleNotFoundError("No module named 'mcp'")))  # doctest: +ELLIPSIS
        the sandbox's MCP endpoint needs the "mcp" extra (mcp>=2.3,<3; ...): pip install \
"rdskit[mcp]"; REST /v1 works without it
    """
    try:
        installed = f"mcp {version('mcp')} is installed"
    except PackageNotFoundError:
        installed = "not installed"
    return (
        f'the sandbox\'s MCP endpoint needs the "mcp" extra ({MCP_RANGE}; {installed}): '
        'pip install "rdskit[mcp]"; REST /v1 works without it'
    )


MCP_RANGE = "mcp>=2.3,<3"
"""The MCP SDK versions the sandbox's server is written for (pyproject's ``mcp`` extra)."""


def create_app(store: Store, settings: Settings) -> FastAPI:
    """The sandbox app over ``store``; the default account exists once it returns."""
    with store.transaction() as conn:
        accounts.bootstrap(conn)
    for control, body in settings.chaos:
        chaos.of(store).apply(control, body)
    worker = Worker(
        store,
        threads=settings.worker_threads,
        budget_seconds=settings.job_cpu_budget,
        jobs=registry.JOBS,
    )
    mcp = DeferredMcp(store, settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with anyio.create_task_group() as background:
            await background.start(mcp.serve)
            worker.start()
            try:
                yield
            finally:
                worker.stop()
                background.cancel_scope.cancel()

    app = FastAPI(
        title="Research Data Service (rdskit sandbox)",
        version="v1",
        lifespan=lifespan,
        dependencies=[Depends(conform)],
    )
    schema_of = app.openapi

    def published_openapi() -> dict[str, Any]:
        """FastAPI's document completed for tools (``sandbox/openapi.py``), built once."""
        if app.openapi_schema is None:
            app.openapi_schema = openapi.complete(schema_of())
        return app.openapi_schema

    app.openapi = published_openapi  # type: ignore[method-assign]
    app.state.store = store
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings.rate_limit)
    app.state.worker = worker
    install_error_handlers(app)
    for router in registry.ROUTERS:
        app.include_router(router)
    app.mount("/mcp", mcp)
    app.add_middleware(ChaosMiddleware, store=store)
    app.add_middleware(BodyGuardMiddleware, store=store, admin_token=settings.admin_token)
    app.add_middleware(RateLimitMiddleware, limiter=app.state.limiter)
    app.add_middleware(RequestIdMiddleware)  # outermost: ids every request
    return app
