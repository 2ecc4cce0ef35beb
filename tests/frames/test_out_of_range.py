"""Numbers outside what a column can hold read as missing instead of crashing the loader."""

from __future__ import annotations

import pandas as pd
import pytest
from frame_samples import full_mention

from rdskit.frames import mentions_frame, profiles_frame

HUGE_SECONDS = 10**15  # fits int64 seconds, not int64 microseconds


@pytest.mark.parametrize(
    ("field", "value", "column"),
    [
        ("num_likes", 2**70, "num_likes"),
        ("num_likes", -(2**70), "num_likes"),
        ("num_likes", "1e400", "num_likes"),
        ("created_at", HUGE_SECONDS, "created_at"),
        ("created_at", -HUGE_SECONDS, "created_at"),
        ("created_at", 2**62, "created_at"),
        ("vibe", {"calm": 2**2000}, "vibe_calm"),
        ("ad_meta", {"ended_at": HUGE_SECONDS, "eu_reach": 2**64}, "ad_ended_at"),
        ("ad_meta", {"eu_reach": 2**64}, "ad_eu_reach"),
        ("parameters", {"cp_1": {"value": "x", "computed_at": HUGE_SECONDS}}, "cp_1"),
    ],
)
def test_out_of_range_mention_values_are_null(field: str, value: object, column: str) -> None:
    df = mentions_frame([full_mention(**{field: value}), full_mention(id="ok")])
    if column == "cp_1":
        # The value column still reads; the list column loses the row's unreadable entry.
        assert df.loc[0, "cp_1"] == "x" and df.loc[0, "parameters"] is pd.NA
    else:
        assert pd.isna(df.loc[0, column])
    assert df.loc[1, "id"] == "ok"


def test_out_of_range_nested_values_are_null() -> None:
    mention = full_mention()
    mention["comments"][0]["num_likes"] = 2**70
    mention["media"][0]["version_list"][0]["width"] = 2**70
    mention["pattern_assignments"]["pt_1"][0]["confidence"] = 2**2000
    row = mentions_frame([mention]).iloc[0]
    assert row["comments"][0]["num_likes"] is None
    assert row["media"][0]["version_list"][0]["width"] is None
    assert row["pattern_assignments"][0]["confidence"] is None


def test_big_ints_stay_exact_when_a_column_is_coerced() -> None:
    # "12" sends the whole column down the value-by-value path; 2**60 + 1 is not a float.
    df = mentions_frame([full_mention(num_likes=2**60 + 1), full_mention(id="s", num_likes="12")])
    assert df["num_likes"].tolist() == [2**60 + 1, 12]


def test_out_of_range_profile_values_are_null() -> None:
    df = profiles_frame(
        [
            {
                "id": "p",
                "follower_count": 2**70,
                "created_at": HUGE_SECONDS,
                "ocean": {"openness": 2**2000},
            }
        ]
    )
    row = df.iloc[0]
    assert row["follower_count"] is pd.NA and pd.isna(row["created_at"])
    assert row["ocean_openness"] is pd.NA
