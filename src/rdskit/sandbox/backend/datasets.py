"""Datasets and dataset runs: state, SQL and rules (routes: :mod:`rdskit.sandbox.api.datasets`).

A run is accepted as ``pending`` with the mention price x ``count`` reserved, then the
worker walks it through ``working`` (steps scraping -> enrichment -> analysis) to
``completed`` (mentions written, actuals charged, the rest refunded) or ``failed`` (all
refunded; also when the dataset is deleted while the run is in flight): the lifecycle is
:class:`rdskit.sandbox.backend.runs.RunKind`'s, :data:`RUN` supplies the checks, the work
(generating mentions) and the price. Mentions accumulate per dataset and dedupe on
``(source, id)``.

Other parts reuse :func:`dataset_or_404` and :func:`start_run` (tracking cycles).

Example:
    >>> [step.name for step in RUN.steps], RUN.category
    (['scraping', 'enrichment', 'analysis'], 'mention')
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from rdskit.models import Dataset, DatasetRun, DatasetRunCreate, Mention
from rdskit.models._base import parse_datetime, to_iso
from rdskit.sandbox.backend.containers import Containers
from rdskit.sandbox.backend.mention_wire import encode, stored_body, unique
from rdskit.sandbox.backend.runs import (
    ChildRuns,
    Done,
    Failed,
    Outcome,
    RunKind,
    RunTable,
    Step,
    failure,
)
from rdskit.sandbox.errors import ApiError, invalid
from rdskit.sandbox.runtime import chaos, cpu_budget, guard
from rdskit.sandbox.runtime.clock import indexed_until
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.accounts import plan_of
from rdskit.sandbox.store.db import Connection, Store, dumps, loads, new_id
from rdskit.sandbox.synth import corpus
from rdskit.sandbox.synth.corpus import SOURCES
from rdskit.sandbox.synth.preview_samples import FAIL_TOKEN

__all__ = [
    "DATASETS",
    "DEFAULT_COUNT",
    "FAIL_TOKEN",
    "JOBS",
    "MAX_HELD_POSTS",
    "RUN",
    "RUN_READS",
    "STEPS",
    "accepted_run_wire",
    "collect_mentions",
    "dataset_or_404",
    "hold_runs",
    "merged_comments",
    "platform_posts",
    "run_wire",
    "seed_mentions",
    "start_run",
]

DEFAULT_COUNT = 100
PROMPT_WINDOW = timedelta(days=365)
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


# -- reads ------------------------------------------------------------------------
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


DATASETS = Containers("datasets", "ds", "dataset_not_found", "Dataset", wire=_dataset_wire)
"""The datasets: live rows of the account (a deleted one is kept for its audiences)."""


def dataset_or_404(conn: sqlite3.Connection, account_id: str, dataset_id: str) -> sqlite3.Row:
    """The account's live (not deleted) dataset row, or 404 ``dataset_not_found``."""
    return DATASETS.or_404(conn, account_id, dataset_id)


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


