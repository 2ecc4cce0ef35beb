"""Audience datasets, audience runs and audience profiles: ``/v1/audience_*``.

Thin: the state, SQL and rules live in :mod:`rdskit.sandbox.backend.audiences`. An audience
dataset is a named container; a run profiles the people behind a source dataset
(``total_profile_count`` x the audience_profile price reserved, actuals charged on
completion, everything refunded on failure); profiles are listed for free.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rdskit.models.audiences import (
    AudienceDataset,
    AudienceDatasetCreate,
    AudienceDatasetUpdate,
    AudienceRunCreate,
)
from rdskit.models.profiles import ProfilesQuery
from rdskit.sandbox.api._common import Auth, SettingsDep, StoreDep, ok, page
from rdskit.sandbox.api._containers import add_container_routes
from rdskit.sandbox.api._runs import add_run_reads
from rdskit.sandbox.backend import audiences as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["audiences"])


# POST/GET /v1/audience_datasets and GET/PATCH/DELETE /v1/audience_datasets/{id} (the
# spec's audience_dataset_id). DELETE (an empty body, as the spec shows) hides the dataset
# and its profiles from every read.
add_container_routes(
    router,
    "audience_datasets",
    "audience_dataset_id",
    containers=backend.AUDIENCE_DATASETS,
    model=AudienceDataset,
    create=AudienceDatasetCreate,
    update=AudienceDatasetUpdate,
    deleted=lambda _audience_dataset_id: None,
)


@router.post("/audience_datasets/{audience_dataset_id}/runs")
def start_audience_run(
    audience_dataset_id: str,
    body: AudienceRunCreate,
    who: Auth,
    store: StoreDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    """Start profiling a dataset's people; returns at once with ``status.type == "pending"``."""
    with store.transaction() as conn:
        return ok(backend.start_run(conn, settings, who.account_id, audience_dataset_id, body))


# GET /v1/audience_datasets/{audience_dataset_id}/runs and .../runs/{run_id}.
add_run_reads(router, "audience_datasets", "audience_dataset_id", backend.RUN_READS)


@router.post("/audience_profiles")
def list_audience_profiles(body: ProfilesQuery, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Profiles of the account's (or the given) audience datasets; free."""
    with store.read() as conn:
        items, has_next, cursor = backend.list_profiles(conn, who.account_id, body)
    return page(items, has_next=has_next, cursor=cursor)
