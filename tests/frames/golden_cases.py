"""Inputs of the golden-output tests (``test_golden.py``): tricky mentions and profiles.

Each case is a list of items (wire dicts, odd mappings, models) plus, for mentions, the
``parameter_names`` to pass. Their expected tables live in ``golden/<kind>-<case>.arrow``,
written by the engine as it was before the flattening was made fast; rewrite them only
when a change of output is intended (``python tests/frames/test_golden.py --write``).
The ``corpus`` cases read ``golden/corpus-*.json.gz``: sandbox posts with every analysis
(stored, so that later changes to the sandbox do not move the expected output).
"""

from __future__ import annotations

import copy
import gzip
import json
from collections import OrderedDict
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any

from frame_samples import PROFILES, SMALL, full_mention, unix

from rdskit.models import AudienceProfile, Mention

GOLDEN = Path(__file__).parent / "golden"

MentionCase = tuple[Callable[[], Any], dict[str, str] | None]
"""A function building the items (fresh each call) and the ``parameter_names``."""


def corpus(kind: str) -> list[dict[str, Any]]:
    """The stored sandbox sample ``golden/corpus-<kind>.json.gz``."""
    with gzip.open(GOLDEN / f"corpus-{kind}.json.gz", "rt", encoding="utf-8") as f:
        rows: list[dict[str, Any]] = json.load(f)
    return rows


def _missing_nested() -> list[dict[str, Any]]:
    base = {"source": "reddit", "content_type": "organic"}
    shapes: list[dict[str, Any]] = [
        {"author": None, "sound": None, "ad_meta": None, "sentiment": None, "emotions": None},
        {"author": {}, "sound": {}, "ad_meta": {}, "sentiment": {}, "emotions": {"joy": "0.5"}},
        {"author": {"avatar": None, "title": "A"}, "media": [], "comments": []},
        {"author": {"avatar": {"version_list": []}}, "media": None, "comments": None},
        {"author": {"avatar": {"type": "image"}}, "parameters": {}, "pattern_assignments": {}},
        {"parameters": None, "pattern_assignments": None, "vibe": {}, "hooks": []},
        {
            "pattern_assignments": {"pt_1": []},
            "vibe": None,
            "content_topics": [],
            "tone_of_voice": None,
            "cta": {},
            "narrative_structure": {"text": "story"},
        },
        {
            "sentiment": {"negative": None, "neutral": None, "positive": None},
            "emotions": {"neutral": "0.5", "joy": "0.5"},
        },
        {
            "hooks": [{}],
            "content_topics": [{"text": None}],
            "questions": [{}],
            "datasets": [{}],
            "collections": [{"uid": "c"}],
        },
        {"media": [{}, {"version_list": []}, {"version_list": [{}]}], "comments": [{}]},
        {"sound": {"name": None, "author": None, "cover_image_url": None, "url": None}},
    ]
    return [{**base, "id": f"m{i}", **shape} for i, shape in enumerate(shapes)]


def _unknown_fields() -> list[dict[str, Any]]:
    mention = full_mention(id="u1", brand_new_field={"nested": [1, 2]}, another=3.5)
    mention["author"]["followers"] = 12
    mention["author"]["avatar"]["extra"] = {"x": 1}
    mention["ad_meta"]["future_field"] = "soon"
    mention["comments"][0]["reactions"] = {"heart": 2}
    mention["media"][0]["version_list"][0]["bitrate"] = 900
    mention["media"][0]["duration"] = 12.5
    mention["sound"]["duration"] = 30
    mention["parameters"]["cp_1"]["confidence"] = 0.9
    mention["pattern_assignments"]["pt_1"][0]["rank"] = 1
    mention["hooks"][0]["strength"] = "high"
    mention["sentiment"]["mixed"] = "0.0"
    mention["emotions"]["boredom"] = "0.9"
    mention["vibe"]["brand_new_vibe"] = 0.7
    return [mention, {"source": "x", "id": "u2", "only_unknown": True}]


