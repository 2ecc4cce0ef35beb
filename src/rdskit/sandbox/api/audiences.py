"""Audience datasets, audience runs and audience profiles: ``/v1/audience_*``.

An audience dataset is a named container. A run profiles the people behind a source
dataset: it reserves ``total_profile_count`` x the audience_profile price, then the worker
moves it ``pending`` -> ``working`` -> ``completed`` (profiles written, actuals charged, the
rest refunded) or ``failed`` (all refunded). It walks the source dataset's posts newest
first, authors first, then commenters, skipping people the audience dataset already holds,
and stops at the target or when people run out. One run per audience dataset may be in
flight. Profiles outlive their source dataset (a deleted dataset keeps its audiences).

**Failing on purpose:** an audience dataset whose name contains ``__fail__`` fails its runs
in the working step (full refund), so clients can exercise failure handling.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter

from rdskit.models.audiences import (
    AudienceDataset,
    AudienceDatasetCreate,
    AudienceDatasetUpdate,
    AudienceRun,
    AudienceRunCreate,
)
from rdskit.models.profiles import AudienceProfile, ProfilesQuery
from rdskit.sandbox import chaos, wallet
from rdskit.sandbox.api._common import (
    ApiError,
    Auth,
    SettingsDep,
    StoreDep,
    invalid,
    ok,
    page,
    row_or_404,
)
from rdskit.sandbox.api._containers import add_container_routes
from rdskit.sandbox.api._runs import add_run_reads
from rdskit.sandbox.api.datasets import FAIL_TOKEN, dataset_or_404
from rdskit.sandbox.backend.mention_query import fingerprint, keyset_page, page_limit
from rdskit.sandbox.backend.runs import RunTable
from rdskit.sandbox.cursors import Sort
from rdskit.sandbox.db import Connection, Store, dumps, loads, new_id
from rdskit.sandbox.profiles import Hints, synthesize
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.text import corpus
from rdskit.sandbox.worker import Job, JobKind, schedule

__all__ = ["JOBS", "audience_dataset_or_404", "router"]

router = APIRouter(prefix="/v1", tags=["audiences"])


# Simulated seconds queued and working (divided by --speed).
QUEUE_SECONDS = 1.0
WORK_SECONDS = 4.0
_ADVANCE = "audience_run.advance"
PROFILE_SORTS = {
    "created_at": Sort("created_at", "p.created_at", "p.id"),
    "audience_dataset_run_at": Sort("audience_dataset_run_at", "p.run_at", "p.id"),
}
"""Sorts of ``POST /v1/audience_profiles`` (the two the spec names)."""


# --- audience datasets -------------------------------------------------------------------


def audience_dataset_or_404(
    conn: sqlite3.Connection, account_id: str, audience_dataset_id: str
) -> sqlite3.Row:
    """The account's live audience dataset, or 404 ``audience_dataset_not_found``."""
    return row_or_404(
        conn,
        "audience_datasets",
        "audience_dataset_not_found",
        f"Audience dataset {audience_dataset_id} not found",
        live=True,
        id=audience_dataset_id,
        account_id=account_id,
    )


