"""Research previews: ``POST /v1/research_previews`` and ``GET /v1/research_previews/{id}``.

A preview is a quick, billed look at what a search would find: an estimate and a few
sample posts (from the synthetic corpus). It is generated synchronously and stored, so a
later GET is free and never re-scrapes. Billing (category ``preview_generation``):

- ``prompt`` reserves and charges one unit per source; no partial refund;
- ``url`` reserves one unit per source URL, then refunds every URL that is private,
  non-existing or failed; a failed scrape refunds everything.

Both 402 as ``insufficient_credits_research_preview``; an unknown source (or a URL on a host
the service does not search) is 400 ``source_unavailable``. URL outcomes follow
:func:`rdskit.sandbox.previews.resolve_url`.

Example (HTTP)::

    POST /v1/research_previews {"type": "prompt", "search_query": "oat milk",
                                "sources": ["reddit", "tiktok"], "time_filter": "past_week"}
    -> {"data": {"preview_id": "rp_…", "type": "prompt", "estimated_number_of_results": 1234,
                 "posts": [{"position": 1, "source": "reddit", …}, …]}}
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Body

from rdskit.models import PromptPreviewRequest, ResearchPreview, UrlPreviewRequest
from rdskit.sandbox import wallet
from rdskit.sandbox.db import Connection, dumps, loads, new_id
from rdskit.sandbox.previews import (
    FAIL_TOKEN,
    SOURCES,
    estimate_results,
    profile_of,
    resolve_url,
    sample_posts,
    time_window,
)
from rdskit.sandbox.routes._common import (
    ApiError,
    Auth,
    SettingsDep,
    StoreDep,
    invalid,
    ok,
    parse_body,
    row_or_404,
)
from rdskit.sandbox.settings import Settings

__all__ = ["SCHEMA", "create_preview", "router"]

router = APIRouter(prefix="/v1", tags=["research previews"])

SCHEMA = """
CREATE TABLE IF NOT EXISTS research_previews (
    id         TEXT PRIMARY KEY,               -- rp_
    account_id TEXT NOT NULL REFERENCES accounts(id),
    type       TEXT NOT NULL,                  -- prompt | url
    request    TEXT NOT NULL,                  -- JSON echo of the request
    body       TEXT NOT NULL,                  -- JSON: the ResearchPreview wire dict
    created_at REAL NOT NULL
);
"""

_KINDS = {"prompt": PromptPreviewRequest, "url": UrlPreviewRequest}


def _unavailable(names: list[str]) -> ApiError:
    return ApiError(
        400,
        "source_unavailable",
        f"Cannot search {', '.join(names)}; the sources are {', '.join(SOURCES)}.",
    )


def _prompt_preview(
    conn: Connection, reserve: Callable[[int], str], request: PromptPreviewRequest
) -> dict[str, Any]:
    unknown = [s for s in request.sources if s not in SOURCES]
    if unknown:
        raise _unavailable(unknown)
    now = datetime.fromtimestamp(conn.store.clock.now(), tz=UTC)
    try:
        window = time_window(request.time_filter, request.date_since, request.date_until, now)
    except ValueError as exc:
        raise invalid(("time_filter",), str(exc)) from exc
    reservation = reserve(len(request.sources))
    search_query = {
        "type": "prompt",
        "sources": list(request.sources),
        "search_query": request.search_query,
    }
    posts = sample_posts(conn.store.seed, search_query, window, request, now)
    wallet.settle(conn, reservation, len(request.sources))  # no partial refund
    return {
        "estimated_number_of_results": estimate_results(
            conn.store.seed, request.search_query, request.sources, *window
        ),
        "posts": posts,
    }


def _url_preview(
    conn: Connection, reserve: Callable[[int], str], request: UrlPreviewRequest
) -> dict[str, Any]:
    resolved = [resolve_url(url) for url in request.source_urls]
    unsupported = [r.url for r in resolved if r.outcome == "unsupported"]
    if unsupported:
        raise _unavailable(unsupported)
    now = datetime.fromtimestamp(conn.store.clock.now(), tz=UTC)
    window: tuple[datetime | None, datetime | None] = (None, None)
    if request.date_filter_since or request.date_filter_until:
        try:
            window = time_window(
                None,
                request.date_filter_since or "1970-01-01",
                request.date_filter_until or now.date().isoformat(),
                now,
            )
        except ValueError as exc:
            raise invalid(("date_filter_since",), str(exc)) from exc
    reservation = reserve(len(resolved))
    scrape_failed = any(FAIL_TOKEN in url for url in request.source_urls)
    by_outcome: dict[str, list[str]] = {"private": [], "missing": [], "failed": []}
    profiles = []
    for item in resolved:
        outcome = "failed" if scrape_failed else item.outcome
        if outcome == "resolved":
            profiles.append(profile_of(conn.store.seed, item))
        else:
            by_outcome[outcome].append(item.url)
    # Charged for the resolved URLs only; private, missing and failed ones are refunded.
    wallet.settle(conn, reservation, len(profiles))
    posts = []
    if profiles:
        search_query = {"type": "url", "source_urls": [p["url"] for p in profiles]}
        posts = sample_posts(conn.store.seed, search_query, window, request, now)
    return {
        "estimated_number_of_results": sum(p["content_count"] for p in profiles),
        "posts": posts,
        "profiles": profiles,
        "failed_to_retrieve_profiles": by_outcome["failed"],
        "non_existing_profiles": by_outcome["missing"],
        "private_profiles": by_outcome["private"],
    }


def create_preview(
    conn: Connection, settings: Settings, account_id: str, raw: dict[str, Any]
) -> dict[str, Any]:
    """Validate, charge, generate and store a preview; returns its wire dict.

    Shared by the REST route and the MCP tools. Call inside ``store.transaction()``.
    """
    kind = raw.get("type")
    if kind not in _KINDS:
        raise invalid(("type",), "type must be prompt or url")
    request = parse_body(_KINDS[kind], raw)
    preview_id = new_id(conn, "rp")

    def reserve(units: int) -> str:
        return wallet.reserve(
            conn,
            account_id,
            "preview_generation",
            units,
            preview_id,
            error_code="insufficient_credits_research_preview",
            top_up_url=settings.top_up_url,
        )

    if isinstance(request, PromptPreviewRequest):
        content = _prompt_preview(conn, reserve, request)
    else:
        content = _url_preview(conn, reserve, request)
    body = ResearchPreview.model_validate(
        {"preview_id": preview_id, "type": kind, **content}
    ).to_wire()
    conn.execute(
        "INSERT INTO research_previews VALUES (?, ?, ?, ?, ?, ?)",
        (preview_id, account_id, kind, dumps(raw), dumps(body), conn.store.clock.now()),
    )
    return body


@router.post("/research_previews")
def post_preview(
    who: Auth, store: StoreDep, settings: SettingsDep, raw: Annotated[dict[str, Any], Body()]
) -> dict[str, Any]:
    """Generate, charge and store a preview (``type``: ``prompt`` or ``url``)."""
    with store.transaction() as conn:
        return ok(create_preview(conn, settings, who.account_id, raw))


@router.get("/research_previews/{preview_id}")
def get_preview(preview_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """A stored preview; free, no re-scrape. 404 if absent or another account's."""
    with store.read() as conn:
        row = row_or_404(
            conn,
            "research_previews",
            "research_preview_not_found",
            f"Research preview {preview_id} not found",
            id=preview_id,
            account_id=who.account_id,
        )
    return ok(loads(row["body"]))
