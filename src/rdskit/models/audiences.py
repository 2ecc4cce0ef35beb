"""Audience datasets and audience runs (ISO 8601 timestamps)."""

from __future__ import annotations

from pydantic import Field

from rdskit.models._base import IsoDatetime, RdsModel, Waitable
from rdskit.models.common import RunStatus

__all__ = [
    "AudienceDataset",
    "AudienceDatasetCreate",
    "AudienceDatasetUpdate",
    "AudienceRun",
    "AudienceRunCreate",
]


class AudienceDataset(RdsModel):
    """A name-only container of profiles; ``updated_at``, ``profile_count`` absent on create.

    Example:
        >>> AudienceDataset.model_validate({"id": "ad_1", "name": "fans",
        ...     "created_at": "2026-01-01T00:00:00Z"}).to_wire()["created_at"]
        '2026-01-01T00:00:00Z'
    """

    id: str
    name: str
    created_at: IsoDatetime
    updated_at: IsoDatetime | None = None
    profile_count: int | None = None


class AudienceRun(Waitable):
    """One profiling run; the start response has only id, ids, created_at and status.

    Example:
        >>> AudienceRun.model_validate({"id": "adr_1", "audience_dataset_id": "ad_1",
        ...     "source_dataset_id": "ds_1", "created_at": "2026-01-01T00:00:00Z",
        ...     "status": {"type": "pending"}}).status.type
        'pending'
    """

    id: str
    audience_dataset_id: str
    source_dataset_id: str
    status: RunStatus
    created_at: IsoDatetime
    updated_at: IsoDatetime | None = None
    profile_count: int | None = None
    target_profile_count: int | None = None


class AudienceDatasetCreate(RdsModel):
    """Body of ``POST /v1/audience_datasets``.

    Example:
        >>> AudienceDatasetCreate(name="fans").to_wire()
        {'name': 'fans'}
    """

    name: str


class AudienceDatasetUpdate(RdsModel):
    """Body of ``PATCH /v1/audience_datasets/{id}``.

    Example:
        >>> AudienceDatasetUpdate(name="renamed").to_wire()
        {'name': 'renamed'}
    """

    name: str


class AudienceRunCreate(RdsModel):
    """Body of ``POST /v1/audience_datasets/{id}/runs``; ``total_profile_count`` 1..2000.

    Example:
        >>> AudienceRunCreate(source_dataset_id="ds_1").total_profile_count
        300
    """

    wire_defaults = ("total_profile_count",)

    source_dataset_id: str
    total_profile_count: int = Field(default=300, ge=1, le=2000)
