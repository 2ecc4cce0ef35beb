"""Custom parameters: ``/v1/custom_parameters...`` (CRUD, free preview, runs).

A parameter is a named extraction instruction; :mod:`rdskit.sandbox.text.extractor` carries it out,
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

Example (HTTP)::

    POST /v1/custom_parameters {"name": "Brand", "value_type": "string",
                                "instructions": "Which brand? One of: Oatly, Alpro"}
    POST /v1/custom_parameters/cp_…/runs {"scope": {"kind": "dataset", "id": "ds_…"}}
    -> {"status": "success", "data": {"run_id": "cpr_…"}}
"""

from __future__ import annotations

import math
import sqlite3
import zlib
from contextlib import suppress
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Body

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
from rdskit.sandbox import chaos, wallet
from rdskit.sandbox.api._common import (
    ApiError,
    Auth,
    SettingsDep,
    StoreDep,
    invalid,
    ok,
    parse_body,
    row_or_404,
)
from rdskit.sandbox.api._runs import add_run_reads
from rdskit.sandbox.api.datasets import FAIL_TOKEN, dataset_or_404
from rdskit.sandbox.backend.runs import RunTable
from rdskit.sandbox.db import Connection, Store, dumps, loads, new_id
from rdskit.sandbox.text.extractor import (
    VALUE_TYPES,
    Extraction,
    Rule,
    UnprocessablePost,
    compile_rule,
)
from rdskit.sandbox.worker import Job, JobKind, schedule

__all__ = ["FLAKY_TOKEN", "JOBS", "QUOTA", "model_gives_up", "router"]

router = APIRouter(prefix="/v1", tags=["custom parameters"])


FLAKY_TOKEN = "__flaky__"
"""Instructions containing this make runs fail about one post in five (see module doc)."""

QUOTA = {"Trial": 3, "Starter": 10, "Pro": 25, "Business": 100, "Legacy": 25}
"""Custom parameters per account by plan (the spec gives no numbers)."""

_DEFAULT_QUOTA = 25
_STEP = "custom_parameter_run.step"
_TICKS = 4  # a run processes its posts in about this many worker ticks
_TICK_SECONDS = 1.0  # simulated seconds between ticks
_ACTIVE = "processing"


def _parameter_or_404(conn: sqlite3.Connection, account_id: str, parameter_id: str) -> sqlite3.Row:
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


