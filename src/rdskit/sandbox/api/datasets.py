"""Datasets and dataset runs: ``/v1/datasets...``.

Thin: the state, SQL and rules (the run's steps, reservation and settlement, mention
storage) live in :mod:`rdskit.sandbox.backend.datasets`. A run is accepted as ``pending``
with the mention price x ``count`` reserved, then the worker walks it through ``working``
(steps scraping -> enrichment -> analysis) to ``completed`` or ``failed`` (all refunded).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rdskit.models import Dataset, DatasetCreate, DatasetRunCreate, DatasetUpdate
from rdskit.sandbox.api._common import Auth, SettingsDep, StoreDep, ok
from rdskit.sandbox.api._containers import add_container_routes
from rdskit.sandbox.api._runs import add_run_reads
from rdskit.sandbox.backend import datasets as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["datasets"])


# POST/GET /v1/datasets and GET/PATCH/DELETE /v1/datasets/{dataset_id}. DELETE hides the
# dataset everywhere but keeps it for the audience datasets built from it.
add_container_routes(
    router,
    "datasets",
    "dataset_id",
    containers=backend.DATASETS,
    model=Dataset,
    create=DatasetCreate,
    update=DatasetUpdate,
    deleted=lambda dataset_id: {"id": dataset_id, "deleted": True},
)


@router.post("/datasets/{dataset_id}/runs")
def create_run(
    dataset_id: str, body: DatasetRunCreate, who: Auth, store: StoreDep, settings: SettingsDep
) -> dict[str, Any]:
    """Start a collection run; returns at once with ``status.type == "pending"``."""
    with store.transaction() as conn:
        row = backend.start_run(conn, settings, who.account_id, dataset_id, body)
    return ok(backend.accepted_run_wire(row))


# GET /v1/datasets/{dataset_id}/runs and /v1/datasets/{dataset_id}/runs/{run_id}.
add_run_reads(router, "datasets", "dataset_id", backend.RUN_READS)
