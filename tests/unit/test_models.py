"""Wire models (``rdskit.models``) against wire examples built from the spec.

The central property: ``Model.model_validate(wire).to_wire() == wire`` for every resource,
in that resource's own encodings (ISO or Unix timestamps, USD numbers, six-decimal credit
strings), with unknown fields and unknown enum values surviving the trip.
"""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from rdskit import filters as f
from rdskit.errors import InvalidParameter
from rdskit.models import (
    Account,
    AskAccepted,
    AskContext,
    AskRequest,
    AudienceDataset,
    AudienceProfile,
    AudienceRun,
    AudienceRunCreate,
    Billing,
    Chat,
    ChatMessage,
    CountryCodeFilter,
    CustomParameter,
    CustomParameterCreate,
    CustomParameterPreview,
    CustomParameterPreviewRequest,
    CustomParameterRun,
    CustomParameterRunCreate,
    CustomParameterUpdate,
    Dataset,
    DatasetRun,
    DatasetRunCreate,
    DateRange,
    EntityReference,
    Envelope,
    ErrorBody,
    InsufficientCreditsDetail,
    KeywordFilter,
    ListEnvelope,
    Mention,
    MentionsQuery,
    Pattern,
    PatternDetectionRun,
    PatternItemDetail,
    PostReference,
    Prices,
    ProfilesQuery,
    PromptPreviewRequest,
    PromptSearchQuery,
    Reference,
    ResearchPreview,
    ResearchPreviewRequest,
    Schedule,
    TrackingAgent,
    TrackingAgentCreate,
    TrackingAgentUpdate,
    TrackingMessage,
    TrackingRun,
    UnknownFilter,
    UrlPreviewRequest,
    UsageRow,
    ValidationErrorBody,
    normalize_filters,
)

# --- wire examples ---------------------------------------------------------------

MEDIA = {
    "type": "image",
    "version_list": [{"url": "https://cdn.example/a.jpg", "width": 640, "height": 480}],
    "description": "a glass of oat milk",
}

DATASET = {
    "id": "ds_1",
    "name": "Oat milk",
    "created_at": "2026-01-05T10:00:00Z",
    "updated_at": "2026-01-06T11:30:00.250Z",
    "mentions_count": 120,
    "images_count": 30,
    "videos_count": 40,
    "url": "https://app.example/datasets/ds_1",
}

DATASET_CREATED = {"id": "ds_2", "name": "New", "created_at": "2026-01-05T10:00:00Z"}

DATASET_RUN = {
    "id": "dsr_1",
    "dataset_id": "ds_1",
    "status": {
        "type": "completed",
        "steps": [
            {
                "name": "scraping",
                "status": "completed",
                "started_at": "2026-01-05T10:00:01Z",
                "finished_at": "2026-01-05T10:02:00Z",
            }
        ],
    },
    "count": 100,
    "requested_count": 100,
    "created_at": "2026-01-05T10:00:00Z",
    "updated_at": "2026-01-05T10:05:00Z",
    "mentions_count": 98,
    "images_count": 20,
    "videos_count": 50,
    "new_mentions_count": 98,
    "params": {
        "content_analysis_actions": ["sentiment", "hook", "cta"],
        "count": 100,
        "country_code": "US",
        "date_range": {"from": "2025-12-01", "to": "2025-12-31"},
        "enable_transcribing": True,
        "enable_visual_recognition": False,
        "language": "en",
        "num_comments_per_post": 5,
        "search_query": {
            "type": "prompt",
            "sources": ["reddit", "tiktok"],
            "search_query": "oat milk",
            "fragments": ["oat milk", "barista"],
        },
    },
}

DATASET_RUN_STARTED = {
    "id": "dsr_2",
    "dataset_id": "ds_1",
    "count": 50,
    "requested_count": 80,
    "created_at": "2026-01-05T10:00:00Z",
    "status": {"type": "pending"},
}

AUDIENCE_DATASET = {
    "id": "ad_1",
    "name": "Fans",
    "created_at": "2026-01-05T10:00:00Z",
    "updated_at": "2026-01-05T12:00:00Z",
    "profile_count": 300,
}

AUDIENCE_RUN = {
    "id": "adr_1",
    "audience_dataset_id": "ad_1",
    "source_dataset_id": "ds_1",
    "status": {"type": "completed"},
    "created_at": "2026-01-05T10:00:00Z",
    "updated_at": "2026-01-05T10:30:00Z",
    "profile_count": 280,
    "target_profile_count": 300,
}

PROFILE = {
    "id": "prof_1",
    "run_id": "adr_1",
    "source": "tiktok",
    "username": "oatlover",
    "display_name": "Oat Lover",
    "bio": "Plant milk reviews",
    "external_link": "https://oat.example",
    "is_verified": False,
    "follower_count": 15000,
    "following_count": 300,
    "content_count": 420,
    "engagement_rate": 0.042,
    "authenticity_score": 0.91,
    "authenticity_confidence": 0.8,
    "score": 72.5,
    "authenticity_score_version": 2,
    "authenticity_reason": "consistent posting",
    "posting_cadence": "weekly",
    "creator_tier": "micro",
    "aesthetic": "minimal",
    "communication_tone": "friendly",
    "occupation": "barista",
    "industry": "food",
    "location_country": "US",
    "location_city": "Portland",
    "primary_language": "en",
    "summary": "Reviews plant milks.",
    "age": 29,
    "gender": "male",
    "content_niche": ["coffee"],
    "interest_clusters": ["plant-based"],
    "brand_affinities": ["Oatly"],
    "ocean": {"openness": 0.7, "conscientiousness": 0.5},
    "platform_metadata": {"region": "us-west"},
    "avatar": MEDIA,
    "created_at": 1767607200,
    "custom_parameters": {"cp_1": "yes"},
}

