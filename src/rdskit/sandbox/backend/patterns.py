"""Pattern detections and patterns: state, SQL, rules (routes: :mod:`rdskit.sandbox.api.patterns`).

A detection reserves ``post_processing`` for the posts of the dataset's latest completed
run (402 ``insufficient_credits_pattern_detection`` starts nothing) and starts ``pending``
with no steps. The worker then walks it through the steps ``sampling`` -> ``clustering``
-> ``summarizing`` (status ``working``) to ``completed`` with a ``pattern_id``:
:mod:`rdskit.sandbox.synth.clustering` groups the dataset's newest posts (as many as that run
collected) into items. The processed posts are charged; a failure (dataset deleted, or a
name or question containing ``__fail__``) refunds the whole reservation. The lifecycle is
:class:`rdskit.sandbox.backend.runs.RunKind`'s; :data:`RUN` supplies the rest.

Patterns are read-only and free. The mentions query engine
(:mod:`rdskit.sandbox.backend.mention_query`) reads item membership through
:func:`pattern_assignments`; the tables are :data:`SCHEMA`.

Example:
    >>> RUN.category, [step.name for step in RUN.steps]
    ('post_processing', ['sampling', 'clustering', 'summarizing'])
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from rdskit.models import Pattern, PatternDetectionCreate, PatternDetectionRun, PatternItemDetail
from rdskit.sandbox.backend.datasets import FAIL_TOKEN, dataset_or_404
from rdskit.sandbox.backend.runs import Done, Outcome, RunKind, RunTable, Step, failure
from rdskit.sandbox.runtime import chaos
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.db import Connection, Store, dumps, keys_table, loads, new_id, row_or_404
from rdskit.sandbox.synth.clustering import Doc, Item, detect_patterns, summarize

__all__ = [
    "JOBS",
    "RUN",
    "SCHEMA",
    "get_detection",
    "get_pattern",
    "get_pattern_item",
    "pattern_assignments",
    "start_detection",
]

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


def _run_or_404(conn: sqlite3.Connection, account_id: str, run_id: str) -> sqlite3.Row:
    return row_or_404(
        conn,
        "pattern_detection_runs",
        "pattern_detection_run_not_found",
        f"Pattern detection run {run_id} not found",
        id=run_id,
        account_id=account_id,
    )


def _pattern_or_404(conn: sqlite3.Connection, account_id: str, pattern_id: str) -> sqlite3.Row:
    return row_or_404(
        conn,
        "patterns",
        "pattern_not_found",
        f"Pattern {pattern_id} not found",
        id=pattern_id,
        account_id=account_id,
    )


def _run_wire(row: sqlite3.Row) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "run_id": row["id"],
        "collection_id": row["dataset_id"],
        "name": row["name"],
        "research_question": row["research_question"],
        "created_at": row["created_at"],
        "status": {"type": row["status"], "steps": loads(row["steps"]), **failure(row)},
    }
    if row["pattern_id"] is not None:
        wire["pattern_id"] = row["pattern_id"]
    return PatternDetectionRun.model_validate(wire).to_wire()


def _item_wire(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "item_id": row["id"],
        "title": row["title"],
        "synopsis": row["synopsis"],
        "post_count": row["post_count"],
    }


# -- reads and writes the routes call -------------------------------------------------------
def start_detection(
    conn: Connection, settings: Settings, account_id: str, body: PatternDetectionCreate
) -> dict[str, Any]:
    """Accept a detection over a dataset (``pending``, no steps); its wire dict."""
    dataset_or_404(conn, account_id, body.dataset_id)
    latest = conn.execute(
        "SELECT mentions_count FROM dataset_runs WHERE dataset_id = ? AND status = 'completed'"
        " ORDER BY created_at DESC, id DESC LIMIT 1",
        (body.dataset_id,),
    ).fetchone()
    post_count = 0 if latest is None else latest["mentions_count"]
    run = RUN.accept(
        conn,
        account_id,
        {
            "dataset_id": body.dataset_id,
            "name": body.name,
            "research_question": body.research_question,
            "post_count": post_count,
        },
        quantity=post_count,  # the price: post processing of the latest run's posts
        error_code="insufficient_credits_pattern_detection",
        top_up_url=settings.top_up_url,
    )
    return _run_wire(run)


def get_detection(conn: sqlite3.Connection, account_id: str, run_id: str) -> dict[str, Any]:
    """A detection run's wire dict; ``pattern_id`` once completed."""
    return _run_wire(_run_or_404(conn, account_id, run_id))


def get_pattern(conn: sqlite3.Connection, account_id: str, pattern_id: str) -> dict[str, Any]:
    """A pattern: its summary and items, largest first."""
    pattern = _pattern_or_404(conn, account_id, pattern_id)
    items = conn.execute(
        "SELECT * FROM pattern_items WHERE pattern_id = ? ORDER BY position", (pattern_id,)
    ).fetchall()
    return Pattern.model_validate(
        {
            "id": pattern["id"],
            "name": pattern["name"],
            "research_question": pattern["research_question"],
            "collection_id": pattern["dataset_id"],
            "run_id": pattern["run_id"],
            "summary": pattern["summary"],
            "post_count": pattern["post_count"],
            "created_at": int(pattern["created_at"]),  # not a model field: send it as wired
            "items": [_item_wire(item) for item in items],
        }
    ).to_wire()


