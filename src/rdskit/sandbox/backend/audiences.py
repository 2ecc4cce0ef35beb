"""Audience datasets, audience runs and audience profiles: state, SQL and rules.

The routes are :mod:`rdskit.sandbox.api.audiences`. An audience dataset is a named
container. A run profiles the people behind a source dataset: it reserves
``total_profile_count`` x the audience_profile price, then the worker moves it ``pending``
-> ``working`` -> ``completed`` (profiles written, actuals charged, the rest refunded) or
``failed`` (all refunded); the lifecycle is :class:`rdskit.sandbox.backend.runs.RunKind`'s.
It walks the source dataset's posts newest first, authors first, then commenters, skipping
people the audience dataset already holds, and stops at the target or when people run out.
One run per audience dataset may be in flight. Profiles outlive their source dataset (a
deleted dataset keeps its audiences). The tables are :data:`SCHEMA`.

**Failing on purpose:** an audience dataset whose name contains ``__fail__`` fails its runs
in the working step (full refund), so clients can exercise failure handling.

Example:
    >>> RUN.category, [step.name for step in RUN.steps]
    ('audience_profile', ['profiling'])
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rdskit.models.audiences import AudienceDataset, AudienceRun, AudienceRunCreate
from rdskit.models.profiles import AudienceProfile, ProfilesQuery
from rdskit.sandbox.backend.containers import Containers
from rdskit.sandbox.backend.datasets import FAIL_TOKEN, dataset_or_404
from rdskit.sandbox.backend.mention_query import fingerprint, keyset_page, page_limit
from rdskit.sandbox.backend.runs import ChildRuns, Done, Outcome, RunKind, RunTable, Step, failure
from rdskit.sandbox.errors import ApiError, invalid
from rdskit.sandbox.runtime import chaos
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.cursors import Sort
from rdskit.sandbox.store.db import Connection, Store, dumps, loads, new_id
from rdskit.sandbox.synth import corpus
from rdskit.sandbox.synth.profiles import Hints, synthesize

__all__ = [
    "AUDIENCE_DATASETS",
    "JOBS",
    "RUN",
    "RUN_READS",
    "SCHEMA",
    "audience_dataset_or_404",
    "list_profiles",
    "run_wire",
    "start_run",
]

PROFILE_SORTS = {
    "created_at": Sort("created_at", "p.created_at", "p.id"),
    "audience_dataset_run_at": Sort("audience_dataset_run_at", "p.run_at", "p.id"),
}
"""Sorts of ``POST /v1/audience_profiles`` (the two the spec names)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS audience_datasets (
    id         TEXT PRIMARY KEY,                -- ad_
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    deleted_at REAL                             -- soft delete
);
CREATE INDEX IF NOT EXISTS audience_datasets_list
    ON audience_datasets(account_id, deleted_at, created_at, id);