AD_META = {
    "advertiser_id": "adv_9",
    "advertiser_name": "Oat Co",
    "landing_url": "https://oat.example/buy",
    "display_format": "video",
    "collation_id": 12345,
    "is_active": True,
    "ended_at": None,
    "publisher_platforms": ["facebook", "instagram"],
    "cta_text": "Shop now",
    "cta_type": "SHOP_NOW",
    "eu_reach": 10000,
    "advertiser_avatar_url": "https://cdn.example/adv.jpg",
    "duration_sec": 15.5,
    "creative_group_key": "grp_1",
    "product_category": "beverages",
    "creative_format": "reel",
    "advertiser_page_alias": "oatco",
    "advertiser_likes": 50000,
    "advertiser_category": "Food",
    "advertiser_verified": True,
    "advertiser_ig_username": "oatco",
    "advertiser_ig_followers": 12000,
    "advertiser_ig_verified": False,
}

MENTION = {
    "source": "instagram",
    "id": "C1abc",
    "content_type": "ad",
    "ad_meta": AD_META,
    "ad_flight_days": 3,
    "ad_flight_seconds": 259200,
    "author": {
        "avatar": MEDIA,
        "title": "Oat Co",
        "title_url": "https://instagram.com/oatco",
        "headline": "Official",
        "headline_url": None,
    },
    "title": "New barista blend",
    "text": "Try our new oat milk",
    "url": "https://instagram.com/p/C1abc",
    "language": "en",
    "summary": "Ad for a barista oat milk.",
    "category": "food",
    "content_intention": "promote",
    "speech_tempo": "fast",
    "music_genre": "pop",
    "media": [MEDIA],
    "sound": {"name": "Original audio", "author": None, "cover_image_url": None, "url": None},
    "num_views": 10000,
    "num_likes": 800,
    "num_comments": 40,
    "num_shares": 12,
    "are_views_estimated": True,
    "engagement_rate": "0.0852",
    "sentiment_score": "0.61",
    "sentiment": {"negative": "0.05", "neutral": "0.30", "positive": "0.65"},
    "emotions": {
        "neutral": "0.2",
        "joy": "0.6",
        "sadness": "0.0",
        "anger": "0.0",
        "surprise": "0.1",
        "fear": "0.0",
        "disgust": "0.1",
    },
    "tone_of_voice": {"text": "upbeat", "evidence": "Try our new"},
    "narrative_structure": {"text": "problem-solution", "evidence": "..."},
    "cta": {"text": "shop now", "evidence": "Shop now"},
    "content_topics": [{"text": "coffee", "evidence": "barista"}],
    "questions": [{"text": "Is it sweet?", "evidence": "sweet?"}],
    "hooks": [{"type": "question", "text": "Ever tried oat milk?"}],
    "vibe": {"cozy": 0.8, "energetic": 0.3},
    "mentioned_brands": ["Oat Co"],
    "entities": ["oat milk"],
    "created_at": 1767607200,
    "dataset_run_at": 1767610800,
    "datasets": [{"id": "ds_1", "name": "Oat milk"}],
    "collections": [{"uid": "ds_1", "name": "Oat milk"}],
    "comments": [
        {
            "id": "c1",
            "author_username": "milkfan",
            "author_name": "Milk Fan",
            "body": "Love it",
            "num_likes": 3,
            "num_replies": 0,
            "created_at": "2026-01-05T10:15:00Z",
        }
    ],
    "parameters": {"cp_1": {"value": "4.99", "status": "done", "computed_at": 1767614400}},
    "pattern_assignments": {
        "pt_1": [{"pattern_item_id": "pi_1", "name": "Price talk", "confidence": 0.9}]
    },
}

MENTION_NO_ANALYSIS = {"source": "reddit", "id": "t3_x", "text": "hi", "created_at": 1767607200}

CUSTOM_PARAMETER = {
    "id": "cp_1",
    "name": "price",
    "instructions": "The price quoted in the post",
    "value_type": "string",
    "created_at": 1767607200,
    "updated_at": 1767607300,
}

CUSTOM_PARAMETER_RUN = {
    "id": "cpr_1",
    "custom_parameter_id": "cp_1",
    "scope": {"kind": "dataset", "id": "ds_1"},
    "status": {"type": "processing"},
    "mentions_total": 10,
    "mentions_done": 6,
    "mentions_error": 1,
    "mentions_remaining": 3,
    "created_at": 1767607200,
    "updated_at": 1767607260,
}

TRACKING_AGENT = {
    "id": "ta_1",
    "name": "Oat watch",
    "instructions": "Alert me on complaints",
    "dataset_ids": ["ds_1"],
    "count": 50,
    "num_comments_per_post": 3,
    "integrations": [{"kind": "slack", "channel": "#alerts"}],
    "paused": False,
    "schedule": {"frequency": "weekly", "time": "09:30", "day": "monday"},
    "created_at": 1767607200,
    "updated_at": 1767607200,
    "last_run_at": None,
    "next_run_at": 1767945000,
}

TRACKING_RUN = {
    "id": "tar_1",
    "agent_id": "ta_1",
    "created_at": 1767607200,
    "dataset_run_ids": ["dsr_9"],
    "status": {"type": "pending"},
}

POST_REF_WIRE = {
    "type": "post",
    "source": "reddit",
    "id": "t3_a",
    "citation": 1,
    "start_index": 11,
    "end_index": 14,
}

TRACKING_MESSAGE = {
    "message_id": "tam_1",
    "agent_id": "ta_1",
    "agent_name": "Oat watch",
    "comment_count": 12,
    "new_mention_count": 5,
    "sentiment_score": -0.25,
    "short_preview_message": "Complaints rising",
    "created_at": 1767607200,
    "text": "Complaints [1] rising.",
    "references": [POST_REF_WIRE, {"type": "pattern", "id": "pt_1"}],
}

CHAT = {"id": "ch_1", "name": None, "tracking_agent_id": None, "created_at": 1767607200}

USER_ROW = {
    "id": "msg_1",
    "role": "user",
    "text": "How does sentiment split?",
    "created_at": 1767607200,
    "context": {
        "dataset_ids": ["ds_1"],
        "collection_uids": ["ds_1"],
        "audience_dataset_ids": ["ad_1"],
        "audience_segment_ids": [],
        "audience_collection_ids": [],
        "post_refs": [{"id": "t3_a", "source": "reddit"}],
        "prompt": {"id": "pr_1"},
        "research_filters": {
            "sources": ["reddit"],
            "time": "past_month",
            "date_range": {"from": "2026-01-01", "to": "2026-01-31"},
            "language": "en",
            "country_code": "US",
            "depth": 100,
            "preview_id": "rp_1",
            "content_type": "organic",
            "ad_filters": None,
            "ad_advertisers": [],
            "ad_advertiser": None,
        },
        "audience_research_filters": {"creator_tier": ["micro"]},
        "selected_dataset_id": "ds_1",
        "retry_intent": None,
        "open_panel": "mentions",
        "onboarding_skill_type": None,
        "onboarding_use_case": None,
        "force_collection": False,
    },
}