def get_pattern_item(
    conn: sqlite3.Connection, account_id: str, pattern_id: str, item_id: str
) -> dict[str, Any]:
    """One item with its posts (most typical first) as post references."""
    _pattern_or_404(conn, account_id, pattern_id)
    item = row_or_404(
        conn,
        "pattern_items",
        "pattern_item_not_found",
        f"Item {item_id} not found in pattern {pattern_id}",
        id=item_id,
        pattern_id=pattern_id,
    )
    posts = conn.execute(
        "SELECT source, mention_id FROM pattern_item_posts WHERE item_id = ? ORDER BY rank",
        (item_id,),
    ).fetchall()
    return PatternItemDetail.model_validate(
        {
            **_item_wire(item),
            "posts": [
                {"type": "post", "source": p["source"], "id": p["mention_id"]} for p in posts
            ],
        }
    ).to_wire()


# -- the run's checks, work and result ------------------------------------------------------
def _check(conn: Connection, run: sqlite3.Row, step: str | None) -> str | None:
    """Why the detection fails as ``step`` ends: its dataset deleted, ``__fail__`` in its
    name or question (clustering), or chaos."""
    dataset = conn.execute(
        "SELECT deleted_at FROM datasets WHERE id = ?", (run["dataset_id"],)
    ).fetchone()
    if dataset is None or dataset["deleted_at"] is not None:
        return "the dataset was deleted"
    if step == "clustering" and FAIL_TOKEN in f"{run['name']} {run['research_question']}":
        return "clustering failed"
    if step is not None and chaos.of(conn.store).take_failure("pattern_detection", step):
        return f"{step} failed (sandbox chaos)"
    return None


_Detected = tuple[list[Doc], list[Item]]


def _work(store: Store, run: sqlite3.Row) -> _Detected:
    """Cluster the dataset's newest posts (as many as were reserved), outside the lock."""
    with store.read() as conn:
        rows = conn.execute(
            "SELECT m.source, m.id, m.body FROM dataset_mentions dm JOIN mentions m"
            " ON m.account_id = ? AND m.source = dm.source AND m.id = dm.id"
            " WHERE dm.dataset_id = ? ORDER BY dm.dataset_run_at DESC, m.created_at DESC,"
            " m.source, m.id LIMIT ?",
            (run["account_id"], run["dataset_id"], run["post_count"]),
        ).fetchall()
    docs = []
    for row in rows:
        body = loads(row["body"])
        docs.append(Doc(row["source"], row["id"], body.get("title"), body.get("text")))
    return docs, detect_patterns(docs, run["research_question"])


def _finish(conn: Connection, run: sqlite3.Row, detected: _Detected) -> Outcome:
    """Store the pattern and its items; charge the posts processed."""
    docs, items = detected
    now = conn.store.clock.now()
    pattern_id = new_id(conn, "pt")
    conn.execute(
        "INSERT INTO patterns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            pattern_id,
            run["account_id"],
            run["id"],
            run["dataset_id"],
            run["name"],
            run["research_question"],
            summarize(items, run["research_question"], len(docs)),
            len(docs),
            now,
        ),
    )
    for position, item in enumerate(items):
        item_id = new_id(conn, "pti")
        conn.execute(
            "INSERT INTO pattern_items VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                item_id,
                pattern_id,
                position,
                item.title,
                item.synopsis,
                dumps(list(item.terms)),
                len(item.members),
            ),
        )
        conn.executemany(
            "INSERT INTO pattern_item_posts VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (item_id, pattern_id, run["account_id"], *m.key, m.confidence, rank)
                for rank, m in enumerate(item.members)
            ],
        )
    RUN.table.update(conn, run["id"], pattern_id=pattern_id)
    return Done(len(docs))


RUN: RunKind[_Detected] = RunKind(
    "pattern_detection",
    RunTable("pattern_detection_runs", live=("pending", "working"), steps=True, whole_seconds=True),
    id_prefix="pdr",
    job="pattern_detection.advance",
    # Simulated seconds per step (divided by --speed); queued 1 s.
    steps=(Step("sampling", 2.0), Step("clustering", 2.0), Step("summarizing", 2.0)),
    check=_check,
    work=_work,
    finish=_finish,
    list_steps=False,  # a pending detection shows ``steps: []``
)
"""Pattern detections: the shared run state machine with their checks, work and price."""
JOBS = (RUN.job_kind,)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""


def pattern_assignments(
    conn: sqlite3.Connection, account_id: str, posts: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], dict[str, list[dict[str, Any]]]]:
    """Pattern items of ``posts``, in the Mention ``pattern_assignments`` shape.

    Returns ``{(source, id): {pattern_id: [{pattern_item_id, name, confidence}]}}``;
    posts in no item are left out.

    Example:
        >>> from rdskit.sandbox.backend.tables import open_store
        >>> with open_store(":memory:") as store, store.read() as conn:
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
