"""Ask and chats: ``POST /v1/ask`` and ``/v1/chats/...``.

Thin: the state, SQL and rules (turns, the reply job, billing, chat privacy, the tracking
dialogue) live in :mod:`rdskit.sandbox.backend.chats`; this module parses, calls it and
wraps the envelope. ``POST /v1/ask`` answers 202 ``{chat_id, message_id, status: working}``
at once; the reply is read with ``GET /v1/chats/{chat_id}/messages/{message_id}`` (its
``status`` goes ``working`` then ``completed``). A chat is private to the seat that created
it: any other seat gets 404 ``chat_not_found``.

Example (HTTP)::

    POST /v1/ask {"message": "How does sentiment split?", "context": {"dataset_ids": ["ds_…"]}}
    -> 202 {"status": "success", "data": {"chat_id": "ch_…", "message_id": "msg_…",
                                          "status": "working"}}
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from rdskit.models.chats import AskRequest
from rdskit.sandbox.api._common import Auth, List25, SettingsDep, StoreDep, ok
from rdskit.sandbox.backend import chats as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["assistant"])


@router.post("/ask", status_code=202)
def ask(body: AskRequest, who: Auth, store: StoreDep, settings: SettingsDep) -> JSONResponse:
    """Start an assistant turn: 202 with the ids to poll; never the reply itself."""
    accepted = backend.submit_ask(store, settings, who.account_id, who.seat_id, body)
    return JSONResponse(ok(accepted), status_code=202)


@router.get("/chats/{chat_id}")
def get_chat(chat_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One of the caller's chats."""
    return ok(backend.get_chat(store, who.account_id, who.seat_id, chat_id))


@router.get("/chats/{chat_id}/messages")
def list_messages(chat_id: str, who: Auth, store: StoreDep, params: List25) -> dict[str, Any]:
    """The chat's rows, newest first unless ``order=asc``."""
    return backend.list_messages(store, who.account_id, who.seat_id, chat_id, params)


@router.get("/chats/{chat_id}/messages/{message_id}")
def get_message(chat_id: str, message_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One row; poll an assistant row until its ``status`` is ``completed``."""
    return ok(backend.get_message(store, who.account_id, who.seat_id, chat_id, message_id))
