"""Pages of ``POST /v1/mentions`` read through each dataset's own sort index
(``dataset_sort_keys``) are the pages the account-wide walk gives, row for row and cursor for
cursor, and their cost does not grow with the account's other datasets.

The reference is the query the sandbox ran before the per-dataset keys: the account's sort
index walked in order, each post checked for membership (:func:`reference_page`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from rdskit.sandbox.backend.datasets import seed_mentions
from rdskit.sandbox.backend.mention_query import (
    SORTS,
    MentionQuery,
    _membership,
    keyset_page,
    search,
)
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.store.accounts import bootstrap
from rdskit.sandbox.store.db import Store

TODAY = date(2026, 6, 1)


def _account(store: Store, *datasets: str) -> str:
    """The store's account, holding empty datasets with the ids ``datasets``; its id."""
    with store.transaction() as conn:
        account_id = bootstrap(conn)
        now = store.clock.now()
        conn.executemany(
            "INSERT INTO datasets (id, account_id, name, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [(dataset_id, account_id, dataset_id, now, now) for dataset_id in datasets],
        )
    return account_id


def _the_account(store: Store) -> str:
    with store.read() as conn:
        (account_id,) = conn.execute("SELECT id FROM accounts").fetchone()
    return str(account_id)


def _build(path: Path) -> Store:
    """An account with datasets sharing posts, the metrics of some changed after they joined,
    and a big dataset of other posts."""
    store = open_store(path, today=TODAY)
    account = _account(store, "ds_a", "ds_b", "ds_c", "ds_other")
    seed_mentions(store, account, "ds_a", 120, analyses=("sentiment",), variety=60)
    seed_mentions(store, account, "ds_other", 600)
    with store.transaction() as conn:
        # ds_b holds half of ds_a's posts and some of ds_other's; ds_c a third of ds_a's.
        shared = conn.execute(
            "SELECT dataset_id, source, id, run_id, dataset_run_at FROM dataset_mentions"
            " WHERE dataset_id IN ('ds_a', 'ds_other') ORDER BY rowid"
        ).fetchall()
        for n, (dataset_id, source, post_id, run_id, run_at) in enumerate(shared):
            if (dataset_id == "ds_a" and n % 2 == 0) or (dataset_id == "ds_other" and n % 9 == 0):
                conn.execute(
                    "INSERT OR IGNORE INTO dataset_mentions VALUES ('ds_b', ?, ?, ?, ?)",
                    (source, post_id, run_id, run_at + 5),
                )
            if dataset_id == "ds_a" and n % 3 == 0:
                conn.execute(
                    "INSERT OR IGNORE INTO dataset_mentions VALUES ('ds_c', ?, ?, ?, ?)",
                    (source, post_id, run_id, run_at + 9),
                )
        # Later collections change sort keys of posts already in datasets: ties and NULLs too.
        conn.execute(
            "UPDATE mentions SET num_likes = num_likes + 1000, engagement_rate = NULL,"
            " sentiment_score = CASE WHEN rowid % 2 THEN NULL ELSE 0.25 END"
            " WHERE rowid % 5 = 0"
        )
        conn.execute("UPDATE mentions SET num_views = 7, created_at = 1.7e9 WHERE rowid % 7 = 0")
    return store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    built = _build(tmp_path_factory.mktemp("pages") / "pages.db")
    yield built
    built.close()


def reference_page(conn: Any, account: str, query: MentionQuery) -> Any:
    """The page the sandbox served before per-dataset keys: the account's index walked,
    membership checked post by post (its filters as ``search`` compiles them)."""
    membership, params = _membership(query.dataset_ids)
    where, extra = ["m.account_id = ?", membership], [account, *params]
    if query.sources:
        where.append(f"m.source IN ({', '.join('?' * len(query.sources))})")
        extra += list(query.sources)
    if query.groups:
        where.append("m.num_views > 100")  # the only group these tests use
    sort = SORTS[query.sort]
    return keyset_page(
        conn,
        source=f"mentions m INDEXED BY mentions_sort_{sort.name}",
        where=" AND ".join(where),
        params=extra,
        sort=sort,
        order=query.order,
        limit=query.limit,
        cursor=query.cursor,
        scope=query.scope(),
    )


