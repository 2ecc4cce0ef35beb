"""The per-dataset cache of the posts the assistant reads (issue 28 item 2).

Ask used to read and JSON-parse every post of its datasets for every question. Here a
dataset's posts are read once, with the mention query code of ``POST /v1/mentions``
(:func:`rdskit.sandbox.backend.mention_query.hydrate`: the same dicts the API returns,
comments of the dataset's runs included), and kept with the
:class:`~rdskit.sandbox.assistant.catalogue.Table` built over them, until the dataset
changes. A dataset's *version* is read with one cheap query per question: its number of
posts, the latest time one entered it (a run completed), the latest update of any of its
posts (a run refreshed metrics), the number of comment batches its runs stored, and the
live datasets' names (hydrated posts list them). Any change makes a new entry; entries
are evicted oldest first beyond :data:`MAX_POSTS` posts per store.

Example:
    >>> from rdskit.sandbox.store.accounts import bootstrap
    >>> from rdskit.sandbox.backend.tables import open_store
    >>> store = open_store()
    >>> with store.transaction() as conn:
    ...     account_id = bootstrap(conn)
    >>> with store.read() as conn:
    ...     len(scope_table(conn, account_id, []).posts)
    0
    >>> store.close()
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from rdskit.sandbox.assistant.catalogue import Table
from rdskit.sandbox.backend import mention_query

__all__ = ["MAX_POSTS", "scope_table", "stats"]

MAX_POSTS = 120_000
"""Posts kept per store across cached datasets (the oldest entries go first)."""

_Version = tuple[Any, ...]


class _Cache:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.datasets: OrderedDict[tuple[str, str], tuple[_Version, list[dict[str, Any]]]] = (
            OrderedDict()
        )
        self.tables: OrderedDict[tuple[Any, ...], Table] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def evict(self) -> None:
        total = sum(len(posts) for _, posts in self.datasets.values())
        while total > MAX_POSTS and len(self.datasets) > 1:
            _, (_, posts) = self.datasets.popitem(last=False)
            total -= len(posts)
        while len(self.tables) > 8:
            self.tables.popitem(last=False)


_CACHES: weakref.WeakKeyDictionary[Any, _Cache] = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def _cache_of(conn: sqlite3.Connection) -> _Cache:
    owner = getattr(conn, "store", conn)
    with _GUARD:
        if owner not in _CACHES:
            _CACHES[owner] = _Cache()
        return _CACHES[owner]


def _version(conn: sqlite3.Connection, account_id: str, dataset_id: str, names: str) -> _Version:
    posts, entered, updated = conn.execute(
        "SELECT COUNT(*), MAX(dm.dataset_run_at), MAX(m.updated_at) FROM dataset_mentions dm"
        " JOIN mentions m ON m.account_id = ? AND m.source = dm.source AND m.id = dm.id"
        " WHERE dm.dataset_id = ?",
        (account_id, dataset_id),
    ).fetchone()
    (batches,) = conn.execute(
        "SELECT COUNT(*) FROM run_comments WHERE account_id = ? AND dataset_id = ?",
        (account_id, dataset_id),
    ).fetchone()
    return (posts, entered, updated, batches, names)


def _read(conn: sqlite3.Connection, account_id: str, dataset_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT m.* FROM dataset_mentions dm JOIN mentions m ON m.account_id = ?"
        " AND m.source = dm.source AND m.id = dm.id WHERE dm.dataset_id = ?"
        " ORDER BY m.created_at, m.source, m.id",
        (account_id, dataset_id),
    ).fetchall()
    return mention_query.hydrate(conn, account_id, rows, (), [dataset_id])  # type: ignore[arg-type]


def scope_table(conn: sqlite3.Connection, account_id: str, dataset_ids: Sequence[str]) -> Table:
    """The posts of ``dataset_ids`` (each once, oldest first) as a :class:`Table`, from
    the cache when no dataset changed since it was read."""
    cache = _cache_of(conn)
    (names,) = conn.execute(
        "SELECT group_concat(id || ':' || name, '|') FROM (SELECT id, name FROM datasets"
        " WHERE account_id = ? AND deleted_at IS NULL ORDER BY id)",
        (account_id,),
    ).fetchone()
    parts: list[list[dict[str, Any]]] = []
    versions: list[tuple[str, _Version]] = []
    for dataset_id in dataset_ids:
        version = _version(conn, account_id, dataset_id, names or "")
        slot = (account_id, dataset_id)
        with cache.lock:
            found = cache.datasets.get(slot)
            if found is not None and found[0] == version:
                cache.datasets.move_to_end(slot)
                cache.hits += 1
                parts.append(found[1])
                versions.append((dataset_id, version))
                continue
        posts = _read(conn, account_id, dataset_id)
        with cache.lock:
            cache.misses += 1
            cache.datasets[slot] = (version, posts)
            cache.evict()
        parts.append(posts)
        versions.append((dataset_id, version))
    key = (account_id, tuple(versions))
    with cache.lock:
        table = cache.tables.get(key)
        if table is not None:
            cache.tables.move_to_end(key)
            return table
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for posts in parts:
        for post in posts:
            merged.setdefault((post["source"], post["id"]), post)
    ordered = sorted(
        merged.values(), key=lambda p: (p.get("created_at") or 0, p["source"], p["id"])
    )
    table = Table(ordered)
    with cache.lock:
        cache.tables[key] = table
        cache.evict()
    return table


def stats(conn: sqlite3.Connection) -> dict[str, int]:
    """Cache hits and misses (per dataset read) of the connection's store."""
    cache = _cache_of(conn)
    return {"hits": cache.hits, "misses": cache.misses, "datasets": len(cache.datasets)}
