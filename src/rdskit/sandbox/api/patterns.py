"""Pattern detections and patterns: ``/v1/pattern_detections...``, ``/v1/patterns...``.

A detection reserves ``post_processing`` for the posts of the dataset's latest completed
run (402 ``insufficient_credits_pattern_detection`` starts nothing) and starts ``pending``
with no steps. The worker then walks it through the steps ``sampling`` -> ``clustering``
-> ``summarizing`` (status ``working``) to ``completed`` with a ``pattern_id``:
:mod:`rdskit.sandbox.text.clustering` groups the dataset's newest posts (as many as that run
collected) into items. The processed posts are charged; a failure (dataset deleted, or a
name or question containing ``__fail__``) refunds the whole reservation.

Patterns are read-only and free: ``GET /v1/patterns/{id}`` (summary + items) and
``GET /v1/patterns/{id}/items/{item_id}`` (the item's posts as post references). The
mentions query reads item membership through :func:`pattern_assignments`.

Example (HTTP)::

    POST /v1/pattern_detections {"dataset_id": "ds_…", "name": "Pains",
                                 "research_question": "What do people complain about?"}
    -> {"data": {"run_id": "pdr_…", "status": {"type": "pending", "steps": []}, …}}
    GET /v1/pattern_detections/pdr_…  -> … "status": {"type": "completed", …}, "pattern_id": "pt_…"
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter

from rdskit.models import Pattern, PatternDetectionCreate, PatternDetectionRun, PatternItemDetail
from rdskit.sandbox import chaos, wallet
from rdskit.sandbox.api._common import Auth, SettingsDep, StoreDep, ok, row_or_404
from rdskit.sandbox.api.datasets import FAIL_TOKEN, dataset_or_404
from rdskit.sandbox.backend.patterns import pattern_assignments
from rdskit.sandbox.backend.runs import RunTable
from rdskit.sandbox.db import Store, dumps, loads, new_id
from rdskit.sandbox.text.clustering import Doc, detect_patterns, summarize
from rdskit.sandbox.worker import Job, JobKind, schedule

__all__ = ["JOBS", "pattern_assignments", "router"]

router = APIRouter(prefix="/v1", tags=["patterns"])


RUNS = RunTable(
    "pattern_detection_runs", live=("pending", "working"), steps=True, whole_seconds=True
)
"""Detections: the shared run lifecycle (fail, refund, crash) over their table."""
STEPS = ("sampling", "clustering", "summarizing")
_ADVANCE = "pattern_detection.advance"
_QUEUE_SECONDS = 1.0
_STEP_SECONDS = 2.0  # simulated seconds per step


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
        "status": {"type": row["status"], "steps": loads(row["steps"])},
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


# -- endpoints ----------------------------------------------------------------------------
@router.post("/pattern_detections")
def create_detection(
    body: PatternDetectionCreate, who: Auth, store: StoreDep, settings: SettingsDep
) -> dict[str, Any]:
    """Start a detection over a dataset; returns the run, ``pending`` with no steps."""
    with store.transaction() as conn:
        dataset_or_404(conn, who.account_id, body.dataset_id)
        latest = conn.execute(
            "SELECT mentions_count FROM dataset_runs WHERE dataset_id = ? AND status = 'completed'"
            " ORDER BY created_at DESC, id DESC LIMIT 1",
            (body.dataset_id,),
        ).fetchone()
        post_count = 0 if latest is None else latest["mentions_count"]
        run_id = new_id(conn, "pdr")
        reservation_id = wallet.reserve(
            conn,
            who.account_id,
            "post_processing",
            post_count,
            run_id,
            error_code="insufficient_credits_pattern_detection",
            top_up_url=settings.top_up_url,
        )
        now = store.clock.now()
        conn.execute(
            "INSERT INTO pattern_detection_runs (id, account_id, dataset_id, name,"
            " research_question, status, post_count, reservation_id, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)",
            (
                run_id,
                who.account_id,
                body.dataset_id,
                body.name,
                body.research_question,
                post_count,
                reservation_id,
                now,
                now,
            ),
        )
        schedule(
            conn,
            _ADVANCE,
            run_id,
            delay=store.clock.scaled(_QUEUE_SECONDS),
            account_id=who.account_id,
        )
        row = _run_or_404(conn, who.account_id, run_id)
    return ok(_run_wire(row))


@router.get("/pattern_detections/{run_id}")
def get_detection(run_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """A detection run; ``pattern_id`` once completed."""
    with store.read() as conn:
        return ok(_run_wire(_run_or_404(conn, who.account_id, run_id)))


@router.get("/patterns/{pattern_id}")
def get_pattern(pattern_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """A pattern: its summary and items, largest first."""
    with store.read() as conn:
        pattern = _pattern_or_404(conn, who.account_id, pattern_id)
        items = conn.execute(
            "SELECT * FROM pattern_items WHERE pattern_id = ? ORDER BY position", (pattern_id,)
        ).fetchall()
    return ok(
        Pattern.model_validate(
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
    )


@router.get("/patterns/{pattern_id}/items/{item_id}")
def get_pattern_item(pattern_id: str, item_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One item with its posts (most typical first) as post references."""
    with store.read() as conn:
        _pattern_or_404(conn, who.account_id, pattern_id)
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
    return ok(
        PatternItemDetail.model_validate(
            {
                **_item_wire(item),
                "posts": [
                    {"type": "post", "source": p["source"], "id": p["mention_id"]} for p in posts
                ],
            }
        ).to_wire()
    )