def _audience_dataset_wire(
    conn: sqlite3.Connection, row: sqlite3.Row, _settings: Settings
) -> dict[str, Any]:
    (count,) = conn.execute(
        "SELECT COUNT(*) FROM audience_profiles WHERE audience_dataset_id = ?", (row["id"],)
    ).fetchone()
    return AudienceDataset.model_validate(
        {
            "id": row["id"],
            "name": row["name"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "profile_count": count,
        }
    ).to_wire()


# POST/GET /v1/audience_datasets and GET/PATCH/DELETE /v1/audience_datasets/{id}. DELETE
# (an empty body, as the spec shows) hides the dataset and its profiles from every read.
add_container_routes(
    router,
    "audience_datasets",
    table="audience_datasets",
    id_prefix="ad",
    model=AudienceDataset,
    create=AudienceDatasetCreate,
    update=AudienceDatasetUpdate,
    or_404=audience_dataset_or_404,
    wire=_audience_dataset_wire,
    deleted=lambda _audience_dataset_id: None,
)


# --- audience runs -----------------------------------------------------------------------


def _run_wire(row: sqlite3.Row) -> dict[str, Any]:
    return AudienceRun.model_validate(
        {
            "id": row["id"],
            "audience_dataset_id": row["audience_dataset_id"],
            "source_dataset_id": row["source_dataset_id"],
            "status": {"type": row["status"]},
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "profile_count": row["profile_count"],
            "target_profile_count": row["target_profile_count"],
        }
    ).to_wire()


@router.post("/audience_datasets/{audience_dataset_id}/runs")
def start_audience_run(
    audience_dataset_id: str,
    body: AudienceRunCreate,
    who: Auth,
    store: StoreDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Start profiling a dataset's people; returns at once with ``status.type == "pending"``."""
    with store.transaction() as conn:
        audience_dataset_or_404(conn, who.account_id, audience_dataset_id)
        dataset_or_404(conn, who.account_id, body.source_dataset_id)
        completed = conn.execute(
            "SELECT 1 FROM dataset_runs WHERE dataset_id = ? AND status = 'completed' LIMIT 1",
            (body.source_dataset_id,),
        ).fetchone()
        if completed is None:
            raise ApiError(
                400,
                "source_dataset_has_no_completed_run",
                f"Dataset {body.source_dataset_id} has no completed run to read people from.",
            )
        busy = conn.execute(
            "SELECT id FROM audience_runs WHERE audience_dataset_id = ?"
            " AND status IN ('pending', 'working')",
            (audience_dataset_id,),
        ).fetchone()
        if busy is not None:
            raise ApiError(
                409,
                "audience_dataset_run_already_in_flight",
                f"Run {busy['id']} of audience dataset {audience_dataset_id} is still in flight.",
            )
        run_id = new_id(conn, "adr")
        target = body.total_profile_count
        reservation_id = wallet.reserve(
            conn,
            who.account_id,
            "audience_profile",
            target,
            run_id,
            error_code="insufficient_credits_audience_dataset_run",
            top_up_url=settings.top_up_url,
        )
        now = store.clock.now()
        conn.execute(
            "INSERT INTO audience_runs (id, audience_dataset_id, account_id, source_dataset_id,"
            " status, target_profile_count, reservation_id, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?)",
            (
                run_id,
                audience_dataset_id,
                who.account_id,
                body.source_dataset_id,
                target,
                reservation_id,
                now,
                now,
            ),
        )
        schedule(
            conn,
            _ADVANCE,
            run_id,
            delay=store.clock.scaled(QUEUE_SECONDS),
            account_id=who.account_id,
        )
    return ok(
        AudienceRun.model_validate(
            {
                "id": run_id,
                "audience_dataset_id": audience_dataset_id,
                "source_dataset_id": body.source_dataset_id,
                "created_at": now,
                "status": {"type": "pending"},
            }
        ).to_wire()
    )


# GET /v1/audience_datasets/{id}/runs and /v1/audience_datasets/{id}/runs/{run_id}.
add_run_reads(
    router,
    "audience_datasets",
    parent_or_404=audience_dataset_or_404,
    source="audience_runs",
    parent="audience_dataset_id",
    missing="audience_dataset_not_found",
    wire=_run_wire,
)


# --- the run (worker jobs) ---------------------------------------------------------------


@dataclass(frozen=True)
class _Person:
    """Someone found in the source dataset, with what their posts say about them."""

    source: str
    username: str
    hints: Hints


def _people(conn: sqlite3.Connection, account_id: str, dataset_id: str) -> Iterator[_Person]:
    """The dataset's authors, then its commenters, newest post first, each person once."""
    query = (
        "SELECT m.source, m.language, m.country_code, json_extract(m.body, '$.author') AS author,"
        " json_extract(m.body, '$.category') AS category, json_extract(m.body, '$.title') AS title,"
        " json_extract(m.body, '$.text') AS text, json_extract(m.body, '$.comments') AS comments"
        " FROM dataset_mentions dm JOIN mentions m"
        " ON m.account_id = ? AND m.source = dm.source AND m.id = dm.id"
        " WHERE dm.dataset_id = ? ORDER BY m.created_at DESC, m.source, m.id"
    )
    seen: set[tuple[str, str]] = set()
    for commenters in (False, True):
        for row in conn.execute(query, (account_id, dataset_id)):
            for username, name in _people_of(row, commenters):
                if (row["source"], username) in seen:
                    continue
                seen.add((row["source"], username))
                category = (
                    row["category"]
                    or corpus.category_of(f"{row['title'] or ''} {row['text'] or ''}").name
                )
                hints = Hints(name, category, row["language"], row["country_code"], commenters)
                yield _Person(row["source"], username, hints)


def _people_of(row: sqlite3.Row, commenters: bool) -> list[tuple[str, str | None]]:
    """``(username, display name)`` of a post's author, or of its commenters."""
    if commenters:
        return [
            (c["author_username"], c.get("author_name"))
            for c in loads(row["comments"]) or []
            if c.get("author_username")
        ]
    author = loads(row["author"]) or {}
    parsed = corpus.parse_profile_url(author.get("title_url") or "")
    return [(parsed[2], author.get("title"))] if parsed and parsed[1] == "profile" else []


def _advance(store: Store, job: Job) -> None:
    """pending -> working; working -> profiles written, charged, completed (or failed)."""
    with store.read() as conn:
        run = conn.execute("SELECT * FROM audience_runs WHERE id = ?", (job.ref_id,)).fetchone()
    if run is None or run["status"] in ("completed", "failed"):
        return  # re-run after a restart: already done
    if run["status"] == "pending":
        with store.transaction() as conn:
            _set_status(conn, run["id"], "working", expected="pending")
            schedule(conn, _ADVANCE, run["id"], delay=store.clock.scaled(WORK_SECONDS))
        return
    _complete(store, run)


def _set_status(conn: Connection, run_id: str, status: str, *, expected: str) -> bool:
    return bool(
        conn.execute(
            "UPDATE audience_runs SET status = ?, updated_at = ? WHERE id = ? AND status = ?",
            (status, conn.store.clock.now(), run_id, expected),
        ).rowcount
    )


def _complete(store: Store, run: sqlite3.Row) -> None:
    """Synthesise the profiles outside the write lock, then store and settle at once."""
    with store.read() as conn:
        name = conn.execute(
            "SELECT name FROM audience_datasets WHERE id = ?", (run["audience_dataset_id"],)
        ).fetchone()["name"]
        if FAIL_TOKEN in name:
            raise RuntimeError(
                "profiling failed on purpose (__fail__ in the audience dataset name)"
            )
        if chaos.of(store).take_failure("audience_run", "profiling"):
            raise RuntimeError("profiling failed (sandbox chaos)")  # on_error refunds it all
        known = {
            (r["source"], r["username"])
            for r in conn.execute(
                "SELECT source, username FROM audience_profiles WHERE audience_dataset_id = ?",
                (run["audience_dataset_id"],),
            )
        }
        found: list[_Person] = []
        for who in _people(conn, run["account_id"], run["source_dataset_id"]):
            if (who.source, who.username) not in known:
                found.append(who)
                if len(found) >= run["target_profile_count"]:
                    break
    profiles = [(who, synthesize(store.seed, who.source, who.username, who.hints)) for who in found]
    with store.transaction() as conn:
        if not _set_status(conn, run["id"], "completed", expected="working"):
            return
        now = store.clock.now()
        for who, body in profiles:
            conn.execute(
                "INSERT INTO audience_profiles (id, account_id, audience_dataset_id, run_id,"
                " source, username, body, creator_tier, is_verified, created_at, run_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    new_id(conn, "ap"),
                    run["account_id"],
                    run["audience_dataset_id"],
                    run["id"],
                    who.source,
                    who.username,
                    dumps(body),
                    body["creator_tier"],
                    int(body["is_verified"]),
                    now,
                    run["created_at"],
                ),
            )
        conn.execute(
            "UPDATE audience_runs SET profile_count = ?, updated_at = ? WHERE id = ?",
            (len(profiles), now, run["id"]),
        )
        wallet.settle(conn, run["reservation_id"], len(profiles))


RUNS = RunTable("audience_runs", live=("pending", "working"))
"""Audience runs: the shared run lifecycle (fail, refund, crash) over their table."""


# --- audience profiles -------------------------------------------------------------------


def _profile_filter(filt: dict[str, Any]) -> tuple[str, list[Any]]:
    kind = filt.get("type")
    if kind == "creator_tier":
        values = [str(v).lower() for v in filt.get("values") or []]
        return f"p.creator_tier IN ({', '.join('?' * len(values))})", values
    if kind == "is_verified":
        return "p.is_verified = ?", [int(bool(filt["value"]))]
    raise invalid(("filters",), f"unsupported profile filter {kind!r} (creator_tier, is_verified)")


def _profile_groups(groups: Sequence[Sequence[dict[str, Any]]]) -> tuple[str, list[Any]]:
    ors, params = [], []
    for group in groups:
        parts = [_profile_filter(f) for f in group]
        if parts:
            ors.append("(" + " AND ".join(sql for sql, _ in parts) + ")")
            params += [v for _, values in parts for v in values]
    return (" OR ".join(ors) if ors else "1"), params


@router.post("/audience_profiles")
def list_audience_profiles(body: ProfilesQuery, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Profiles of the account's (or the given) audience datasets; free."""
    groups = body.filters or []
    sort_name = body.sort or "created_at"
    if sort_name not in PROFILE_SORTS:
        raise invalid(("sort",), f"sort must be one of {', '.join(PROFILE_SORTS)}")
    sort = PROFILE_SORTS[sort_name]
    with store.read() as conn:
        if body.audience_dataset_ids:
            ids = list(dict.fromkeys(body.audience_dataset_ids))
            for audience_dataset_id in ids:
                audience_dataset_or_404(conn, who.account_id, audience_dataset_id)
        else:
            ids = [
                r["id"]
                for r in conn.execute(
                    "SELECT id FROM audience_datasets WHERE account_id = ? AND deleted_at IS NULL",
                    (who.account_id,),
                )
            ]
        where_groups, params = _profile_groups(groups)
        marks = ", ".join("?" * len(ids))
        got = keyset_page(
            conn,
            source="audience_profiles p",
            where=f"p.account_id = ? AND p.audience_dataset_id IN ({marks}) AND ({where_groups})",
            params=[who.account_id, *ids, *params],
            sort=sort,
            order=body.order or "desc",
            limit=page_limit(body.limit),
            cursor=body.cursor,
            scope=fingerprint(sorted(ids), groups),
        )
    items = [
        AudienceProfile.model_validate(
            {
                **loads(row["body"]),
                "id": row["id"],
                "run_id": row["run_id"],
                "created_at": row["created_at"],
            }
        ).to_wire()
        for row in got.rows
    ]
    return page(items, has_next=got.has_next, cursor=got.cursor)


JOBS = (JobKind(_ADVANCE, _advance, atomic=False, on_error=RUNS.crash_handler(str)),)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
