"""Datasets and dataset runs: ``/v1/datasets...``.

A run is accepted as ``pending`` with the mention price x ``count`` reserved, then the
worker walks it through ``working`` (steps scraping -> enrichment -> analysis) to
``completed`` (mentions written, actuals charged, the rest refunded) or ``failed`` (all
refunded; also when the dataset is deleted while the run is in flight). Mentions
accumulate per dataset and dedupe on ``(source, id)``.

Other modules reuse :func:`dataset_or_404` and :func:`start_run` (tracking cycles).
"""

from __future__ import annotations

import sqlite3
import zlib
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from fastapi import APIRouter

from rdskit.models import Dataset, DatasetCreate, DatasetRun, DatasetRunCreate, DatasetUpdate
from rdskit.models._base import parse_datetime, to_iso
from rdskit.sandbox import budget, chaos, guard, wallet
from rdskit.sandbox.accounts import plan_of
from rdskit.sandbox.api._common import (
    ApiError,
    Auth,
    SettingsDep,
    StoreDep,
    invalid,
    ok,
    row_or_404,
)
from rdskit.sandbox.api._containers import add_container_routes
from rdskit.sandbox.api._runs import add_run_reads
from rdskit.sandbox.backend.runs import RunTable
from rdskit.sandbox.db import Connection, Store, dumps, loads, new_id
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.text import corpus
from rdskit.sandbox.text.corpus import SOURCES
from rdskit.sandbox.worker import Job, JobKind, schedule

__all__ = [
    "FAIL_TOKEN",
    "JOBS",
    "collect_mentions",
    "dataset_or_404",
    "merged_comments",
    "router",
    "seed_mentions",
    "start_run",
]

router = APIRouter(prefix="/v1", tags=["datasets"])

FAIL_TOKEN = "__fail__"
"""A search query (or source URL) containing this fails the run in its scraping step."""

DEFAULT_COUNT = 100
PROMPT_WINDOW = timedelta(days=365)
STEPS = ("scraping", "enrichment", "analysis")
PARAM_KEYS = (
    "content_analysis_actions",
    "count",
    "country_code",
    "date_range",
    "enable_transcribing",
    "enable_visual_recognition",
    "language",
    "num_comments_per_post",
    "search_query",
)
# Simulated seconds spent queued and in each step (divided by --speed).
QUEUE_SECONDS = 1.0
STEP_SECONDS = {"scraping": 3.0, "enrichment": 2.0, "analysis": 1.0}
RUNS = RunTable("dataset_runs", live=("pending", "working"), steps=True)
"""Dataset runs: the shared run lifecycle (fail, refund, crash) over their table."""
_ADVANCE = "dataset_run.advance"


# -- reads ------------------------------------------------------------------------
def dataset_or_404(conn: sqlite3.Connection, account_id: str, dataset_id: str) -> sqlite3.Row:
    """The account's live (not deleted) dataset row, or 404 ``dataset_not_found``."""
    return row_or_404(
        conn,
        "datasets",
        "dataset_not_found",
        f"Dataset {dataset_id} not found",
        live=True,
        id=dataset_id,
        account_id=account_id,
    )


def _dataset_wire(conn: sqlite3.Connection, row: sqlite3.Row, settings: Settings) -> dict[str, Any]:
    counts = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(m.images_count), 0), COALESCE(SUM(m.videos_count), 0)"
        " FROM dataset_mentions dm JOIN mentions m"
        " ON m.account_id = ? AND m.source = dm.source AND m.id = dm.id"
        " WHERE dm.dataset_id = ?",
        (row["account_id"], row["id"]),
    ).fetchone()
    return Dataset.model_validate(
        {
            "id": row["id"],
            "name": row["name"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "mentions_count": counts[0],
            "images_count": counts[1],
            "videos_count": counts[2],
            "url": f"{settings.app_url}/datasets/{row['id']}",
        }
    ).to_wire()


def _steps_wire(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": step["name"],
            "status": step["status"],
            "started_at": None if step["started_at"] is None else to_iso(_dt(step["started_at"])),
            "finished_at": None
            if step["finished_at"] is None
            else to_iso(_dt(step["finished_at"])),
        }
        for step in steps
    ]


