"""Custom parameters: state, SQL and rules (routes: :mod:`rdskit.sandbox.api.custom_parameters`).

A parameter is a named extraction instruction; :mod:`rdskit.sandbox.synth.extractor` carries it out,
the same way for the free preview and for runs. A run over a dataset:

- is accepted with ``mentions_total`` = the dataset's mentions, reserving that many
  ``post_processing`` units (402 ``insufficient_credits_content_analysis`` starts nothing);
- shows ``status.type == "processing"`` while the worker handles a batch per tick and
  ``mentions_done`` / ``mentions_error`` / ``mentions_remaining`` advance; posts the rules
  cannot process (no analysable text) are final failures and count in ``mentions_error``
  (the engine is deterministic, so a retry would give the same answer);
- is ``completed`` once done + error == total: the processed posts are charged
  (``mentions_done``), the rest of the reservation is refunded. A run that fails
  (its dataset deleted, or instructions containing ``__fail__``) refunds everything and
  drops the values it wrote.

**Failing on purpose:** instructions containing ``__fail__`` fail the run after its first
tick; instructions containing ``__flaky__`` make the model give up on about one post in
five (:func:`model_gives_up`), so the ``mentions_error`` path can be exercised on
collected posts, which always have text.

Extracted values live in ``mention_parameters`` (defined with the mentions query in
:mod:`rdskit.sandbox.backend.mention_query`, which reads it): one row per (post, parameter)
with the value as JSON, ``status`` ``pending`` until the run reaches the post, then ``completed`` or
``failed``. A run's own bookkeeping (which posts, with the rule's explanation) is in
``custom_parameter_run_posts``.

The run's lifecycle, reservation and settlement are
:class:`rdskit.sandbox.backend.runs.RunKind`'s; :data:`RUN` supplies the batch work.

Example:
    >>> RUN.category, RUN.accepted, model_gives_up("reddit", "t3_1") in (True, False)
    ('post_processing', 'processing', True)
"""

from __future__ import annotations

import math
import sqlite3
import zlib
from contextlib import suppress
from typing import Any, TypeVar

from rdskit.models import (
    SCOPE_KINDS,
    CustomParameter,
    CustomParameterCreate,
    CustomParameterPreview,
    CustomParameterPreviewRequest,
    CustomParameterRun,
    CustomParameterRunCreate,
    CustomParameterRunStarted,
    CustomParameterUpdate,
)
from rdskit.sandbox.backend.datasets import FAIL_TOKEN, dataset_or_404
from rdskit.sandbox.backend.runs import (
    Again,
    ChildRuns,
    Done,
    Outcome,
    RunKind,
    RunTable,
    Step,
    failure,
)
from rdskit.sandbox.errors import ApiError, invalid, parse_body
from rdskit.sandbox.runtime import chaos
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.db import Connection, dumps, loads, new_id, row_or_404
from rdskit.sandbox.synth.extractor import (
    VALUE_TYPES,
    Extraction,
    Rule,
    UnprocessablePost,
    compile_rule,
)

__all__ = [
    "FLAKY_TOKEN",
    "JOBS",
    "QUOTA",
    "RUN",
    "RUN_READS",
    "SCHEMA",
    "create_parameter",
    "delete_parameter",
    "get_parameter",
    "list_parameters",
    "model_gives_up",
    "parameter_or_404",
    "preview",
    "run_wire",
    "start_run",
    "update_parameter",
]

FLAKY_TOKEN = "__flaky__"
"""Instructions containing this make runs fail about one post in five (see module doc)."""

QUOTA = {"Trial": 3, "Starter": 10, "Pro": 25, "Business": 100, "Legacy": 25}
"""Custom parameters per account by plan (the spec gives no numbers)."""

_DEFAULT_QUOTA = 25
_TICKS = 4  # a run processes its posts in about this many worker ticks
_ACTIVE = "processing"

