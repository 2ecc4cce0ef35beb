"""Mentions backend: query the account's collected posts (free).

The query engine is :mod:`rdskit.sandbox.backend.mention_query`; this module resolves the
dataset scope, runs the query and returns the Mention wire objects (validated when they
were stored, served as they are): as dicts for the MCP tools (:func:`query_mentions`), as
JSON text joined from the stored text for the REST route (:func:`query_mentions_json`,
:mod:`rdskit.sandbox.api.mentions`).

- ``dataset_ids`` omitted (or empty): every live dataset of the account; an absent,
  deleted or foreign id is 404 ``dataset_not_found``.
- ``post_refs``: those posts, in the order given (unknown ones left out), one page.
- otherwise filters, ``q``, ``sources``, ``sort``/``order`` and keyset ``cursor`` paging.

:func:`collections` lists the live datasets with their mention counts (the MCP
``service__list_collections`` tool).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

from rdskit.models.mentions import MentionsQuery
from rdskit.sandbox.backend import mention_query
from rdskit.sandbox.errors import ApiError, invalid
from rdskit.sandbox.store.db import Connection, Store

__all__ = [
    "MentionsJson",
    "MentionsPage",
    "collections",
    "live_datasets",
    "query_mentions",
    "query_mentions_json",
]


T = TypeVar("T")


class _Page(NamedTuple, Generic[T]):
    """One page of mentions, and where the next page starts."""

    mentions: list[T]
    has_next: bool
    cursor: str | None


MentionsPage = _Page[dict[str, Any]]
"""One page of Mention wire dicts."""

MentionsJson = _Page[str]
"""One page of mentions, each the JSON text of its wire dict."""


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
    return _page(store, account_id, body, mention_query.hydrate)


def query_mentions_json(store: Store, account_id: str, body: MentionsQuery) -> MentionsJson:
    """:func:`query_mentions` with each mention as the JSON text the API serves, joined
    from the stored text without parsing it (:func:`.mention_query.render`)."""
    return _page(store, account_id, body, mention_query.render)


def _page(
    store: Store,
    account_id: str,
    body: MentionsQuery,
    build: Callable[[Connection, str, list[sqlite3.Row], list[str], list[str]], list[T]],
) -> _Page[T]:
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
        # Stored mentions are in their wire form already (validated when written).
        items = build(conn, account_id, rows, parameter_ids, dataset_ids)
    return _Page(items, has_next, cursor)


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
