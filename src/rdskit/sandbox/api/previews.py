"""Research previews: ``POST /v1/research_previews`` and ``GET /v1/research_previews/{id}``.

The rules, SQL and billing live in :mod:`rdskit.sandbox.backend.previews`; this module
parses, calls it and wraps the envelope. A preview is a quick, billed look at what a search
would find: an estimate and a few sample posts (from the synthetic corpus). It is generated
synchronously and stored, so a later GET is free and never re-scrapes. Billing (category
``preview_generation``): ``prompt`` charges one unit per source; ``url`` one per source URL,
refunding every private, non-existing or failed one; a failed scrape refunds everything.
Both 402 as ``insufficient_credits_research_preview``; an unknown source (or a URL on a
host the service does not search) is 400 ``source_unavailable``.

Example (HTTP)::

    POST /v1/research_previews {"type": "prompt", "search_query": "oat milk",
                                "sources": ["reddit", "tiktok"], "time_filter": "past_week"}
    -> {"data": {"preview_id": "rp_…", "type": "prompt", "estimated_number_of_results": 1234,
                 "posts": [{"position": 1, "source": "reddit", …}, …]}}
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body

from rdskit.sandbox.api._common import Auth, SettingsDep, StoreDep, ok
from rdskit.sandbox.backend import previews as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["research previews"])


@router.post("/research_previews")
def post_preview(
    who: Auth, store: StoreDep, settings: SettingsDep, raw: Annotated[dict[str, Any], Body()]
) -> dict[str, Any]:
    """Generate, charge and store a preview (``type``: ``prompt`` or ``url``)."""
    with store.transaction() as conn:
        return ok(backend.create_preview(conn, settings, who.account_id, raw))


@router.get("/research_previews/{preview_id}")
def get_preview(preview_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """A stored preview; free, no re-scrape. 404 if absent or another account's."""
    with store.read() as conn:
        return ok(backend.get_preview(conn, who.account_id, preview_id))
