"""Mentions backend: query the account's collected posts (free).

The query engine is :mod:`rdskit.sandbox.backend.mention_query`; this module resolves the
dataset scope, runs the query and returns the Mention wire objects (validated when they
were stored, served as they are). Called by the REST route
(:mod:`rdskit.sandbox.api.mentions`) and the MCP tools.

- ``dataset_ids`` omitted (or empty): every live dataset of the account; an absent,
  deleted or foreign id is 404 ``dataset_not_found``.
- ``post_refs``: those posts, in the order given (unknown ones left out), one page.
- otherwise filters, ``q``, ``sources``, ``sort``/``order`` and keyset ``cursor`` paging.

:func:`collections` lists the live datasets with their mention counts (the MCP
``service__list_collections`` tool).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, NamedTuple

from rdskit.models.mentions import MentionsQuery
from rdskit.sandbox.backend import mention_query
from rdskit.sandbox.db import Store
from rdskit.sandbox.errors import ApiError, invalid

__all__ = ["MentionsPage", "collections", "live_datasets", "query_mentions"]


class MentionsPage(NamedTuple):
    """One page of Mention wire dicts, and where the next page starts."""

    mentions: list[dict[str, Any]]
    has_next: bool
    cursor: str | None


def live_datasets(
    conn: sqlite3.Connection, account_id: str, dataset_ids: Sequence[str] | None
) -> list[str]:
    """The requested datasets (all live ones when none are named); 404 for any other id."""
    if not dataset_ids:
        return [
            row["id"]
            for row in conn.execute(
                "SELECT id FROM datasets WHERE account_id = ? AND deleted_at IS NULL", (account_id,)
            )
        ]
    wanted = list(dict.fromkeys(dataset_ids))
    found = {
        row["id"]
        for row in conn.execute(
            f"SELECT id FROM datasets WHERE account_id = ? AND deleted_at IS NULL"
            f" AND id IN ({', '.join('?' * len(wanted))})",
            [account_id, *wanted],
        )
    }
    missing = next((d for d in wanted if d not in found), None)
    if missing is not None:
        raise ApiError(404, "dataset_not_found", f"Dataset {missing} not found")
    return wanted


def query_mentions(store: Store, account_id: str, body: MentionsQuery) -> MentionsPage:
    """One page of the account's mentions matching ``body``, newest first by default."""
    sort = body.sort or "date"
    if sort not in mention_query.SORTS:
        raise invalid(("sort",), f"sort must be one of {', '.join(mention_query.SORTS)}")
    parameter_ids = list(body.parameter_ids or [])
    with store.read() as conn:
        dataset_ids = live_datasets(conn, account_id, body.dataset_ids)
        if body.post_refs:
            refs = [{"source": ref.source, "id": ref.id} for ref in body.post_refs]
            rows = mention_query.lookup(conn, account_id, refs, dataset_ids)
            has_next, cursor = False, None
        else:
            query = mention_query.MentionQuery(
                dataset_ids=dataset_ids,
                sources=list(body.sources or []),
                groups=body.filters or [],
                q=body.q,
                sort=sort,
                order=body.order or "desc",
                limit=mention_query.page_limit(body.limit),
                cursor=body.cursor,
            )
            got = mention_query.search(conn, account_id, query)
            rows, has_next, cursor = got.rows, got.has_next, got.cursor
        items = mention_query.hydrate(conn, account_id, rows, parameter_ids, dataset_ids)
    # Hydrated mentions are wire dicts already (validated when stored): no model round trip.
    return MentionsPage(items, has_next, cursor)


def collections(store: Store, account_id: str, limit: int) -> list[dict[str, Any]]:
    """The account's live datasets as collections (``kind: mentions``) with their mention
    counts, newest first; ``limit`` is clamped to 1..100 (the MCP ``list_collections``)."""
    with store.read() as conn:
        rows = conn.execute(
            "SELECT d.id, d.name, d.created_at, COUNT(dm.id) AS mentions_count"
            " FROM datasets d LEFT JOIN dataset_mentions dm ON dm.dataset_id = d.id"
            " WHERE d.account_id = ? AND d.deleted_at IS NULL GROUP BY d.id"
            " ORDER BY d.created_at DESC, d.id DESC LIMIT ?",
            (account_id, max(1, min(limit, 100))),
        ).fetchall()
    return [
        {
            "kind": "mentions",
            "id": row["id"],
            "name": row["name"],
            "mentions_count": row["mentions_count"],
            "created_at": int(row["created_at"]),
        }
        for row in rows
    ]
