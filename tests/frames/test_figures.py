"""Every figure df.rds returns states its n and what it left out (attrs and n columns);
expected values are counted here from the frame's rows, not read from rdskit."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from rdskit.errors import EstimatedViewsWarning
from rdskit.frames.columns import EMOTIONS

ROWS = [
    # source, id, created_at, engagement_rate, sentiment, content_type, title, text
    ("tiktok", "t1", "2026-01-05", 0.20, "positive", "organic", "Oat milk", "great foam"),
    ("tiktok", "t2", "2026-01-06", None, "negative", "ad", "Buy oat milk", "now"),
    ("tiktok", "t3", None, 0.10, None, "organic", None, None),
    ("reddit", "r1", "2026-01-07", 0.05, "neutral", None, "milk prices", ""),
    ("reddit", "r2", "2026-01-13", 0.07, None, "organic", "", "oat"),
    (None, "x1", "2026-01-14", 0.30, "positive", "organic", "foam", "art"),
]


@pytest.fixture
def posts() -> pd.DataFrame:
    frame = pd.DataFrame(
        ROWS,
        columns=[
            "source",
            "id",
            "created_at",
            "engagement_rate",
            "sentiment",
            "content_type",
            "title",
            "text",
        ],
    )
    frame["created_at"] = pd.to_datetime(frame["created_at"], utc=True)
    frame["sentiment_score"] = frame["sentiment"].map(
        {"positive": 0.5, "neutral": 0.0, "negative": -0.5}
    )
    frame["author_title"] = ["Ann", "Ann", "Bob", "Cy", "Cy", "Di"]
    frame["num_likes"] = [1, 2, 3, 4, 5, 6]
    frame["num_views"] = [10, 20, 30, 40, 50, 60]
    # Emotions analysed for the dated, labelled posts only (t1, t2, r1, x1).
    for emotion in EMOTIONS:
        frame[f"emotion_{emotion}"] = np.where(
            frame["sentiment"].notna(), 1 / len(EMOTIONS), np.nan
        )
    frame.loc[0, "emotion_joy"] = np.nan  # t1 has no joy score
    frame["dominant_emotion"] = np.where(frame["sentiment"].notna(), "neutral", None)
    return frame


def test_engagement_states_n_per_group_and_what_it_left_out(posts: pd.DataFrame) -> None:
    means = posts.rds.engagement()
    # Rated posts with a source: t1, t3 (tiktok); r1, r2 (reddit). t2 has no rate; x1 no source.
    assert means.attrs["n_by"] == {"tiktok": 2, "reddit": 2}
    assert list(means.attrs["n_by"]) == means.index.tolist()
    assert means.attrs["n"] == 4
    assert means.attrs["left_out"] == {"without engagement_rate": 1, "without source": 1}
    # Of the four, none is an ad; r1's type is unknown.
    assert means.attrs["scope"].startswith("n = 4 posts with an engagement rate; no ads, 1 ")


def test_engagement_by_content_type_counts_ads_among_its_posts(posts: pd.DataFrame) -> None:
    means = posts.rds.engagement("content_type")
    # organic: t1, t3, r2, x1 rated; the ad t2 has no rate (its mean is NaN of 0 posts);
    # r1 has no content_type.
    assert means.attrs["n_by"] == {"organic": 4, "ad": 0}
    assert np.isnan(means["ad"])
    assert means.attrs["scope"].startswith("n = 4 posts with an engagement rate; no ads")
    assert means.attrs["left_out"] == {"without engagement_rate": 1, "without content_type": 1}


def test_volume_states_dated_posts(posts: pd.DataFrame) -> None:
    weekly = posts.rds.volume("W")
    assert weekly.attrs["n"] == int(weekly.sum()) == 5  # t3 has no date
    assert weekly.attrs["left_out"] == {"without created_at": 1}
    assert weekly.attrs["scope"].startswith("n = 5 dated posts; 1 ad included")
    by_source = posts.rds.volume("W", by="source")
    # x1 is dated but has no source: the table counts 4.
    assert by_source.attrs["n"] == int(by_source.to_numpy().sum()) == 4
    assert by_source.attrs["left_out"] == {"without created_at": 1, "without source": 1}


def test_sentiment_over_time_states_analysed_posts(posts: pd.DataFrame) -> None:
    table = posts.rds.sentiment_over_time("W")
    # Dated with a label: t1, t2, r1, x1; r2 is dated without one, t3 undated.
    assert table.attrs["n"] == int(table["analysed"].sum()) == 4
    assert table.attrs["left_out"] == {"without created_at": 1, "without sentiment": 1}


def test_share_of_voice_states_posts_counted(posts: pd.DataFrame) -> None:
    shares = posts.rds.share_of_voice()
    assert shares.attrs["n"] == int(shares["mentions"].sum()) == 5
    assert shares.attrs["left_out"] == {"without source": 1}
    assert shares.attrs["scope"].startswith("n = 5 posts with a source; 1 ad included")


def test_share_of_voice_of_a_list_column_counts_posts_with_a_value() -> None:
    frame = pd.DataFrame(
        {"source": ["a", "a", "a"], "id": ["1", "2", "3"]},
    )
    frame["brands"] = pd.Series(
        [["Oatly", "Alpro"], [], None], dtype=pd.ArrowDtype(pa.list_(pa.string()))
    )
    shares = frame.rds.share_of_voice("brands")
    # One post with brands (two values counted); an empty list and a missing one left out.
    assert shares["mentions"].sum() == 2
    assert shares.attrs["n"] == 1
    assert shares.attrs["left_out"] == {"without brands": 2}


def test_emotions_state_n_per_emotion(posts: pd.DataFrame) -> None:
    emotions = posts.rds.emotions()
    scored = posts[[f"emotion_{e}" for e in EMOTIONS]].notna()
    expected = {e: int(scored[f"emotion_{e}"].sum()) for e in EMOTIONS}
    assert emotions["n"].to_dict() == expected
    assert expected["joy"] == 3 and expected["neutral"] == 4
    assert emotions.attrs["n"] == 4
    assert emotions.attrs["left_out"] == {"without emotions": 2}
    assert emotions["mean"].dtype == np.float64


def test_keywords_state_posts_with_text(posts: pd.DataFrame) -> None:
    words = posts.rds.keywords(3)
    # t3 has neither title nor text; the others have one or both.
    assert words.attrs["n"] == 5
    assert words.attrs["left_out"] == {"without text": 1}
    assert (words["posts"] <= words.attrs["n"]).all()


def test_top_authors_state_the_n_of_each_mean(posts: pd.DataFrame) -> None:
    authors = posts.rds.top_authors(10).set_index("author_title")
    # Ann: t1 rated, t2 not; Cy: r1, r2 rated; Bob: t3; Di (x1) has no source.
    assert authors["rated"].to_dict() == {"Ann": 1, "Cy": 2, "Bob": 1}
    assert authors.loc["Ann", "mentions"] == 2
    assert authors.attrs["left_out"] == {"without source or author_title": 1}


def test_profile_shares_state_profiles_counted() -> None:
    profiles = pd.DataFrame(
        {
            "username": ["a", "b", "c"],
            "follower_count": [500.0, None, 20_000.0],
            "creator_tier": ["nano", None, None],
        }
    )
    profiles["interest_clusters"] = pd.Series(
        [["coffee"], [], ["coffee", "tea"]], dtype=pd.ArrowDtype(pa.list_(pa.string()))
    )
    tiers = profiles.rds.creator_tiers()
    assert tiers.attrs["n"] == 1
    assert tiers.attrs["left_out"] == {"without creator_tier": 2}
    bands = profiles.rds.follower_distribution()
    assert bands.attrs["n"] == int(bands["profiles"].sum()) == 2
    assert bands.attrs["left_out"] == {"without follower_count": 1}
    interests = profiles.rds.top_interests()
    assert interests.attrs["n"] == 3  # shares are of every profile
    assert interests.loc["coffee", "share"] == 2 / interests.attrs["n"]


def test_figure_attrs_are_json(posts: pd.DataFrame) -> None:
    # pandas writes attrs into parquet metadata as JSON; group labels may be any value.
    posts["liked"] = posts["num_likes"] > 3
    for figure in (posts.rds.engagement("liked"), posts.rds.volume(), posts.rds.emotions()):
        assert json.loads(json.dumps(figure.attrs))["n"] == figure.attrs["n"]
    # Liked (over 3 likes) and rated: r1, r2, x1; not liked and rated: t1, t3.
    assert posts.rds.engagement("liked").attrs["n_by"] == {True: 3, False: 2}


def test_the_chart_prints_the_figures_scope(posts: pd.DataFrame) -> None:
    from rdskit.frames.plots import SCOPE_GID

    ax = posts.rds.plot.engagement()
    lines = [t.get_text() for t in ax.texts if t.get_gid() == SCOPE_GID]
    assert lines == [posts.rds.engagement().attrs["scope"]]
    labels = [t.get_text() for t in ax.texts if t.get_text().startswith("n=")]
    assert labels == ["n=2", "n=2"]


def test_view_based_figures_say_how_many_views_are_estimated(posts: pd.DataFrame) -> None:
    assert posts.rds.engagement().attrs["views_estimated"] is None  # the frame does not say
    posts["are_views_estimated"] = posts["source"].eq("reddit")
    with pytest.warns(EstimatedViewsWarning):
        means = posts.rds.engagement()
    # Rated posts with a source: t1, t3, r1, r2; the reddit two have estimated views.
    assert means.attrs["views_estimated"] == 2
    # top_authors counts every post with a source and an author: t1, t2, t3, r1, r2.
    assert posts.rds.top_authors().attrs["views_estimated"] == 2
    assert posts[posts.source == "tiktok"].rds.engagement().attrs["views_estimated"] == 0