ASSISTANT_ROW = {
    "id": "msg_2",
    "role": "assistant",
    "text": "Mostly positive [1].",
    "created_at": 1767607260,
    "status": "completed",
    "references": [
        {**POST_REF_WIRE, "start_index": 16, "end_index": 19},
        {"type": "dataset", "id": "ds_1"},
        {"type": "custom_parameter_run", "id": "cpr_1", "parameter_id": "cp_1"},
    ],
    "stop_reason": "end_turn",
}

PATTERN_RUN = {
    "run_id": "pdr_1",
    "collection_id": "ds_1",
    "name": "Why people switch",
    "research_question": "Why do people switch to oat milk?",
    "created_at": 1767607200,
    "status": {"type": "completed", "steps": []},
    "pattern_id": "pt_1",
}

PATTERN = {
    "id": "pt_1",
    "summary": "Three recurring reasons.",
    "items": [{"item_id": "pi_1", "title": "Taste", "synopsis": "Creamier.", "post_count": 12}],
}

PATTERN_ITEM = {
    "item_id": "pi_1",
    "title": "Taste",
    "synopsis": "Creamier.",
    "post_count": 2,
    "posts": [{"type": "post", "source": "reddit", "id": "t3_a"}, POST_REF_WIRE],
}

PREVIEW_PROMPT = {
    "preview_id": "rp_1",
    "type": "prompt",
    "estimated_number_of_results": 1200,
    "posts": [
        {
            "position": 1,
            "source": "tiktok",
            "url": "https://tiktok.com/@a/video/1",
            "author_display_name": "A",
            "headline": "Oat milk hack",
            "relative_date": "2 days ago",
            "text": "This changed my coffee",
            "is_image_available": True,
            "content_type": "ad",
            "ad_meta": AD_META,
        }
    ],
}

PREVIEW_URL = {
    "preview_id": "rp_2",
    "type": "url",
    "estimated_number_of_results": 40,
    "posts": [],
    "profiles": [{"username": "oatco", "source": "instagram"}],
    "failed_to_retrieve_profiles": ["https://instagram.com/broken"],
    "non_existing_profiles": [],
    "private_profiles": ["https://instagram.com/private"],
}

ACCOUNT = {
    "id": "usr_1",
    "account_id": "acc_1",
    "email": "owner@example.com",
    "name": "Owner",
    "team_name": "Oat team",
    "created_at": 1767607200,
    "members": [
        {"type": "member", "user_id": "usr_2", "email": "b@example.com", "name": "B"},
        {"type": "invitation", "email": "c@example.com"},
    ],
    "teams": [{"account_id": "acc_1", "name": "Oat team"}],
    "plan": {
        "name": "Pro",
        "type": "subscription",
        "features": {
            "api_access": True,
            "audience_research": True,
            "csv_export": True,
            "custom_date_filter": False,
            "daily_digest": True,
            "digest_webhook": False,
            "mcp": True,
            "multisource_research": True,
            "webhooks": False,
        },
        "limits": {
            "max_research_depth": 500,
            "num_seats": 2,
            "parallelism": 3,
            "projects": -1,
            "tracking_agents": 5,
        },
    },
    "usage": {
        "credits_used": "1250.500000",
        "credits_total": "12000.000000",
        "billing": {
            "unit": "credits",
            "credit_rate_usd": "0.014833",
            "catalog_version": "2026-01-01",
            "precision": 6,
        },
        "balance_used": 18.55,
        "balance_total": 178,
        "renews_at": 1769990400,
    },
}

USAGE_ROW = {
    "id": 42,
    "category": "mention",
    "quantity": 0.1,
    "created_at": 1767607200,
    "quantity_credits": "10.000000",
    "credit_rate_usd": "0.01",
    "billing_catalog_version": "2026-01-01",
    "credit_value_basis": "snapshot",
}

USAGE_ROW_NO_RATE = {
    "id": 43,
    "category": "report",
    "quantity": 3,
    "created_at": 1767607200,
    "quantity_credits": None,
    "credit_rate_usd": None,
    "billing_catalog_version": None,
    "credit_value_basis": None,
}

PRICES = {
    "prices_credits": {
        "audience_profile": "3.000000",
        "mention": "1.000000",
        "post_processing": "0.500000",
        "preview_generation": None,
    },
    "billing": {
        "unit": "credits",
        "credit_rate_usd": "0.01",
        "catalog_version": "2026-01-01",
        "precision": 6,
    },
    "currency": "usd",
    "rate": None,
    "prices": {
        "audience_profile": 0.03,
        "mention": 0.01,
        "post_processing": 0.005,
        "preview_generation": None,
    },
}

ERROR_402 = {
    "status": "client_error",
    "error_code": "insufficient_credits_dataset_run",
    "detail": {
        "message": "Not enough balance",
        "required": "1.50",
        "available": "0.20",
        "top_up_url": "https://app.example/billing",
        "required_credits": "150.000000",
        "available_credits": "20.000000",
    },
    "transient": False,
}

ERROR_429 = {
    "status": "client_error",
    "error_code": "too_many_requests",
    "detail": "Rate limit exceeded",
    "transient": True,
    "retry_after_seconds": 0.4,
}

ERROR_404 = {
    "status": "info",
    "error_code": "dataset_not_found",
    "detail": "Dataset ds_9 not found",
    "transient": False,
}

VALIDATION_ERROR = {
    "detail": [{"loc": ["body", "search_query"], "msg": "Field required", "type": "missing"}]
}