def run_wire(row: sqlite3.Row) -> dict[str, Any]:
    """A dataset run row as the ``DatasetRun`` wire dict."""
    return DatasetRun.model_validate(
        {
            "id": row["id"],
            "dataset_id": row["dataset_id"],
            "status": {
                "type": row["status"],
                "steps": _steps_wire(loads(row["steps"])),
                **failure(row),
            },
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


def accepted_run_wire(row: sqlite3.Row) -> dict[str, Any]:
    """What ``POST /v1/datasets/{id}/runs`` answers: the run as accepted (``pending``)."""
    return DatasetRun.model_validate(
        {
            "id": row["id"],
            "dataset_id": row["dataset_id"],
            "count": row["count"],
            "requested_count": row["requested_count"],
            "created_at": row["created_at"],
            "status": {"type": "pending"},
        }
    ).to_wire()


# -- accepting a run ---------------------------------------------------------------
def _window(request: dict[str, Any], now: float) -> tuple[datetime | None, datetime | None]:
    """The collection window: explicit range, else the past 365 days (up to the start of the
    hour, :func:`~rdskit.sandbox.runtime.clock.indexed_until`); none for url search."""
    if request["search_query"]["type"] == "url":
        return None, None
    date_range = request.get("date_range")
    if date_range:
        start = datetime.combine(date.fromisoformat(date_range["from"]), time.min, tzinfo=UTC)
        end = datetime.combine(date.fromisoformat(date_range["to"]), time.max, tzinfo=UTC)
        return start, end
    end = indexed_until(_dt(now))
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
    params: dict[str, Any] = dict.fromkeys(PARAM_KEYS) | request.to_wire()
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
    run = RUN.accept(
        conn,
        account_id,
        {
            "dataset_id": dataset_id,
            "ordinal": _next_ordinal(conn, dataset_id),
            "params": dumps(params),
            "count": count,
            "requested_count": requested,
        },
        quantity=count,  # the price: the mention price x the runs's capped count
        error_code=error_code,
        top_up_url=settings.top_up_url,
    )
    conn.execute(
        "UPDATE datasets SET content_type = ? WHERE id = ? AND content_type IS NULL",
        (content_type, dataset_id),
    )
    return run


def _next_ordinal(conn: sqlite3.Connection, dataset_id: str) -> int:
    """1 for a dataset's first run, 2 for the next, ..."""
    (ordinal,) = conn.execute(
        "SELECT COUNT(*) + 1 FROM dataset_runs WHERE dataset_id = ?", (dataset_id,)
    ).fetchone()
    return int(ordinal)


# -- the run's checks, work and result ------------------------------------------------
def collect_mentions(
    seed: int,
    params: dict[str, Any],
    *,
    ordinal: int,
    window: tuple[datetime | None, datetime | None],
    now: float | None = None,
) -> list[dict[str, Any]]:
    """The run's mentions: synthetic corpus posts, enriched with the requested analyses.

    ``now`` is the collection time (the run's creation on the sandbox clock; see
    :func:`rdskit.sandbox.synth.corpus.collect`)."""
    from rdskit.sandbox.synth import enrichment

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
        now=now,
    )
    actions = params.get("content_analysis_actions") or []
    # A query naming a brand the corpus does not know ("Acme") has the corpus write about
    # it: enrichment must detect it like any corpus brand.
    query = params["search_query"]
    topic = corpus.topic_of(query.get("search_query") or "", query.get("fragments") or ())
    searched = (topic.brand,) if topic.is_brand and topic.brand not in corpus.BRANDS else ()
    # One post is collected (and charged) once per run, even if the corpus repeats it.
    unique = {(post["source"], post["id"]): post for post in posts}
    transcribe = bool(params.get("enable_transcribing"))
    enriched = []
    for post in unique.values():
        cpu_budget.check()  # a job over its CPU budget fails (refunded) instead of blocking
        out = enrichment.enrich(post, actions, searched)
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
        urls = search_query.get("source_urls") or []
        parsed = (corpus.parse_post_url(u) or corpus.parse_profile_url(u) for u in urls)
        return list(dict.fromkeys(p[0] for p in parsed if p is not None))
    return list(search_query.get("sources") or [])


def _chaos_failure(run: sqlite3.Row, state: chaos.Chaos, step: str) -> str | None:
    """Why chaos fails the run at the end of ``step`` (an unavailable source fails
    ``scraping``; a planned failure its step), or None."""
    if step == "scraping":
        down = state.unavailable_among(_run_sources(loads(run["params"])["search_query"]))
        if down:
            return f"source_unavailable: {', '.join(down)} could not be searched"
    if state.take_failure("dataset_run", step):
        return f"{step} failed (sandbox chaos)"
    return None


def _dataset_deleted(conn: sqlite3.Connection, run: sqlite3.Row) -> bool:
    """Whether the run's dataset was deleted since the run was accepted."""
    row = conn.execute("SELECT deleted_at FROM datasets WHERE id = ?", (run["dataset_id"],))
    return row.fetchone()["deleted_at"] is not None


def _check(conn: Connection, run: sqlite3.Row, step: str | None) -> str | None:
    """Why the run fails as ``step`` ends: chaos, its dataset deleted (nothing is collected
    into a bin), or ``__fail__`` in its query (scraping)."""
    if step is not None:
        failure = _chaos_failure(run, chaos.of(conn.store), step)
        if failure is not None:
            return failure
    if _dataset_deleted(conn, run):
        return "the dataset was deleted"
    if step == "scraping" and _should_fail(loads(run["params"])["search_query"]):
        return "scraping failed: the source could not be searched"
    return None


def _work(store: Store, run: sqlite3.Row) -> list[dict[str, Any]]:
    """The run's mentions, generated outside the write lock (:func:`_posts_of`)."""
    params = loads(run["params"])
    return _posts_of(store, params, run["count"], run["ordinal"], run["created_at"])


def _posts_of(
    store: Store, params: dict[str, Any], count: int, ordinal: int, created_at: float
) -> list[dict[str, Any]]:
    """The mentions of a run with ``params`` (its echo) and ``count`` (capped), the
    ``ordinal``-th of its dataset, created at ``created_at``. A ``url`` search's links to
    single posts re-collect those posts (:func:`platform_posts`); its other links
    (profiles, communities) search the corpus."""
    query = params["search_query"]
    posts: list[dict[str, Any]] = []
    if query.get("type") == "url":
        urls = list(query.get("source_urls") or [])
        posts = platform_posts(store, [u for u in urls if corpus.parse_post_url(u)])[:count]
        rest = [u for u in urls if not corpus.parse_post_url(u)]
        if not rest:
            return posts
        params = {**params, "search_query": {**query, "source_urls": rest}}
    return posts + collect_mentions(
        store.seed,
        {**params, "count": count - len(posts)},
        ordinal=ordinal,
        window=_window(params, created_at),
        now=created_at,
    )


def platform_posts(store: Store, urls: Sequence[str]) -> list[dict[str, Any]]:
    """The posts behind ``urls`` as their platforms show them now, minus those deleted
    through ``/sandbox/posts``, with the views and likes added there. The corpus cannot
    rebuild a post from its link alone, so the sandbox's platforms hold the posts of the
    runs replayed through ``/sandbox/platforms`` (:func:`hold_runs`: that copy, the
    platform's own, comes first) and the posts it served to any account (the latest copy).
    A link to no such post finds nothing (it is not charged)."""
    keys = list(dict.fromkeys(k for k in map(corpus.parse_post_url, urls) if k is not None))
    found: list[dict[str, Any]] = []
    with store.read() as conn:
        for source, post_id in keys:
            row = (
                conn.execute(
                    "SELECT body FROM held_posts WHERE source = ? AND id = ?", (source, post_id)
                ).fetchone()
                or conn.execute(
                    "SELECT body FROM mentions WHERE source = ? AND id = ?"
                    " ORDER BY updated_at DESC LIMIT 1",
                    (source, post_id),
                ).fetchone()
            )
            change = conn.execute(
                "SELECT deleted, extra_views, extra_likes FROM platform_changes"
                " WHERE source = ? AND id = ?",
                (source, post_id),
            ).fetchone()
            if row is None or (change is not None and change["deleted"]):
                continue
            post = loads(row["body"])
            if change is not None:
                post["num_views"] = (post.get("num_views") or 0) + change["extra_views"]
                post["num_likes"] = (post.get("num_likes") or 0) + change["extra_likes"]
            found.append(post)
    return found


MAX_HELD_POSTS = 100_000
"""Most posts one :func:`hold_runs` call replays (the largest run's count)."""


def hold_runs(
    store: Store,
    runs: Sequence[dict[str, Any]],
    posts: Sequence[tuple[str, str]],
    *,
    cpu_seconds: float | None = None,
) -> dict[str, int]:
    """Replay ``runs`` in this sandbox's corpus so that its platforms hold their posts.

    Emulator only (route ``POST /sandbox/platforms``): a shared study's package records
    every run of its datasets (``provenance.json``: ``id``, ``dataset_id``, ``status``,
    ``created_at`` in Unix seconds, ``mentions_count`` and the echoed ``params``); each
    completed one is generated again as its sandbox generated it (the ``n``-th run of its
    dataset by creation time, ``mentions_count`` posts), and its posts are kept as the
    platform's own copy (a later run's copy of a post wins), so that a ``url`` run by their
    links finds them (:func:`platform_posts`). It writes nothing a search or an account
    sees; a run already replayed is skipped. Answers ``runs`` (replayed now), ``posts``
    (kept now) and ``known``: how many of ``posts`` (``(source, id)``) the platforms hold,
    deleted ones included, so that a caller can tell a package of another corpus (another
    seed or generator) from attrition. Generating them may use ``cpu_seconds`` of CPU at
    most (a job's budget): beyond, 422 naming ``runs``, with what was kept so far kept.
    """
    total = sum(r["mentions_count"] or 0 for r in runs if r["status"] == "completed")
    if total > MAX_HELD_POSTS:
        raise invalid(("runs",), f"the runs hold {total} posts; at most {MAX_HELD_POSTS}")
    ordinals: dict[str, int] = {}
    replayed, held = 0, 0
    try:
        with cpu_budget.limited(cpu_seconds):
            for run in sorted(runs, key=lambda r: (r["created_at"], r["id"])):
                ordinal = ordinals[run["dataset_id"]] = ordinals.get(run["dataset_id"], 0) + 1
                if run["status"] == "completed" and run["mentions_count"]:
                    kept = _hold_run(store, run, ordinal)
                    replayed, held = replayed + (kept is not None), held + (kept or 0)
    except cpu_budget.BudgetExceeded as exc:
        raise invalid(("runs",), f"replaying the runs: {exc}") from None
    with store.read() as conn:
        known = sum(
            conn.execute(
                "SELECT EXISTS (SELECT 1 FROM held_posts WHERE source = ? AND id = ?)"
                " OR EXISTS (SELECT 1 FROM dataset_mentions WHERE source = ? AND id = ?)",
                (source, post_id, source, post_id),
            ).fetchone()[0]
            for source, post_id in dict.fromkeys(posts)
        )
    return {"runs": replayed, "posts": held, "known": known}


def _hold_run(store: Store, run: dict[str, Any], ordinal: int) -> int | None:
    """Keep the posts of ``run`` (the ``ordinal``-th of its dataset) as the platforms' own
    copy; how many, or None when it was replayed before."""
    digest = hashlib.sha256(dumps([store.seed, ordinal, run]).encode()).hexdigest()
    with store.read() as conn:
        if conn.execute("SELECT 1 FROM held_runs WHERE digest = ?", (digest,)).fetchone():
            return None
    params = dict.fromkeys(PARAM_KEYS) | run["params"]
    made = _posts_of(store, params, run["mentions_count"], ordinal, run["created_at"])
    mentions = [wire_mention(m) for m in made]
    with store.transaction() as conn:
        conn.executemany(
            "INSERT INTO held_posts (source, id, body, as_of) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (source, id) DO UPDATE SET body = excluded.body,"
            " as_of = excluded.as_of WHERE excluded.as_of >= held_posts.as_of",
            [(m["source"], m["id"], dumps(m), run["created_at"]) for m in mentions],
        )
        conn.execute("INSERT OR IGNORE INTO held_runs VALUES (?)", (digest,))
    return len(mentions)


def _finish(conn: Connection, run: sqlite3.Row, mentions: list[dict[str, Any]]) -> Outcome:
    """Store the mentions (unless the dataset was deleted meanwhile); charge them."""
    if _dataset_deleted(conn, run):
        return Failed("the dataset was deleted")
    new, images, videos = _store_mentions(conn, run, mentions, conn.store.clock.now())
    RUN.table.update(
        conn,
        run["id"],
        mentions_count=len(mentions),
        new_mentions_count=new,
        images_count=images,
        videos_count=videos,
    )
    return Done(len(mentions))


RUN: RunKind[list[dict[str, Any]]] = RunKind(
    "dataset_run",
    RunTable("dataset_runs", live=("pending", "working"), steps=True),
    id_prefix="dsr",
    job="dataset_run.advance",
    # Simulated seconds spent in each step (divided by --speed); queued 1 s.
    steps=(Step("scraping", 3.0), Step("enrichment", 2.0), Step("analysis", 1.0)),
    check=_check,
    work=_work,
    finish=_finish,
)
"""Dataset runs: the shared run state machine with their checks, work and price."""
STEPS = tuple(step.name for step in RUN.steps)
JOBS = (RUN.job_kind,)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
RUN_READS = ChildRuns(
    RUN.table.table, "dataset_id", "dataset_not_found", parent_or_404=dataset_or_404, wire=run_wire
)
"""A dataset's runs as ``GET .../runs`` and ``GET .../runs/{run_id}`` read them."""


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


def wire_mention(mention: dict[str, Any]) -> dict[str, Any]:
    """``mention`` validated as a :class:`~rdskit.models.Mention` and in its wire form.

    Every stored body and comment list goes through this once, when written, so reads
    serve them as stored (no validation per request): a value the model rejects fails
    the write, and what is served is exactly the model's wire form (unknown fields kept).

    Example:
        >>> wire = wire_mention({"source": "reddit", "id": "1", "new_field": [1],
        ...     "created_at": "2026-01-01T00:00:00Z", "vibe": {"calm": 1}})
        >>> wire["created_at"], wire["vibe"], wire["new_field"]
        (1767225600, {'calm': 1.0}, [1])
    """
    return Mention.model_validate(mention).to_wire()


def _store_mentions(
    conn: Connection, run: sqlite3.Row, mentions: list[dict[str, Any]], now: float
) -> tuple[int, int, int]:
    """Upsert the account's mentions and the dataset membership; return (new, images, videos).

    Bulk statements (one lookup per 500 posts, ``executemany`` writes): a 100k-post run
    holds the write lock for seconds, not minutes. Mentions are stored in their validated
    wire form (:func:`wire_mention`), laid out as reads serve them
    (:func:`~rdskit.sandbox.backend.mention_wire.stored_body`); a run's comments are stored
    each once, in the encoding reads serve.
    """
    mentions = [wire_mention(mention) for mention in mentions]
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
                stored_body(body),
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
            (
                run["account_id"],
                *key,
                run["id"],
                run["dataset_id"],
                encode(unique(mention["comments"])),
            )
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
    analyses: Sequence[str] = (),
    comments: int = 0,
) -> str:
    """Add ``count`` mentions to a dataset as one unbilled run; return its id when completed.

    For benchmarks and load tests (``benchmarks/bench_sandbox.py``), not for the API: a
    real run generates every post (~60 µs of Python each, so 100k take minutes on a busy
    machine); this generates ``variety`` corpus posts for ``query`` over the five sources
    and stores copies of them, each with its own id, post date and metrics, through the
    same writer as a run. No plan cap and no charge: the account's wallet is untouched.
    The run is ``working`` while the mentions are written, :data:`SEED_CHUNK` per
    transaction so that other writers (the worker, requests) are not locked out meanwhile.
    ``analyses`` (``content_analysis_actions``) and ``comments`` (per post) shape the
    posts as a run with those parameters would.
    """
    window = _window({"search_query": {"type": "prompt"}}, store.clock.now())
    search_query = {"type": "prompt", "sources": list(SOURCES), "search_query": query}
    params = dict.fromkeys(PARAM_KEYS) | {
        "search_query": search_query,
        "count": count,
        "content_analysis_actions": list(analyses) or None,
        "num_comments_per_post": comments or None,
    }
    templates = collect_mentions(
        store.seed,
        {**params, "count": min(count, variety)},
        ordinal=1,
        window=window,
        now=store.clock.now(),
    )
    mentions = [_copy(templates[n % len(templates)], n // len(templates)) for n in range(count)]
    with store.transaction() as conn:
        dataset_or_404(conn, account_id, dataset_id)
        run_id = new_id(conn, "dsr")
        ordinal = _next_ordinal(conn, dataset_id)
        now = store.clock.now()
        conn.execute(
            "INSERT INTO dataset_runs (id, dataset_id, account_id, ordinal, params, count,"
            " requested_count, status, steps, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 'working', ?, ?, ?)",
            (
                run_id,
                dataset_id,
                account_id,
                ordinal,
                dumps(params),
                count,
                count,
                dumps(_seed_steps("working", now)),
                now,
                now,
            ),
        )
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
            RUN.table.set_state(conn, run["id"], "failed", _seed_steps("failed", now))
        raise
    with store.transaction() as conn:
        RUN.table.set_state(conn, run["id"], "completed", _seed_steps("completed", now))
        RUN.table.update(
            conn,
            run_id,
            mentions_count=count,
            new_mentions_count=totals[0],
            images_count=totals[1],
            videos_count=totals[2],
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
