"""Sandbox-only chaos endpoints under ``/sandbox/chaos`` (thin: state in ``runtime/chaos.py``).

All need the ``x-admin-token`` header.

- ``GET /sandbox/chaos``: the current controls;
- ``DELETE /sandbox/chaos``: everything off;
- ``POST /sandbox/chaos/{control}``: set one control (``source``, ``failure``, ``fault``,
  ``assistant``, ``parameter_posts``; bodies in :data:`rdskit.sandbox.runtime.chaos.CONTROLS`);
- ``PUT /sandbox/chaos/datasets/{dataset_id}/content_type``: ``{content_type}``, so a run
  of the other type gets ``collection_content_type_mismatch``.

Example (HTTP)::

    POST /sandbox/chaos/fault {"route": "/v1/mentions", "kind": "error", "status": 503,
                               "probability": 0.5, "seed": 7}
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body
from pydantic import BaseModel

from rdskit.sandbox.api._common import Admin, ApiError, StoreDep, ok, parse_body
from rdskit.sandbox.runtime import chaos

__all__ = ["router"]

router = APIRouter(prefix="/sandbox/chaos", tags=["sandbox chaos"], dependencies=[Admin])


class ContentTypeBody(BaseModel):
    content_type: Literal["organic", "ad"]


@router.get("")
def get_chaos(store: StoreDep) -> dict[str, Any]:
    """The chaos controls in force."""
    return ok(chaos.of(store).snapshot())


@router.delete("")
def reset_chaos(store: StoreDep) -> dict[str, Any]:
    """Turn every control off."""
    chaos.of(store).reset()
    return ok(chaos.of(store).snapshot())


@router.post("/{control}")
def set_control(
    control: str, store: StoreDep, raw: Annotated[dict[str, Any], Body()]
) -> dict[str, Any]:
    """Set one control from its body (see :data:`rdskit.sandbox.runtime.chaos.CONTROLS`)."""
    model = chaos.CONTROLS.get(control)
    if model is None:
        known = ", ".join(chaos.CONTROLS)
        raise ApiError(404, "not_found", f"Unknown chaos control {control!r}; one of {known}")
    chaos.of(store).apply(control, parse_body(model, raw))
    return ok(chaos.of(store).snapshot())


@router.put("/datasets/{dataset_id}/content_type")
def set_content_type(dataset_id: str, body: ContentTypeBody, store: StoreDep) -> dict[str, Any]:
    """Fix a dataset's content type (``organic`` or ``ad``)."""
    with store.transaction() as conn:
        if not chaos.set_content_type(conn, dataset_id, body.content_type):
            raise ApiError(404, "dataset_not_found", f"Dataset {dataset_id} not found")
    return ok({"dataset_id": dataset_id, "content_type": body.content_type})
