"""The panel's ask box: what its request and its answer hold, and the ask made in a
notebook's kernel.

The JupyterLab panel asks through the Jupyter server (``POST /rdskit/lab/ask``,
:mod:`rdskit.jupyter.lab_ask`), except for a notebook whose kernel has a budget
(``%rds budget N``, :func:`rdskit.set_budget`): the budget lives in the kernel, so the
server refuses (409, ``"code": "ask_in_kernel"``) and the panel runs :func:`ask_in_kernel`
in that kernel, silently (no cell, no output, no history). There the ask goes through the
kernel's own client like an ``%%ask`` cell: refused before anything is sent once nothing
remains of the budget (the kernel's own :class:`~rdskit.errors.BudgetExceeded` text), an
allowance held while it runs, the reply's charge committed to the budget.

Both ways answer the same JSON (:func:`panel_answer`)::

    {"chat_id": "ch_…", "message_id": "msg_…", "status": "completed", "text": "… [1]",
     "markdown": "… [1]",  # the text made inert (rdskit._safe.safe_markdown)
     "citations": [{"citation": 1, "source": "reddit", "id": "t3_a", "url": "https://…",
                    "author": "…", "title": "…", "excerpt": "…"}],
     "cell": "%%ask --dataset ds_1 --chat ch_…\\nWhat do people complain about most?",
     "asked_in": "server"}

Example:
    >>> ask_cell("Top {n} posts?", ["ds_1"], None)
    '%%ask --dataset ds_1\\nTop {{n}} posts?'
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from rdskit._safe import safe_markdown
from rdskit.errors import APIError, BudgetExceeded, RdsError
from rdskit.jupyter import current_client
from rdskit.jupyter.render import EXCERPT_CHARS
from rdskit.models import Mention, PostReference

__all__ = [
    "ASK_TIMEOUT",
    "QUESTION_CHARS",
    "ask_cell",
    "ask_in_kernel",
    "cited",
    "panel_answer",
    "parse_request",
]

QUESTION_CHARS = 4_000
ASK_TIMEOUT = 180.0
"""Seconds the panel waits for a reply before it says where to read it."""
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
_HEX = re.compile(r"(?:[0-9a-f]{2}){1,40000}")


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
    naming the bad field.

    Example:
        >>> parse_request({"question": " Why? ", "datasets": ["ds_1"]})
        ('Why?', ['ds_1'], None, None)
    """
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


def panel_answer(
    *,
    chat_id: str,
    message_id: str,
    status: str | None,
    text: str,
    refs: Sequence[PostReference],
    posts: dict[tuple[str, str], Mention],
    question: str,
    datasets: list[str],
    continued: str | None,
    asked_in: str,
) -> dict[str, Any]:
    """The answer the panel shows (see the module's docstring); ``continued`` is the chat
    the question continued (None: a new one), ``asked_in`` "server" or "kernel"."""
    return {
        "chat_id": chat_id,
        "message_id": message_id,
        "status": status,
        "text": text,
        "markdown": safe_markdown(text),
        "citations": [_citation(ref, posts.get((ref.source, ref.id))) for ref in refs],
        "cell": ask_cell(question, datasets, chat_id if continued else None),
        "new_chat_cell": ask_cell(question, datasets, None),
        "asked_in": asked_in,
    }


def cited(references: Sequence[Any] | None) -> list[PostReference]:
    """The post references of a reply, in citation order."""
    posts = [ref for ref in references or [] if isinstance(ref, PostReference)]
    return sorted(posts, key=lambda ref: ref.citation)


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


class _Json:
    """What :func:`ask_in_kernel` returns: shown to the panel as ``application/json``
    (the execute reply's ``user_expressions``)."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def _repr_json_(self) -> dict[str, Any]:
        return self.body

    def __repr__(self) -> str:
        return json.dumps(self.body)


def ask_in_kernel(request: str) -> _Json:
    """Ask the panel's question with this kernel's client, under its budget.

    ``request`` is the request body (:func:`parse_request`) as UTF-8 JSON in hexadecimal
    (so the panel writes nothing but hex digits into the kernel). Returns the answer
    (:func:`panel_answer`), or ``{"status": 402 | 422 | 4xx | 5xx, "message": …}`` when it
    is refused: the budget's refusal (nothing sent) is the kernel's own text.

    Example:
        >>> ask_in_kernel(b'{"question": ""}'.hex()).body["message"]
        'question: the question to ask'
    """
    try:
        if not _HEX.fullmatch(request):
            raise ValueError("request: the request body in hexadecimal")
        question, datasets, chat_id, _ = parse_request(json.loads(bytes.fromhex(request)))
    except ValueError as exc:
        return _Json({"status": 422, "message": str(exc)})
    try:
        return _Json(_ask_here(question, datasets, chat_id))
    except BudgetExceeded as exc:
        return _Json({"status": 402, "message": str(exc)})
    except APIError as exc:
        return _Json({"status": exc.status_code, "message": str(exc)})
    except (RdsError, TimeoutError) as exc:
        return _Json({"status": 502, "message": str(exc)})


def _ask_here(question: str, datasets: list[str], chat_id: str | None) -> dict[str, Any]:
    from rdskit.jupyter.session import note_chat

    client = current_client()
    turn = client.ask(question, dataset_ids=datasets or None, chat_id=chat_id)
    note_chat(client, turn.chat_id)  # the panel lists it, as for an %%ask cell
    answer = turn.wait(timeout=ASK_TIMEOUT)  # commits the reply's charge to the budget
    refs = cited(answer.references)
    posts: dict[tuple[str, str], Mention] = {}
    if refs:
        wanted = [{"source": ref.source, "id": ref.id} for ref in refs[:50]]
        page = client.mentions.list(post_refs=wanted, limit=len(wanted))
        posts = {(mention.source, mention.id): mention for mention in page.data}
    return panel_answer(
        chat_id=turn.chat_id,
        message_id=answer.message_id,
        status=answer.status,
        text=answer.text or "",
        refs=refs,
        posts=posts,
        question=question,
        datasets=datasets,
        continued=chat_id,
        asked_in="kernel",
    )
