"""The sandbox's FastAPI application.

``create_app(store, settings)`` wires the error handlers, the rate-limit middleware and the
``router`` of every module under ``rdskit.sandbox.routes`` (so a new route module plugs in
by existing), mounts the MCP server (``sandbox/mcp_server.py``) at ``/mcp/`` (built in the
background, see :class:`DeferredMcp`), and starts/stops the worker with the app's lifespan.

Example:
    >>> from rdskit.sandbox.db import Store
    >>> store = Store()
    >>> app = create_app(store, Settings())
    >>> "/v1/datasets" in app.openapi()["paths"]
    True
    >>> store.close()
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import TaskStatus
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rdskit.sandbox import accounts, routes
from rdskit.sandbox.db import Store
from rdskit.sandbox.ratelimit import RateLimiter
from rdskit.sandbox.routes._common import ApiError, install_error_handlers, key_digest
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.worker import Worker

__all__ = ["RATE_LIMITED_PREFIXES", "DeferredMcp", "RateLimitMiddleware", "Settings", "create_app"]

RATE_LIMITED_PREFIXES = ("/v1", "/mcp")
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
            await error.response()(scope, receive, send)
            return
        extra = [(k.lower().encode(), v.encode()) for k, v in decision.headers().items()]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] != 401:
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class DeferredMcp:
    """``/mcp``: the MCP server, imported and started in the background by the lifespan.

    Importing the MCP SDK takes about a second, a third of ``rdskit sandbox``'s start-up:
    REST answers meanwhile, and an MCP request that arrives first waits until it is ready.
    """

    def __init__(self, store: Store, settings: Settings) -> None:
        self._store = store
        self._settings = settings
        self._endpoint: ASGIApp | None = None
        self._ready: anyio.Event | None = None

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Build the server and keep its session manager running until cancelled."""
        self._ready = anyio.Event()
        task_status.started()
        module = await anyio.to_thread.run_sync(
            importlib.import_module, f"{__package__}.mcp_server"
        )
        endpoint, running = await anyio.to_thread.run_sync(
            module.mcp_app, self._store, self._settings
        )
        async with running():
            self._endpoint = endpoint
            self._ready.set()
            await anyio.sleep_forever()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._ready is None:
            raise RuntimeError("the MCP server starts with the app's lifespan")
        await self._ready.wait()
        assert self._endpoint is not None
        await self._endpoint(scope, receive, send)


def _route_modules() -> list[Any]:
    """Every module of ``rdskit.sandbox.routes`` (private ``_`` modules excluded)."""
    return [
        importlib.import_module(f"{routes.__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(routes.__path__), key=lambda m: m.name)
        if not info.name.startswith("_")
    ]


def create_app(store: Store, settings: Settings) -> FastAPI:
    """The sandbox app over ``store``; the default account exists once it returns."""
    with store.transaction() as conn:
        accounts.bootstrap(conn)
    worker = Worker(store, threads=settings.worker_threads)
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
    )
    app.state.store = store
    app.state.settings = settings
    app.state.limiter = RateLimiter(settings.rate_limit)
    app.state.worker = worker
    install_error_handlers(app)
    for module in _route_modules():
        router = getattr(module, "router", None)
        if router is not None:
            app.include_router(router)
    app.mount("/mcp", mcp)
    app.add_middleware(RateLimitMiddleware, limiter=app.state.limiter)
    return app
