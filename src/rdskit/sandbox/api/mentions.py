"""``POST /v1/mentions``: query the account's collected posts (free).

Thin: :mod:`rdskit.sandbox.backend.mentions` resolves the scope, runs the query and renders
the Mention wire objects; this module wraps them in the list envelope.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rdskit.models.mentions import MentionsQuery
from rdskit.sandbox.api._common import Auth, StoreDep, page
from rdskit.sandbox.backend import mentions as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["mentions"])


@router.post("/mentions")
def query_mentions(body: MentionsQuery, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One page of mentions matching the query, newest first by default."""
    got = backend.query_mentions(store, who.account_id, body)
    return page(got.mentions, has_next=got.has_next, cursor=got.cursor)