SCHEMA = """
CREATE TABLE IF NOT EXISTS custom_parameters (
    id           TEXT PRIMARY KEY,             -- cp_
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    name         TEXT NOT NULL,
    instructions TEXT NOT NULL,
    value_type   TEXT NOT NULL,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE IF NOT EXISTS custom_parameter_runs (
    id             TEXT PRIMARY KEY,           -- cpr_
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    parameter_id   TEXT NOT NULL REFERENCES custom_parameters(id) ON DELETE CASCADE,
    scope_kind     TEXT NOT NULL,              -- dataset
    scope_id       TEXT NOT NULL,
    status         TEXT NOT NULL,              -- processing | completed | failed
    mentions_total INTEGER NOT NULL,
    mentions_done  INTEGER NOT NULL DEFAULT 0,
    mentions_error INTEGER NOT NULL DEFAULT 0,
    reservation_id TEXT REFERENCES reservations(id),
    error          TEXT,
    created_at     REAL NOT NULL,
    updated_at     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS custom_parameter_runs_list
    ON custom_parameter_runs(parameter_id, created_at, id);

-- The posts of a run and the rule engine's reason for each value (for debugging).
CREATE TABLE IF NOT EXISTS custom_parameter_run_posts (
    run_id      TEXT NOT NULL REFERENCES custom_parameter_runs(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    mention_id  TEXT NOT NULL,
    status      TEXT NOT NULL,                 -- pending | completed | failed
    explanation TEXT,
    PRIMARY KEY (run_id, source, mention_id)
);
CREATE INDEX IF NOT EXISTS custom_parameter_run_posts_pending
    ON custom_parameter_run_posts(run_id, status, source, mention_id);
"""


def parameter_or_404(conn: sqlite3.Connection, account_id: str, parameter_id: str) -> sqlite3.Row:
    """The account's parameter, or 404 ``custom_parameter_not_found``."""
    return row_or_404(
        conn,
        "custom_parameters",
        "custom_parameter_not_found",
        f"Custom parameter {parameter_id} not found",
        id=parameter_id,
        account_id=account_id,
    )


def _parameter_wire(row: sqlite3.Row) -> dict[str, Any]:
    return CustomParameter.model_validate(
        {
            "id": row["id"],
            "name": row["name"],
            "instructions": row["instructions"],
            "value_type": row["value_type"],
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
        }
    ).to_wire()


def run_wire(row: sqlite3.Row) -> dict[str, Any]:
    """A run row as the ``CustomParameterRun`` wire dict."""
    handled = row["mentions_done"] + row["mentions_error"]
    return CustomParameterRun.model_validate(
        {
            "id": row["id"],
            "custom_parameter_id": row["parameter_id"],
            "scope": {"kind": row["scope_kind"], "id": row["scope_id"]},
            "status": {"type": row["status"], **failure(row)},
            "mentions_total": row["mentions_total"],
            "mentions_done": row["mentions_done"],
            "mentions_error": row["mentions_error"],
            "mentions_remaining": row["mentions_total"] - handled,
            "created_at": row["created_at"],
            "updated_at": row["updated_at"],
        }
    ).to_wire()


def model_gives_up(source: str, post_id: str) -> bool:
    """Whether a ``__flaky__`` parameter's model fails this post for good (1 post in 5)."""
    return zlib.crc32(f"{source}:{post_id}".encode()) % 5 == 0


def _extract(
    conn: sqlite3.Connection, rule: Rule, account_id: str, source: str, post_id: str
) -> Extraction:
    """Apply ``rule`` to one stored post; a post that is not stored cannot be processed."""
    row = conn.execute(
        "SELECT body FROM mentions WHERE account_id = ? AND source = ? AND id = ?",
        (account_id, source, post_id),
    ).fetchone()
    if row is None:
        raise UnprocessablePost("the post is not stored")
    body = loads(row["body"])
    return rule.apply(body.get("title"), body.get("text"))


Request = TypeVar("Request", CustomParameterCreate, CustomParameterUpdate)


def _parse(model: type[Request], raw: dict[str, Any]) -> Request:
    """The request body as ``model``.

    An empty name is the spec's 400 ``custom_parameter_empty_name`` rather than the model's
    422, and ``value_type`` must be one the rule engine produces.
    """
    name = raw.get("name")
    if isinstance(name, str) and not name.strip():
        raise ApiError(
            400, "custom_parameter_empty_name", "A custom parameter needs a non-empty name."
        )
    body = parse_body(model, raw)
    if body.value_type is not None and body.value_type not in VALUE_TYPES:
        raise invalid(("value_type",), f"value_type must be one of {', '.join(VALUE_TYPES)}")
    return body