# -- the worker ---------------------------------------------------------------------------
def _advance(store: Store, job: Job) -> None:
    """One tick: pending -> sampling -> clustering -> summarizing -> completed (or failed)."""
    with store.read() as conn:
        run = conn.execute(
            "SELECT * FROM pattern_detection_runs WHERE id = ?", (job.ref_id,)
        ).fetchone()
        dataset = (
            conn.execute(
                "SELECT deleted_at FROM datasets WHERE id = ?", (run["dataset_id"],)
            ).fetchone()
            if run is not None
            else None
        )
    if run is None or run["status"] in ("completed", "failed"):
        return  # a job re-run after a restart: already done
    steps = loads(run["steps"])
    current = next((i for i, s in enumerate(steps) if s["status"] == "working"), None)
    if dataset is None or dataset["deleted_at"] is not None:
        with store.transaction() as conn:
            RUNS.fail(conn, run, "the dataset was deleted")
        return
    if current == 1 and FAIL_TOKEN in f"{run['name']} {run['research_question']}":
        with store.transaction() as conn:
            RUNS.fail(conn, run, "clustering failed")
        return
    if current is not None and chaos.of(store).take_failure("pattern_detection", STEPS[current]):
        with store.transaction() as conn:
            RUNS.fail(conn, run, f"{STEPS[current]} failed (sandbox chaos)")
        return
    if current == len(STEPS) - 1:
        _complete(store, run)
        return
    with store.transaction() as conn:
        now = int(store.clock.now())
        if current is None:
            steps = [
                {"name": name, "status": "pending", "started_at": None, "finished_at": None}
                for name in STEPS
            ]
        else:
            steps[current].update(status="completed", finished_at=now)
        nxt = 0 if current is None else current + 1
        steps[nxt].update(status="working", started_at=now)
        RUNS.set_state(conn, run["id"], "working", steps)
        schedule(conn, _ADVANCE, run["id"], delay=store.clock.scaled(_STEP_SECONDS))


def _complete(store: Store, run: sqlite3.Row) -> None:
    """Cluster (outside the write lock), then store the pattern, settle and complete at once."""
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
    items = detect_patterns(docs, run["research_question"])
    with store.transaction() as conn:
        fresh = conn.execute(
            "SELECT status, steps FROM pattern_detection_runs WHERE id = ?", (run["id"],)
        ).fetchone()
        if fresh["status"] != "working":
            return
        now = store.clock.now()
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
        steps = loads(fresh["steps"])
        steps[-1].update(status="completed", finished_at=int(now))
        RUNS.set_state(conn, run["id"], "completed", steps)
        conn.execute(
            "UPDATE pattern_detection_runs SET pattern_id = ? WHERE id = ?", (pattern_id, run["id"])
        )
        wallet.settle(conn, run["reservation_id"], len(docs))


JOBS = (JobKind(_ADVANCE, _advance, atomic=False, on_error=RUNS.crash_handler()),)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
