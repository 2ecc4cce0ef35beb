"""A scripted service behind ``httpx.MockTransport``, for the client unit tests.

- :class:`MockAPI`: script answers with ``api.on(method, path, *responses)``
  (each a ``Reply``, an exception to raise, or a function of the :class:`Call` giving
  either; the last one repeats), read what was sent in ``api.calls``.
- ``make_aclient(api)``: an AsyncClient on it, with no client-side rate limit and a sleep
  that records instead of waiting (``client.slept``); conftest's ``client`` fixture is
  the sync counterpart.
- ``make_key()``: a fresh API key, so process-wide rate-limit buckets never leak
  between tests.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

import rdskit

BASE_URL = "http://rds.test"


def make_key() -> str:
    """A fresh key in the service's format."""
    return "bz_test_" + secrets.token_hex(16)


@dataclass
class Reply:
    """A scripted response."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)

    def response(self) -> httpx.Response:
        if isinstance(self.body, bytes):  # a raw, non-JSON body
            content = self.body
        else:
            content = b"" if self.body is None else json.dumps(self.body).encode()
        headers = {"content-type": "application/json", **self.headers}
        return httpx.Response(self.status, content=content, headers=headers)


def ok(data: Any, status: int = 200) -> Reply:
    """``{status: success, data}``."""
    return Reply(status, {"status": "success", "data": data})


def page(items: list[Any], cursor: str | None = None) -> Reply:
    """A list envelope; ``has_next`` follows from ``cursor``."""
    return Reply(
        200, {"status": "success", "data": items, "has_next": cursor is not None, "cursor": cursor}
    )


def error(
    status: int, code: str, detail: Any = "boom", *, transient: bool = False, **extra: Any
) -> Reply:
    """A ``{status, error_code, detail, transient}`` error body."""
    return Reply(
        status,
        {"status": "info", "error_code": code, "detail": detail, "transient": transient, **extra},
    )


@dataclass
class Call:
    """One request the client sent."""

    method: str
    path: str  # decoded
    url: str  # as sent
    params: dict[str, str]
    json: Any
    headers: httpx.Headers
    answer: Any = None  # the body it was answered with (None: unscripted, raised or empty)


Answer = Reply | Exception | Callable[[Call], Reply | Exception]


class MockAPI:
    """Scripted answers per (method, path); unscripted requests answer 599."""

    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], list[Answer]] = {}
        self.calls: list[Call] = []

    def on(self, method: str, path: str, *replies: Answer) -> MockAPI:
        self.routes[(method, path)] = list(replies)
        return self

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        call = Call(
            request.method,
            request.url.path,
            str(request.url),
            dict(request.url.params),
            body,
            request.headers,
        )
        self.calls.append(call)
        queue = self.routes.get((request.method, request.url.path))
        if not queue:
            return Reply(599, {"unscripted": f"{request.method} {request.url.path}"}).response()
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        if callable(reply):
            reply = reply(call)
        if isinstance(reply, Exception):
            raise reply
        call.answer = reply.body
        return reply.response()

    async def ahandle(self, request: httpx.Request) -> httpx.Response:
        return self.handle(request)

    def sent(self, method: str, path: str) -> list[Call]:
        return [c for c in self.calls if (c.method, c.path) == (method, path)]


def make_aclient(api: MockAPI, **options: Any) -> rdskit.AsyncClient:
    """An AsyncClient on ``api`` (limiter off, sleeps recorded); use it inside a loop."""
    options.setdefault("api_key", make_key())
    options.setdefault("rate_limit", None)
    client = rdskit.AsyncClient(
        base_url=BASE_URL, transport=httpx.MockTransport(api.ahandle), **options
    )
    client.slept = []

    async def record(seconds: float) -> None:
        client.slept.append(seconds)

    client._sleep = record
    return client