def _numbers_as_strings() -> list[dict[str, Any]]:
    mention = full_mention(
        id="n1",
        num_likes="12",
        num_views="1e3",
        num_comments=" 7 ",
        num_shares="",
        ad_flight_days="3",
        ad_flight_seconds="259200.0",
        created_at="1767225600",
        dataset_run_at=str(unix("2026-01-02T00:00:00")),
        vibe={"calm": "0.4", "x": "n/a"},
        are_views_estimated="true",
    )
    mention["comments"][0].update(num_likes="2", num_replies="x")
    mention["media"][0]["version_list"][0].update(width="1080", height=1920.0)
    mention["parameters"]["cp_1"]["computed_at"] = "1767225600"
    mention["pattern_assignments"]["pt_1"][0]["confidence"] = "0.25"
    mention["ad_meta"].update(
        eu_reach="5000",
        duration_sec="15.5",
        is_active="false",
        advertiser_likes="1.2e5",
        ended_at=str(unix("2026-02-01")),
    )
    return [mention]


def _strings_as_numbers() -> list[dict[str, Any]]:
    mention = full_mention(
        id=123,
        title=5,
        language=None,
        summary=True,
        text=1.5,
        engagement_rate=0.5,
        sentiment_score=1,
        sentiment={"negative": 0.2, "neutral": 0, "positive": 0.8},
        emotions={"joy": 1, "fear": 0.25},
        mentioned_brands=[1, "a", None],
        entities=[True],
        source=7,
    )
    mention["parameters"] = {
        "cp_1": {"value": 5, "status": 1},
        "cp_2": {"value": True},
        "cp_3": {"value": {"a": 1}},
        "cp_4": {"value": [1, 2]},
    }
    mention["author"]["title"] = 42
    mention["comments"][0]["body"] = 99
    mention["hooks"] = [{"type": 1, "text": 2.5}]
    return [mention]


def _timestamps() -> list[dict[str, Any]]:
    def row(i: int, created: Any, comment: Any = "2026-01-01T05:00:00Z") -> dict[str, Any]:
        return {
            "source": "reddit",
            "id": f"t{i}",
            "created_at": created,
            "dataset_run_at": created,
            "comments": [{"id": f"c{i}", "created_at": comment}],
        }

    return [
        row(0, "2026-01-01T00:00:00Z"),
        row(1, datetime(2026, 1, 1, 12, tzinfo=UTC), "2026-01-01T05:00:00+02:00"),
        row(2, datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(hours=-5))), "soon"),
        row(3, 1.5e9, 1767225600),
        row(4, -86400, None),
        row(5, None, "2026-01-01"),
        row(6, "garbage", "2026-01-01T05:00:00.123456Z"),
        row(7, 1767225600.75, ""),
        {**full_mention(id="t8"), "ad_meta": {"ended_at": "2026-02-01T00:00:00Z"}},
    ]


def _wrong_shapes() -> list[dict[str, Any]]:
    base = {"source": "tiktok"}
    shapes: list[dict[str, Any]] = [
        {"sentiment": "positive", "author": "bob", "media": "oops", "vibe": [1, 2]},
        {"comments": [None, {"id": "c", "body": "ok"}], "hooks": "x", "sound": "song"},
        {"parameters": ["cp_1"], "pattern_assignments": {"pt_1": "x"}, "emotions": [1]},
        {"parameters": {"cp_1": "raw"}, "pattern_assignments": {"pt_1": [None]}},
        {"mentioned_brands": "Oatly", "datasets": {"id": "ds_1"}, "ad_meta": "ad"},
        {"content_topics": [{"text": ["a"], "evidence": {"b": 1}}], "questions": 5},
        {"author": {"avatar": "url", "title": {"name": "x"}}, "tone_of_voice": "calm"},
        {"media": [{"version_list": "x"}], "collections": [None]},
    ]
    return [{**base, "id": f"w{i}", **shape} for i, shape in enumerate(shapes)]


def _nan_and_big() -> list[dict[str, Any]]:
    return [
        full_mention(
            id="b1",
            engagement_rate=float("nan"),
            sentiment_score="nan",
            vibe={"calm": float("nan"), "x": float("inf"), "y": -0.0},
        ),
        full_mention(
            id="b2",
            num_likes=2**62,
            num_views=-1,
            num_shares=1.5,
            are_views_estimated=1,
            engagement_rate="1e400",
        ),
        full_mention(
            id="b3",
            are_views_estimated="yes",
            num_comments=True,
            sentiment={"negative": "inf", "neutral": "-inf", "positive": "0.5"},
        ),
    ]