def _dt(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def _run_wire(row: sqlite3.Row) -> dict[str, Any]:
    return DatasetRun.model_validate(
        {
            "id": row["id"],
            "dataset_id": row["dataset_id"],
            "status": {"type": row["status"], "steps": _steps_wire(loads(row["steps"]))},
            "count": row["count"],
            "requested_count": row["requested_count"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "mentions_count": row["mentions_count"],
            "images_count": row["images_count"],
            "videos_count": row["videos_count"],
            "new_mentions_count": row["new_mentions_count"],
            "params": loads(row["params"]),
        }
    ).to_wire()


# -- dataset endpoints ------------------------------------------------------------
# POST/GET /v1/datasets and GET/PATCH/DELETE /v1/datasets/{dataset_id}. DELETE hides the
# dataset everywhere but keeps it for the audience datasets built from it.
add_container_routes(
    router,
    "datasets",
    table="datasets",
    id_prefix="ds",
    model=Dataset,
    create=DatasetCreate,
    update=DatasetUpdate,
    or_404=dataset_or_404,
    wire=_dataset_wire,
    deleted=lambda dataset_id: {"id": dataset_id, "deleted": True},
)


# -- run endpoints ----------------------------------------------------------------
def _window(request: dict[str, Any], now: float) -> tuple[datetime | None, datetime | None]:
    """The collection window: explicit range, else the past 365 days; none for url search."""
    if request["search_query"]["type"] == "url":
        return None, None
    date_range = request.get("date_range")
    if date_range:
        start = datetime.combine(date.fromisoformat(date_range["from"]), time.min, tzinfo=UTC)
        end = datetime.combine(date.fromisoformat(date_range["to"]), time.max, tzinfo=UTC)
        return start, end
    end = _dt(now)
    return end - PROMPT_WINDOW, end


def start_run(
    conn: Connection,
    settings: Settings,
    account_id: str,
    dataset_id: str,
    request: DatasetRunCreate,
    *,
    error_code: str = "insufficient_credits_dataset_run",
) -> sqlite3.Row:
    """Accept a run: validate against the plan, reserve, insert ``pending``, schedule.

    Raises 404 ``dataset_not_found``, 422 for a source outside the five, 400
    ``date_filter_unavailable`` / ``collection_content_type_mismatch``, or 402
    ``error_code`` (nothing written).
    """
    dataset = dataset_or_404(conn, account_id, dataset_id)
    # The echo: what was sent, with every documented key present (null when not sent).
    params = dict.fromkeys(PARAM_KEYS) | request.to_wire()
    search_query = params["search_query"]
    for index, reason in guard.url_problems(search_query.get("source_urls") or []):
        raise invalid(("search_query", "source_urls", str(index)), f"source_urls[{index}] {reason}")
    unknown = [s for s in search_query.get("sources") or [] if s not in SOURCES]
    if unknown:
        raise invalid(
            ("search_query", "sources"),
            f"unknown sources {', '.join(map(repr, unknown))}; one of {', '.join(SOURCES)}",
        )
    plan = plan_of(conn, account_id)
    explicit_range = params.get("date_range") and search_query["type"] == "prompt"
    if explicit_range and not plan["features"].get("custom_date_filter"):
        raise ApiError(
            400,
            "date_filter_unavailable",
            f"Custom date ranges are not on the {plan['name']} plan.",
        )
    content_type = search_query.get("content_type") or "organic"
    if dataset["content_type"] not in (None, content_type):
        raise ApiError(
            400,
            "collection_content_type_mismatch",
            f"Dataset {dataset_id} collects {dataset['content_type']} content, not {content_type}.",
        )
    requested = params.get("count") or DEFAULT_COUNT
    depth = plan["limits"]["max_research_depth"]
    count = min(requested, depth) if depth > 0 else requested
    params["count"] = requested
    run_id = new_id(conn, "dsr")
    reservation_id = wallet.reserve(
        conn,
        account_id,
        "mention",
        count,
        run_id,
        error_code=error_code,
        top_up_url=settings.top_up_url,
    )
    (ordinal,) = conn.execute(
        "SELECT COUNT(*) + 1 FROM dataset_runs WHERE dataset_id = ?", (dataset_id,)
    ).fetchone()
    now = conn.store.clock.now()
    steps = [
        {"name": name, "status": "pending", "started_at": None, "finished_at": None}
        for name in STEPS
    ]
    conn.execute(
        "INSERT INTO dataset_runs (id, dataset_id, account_id, ordinal, params, count,"
        " requested_count, status, steps, reservation_id, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)",
        (
            run_id,
            dataset_id,
            account_id,
            ordinal,
            dumps(params),
            count,
            requested,
            dumps(steps),
            reservation_id,
            now,
            now,
        ),
    )
    conn.execute(
        "UPDATE datasets SET content_type = ? WHERE id = ? AND content_type IS NULL",
        (content_type, dataset_id),
    )
    schedule(
        conn,
        _ADVANCE,
        run_id,
        delay=conn.store.clock.scaled(QUEUE_SECONDS),
        account_id=account_id,
    )
    return conn.execute("SELECT * FROM dataset_runs WHERE id = ?", (run_id,)).fetchone()


@router.post("/datasets/{dataset_id}/runs")
def create_run(
    dataset_id: str, body: DatasetRunCreate, who: Auth, store: StoreDep, settings: SettingsDep
) -> dict[str, Any]:
    """Start a collection run; returns at once with ``status.type == "pending"``."""
    with store.transaction() as conn:
        row = start_run(conn, settings, who.account_id, dataset_id, body)
    return ok(
        DatasetRun.model_validate(
            {
                "id": row["id"],
                "dataset_id": row["dataset_id"],
                "count": row["count"],
                "requested_count": row["requested_count"],
                "created_at": row["created_at"],
                "status": {"type": "pending"},
            }
        ).to_wire()
    )


# GET /v1/datasets/{dataset_id}/runs and /v1/datasets/{dataset_id}/runs/{run_id}.
add_run_reads(
    router,
    "datasets",
    parent_or_404=dataset_or_404,
    source="dataset_runs",
    parent="dataset_id",
    missing="dataset_not_found",
    wire=_run_wire,
)


# -- the state machine (worker jobs) ----------------------------------------------
def collect_mentions(
    seed: int,
    params: dict[str, Any],
    *,
    ordinal: int,
    window: tuple[datetime | None, datetime | None],
) -> list[dict[str, Any]]:
    """The run's mentions: synthetic corpus posts, enriched with the requested analyses."""
    from rdskit.sandbox.text import enrichment

    posts = corpus.collect(
        seed,
        params["search_query"],
        params["count"],
        window[0],
        window[1],
        params.get("num_comments_per_post") or 0,
        params.get("language"),
        params.get("country_code"),
        ordinal,
    )
    actions = params.get("content_analysis_actions") or []
    # One post is collected (and charged) once per run, even if the corpus repeats it.
    unique = {(post["source"], post["id"]): post for post in posts}
    transcribe = bool(params.get("enable_transcribing"))
    enriched = []
    for post in unique.values():
        budget.check()  # a job over its CPU budget fails (refunded) instead of blocking
        out = enrichment.enrich(post, actions)
        if transcribe:
            out["speech_tempo"] = enrichment.speech_tempo(out)
        enriched.append(out)
    return enriched


def _should_fail(search_query: dict[str, Any]) -> bool:
    texts = [search_query.get("search_query") or "", *(search_query.get("source_urls") or [])]
    return any(FAIL_TOKEN in text for text in texts)


def _run_sources(search_query: dict[str, Any]) -> list[str]:
    """The sources a run searches (a URL search: the sources of its URLs)."""
    if search_query.get("type") == "url":
        parsed = (corpus.parse_profile_url(url) for url in search_query.get("source_urls") or [])
        return list(dict.fromkeys(p[0] for p in parsed if p is not None))
    return list(search_query.get("sources") or [])


def _chaos_failure(store: Store, run_id: str, step: str) -> str | None:
    """Why chaos fails the run at the end of ``step`` (an unavailable source fails
    ``scraping``; a planned failure its step), or None."""
    state = chaos.of(store)
    if step == "scraping":
        with store.read() as conn:
            row = conn.execute("SELECT params FROM dataset_runs WHERE id = ?", (run_id,))
            params = row.fetchone()
        down = state.unavailable_among(_run_sources(loads(params[0])["search_query"]))
        if down:
            return f"source_unavailable: {', '.join(down)} could not be searched"
    if state.take_failure("dataset_run", step):
        return f"{step} failed (sandbox chaos)"
    return None


def _working_step(run: sqlite3.Row) -> int | None:
    """Index of the step in progress; ``None`` while pending."""
    steps = loads(run["steps"])
    return next((i for i, step in enumerate(steps) if step["status"] == "working"), None)


def _run_at(conn: Connection, run_id: str, step: int | None) -> sqlite3.Row | None:
    """The run if it is still live at ``step`` (so a tick re-run after a restart is a no-op)."""
    run = conn.execute("SELECT * FROM dataset_runs WHERE id = ?", (run_id,)).fetchone()
    if run is None or run["status"] in ("completed", "failed") or _working_step(run) != step:
        return None
    return run


def _dataset_deleted(conn: Connection, run: sqlite3.Row) -> bool:
    """Whether the run's dataset was deleted since the run was accepted."""
    row = conn.execute("SELECT deleted_at FROM datasets WHERE id = ?", (run["dataset_id"],))
    return row.fetchone()["deleted_at"] is not None


def _advance(store: Store, job: Job) -> None:
    """One tick: pending -> scraping -> enrichment -> analysis -> completed (or failed).

    ``job.payload["step"]`` is the step this tick ends (absent: the run is pending).
    """
    step: int | None = job.payload.get("step")
    failure = None if step is None else _chaos_failure(store, job.ref_id, STEPS[step])
    if failure is not None:
        with store.transaction() as conn:
            run = _run_at(conn, job.ref_id, step)
            if run is not None:
                RUNS.fail(conn, run, failure)
        return
    if step == len(STEPS) - 1:
        _complete(store, job.ref_id)
        return
    with store.transaction() as conn:
        run = _run_at(conn, job.ref_id, step)
        if run is None:
            return
        if _dataset_deleted(conn, run):
            RUNS.fail(conn, run, "the dataset was deleted")  # nothing collected into a bin
            return
        if step == 0 and _should_fail(loads(run["params"])["search_query"]):
            RUNS.fail(conn, run, "scraping failed: the source could not be searched")
            return
        now = store.clock.now()
        steps = loads(run["steps"])
        if step is not None:
            steps[step].update(status="completed", finished_at=now)
        nxt = 0 if step is None else step + 1
        steps[nxt].update(status="working", started_at=now)
        RUNS.set_state(conn, run["id"], "working", steps)
        delay = store.clock.scaled(STEP_SECONDS[STEPS[nxt]])
        schedule(conn, _ADVANCE, run["id"], delay=delay, payload={"step": nxt})


def _complete(store: Store, run_id: str) -> None:
    """Generate (outside the write lock), then store mentions, settle and complete at once."""
    last = len(STEPS) - 1
    with store.read() as conn:
        run = _run_at(conn, run_id, last)
    if run is None:
        return
    params = loads(run["params"])
    mentions = collect_mentions(
        store.seed,
        {**params, "count": run["count"]},
        ordinal=run["ordinal"],
        window=_window(params, run["created_at"]),
    )
    with store.transaction() as conn:
        if _run_at(conn, run_id, last) is None:
            return
        if _dataset_deleted(conn, run):
            RUNS.fail(conn, run, "the dataset was deleted")
            return
        now = store.clock.now()
        new, images, videos = _store_mentions(conn, run, mentions, now)
        steps = loads(run["steps"])
        steps[last].update(status="completed", finished_at=now)
        RUNS.set_state(conn, run["id"], "completed", steps)
        conn.execute(
            "UPDATE dataset_runs SET mentions_count = ?, new_mentions_count = ?,"
            " images_count = ?, videos_count = ? WHERE id = ?",
            (len(mentions), new, images, videos, run["id"]),
        )
        wallet.settle(conn, run["reservation_id"], len(mentions))


def _media_counts(mention: dict[str, Any]) -> tuple[int, int]:
    kinds = [item.get("type") for item in mention.get("media") or []]
    return kinds.count("image"), kinds.count("video")


def _number(value: Any) -> float | None:
    return None if value in (None, "") else float(value)


_UPSERT_MENTION = (
    "INSERT INTO mentions (account_id, source, id, body, created_at, language, country_code,"
    " content_type, num_views, num_likes, num_comments, num_shares, engagement_rate,"
    " sentiment_score, images_count, videos_count, first_seen_at, updated_at, first_num_views,"
    " first_num_likes, first_num_comments, first_engagement_rate)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (account_id, source, id) DO UPDATE SET body = excluded.body,"
    " created_at = excluded.created_at, language = excluded.language,"
    " country_code = excluded.country_code, content_type = excluded.content_type,"
    " num_views = excluded.num_views, num_likes = excluded.num_likes,"
    " num_comments = excluded.num_comments, num_shares = excluded.num_shares,"
    " engagement_rate = excluded.engagement_rate, sentiment_score = excluded.sentiment_score,"
    " images_count = excluded.images_count, videos_count = excluded.videos_count,"
    " updated_at = excluded.updated_at"
)
_FIRST_METRICS = ("num_views", "num_likes", "num_comments")
_METRICS = (*_FIRST_METRICS, "num_shares")
_LOOKUP_CHUNK = 500  # ids per IN (...) list, well under SQLite's bound-variable limit
SEED_CHUNK = 20_000
"""Mentions per write transaction of :func:`seed_mentions` (a few seconds of lock each)."""


def _stored_bodies(
    conn: Connection, account_id: str, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The stored bodies of the posts among ``keys`` that the account already has."""
    by_source: dict[str, list[str]] = {}
    for source, post_id in keys:
        by_source.setdefault(source, []).append(post_id)
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for source, ids in by_source.items():
        for start in range(0, len(ids), _LOOKUP_CHUNK):
            chunk = ids[start : start + _LOOKUP_CHUNK]
            for row in conn.execute(
                "SELECT id, body FROM mentions WHERE account_id = ? AND source = ?"
                f" AND id IN ({', '.join('?' * len(chunk))})",
                [account_id, source, *chunk],
            ):
                found[(source, row["id"])] = loads(row["body"])
    return found


def merged_comments(
    earlier: list[dict[str, Any]] | None, later: list[dict[str, Any]] | None
) -> list[dict[str, Any]]:
    """The comments of a post collected again: the later run's, then every earlier one it
    did not bring back, so a later collection (say with ``num_comments_per_post: 0``, or
    into another dataset) never erases comments an earlier run collected. (The stored
    body keeps them all, for audience runs; reads take them per run from ``run_comments``.)

    Example:
        >>> merged_comments([{"id": "c1", "num_likes": 1}], [])
        [{'id': 'c1', 'num_likes': 1}]
        >>> merged_comments([{"id": "c1", "num_likes": 1}], [{"id": "c1", "num_likes": 5}])
        [{'id': 'c1', 'num_likes': 5}]
    """
    fresh = list(later or [])
    seen = {comment.get("id") for comment in fresh}
    return fresh + [c for c in earlier or [] if c.get("id") not in seen]


def _store_mentions(
    conn: Connection, run: sqlite3.Row, mentions: list[dict[str, Any]], now: float
) -> tuple[int, int, int]:
    """Upsert the account's mentions and the dataset membership; return (new, images, videos).

    Bulk statements (one lookup per 500 posts, ``executemany`` writes): a 100k-post run
    holds the write lock for seconds, not minutes.
    """
    keys = [(mention["source"], mention["id"]) for mention in mentions]
    stored = _stored_bodies(conn, run["account_id"], keys)
    images = videos = 0
    rows = []
    for key, mention in zip(keys, mentions, strict=True):
        body = mention
        previous = stored.get(key)
        if previous is not None:
            body = {**previous, **mention}
            if mention.get("sound") is None and previous.get("sound") is not None:
                body["sound"] = previous["sound"]  # spec: an omitted sound keeps the stored one
            body["comments"] = merged_comments(previous.get("comments"), mention.get("comments"))
        n_images, n_videos = _media_counts(body)
        images, videos = images + n_images, videos + n_videos
        posted = body.get("created_at")
        views, likes, comments = (body.get(k) or 0 for k in _FIRST_METRICS)
        engagement = _number(body.get("engagement_rate"))
        rows.append(
            (
                run["account_id"],
                *key,
                dumps(body),
                now if posted is None else parse_datetime(posted).timestamp(),
                body.get("language"),
                body.get("country_code"),
                body.get("content_type"),
                views,
                likes,
                comments,
                body.get("num_shares") or 0,
                engagement,
                _number(body.get("sentiment_score")),
                n_images,
                n_videos,
                now,
                now,
                views,  # first_* columns: kept from the first insert, the upsert skips them
                likes,
                comments,
                engagement,
            )
        )
    conn.executemany(_UPSERT_MENTION, rows)
    conn.executemany(
        "INSERT OR REPLACE INTO run_comments VALUES (?, ?, ?, ?, ?, ?)",
        [
            (run["account_id"], *key, run["id"], run["dataset_id"], dumps(mention["comments"]))
            for key, mention in zip(keys, mentions, strict=True)
            if mention.get("comments")
        ],
    )
    new = conn.executemany(
        "INSERT OR IGNORE INTO dataset_mentions VALUES (?, ?, ?, ?, ?)",
        [(run["dataset_id"], *key, run["id"], now) for key in keys],
    ).rowcount  # summed over the rows: ignored ones (already members) count 0
    return new, images, videos


# -- bulk seeding (benchmarks, load tests) ------------------------------------------
def seed_mentions(
    store: Store,
    account_id: str,
    dataset_id: str,
    count: int,
    *,
    query: str = "oat milk",
    variety: int = 2_000,
) -> str:
    """Add ``count`` mentions to a dataset as one unbilled run; return its id when completed.

    For benchmarks and load tests (``benchmarks/bench_sandbox.py``), not for the API: a
    real run generates every post (~60 µs of Python each, so 100k take minutes on a busy
    machine); this generates ``variety`` corpus posts for ``query`` over the five sources
    and stores copies of them, each with its own id, post date and metrics, through the
    same writer as a run. No plan cap and no charge: the account's wallet is untouched.
    The run is ``working`` while the mentions are written, :data:`SEED_CHUNK` per
    transaction so that other writers (the worker, requests) are not locked out meanwhile.
    """
    window = _window({"search_query": {"type": "prompt"}}, store.clock.now())
    search_query = {"type": "prompt", "sources": list(SOURCES), "search_query": query}
    params = dict.fromkeys(PARAM_KEYS) | {"search_query": search_query, "count": count}
    templates = collect_mentions(
        store.seed, {**params, "count": min(count, variety)}, ordinal=1, window=window
    )
    mentions = [_copy(templates[n % len(templates)], n // len(templates)) for n in range(count)]
    with store.transaction() as conn:
        dataset_or_404(conn, account_id, dataset_id)
        run_id = new_id(conn, "dsr")
        (ordinal,) = conn.execute(
            "SELECT COUNT(*) + 1 FROM dataset_runs WHERE dataset_id = ?", (dataset_id,)
        ).fetchone()
        now = store.clock.now()
        conn.execute(
            "INSERT INTO dataset_runs (id, dataset_id, account_id, ordinal, params, count,"
            " requested_count, status, steps, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'working', ?, ?, ?)",
            (run_id, dataset_id, account_id, ordinal, dumps(params), count, count,
             dumps(_seed_steps("working", now)), now, now),
        )  # fmt: skip
        conn.execute(
            "UPDATE datasets SET content_type = COALESCE(content_type, 'organic') WHERE id = ?",
            (dataset_id,),
        )
        run = conn.execute("SELECT * FROM dataset_runs WHERE id = ?", (run_id,)).fetchone()
    totals = [0, 0, 0]  # new, images, videos
    try:
        for start in range(0, count, SEED_CHUNK):
            with store.transaction() as conn:
                chunk = _store_mentions(conn, run, mentions[start : start + SEED_CHUNK], now)
            totals = [a + b for a, b in zip(totals, chunk, strict=True)]
    except BaseException:
        with store.transaction() as conn:
            RUNS.set_state(conn, run["id"], "failed", _seed_steps("failed", now))
        raise
    with store.transaction() as conn:
        RUNS.set_state(conn, run["id"], "completed", _seed_steps("completed", now))
        conn.execute(
            "UPDATE dataset_runs SET mentions_count = ?, new_mentions_count = ?,"
            " images_count = ?, videos_count = ? WHERE id = ?",
            (count, *totals, run_id),
        )
    return run_id


def _seed_steps(status: str, started: float) -> list[dict[str, Any]]:
    """A seeded run's steps: all in ``status`` together (it has no pipeline to show)."""
    finished = None if status == "working" else started
    return [
        {"name": name, "status": status, "started_at": started, "finished_at": finished}
        for name in STEPS
    ]


def _copy(post: dict[str, Any], generation: int) -> dict[str, Any]:
    """Copy ``generation`` of a template post: own id, an earlier date, scaled metrics."""
    if generation == 0:
        return post
    # A deterministic factor in [0.5, 1.5) per copy keeps the sort keys spread out.
    factor = 0.5 + zlib.crc32(f"{post['source']}:{post['id']}:{generation}".encode()) % 1000 / 1000
    return {
        **post,
        "id": f"{post['id']}~{generation}",  # "~" is in no corpus id: copies never collide
        "created_at": post["created_at"] - generation * 3_607,
        **{k: int((post.get(k) or 0) * factor) for k in _METRICS},
    }


JOBS = (JobKind(_ADVANCE, _advance, atomic=False, on_error=RUNS.crash_handler()),)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
