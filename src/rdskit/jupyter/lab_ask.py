"""The JupyterLab panel's ask box: ``POST /rdskit/lab/ask`` (Jupyter server auth).

Body ``{"question": str, "datasets": [ids], "chat_id": str | null, "kernel": str | null}``
(:func:`rdskit.jupyter.panel_ask.parse_request`). The question is asked of the client the
active notebook's kernel announced (its embedded sandbox), else through the server gateway
with its key, like every kernel's request. Each request runs through the client's own
request flow (:class:`rdskit._base_client.HTTPCore`, driven by ``drive``): one ``POST
/v1/ask`` (sent again only after a 429, which says the service started nothing: at most
``RATE_LIMIT_RETRIES`` times, each after its ``Retry-After``, cut to ``MAX_RETRY_AFTER``
seconds; never after a 5xx, whose outcome is unknown), then the reply polled through the
shared bucket, then the cited posts looked up (``POST /v1/mentions``) for the citation
cards. The answer is
:func:`rdskit.jupyter.panel_ask.panel_answer`'s, with ``cell``, the equivalent ``%%ask``
cell ("send to notebook").

A kernel that announced a budget, or its own key, is refused before anything is sent (409,
``"code": "ask_in_kernel"``): the budget and the key live in that kernel, so the panel asks
there (:func:`rdskit.jupyter.panel_ask.ask_in_kernel`). The service's answers pass through
with their status (402, 429 with ``Retry-After``, ...) and its message as text; the panel
shows every string as text, the answer's markdown through JupyterLab's sanitizer.

Example:
    >>> AskFailed(409, "asked in the kernel", code="ask_in_kernel").code
    'ask_in_kernel'
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
from jupyter_server.base.handlers import APIHandler
from tornado import web

from rdskit._base_client import HTTPCore, drive
from rdskit._config import SecretKey
from rdskit._flow import Flow
from rdskit._flow import Send as FlowSend
from rdskit.answers import post_lookup
from rdskit.errors import APIError, OutcomeUnknown
from rdskit.jupyter.panel_ask import ASK_TIMEOUT, cited, panel_answer, parse_request
from rdskit.models import Mention
from rdskit.resources.chats import ask_request, get_chat_message

__all__ = ["AskHandler"]

RATE_LIMIT_RETRIES = 3
"""How many times a request refused with 429 (nothing started) is sent again."""
MAX_RETRY_AFTER = 10.0
"""The longest wait, in seconds, a 429's ``Retry-After`` may impose on the panel."""

Send = Callable[[str, str, str, bytes], Awaitable[httpx.Response]]
Sleeper = Callable[[float], Awaitable[None]]
T = TypeVar("T")


