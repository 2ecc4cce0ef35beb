"""The JupyterLab panel's ask box: ``POST /rdskit/lab/ask`` (Jupyter server auth).

Body ``{"question": str, "datasets": [ids], "chat_id": str | null, "kernel": str | null}``.
The question is asked of the client the active notebook's kernel announced (its embedded
sandbox), else through the server gateway with its key, like every kernel's request: one
``POST /v1/ask`` (sent again only after a 429, which says the service started nothing, as
the client does: at most ``RATE_LIMIT_RETRIES`` times, each after its ``Retry-After``, cut
to ``MAX_RETRY_AFTER`` seconds), then the reply polled through the shared bucket, then the
cited posts looked up (``POST /v1/mentions``) for the citation cards::

    {"chat_id": "ch_…", "message_id": "msg_…", "status": "completed", "text": "… [1]",
     "citations": [{"citation": 1, "source": "reddit", "id": "t3_a", "url": "https://…",
                    "author": "…", "title": "…", "excerpt": "…"}],
     "cell": "%%ask --dataset ds_1 --chat ch_…\\nWhat do people complain about most?"}

``cell`` is the equivalent ``%%ask`` cell ("send to notebook"). A notebook using its own
key is refused (409: its key never leaves the kernel). The service's answers pass through
with their status (402, 429 with ``Retry-After``, ...) and its message as text; the panel
shows every string with ``textContent``.

Example:
    >>> ask_cell("Top posts?", ["ds_1"], None)
    '%%ask --dataset ds_1\\nTop posts?'
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from jupyter_server.base.handlers import APIHandler
from tornado import web

from rdskit.errors import seconds_or_none
from rdskit.models import ChatMessage, Mention, PostReference

__all__ = ["ASK_TIMEOUT", "AskHandler", "ask_cell"]

ASK_TIMEOUT = 180.0
"""Seconds the panel waits for a reply before it says where to read it."""
RATE_LIMIT_RETRIES = 3
"""How many times a request refused with 429 (nothing started) is sent again."""
MAX_RETRY_AFTER = 10.0
"""The longest wait, in seconds, a 429's ``Retry-After`` may impose on the panel."""
QUESTION_CHARS = 4_000
EXCERPT_CHARS = 280
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")

Send = Callable[[str, str, str, bytes], Awaitable[httpx.Response]]


class AskFailed(Exception):
    """The service (or the rules) refused: HTTP status, a message, Retry-After."""

    def __init__(self, status: int, message: str, retry_after: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


def ask_cell(question: str, datasets: list[str], chat_id: str | None) -> str:
    """The ``%%ask`` cell that asks ``question`` the same way (ids are checked safe)."""
    options = "".join(f" --dataset {ident}" for ident in datasets)
    if chat_id:
        options += f" --chat {chat_id}"
    # Braces in a question typed in the panel are literal: the cell must send the same text.
    body = question.replace("{", "{{").replace("}", "}}")
    return f"%%ask{options}\n{body}"


def parse_request(body: Any) -> tuple[str, list[str], str | None, str | None]:
    """``(question, datasets, chat_id, kernel)`` of a request body, or ``ValueError``
    naming the bad field."""
    if not isinstance(body, dict):
        raise ValueError("body: a JSON object")
    question = body.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question: the question to ask")
    if len(question) > QUESTION_CHARS:
        raise ValueError(f"question: at most {QUESTION_CHARS} characters")
    datasets = body.get("datasets") or []
    if not isinstance(datasets, list) or len(datasets) > 20:
        raise ValueError("datasets: a list of at most 20 dataset ids")
    for name in ("chat_id", "kernel"):
        value = body.get(name)
        if value is not None and not (isinstance(value, str) and _SAFE_ID.fullmatch(value)):
            raise ValueError(f"{name}: an id of letters, digits, '_' or '-'")
    if not all(isinstance(ident, str) and _SAFE_ID.fullmatch(ident) for ident in datasets):
        raise ValueError("datasets: ids of letters, digits, '_' or '-'")
    return question.strip(), datasets, body.get("chat_id"), body.get("kernel")


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
    refs = sorted(
        (ref for ref in row.references or [] if isinstance(ref, PostReference)),
        key=lambda ref: ref.citation,
    )
    posts: dict[tuple[str, str], Mention] = {}
    if refs:
        wanted = [{"source": ref.source, "id": ref.id} for ref in refs[:50]]
        lookup = {"post_refs": wanted, "limit": len(wanted)}
        found = _body(await send("POST", "v1/mentions", "", json.dumps(lookup).encode()))
        rows = found if isinstance(found, list) else []
        for item in rows:
            mention = Mention.model_validate(item)
            posts[(mention.source, mention.id)] = mention
    return {
        "chat_id": chat,
        "message_id": message,
        "status": row.status,
        "text": row.text or "",
        "citations": [_citation(ref, posts.get((ref.source, ref.id))) for ref in refs],
        "cell": ask_cell(question, datasets, chat if chat_id else None),
        "new_chat_cell": ask_cell(question, datasets, None),
    }


def _citation(ref: PostReference, post: Mention | None) -> dict[str, Any]:
    text = (post.text or "") if post is not None else ""
    return {
        "citation": ref.citation,
        "source": ref.source,
        "id": ref.id,
        "url": post.url if post is not None else None,
        "author": post.author.title if post is not None and post.author is not None else None,
        "title": post.title if post is not None else None,
        "excerpt": text[:EXCERPT_CHARS] + ("…" if len(text) > EXCERPT_CHARS else ""),
    }


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
            self._refuse(exc.status, exc.message, exc.retry_after)
            return
        except httpx.TransportError as exc:
            self._refuse(503, f"the service could not be reached ({type(exc).__name__})")
            return
        self.finish(json.dumps(result))

    def _refuse(self, status: int, message: str, retry_after: str | None = None) -> None:
        self.set_status(status if 400 <= status < 600 else 502)
        if retry_after and retry_after.isdigit():
            self.set_header("Retry-After", retry_after)
        self.finish(json.dumps({"message": message, "retry_after": retry_after}))