CREATE TABLE IF NOT EXISTS audience_runs (
    id                   TEXT PRIMARY KEY,      -- adr_
    audience_dataset_id  TEXT NOT NULL REFERENCES audience_datasets(id),
    account_id           TEXT NOT NULL REFERENCES accounts(id),
    source_dataset_id    TEXT NOT NULL REFERENCES datasets(id),
    status               TEXT NOT NULL,         -- pending | working | completed | failed
    target_profile_count INTEGER NOT NULL,
    profile_count        INTEGER NOT NULL DEFAULT 0,
    reservation_id       TEXT REFERENCES reservations(id),
    error                TEXT,
    created_at           REAL NOT NULL,
    updated_at           REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS audience_runs_list ON audience_runs(audience_dataset_id, created_at, id);
-- The database itself refuses a second in-flight run (the 409 rule).
CREATE UNIQUE INDEX IF NOT EXISTS audience_runs_in_flight
    ON audience_runs(audience_dataset_id) WHERE status IN ('pending', 'working');

CREATE TABLE IF NOT EXISTS audience_profiles (
    id                  TEXT PRIMARY KEY,       -- ap_
    account_id          TEXT NOT NULL REFERENCES accounts(id),
    audience_dataset_id TEXT NOT NULL REFERENCES audience_datasets(id),
    run_id              TEXT NOT NULL REFERENCES audience_runs(id),
    source              TEXT NOT NULL,
    username            TEXT NOT NULL,
    body                TEXT NOT NULL,          -- JSON: the profile without id/run_id/created_at
    creator_tier        TEXT NOT NULL,
    is_verified         INTEGER NOT NULL,
    created_at          REAL NOT NULL,          -- when the run wrote it
    run_at              REAL NOT NULL,          -- the run's created_at (audience_dataset_run_at)
    UNIQUE (audience_dataset_id, source, username)
);
CREATE INDEX IF NOT EXISTS audience_profiles_created
    ON audience_profiles(account_id, created_at, id);
CREATE INDEX IF NOT EXISTS audience_profiles_run_at ON audience_profiles(account_id, run_at, id);
"""


# --- audience datasets -------------------------------------------------------------------
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


AUDIENCE_DATASETS = Containers(
    "audience_datasets",
    "ad",
    "audience_dataset_not_found",
    "Audience dataset",
    wire=_audience_dataset_wire,
)
"""Audience datasets: a deleted one hides itself and its profiles from every read."""


def audience_dataset_or_404(
    conn: sqlite3.Connection, account_id: str, audience_dataset_id: str
) -> sqlite3.Row:
    """The account's live audience dataset, or 404 ``audience_dataset_not_found``."""
    return AUDIENCE_DATASETS.or_404(conn, account_id, audience_dataset_id)


# --- audience runs -----------------------------------------------------------------------
def run_wire(row: sqlite3.Row) -> dict[str, Any]:
    """An audience run row as the ``AudienceRun`` wire dict."""
    return AudienceRun.model_validate(
        {
            "id": row["id"],
            "audience_dataset_id": row["audience_dataset_id"],
            "source_dataset_id": row["source_dataset_id"],
            "status": {"type": row["status"], **failure(row)},
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "profile_count": row["profile_count"],
            "target_profile_count": row["target_profile_count"],
        }
    ).to_wire()


def start_run(
    conn: Connection,
    settings: Settings,
    account_id: str,
    audience_dataset_id: str,
    body: AudienceRunCreate,
) -> dict[str, Any]:
    """Accept a run (``pending``, ``total_profile_count`` profiles reserved); its wire dict.

    Raises 404 for either dataset, 400 ``source_dataset_has_no_completed_run``, 409
    ``audience_dataset_run_already_in_flight`` or 402 (nothing written).
    """
    audience_dataset_or_404(conn, account_id, audience_dataset_id)
    dataset_or_404(conn, account_id, body.source_dataset_id)
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
    run = RUN.accept(
        conn,
        account_id,
        {
            "audience_dataset_id": audience_dataset_id,
            "source_dataset_id": body.source_dataset_id,
            "target_profile_count": body.total_profile_count,
        },
        quantity=body.total_profile_count,  # the price: one profile each
        error_code="insufficient_credits_audience_dataset_run",
        top_up_url=settings.top_up_url,
    )
    return AudienceRun.model_validate(
        {
            "id": run["id"],
            "audience_dataset_id": audience_dataset_id,
            "source_dataset_id": body.source_dataset_id,
            "created_at": run["created_at"],
            "status": {"type": "pending"},
        }
    ).to_wire()


# --- the run's checks, work and result ---------------------------------------------------
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


def _check(conn: Connection, run: sqlite3.Row, step: str | None) -> str | None:
    """Why profiling fails as it ends: ``__fail__`` in the audience dataset's name, or chaos."""
    if step is None:
        return None
    name = conn.execute(
        "SELECT name FROM audience_datasets WHERE id = ?", (run["audience_dataset_id"],)
    ).fetchone()["name"]
    if FAIL_TOKEN in name:
        return "profiling failed on purpose (__fail__ in the audience dataset name)"
    if chaos.of(conn.store).take_failure("audience_run", "profiling"):
        return "profiling failed (sandbox chaos)"
    return None


_Profiles = list[tuple[_Person, dict[str, Any]]]


def _work(store: Store, run: sqlite3.Row) -> _Profiles:
    """The people not yet in the audience dataset, up to the target, profiled."""
    with store.read() as conn:
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
    return [(who, synthesize(store.seed, who.source, who.username, who.hints)) for who in found]


def _finish(conn: Connection, run: sqlite3.Row, profiles: _Profiles) -> Outcome:
    """Store the profiles; charge one each."""
    now = conn.store.clock.now()
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
    RUN.table.update(conn, run["id"], profile_count=len(profiles))
    return Done(len(profiles))


RUN: RunKind[_Profiles] = RunKind(
    "audience_run",
    RunTable("audience_runs", live=("pending", "working")),
    id_prefix="adr",
    job="audience_run.advance",
    steps=(Step("profiling", 4.0),),  # simulated seconds (divided by --speed); queued 1 s
    check=_check,
    work=_work,
    finish=_finish,
)
"""Audience runs: the shared run state machine with their checks, work and price."""
JOBS = (RUN.job_kind,)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
RUN_READS = ChildRuns(
    RUN.table.table,
    "audience_dataset_id",
    "audience_dataset_not_found",
    parent_or_404=audience_dataset_or_404,
    wire=run_wire,
)
"""An audience dataset's runs as ``GET .../runs`` and ``GET .../runs/{run_id}`` read them."""


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


def list_profiles(
    conn: Connection, account_id: str, body: ProfilesQuery
) -> tuple[list[dict[str, Any]], bool, str | None]:
    """Profiles of the account's (or the given) audience datasets: ``(items, has_next, cursor)``."""
    groups = body.filters or []
    sort_name = body.sort or "created_at"
    if sort_name not in PROFILE_SORTS:
        raise invalid(("sort",), f"sort must be one of {', '.join(PROFILE_SORTS)}")
    sort = PROFILE_SORTS[sort_name]
    if body.audience_dataset_ids:
        ids = list(dict.fromkeys(body.audience_dataset_ids))
        for audience_dataset_id in ids:
            audience_dataset_or_404(conn, account_id, audience_dataset_id)
    else:
        ids = [
            r["id"]
            for r in conn.execute(
                "SELECT id FROM audience_datasets WHERE account_id = ? AND deleted_at IS NULL",
                (account_id,),
            )
        ]
    where_groups, params = _profile_groups(groups)
    marks = ", ".join("?" * len(ids))
    got = keyset_page(
        conn,
        source="audience_profiles p",
        where=f"p.account_id = ? AND p.audience_dataset_id IN ({marks}) AND ({where_groups})",
        params=[account_id, *ids, *params],
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
    return items, got.has_next, got.cursor