RESOURCES: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (Dataset, DATASET),
    (Dataset, DATASET_CREATED),
    (DatasetRun, DATASET_RUN),
    (DatasetRun, DATASET_RUN_STARTED),
    (AudienceDataset, AUDIENCE_DATASET),
    (AudienceRun, AUDIENCE_RUN),
    (AudienceProfile, PROFILE),
    (Mention, MENTION),
    (Mention, MENTION_NO_ANALYSIS),
    (CustomParameter, CUSTOM_PARAMETER),
    (CustomParameterRun, CUSTOM_PARAMETER_RUN),
    (CustomParameterPreview, {"results": [{"post_id": "t3_a", "source": "reddit", "value": "4"}]}),
    (TrackingAgent, TRACKING_AGENT),
    (TrackingRun, TRACKING_RUN),
    (TrackingMessage, TRACKING_MESSAGE),
    (Chat, CHAT),
    (ChatMessage, USER_ROW),
    (ChatMessage, ASSISTANT_ROW),
    (AskAccepted, {"chat_id": "ch_1", "message_id": "msg_2", "status": "working"}),
    (PatternDetectionRun, PATTERN_RUN),
    (Pattern, PATTERN),
    (PatternItemDetail, PATTERN_ITEM),
    (ResearchPreview, PREVIEW_PROMPT),
    (ResearchPreview, PREVIEW_URL),
    (Account, ACCOUNT),
    (UsageRow, USAGE_ROW),
    (UsageRow, USAGE_ROW_NO_RATE),
    (Prices, PRICES),
    (ErrorBody, ERROR_402),
    (ErrorBody, ERROR_429),
    (ErrorBody, ERROR_404),
    (ValidationErrorBody, VALIDATION_ERROR),
]

REQUESTS: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (DatasetRunCreate, DATASET_RUN["params"]),
    (
        DatasetRunCreate,
        {"search_query": {"type": "url", "source_urls": ["https://reddit.com/r/oat"]}},
    ),
    (AudienceRunCreate, {"source_dataset_id": "ds_1", "total_profile_count": 2000}),
    (CustomParameterCreate, {"name": "price", "instructions": "x", "value_type": "string"}),
    (CustomParameterRunCreate, {"scope": {"kind": "dataset", "id": "ds_1"}}),
    (
        CustomParameterPreviewRequest,
        {"instructions": "x", "value_type": "string", "post_refs": [{"id": "a", "source": "b"}]},
    ),
    (
        TrackingAgentCreate,
        {
            "name": "Oat watch",
            "instructions": "Alert me",
            "dataset_ids": ["ds_1"],
            "integration_ids": [],
            "count": 50,
            "num_comments_per_post": 0,
            "schedule": {"frequency": "daily", "time": "08:00"},
        },
    ),
    (TrackingAgentUpdate, {"schedule": {"frequency": "daily", "time": "23:59"}}),
    (
        AskRequest,
        {
            "message": "Why?",
            "chat_id": "ch_1",
            "context": {"dataset_ids": ["ds_1"], "post_refs": [{"id": "a", "source": "reddit"}]},
        },
    ),
    (
        MentionsQuery,
        {
            "dataset_ids": ["ds_1"],
            "sources": ["reddit"],
            "filters": [[{"type": "sentiment", "values": ["negative"]}]],
            "q": "price",
            "search_mode": "semantic",
            "operation": "select",
            "sort": "likes",
            "order": "desc",
            "limit": 25,
            "cursor": "abc",
            "parameter_ids": ["cp_1"],
            "post_refs": [{"source": "reddit", "id": "t3_a"}],
        },
    ),
    (
        ProfilesQuery,
        {
            "audience_dataset_ids": ["ad_1"],
            "filters": [[{"type": "creator_tier", "values": ["micro"]}]],
            "sort": "created_at",
            "order": "asc",
            "limit": 10,
            "cursor": None,
        },
    ),
]

PREVIEW_REQUESTS = [
    {"type": "prompt", "search_query": "oat milk", "sources": ["tiktok"], "time_filter": "week"},
    {
        "type": "prompt",
        "search_query": "oat milk",
        "sources": ["tiktok", "reddit"],
        "date_since": "2026-01-01",
        "date_until": "2026-01-31",
        "language": "en",
        "country_code": "US",
    },
    {"type": "url", "source_urls": ["https://instagram.com/oatco"]},
    {
        "type": "url",
        "source_urls": ["https://instagram.com/oatco"],
        "date_filter_since": "2026-01-01",
        "date_filter_until": "2026-01-31",
    },
]


