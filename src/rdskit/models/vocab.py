"""The service's vocabulary, defined once: every fixed set of names the spec shows.

Client models, frame loaders, the Jupyter layer and the sandbox import these; none of them
writes its own copy. Orders are meaningful where said (the wire's field order, which the
frame columns follow).

Example:
    >>> from rdskit.models import vocab
    >>> vocab.RUN_KIND_CATEGORIES["audience_run"], vocab.EMOTIONS[0]
    ('audience_profile', 'neutral')
    >>> "hashtag" in vocab.SEARCH_QUERY_TYPES
    False
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final

__all__ = [
    "AD_META_FIELDS",
    "BILLING_UNITS",
    "CONTENT_ANALYSIS_ACTIONS",
    "CONTENT_TYPES",
    "CREDIT_PLACES",
    "EMOTIONS",
    "FREQUENCIES",
    "PLAN_FEATURES",
    "PLAN_TYPES",
    "PRICE_CATEGORIES",
    "RUN_KIND_CATEGORIES",
    "RUN_STATUSES",
    "SCHEDULE_TIME",
    "SEARCH_QUERY_TYPES",
    "SENTIMENTS",
    "SOURCES",
    "USAGE_CATEGORIES",
    "WEEKDAYS",
]

SOURCES: Final = ("reddit", "tiktok", "youtube", "instagram", "linkedin")
"""The five sources the service collects from."""

CONTENT_TYPES: Final = ("organic", "ad")
"""A mention's ``content_type``: ``organic`` is seen, ad posts exist too."""

SENTIMENTS: Final = ("negative", "neutral", "positive")
"""Sentiment labels, in the wire order of a mention's ``sentiment`` object."""

EMOTIONS: Final = ("neutral", "joy", "sadness", "anger", "surprise", "fear", "disgust")
"""Emotion labels, in the wire order of a mention's ``emotions`` object."""

PRICE_CATEGORIES: Final = ("audience_profile", "mention", "post_processing", "preview_generation")
"""The priced categories of ``GET /v1/prices``."""

USAGE_CATEGORIES: Final = (
    "mention",
    "audience_profile",
    "post_processing",
    "preview_generation",
    "ai_assistant",
    "report",
    "audience_research",
    "tracking",
    "research_mention",
    "tracking_mention",
)
"""Usage history categories seen; other strings are kept."""

RUN_KIND_CATEGORIES: Final[dict[str, str]] = {
    "dataset_run": "mention",
    "audience_run": "audience_profile",
    "custom_parameter_run": "post_processing",
    "pattern_detection": "post_processing",
    "research_preview": "preview_generation",
    "tracking_trigger": "mention",
}
"""Each kind of paid work -> the price category it reserves and is charged in."""

RUN_STATUSES: Final = ("pending", "working", "processing", "completed", "failed")
"""The statuses the spec shows for runs and Ask replies (``completed`` and ``failed`` end
them); a waited-on object in any other status is watched with suspicion."""

CREDIT_PLACES: Final = Decimal("0.000001")
"""Credits are exact to six decimal places (wire strings, conversions, display)."""

PLAN_FEATURES: Final = (
    "api_access",
    "audience_research",
    "csv_export",
    "custom_date_filter",
    "daily_digest",
    "digest_webhook",
    "mcp",
    "multisource_research",
    "webhooks",
)
"""Plan feature flags seen (``plan.features``)."""

PLAN_TYPES: Final = ("subscription", "one_time", "one_time_renewable")
"""Billing kinds of a plan (``plan.type``); not an access level."""

BILLING_UNITS: Final = ("credits", "usd")
"""How an account's amounts are presented (``billing.unit``)."""

SEARCH_QUERY_TYPES: Final = ("prompt", "url")
"""The ``search_query.type`` values the spec shows; others are kept as unknown queries."""

CONTENT_ANALYSIS_ACTIONS: Final = ("sentiment", "hook", "cta")
"""Content analysis actions with their own fields; other strings are passed through."""

FREQUENCIES: Final = ("daily", "weekly")
"""Tracking schedule frequencies; a weekly schedule names its ``day``."""

WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""Values of a schedule's ``day`` (lowercase weekday names)."""

SCHEDULE_TIME: Final = re.compile(r"([01]\d|2[0-3]):[0-5]\d")
"""A schedule's ``time``: ``HH:MM``, 00:00..23:59 (UTC)."""

AD_META_FIELDS: Final = (
    "advertiser_id",
    "advertiser_name",
    "landing_url",
    "display_format",
    "collation_id",
    "is_active",
    "ended_at",
    "publisher_platforms",
    "cta_text",
    "cta_type",
    "eu_reach",
    "advertiser_avatar_url",
    "duration_sec",
    "creative_group_key",
    "product_category",
    "creative_format",
    "advertiser_page_alias",
    "advertiser_likes",
    "advertiser_category",
    "advertiser_verified",
    "advertiser_ig_username",
    "advertiser_ig_followers",
    "advertiser_ig_verified",
)
"""The fields of an ad post's ``ad_meta``, in wire order."""
