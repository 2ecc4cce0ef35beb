"""Loaders: columns, dtypes, conversions, list columns, duplicates, odd inputs."""

from __future__ import annotations

import copy
from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pytest
from frame_samples import PROFILES, SMALL, full_mention, unix

from rdskit.frames import (
    datasets_frame,
    mentions_frame,
    messages_frame,
    pattern_items_frame,
    profiles_frame,
    usage_frame,
)
from rdskit.frames.columns import MENTIONS
from rdskit.frames.columns import PROFILES as PROFILE_SPEC
from rdskit.models import AudienceProfile, Mention, UsageRow, vocab

UTC = "UTC"


def ts(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz=UTC)


def test_mentions_have_every_catalogue_column_in_order_with_its_dtype() -> None:
    df = mentions_frame([full_mention()], parameter_names={"cp_1": "brand"})
    fixed = [c.name for c in MENTIONS.columns]
    assert [c for c in df.columns if c in fixed] == fixed
    # Families sit where the catalogue puts them: vibe keys sorted, then the parameter.
    extra = [c for c in df.columns if c not in fixed]
    assert extra == ["vibe_calm", "vibe_energetic", "brand"]
    assert df.columns.get_loc("vibe_calm") == df.columns.get_loc("topics") + 1
    for column in MENTIONS.columns:
        assert str(df[column.name].dtype) == column.dtype_name, column.name
    assert str(df["vibe_calm"].dtype) == "double[pyarrow]"
    assert str(df["brand"].dtype) == "string[pyarrow]"


def test_wire_strings_become_numbers() -> None:
    row = mentions_frame([full_mention()]).iloc[0]
    assert row["engagement_rate"] == 0.0425
    assert row["sentiment_score"] == 0.512
    assert (row["sentiment_negative"], row["sentiment_neutral"], row["sentiment_positive"]) == (
        0.1,
        0.15,
        0.75,
    )
    assert row["emotion_joy"] == 0.7 and row["emotion_fear"] == 0.0
    assert row["sentiment"] == "positive" and row["dominant_emotion"] == "joy"


def test_timestamps_are_tz_aware_utc() -> None:
    df = mentions_frame([full_mention()])
    assert df.loc[0, "created_at"] == ts("2026-01-01")
    assert df.loc[0, "dataset_run_at"] == ts("2026-01-02")
    assert df.loc[0, "ad_ended_at"] == ts("2026-02-01")
    assert str(df["created_at"].dtype) == "datetime64[us, UTC]"
    # Comment timestamps arrive as ISO strings and are parsed inside the list column.
    assert df.loc[0, "comments"][0]["created_at"] == ts("2026-01-01T05:00:00").to_pydatetime()


def test_nested_lists_are_kept_as_arrow_list_columns() -> None:
    mention = full_mention()
    df = mentions_frame([mention])
    for name in (
        "media",
        "content_topics",
        "hooks",
        "questions",
        "mentioned_brands",
        "entities",
        "datasets",
        "collections",
    ):
        assert isinstance(df[name].dtype, pd.ArrowDtype), name
        assert pa.types.is_list(df[name].dtype.pyarrow_dtype), name
        assert df.loc[0, name] == mention[name], name
    comment = dict(mention["comments"][0], created_at=ts("2026-01-01T05:00").to_pydatetime())
    assert df.loc[0, "comments"] == [comment]
    assert df.loc[0, "hook_types"] == ["statement"]
    assert df.loc[0, "topics"] == ["oat milk"]


def test_flattened_fields() -> None:
    row = mentions_frame([full_mention()]).iloc[0]
    assert (row["author_title"], row["author_headline"]) == ("Oatly", "@oatly")
    assert row["author_avatar_url"] == "https://a/100.jpg"
    assert (row["tone_of_voice"], row["cta_text"], row["cta_evidence"]) == (
        "enthusiastic",
        "Try it",
        "Try it!",
    )
    assert (row["vibe_energetic"], row["vibe_calm"]) == (0.9, 0.1)
    assert (row["media_count"], row["has_media"]) == (1, True)
    assert (row["sound_name"], row["sound_author"]) == ("Song", pd.NA)
    assert (row["ad_advertiser_name"], row["ad_eu_reach"], row["ad_duration_sec"]) == (
        "Oatly",
        5000,
        15.0,
    )
    assert row["ad_publisher_platforms"] == ["instagram"]
    assert (row["ad_flight_days"], row["ad_advertiser_ig_verified"]) == (3, True)
    assert row["source"] == "instagram" and row["content_type"] == "ad"


