"""Pattern detections and patterns: ``/v1/pattern_detections...``, ``/v1/patterns...``.

Thin: the state, SQL and rules live in :mod:`rdskit.sandbox.backend.patterns`. A detection
reserves ``post_processing`` for the posts of the dataset's latest completed run and goes
``pending`` -> ``working`` (sampling, clustering, summarizing) -> ``completed`` with a
``pattern_id``; patterns are read-only and free.

Example (HTTP)::

    POST /v1/pattern_detections {"dataset_id": "ds_…", "name": "Pains",
                                 "research_question": "What do people complain about?"}
    -> {"data": {"run_id": "pdr_…", "status": {"type": "pending", "steps": []}, …}}
    GET /v1/pattern_detections/pdr_…  -> … "status": {"type": "completed", …}, "pattern_id": "pt_…"
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rdskit.models import PatternDetectionCreate
from rdskit.sandbox.api._common import Auth, SettingsDep, StoreDep, ok
from rdskit.sandbox.backend import patterns as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["patterns"])


@router.post("/pattern_detections")
def create_detection(
    body: PatternDetectionCreate, who: Auth, store: StoreDep, settings: SettingsDep
) -> dict[str, Any]:
    """Start a detection over a dataset; returns the run, ``pending`` with no steps."""
    with store.transaction() as conn:
        return ok(backend.start_detection(conn, settings, who.account_id, body))


@router.get("/pattern_detections/{run_id}")
def get_detection(run_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """A detection run; ``pattern_id`` once completed."""
    with store.read() as conn:
        return ok(backend.get_detection(conn, who.account_id, run_id))


@router.get("/patterns/{pattern_id}")
def get_pattern(pattern_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """A pattern: its summary and items, largest first."""
    with store.read() as conn:
        return ok(backend.get_pattern(conn, who.account_id, pattern_id))


@router.get("/patterns/{pattern_id}/items/{item_id}")
def get_pattern_item(pattern_id: str, item_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One item with its posts (most typical first) as post references."""
    with store.read() as conn:
        return ok(backend.get_pattern_item(conn, who.account_id, pattern_id, item_id))