class AskFailed(Exception):
    """The service (or the rules) refused: HTTP status, a message, Retry-After."""

    def __init__(
        self, status: int, message: str, retry_after: str | None = None, *, code: str = ""
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.code = code


PANEL_BASE_URL = "http://rdskit-panel.invalid"
"""The base URL of the panel's request flows: never contacted (``send`` routes each request
to the kernel's sandbox or through the gateway, which add the key)."""


def _core() -> HTTPCore:
    """The client's request flow for the panel: 429 sent again after its ``Retry-After`` (cut
    to ``MAX_RETRY_AFTER``) at most ``RATE_LIMIT_RETRIES`` times, a paid request never sent
    twice otherwise, bodies read within the client's bounds, errors typed."""
    return HTTPCore(
        owner=None,
        api_key=SecretKey("the-panel-sends-no-key"),  # the sender adds the real credential
        base_url=PANEL_BASE_URL,
        timeout=ASK_TIMEOUT,
        max_retries=RATE_LIMIT_RETRIES,
        limiter=None,  # the gateway's shared bucket paces every request
        max_retry_after=MAX_RETRY_AFTER,
    )


async def _run(send: Send, flow: Flow[T], sleep: Sleeper) -> T:
    """Drive ``flow`` with ``send``; an rdskit error becomes the panel's :class:`AskFailed`."""

    async def routed(step: FlowSend) -> httpx.Response:
        # The path as the client escaped it: an id holding "/" or "?" (a hostile answer)
        # stays one segment (url.path is decoded).
        url = step.request.url
        path = url.raw_path.decode("ascii").split("?", 1)[0].lstrip("/")
        return await send(step.request.method, path, url.query.decode(), step.request.content)

    try:
        return await drive(flow, routed, sleep)
    except APIError as exc:
        wait = getattr(exc, "retry_after", None)
        retry_after = None if wait is None else str(math.ceil(wait))
        message = f"the service answered {exc.status_code}"
        if exc.message or exc.error_code:
            message += f": {exc.message or exc.error_code}"
        raise AskFailed(exc.status_code, message, retry_after) from None
    except OutcomeUnknown as exc:
        raise AskFailed(502, str(exc)) from None


async def ask(
    send: Send,
    question: str,
    datasets: list[str],
    chat_id: str | None,
    *,
    poll: float = 1.0,
    sleep: Sleeper = asyncio.sleep,
) -> dict[str, Any]:
    """Ask once, wait for the reply, look up its cited posts (``sleep`` waits out a
    ``Retry-After`` and the polls)."""
    core = _core()
    wire: dict[str, Any] = {"message": question}
    if chat_id:
        wire["chat_id"] = chat_id
    if datasets:
        wire["context"] = {"dataset_ids": datasets}
    hint = (
        "the chat may have its answer (client.chats.list() in a notebook); "
        "asking again starts another charged turn"
    )
    accepted = await _run(
        send,
        core.call(ask_request(wire, hint)),
        sleep,
    )
    chat, message = accepted.chat_id, accepted.message_id
    deadline = time.monotonic() + ASK_TIMEOUT
    while True:
        row = await _run(send, core.call(get_chat_message(chat, message)), sleep)
        if row.status not in ("working", "pending", "queued"):
            break
        if time.monotonic() > deadline:
            raise AskFailed(
                504,
                f"no reply after {ASK_TIMEOUT:.0f}s; %%ask --chat {chat} in a notebook "
                "continues the chat, client.chats.message(...) reads the reply",
            )
        await sleep(poll)
    refs = cited(row.references)
    posts: dict[tuple[str, str], Mention] = {}
    if refs:
        page = await _run(send, core.call_page(post_lookup(refs[:50])), sleep)
        posts = {(mention.source, mention.id): mention for mention in page.data}
    return panel_answer(
        chat_id=chat,
        message_id=message,
        status=row.status,
        text=row.text or "",
        refs=refs,
        posts=posts,
        question=question,
        datasets=datasets,
        continued=chat_id,
        asked_in="server",
    )


class AskHandler(APIHandler):
    """``POST /rdskit/lab/ask`` for the panel's ask box (Jupyter server auth)."""

    summary: Any  # lab_api.LabSummary: which client a kernel announced

    def initialize(self, summary: Any) -> None:
        self.summary = summary

    @web.authenticated
    async def post(self) -> None:
        try:
            question, datasets, chat_id, kernel = parse_request(json.loads(self.request.body))
        except ValueError as exc:
            self._refuse(422, str(exc))
            return
        try:
            send = self.summary.sender(kernel)
            result = await ask(send, question, datasets, chat_id)
        except AskFailed as exc:
            self._refuse(exc.status, exc.message, exc.retry_after, exc.code)
            return
        except httpx.TransportError as exc:
            self._refuse(503, f"the service could not be reached ({type(exc).__name__})")
            return
        self.finish(json.dumps(result))

    def _refuse(
        self, status: int, message: str, retry_after: str | None = None, code: str = ""
    ) -> None:
        self.set_status(status if 400 <= status < 600 else 502)
        if retry_after and retry_after.isdigit():
            self.set_header("Retry-After", retry_after)
        body = {"message": message, "retry_after": retry_after, "code": code or None}
        self.finish(json.dumps(body))
