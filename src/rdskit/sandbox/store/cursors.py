"""Opaque, sort-aware keyset cursors.

A cursor is ``base64url(mac || json)`` where the JSON holds the sort name, the order, an
optional scope fingerprint and the last row's key ``[sort value, tie-breaker]``, and the
MAC is an HMAC-SHA256 (truncated) under the store's secret. A cursor that is malformed,
tampered with, or minted for another sort, order or scope raises ``invalid_cursor``.

Pages are fetched with a keyset predicate ``(sort, tie) < (?, ?)`` and ``ORDER BY sort,
tie``, never ``OFFSET``: with an index on ``(…, sort, tie)`` page 900 costs what page 1
costs.

Example:
    >>> sort = Sort("created_at", "d.created_at", "d.id")
    >>> token = encode_cursor(b"k", sort, "desc", (1767225600.0, "ds_1"))
    >>> decode_cursor(b"k", token, sort, "desc")
    (1767225600.0, 'ds_1')
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rdskit.sandbox.errors import ApiError
from rdskit.sandbox.store.db import Connection

__all__ = [
    "BY_CREATED",
    "ListParams",
    "Order",
    "Page",
    "Sort",
    "child_page",
    "decode_cursor",
    "encode_cursor",
    "fetch_page",
    "keyset",
    "page",
    "page_of",
]

Order = Literal["asc", "desc"]
_MAC_BYTES = 12


@dataclass(frozen=True)
class ListParams:
    """Validated ``limit``, ``cursor`` and ``order`` of a list endpoint."""

    limit: int
    cursor: str | None
    order: Literal["asc", "desc"]


def page(
    items: Sequence[Any], *, has_next: bool, cursor: str | None, status: str = "success"
) -> dict[str, Any]:
    """The list envelope ``{status, data, has_next, cursor}`` (cursor is null on the last page).

    Example:
        >>> page([], has_next=False, cursor=None)
        {'status': 'success', 'data': [], 'has_next': False, 'cursor': None}
    """
    return {"status": status, "data": list(items), "has_next": has_next, "cursor": cursor}


@dataclass(frozen=True)
class Sort:
    """A sort dimension: its public ``name`` and the SQL expressions it orders by.

    ``column`` must be non-NULL (wrap nullable columns in ``COALESCE``) and ``tiebreak``
    unique within the result, so the key of a row identifies its position exactly.
    """

    name: str
    column: str
    tiebreak: str


@dataclass(frozen=True)
class Page:
    """One page of rows plus the envelope's ``has_next`` and ``cursor``."""

    rows: list[sqlite3.Row]
    has_next: bool
    cursor: str | None


def _b64encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _mac(secret: bytes, payload: bytes) -> bytes:
    return hmac.new(secret, payload, hashlib.sha256).digest()[:_MAC_BYTES]


def encode_cursor(
    secret: bytes, sort: Sort, order: Order, key: Sequence[Any], *, scope: str = ""
) -> str:
    """Mint the cursor that resumes after the row whose key is ``key``."""
    payload = json.dumps(
        {"s": sort.name, "o": order, "q": scope, "k": list(key)}, separators=(",", ":")
    ).encode()
    return _b64encode(_mac(secret, payload) + payload)


