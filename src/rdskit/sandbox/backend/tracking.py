"""Tracking agents: state, SQL and rules (routes: :mod:`rdskit.sandbox.api.tracking`).

An agent re-scrapes its datasets on a schedule (UTC): ``daily`` at ``time``, or ``weekly``
on ``day`` at ``time``. A cycle (scheduled, or out of schedule through ``trigger``) starts
one dataset run per dataset with that dataset's last search query, through the same code
as ``POST /v1/datasets/{id}/runs`` (:func:`rdskit.sandbox.backend.datasets.start_run`), so
it is reserved and charged as a normal dataset run. The cycle's tracking run goes
``pending`` -> ``working`` -> ``completed`` (or ``failed`` if every dataset run failed):
the lifecycle is :class:`rdskit.sandbox.backend.runs.RunKind`'s (:data:`CYCLE`, which
reserves nothing itself); on completion the agent posts an alert message about the posts
the cycle added, in markdown whose post links are rewritten to ``[N]`` markers with
``references[]`` (:func:`rdskit.references.rewrite_post_links`).

Scheduled cycles are worker jobs due at ``next_run_at``; a job whose due time no longer
matches the agent (paused, rescheduled, deleted) does nothing.

Example:
    >>> CYCLE.category is None, [job.kind for job in JOBS]
    (True, ['tracking_agent.cycle', 'tracking_agent.watch'])
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from rdskit.models import (
    DatasetRunCreate,
    TrackingAgent,
    TrackingAgentCreate,
    TrackingAgentUpdate,
    TrackingMessage,
    TrackingRun,
)
from rdskit.models.vocab import FREQUENCIES, SCHEDULE_TIME, WEEKDAYS
from rdskit.references import rewrite_post_links
from rdskit.sandbox.backend import chats
from rdskit.sandbox.backend.datasets import DEFAULT_COUNT, start_run
from rdskit.sandbox.backend.runs import Again, Done, Failed, Outcome, RunKind, RunTable, Step
from rdskit.sandbox.errors import ApiError, FieldError
from rdskit.sandbox.runtime.worker import Job, JobKind, schedule
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.accounts import plan_of
from rdskit.sandbox.store.cursors import BY_CREATED, fetch_page
from rdskit.sandbox.store.db import Connection, Store, dumps, loads, new_id, row_or_404
from rdskit.sandbox.synth.extractor import UnprocessablePost, compile_rule

__all__ = [
    "CYCLE",
    "JOBS",
    "SCHEMA",
    "WEEKDAYS",
    "agent_or_404",
    "compose_alert",
    "create_agent",
    "delete_agent",
    "get_agent",
    "list_agents",
    "list_messages",
    "next_run_at",
    "pause_agent",
    "resume_agent",
    "trigger",
    "update_agent",
    "validate_schedule",
]

_SCHEDULED = "tracking_agent.cycle"
_HIGHLIGHTS = 5  # posts quoted in an alert
_UPDATABLE = (
    "name",
    "instructions",
    "dataset_ids",
    "integration_ids",
    "count",
    "num_comments_per_post",
)
_JSON_FIELDS = ("dataset_ids", "integration_ids")

SCHEMA = """
CREATE TABLE IF NOT EXISTS tracking_agents (
    id                    TEXT PRIMARY KEY,    -- ta_
    account_id            TEXT NOT NULL REFERENCES accounts(id),
    name                  TEXT NOT NULL,
    instructions          TEXT NOT NULL,
    dataset_ids           TEXT NOT NULL,       -- JSON list
    integration_ids       TEXT NOT NULL,       -- JSON list
    count                 INTEGER NOT NULL,
    num_comments_per_post INTEGER NOT NULL,
    schedule              TEXT NOT NULL,       -- JSON {frequency, time, day?}
    paused                INTEGER NOT NULL DEFAULT 0,
    last_run_at           REAL,
    next_run_at           REAL,                -- NULL while paused
    created_at            REAL NOT NULL,
    updated_at            REAL NOT NULL,
    deleted_at            REAL                 -- soft delete
);
CREATE INDEX IF NOT EXISTS tracking_agents_list
    ON tracking_agents(account_id, deleted_at, created_at);

