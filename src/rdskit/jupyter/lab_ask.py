"""The JupyterLab panel's ask box: ``POST /rdskit/lab/ask`` (Jupyter server auth).

Body ``{"question": str, "datasets": [ids], "chat_id": str | null, "kernel": str | null}``
(:func:`rdskit.jupyter.panel_ask.parse_request`). The question is asked of the client the
active notebook's kernel announced (its embedded sandbox), else through the server gateway
with its key, like every kernel's request: one ``POST /v1/ask`` (sent again only after a
429, which says the service started nothing, as the client does: at most
``RATE_LIMIT_RETRIES`` times, each after its ``Retry-After``, cut to ``MAX_RETRY_AFTER``
seconds), then the reply polled through the shared bucket, then the cited posts looked up
(``POST /v1/mentions``) for the citation cards. The answer is
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
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from jupyter_server.base.handlers import APIHandler
from tornado import web

from rdskit.errors import seconds_or_none
from rdskit.jupyter.panel_ask import ASK_TIMEOUT, cited, panel_answer, parse_request
from rdskit.models import ChatMessage, Mention

__all__ = ["AskHandler"]

RATE_LIMIT_RETRIES = 3
"""How many times a request refused with 429 (nothing started) is sent again."""
MAX_RETRY_AFTER = 10.0
"""The longest wait, in seconds, a 429's ``Retry-After`` may impose on the panel."""

Send = Callable[[str, str, str, bytes], Awaitable[httpx.Response]]


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


def _patient(send: Send) -> Send:
    """``send``, sent again after a 429 (the service started nothing) as the client does."""

    async def sent(method: str, path: str, query: str, body: bytes) -> httpx.Response:
        attempt = 0
        while True:
            response = await send(method, path, query, body)
            if response.status_code != 429 or attempt == RATE_LIMIT_RETRIES:
                return response
            attempt += 1
            wait = seconds_or_none(response.headers.get("retry-after"))
            await asyncio.sleep(min(MAX_RETRY_AFTER, wait if wait is not None else 2.0**attempt))

    return sent


async def ask(
    send: Send, question: str, datasets: list[str], chat_id: str | None, *, poll: float = 1.0
) -> dict[str, Any]:
    """Ask once, wait for the reply, look up its cited posts."""
    send = _patient(send)
    wire: dict[str, Any] = {"message": question}
    if chat_id:
        wire["chat_id"] = chat_id
    if datasets:
        wire["context"] = {"dataset_ids": datasets}
    accepted = _body(await send("POST", "v1/ask", "", json.dumps(wire).encode()))
    chat, message = accepted.get("chat_id"), accepted.get("message_id")
    if not (isinstance(chat, str) and isinstance(message, str)):
        raise AskFailed(502, "the service accepted the question without a chat and message id")
    deadline = time.monotonic() + ASK_TIMEOUT
    while True:
        row = ChatMessage.model_validate(
            _body(await send("GET", f"v1/chats/{chat}/messages/{message}", "", b""))
        )
        if row.status not in ("working", "pending", "queued"):
            break
        if time.monotonic() > deadline:
            raise AskFailed(
                504,
                f"no reply after {ASK_TIMEOUT:.0f}s; %%ask --chat {chat} in a notebook "
                "continues the chat, client.chats.message(...) reads the reply",
            )
        await asyncio.sleep(poll)
    refs = cited(row.references)
    posts: dict[tuple[str, str], Mention] = {}
    if refs:
        wanted = [{"source": ref.source, "id": ref.id} for ref in refs[:50]]
        lookup = {"post_refs": wanted, "limit": len(wanted)}
        found = _body(await send("POST", "v1/mentions", "", json.dumps(lookup).encode()))
        rows = found if isinstance(found, list) else []
        for item in rows:
            mention = Mention.model_validate(item)
            posts[(mention.source, mention.id)] = mention
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


def _body(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        message = f"the service answered {response.status_code}"
        try:
            error = json.loads(response.content).get("error") or {}
            message += f": {error.get('message') or error.get('code') or ''}".rstrip(": ")
        except (ValueError, AttributeError):
            pass
        raise AskFailed(response.status_code, message, response.headers.get("retry-after"))
    body = json.loads(response.content)
    return body["data"] if isinstance(body, dict) and "data" in body else body


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