def test_categoricals() -> None:
    df = mentions_frame(copy.deepcopy(SMALL))
    for name in ("source", "language", "content_type"):
        assert isinstance(df[name].dtype, pd.CategoricalDtype), name
    # The vocabulary in its fixed order, whatever the rows hold (pd.concat keeps it).
    assert list(df["source"].cat.categories) == list(vocab.SOURCES)
    assert set(df["source"].dropna()) == {"instagram", "reddit", "tiktok"}


def test_custom_parameter_columns_are_named_after_the_parameter() -> None:
    df = mentions_frame(copy.deepcopy(SMALL), parameter_names={"cp_1": "brand", "cp_2": "size"})
    assert df["brand"].tolist() == [pd.NA, "Oatly", pd.NA, pd.NA, pd.NA]
    assert df["size"].isna().all()  # requested, no value yet: still a column
    listed = df.loc[1, "parameters"]
    assert listed == [
        {
            "parameter_id": "cp_1",
            "name": "brand",
            "value": "Oatly",
            "status": "done",
            "computed_at": ts("2026-01-06").to_pydatetime(),
        }
    ]
    # A name already used by a column is prefixed; an unnamed parameter keeps its id.
    df = mentions_frame(copy.deepcopy(SMALL), parameter_names={"cp_1": "title"})
    assert df["param_title"].tolist()[1] == "Oatly" and df["title"].tolist()[1] == ""
    assert mentions_frame(copy.deepcopy(SMALL))["cp_1"].tolist()[1] == "Oatly"


def test_pattern_assignments() -> None:
    row = mentions_frame([full_mention()]).iloc[0]
    assert row["pattern_item_ids"] == ["pti_1", "pti_9"]
    assert row["pattern_assignments"] == [
        {"pattern_id": "pt_1", "pattern_item_id": "pti_1", "name": "Price", "confidence": 0.8},
        {"pattern_id": "pt_2", "pattern_item_id": "pti_9", "name": "Ads", "confidence": 0.5},
    ]


def test_one_row_per_source_and_id_first_wins() -> None:
    first = full_mention(num_likes=1)
    same_id_other_source = full_mention(source="tiktok", num_likes=2)
    df = mentions_frame([first, same_id_other_source, full_mention(num_likes=3)])
    assert list(zip(df["source"], df["id"], df["num_likes"], strict=True)) == [
        ("instagram", "ig_1", 1),
        ("tiktok", "ig_1", 2),
    ]


def test_models_give_the_same_frame_as_wire_dicts() -> None:
    mention = full_mention()
    from_models = mentions_frame(iter([Mention.model_validate(mention)]))
    pd.testing.assert_frame_equal(from_models, mentions_frame([mention]))


def test_values_off_the_wire_schema_are_coerced() -> None:
    odd = {
        "source": "reddit",
        "id": "x",
        "engagement_rate": 0.5,
        "num_likes": "12",
        "created_at": "2026-01-01T00:00:00Z",
        "sentiment": {"negative": 0.2, "neutral": 0.3, "positive": "n/a"},
        "vibe": {"calm": "0.4"},
    }
    row = mentions_frame([odd]).iloc[0]
    assert (row["engagement_rate"], row["num_likes"], row["vibe_calm"]) == (0.5, 12, 0.4)
    assert row["created_at"] == ts("2026-01-01")
    assert row["sentiment_positive"] is pd.NA and row["sentiment"] == "neutral"


def test_missing_analyses_are_null_not_zero() -> None:
    row = mentions_frame([{"source": "reddit", "id": "x"}]).iloc[0]
    assert row["sentiment_score"] is pd.NA and row["sentiment"] is pd.NA
    assert row["num_likes"] is pd.NA and row["media_count"] == 0 and not row["has_media"]


def test_empty_input_keeps_every_column_and_dtype() -> None:
    df = mentions_frame([])
    assert len(df) == 0
    assert [str(df[c.name].dtype) for c in MENTIONS.columns] == [
        c.dtype_name for c in MENTIONS.columns
    ]


