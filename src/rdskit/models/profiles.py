"""Audience profiles (Unix-second timestamps) and the profiles query."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from rdskit.models._base import RdsModel, UnixDatetime
from rdskit.models.common import Media, Order
from rdskit.models.filters import FilterGroups

__all__ = ["PROFILE_SORTS", "AudienceProfile", "ProfilesQuery"]

PROFILE_SORTS = ("created_at", "audience_dataset_run_at")
"""Profile sorts the spec documents; other names are passed through."""


class AudienceProfile(RdsModel):
    """One author or commenter profiled by an audience run.

    Example:
        >>> p = AudienceProfile.model_validate({"id": "p1", "source": "tiktok",
        ...     "created_at": 1767225600, "follower_count": 1200})
        >>> p.to_wire()["created_at"], p.follower_count
        (1767225600, 1200)
    """

    id: str
    run_id: str | None = None
    source: str | None = None
    username: str | None = None
    display_name: str | None = None
    bio: str | None = None
    external_link: str | None = None
    is_verified: bool | None = None
    follower_count: int | None = None
    following_count: int | None = None
    content_count: int | None = None
    engagement_rate: float | None = None
    authenticity_score: float | None = None
    authenticity_confidence: float | None = None
    score: float | None = None
    authenticity_score_version: int | None = None
    authenticity_reason: str | None = None
    posting_cadence: str | None = None
    creator_tier: str | None = None
    aesthetic: str | None = None
    communication_tone: str | None = None
    occupation: str | None = None
    industry: str | None = None
    location_country: str | None = None
    location_city: str | None = None
    primary_language: str | None = None
    summary: str | None = None
    age: int | None = None
    gender: str | None = None
    content_niche: list[str] | None = None
    interest_clusters: list[str] | None = None
    brand_affinities: list[str] | None = None
    ocean: dict[str, Any] | None = None
    platform_metadata: dict[str, Any] | None = None
    avatar: Media | None = None
    created_at: UnixDatetime | None = None
    custom_parameters: dict[str, Any] | None = None


class ProfilesQuery(RdsModel):
    """Body of ``POST /v1/audience_profiles``; ``filters`` accepts any shape
    :func:`~rdskit.models.filters.normalize_filters` does and holds the wire groups.

    Example:
        >>> q = ProfilesQuery(filters={"type": "is_verified", "value": True}, limit=50)
        >>> q.to_wire()
        {'filters': [[{'type': 'is_verified', 'value': True}]], 'limit': 50}
    """

    audience_dataset_ids: list[str] | None = None
    filters: FilterGroups | None = None
    sort: str | None = None
    order: Order | None = None
    limit: int | None = Field(default=None, ge=1)
    cursor: str | None = None