def _unique_name(conn: sqlite3.Connection, account_id: str, name: str, own_id: str | None) -> str:
    """The trimmed name, or 409 ``custom_parameter_duplicate_name``."""
    name = name.strip()
    clash = conn.execute(
        "SELECT id FROM custom_parameters WHERE account_id = ? AND name = ? AND id IS NOT ?",
        (account_id, name, own_id),
    ).fetchone()
    if clash is not None:
        raise ApiError(
            409,
            "custom_parameter_duplicate_name",
            f"A custom parameter named {name!r} exists ({clash['id']}).",
        )
    return name


def create_parameter(conn: Connection, account_id: str, raw: dict[str, Any]) -> dict[str, Any]:
    """Create a parameter (name unique per account, within the plan's quota)."""
    body = _parse(CustomParameterCreate, raw)
    name = _unique_name(conn, account_id, body.name, None)
    plan = conn.execute("SELECT plan FROM accounts WHERE id = ?", (account_id,)).fetchone()
    quota = QUOTA.get(plan["plan"], _DEFAULT_QUOTA)
    (used,) = conn.execute(
        "SELECT COUNT(*) FROM custom_parameters WHERE account_id = ?", (account_id,)
    ).fetchone()
    if used >= quota:
        raise ApiError(
            400,
            "custom_parameter_limit_exceeded",
            f"The {plan['plan']} plan allows {quota} custom parameters.",
        )
    parameter_id = new_id(conn, "cp")
    now = conn.store.clock.now()
    conn.execute(
        "INSERT INTO custom_parameters VALUES (?, ?, ?, ?, ?, ?, ?)",
        (parameter_id, account_id, name, body.instructions, body.value_type, now, now),
    )
    return _parameter_wire(parameter_or_404(conn, account_id, parameter_id))


def list_parameters(conn: sqlite3.Connection, account_id: str) -> list[dict[str, Any]]:
    """Every parameter of the account, oldest first."""
    rows = conn.execute(
        "SELECT * FROM custom_parameters WHERE account_id = ? ORDER BY created_at, id",
        (account_id,),
    ).fetchall()
    return [_parameter_wire(row) for row in rows]


def preview(
    conn: sqlite3.Connection, account_id: str, body: CustomParameterPreviewRequest
) -> dict[str, Any]:
    """Apply instructions to 1..5 stored posts; unknown or unreadable posts give null."""
    rule = compile_rule(body.instructions, body.value_type)
    results = []
    for ref in body.post_refs:
        value = None
        with suppress(UnprocessablePost):
            value = _extract(conn, rule, account_id, ref.source, ref.id).value
        results.append({"post_id": ref.id, "source": ref.source, "value": value})
    return CustomParameterPreview.model_validate({"results": results}).to_wire()


def get_parameter(conn: sqlite3.Connection, account_id: str, parameter_id: str) -> dict[str, Any]:
    """One parameter's wire dict."""
    return _parameter_wire(parameter_or_404(conn, account_id, parameter_id))


def update_parameter(
    conn: Connection, account_id: str, parameter_id: str, raw: dict[str, Any]
) -> dict[str, Any]:
    """Partial update of name, instructions and value_type (stored values are kept)."""
    body = _parse(CustomParameterUpdate, raw)
    changes = body.model_dump(exclude_none=True, include={"name", "instructions", "value_type"})
    row = parameter_or_404(conn, account_id, parameter_id)
    if "name" in changes:
        changes["name"] = _unique_name(conn, account_id, changes["name"], parameter_id)
    merged = {key: changes.get(key, row[key]) for key in ("name", "instructions", "value_type")}
    conn.execute(
        "UPDATE custom_parameters SET name = ?, instructions = ?, value_type = ?,"
        " updated_at = ? WHERE id = ?",
        (
            merged["name"],
            merged["instructions"],
            merged["value_type"],
            conn.store.clock.now(),
            parameter_id,
        ),
    )
    return _parameter_wire(parameter_or_404(conn, account_id, parameter_id))


