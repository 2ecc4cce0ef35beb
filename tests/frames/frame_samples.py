"""Hand-written sample data for the pandas layer tests.

``SMALL`` is five mentions whose values were chosen so every ``df.rds`` result can be
worked out by hand (the tests derive their expected numbers in comments).
``full_mention()`` is one mention carrying every field of the spec's Mention table;
``PROFILES`` five audience profiles.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def unix(text: str) -> int:
    """ISO date-time (UTC) -> Unix seconds."""
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def _emotions(**shares: float) -> dict[str, str]:
    names = ("neutral", "joy", "sadness", "anger", "surprise", "fear", "disgust")
    return {n: f"{shares.get(n, 0.0):.3f}" for n in names}


def _sentiment(negative: float, neutral: float, positive: float) -> dict[str, str]:
    return {"negative": str(negative), "neutral": str(neutral), "positive": str(positive)}


SMALL: list[dict[str, Any]] = [
    {
        "source": "reddit",
        "id": "r1",
        "created_at": unix("2026-01-05T10:00:00"),
        "title": "Oat milk foam",
        "text": "Oat milk foam is great",
        "author": {"title": "Ann"},
        "num_likes": 10,
        "num_views": 100,
        "engagement_rate": "0.10",
        "sentiment_score": "0.6",
        "sentiment": _sentiment(0.1, 0.2, 0.7),
        "emotions": _emotions(neutral=0.2, joy=0.6, surprise=0.1, disgust=0.1),
        "mentioned_brands": ["Oatly"],
        "comments": [
            {
                "id": "c1",
                "author_username": "u1",
                "body": "agree",
                "num_likes": 3,
                "created_at": "2026-01-05T11:00:00Z",
            },
            {
                "id": "c2",
                "author_username": "u2",
                "body": "nope",
                "num_likes": 0,
                "created_at": "2026-01-05T12:30:00.500Z",
            },
        ],
        "content_topics": [{"text": "foam", "evidence": "foam is great"}],
        "hooks": [{"type": "bold_claim", "text": "Oat milk foam"}],
        "media": [
            {
                "type": "image",
                "description": "a cup",
                "version_list": [
                    {"url": "https://m/1_big.jpg", "width": 1080, "height": 720},
                    {"url": "https://m/1_small.jpg", "width": 540, "height": 360},
                ],
            },
            {
                "type": "video",
                "version_list": [{"url": "https://m/2.mp4", "width": 720, "height": 1280}],
            },
        ],
    },
    {
        "source": "reddit",
        "id": "r2",
        "created_at": unix("2026-01-05T15:00:00"),
        "title": "",
        "text": "The oat milk price is too high",
        "author": {"title": "Ann"},
        "num_likes": 4,
        "num_views": 50,
        "engagement_rate": "0.08",
        "sentiment_score": "-0.5",
        "sentiment": _sentiment(0.7, 0.2, 0.1),
        "emotions": _emotions(neutral=0.3, sadness=0.1, anger=0.5, disgust=0.1),
        "mentioned_brands": ["Oatly", "Alpro"],
        "content_topics": [
            {"text": "price", "evidence": "price is too high"},
            {"text": "oat milk", "evidence": "The oat milk"},
        ],
        "parameters": {
            "cp_1": {"value": "Oatly", "status": "done", "computed_at": unix("2026-01-06T00:00:00")}
        },
    },
    {
        "source": "tiktok",
        "id": "t1",
        "created_at": unix("2026-01-06T09:00:00"),
        "title": "",
        "text": "oat milk latte recipe",
        "author": {"title": "Bob"},
        "num_likes": 100,
        "num_views": 1000,
        "engagement_rate": "0.20",
        "sentiment_score": "0.0",
        "sentiment": _sentiment(0.2, 0.6, 0.2),
        "emotions": _emotions(neutral=0.5, joy=0.2, surprise=0.3),
        "mentioned_brands": ["Alpro"],
        "comments": [
            {
                "id": "c3",
                "author_username": "u3",
                "body": "yum",
                "num_likes": 7,
                "created_at": "2026-01-06T10:00:00Z",
            }
        ],
        "hooks": [
            {"type": "how_to", "text": "oat milk latte"},
            {"type": "list", "text": "oat milk latte"},
        ],
        "parameters": {"cp_1": {"value": None, "status": "pending"}},
    },
    {
        "source": "tiktok",
        "id": "t2",
        "created_at": unix("2026-01-13T08:00:00"),
        "title": "",
        "text": "Love it",
        "author": {"title": "Bob"},
        "num_likes": 0,
        "num_views": 10,
        "sentiment_score": "0.3",
        "sentiment": _sentiment(0.0, 0.4, 0.6),
        "emotions": _emotions(neutral=0.4, joy=0.4, surprise=0.2),
        "mentioned_brands": [],
    },
    {
        "source": "instagram",
        "id": "i1",
        "created_at": unix("2026-01-14T20:00:00"),
        "text": "https://x.test/oat Check this",
        "author": {"title": "Cy"},
        "num_likes": 50,
        "num_views": 500,
        "engagement_rate": "0.12",
    },
]
"""Five hand-written mentions (see the module docstring)."""


def full_mention(**overrides: Any) -> dict[str, Any]:
    """A mention with every field of the spec's Mention table, as the wire sends it."""
    avatar = {
        "type": "image",
        "description": "avatar",
        "version_list": [{"url": "https://a/100.jpg", "width": 100, "height": 100}],
    }
    mention: dict[str, Any] = {
        "source": "instagram",
        "id": "ig_1",
        "content_type": "ad",
        "ad_meta": {
            "advertiser_id": "123",
            "advertiser_name": "Oatly",
            "landing_url": "https://o",
            "display_format": "video",
            "collation_id": "9",
            "is_active": False,
            "ended_at": unix("2026-02-01T00:00:00"),
            "publisher_platforms": ["instagram"],
            "cta_text": "Shop now",
            "cta_type": "SHOP_NOW",
            "eu_reach": 5000,
            "advertiser_avatar_url": "https://o/a.jpg",
            "duration_sec": 15,
            "creative_group_key": "g1",
            "product_category": "Food",
            "creative_format": "ugc",
            "advertiser_page_alias": "oatly",
            "advertiser_likes": 100000,
            "advertiser_category": "Food",
            "advertiser_verified": True,
            "advertiser_ig_username": "oatly",
            "advertiser_ig_followers": 2000000,
            "advertiser_ig_verified": True,
        },
        "ad_flight_days": 3,
        "ad_flight_seconds": 259200,
        "author": {
            "avatar": avatar,
            "title": "Oatly",
            "title_url": "https://i/oatly",
            "headline": "@oatly",
            "headline_url": "https://i/oatly",
        },
        "title": "",
        "text": "Try it!",
        "url": "https://i/p/1",
        "language": "en",
        "summary": "An ad",
        "category": "Food & Drink",
        "content_intention": "promote",
        "speech_tempo": "fast",
        "music_genre": "pop",
        "media": [
            {
                "type": "video",
                "description": "clip",
                "version_list": [{"url": "https://i/v.mp4", "width": 1080, "height": 1920}],
            }
        ],
        "sound": {
            "name": "Song",
            "author": None,
            "cover_image_url": "https://s/c.jpg",
            "url": "https://i/reels/audio/1/",
        },
        "num_views": 1000,
        "num_likes": 40,
        "num_comments": 2,
        "num_shares": 1,
        "are_views_estimated": True,
        "engagement_rate": "0.0425",
        "sentiment_score": "0.512",
        "sentiment": {"negative": "0.100", "neutral": "0.150", "positive": "0.750"},
        "emotions": _emotions(neutral=0.1, joy=0.7, surprise=0.2),
        "tone_of_voice": {"text": "enthusiastic", "evidence": "Try it!"},
        "narrative_structure": {"text": "announcement", "evidence": "Try it!"},
        "cta": {"text": "Try it", "evidence": "Try it!"},
        "content_topics": [{"text": "oat milk", "evidence": "Try it!"}],
        "questions": [{"text": "Why?", "evidence": "why"}],
        "hooks": [{"type": "statement", "text": "Try it!"}],
        "vibe": {"energetic": 0.9, "calm": 0.1},
        "mentioned_brands": ["Oatly"],
        "entities": ["oat milk"],
        "created_at": unix("2026-01-01T00:00:00"),
        "dataset_run_at": unix("2026-01-02T00:00:00"),
        "datasets": [{"id": "ds_1", "name": "Oat milk"}],
        "collections": [{"uid": "col_1", "name": "Ads"}],
        "comments": [
            {
                "id": "c1",
                "author_username": "u1",
                "author_name": "U One",
                "body": "nice",
                "num_likes": 2,
                "num_replies": 1,
                "created_at": "2026-01-01T05:00:00Z",
            }
        ],
        "parameters": {
            "cp_1": {"value": "Oatly", "status": "done", "computed_at": unix("2026-01-03T00:00:00")}
        },
        "pattern_assignments": {
            "pt_1": [{"pattern_item_id": "pti_1", "name": "Price", "confidence": 0.8}],
            "pt_2": [{"pattern_item_id": "pti_9", "name": "Ads", "confidence": 0.5}],
        },
    }
    mention.update(overrides)
    return mention


PROFILES: list[dict[str, Any]] = [
    {
        "id": "p1",
        "source": "tiktok",
        "creator_tier": "nano",
        "follower_count": 500,
        "is_verified": False,
        "interest_clusters": ["coffee", "tea"],
    },
    {
        "id": "p2",
        "source": "tiktok",
        "creator_tier": "nano",
        "follower_count": 5_000,
        "is_verified": False,
        "interest_clusters": ["coffee"],
    },
    {
        "id": "p3",
        "source": "reddit",
        "creator_tier": "micro",
        "follower_count": 50_000,
        "is_verified": True,
        "interest_clusters": ["gaming", "coffee", "coffee"],
    },
    {
        "id": "p4",
        "source": "youtube",
        "creator_tier": "mega",
        "follower_count": 2_000_000,
        "is_verified": True,
    },
    {"id": "p5", "source": "youtube", "interest_clusters": []},
]
"""Five hand-written audience profiles."""
