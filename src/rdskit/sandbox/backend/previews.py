"""Research previews backend: validation, billing, generation and storage of previews.

Called by the REST routes (:mod:`rdskit.sandbox.api.previews`) and the MCP tools; no
HTTP here. Billing (category ``preview_generation``): ``prompt`` reserves and charges one
unit per source; ``url`` reserves one unit per source URL, then refunds every URL that is
private, non-existing or failed; a failed scrape refunds everything. The table is
:data:`SCHEMA` (listed in :mod:`rdskit.sandbox.backend.tables`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rdskit.models import PromptPreviewRequest, ResearchPreview, UrlPreviewRequest
from rdskit.sandbox.errors import ApiError, invalid, parse_body
from rdskit.sandbox.runtime import chaos, guard
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store import wallet
from rdskit.sandbox.store.db import Connection, dumps, loads, new_id, row_or_404
from rdskit.sandbox.synth.preview_samples import (
    FAIL_TOKEN,
    SOURCES,
    WindowError,
    day_window,
    estimate_results,
    profile_of,
    resolve_url,
    sample_posts,
    time_window,
)

__all__ = ["SCHEMA", "create_preview", "get_preview"]

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


_KINDS: dict[str, type[PromptPreviewRequest | UrlPreviewRequest]] = {
    "prompt": PromptPreviewRequest,
    "url": UrlPreviewRequest,
}


def _unavailable(names: list[str], *, down: bool = False) -> ApiError:
    """``source_unavailable``: an unknown source, or (``down``) one that is out of service
    for now (a chaos control), which is worth retrying later."""
    if down:
        return ApiError(
            400,
            "source_unavailable",
            f"{', '.join(names)} cannot be searched right now.",
            transient=True,
        )
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
    state = chaos.of(conn.store)
    down = state.unavailable_among(request.sources)
    if down:
        raise _unavailable(down, down=True)
    if state.take_failure("research_preview", "scraping"):
        # A failed scrape refunds the whole reservation: nothing is charged or stored.
        raise _unavailable(list(request.sources), down=True)
    now = datetime.fromtimestamp(conn.store.clock.now(), tz=UTC)
    try:
        window = time_window(request.time_filter, request.date_since, request.date_until, now)
    except WindowError as exc:
        raise invalid((exc.field,), str(exc)) from exc
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
            conn.store.seed, request.search_query, request.sources, *window, now
        ),
        "posts": posts,
    }


def _url_preview(
    conn: Connection, reserve: Callable[[int], str], request: UrlPreviewRequest
) -> dict[str, Any]:
    for index, reason in guard.url_problems(request.source_urls):
        raise invalid(("source_urls", str(index)), f"source_urls[{index}] {reason}")
    resolved = [resolve_url(url) for url in request.source_urls]
    unsupported = [r.url for r in resolved if r.outcome == "unsupported"]
    if unsupported:
        raise _unavailable(unsupported)
    state = chaos.of(conn.store)
    down = state.unavailable_among([r.source for r in resolved if r.source])
    if down:
        raise _unavailable(list(dict.fromkeys(down)), down=True)
    now = datetime.fromtimestamp(conn.store.clock.now(), tz=UTC)
    try:  # open on a side not given: from the first post, up to the index's end
        window = day_window(
            request.date_filter_since,
            request.date_filter_until,
            ("date_filter_since", "date_filter_until"),
        )
    except WindowError as exc:
        raise invalid((exc.field,), str(exc)) from exc
    reservation = reserve(len(resolved))
    scrape_failed = any(FAIL_TOKEN in url for url in request.source_urls) or state.take_failure(
        "research_preview", "scraping"
    )
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
    if not isinstance(kind, str) or kind not in _KINDS:
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


def get_preview(conn: Connection, account_id: str, preview_id: str) -> dict[str, Any]:
    """A stored preview's wire dict; free, no re-scrape. 404 if absent or another account's."""
    row = row_or_404(
        conn,
        "research_previews",
        "research_preview_not_found",
        f"Research preview {preview_id} not found",
        id=preview_id,
        account_id=account_id,
    )
    return loads(row["body"])  # type: ignore[no-any-return]