def delete_parameter(conn: Connection, account_id: str, parameter_id: str) -> None:
    """Delete a parameter, its runs and its values; an active run is charged for its progress."""
    parameter_or_404(conn, account_id, parameter_id)
    for run in conn.execute(
        "SELECT * FROM custom_parameter_runs WHERE parameter_id = ? AND status = ?",
        (parameter_id, _ACTIVE),
    ).fetchall():
        RUN.cut_short(conn, run, run["mentions_done"])
    conn.execute(
        "DELETE FROM mention_parameters WHERE account_id = ? AND parameter_id = ?",
        (account_id, parameter_id),
    )
    conn.execute("DELETE FROM custom_parameters WHERE id = ?", (parameter_id,))


# -- runs -----------------------------------------------------------------------------------
def start_run(
    conn: Connection,
    settings: Settings,
    account_id: str,
    parameter_id: str,
    body: CustomParameterRunCreate,
) -> dict[str, Any]:
    """Extract the parameter for every mention of the scope's dataset; ``{run_id}``."""
    parameter_or_404(conn, account_id, parameter_id)
    if body.scope.kind not in SCOPE_KINDS:
        raise invalid(("scope", "kind"), f"kind must be one of {', '.join(SCOPE_KINDS)}")
    dataset_id = body.scope.id
    dataset_or_404(conn, account_id, dataset_id)
    active = conn.execute(
        "SELECT id FROM custom_parameter_runs WHERE parameter_id = ? AND status = ?",
        (parameter_id, _ACTIVE),
    ).fetchone()
    if active is not None:
        raise ApiError(
            409,
            "custom_parameter_run_in_flight",
            f"Run {active['id']} of {parameter_id} is still processing.",
        )
    posts = conn.execute(
        "SELECT source, id FROM dataset_mentions WHERE dataset_id = ?"
        " ORDER BY dataset_run_at, source, id",
        (dataset_id,),
    ).fetchall()
    if not posts:
        raise ApiError(
            400, "nothing_to_analyze", f"Dataset {dataset_id} has no mentions to analyze."
        )
    run = RUN.accept(
        conn,
        account_id,
        {
            "parameter_id": parameter_id,
            "scope_kind": "dataset",
            "scope_id": dataset_id,
            "mentions_total": len(posts),
        },
        quantity=len(posts),  # the price: post processing of every post of the dataset
        error_code="insufficient_credits_content_analysis",
        top_up_url=settings.top_up_url,
    )
    keys = [(p["source"], p["id"]) for p in posts]
    conn.executemany(
        "INSERT INTO custom_parameter_run_posts (run_id, source, mention_id, status)"
        " VALUES (?, ?, ?, 'pending')",
        [(run["id"], *key) for key in keys],
    )
    # A new run replaces the parameter's earlier values for these posts.
    _drop_values(conn, account_id, parameter_id, run["id"])
    conn.executemany(
        "INSERT INTO mention_parameters (account_id, source, mention_id, parameter_id,"
        " value, status, computed_at) VALUES (?, ?, ?, ?, NULL, 'pending', NULL)",
        [(account_id, *key, parameter_id) for key in keys],
    )
    return CustomParameterRunStarted(run_id=run["id"]).to_wire()


# -- the run's checks and batches -----------------------------------------------------------
def _undo(conn: Connection, run: sqlite3.Row) -> None:
    """A failed run drops the values it wrote."""
    _drop_values(conn, run["account_id"], run["parameter_id"], run["id"])


def _drop_values(conn: Connection, account_id: str, parameter_id: str, run_id: str) -> None:
    """Delete the parameter's values for the posts of ``run_id``."""
    conn.execute(
        "DELETE FROM mention_parameters WHERE account_id = ? AND parameter_id = ?"
        " AND (source, mention_id) IN"
        " (SELECT source, mention_id FROM custom_parameter_run_posts WHERE run_id = ?)",
        (account_id, parameter_id, run_id),
    )


