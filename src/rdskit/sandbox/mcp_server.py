"""The sandbox's MCP server: Streamable HTTP at ``/mcp/``, built on the official ``mcp`` SDK.

It exposes the assistant and read-only lookups as tools named with the ``service__``
prefix (there are no create, update or delete tools):

| Tool | What it does |
|---|---|
| ``service__ask`` | starts an Ask turn: ``{chat_id, message_id, status: working}`` at once |
| ``service__get_message`` | long-polls a reply until ``stop_reason`` is set; returns its blocks |
| ``service__render`` | renders a ``render: true`` block (a table) of a reply |
| ``service__list_collections`` | datasets (``kind: mentions``) with their mention counts |
| ``service__list_mentions`` | one page of a mentions query (sort, order, limit, cursor, ...) |
| ``service__mentions_get`` | one post by (source, id) |
| ``service__mentions_count`` | how many posts a query matches (``complete: false`` past 10,000) |
| ``service__query`` | answers a question over collected data synchronously; charged |
| ``service__collect_mentions`` | searches the sources through a billed research preview |

Auth is the ``x-api-key`` header on every request (same accounts as REST); the plan must
have the ``mcp`` feature. A missing or revoked key is an HTTP 401 and a plan without MCP an
HTTP 403 (JSON-RPC error bodies); 429 comes from the app's shared rate limiter (the REST
bucket, keyed by the key digest). Every other failure is a tool error: the tool result
holds ``{error: {code, message, status}}`` with the REST code and HTTP status, and
``isError`` is true. Tool arguments are held to the REST bounds by name
(:mod:`rdskit.sandbox.runtime.guard`: a 50,000-character ``message``, a lone surrogate, 5,000
``dataset_ids``) and refused as a ``validation_error`` (422) naming the argument, before any
work or charge; a body past ``guard.MAX_BODY_BYTES`` is an HTTP 413. Every tool calls the
backend (``backend.chats``, ``backend.mentions``, ``backend.previews``); no SQL here.

The server runs stateless (every POST stands alone) with JSON responses. A ``GET /mcp/``
event stream (which a stateless server never writes to) is closed after
:data:`STREAM_SECONDS`, and one key holds at most :data:`STREAMS_PER_KEY` at once (429
past that). Every tool is bounded like a REST call: one page, or at most
:data:`COUNT_PAGES` pages for ``service__mentions_count``. ``/mcp`` without
the slash answers 307 to ``/mcp/`` (the app's slash redirect).

``create_app`` serves :func:`mcp_app` at ``/mcp`` (importing this module in the
background: the SDK takes about a second to import).

Example:
    >>> from rdskit.sandbox.backend.tables import open_store
    >>> from rdskit.sandbox.settings import Settings
    >>> store = open_store()
    >>> endpoint, running = mcp_app(store, Settings())
    >>> isinstance(endpoint, McpGate)
    True
    >>> store.close()
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, contextmanager
from functools import partial
from typing import Any

import anyio
from fastapi.exceptions import RequestValidationError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import RequestBodyLimitMiddleware, TransportSecuritySettings
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rdskit.models import MentionsQuery
from rdskit.models.chats import AskRequest
from rdskit.models.common import SOURCES
from rdskit.sandbox.api._common import Principal
from rdskit.sandbox.backend import chats, mentions, previews
from rdskit.sandbox.errors import ApiError, FieldError
from rdskit.sandbox.runtime import guard
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.accounts import key_digest, key_owner, plan_of, refusal
from rdskit.sandbox.store.db import Store

__all__ = ["TOOL_PREFIX", "ArgumentGuard", "McpGate", "build_server", "mcp_app"]

TOOL_PREFIX = "service__"
LONG_POLL_SECONDS = 120.0
"""Longest a ``service__get_message`` call waits for a reply before returning it as working."""

_POLL_INTERVAL = 0.05

STREAM_SECONDS = 30.0
"""Longest a ``GET /mcp/`` event stream stays open (a stateless server sends nothing on it)."""

STREAMS_PER_KEY = 4
"""``GET /mcp/`` streams one key may hold open at once; more are 429."""

COUNT_PAGES = 100
"""Pages of 100 posts ``service__mentions_count`` walks at most (10,000 posts): past it the
count says it is a lower bound, as a REST list is paged."""
_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_CHARGED = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


# -- transport: auth gate and mounting -------------------------------------------------
class McpGate:
    """ASGI gate in front of the MCP app: ``x-api-key`` auth, the plan's ``mcp`` feature,
    then the REST bounds on the body (:class:`ArgumentGuard`).

    The caller's :class:`Principal` goes into the request state, where tools read it.
    """

    def __init__(self, app: ASGIApp, store: Store) -> None:
        # The SDK's limiter buffers the body (413 past REST's bound) for the guard to read.
        self.app = RequestBodyLimitMiddleware(ArgumentGuard(app), guard.MAX_BODY_BYTES)
        self.store = store
        self._streams: dict[str, int] = {}  # open GET streams by key digest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = dict(scope["headers"]).get(b"x-api-key", b"").decode("latin-1")
        who, has_mcp = await anyio.to_thread.run_sync(self._principal, raw)
        if isinstance(who, str):
            await _http_error(send, 401, who)
        elif not has_mcp:
            await _http_error(send, 403, "The account's plan does not include MCP access.")
        elif scope["method"] == "GET":
            await self._stream(who, scope, receive, send)
        else:
            scope.setdefault("state", {})["principal"] = who
            await self.app(scope, receive, send)

    async def _stream(self, who: Principal, scope: Scope, receive: Receive, send: Send) -> None:
        """A ``GET`` event stream: at most :data:`STREAMS_PER_KEY` per key at once, each
        closed after :data:`STREAM_SECONDS` (its memory is returned with it)."""
        if self._streams.get(who.key_digest, 0) >= STREAMS_PER_KEY:
            await _http_error(send, 429, f"At most {STREAMS_PER_KEY} open GET streams per key.")
            return
        self._streams[who.key_digest] = self._streams.get(who.key_digest, 0) + 1
        scope.setdefault("state", {})["principal"] = who
        state = {"started": False, "ended": False}

        async def tracked(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["started"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                state["ended"] = True
            await send(message)

        try:
            with anyio.move_on_after(STREAM_SECONDS):
                await self.app(scope, receive, tracked)
            if state["started"] and not state["ended"]:  # cut at the deadline: end it cleanly
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            left = self._streams.pop(who.key_digest) - 1
            if left:
                self._streams[who.key_digest] = left

    def _principal(self, api_key: str) -> tuple[Principal | str, bool]:
        """The caller and whether its plan has MCP, or why its key is refused."""
        digest = key_digest(api_key)
        with self.store.read() as conn:
            row = key_owner(conn, digest) if api_key else None
            if row is None:
                return refusal(conn, api_key), False
            features = plan_of(conn, row["account_id"])["features"]
        return Principal(row["account_id"], row["seat_id"], digest), bool(features.get("mcp"))


class ArgumentGuard:
    """Answer a ``tools/call`` whose arguments break the REST bounds with a tool error.

    The SDK's JSON parser refuses a lone surrogate (``\\ud800``) with a bare parse error
    that names no argument; Python's parser reads it, so here it becomes the same
    ``validation_error`` (422) tool result as a 50,000-character message: the argument
    named, the value not echoed, nothing done or charged. Anything else goes on unchanged
    (the SDK answers malformed JSON-RPC itself). Expects the whole body in one message, as
    the SDK's body limiter in front of it replays it.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        first = await receive()
        refusal = None
        if first["type"] == "http.request" and not first.get("more_body", False):
            # Parsed and walked on a worker thread: a crafted megabyte never holds the loop.
            refusal = await anyio.to_thread.run_sync(_refusal, first.get("body", b""))
        if refusal is not None:
            await _send_json(send, *refusal)
            return
        pending = [first]  # handed back to the transport, then the rest as it comes

        async def replay() -> Message:
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)


