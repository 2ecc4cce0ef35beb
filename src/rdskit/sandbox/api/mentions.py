"""``POST /v1/mentions``: query the account's collected posts (free).

Thin: :mod:`rdskit.sandbox.backend.mentions` resolves the scope, runs the query and renders
each Mention as its JSON text; this module wraps them in the list envelope, as bytes: a
returned dict would be re-checked and re-encoded, mention by mention, on every request.
"""

from __future__ import annotations

from fastapi import APIRouter, Response

from rdskit.models.mentions import MentionsQuery
from rdskit.sandbox.api._common import Auth, StoreDep, json_page
from rdskit.sandbox.backend import mentions as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["mentions"])


@router.post("/mentions")
def query_mentions(body: MentionsQuery, who: Auth, store: StoreDep) -> Response:
    """One page of mentions matching the query, newest first by default."""
    got = backend.query_mentions_json(store, who.account_id, body)
    return json_page(got.mentions, has_next=got.has_next, cursor=got.cursor)
