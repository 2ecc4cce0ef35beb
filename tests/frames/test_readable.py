"""Readable output of the pandas layer: plain-English periods, chart titles in words,
concise dates, shares where a chart says share, and ``top()`` showing its ranking."""

from __future__ import annotations

import matplotlib.dates as mdates
import pandas as pd
import pytest
from matplotlib.ticker import PercentFormatter

import rdskit
from rdskit.frames.accessor import TOP_FIRST
from rdskit.frames.periods import PERIOD_WORDS, parse_period


@pytest.mark.parametrize(
    ("words", "alias"),
    [
        ("daily", "D"),
        ("Day", "D"),
        ("weekly", "W"),
        ("week", "W"),
        (" MONTHLY ", "MS"),
        ("month", "MS"),
        ("quarterly", "QS"),
        ("yearly", "YS"),
    ],
)
def test_plain_english_periods_group_like_their_alias(
    small: pd.DataFrame, words: str, alias: str
) -> None:
    pd.testing.assert_series_equal(small.rds.volume(words), small.rds.volume(alias))
    pd.testing.assert_frame_equal(
        small.rds.sentiment_over_time(words), small.rds.sentiment_over_time(alias)
    )


def test_pandas_aliases_still_work_and_renamed_ones_are_understood(small: pd.DataFrame) -> None:
    assert small.rds.volume("2W").sum() == len(small)
    # "M" (month end) was renamed "ME" by pandas; both give month-end labels.
    assert small.rds.volume("M").index.tolist() == small.rds.volume("ME").index.tolist()
    assert parse_period(pd.offsets.Week(weekday=0)).alias == "W-MON"


@pytest.mark.parametrize("bad", ["fortnightly", "", "0D", "-1W", "W-NOPE", None, 7])
def test_anything_else_is_one_line_naming_the_accepted_values(
    small: pd.DataFrame, bad: object
) -> None:
    for call in (
        lambda: small.rds.volume(bad),  # type: ignore[arg-type]
        lambda: small.rds.sentiment_over_time(bad),  # type: ignore[arg-type]
        lambda: small.rds.plot.volume(bad),  # type: ignore[arg-type]
        lambda: small.rds.plot.sentiment(bad),  # type: ignore[arg-type]
    ):
        with pytest.raises(rdskit.InvalidParameter) as raised:
            call()
        error = raised.value
        assert error.field == "freq" and "\n" not in str(error)
        assert "daily, weekly, monthly, quarterly" in str(error) and repr(bad) in str(error)
        assert error.__cause__ is None  # no chained pandas traceback
        assert error.__context__ is None or error.__suppress_context__


def test_every_word_is_documented_in_the_error() -> None:
    with pytest.raises(rdskit.InvalidParameter) as raised:
        parse_period("nope")
    message = str(raised.value)
    for word in PERIOD_WORDS:
        if word not in ("annual", "annually"):
            assert word in message


@pytest.mark.parametrize(
    ("freq", "title"),
    [("weekly", "Mentions per week"), ("W", "Mentions per week"), ("2W", "Mentions per 2 weeks")],
)
def test_chart_titles_are_words(small: pd.DataFrame, freq: str, title: str) -> None:
    assert small.rds.plot.volume(freq).get_title() == title


def test_sentiment_title_dates_and_percent(small: pd.DataFrame) -> None:
    ax = small.rds.plot.sentiment("monthly")
    assert ax.get_title() == "Sentiment per month"
    assert "(" not in ax.get_title()
    assert isinstance(ax.xaxis.get_major_formatter(), mdates.ConciseDateFormatter)
    assert isinstance(ax.yaxis.get_major_formatter(), PercentFormatter)
    volume = small.rds.plot.volume("daily")
    assert isinstance(volume.xaxis.get_major_formatter(), mdates.ConciseDateFormatter)


def test_share_of_voice_chart_shows_shares_summing_to_one(small: pd.DataFrame) -> None:
    ax = small.rds.plot.sources()
    heights = [bar.get_height() for bar in ax.patches]
    assert sum(heights) == pytest.approx(1.0) and max(heights) <= 1
    assert "share" in ax.get_title().lower() and "share" in ax.get_ylabel()
    assert isinstance(ax.yaxis.get_major_formatter(), PercentFormatter)


def test_top_shows_the_ranking_column_and_a_compact_set_first(small: pd.DataFrame) -> None:
    top = small.rds.top(3)
    columns = top.columns.tolist()
    assert columns[0] == "engagement_rate"
    compact = [c for c in TOP_FIRST if c in small.columns]
    assert columns[1 : 1 + len(compact)] == compact
    assert sorted(columns) == sorted(small.columns)  # nothing dropped: post_refs, ask work
    assert top["id"].tolist() == ["t1", "i1", "r1"]
    by_views = small.rds.top(2, by="num_views")
    assert by_views.columns[0] == "num_views"
    assert by_views["num_views"].is_monotonic_decreasing
    assert by_views.rds.post_refs() == [
        {"source": s, "id": i} for s, i in zip(by_views["source"], by_views["id"], strict=True)
    ]


def test_top_on_a_column_subset_and_on_profiles(
    small: pd.DataFrame, profiles: pd.DataFrame
) -> None:
    subset = small[["text", "num_likes", "id"]].rds.top(2, by="num_likes")
    assert subset.columns.tolist() == ["num_likes", "text", "id"]
    ranked = profiles.rds.top(2, by="follower_count")
    assert ranked.columns[:3].tolist() == ["follower_count", "source", "username"]
