"""Patterns backend: reads of pattern items that other parts share.

The mentions query engine (:mod:`rdskit.sandbox.backend.mention_query`) reads item
membership through :func:`pattern_assignments`; the tables are :data:`SCHEMA`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from rdskit.sandbox.db import keys_table

__all__ = ["SCHEMA", "pattern_assignments"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS pattern_detection_runs (
    id                TEXT PRIMARY KEY,        -- pdr_
    account_id        TEXT NOT NULL REFERENCES accounts(id),
    dataset_id        TEXT NOT NULL REFERENCES datasets(id),
    name              TEXT NOT NULL,
    research_question TEXT NOT NULL,
    status            TEXT NOT NULL,           -- pending | working | completed | failed
    steps             TEXT NOT NULL DEFAULT '[]', -- JSON [{name, status, started_at, finished_at}]
    post_count        INTEGER NOT NULL,        -- posts of the latest completed run (reserved)
    reservation_id    TEXT REFERENCES reservations(id),
    pattern_id        TEXT,
    error             TEXT,
    created_at        REAL NOT NULL,
    updated_at        REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS patterns (
    id                TEXT PRIMARY KEY,        -- pt_
    account_id        TEXT NOT NULL REFERENCES accounts(id),
    run_id            TEXT NOT NULL REFERENCES pattern_detection_runs(id),
    dataset_id        TEXT NOT NULL,
    name              TEXT NOT NULL,
    research_question TEXT NOT NULL,
    summary           TEXT NOT NULL,
    post_count        INTEGER NOT NULL,        -- posts analysed
    created_at        REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS pattern_items (
    id         TEXT PRIMARY KEY,               -- pti_
    pattern_id TEXT NOT NULL REFERENCES patterns(id),
    position   INTEGER NOT NULL,               -- 0 = largest item
    title      TEXT NOT NULL,
    synopsis   TEXT NOT NULL,
    terms      TEXT NOT NULL,                  -- JSON list of the title's words
    post_count INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pattern_items_pattern ON pattern_items(pattern_id, position);

-- Item membership; read per mention through pattern_assignments().
CREATE TABLE IF NOT EXISTS pattern_item_posts (
    item_id    TEXT NOT NULL REFERENCES pattern_items(id),
    pattern_id TEXT NOT NULL REFERENCES patterns(id),
    account_id TEXT NOT NULL REFERENCES accounts(id),
    source     TEXT NOT NULL,
    mention_id TEXT NOT NULL,
    confidence REAL NOT NULL,                  -- cosine similarity to the item's centroid
    rank       INTEGER NOT NULL,               -- 0 = most typical post of the item
    PRIMARY KEY (item_id, source, mention_id)
);
CREATE INDEX IF NOT EXISTS pattern_item_posts_mention
    ON pattern_item_posts(account_id, source, mention_id);
"""


def pattern_assignments(
    conn: sqlite3.Connection, account_id: str, posts: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], dict[str, list[dict[str, Any]]]]:
    """Pattern items of ``posts``, in the Mention ``pattern_assignments`` shape.

    Returns ``{(source, id): {pattern_id: [{pattern_item_id, name, confidence}]}}``;
    posts in no item are left out.

    Example:
        >>> from rdskit.sandbox.db import Store
        >>> with Store(":memory:") as store, store.read() as conn:
        ...     pattern_assignments(conn, "acc_1", [("reddit", "1")])
        {}
    """
    keys = list(dict.fromkeys(posts))
    found: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    # Chunked so the number of bound variables stays within SQLite's limit.
    for start in range(0, len(keys), 400):
        chunk, params = keys_table("k", keys[start : start + 400], "source, id")
        rows = conn.execute(
            f"{chunk} SELECT p.source, p.mention_id, p.pattern_id, p.item_id, p.confidence,"
            " i.title FROM k JOIN pattern_item_posts p ON p.account_id = ?"
            " AND p.source = k.source AND p.mention_id = k.id"
            " JOIN pattern_items i ON i.id = p.item_id ORDER BY p.pattern_id, i.position",
            [*params, account_id],
        ).fetchall()
        for row in rows:
            by_pattern = found.setdefault((row["source"], row["mention_id"]), {})
            by_pattern.setdefault(row["pattern_id"], []).append(
                {
                    "pattern_item_id": row["item_id"],
                    "name": row["title"],
                    "confidence": row["confidence"],
                }
            )
    return found