CREATE TABLE IF NOT EXISTS tracking_runs (
    id              TEXT PRIMARY KEY,          -- tar_
    agent_id        TEXT NOT NULL REFERENCES tracking_agents(id),
    account_id      TEXT NOT NULL REFERENCES accounts(id),
    status          TEXT NOT NULL,             -- pending | working | completed | failed
    trigger         TEXT NOT NULL,             -- manual | schedule
    dataset_run_ids TEXT NOT NULL,             -- JSON list
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tracking_runs_agent ON tracking_runs(agent_id, status);

CREATE TABLE IF NOT EXISTS tracking_messages (
    id         TEXT PRIMARY KEY,               -- tam_
    agent_id   TEXT NOT NULL REFERENCES tracking_agents(id),
    run_id     TEXT NOT NULL REFERENCES tracking_runs(id),
    body       TEXT NOT NULL,                  -- JSON: the message fields but id/agent/created_at
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tracking_messages_list ON tracking_messages(agent_id, created_at, id);
"""


# -- schedules (pure) -------------------------------------------------------------------
def validate_schedule(schedule: Mapping[str, Any]) -> dict[str, str]:
    """The schedule in canonical form, or a 422 naming the bad field.

    Example:
        >>> validate_schedule({"frequency": "weekly", "time": "09:30", "day": "Monday"})
        {'frequency': 'weekly', 'time': '09:30', 'day': 'monday'}
    """
    problems = []
    frequency = schedule.get("frequency")
    if frequency not in FREQUENCIES:
        problems.append(("frequency", "frequency must be daily or weekly"))
    time = schedule.get("time")
    if not isinstance(time, str) or not SCHEDULE_TIME.fullmatch(time):
        problems.append(("time", "time must be HH:MM (24-hour, UTC)"))
    day = schedule.get("day")
    day = day.lower() if isinstance(day, str) else day
    if frequency == "weekly" and day not in WEEKDAYS:
        problems.append(("day", f"a weekly schedule needs day, one of {', '.join(WEEKDAYS)}"))
    if frequency == "daily" and day is not None:
        problems.append(("day", "a daily schedule takes no day"))
    if problems:
        raise FieldError(
            [
                {"loc": ("body", "schedule", field), "msg": msg, "type": "value_error"}
                for field, msg in problems
            ]
        )
    canonical = {"frequency": str(frequency), "time": str(time)}
    if frequency == "weekly":
        canonical["day"] = str(day)
    return canonical


def next_run_at(schedule: Mapping[str, str], after: datetime) -> datetime:
    """The first scheduled moment strictly after ``after`` (UTC).

    Example:
        >>> now = datetime(2026, 1, 7, 10, 0, tzinfo=UTC)  # a Wednesday
        >>> next_run_at({"frequency": "daily", "time": "09:00"}, now).isoformat()
        '2026-01-08T09:00:00+00:00'
        >>> next_run_at({"frequency": "weekly", "time": "09:00", "day": "monday"}, now).isoformat()
        '2026-01-12T09:00:00+00:00'
    """
    after = after.astimezone(UTC)
    hour, minute = (int(part) for part in schedule["time"].split(":"))
    candidate = after.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if schedule["frequency"] == "weekly":
        candidate += timedelta(days=(WEEKDAYS.index(schedule["day"]) - after.weekday()) % 7)
        step = timedelta(days=7)
    else:
        step = timedelta(days=1)
    return candidate if candidate > after else candidate + step


# -- alerts (pure) -------------------------------------------------------------------------
def _engagement(mention: Mapping[str, Any]) -> int:
    return sum(int(mention.get(k) or 0) for k in ("num_likes", "num_comments", "num_shares"))


def _snippet(mention: Mapping[str, Any], limit: int = 90) -> str:
    text = " ".join(str(mention.get("title") or mention.get("text") or "").split())
    text = text.replace("[", "(").replace("]", ")")  # keep markdown links unambiguous
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def compose_alert(
    agent_name: str,
    instructions: str,
    mentions: Sequence[Mapping[str, Any]],
    dataset_names: Sequence[str],
    pattern: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The alert for a cycle that added ``mentions`` (Mention wire dicts).

    Posts matching the agent's instructions (read as a yes/no rule) are quoted first,
    then the most engaging ones; the most engaging post is also cited in the headline,
    so it reuses its number. ``pattern`` ({id, name}) adds a pattern entity reference.

    Example:
        >>> alert = compose_alert("Oat watch", "complaints", [
        ...     {"source": "reddit", "id": "1", "text": "It leaked, disappointed",
        ...      "num_likes": 3, "sentiment_score": "-0.6", "comments": [{}]}], ["Oat"])
        >>> alert["new_mention_count"], alert["comment_count"], alert["text"].count("[1]")
        (1, 1, 2)
    """
    rule = compile_rule(instructions, "boolean") if instructions.strip() else None

    def matches(mention: Mapping[str, Any]) -> bool:
        try:
            return bool(rule and rule.apply(mention.get("title"), mention.get("text")).value)
        except UnprocessablePost:
            return False

    matching = {(m["source"], m["id"]) for m in mentions if matches(m)}
    ranked = sorted(
        mentions,
        key=lambda m: ((m["source"], m["id"]) in matching, _engagement(m)),
        reverse=True,
    )
    scores = [
        float(m["sentiment_score"]) for m in mentions if m.get("sentiment_score") not in (None, "")
    ]
    sentiment = round(sum(scores) / len(scores), 3) if scores else 0.0
    comments = sum(len(m.get("comments") or []) for m in mentions)
    where = ", ".join(dataset_names)

    def link(m: Mapping[str, Any], label: str) -> str:
        return f"[{label}](post:{m['source']}:{m['id']})"

    lines = [f"**{agent_name}**: {len(mentions)} new mentions in {where}."]
    if mentions:
        top = max(mentions, key=_engagement)
        lines[0] += (
            f" Average sentiment {sentiment:+.2f}, {comments} comments collected."
            f" Most engaging: {link(top, 'post')}."
        )
        if rule is not None:
            lines.append(f"\n{len(matching)} of them match your instructions.")
        lines.append("")
        lines += [
            f"- {m['source']}: “{_snippet(m)}” {link(m, m['source'])}" for m in ranked[:_HIGHLIGHTS]
        ]
    if pattern is not None:
        lines.append(f"\nRecurring patterns in these datasets: “{pattern['name']}”.")
    text, references = rewrite_post_links("\n".join(lines))
    if pattern is not None:
        references.append({"type": "pattern", "id": pattern["id"]})
    mood = "positive" if sentiment >= 0.05 else "negative" if sentiment <= -0.05 else "neutral"
    preview = f"{len(mentions)} new mentions for {agent_name}"
    if mentions:
        preview += f", {mood} on average"
    return {
        "agent_name": agent_name,
        "new_mention_count": len(mentions),
        "comment_count": comments,
        "sentiment_score": sentiment,
        "short_preview_message": preview,
        "text": text,
        "references": references,
    }


# -- storage helpers ---------------------------------------------------------------------
def agent_or_404(conn: sqlite3.Connection, account_id: str, agent_id: str) -> sqlite3.Row:
    """The account's live agent, or 404 ``not_found``."""
    return row_or_404(
        conn,
        "tracking_agents",
        "not_found",
        f"Tracking agent {agent_id} not found",
        live=True,
        id=agent_id,
        account_id=account_id,
    )


def _agent_wire(row: sqlite3.Row) -> dict[str, Any]:
    return TrackingAgent.model_validate(
        {
            "id": row["id"],
            "name": row["name"],
            "instructions": row["instructions"],
            "dataset_ids": loads(row["dataset_ids"]),
            "count": row["count"],
            "num_comments_per_post": row["num_comments_per_post"],
            "integrations": [{"id": i} for i in loads(row["integration_ids"])],
            "paused": bool(row["paused"]),
            "schedule": loads(row["schedule"]),
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
            "last_run_at": row["last_run_at"],
            "next_run_at": row["next_run_at"],
        }
    ).to_wire()


def _check_datasets(conn: sqlite3.Connection, account_id: str, dataset_ids: Sequence[str]) -> None:
    """Every dataset must be the account's and live; otherwise 404 ``not_found``."""
    for dataset_id in dataset_ids:
        row_or_404(
            conn,
            "datasets",
            "not_found",
            f"Dataset {dataset_id} not found",
            live=True,
            id=dataset_id,
            account_id=account_id,
        )


def _plan_next(conn: Connection, agent_id: str, schedule_: Mapping[str, str]) -> float:
    """Set the agent's next_run_at from now and schedule the cycle job for it."""
    clock = conn.store.clock
    due = next_run_at(schedule_, datetime.fromtimestamp(clock.now(), tz=UTC)).timestamp()
    conn.execute("UPDATE tracking_agents SET next_run_at = ? WHERE id = ?", (due, agent_id))
    (account_id,) = conn.execute(
        "SELECT account_id FROM tracking_agents WHERE id = ?", (agent_id,)
    ).fetchone()
    schedule(conn, _SCHEDULED, agent_id, run_at=due, payload={"due": due}, account_id=account_id)
    return due


# -- agents ---------------------------------------------------------------------------------
def create_agent(
    conn: Connection, account_id: str, seat_id: str, body: TrackingAgentCreate
) -> dict[str, Any]:
    """Create an active agent; ``next_run_at`` follows from the schedule."""
    schedule_ = validate_schedule(body.schedule.model_dump(exclude_none=True))
    limit = plan_of(conn, account_id)["limits"].get("tracking_agents", -1)
    (used,) = conn.execute(
        "SELECT COUNT(*) FROM tracking_agents WHERE account_id = ? AND deleted_at IS NULL",
        (account_id,),
    ).fetchone()
    if limit >= 0 and used >= limit:
        raise ApiError(
            400, "tracking_agent_limit_reached", f"The plan allows {limit} tracking agents."
        )
    _check_datasets(conn, account_id, body.dataset_ids)
    agent_id = new_id(conn, "ta")
    now = conn.store.clock.now()
    conn.execute(
        "INSERT INTO tracking_agents (id, account_id, name, instructions, dataset_ids,"
        " integration_ids, count, num_comments_per_post, schedule, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            agent_id,
            account_id,
            body.name,
            body.instructions,
            dumps(body.dataset_ids),
            dumps(body.integration_ids or []),
            DEFAULT_COUNT if body.count is None else body.count,
            body.num_comments_per_post or 0,
            dumps(schedule_),
            now,
            now,
        ),
    )
    _plan_next(conn, agent_id, schedule_)
    # The agent's dialogue chat, private to the creating seat (see backend/chats.py).
    chats.open_chat(conn, account_id, seat_id, tracking_agent_id=agent_id, name=body.name)
    return get_agent(conn, account_id, agent_id)


def list_agents(conn: sqlite3.Connection, account_id: str) -> list[dict[str, Any]]:
    """The account's agents (deleted ones hidden), oldest first."""
    rows = conn.execute(
        "SELECT * FROM tracking_agents WHERE account_id = ? AND deleted_at IS NULL"
        " ORDER BY created_at, id",
        (account_id,),
    ).fetchall()
    return [_agent_wire(row) for row in rows]


def get_agent(conn: sqlite3.Connection, account_id: str, agent_id: str) -> dict[str, Any]:
    """One agent's wire dict."""
    return _agent_wire(agent_or_404(conn, account_id, agent_id))


def update_agent(
    conn: Connection, account_id: str, agent_id: str, body: TrackingAgentUpdate
) -> dict[str, Any]:
    """Partial update of the create fields; a new schedule moves ``next_run_at``."""
    changes = body.model_dump(exclude_unset=True)
    schedule_ = (
        validate_schedule(body.schedule.model_dump(exclude_none=True))
        if changes.get("schedule") is not None and body.schedule is not None
        else None
    )
    row = agent_or_404(conn, account_id, agent_id)
    if changes.get("dataset_ids") is not None:
        _check_datasets(conn, account_id, changes["dataset_ids"])
    updates = {
        field: dumps(changes[field]) if field in _JSON_FIELDS else changes[field]
        for field in _UPDATABLE
        if changes.get(field) is not None
    }
    if schedule_ is not None:
        updates["schedule"] = dumps(schedule_)
    updates["updated_at"] = conn.store.clock.now()
    assignments = ", ".join(f"{column} = ?" for column in updates)
    conn.execute(
        f"UPDATE tracking_agents SET {assignments} WHERE id = ?", [*updates.values(), agent_id]
    )
    if schedule_ is not None and not row["paused"]:
        _plan_next(conn, agent_id, schedule_)
    return get_agent(conn, account_id, agent_id)


def delete_agent(conn: Connection, account_id: str, agent_id: str) -> None:
    """Soft delete: hidden from every endpoint, kept on the server; no more cycles."""
    agent_or_404(conn, account_id, agent_id)
    now = conn.store.clock.now()
    conn.execute(
        "UPDATE tracking_agents SET deleted_at = ?, updated_at = ?, next_run_at = NULL"
        " WHERE id = ?",
        (now, now, agent_id),
    )


def pause_agent(conn: Connection, account_id: str, agent_id: str) -> dict[str, Any]:
    """Stop scheduled cycles (``next_run_at`` becomes null); history is kept."""
    agent_or_404(conn, account_id, agent_id)
    conn.execute(
        "UPDATE tracking_agents SET paused = 1, next_run_at = NULL, updated_at = ? WHERE id = ?",
        (conn.store.clock.now(), agent_id),
    )
    return get_agent(conn, account_id, agent_id)


def resume_agent(conn: Connection, account_id: str, agent_id: str) -> dict[str, Any]:
    """Resume scheduled cycles from now on (``next_run_at`` recomputed)."""
    row = agent_or_404(conn, account_id, agent_id)
    conn.execute(
        "UPDATE tracking_agents SET paused = 0, updated_at = ? WHERE id = ?",
        (conn.store.clock.now(), agent_id),
    )
    if row["paused"]:
        _plan_next(conn, agent_id, loads(row["schedule"]))
    return get_agent(conn, account_id, agent_id)


def list_messages(
    conn: Connection, account_id: str, agent_id: str, limit: int, cursor: str | None
) -> tuple[list[dict[str, Any]], bool, str | None]:
    """The agent's alert messages, newest first: ``(items, has_next, cursor)``."""
    agent_or_404(conn, account_id, agent_id)
    got = fetch_page(
        conn,
        columns="*",
        source="tracking_messages",
        where="agent_id = ?",
        params=[agent_id],
        sort=BY_CREATED,
        order="desc",
        limit=limit,
        cursor=cursor,
        scope=agent_id,
    )
    messages = [
        TrackingMessage.model_validate(
            {
                "message_id": row["id"],
                "agent_id": agent_id,
                "created_at": row["created_at"],
                **loads(row["body"]),
            }
        ).to_wire()
        for row in got.rows
    ]
    return messages, got.has_next, got.cursor


# -- cycles ----------------------------------------------------------------------------------
def _last_query(conn: sqlite3.Connection, dataset_id: str) -> dict[str, Any]:
    """The request echo of the dataset's latest run, or 400 ``dataset_has_no_queries``."""
    row = conn.execute(
        "SELECT params FROM dataset_runs WHERE dataset_id = ? ORDER BY created_at DESC, id DESC"
        " LIMIT 1",
        (dataset_id,),
    ).fetchone()
    if row is None:
        raise ApiError(
            400, "dataset_has_no_queries", f"Dataset {dataset_id} has never run a search."
        )
    params: dict[str, Any] = loads(row["params"])
    return params


def _start_cycle(
    conn: Connection, settings: Settings, agent: sqlite3.Row, trigger: str
) -> sqlite3.Row:
    """Start one dataset run per dataset (charged as normal runs) and the tracking run."""
    running = conn.execute(
        "SELECT id FROM tracking_runs WHERE agent_id = ? AND status IN (?, ?)",
        (agent["id"], *CYCLE.table.live),
    ).fetchone()
    if running is not None:
        raise ApiError(
            409,
            "tracking_agent_run_in_progress",
            f"Cycle {running['id']} of agent {agent['id']} is still running.",
        )
    dataset_ids = loads(agent["dataset_ids"])
    _check_datasets(conn, agent["account_id"], dataset_ids)
    queries = {dataset_id: _last_query(conn, dataset_id) for dataset_id in dataset_ids}
    run_ids = []
    for dataset_id, last in queries.items():
        # The last search again, over the default window (an old explicit range would
        # only find what was already collected), at the agent's depth.
        request = {k: v for k, v in last.items() if k != "date_range"}
        request.update(count=agent["count"], num_comments_per_post=agent["num_comments_per_post"])
        dataset_run = start_run(
            conn,
            settings,
            agent["account_id"],
            dataset_id,
            DatasetRunCreate.model_validate(request),
            error_code="insufficient_credits",
        )
        run_ids.append(dataset_run["id"])
    # The cycle reserves nothing itself: each of its dataset runs reserved its own price.
    run = CYCLE.accept(
        conn,
        agent["account_id"],
        {"agent_id": agent["id"], "trigger": trigger, "dataset_run_ids": dumps(run_ids)},
    )
    conn.execute(
        "UPDATE tracking_agents SET last_run_at = ? WHERE id = ?",
        (run["created_at"], agent["id"]),
    )
    return run


def _tracking_run_wire(row: sqlite3.Row) -> dict[str, Any]:
    return TrackingRun.model_validate(
        {
            "id": row["id"],
            "agent_id": row["agent_id"],
            "created_at": row["created_at"],
            "dataset_run_ids": loads(row["dataset_run_ids"]),
            "status": {"type": row["status"]},
        }
    ).to_wire()


def trigger(conn: Connection, settings: Settings, account_id: str, agent_id: str) -> dict[str, Any]:
    """Start an out-of-schedule cycle; the tracking run (``pending``) as a wire dict."""
    agent = agent_or_404(conn, account_id, agent_id)
    return _tracking_run_wire(_start_cycle(conn, settings, agent, "manual"))


# -- the worker ---------------------------------------------------------------------------
def _scheduled_cycle(store: Store, job: Job) -> None:
    """A due scheduled cycle: start it (unless stale) and plan the next one."""
    with store.transaction() as conn:
        agent = conn.execute(
            "SELECT * FROM tracking_agents WHERE id = ? AND deleted_at IS NULL AND paused = 0",
            (job.ref_id,),
        ).fetchone()
        if agent is None or agent["next_run_at"] != job.payload.get("due"):
            return  # paused, deleted or rescheduled since this job was planned
        conn.execute("SAVEPOINT cycle")
        try:
            # No request to answer: the settings only feed a 402's top-up link.
            _start_cycle(conn, Settings(), agent, "schedule")
        except ApiError:
            # Skipped (busy, unfunded, no query): undo partial dataset runs, keep the plan.
            conn.execute("ROLLBACK TO cycle")
        conn.execute("RELEASE cycle")
        _plan_next(conn, agent["id"], loads(agent["schedule"]))


def _watch(conn: Connection, run: sqlite3.Row, _: None) -> Outcome:
    """Follow a cycle's dataset runs; when all are over, complete it and post the alert."""
    run_ids = loads(run["dataset_run_ids"])
    marks = ",".join("?" * len(run_ids))
    statuses = [
        r["status"]
        for r in conn.execute(
            f"SELECT status FROM dataset_runs WHERE id IN ({marks})", run_ids
        ).fetchall()
    ]
    if any(status in CYCLE.table.live for status in statuses):
        return Again(started="working" in statuses)
    if "completed" not in statuses:
        return Failed("every dataset run of the cycle failed")
    _post_alert(conn, run, run_ids)
    return Done()


def _post_alert(conn: Connection, run: sqlite3.Row, run_ids: Sequence[str]) -> None:
    """Write the alert message for the posts this cycle added to the agent's datasets."""
    agent = conn.execute(
        "SELECT * FROM tracking_agents WHERE id = ?", (run["agent_id"],)
    ).fetchone()
    marks = ",".join("?" * len(run_ids))
    rows = conn.execute(
        "SELECT DISTINCT m.source, m.id, m.body FROM dataset_mentions dm JOIN mentions m"
        " ON m.account_id = ? AND m.source = dm.source AND m.id = dm.id"
        f" WHERE dm.run_id IN ({marks}) ORDER BY m.created_at DESC, m.source, m.id",
        [run["account_id"], *run_ids],
    ).fetchall()
    dataset_ids = loads(agent["dataset_ids"])
    id_marks = ",".join("?" * len(dataset_ids))
    names = [
        r["name"]
        for r in conn.execute(
            f"SELECT name FROM datasets WHERE id IN ({id_marks}) ORDER BY name", dataset_ids
        ).fetchall()
    ]
    pattern = conn.execute(
        f"SELECT id, name FROM patterns WHERE dataset_id IN ({id_marks})"
        " ORDER BY created_at DESC LIMIT 1",
        dataset_ids,
    ).fetchone()
    alert = compose_alert(
        agent["name"],
        agent["instructions"],
        [loads(r["body"]) for r in rows],
        names,
        None if pattern is None else {"id": pattern["id"], "name": pattern["name"]},
    )
    chat_id = chats.post_alert(conn, agent["id"], alert)
    if chat_id is not None:
        alert["chat_id"] = chat_id  # where the creating seat answers the alert (extension)
    conn.execute(
        "INSERT INTO tracking_messages VALUES (?, ?, ?, ?, ?)",
        (new_id(conn, "tam"), agent["id"], run["id"], dumps(alert), conn.store.clock.now()),
    )


CYCLE: RunKind[None] = RunKind(
    "tracking_trigger",
    RunTable("tracking_runs", live=("pending", "working"), errors=False, reserves=False),
    id_prefix="tar",
    job="tracking_agent.watch",
    steps=(Step("watching", 2.0),),  # simulated seconds between looks at its dataset runs
    finish=_watch,
    queue_seconds=None,  # ``pending`` until one of its dataset runs is at work
    atomic=True,
)
"""A cycle's tracking run: the shared run state machine; its work is watching its dataset
runs (a crash marks it failed; the dataset runs settle themselves)."""
JOBS = (JobKind(_SCHEDULED, _scheduled_cycle), CYCLE.job_kind)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