def _run_wire(row: sqlite3.Row) -> dict[str, Any]:
    handled = row["mentions_done"] + row["mentions_error"]
    return CustomParameterRun.model_validate(
        {
            "id": row["id"],
            "custom_parameter_id": row["parameter_id"],
            "scope": {"kind": row["scope_kind"], "id": row["scope_id"]},
            "status": {"type": row["status"]},
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


# -- parameter endpoints ----------------------------------------------------------------
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


@router.post("/custom_parameters")
def create_parameter(
    raw: Annotated[dict[str, Any], Body()], who: Auth, store: StoreDep
) -> dict[str, Any]:
    """Create a parameter (name unique per account, within the plan's quota)."""
    body = _parse(CustomParameterCreate, raw)
    with store.transaction() as conn:
        name = _unique_name(conn, who.account_id, body.name, None)
        plan = conn.execute("SELECT plan FROM accounts WHERE id = ?", (who.account_id,)).fetchone()
        quota = QUOTA.get(plan["plan"], _DEFAULT_QUOTA)
        (used,) = conn.execute(
            "SELECT COUNT(*) FROM custom_parameters WHERE account_id = ?", (who.account_id,)
        ).fetchone()
        if used >= quota:
            raise ApiError(
                400,
                "custom_parameter_limit_exceeded",
                f"The {plan['plan']} plan allows {quota} custom parameters.",
            )
        parameter_id = new_id(conn, "cp")
        now = store.clock.now()
        conn.execute(
            "INSERT INTO custom_parameters VALUES (?, ?, ?, ?, ?, ?, ?)",
            (parameter_id, who.account_id, name, body.instructions, body.value_type, now, now),
        )
        row = _parameter_or_404(conn, who.account_id, parameter_id)
    return ok(_parameter_wire(row))


@router.get("/custom_parameters")
def list_parameters(who: Auth, store: StoreDep) -> dict[str, Any]:
    """Every parameter of the account, oldest first (no pagination fields)."""
    with store.read() as conn:
        rows = conn.execute(
            "SELECT * FROM custom_parameters WHERE account_id = ? ORDER BY created_at, id",
            (who.account_id,),
        ).fetchall()
    return ok([_parameter_wire(row) for row in rows])


@router.post("/custom_parameters/preview")
def preview(body: CustomParameterPreviewRequest, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Apply instructions to 1..5 stored posts; free. Unknown or unreadable posts give null."""
    rule = compile_rule(body.instructions, body.value_type)
    results = []
    with store.read() as conn:
        for ref in body.post_refs:
            value = None
            with suppress(UnprocessablePost):
                value = _extract(conn, rule, who.account_id, ref.source, ref.id).value
            results.append({"post_id": ref.id, "source": ref.source, "value": value})
    return ok(CustomParameterPreview.model_validate({"results": results}).to_wire())


@router.get("/custom_parameters/{parameter_id}")
def get_parameter(parameter_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One parameter."""
    with store.read() as conn:
        return ok(_parameter_wire(_parameter_or_404(conn, who.account_id, parameter_id)))


@router.patch("/custom_parameters/{parameter_id}")
def update_parameter(
    parameter_id: str, raw: Annotated[dict[str, Any], Body()], who: Auth, store: StoreDep
) -> dict[str, Any]:
    """Partial update of name, instructions and value_type (stored values are kept)."""
    body = _parse(CustomParameterUpdate, raw)
    changes = body.model_dump(exclude_none=True, include={"name", "instructions", "value_type"})
    with store.transaction() as conn:
        row = _parameter_or_404(conn, who.account_id, parameter_id)
        if "name" in changes:
            changes["name"] = _unique_name(conn, who.account_id, changes["name"], parameter_id)
        merged = {key: changes.get(key, row[key]) for key in ("name", "instructions", "value_type")}
        conn.execute(
            "UPDATE custom_parameters SET name = ?, instructions = ?, value_type = ?,"
            " updated_at = ? WHERE id = ?",
            (
                merged["name"],
                merged["instructions"],
                merged["value_type"],
                store.clock.now(),
                parameter_id,
            ),
        )
        row = _parameter_or_404(conn, who.account_id, parameter_id)
    return ok(_parameter_wire(row))


@router.delete("/custom_parameters/{parameter_id}")
def delete_parameter(parameter_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Delete a parameter, its runs and its values; an active run is charged for its progress."""
    with store.transaction() as conn:
        _parameter_or_404(conn, who.account_id, parameter_id)
        for run in conn.execute(
            "SELECT * FROM custom_parameter_runs WHERE parameter_id = ? AND status = ?",
            (parameter_id, _ACTIVE),
        ).fetchall():
            wallet.settle(conn, run["reservation_id"], run["mentions_done"])
        conn.execute(
            "DELETE FROM mention_parameters WHERE account_id = ? AND parameter_id = ?",
            (who.account_id, parameter_id),
        )
        conn.execute("DELETE FROM custom_parameters WHERE id = ?", (parameter_id,))
    return ok({"id": parameter_id, "deleted": True})


# -- runs -----------------------------------------------------------------------------------
@router.post("/custom_parameters/{parameter_id}/runs")
def start_run(
    parameter_id: str,
    body: CustomParameterRunCreate,
    who: Auth,
    store: StoreDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Extract the parameter for every mention of the scope's dataset; returns ``{run_id}``."""
    with store.transaction() as conn:
        _parameter_or_404(conn, who.account_id, parameter_id)
        if body.scope.kind not in SCOPE_KINDS:
            raise invalid(("scope", "kind"), f"kind must be one of {', '.join(SCOPE_KINDS)}")
        dataset_id = body.scope.id
        dataset_or_404(conn, who.account_id, dataset_id)
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
        run_id = new_id(conn, "cpr")
        reservation_id = wallet.reserve(
            conn,
            who.account_id,
            "post_processing",
            len(posts),
            run_id,
            error_code="insufficient_credits_content_analysis",
            top_up_url=settings.top_up_url,
        )
        now = store.clock.now()
        conn.execute(
            "INSERT INTO custom_parameter_runs (id, account_id, parameter_id, scope_kind, scope_id,"
            " status, mentions_total, reservation_id, created_at, updated_at)"
            " VALUES (?, ?, ?, 'dataset', ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                who.account_id,
                parameter_id,
                dataset_id,
                _ACTIVE,
                len(posts),
                reservation_id,
                now,
                now,
            ),
        )
        keys = [(p["source"], p["id"]) for p in posts]
        conn.executemany(
            "INSERT INTO custom_parameter_run_posts (run_id, source, mention_id, status)"
            " VALUES (?, ?, ?, 'pending')",
            [(run_id, *key) for key in keys],
        )
        # A new run replaces the parameter's earlier values for these posts.
        _drop_values(conn, who.account_id, parameter_id, run_id)
        conn.executemany(
            "INSERT INTO mention_parameters (account_id, source, mention_id, parameter_id,"
            " value, status, computed_at) VALUES (?, ?, ?, ?, NULL, 'pending', NULL)",
            [(who.account_id, *key, parameter_id) for key in keys],
        )
        schedule(
            conn, _STEP, run_id, delay=store.clock.scaled(_TICK_SECONDS), account_id=who.account_id
        )
    return ok(CustomParameterRunStarted(run_id=run_id).to_wire())


# GET /v1/custom_parameters/{id}/runs and /v1/custom_parameters/{id}/runs/{run_id}.
add_run_reads(
    router,
    "custom_parameters",
    parent_or_404=_parameter_or_404,
    source="custom_parameter_runs",
    parent="parameter_id",
    missing="custom_parameter_not_found",
    wire=_run_wire,
)


# -- the worker ---------------------------------------------------------------------------
def _undo(conn: Connection, run: sqlite3.Row) -> None:
    """A failed run drops the values it wrote."""
    _drop_values(conn, run["account_id"], run["parameter_id"], run["id"])


RUNS = RunTable("custom_parameter_runs", live=(_ACTIVE,), undo=_undo)
"""Custom parameter runs: the shared run lifecycle (fail, refund, crash) over their table."""


def _drop_values(conn: Connection, account_id: str, parameter_id: str, run_id: str) -> None:
    """Delete the parameter's values for the posts of ``run_id``."""
    conn.execute(
        "DELETE FROM mention_parameters WHERE account_id = ? AND parameter_id = ?"
        " AND (source, mention_id) IN"
        " (SELECT source, mention_id FROM custom_parameter_run_posts WHERE run_id = ?)",
        (account_id, parameter_id, run_id),
    )


def _step(store: Store, job: Job) -> None:
    """One tick: extract a batch of pending posts; complete (and settle) when none remain."""
    with store.transaction() as conn:
        run = conn.execute(
            "SELECT * FROM custom_parameter_runs WHERE id = ?", (job.ref_id,)
        ).fetchone()
        if run is None or run["status"] != _ACTIVE:
            return  # deleted, or a job re-run after a restart
        parameter = conn.execute(
            "SELECT * FROM custom_parameters WHERE id = ?", (run["parameter_id"],)
        ).fetchone()
        dataset = conn.execute(
            "SELECT deleted_at FROM datasets WHERE id = ?", (run["scope_id"],)
        ).fetchone()
        if dataset is None or dataset["deleted_at"] is not None:
            RUNS.fail(conn, run, "the dataset was deleted")
            return
        if FAIL_TOKEN in parameter["instructions"] and run["mentions_done"] + run["mentions_error"]:
            RUNS.fail(conn, run, "the extraction model failed")
            return
        state = chaos.of(store)
        if state.take_failure("custom_parameter_run", "extraction"):
            RUNS.fail(conn, run, "extraction failed (sandbox chaos)")
            return
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
        finished = done + errors >= run["mentions_total"]
        conn.execute(
            "UPDATE custom_parameter_runs SET mentions_done = ?, mentions_error = ?, status = ?,"
            " updated_at = ? WHERE id = ?",
            (done, errors, "completed" if finished else _ACTIVE, now, run["id"]),
        )
        if finished:
            wallet.settle(conn, run["reservation_id"], done)
        else:
            schedule(conn, _STEP, run["id"], delay=store.clock.scaled(_TICK_SECONDS))


JOBS = (JobKind(_STEP, _step, on_error=RUNS.crash_handler()),)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