def _unicode() -> list[dict[str, Any]]:
    mention = full_mention(
        id="ü1",
        title="Haferdrink – günstig? 🌾",
        text="ça va 👍 日本語",
        vibe={"énergique": 0.5, "calm": 0.1},
        mentioned_brands=["Oatly™"],
    )
    mention["author"]["title"] = "Zoë"
    mention["comments"][0]["body"] = "très bien ✅"
    mention["parameters"] = {"cp_ü": {"value": "naïve", "status": "done"}}
    return [mention, full_mention(id="plain")]


def _duplicates() -> list[dict[str, Any]]:
    return [
        full_mention(id="d1", num_likes=1),
        full_mention(id="d1", source="tiktok", num_likes=2),
        full_mention(id="d1", num_likes=3),
        {"source": "reddit", "id": None, "num_likes": 4},
        {"source": "reddit", "id": None, "num_likes": 5},
        {"source": None, "id": "d2", "num_likes": 6},
        {"id": "d2", "num_likes": 7},
        {"source": "reddit", "id": "d2", "num_likes": 8},
    ]


class _Wire(dict):  # type: ignore[type-arg]
    """A dict subclass, as some JSON libraries return."""


def _mapping_types() -> list[Any]:
    return [
        OrderedDict(full_mention(id="o1")),
        MappingProxyType(full_mention(id="o2")),
        _Wire(full_mention(id="o3")),
        Mention.model_validate(full_mention(id="o4")),
        full_mention(id="o5"),
    ]


def _parameters() -> list[dict[str, Any]]:
    return [
        full_mention(
            id="p1",
            parameters={
                "cp_1": {"value": "Oatly", "status": "done", "computed_at": unix("2026-01-03")},
                "cp_2": {"value": "1L", "status": "done"},
                "title": {"value": "an id that is also a column", "status": "done"},
                "cp_9": {"status": "pending"},
            },
        ),
        full_mention(id="p2", parameters={"cp_2": {"value": None, "status": "pending"}}),
        full_mention(id="p3", parameters={"cp_3": {}}),
        {"source": "reddit", "id": "p4", "parameters": {"cp_1": {"value": ""}}},
    ]


def _pattern_assignments() -> list[dict[str, Any]]:
    return [
        full_mention(
            id="a1",
            pattern_assignments={
                "pt_1": [
                    {"pattern_item_id": "i1", "name": "Price", "confidence": 0.8},
                    {"pattern_item_id": "i2", "name": "Taste"},
                ],
                "pt_2": [],
                "pt_3": [{"pattern_item_id": "i9", "confidence": 1}],
            },
        ),
        full_mention(id="a2", pattern_assignments={"pt_2": [{"name": "only a name"}]}),
        full_mention(id="a3", pattern_assignments=None),
    ]


def _vibe_keys() -> list[dict[str, Any]]:
    return [
        {"source": "reddit", "id": "v1", "vibe": {"zesty": 0.1, "calm": 0.2}},
        {"source": "reddit", "id": "v2", "vibe": {"calm": 0.3, "bold": 1}},
        {"source": "reddit", "id": "v3"},
        {"source": "reddit", "id": "v4", "vibe": {"Calm": 0.4}},
    ]