def _walk(store: Store, query: MentionQuery) -> int:
    """Walk every page with both queries, comparing rows, has_next and cursor; pages read."""
    pages, account = 0, _the_account(store)
    with store.read() as conn:
        while True:
            got, want = search(conn, account, query), reference_page(conn, account, query)
            assert [tuple(row) for row in got.rows] == [tuple(row) for row in want.rows]
            assert (got.has_next, got.cursor) == (want.has_next, want.cursor)
            pages += 1
            if not got.has_next:
                return pages
            query = MentionQuery(**{**query.__dict__, "cursor": got.cursor})


SELECTIONS = [["ds_a"], ["ds_b"], ["ds_b", "ds_c"], ["ds_a", "ds_b", "ds_c"]]


@pytest.mark.parametrize("sort", list(SORTS))
@pytest.mark.parametrize("order", ["desc", "asc"])
def test_every_page_is_the_account_walks_page(store: Store, sort: str, order: Any) -> None:
    pages = 0
    for dataset_ids in SELECTIONS:
        pages += _walk(
            store,
            MentionQuery(dataset_ids=dataset_ids, sort=sort, order=order, limit=17),
        )
    assert pages > 20


@pytest.mark.parametrize(
    "filters",
    [
        {"sources": ["reddit", "tiktok"]},
        {
            "groups": [
                [
                    {
                        "type": "metric_change",
                        "metric": "views",
                        "operator": "greater_than",
                        "value": 100,
                    }
                ]
            ]
        },
    ],
)
def test_filtered_pages_are_the_account_walks_pages(store: Store, filters: dict[str, Any]) -> None:
    for dataset_ids in SELECTIONS:
        for sort in ("date", "likes", "engagement_rate"):
            _walk(store, MentionQuery(dataset_ids=dataset_ids, sort=sort, limit=9, **filters))


def test_a_database_without_the_keys_gets_them_when_opened(tmp_path: Path) -> None:
    """A database written by an older sandbox (no ``dataset_sort_keys``) is given them."""
    path = tmp_path / "older.db"
    _build(path).close()
    with sqlite3.connect(path) as raw:
        raw.executescript(
            "DROP TRIGGER dataset_sort_keys_join; DROP TRIGGER dataset_sort_keys_update;"
            " DROP TABLE dataset_sort_keys;"
        )
    raw.close()
    with open_store(path, today=TODAY) as reopened:
        for dataset_ids in SELECTIONS:
            _walk(reopened, MentionQuery(dataset_ids=dataset_ids, sort="likes", limit=25))


def _page_seconds(store: Store, account: str, dataset_id: str) -> float:
    query = MentionQuery(dataset_ids=[dataset_id], limit=100)
    best = float("inf")
    with store.read() as conn:
        for _ in range(15):
            began = time.perf_counter()
            search(conn, account, query)
            best = min(best, time.perf_counter() - began)
    return best


def test_a_page_costs_the_same_whatever_the_accounts_other_datasets_hold(
    tmp_path: Path,
) -> None:
    """A 100-post page of a 300-post dataset, before and after 8,000 posts elsewhere in the
    account (the account-wide walk reads 27 times as many rows for it then)."""
    store = open_store(tmp_path / "cost.db", today=TODAY)
    try:
        account = _account(store, "ds_small", "ds_big")
        seed_mentions(store, account, "ds_small", 300)
        alone = _page_seconds(store, account, "ds_small")
        seed_mentions(store, account, "ds_big", 8_000)
        crowded = _page_seconds(store, account, "ds_small")
        # Best of 15 each; the account-wide walk took about 5x as long here.
        assert crowded < 2 * alone, (alone, crowded)
    finally:
        store.close()