def _refusal(body: bytes) -> tuple[int, dict[str, Any]] | None:
    """The HTTP status and JSON-RPC answer refusing a body, or ``None``: REST's pre-parse
    bounds (:func:`guard.parse_body`: size, commas counted before parsing, encoding) and
    the whole message's shape (:func:`guard.check_shape`: values, nesting) are a 400
    invalid request; then a ``tools/call`` by its arguments (200, a tool error naming the
    argument). Malformed JSON is left to the SDK, which answers it itself."""
    request, rejection = guard.parse_body(body)
    if rejection is not None and rejection.items and rejection.items[0]["type"] == "json_invalid":
        return None
    rejection = rejection or guard.check_shape(request)
    if rejection is not None:
        return rejection.status if rejection.status == 413 else 400, _invalid(rejection.message)
    if not isinstance(request, dict) or request.get("method") != "tools/call":
        return None
    params = request.get("params")
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(arguments, dict):
        return None
    rejection = guard.check_value(arguments)
    if rejection is None:
        return None
    result = _error("validation_error", _problems(rejection.items), 422)
    return 200, {
        "jsonrpc": "2.0",
        "id": request.get("id"),
        "result": result.model_dump(by_alias=True, exclude_none=True, mode="json"),
    }


def _invalid(message: str) -> dict[str, Any]:
    """A JSON-RPC "invalid request" error (the body is not looked at further)."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


async def _http_error(send: Send, status: int, message: str) -> None:
    """A transport-level error: HTTP ``status`` with a JSON-RPC error body (no request id)."""
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": message}}
    await _send_json(send, status, body)


def mcp_app(
    store: Store, settings: Settings
) -> tuple[ASGIApp, Callable[[], AbstractAsyncContextManager[None]]]:
    """The ``/mcp`` endpoint (auth gate + Streamable HTTP transport) and ``running``, the
    context manager of its session manager: the endpoint answers while ``running()`` is
    entered (``create_app`` enters it for the app's lifetime)."""
    server = build_server(store, settings)
    transport = server.streamable_http_app(
        streamable_http_path="/",
        stateless_http=True,
        json_response=True,
        # Every request must carry an API key, which a rebinding page cannot have.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return McpGate(transport, store), server.session_manager.run


# -- tools -----------------------------------------------------------------------------
def _result(data: dict[str, Any], *, error: bool = False) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
        is_error=error,
    )


def _error(code: str, message: str, status: int) -> CallToolResult:
    return _result({"error": {"code": code, "message": message, "status": status}}, error=True)


def _from_api_error(exc: ApiError) -> CallToolResult:
    detail = exc.detail["message"] if isinstance(exc.detail, dict) else exc.detail
    return _error(exc.error_code, str(detail), exc.http_status)


async def _run(
    ctx: Context, work: Callable[[Principal], dict[str, Any]], arguments: dict[str, Any]
) -> CallToolResult:
    """Run blocking ``work(principal)`` on a thread; map service errors to tool errors.

    ``arguments`` (the tool's own) first pass the REST bounds of :mod:`rdskit.sandbox.runtime.guard`
    by field name (a 50,000-character message, a lone surrogate, 5,000 dataset ids): a
    ``validation_error`` (422) naming the argument, before any work or charge.
    """
    rejection = guard.check_value(arguments)
    if rejection is not None:
        return _error("validation_error", _problems(rejection.items), 422)
    request = ctx.request_context.request
    assert request is not None, "tools are called over HTTP, through McpGate"
    who: Principal = request.state.principal
    try:
        return _result(await anyio.to_thread.run_sync(work, who))
    except ApiError as exc:
        return _from_api_error(exc)
    except (ValidationError, RequestValidationError, FieldError) as exc:
        return _error("validation_error", _problems(exc.errors()), 422)


def _problems(errors: Sequence[Mapping[str, Any]]) -> str:
    """``loc: msg; ...`` of validation error items, the argument named without ``body``."""
    return "; ".join(
        f"{'.'.join(str(part) for part in e['loc'] if part != 'body')}: {e['msg']}" for e in errors
    )


@contextmanager
def _root_logging_kept() -> Iterator[None]:
    """Undo the ``logging.basicConfig`` the SDK's server constructor runs: the sandbox is
    embedded in notebooks and test runs whose logging is not ours to configure."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


class _Server(MCPServer):
    """The SDK's server, with argument type errors answered like every other tool error:
    ``{error: {code: "validation_error", message, status: 422}}``, the argument named and
    its value not echoed (the SDK's own text quotes the input)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                return _error("validation_error", _problems(exc.__cause__.errors()), 422)
            raise


def build_server(store: Store, settings: Settings) -> MCPServer:
    """The MCP server with the ``service__`` tools over ``store``."""
    with _root_logging_kept():
        server: MCPServer = _Server(
            "research-data-service",
            instructions=(
                "Research Data Service: ask the assistant about collected social posts "
                "(service__ask, then service__get_message) or look posts up directly."
            ),
        )
    tools = _Tools(store, settings)
    for name, hints in (
        ("ask", _CHARGED),
        ("get_message", _READ_ONLY),
        ("render", _READ_ONLY),
        ("list_collections", _READ_ONLY),
        ("list_mentions", _READ_ONLY),
        ("mentions_get", _READ_ONLY),
        ("mentions_count", _READ_ONLY),
        ("query", _CHARGED),
        ("collect_mentions", _CHARGED),
    ):
        method = getattr(tools, name)
        server.add_tool(
            method,
            name=TOOL_PREFIX + name,
            description=(method.__doc__ or "").strip(),
            annotations=hints,
        )
    return server


class _Tools:
    """The tool functions; their signatures are the tools' input schemas. Each hands its
    arguments to :func:`_run` (bounds, then the backend on a thread, errors as tool errors)."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    async def ask(
        self,
        message: str,
        ctx: Context,
        chat_id: str | None = None,
        dataset_ids: list[str] | None = None,
        post_refs: list[dict[str, str]] | None = None,
    ) -> CallToolResult:
        """Ask the assistant. Returns {chat_id, message_id, status: working} at once; fetch
        the reply with service__get_message. Narrow in the message itself ("on tiktok",
        "about price", "negative posts", "in the last 30 days"). Pass chat_id to continue a
        chat: follow-ups keep its datasets and question ("and on reddit only?"). Charged
        for inference (tokens of question and answer)."""
        context = {
            key: value
            for key, value in (("dataset_ids", dataset_ids), ("post_refs", post_refs))
            if value is not None
        }
        body = {"message": message, "chat_id": chat_id, "context": context or None}
        arguments = {"message": message, "chat_id": chat_id, **context}
        return await _run(ctx, partial(self._ask, body), arguments)

    def _ask(self, body: dict[str, Any], who: Principal) -> dict[str, Any]:
        request = AskRequest.model_validate(body)  # 422s become tool errors in _run
        return chats.submit_ask(self.store, self.settings, who.account_id, who.seat_id, request)

    async def get_message(
        self,
        chat_id: str,
        message_id: str,
        ctx: Context,
        timeout_seconds: float = LONG_POLL_SECONDS,
    ) -> CallToolResult:
        """Wait for an assistant reply (long poll, up to timeout_seconds) and return it as
        blocks: render=false blocks carry markdown to relay (with [N] citation markers and
        references), render=true blocks are shown with service__render. stop_reason stays
        null while the assistant is still working."""
        deadline = time.monotonic() + min(max(timeout_seconds, 0.0), LONG_POLL_SECONDS)
        arguments = {"chat_id": chat_id, "message_id": message_id}
        while True:
            result = await _run(ctx, partial(self._reply, chat_id, message_id), arguments)
            data = result.structured_content or {}
            if result.is_error or data.get("stop_reason") or time.monotonic() >= deadline:
                return result
            await anyio.sleep(_POLL_INTERVAL)

    def _reply(self, chat_id: str, message_id: str, who: Principal) -> dict[str, Any]:
        return chats.reply_blocks(self.store, who.account_id, who.seat_id, chat_id, message_id)

    async def render(self, message_id: str, block_id: str, ctx: Context) -> CallToolResult:
        """Render a render=true block of an assistant reply (a table of the figures the reply
        quotes) as a widget: title, columns, rows and a markdown rendering."""
        arguments = {"message_id": message_id, "block_id": block_id}
        return await _run(ctx, partial(self._render, message_id, block_id), arguments)

    def _render(self, message_id: str, block_id: str, who: Principal) -> dict[str, Any]:
        return chats.render_block(self.store, who.account_id, who.seat_id, message_id, block_id)

    async def list_collections(
        self, ctx: Context, kind: str = "mentions", limit: int = 25
    ) -> CallToolResult:
        """List the account's collections. kind "mentions" lists datasets with their mention
        counts, newest first; limit 1..100."""
        arguments = {"kind": kind, "limit": limit}
        return await _run(ctx, partial(self._collections, kind, limit), arguments)

    def _collections(self, kind: str, limit: int, who: Principal) -> dict[str, Any]:
        if kind != "mentions":
            raise ApiError(422, "invalid_kind", f"Unknown collection kind {kind!r}; use 'mentions'")
        return {"collections": mentions.collections(self.store, who.account_id, limit)}

    async def list_mentions(
        self,
        ctx: Context,
        dataset_ids: list[str] | None = None,
        sources: list[str] | None = None,
        q: str | None = None,
        filters: list[Any] | None = None,
        sort: str = "date",
        order: str = "desc",
        limit: int = 10,
        cursor: str | None = None,
    ) -> CallToolResult:
        """One page of collected posts (same query as POST /v1/mentions): dataset_ids (all
        datasets when omitted), sources, q (words), filters, sort (date, likes,
        engagement_rate, views, comments, shares, sentiment_score, dataset_run_at), order,
        limit (1..100) and the cursor of the previous page."""
        query = {
            "dataset_ids": dataset_ids,
            "sources": sources,
            "q": q,
            "filters": filters,
            "sort": sort,
            "order": order,
            "limit": limit,
            "cursor": cursor,
        }
        return await _run(ctx, partial(self._mentions, query), query)

    def _mentions(self, query: dict[str, Any], who: Principal) -> dict[str, Any]:
        body = MentionsQuery.model_validate({k: v for k, v in query.items() if v is not None})
        got = mentions.query_mentions(self.store, who.account_id, body)
        return {"mentions": got.mentions, "has_next": got.has_next, "cursor": got.cursor}

    async def mentions_get(
        self, source: str, id: str, ctx: Context, dataset_ids: list[str] | None = None
    ) -> CallToolResult:
        """One collected post by its source and id."""
        arguments = {"source": source, "id": id, "dataset_ids": dataset_ids}
        return await _run(ctx, partial(self._mention, source, id, dataset_ids), arguments)

    def _mention(
        self, source: str, post_id: str, dataset_ids: list[str] | None, who: Principal
    ) -> dict[str, Any]:
        query = {"post_refs": [{"source": source, "id": post_id}], "dataset_ids": dataset_ids}
        found = self._mentions(query, who)["mentions"]
        if not found:
            raise ApiError(404, "mention_not_found", f"Post {source}:{post_id} not found")
        return {"mention": found[0]}

    async def mentions_count(
        self,
        ctx: Context,
        dataset_ids: list[str] | None = None,
        sources: list[str] | None = None,
        q: str | None = None,
        filters: list[Any] | None = None,
    ) -> CallToolResult:
        """How many collected posts match dataset_ids, sources, q and filters."""
        query = {"dataset_ids": dataset_ids, "sources": sources, "q": q, "filters": filters}
        return await _run(ctx, partial(self._count, query), query)

    def _count(self, query: dict[str, Any], who: Principal) -> dict[str, Any]:
        count, cursor = 0, None
        for _ in range(COUNT_PAGES):  # the engine has no COUNT of its own: walk, bounded
            got = self._mentions({**query, "limit": 100, "cursor": cursor}, who)
            count += len(got["mentions"])
            if not got["has_next"]:
                return {"count": count, "complete": True}
            cursor = got["cursor"]
        return {
            "count": count,
            "complete": False,
            "note": f"at least {count} posts match (counting stops at {COUNT_PAGES} pages); "
            "narrow the query for an exact count",
        }

    async def query(
        self, question: str, ctx: Context, dataset_ids: list[str] | None = None
    ) -> CallToolResult:
        """Answer a natural-language question over the collected data right away (no chat):
        markdown with [N] citation markers plus references. Charged for inference."""
        arguments = {"question": question, "dataset_ids": dataset_ids}
        return await _run(ctx, partial(self._answer, question, dataset_ids), arguments)

    def _answer(
        self, question: str, dataset_ids: list[str] | None, who: Principal
    ) -> dict[str, Any]:
        return chats.answer_now(self.store, self.settings, who.account_id, question, dataset_ids)

    async def collect_mentions(
        self,
        search_query: str,
        ctx: Context,
        sources: list[str] | None = None,
        time_filter: str = "past_month",
        language: str | None = None,
        country_code: str | None = None,
    ) -> CallToolResult:
        """Look for new posts about search_query on the sources (default: all five) within
        time_filter (past_day, past_week, past_month, past_year, or like 30d) through a
        research preview: an estimate plus sample posts. Billed as a research preview (one
        preview_generation unit per source)."""
        request = {
            "type": "prompt",
            "search_query": search_query,
            "sources": sources or list(SOURCES),
            "time_filter": time_filter,
            "language": language,
            "country_code": country_code,
        }
        raw = {key: value for key, value in request.items() if value is not None}
        return await _run(ctx, partial(self._preview, raw), raw)

    def _preview(self, raw: dict[str, Any], who: Principal) -> dict[str, Any]:
        with self.store.transaction() as conn:
            return previews.create_preview(conn, self.settings, who.account_id, raw)