def _across_chunks() -> list[dict[str, Any]]:
    """More rows than one conversion chunk (16,384): duplicates across the boundary, and
    vibe keys and parameters that appear in one chunk only."""
    sample = corpus("mentions")
    rows: list[dict[str, Any]] = []
    for i in range(17_000):
        key = {"source": ("reddit", "tiktok")[i % 2], "id": f"x{i % 16_500}"}
        if i % 500 == 0:
            rows.append({**sample[i // 500], **key})
        else:
            rows.append({**key, "num_likes": i, "engagement_rate": f"0.{i}"})
    rows[16_900].update(
        vibe={"late_key": 0.5}, parameters={"cp_late": {"value": "v", "status": "done"}}
    )
    return rows


MENTION_CASES: dict[str, MentionCase] = {
    "small": (lambda: copy.deepcopy(SMALL), {"cp_1": "brand", "cp_2": "size"}),
    "small-collision": (lambda: copy.deepcopy(SMALL), {"cp_1": "title"}),
    "small-unnamed": (lambda: copy.deepcopy(SMALL), None),
    "full": (lambda: [full_mention()], {"cp_1": "brand"}),
    "empty": (list, None),
    "empty-named": (list, {"cp_1": "brand"}),
    "generator": (lambda: (m for m in copy.deepcopy(SMALL)), None),
    "minimal": (lambda: [{"source": "reddit", "id": "x"}, {"id": "y"}, {"source": "z"}, {}], None),
    "missing-nested": (_missing_nested, None),
    "unknown-fields": (_unknown_fields, {"cp_1": "brand"}),
    "numbers-as-strings": (_numbers_as_strings, None),
    "strings-as-numbers": (_strings_as_numbers, {"cp_1": "brand", "cp_3": "obj"}),
    "timestamps": (_timestamps, None),
    "wrong-shapes": (_wrong_shapes, None),
    "nan-and-big": (_nan_and_big, None),
    "unicode": (_unicode, {"cp_ü": "größe"}),
    "duplicates": (_duplicates, None),
    "mapping-types": (_mapping_types, None),
    "parameters": (
        _parameters,
        {"cp_1": "brand", "cp_2": "size", "cp_7": "never", "cp_9": "title"},
    ),
    "pattern-assignments": (_pattern_assignments, None),
    "vibe-keys": (_vibe_keys, None),
    "corpus": (lambda: corpus("mentions"), {"cp_1": "brand"}),
    "corpus-models": (lambda: [Mention.model_validate(m) for m in corpus("mentions")[:60]], None),
    "across-chunks": (_across_chunks, {"cp_1": "brand"}),
}
"""Mention cases by name: (items factory, parameter_names)."""


def _profiles_wire() -> list[Any]:
    wire = {
        **PROFILES[0],
        "ocean": {"openness": 0.7, "grit": 0.2},
        "platform_metadata": {"heart_count": 900, "is_private": False},
        "avatar": {"type": "image", "version_list": [{"url": "https://a/p1.jpg"}]},
        "created_at": unix("2026-01-01T00:00:00"),
        "engagement_rate": 0.05,
    }
    return [AudienceProfile.model_validate(wire), PROFILES[1], PROFILES[0]]


def _profiles_odd() -> list[Any]:
    return [
        {
            "id": "q1",
            "follower_count": "12",
            "is_verified": "true",
            "age": "31.0",
            "created_at": "2026-01-01T00:00:00Z",
            "ocean": {"openness": "0.5", "grit": "x"},
            "engagement_rate": "0.1",
            "interest_clusters": "coffee",
            "platform_metadata": {"heart_count": "900", "nested": {"a": [1]}, "tags": ["a"]},
            "custom_parameters": {"brand": "Oatly", "score": 3},
        },
        {
            "id": "q2",
            "follower_count": 5.5,
            "ocean": None,
            "avatar": {"version_list": []},
            "platform_metadata": {"heart_count": 12, "is_private": None, "tags": "b"},
            "custom_parameters": {"brand": None, "score": "high"},
        },
        {
            "id": "q3",
            "ocean": [0.1],
            "avatar": "url",
            "platform_metadata": "n/a",
            "custom_parameters": None,
            "gender": 1,
            "unknown_field": {"x": 1},
        },
        {"id": "q1", "follower_count": 99},
        {"id": None, "username": "no id"},
        {"id": None, "username": "no id either"},
        {
            "id": "q4",
            "créé": True,
            "platform_metadata": {"cœur": 1, "": 2},
            "bio": "naïve 🌾",
            "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        },
        OrderedDict(id="q5", source="tiktok", follower_count=1),
        MappingProxyType({"id": "q6", "source": "reddit"}),
    ]


PROFILE_CASES: dict[str, Callable[[], Any]] = {
    "small": lambda: copy.deepcopy(PROFILES),
    "wire-and-models": _profiles_wire,
    "empty": list,
    "odd": _profiles_odd,
    "corpus": lambda: corpus("profiles"),
}
"""Profile cases by name: items factory."""


def cases(kind: str) -> Iterator[str]:
    """The case names of ``kind`` (``mentions`` or ``profiles``)."""
    return iter(MENTION_CASES if kind == "mentions" else PROFILE_CASES)