def decode_cursor(
    secret: bytes, token: str, sort: Sort, order: Order, *, scope: str = ""
) -> tuple[Any, ...]:
    """The key stored in ``token``; ``invalid_cursor`` unless it was minted for this query."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        mac, payload = raw[:_MAC_BYTES], raw[_MAC_BYTES:]
        if not hmac.compare_digest(mac, _mac(secret, payload)):
            raise ValueError("signature mismatch")
        data = json.loads(payload)
        key = tuple(data["k"])
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise ApiError(400, "invalid_cursor", "The cursor is malformed.") from exc
    if data.get("s") != sort.name or data.get("o") != order or data.get("q") != scope:
        raise ApiError(
            400,
            "invalid_cursor",
            f"The cursor belongs to another query (sort {data.get('s')!r}, "
            f"order {data.get('o')!r}); start again without a cursor.",
        )
    if len(key) != 2:
        raise ApiError(400, "invalid_cursor", "The cursor is malformed.")
    return key


def keyset(sort: Sort, order: Order, after: Sequence[Any] | None) -> tuple[str, list[Any], str]:
    """``(where, params, order_by)`` for the rows after ``after`` in ``order``.

    Example:
        >>> keyset(Sort("date", "m.created_at", "m.id"), "desc", (5.0, "x"))
        ('(m.created_at, m.id) < (?, ?)', [5.0, 'x'], 'm.created_at DESC, m.id DESC')
    """
    direction = "DESC" if order == "desc" else "ASC"
    order_by = f"{sort.column} {direction}, {sort.tiebreak} {direction}"
    if after is None:
        return "1", [], order_by
    op = "<" if order == "desc" else ">"
    return f"({sort.column}, {sort.tiebreak}) {op} (?, ?)", list(after), order_by


def fetch_page(
    conn: Connection,
    *,
    columns: str,
    source: str,
    where: str,
    params: Sequence[Any],
    sort: Sort,
    order: Order,
    limit: int,
    cursor: str | None,
    scope: str = "",
) -> Page:
    """``SELECT {columns} FROM {source} WHERE {where}``, one keyset page at a time.

    ``where`` filters the whole result (account, parent, soft delete). Cursors are signed
    with the store's secret and bound to ``source`` and ``scope`` (anything else that
    changes the result: a parent id, a filter fingerprint).

    Example:
        >>> from rdskit.sandbox.store.db import Store
        >>> store = Store(":memory:")
        >>> with store.transaction() as conn:
        ...     _ = conn.execute("CREATE TEMP TABLE t (id TEXT, at REAL)")
        ...     _ = conn.executemany("INSERT INTO t VALUES (?, ?)", [("a", 1), ("b", 2), ("c", 3)])
        ...     first = fetch_page(conn, columns="id", source="t", where="1", params=[],
        ...                        sort=Sort("at", "at", "id"), order="desc", limit=2, cursor=None)
        ...     rest = fetch_page(conn, columns="id", source="t", where="1", params=[],
        ...                       sort=Sort("at", "at", "id"), order="desc", limit=2,
        ...                       cursor=first.cursor)
        >>> [r["id"] for r in first.rows], first.has_next, [r["id"] for r in rest.rows]
        (['c', 'b'], True, ['a'])
        >>> store.close()
    """
    secret = conn.store.secret
    scope = hashlib.blake2b(f"{source}|{scope}".encode(), digest_size=6).hexdigest()
    after = decode_cursor(secret, cursor, sort, order, scope=scope) if cursor else None
    key_where, key_params, order_by = keyset(sort, order, after)
    sql = (
        f"SELECT {columns}, {sort.column} AS _k0, {sort.tiebreak} AS _k1 FROM {source}"
        f" WHERE ({where}) AND {key_where} ORDER BY {order_by} LIMIT ?"
    )
    rows = conn.execute(sql, [*params, *key_params, limit + 1]).fetchall()
    return page_of(secret, rows, sort=sort, order=order, limit=limit, scope=scope)


def page_of(
    secret: bytes, rows: list[Any], *, sort: Sort, order: Order, limit: int, scope: str
) -> Page:
    """The page of up to ``limit + 1`` fetched ``rows`` (keys in ``_k0``/``_k1``): the extra
    row only says there is a next page, whose cursor is the last kept row's key."""
    has_next = len(rows) > limit
    rows = rows[:limit]
    next_cursor = (
        encode_cursor(secret, sort, order, (rows[-1]["_k0"], rows[-1]["_k1"]), scope=scope)
        if has_next
        else None
    )
    return Page(rows, has_next, next_cursor)


BY_CREATED = Sort("created_at", "created_at", "id")
"""Newest (or oldest) first by creation time, ties broken by id."""


def child_page(
    conn: Connection,
    *,
    source: str,
    parent: str,
    parent_id: str,
    params: ListParams,
    wire: Callable[[Any], Any],
    sort: Sort = BY_CREATED,
) -> dict[str, Any]:
    """One page of the ``source`` rows whose ``parent`` column is ``parent_id``, as the list
    envelope; its cursor only continues this parent's list (a run list of another dataset
    answers ``invalid_cursor``).

    Example:
        >>> # GET /v1/datasets/{id}/runs, after checking that the dataset is the caller's
        >>> child_page(conn, source="dataset_runs", parent="dataset_id",  # doctest: +SKIP
        ...            parent_id=dataset_id, params=params, wire=_run_wire)
        {'status': 'success', 'data': [...], 'has_next': False, 'cursor': None}
    """
    got = fetch_page(
        conn,
        columns="*",
        source=source,
        where=f"{parent} = ?",
        params=[parent_id],
        sort=sort,
        order=params.order,
        limit=params.limit,
        cursor=params.cursor,
        scope=parent_id,
    )
    return page([wire(row) for row in got.rows], has_next=got.has_next, cursor=got.cursor)