def _check(conn: Connection, run: sqlite3.Row, step: str | None) -> str | None:
    """Why the run fails before its next batch: its dataset deleted, ``__fail__`` in the
    instructions (after the first batch), or chaos."""
    dataset = conn.execute(
        "SELECT deleted_at FROM datasets WHERE id = ?", (run["scope_id"],)
    ).fetchone()
    if dataset is None or dataset["deleted_at"] is not None:
        return "the dataset was deleted"
    parameter = conn.execute(
        "SELECT instructions FROM custom_parameters WHERE id = ?", (run["parameter_id"],)
    ).fetchone()
    if FAIL_TOKEN in parameter["instructions"] and run["mentions_done"] + run["mentions_error"]:
        return "the extraction model failed"
    if chaos.of(conn.store).take_failure("custom_parameter_run", "extraction"):
        return "extraction failed (sandbox chaos)"
    return None


def _batch(conn: Connection, run: sqlite3.Row, _: None) -> Outcome:
    """Extract a batch of pending posts; done (charging the posts processed) when none remain."""
    store = conn.store
    state = chaos.of(store)
    parameter = conn.execute(
        "SELECT * FROM custom_parameters WHERE id = ?", (run["parameter_id"],)
    ).fetchone()
    flaky = FLAKY_TOKEN in parameter["instructions"]
    instructions = parameter["instructions"].replace(FLAKY_TOKEN, " ")
    rule = compile_rule(instructions, parameter["value_type"])
    batch = conn.execute(
        "SELECT source, mention_id FROM custom_parameter_run_posts"
        " WHERE run_id = ? AND status = 'pending' ORDER BY source, mention_id LIMIT ?",
        (run["id"], max(1, math.ceil(run["mentions_total"] / _TICKS))),
    ).fetchall()
    now = store.clock.now()
    done = errors = 0
    for post in batch:
        outcome = state.parameter_post_outcome(run["id"], post["source"], post["mention_id"])
        if outcome == "retry":
            # The model failed this attempt: the post stays pending for the next tick.
            conn.execute(
                "UPDATE custom_parameter_run_posts SET explanation = ?"
                " WHERE run_id = ? AND source = ? AND mention_id = ?",
                ("failed once, retrying", run["id"], post["source"], post["mention_id"]),
            )
            continue
        try:
            if outcome == "fail":
                raise UnprocessablePost("the model failed the post again after retries")
            if flaky and model_gives_up(post["source"], post["mention_id"]):
                raise UnprocessablePost("the model gave up on the post after retries")
            result = _extract(conn, rule, run["account_id"], post["source"], post["mention_id"])
            status, value, why = "completed", dumps(result.value), result.explanation
            done += 1
        except UnprocessablePost as exc:
            status, value, why = "failed", None, str(exc)
            errors += 1
        key = (post["source"], post["mention_id"])
        conn.execute(
            "UPDATE mention_parameters SET value = ?, status = ?, computed_at = ?"
            " WHERE account_id = ? AND parameter_id = ? AND source = ? AND mention_id = ?",
            (value, status, now, run["account_id"], run["parameter_id"], *key),
        )
        conn.execute(
            "UPDATE custom_parameter_run_posts SET status = ?, explanation = ?"
            " WHERE run_id = ? AND source = ? AND mention_id = ?",
            (status, why, run["id"], *key),
        )
    done += run["mentions_done"]
    errors += run["mentions_error"]
    RUN.table.update(conn, run["id"], mentions_done=done, mentions_error=errors, updated_at=now)
    return Done(done) if done + errors >= run["mentions_total"] else Again()


RUN: RunKind[None] = RunKind(
    "custom_parameter_run",
    RunTable("custom_parameter_runs", live=(_ACTIVE,), undo=_undo),
    id_prefix="cpr",
    job="custom_parameter_run.step",
    steps=(Step("extraction", 1.0),),  # simulated seconds between batches
    check=_check,
    finish=_batch,
    queue_seconds=None,  # accepted straight into its batches: ``processing``
    accepted=_ACTIVE,
    working=_ACTIVE,
    atomic=True,  # a batch is quick: one transaction with its job
)
"""Custom parameter runs: the shared run state machine with their batches and price."""
JOBS = (RUN.job_kind,)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
RUN_READS = ChildRuns(
    RUN.table.table,
    "parameter_id",
    "custom_parameter_not_found",
    parent_or_404=parameter_or_404,
    wire=run_wire,
)
"""A custom parameter's runs as ``GET .../runs`` and ``GET .../runs/{run_id}`` read them."""