def test_profiles() -> None:
    wire = {
        **PROFILES[0],
        "ocean": {"openness": 0.7, "grit": 0.2},
        "platform_metadata": {"heart_count": 900, "is_private": False},
        "avatar": {"type": "image", "version_list": [{"url": "https://a/p1.jpg"}]},
        "created_at": unix("2026-01-01T00:00:00"),
        "engagement_rate": 0.05,
    }
    df = profiles_frame([AudienceProfile.model_validate(wire), PROFILES[1], PROFILES[0]])
    assert df["id"].tolist() == ["p1", "p2"]
    fixed = [c.name for c in PROFILE_SPEC.columns]
    assert [c for c in df.columns if c in fixed] == fixed
    for column in PROFILE_SPEC.columns:
        assert str(df[column.name].dtype) == column.dtype_name, column.name
    row = df.iloc[0]
    ocean = [c for c in df.columns if c.startswith("ocean_")]
    assert ocean == [
        "ocean_openness",
        "ocean_conscientiousness",
        "ocean_extraversion",
        "ocean_agreeableness",
        "ocean_neuroticism",
        "ocean_grit",
    ]
    assert (row["ocean_openness"], row["ocean_grit"]) == (0.7, 0.2)
    assert row["ocean_neuroticism"] is pd.NA
    assert (row["platform_heart_count"], row["platform_is_private"]) == (900, False)
    assert row["avatar_url"] == "https://a/p1.jpg"
    assert row["interest_clusters"] == ["coffee", "tea"]
    assert row["created_at"] == ts("2026-01-01")


def test_pattern_items() -> None:
    df = pattern_items_frame(
        {
            "id": "pt_1",
            "summary": "s",
            "items": [
                {"item_id": "i1", "title": "Price", "synopsis": "dear", "post_count": 4},
                {"item_id": "i2", "title": "Taste", "post_count": "2"},
            ],
        }
    )
    assert df.to_dict("list") == {
        "pattern_id": ["pt_1", "pt_1"],
        "item_id": ["i1", "i2"],
        "title": ["Price", "Taste"],
        "synopsis": ["dear", None],
        "post_count": [4, 2],
    }


def test_messages() -> None:
    df = messages_frame(
        [
            {
                "message_id": "tam_1",
                "agent_id": "ta_1",
                "agent_name": "oat",
                "comment_count": 3,
                "new_mention_count": 12,
                "sentiment_score": -0.25,
                "short_preview_message": "12 new",
                "created_at": 0,
                "text": "See [1]",
                "references": [
                    {
                        "type": "post",
                        "source": "reddit",
                        "id": "t3_a",
                        "citation": 1,
                        "start_index": 4,
                        "end_index": 7,
                    },
                    {"type": "pattern", "id": "pt_1"},
                ],
            }
        ]
    )
    row = df.iloc[0]
    assert (row["new_mention_count"], row["sentiment_score"]) == (12, -0.25)
    assert row["created_at"] == ts("1970-01-01")
    assert row["references"][1] == {
        "type": "pattern",
        "id": "pt_1",
        "source": None,
        "citation": None,
        "start_index": None,
        "end_index": None,
    }


def test_usage_money_is_exact() -> None:
    rows = [
        UsageRow.model_validate(
            {
                "id": i,
                "category": "mention",
                "quantity": 0.1,
                "created_at": 0,
                "quantity_credits": "10.000000",
                "credit_rate_usd": "0.01",
            }
        )
        for i in range(3)
    ]
    df = usage_frame(rows)
    # 0.1 + 0.1 + 0.1 is exactly 0.3 in decimals (0.30000000000000004 in floats).
    assert df["quantity"].sum() == Decimal("0.3")
    assert df["quantity_credits"].sum() == Decimal("30")
    assert isinstance(df["category"].dtype, pd.CategoricalDtype)


def test_datasets_parse_iso_timestamps() -> None:
    df = datasets_frame(
        [
            {
                "id": "ds_1",
                "name": "oat",
                "created_at": "2026-01-01T00:00:00.250Z",
                "updated_at": "2026-01-02T00:00:00Z",
                "mentions_count": 9,
            }
        ]
    )
    assert df.loc[0, "created_at"] == ts("2026-01-01T00:00:00.250")
    assert df.loc[0, "mentions_count"] == 9 and df.loc[0, "url"] is pd.NA


@pytest.mark.parametrize("bad", [42, "text"])
def test_non_mapping_items_are_rejected(bad: object) -> None:
    with pytest.raises(TypeError, match="expected wire dicts"):
        mentions_frame([bad])
