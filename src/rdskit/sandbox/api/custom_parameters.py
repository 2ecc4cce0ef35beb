"""Custom parameters: ``/v1/custom_parameters...`` (CRUD, free preview, runs).

Thin: the state, SQL and rules (quota, unique names, the extraction batches, reservation and
settlement) live in :mod:`rdskit.sandbox.backend.custom_parameters`. A run over a dataset
reserves ``post_processing`` for each of its mentions, shows ``processing`` while batches
are extracted, and charges the posts processed on completion (everything refunded on
failure).

Example (HTTP)::

    POST /v1/custom_parameters {"name": "Brand", "value_type": "string",
                                "instructions": "Which brand? One of: Oatly, Alpro"}
    POST /v1/custom_parameters/cp_…/runs {"scope": {"kind": "dataset", "id": "ds_…"}}
    -> {"status": "success", "data": {"run_id": "cpr_…"}}
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body

from rdskit.models import CustomParameterPreviewRequest, CustomParameterRunCreate
from rdskit.sandbox.api._common import Auth, SettingsDep, StoreDep, ok
from rdskit.sandbox.api._runs import add_run_reads
from rdskit.sandbox.backend import custom_parameters as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["custom parameters"])


@router.post("/custom_parameters")
def create_parameter(
    raw: Annotated[dict[str, Any], Body()], who: Auth, store: StoreDep
) -> dict[str, Any]:
    """Create a parameter (name unique per account, within the plan's quota)."""
    with store.transaction() as conn:
        return ok(backend.create_parameter(conn, who.account_id, raw))


@router.get("/custom_parameters")
def list_parameters(who: Auth, store: StoreDep) -> dict[str, Any]:
    """Every parameter of the account, oldest first (no pagination fields)."""
    with store.read() as conn:
        return ok(backend.list_parameters(conn, who.account_id))


@router.post("/custom_parameters/preview")
def preview(body: CustomParameterPreviewRequest, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Apply instructions to 1..5 stored posts; free. Unknown or unreadable posts give null."""
    with store.read() as conn:
        return ok(backend.preview(conn, who.account_id, body))


@router.get("/custom_parameters/{parameter_id}")
def get_parameter(parameter_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One parameter."""
    with store.read() as conn:
        return ok(backend.get_parameter(conn, who.account_id, parameter_id))


@router.patch("/custom_parameters/{parameter_id}")
def update_parameter(
    parameter_id: str, raw: Annotated[dict[str, Any], Body()], who: Auth, store: StoreDep
) -> dict[str, Any]:
    """Partial update of name, instructions and value_type (stored values are kept)."""
    with store.transaction() as conn:
        return ok(backend.update_parameter(conn, who.account_id, parameter_id, raw))


@router.delete("/custom_parameters/{parameter_id}")
def delete_parameter(parameter_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Delete a parameter, its runs and its values; an active run is charged for its progress."""
    with store.transaction() as conn:
        backend.delete_parameter(conn, who.account_id, parameter_id)
    return ok({"id": parameter_id, "deleted": True})


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
        return ok(backend.start_run(conn, settings, who.account_id, parameter_id, body))


# GET /v1/custom_parameters/{parameter_id}/runs and .../runs/{run_id}.
add_run_reads(router, "custom_parameters", "parameter_id", backend.RUN_READS)