def _typed(value: Any) -> Any:
    """``value`` with every leaf paired with its type: ``==`` alone accepts 1 == 1.0 == True."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


def _ids(cases: list[tuple[type[BaseModel], dict[str, Any]]]) -> list[str]:
    return [f"{model.__name__}-{i}" for i, (model, _) in enumerate(cases)]


# --- round trips -------------------------------------------------------------------


@pytest.mark.parametrize(("model", "wire"), RESOURCES + REQUESTS, ids=_ids(RESOURCES + REQUESTS))
def test_round_trip_is_exact(model: type[BaseModel], wire: dict[str, Any]) -> None:
    out = model.model_validate(copy.deepcopy(wire)).to_wire()  # type: ignore[attr-defined]
    assert out == wire
    assert _typed(out) == _typed(wire)


@pytest.mark.parametrize("wire", PREVIEW_REQUESTS)
def test_preview_request_round_trip(wire: dict[str, Any]) -> None:
    body = TypeAdapter(ResearchPreviewRequest).validate_python(wire)
    assert type(body) is (PromptPreviewRequest if wire["type"] == "prompt" else UrlPreviewRequest)
    assert body.to_wire() == wire


# Maps whose values are typed (numbers, lists, amounts): an object value there is invalid.
TYPED_MAPS = {"vibe", "pattern_assignments", "prices", "prices_credits"}


def _with_unknowns(value: Any, key: str = "") -> Any:
    """Add an unknown key to every object of a wire example (but typed maps)."""
    if isinstance(value, dict):
        out = {k: _with_unknowns(v, k) for k, v in value.items()}
        return out if key in TYPED_MAPS else {**out, "added_later": {"x": [1]}}
    if isinstance(value, list):
        return [_with_unknowns(item) for item in value]
    return value


@pytest.mark.parametrize(("model", "wire"), RESOURCES, ids=_ids(RESOURCES))
def test_unknown_fields_survive_everywhere(model: type[BaseModel], wire: dict[str, Any]) -> None:
    # Free-form maps (ocean, parameters, ...) gain a key too: still a round trip.
    wire = _with_unknowns(wire)
    assert model.model_validate(copy.deepcopy(wire)).to_wire() == wire  # type: ignore[attr-defined]


def test_unknown_enum_values_are_kept() -> None:
    run = DatasetRun.model_validate(
        {**DATASET_RUN, "status": {"type": "queued_for_gpu", "steps": []}}
    )
    assert run.status.type == "queued_for_gpu"
    assert run.params is not None
    body = DatasetRunCreate.model_validate(
        {**DATASET_RUN["params"], "content_analysis_actions": ["sentiment", "vibes"]}
    )
    assert body.content_analysis_actions == ["sentiment", "vibes"]
    row = UsageRow.model_validate({**USAGE_ROW, "category": "quantum", "credit_value_basis": "x"})
    assert (row.category, row.credit_value_basis) == ("quantum", "x")
    me = Account.model_validate({**ACCOUNT, "members": [{"type": "observer", "email": "o@x"}]})
    assert me.members is not None and me.members[0].type == "observer"
    assert Billing.model_validate({"unit": "tokens"}).unit == "tokens"
    assert Mention.model_validate({**MENTION, "content_type": "sponsored"}).content_type == (
        "sponsored"
    )
    param = Mention.model_validate(MENTION).parameters
    assert param is not None and param["cp_1"].status == "done"


def test_create_responses_leave_absent_fields_absent() -> None:
    ds = Dataset.model_validate(DATASET_CREATED)
    assert ds.mentions_count is None and ds.url is None
    assert set(ds.to_wire()) == {"id", "name", "created_at"}
    started = AudienceRun.model_validate(
        {k: AUDIENCE_RUN[k] for k in ("id", "audience_dataset_id", "source_dataset_id")}
        | {"created_at": AUDIENCE_RUN["created_at"], "status": {"type": "pending"}}
    )
    assert "profile_count" not in started.to_wire()


def test_envelopes() -> None:
    one = Envelope[Dataset].model_validate({"status": "success", "data": DATASET})
    assert isinstance(one.data, Dataset)
    assert one.to_wire() == {"status": "success", "data": DATASET}
    page = ListEnvelope[Mention].model_validate(
        {"status": "info", "data": [MENTION_NO_ANALYSIS], "has_next": True, "cursor": "c2"}
    )
    assert page.has_next and page.cursor == "c2"
    assert isinstance(page.data[0], Mention)
    bare = ListEnvelope[CustomParameter].model_validate({"status": "success", "data": []})
    assert (bare.has_next, bare.cursor) == (False, None)


# --- timestamps ----------------------------------------------------------------------


def test_iso_resources_parse_to_aware_utc_and_write_iso() -> None:
    ds = Dataset.model_validate({**DATASET_CREATED, "created_at": "2026-01-05T12:00:00+02:00"})
    assert ds.created_at == datetime(2026, 1, 5, 10, tzinfo=UTC)
    assert ds.created_at.utcoffset() == timedelta(0)
    assert ds.to_wire()["created_at"] == "2026-01-05T10:00:00Z"
    # A Unix number (as the sandbox stores it) still writes ISO for an ISO resource.
    run = AudienceRun.model_validate({**AUDIENCE_RUN, "created_at": 1767607200})
    assert run.to_wire()["created_at"] == "2026-01-05T10:00:00Z"


@pytest.mark.parametrize(
    "wire",
    [
        "2026-01-05T10:00:00Z",
        "2026-01-05T10:00:00.250Z",
        "2026-01-05T10:00:00.123456Z",
    ],
)
def test_iso_fractions_survive_the_round_trip(wire: str) -> None:
    ds = Dataset.model_validate({**DATASET_CREATED, "created_at": wire})
    assert ds.to_wire()["created_at"] == wire


def test_unix_resources_parse_to_aware_utc_and_write_ints() -> None:
    mention = Mention.model_validate(MENTION)
    assert mention.created_at == datetime(2026, 1, 5, 10, tzinfo=UTC)
    assert mention.dataset_run_at is not None and mention.dataset_run_at.tzinfo is not None
    assert mention.comments is not None
    comment_at = mention.comments[0].created_at
    assert comment_at == datetime(2026, 1, 5, 10, 15, tzinfo=UTC)
    chat = Chat.model_validate({**CHAT, "created_at": "2026-01-05T10:00:00Z"})
    assert chat.to_wire()["created_at"] == 1767607200
    # A naive datetime built by hand is taken as UTC; an aware one is converted.
    naive = CustomParameter(id="cp_1", name="n", created_at=datetime(2026, 1, 5, 10))
    aware = CustomParameter(
        id="cp_1",
        name="n",
        created_at=datetime(2026, 1, 5, 5, tzinfo=timezone(-timedelta(hours=5))),
    )
    assert naive.to_wire()["created_at"] == aware.to_wire()["created_at"] == 1767607200


def test_run_steps_keep_wire_timestamps() -> None:
    run = DatasetRun.model_validate(DATASET_RUN)
    assert run.status.steps is not None
    step = run.status.steps[0]
    assert step.started_at == "2026-01-05T10:00:01Z"
    assert step.started == datetime(2026, 1, 5, 10, 0, 1, tzinfo=UTC)
    assert step.finished is not None and step.finished.tzinfo is not None


# --- money ---------------------------------------------------------------------------


def test_usd_numbers_are_exact_decimals() -> None:
    row = UsageRow.model_validate(USAGE_ROW)
    assert row.quantity == Decimal("0.1")
    assert isinstance(row.quantity, Decimal)
    assert row.credit_rate_usd == Decimal("0.01")
    assert row.to_wire()["quantity"] == 0.1
    whole = UsageRow.model_validate(USAGE_ROW_NO_RATE)
    assert whole.to_wire()["quantity"] == 3 and isinstance(whole.to_wire()["quantity"], int)


def test_credit_strings_keep_six_decimals() -> None:
    me = Account.model_validate(ACCOUNT)
    assert me.usage is not None and me.usage.billing is not None
    assert me.usage.credits_used == Decimal("1250.500000")
    assert me.usage.billing.credit_rate_usd == Decimal("0.014833")
    assert me.usage.balance_used == Decimal("18.55")
    detail = InsufficientCreditsDetail.model_validate(ERROR_402["detail"])
    assert detail.required == Decimal("1.50") and detail.required_credits == Decimal("150")
    # Credits written by hand are padded to the wire's six places.
    usage = Account.model_validate({"id": "u", "usage": {"credits_used": "12.5"}}).to_wire()
    assert usage["usage"]["credits_used"] == "12.500000"
    row = UsageRow.model_validate({**USAGE_ROW, "quantity_credits": Decimal("12.5")})
    assert row.to_wire()["quantity_credits"] == "12.500000"


def test_missing_or_null_prices_are_unknown_never_zero() -> None:
    prices = Prices.model_validate(PRICES)
    assert prices.prices_credits is not None and prices.prices is not None
    assert prices.prices_credits["preview_generation"] is None
    assert prices.prices["preview_generation"] is None
    assert prices.rate is None
    assert prices.prices_credits["post_processing"] == Decimal("0.5")
    assert prices.prices["post_processing"] == Decimal("0.005")
    bare = Prices.model_validate({"prices_credits": None, "billing": None, "currency": "usd"})
    assert bare.prices_credits is None and bare.billing is None and bare.prices is None
    partial = Prices.model_validate({"prices": {"mention": 0.01}})
    assert partial.prices is not None and "audience_profile" not in partial.prices


def test_error_detail_shapes() -> None:
    assert isinstance(ErrorBody.model_validate(ERROR_402).detail, InsufficientCreditsDetail)
    assert ErrorBody.model_validate(ERROR_404).detail == "Dataset ds_9 not found"
    odd = ErrorBody.model_validate({"error_code": "x", "detail": {"reason": "?"}})
    assert odd.detail == {"reason": "?"}
    assert ErrorBody.model_validate(ERROR_429).retry_after_seconds == 0.4


# --- filters -------------------------------------------------------------------------

NEG = {"type": "sentiment", "values": ["negative"]}
KW = {"type": "keyword", "operator": "is", "value": "oat milk"}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, []),
        ([], []),
        (NEG, [[NEG]]),
        (f.sentiment("negative"), [[NEG]]),
        ([NEG, f.keyword("oat milk")], [[NEG, KW]]),
        ([[NEG], [KW]], [[NEG], [KW]]),
        ((f.sentiment("negative"),), [[NEG]]),
    ],
    ids=["none", "empty", "dict", "model", "flat", "groups", "tuple"],
)
def test_normalize_filters_shapes(given: Any, expected: list[list[dict[str, Any]]]) -> None:
    assert normalize_filters(given) == expected
    assert normalize_filters(expected) == expected  # idempotent on the wire form


def test_filters_limit_is_ten_across_groups() -> None:
    ten = [[NEG] * 5, [KW] * 5]
    assert len(normalize_filters(ten)[1]) == 5
    with pytest.raises(ValueError, match=r"filters: at most 10 filters in total, got 11"):
        normalize_filters([[NEG] * 5, [KW] * 6])
    with pytest.raises(ValidationError) as info:
        MentionsQuery(filters=[NEG] * 11)
    assert info.value.errors()[0]["loc"] == ("filters",)
    with pytest.raises(ValidationError) as info:
        ProfilesQuery(filters=[f.is_verified()] * 11)
    assert info.value.errors()[0]["loc"] == ("filters",)


@pytest.mark.parametrize("value", ["three word phrase", "", "   "])
def test_keyword_filter_is_one_or_two_words(value: str) -> None:
    with pytest.raises(InvalidParameter) as refused:  # the builders raise rdskit errors
        f.keyword(value)
    assert refused.value.field == "keyword.value"
    with pytest.raises(ValidationError, match=r"filters\[0\]\[1\]\.value: keyword filter value"):
        MentionsQuery(filters=[NEG, {"type": "keyword", "value": value}])


def test_filter_input_errors() -> None:
    with pytest.raises(ValueError, match="mixes single filters and groups"):
        normalize_filters([NEG, [KW]])
    with pytest.raises(ValueError, match=r"filters\[1\]: a group needs at least one filter"):
        normalize_filters([[NEG], []])
    with pytest.raises(ValueError, match="got int"):
        normalize_filters(3)
    with pytest.raises(ValueError, match=r"filters\[0\]\[0\]\.values\.0"):
        normalize_filters({"type": "sentiment", "values": ["angry"]})
    with pytest.raises(ValueError, match=r"filters\[0\]\[0\]\.type"):
        normalize_filters({"values": ["x"]})


def test_unknown_filter_types_are_kept() -> None:
    future = {"type": "audience_overlap", "with": ["ad_1"], "min": 0.2}
    assert normalize_filters(future) == [[future]]
    model = TypeAdapter(list[Any]).validate_python([future])[0]
    assert model == future
    query = MentionsQuery(filters=[[future, NEG]])
    assert query.to_wire()["filters"] == [[future, NEG]]
    assert isinstance(UnknownFilter.model_validate(future), UnknownFilter)


def test_filter_builders_match_the_spec_shapes() -> None:
    cases = [
        (f.keyword("oat", exclude=True), {"type": "keyword", "operator": "is_not", "value": "oat"}),
        (f.source("reddit", "tiktok"), {"type": "source", "values": ["reddit", "tiktok"]}),
        (
            f.metric_change("views", "in_range", min=10, max=20),
            {
                "type": "metric_change",
                "metric": "views",
                "operator": "in_range",
                "min": 10,
                "max": 20,
            },
        ),
        (
            f.metric_change("likes", "changed_by", percent=50),
            {"type": "metric_change", "metric": "likes", "operator": "changed_by", "percent": 50},
        ),
        (
            f.content_topic("coffee"),
            {"type": "content_topic", "operator": "any_of", "values": ["coffee"]},
        ),
        (
            f.content_intention("review"),
            {"type": "content_intention", "operator": "any_of", "values": ["review"]},
        ),
        (
            f.tone_of_voice("humorous"),
            {"type": "tone_of_voice", "operator": "any_of", "values": ["humorous"]},
        ),
        (f.hook("question"), {"type": "hook", "operator": "any_of", "values": ["question"]}),
        (f.cta("shop now"), {"type": "cta", "operator": "any_of", "values": ["shop now"]}),
        (
            f.mentioned_brands("oatly", "alpro"),
            {
                "type": "mentioned_brands",
                "operator": {"type": "any_of", "values": ["oatly", "alpro"]},
            },
        ),
        (
            f.mentioned_brands("oatly", match="equals"),
            {"type": "mentioned_brands", "operator": {"type": "equals", "value": "oatly"}},
        ),
        (f.country_code("us", "GB"), {"type": "country_code", "values": ["US", "GB"]}),
        (f.has_media(False), {"type": "has_media", "value": False}),
        (f.dominant_emotion("joy"), {"type": "dominant_emotion", "values": ["joy"]}),
        (f.creator_tier("micro"), {"type": "creator_tier", "values": ["micro"]}),
        (f.is_verified(), {"type": "is_verified", "value": True}),
    ]
    for built, wire in cases:
        assert built.to_wire() == wire
        assert normalize_filters(wire) == [[wire]]


@pytest.mark.parametrize("code", ["us", "USA", "U1", ""])
def test_country_codes_are_uppercase_alpha2(code: str) -> None:
    with pytest.raises(ValidationError, match="ISO 3166-1 alpha-2"):
        CountryCodeFilter(values=[code])


def test_filter_enum_and_shape_errors() -> None:
    with pytest.raises(InvalidParameter, match="metric_change"):
        f.metric_change("followers", "greater_than", value=1)
    with pytest.raises(InvalidParameter, match="dominant_emotion"):
        f.dominant_emotion("boredom")
    with pytest.raises(InvalidParameter, match="needs 'values' or 'value'"):
        f.mentioned_brands(match="contains")
    with pytest.raises(ValidationError):
        KeywordFilter(operator="contains", value="oat")  # type: ignore[arg-type]


# --- request bodies ------------------------------------------------------------------


def test_request_models_name_the_bad_field() -> None:
    def loc_of(model: type[BaseModel], data: dict[str, Any]) -> tuple[Any, ...]:
        with pytest.raises(ValidationError) as info:
            model.model_validate(data)
        return info.value.errors()[0]["loc"]

    assert loc_of(DatasetRunCreate, {"count": 10}) == ("search_query",)
    assert loc_of(AudienceRunCreate, {"source_dataset_id": "ds_1", "total_profile_count": 0}) == (
        "total_profile_count",
    )
    too_many = {"source_dataset_id": "ds_1", "total_profile_count": 2001}
    assert loc_of(AudienceRunCreate, too_many) == ("total_profile_count",)
    assert loc_of(CustomParameterCreate, {"name": "  ", "instructions": "x"}) == ("name",)
    assert loc_of(CustomParameterUpdate, {"name": ""}) == ("name",)
    assert loc_of(CustomParameterPreviewRequest, {"instructions": "x", "post_refs": []}) == (
        "post_refs",
    )
    six = [{"id": str(i), "source": "reddit"} for i in range(6)]
    assert loc_of(CustomParameterPreviewRequest, {"instructions": "x", "post_refs": six}) == (
        "post_refs",
    )
    assert loc_of(AskRequest, {"message": ""}) == ("message",)
    assert loc_of(AskRequest, {"message": "  \n"}) == ("message",)
    assert loc_of(MentionsQuery, {"order": "sideways"}) == ("order",)
    url_query = {"search_query": {"type": "html", "source_urls": ["x"]}}
    assert loc_of(DatasetRunCreate, url_query)[0] == "search_query"


def test_request_defaults_are_sent() -> None:
    assert AudienceRunCreate(source_dataset_id="ds_1").to_wire() == {
        "source_dataset_id": "ds_1",
        "total_profile_count": 300,
    }
    assert CustomParameterCreate(name="p", instructions="i").to_wire()["value_type"] == "string"
    query = DatasetRunCreate(search_query=PromptSearchQuery(sources=["reddit"], search_query="x"))
    assert query.to_wire() == {
        "search_query": {"type": "prompt", "sources": ["reddit"], "search_query": "x"}
    }
    assert CustomParameterRunCreate.model_validate({"scope": {"id": "ds_1"}}).to_wire() == {
        "scope": {"kind": "dataset", "id": "ds_1"}
    }
    assert MentionsQuery().to_wire() == {}


def test_date_range_alias_and_order() -> None:
    rng = DateRange(from_=date(2026, 1, 1), to=date(2026, 1, 31))
    assert rng.to_wire() == {"from": "2026-01-01", "to": "2026-01-31"}
    assert DateRange.model_validate({"from": "2026-01-01", "to": "2026-01-01"}).from_ == date(
        2026, 1, 1
    )
    with pytest.raises(ValidationError, match=r"date_range\.from must not be after"):
        DateRange.model_validate({"from": "2026-02-01", "to": "2026-01-01"})


@pytest.mark.parametrize(
    ("window", "message"),
    [
        ({}, "a time window is required"),
        ({"date_since": "2026-01-01"}, "date_until is missing"),
        ({"date_until": "2026-01-31"}, "date_since is missing"),
        ({"time_filter": "week", "date_since": "2026-01-01"}, "not both"),
        ({"time_filter": "week", "date_until": "2026-01-31"}, "not both"),
        (
            {"time_filter": "week", "date_since": "2026-01-01", "date_until": "2026-01-31"},
            "not both",
        ),
    ],
)
def test_prompt_preview_needs_exactly_one_window(window: dict[str, str], message: str) -> None:
    body = {"type": "prompt", "search_query": "oat", "sources": ["reddit"], **window}
    with pytest.raises(ValidationError, match=message):
        PromptPreviewRequest.model_validate(body)
    with pytest.raises(ValidationError, match=message):
        TypeAdapter(ResearchPreviewRequest).validate_python(body)


def test_preview_dates_accept_date_objects() -> None:
    body = PromptPreviewRequest(
        search_query="oat",
        sources=["reddit"],
        date_since=date(2026, 1, 1),  # type: ignore[arg-type]
        date_until=date(2026, 1, 31),  # type: ignore[arg-type]
    )
    assert body.to_wire()["date_since"] == "2026-01-01"


@pytest.mark.parametrize("time", ["00:00", "09:30", "23:59"])
def test_schedule_accepts_hh_mm(time: str) -> None:
    assert Schedule(frequency="daily", time=time).time == time


@pytest.mark.parametrize("time", ["24:00", "9:30", "12:60", "noon", "12:00:00", ""])
def test_schedule_rejects_bad_times(time: str) -> None:
    with pytest.raises(ValidationError) as info:
        Schedule(frequency="daily", time=time)
    assert info.value.errors()[0]["loc"] == ("time",)
    assert "schedule.time must be HH:MM" in str(info.value)


def test_schedule_weekly_day() -> None:
    with pytest.raises(ValidationError, match=r"schedule\.day is required"):
        Schedule(frequency="weekly", time="09:00")
    with pytest.raises(ValidationError, match="lowercase weekday"):
        Schedule(frequency="weekly", time="09:00", day="Monday")
    assert Schedule(frequency="hourly", time="09:00").frequency == "hourly"


def test_ask_post_refs_at_most_fifty() -> None:
    refs = [{"id": f"t3_{i}", "source": "reddit"} for i in range(51)]
    assert len(AskContext(post_refs=refs[:50]).post_refs or []) == 50  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"context\.post_refs holds at most 50 posts, got 51"):
        AskContext.model_validate({"post_refs": refs})
    with pytest.raises(ValidationError) as info:
        AskRequest.model_validate({"message": "hi", "context": {"post_refs": refs}})
    assert info.value.errors()[0]["loc"] == ("context", "post_refs")


# --- references ----------------------------------------------------------------------


def test_reference_union_picks_post_or_entity() -> None:
    refs = TypeAdapter(list[Reference]).validate_python(
        [
            POST_REF_WIRE,
            {"type": "pattern", "id": "pt_1"},
            {"type": "custom_parameter_run", "id": "cpr_1", "parameter_id": "cp_1"},
            {"type": "brand_new_kind", "id": "zz_1", "payload": {"a": 1}},
        ]
    )
    assert [type(ref) for ref in refs] == [
        PostReference,
        EntityReference,
        EntityReference,
        EntityReference,
    ]
    post = refs[0]
    assert isinstance(post, PostReference)
    assert "Complaints [1] rising."[post.start_index : post.end_index] == "[1]"
    assert refs[2].model_extra == {"parameter_id": "cp_1"}
    assert refs[3].type == "brand_new_kind"
    assert TypeAdapter(list[Reference]).dump_python(refs, mode="json", exclude_unset=True)[3] == {
        "type": "brand_new_kind",
        "id": "zz_1",
        "payload": {"a": 1},
    }


def test_post_reference_needs_citation_but_pattern_posts_do_not() -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(Reference).validate_python({"type": "post", "source": "reddit", "id": "a"})
    item = PatternItemDetail.model_validate(PATTERN_ITEM)
    assert item.posts[0].citation is None and item.posts[1].citation == 1


# --- runs ----------------------------------------------------------------------------


class _FakeClient:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, dict[str, Any]]] = []

    def wait(self, obj: Any, **kwargs: Any) -> str:
        self.calls.append((obj, kwargs))
        return "done"


@pytest.mark.parametrize(
    ("model", "wire"),
    [
        (DatasetRun, DATASET_RUN),
        (AudienceRun, AUDIENCE_RUN),
        (CustomParameterRun, CUSTOM_PARAMETER_RUN),
        (PatternDetectionRun, PATTERN_RUN),
        (TrackingRun, TRACKING_RUN),
        (AskAccepted, {"chat_id": "ch_1", "message_id": "msg_1", "status": "working"}),
    ],
)
def test_runs_wait_through_their_client(model: Any, wire: dict[str, Any]) -> None:
    run = model.model_validate(wire)
    with pytest.raises(RuntimeError, match="not bound to a client"):
        run.wait()
    client = _FakeClient()
    assert run._bind(client).wait(timeout=5, on_update=print, poll=1) == "done"
    assert client.calls == [(run, {"timeout": 5, "on_update": print, "poll": 1})]


@pytest.mark.parametrize(
    ("counters", "complete"),
    [
        ({"mentions_total": 10, "mentions_done": 6, "mentions_error": 1}, False),
        ({"mentions_total": 10, "mentions_done": 9, "mentions_error": 1}, True),
        ({"mentions_total": 0, "mentions_done": 0, "mentions_error": 0}, True),
        ({"mentions_total": 3, "mentions_done": 3}, True),
        ({}, False),
    ],
)
def test_custom_parameter_run_completion(counters: dict[str, int], complete: bool) -> None:
    run = CustomParameterRun.model_validate(
        {"id": "cpr_1", "status": {"type": "processing"}, **counters}
    )
    assert run.is_complete is complete


def test_custom_parameter_run_answers_to_its_start_name() -> None:
    run = CustomParameterRun.model_validate({"id": "cpr_7", "status": {"type": "processing"}})
    assert run.run_id == "cpr_7"  # the start response's {run_id}


def test_mention_numeric_helpers_leave_wire_strings_alone() -> None:
    mention = Mention.model_validate(MENTION)
    assert mention.sentiment_score == "0.61" and mention.sentiment_score_value == 0.61
    assert mention.engagement_rate_value == 0.0852
    assert mention.sentiment is not None
    assert mention.sentiment.as_floats() == {"negative": 0.05, "neutral": 0.3, "positive": 0.65}
    assert mention.ref.to_wire() == {"id": "C1abc", "source": "instagram"}
    odd = Mention.model_validate({"source": "reddit", "id": "a", "sentiment_score": "n/a"})
    assert odd.sentiment_score_value is None


def test_tracking_agent_update_sends_only_given_fields() -> None:
    patch = TrackingAgentUpdate(name="Renamed")
    assert patch.to_wire() == {"name": "Renamed"}
    assert TrackingMessage.model_validate(TRACKING_MESSAGE).sentiment_score == -0.25
