"""df.rds analyses on hand-written frames; expected values are derived in comments."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import rdskit.frames as frames
from rdskit.errors import EstimatedViewsWarning, InvalidParameter, RdsError
from rdskit.frames import MissingColumnsError
from rdskit.frames.accessor import attach_client

# SMALL (see frame_samples.py), by day and week (weeks end on Sunday):
#   r1 Mon 2026-01-05 reddit    Ann likes 10  views 100  er .10  score  .6 positive
#   r2 Mon 2026-01-05 reddit    Ann likes 4   views 50   er .08  score -.5 negative
#   t1 Tue 2026-01-06 tiktok    Bob likes 100 views 1000 er .20  score  0  neutral
#   t2 Tue 2026-01-13 tiktok    Bob likes 0   views 10   er  -   score  .3 positive
#   i1 Wed 2026-01-14 instagram Cy  likes 50  views 500  er .12  (not analysed)


def day(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


def test_kind(small: pd.DataFrame, profiles: pd.DataFrame) -> None:
    assert small.rds.kind == "mentions" and profiles.rds.kind == "profiles"
    assert pd.DataFrame({"source": ["reddit"], "id": ["a"]}).rds.kind == "mentions"
    assert pd.DataFrame({"x": [1]}).rds.kind == "unknown"


def test_volume_per_day_fills_empty_days(small: pd.DataFrame) -> None:
    volume = small.rds.volume("D")
    # 2 on the 5th, 1 on the 6th, nothing until 1 on the 13th and 1 on the 14th.
    assert volume.index[0] == day("2026-01-05") and volume.index[-1] == day("2026-01-14")
    assert volume.tolist() == [2, 1, 0, 0, 0, 0, 0, 0, 1, 1]
    assert volume.name == "mentions"


def test_volume_by_source_per_week(small: pd.DataFrame) -> None:
    volume = small.rds.volume("W", by="source")
    assert volume.index.tolist() == [day("2026-01-11"), day("2026-01-18")]
    assert volume.loc[day("2026-01-11")].to_dict() == {"instagram": 0, "reddit": 2, "tiktok": 1}
    assert volume.loc[day("2026-01-18")].to_dict() == {"instagram": 1, "reddit": 0, "tiktok": 1}


def test_sentiment_over_time(small: pd.DataFrame) -> None:
    weekly = small.rds.sentiment_over_time("W")
    first, second = weekly.iloc[0], weekly.iloc[1]
    # Week 1: r1, r2, t1 -> mean (0.6 - 0.5 + 0) / 3, one of each label.
    assert first["mentions"] == 3
    assert first["sentiment_score"] == pytest.approx(0.1 / 3)
    assert first[["negative", "neutral", "positive"]].tolist() == pytest.approx([1 / 3] * 3)
    # Week 2: t2 (0.3, positive) and i1 (not analysed, left out of mean and shares).
    assert second["mentions"] == 2 and second["sentiment_score"] == pytest.approx(0.3)
    assert second[["negative", "neutral", "positive"]].tolist() == [0.0, 0.0, 1.0]


def test_top(small: pd.DataFrame) -> None:
    # t2 has no engagement rate: it goes last.
    assert small.rds.top(5)["id"].tolist() == ["t1", "i1", "r1", "r2", "t2"]
    assert small.rds.top(3, by="num_likes")["id"].tolist() == ["t1", "i1", "r1"]


def test_top_authors(small: pd.DataFrame) -> None:
    authors = small.rds.top_authors(3)
    # Bob and Ann both have 2 mentions; Bob has more likes (100 vs 14).
    assert authors["author_title"].tolist() == ["Bob", "Ann", "Cy"]
    bob, ann, cy = (authors.iloc[i] for i in range(3))
    assert (bob["source"], bob["mentions"], bob["num_likes"], bob["num_views"]) == (
        "tiktok",
        2,
        100,
        1010,
    )
    assert bob["engagement_rate"] == pytest.approx(0.20)  # t2 has none
    assert (ann["mentions"], ann["num_likes"]) == (2, 14)
    assert ann["engagement_rate"] == pytest.approx(0.09)
    assert (cy["mentions"], cy["num_likes"]) == (1, 50)


def test_share_of_voice(small: pd.DataFrame) -> None:
    by_source = small.rds.share_of_voice()
    assert by_source["mentions"].to_dict() == {"reddit": 2, "tiktok": 2, "instagram": 1}
    assert by_source["share"].tolist() == pytest.approx([0.4, 0.4, 0.2])
    assert by_source.index.name == "source"
    # A list column: each post once per brand; Oatly in r1, r2 and Alpro in r2, t1.
    brands = small.rds.share_of_voice("mentioned_brands")
    assert brands["mentions"].to_dict() == {"Alpro": 2, "Oatly": 2}
    assert brands["share"].tolist() == pytest.approx([0.5, 0.5])


def test_engagement(small: pd.DataFrame) -> None:
    # tiktok .20 (t2 has no rate), instagram .12, reddit (.10 + .08) / 2.
    assert small.rds.engagement().to_dict() == pytest.approx(
        {"tiktok": 0.20, "instagram": 0.12, "reddit": 0.09}
    )
    assert small.rds.engagement().index.tolist() == ["tiktok", "instagram", "reddit"]


def test_emotions(small: pd.DataFrame) -> None:
    emotions = small.rds.emotions()
    # Four analysed posts; means of the shares chosen in frame_samples.py.
    expected = {
        "neutral": (0.2 + 0.3 + 0.5 + 0.4) / 4,
        "joy": (0.6 + 0.2 + 0.4) / 4,
        "sadness": 0.1 / 4,
        "anger": 0.5 / 4,
        "surprise": (0.1 + 0.3 + 0.2) / 4,
        "fear": 0.0,
        "disgust": 0.2 / 4,
    }
    assert emotions["mean"].to_dict() == pytest.approx(expected)
    # Dominant: r1 joy, r2 anger, t1 neutral, t2 neutral (tie with joy goes to neutral).
    assert emotions["dominant"].to_dict() == {
        "neutral": 2,
        "joy": 1,
        "sadness": 0,
        "anger": 1,
        "surprise": 0,
        "fear": 0,
        "disgust": 0,
    }
    assert emotions.loc["neutral", "dominant_share"] == 0.5


def test_keywords(small: pd.DataFrame) -> None:
    # Words (title + text, stopwords and the URL dropped): r1 oat milk foam oat milk foam
    # great; r2 oat milk price high; t1 oat milk latte recipe; t2 love; i1 check.
    words = small.rds.keywords(4)
    assert words.values.tolist() == [["milk", 4, 3], ["oat", 4, 3], ["foam", 2, 1], ["check", 1, 1]]
    assert small.rds.keywords(1, ngram=2).values.tolist() == [["oat milk", 4, 3]]
    assert small.rds.keywords(1, ngram=3).values.tolist() == [["oat milk foam", 2, 1]]
    with pytest.raises(ValueError, match="ngram must be 1, 2 or 3"):
        small.rds.keywords(ngram=4)


def test_analyses_work_on_filtered_and_sliced_frames(small: pd.DataFrame) -> None:
    reddit = small[small["source"] == "reddit"]
    assert reddit.rds.share_of_voice()["mentions"].to_dict() == {"reddit": 2}
    assert reddit.rds.volume("D").tolist() == [2]
    tail = small.iloc[2:]
    assert tail.rds.top_authors()["author_title"].tolist() == ["Bob", "Cy"]
    assert tail.rds.post_refs()[0] == {"id": "t1", "source": "tiktok"}
    assert small[["source", "id", "created_at"]].rds.volume("W").tolist() == [3, 2]


@pytest.mark.parametrize(
    ("call", "missing"),
    [
        (lambda df: df.rds.volume(), "'created_at'"),
        (lambda df: df.rds.volume(by="language"), "'language'"),
        (lambda df: df.rds.emotions(), "'emotion_joy'"),
        (lambda df: df.rds.comments(), "'comments'"),
        (lambda df: df.rds.top(by="num_likes"), "'num_likes'"),
    ],
)
def test_missing_columns_are_named(small: pd.DataFrame, call: Any, missing: str) -> None:
    frame = small.drop(columns=["created_at", "language", "emotion_joy", "comments", "num_likes"])
    with pytest.raises(MissingColumnsError, match=missing) as caught:
        call(frame)
    assert "mentions frame" in str(caught.value)
    assert isinstance(caught.value, KeyError)


def test_post_refs_and_its_limit(small: pd.DataFrame) -> None:
    assert small.rds.post_refs() == [
        {"id": i, "source": s}
        for s, i in [
            ("reddit", "r1"),
            ("reddit", "r2"),
            ("tiktok", "t1"),
            ("tiktok", "t2"),
            ("instagram", "i1"),
        ]
    ]
    many = frames.mentions_frame([{"source": "reddit", "id": str(i)} for i in range(51)])
    assert len(many.iloc[:50].rds.post_refs()) == 50
    with pytest.raises(InvalidParameter, match="at most 50 posts") as caught:
        many.rds.post_refs()
    assert caught.value.field == "post_refs" and "51 rows" in str(caught.value)


class FakeAsker:
    """Records ``ask`` calls (the client's signature: question, then post_refs=...)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def ask(self, question: str, *, post_refs: Any = None) -> str:
        self.calls.append((question, post_refs))
        return "turn"


def test_ask_uses_the_origin_client_and_exactly_these_posts(small: pd.DataFrame) -> None:
    origin, other = FakeAsker(), FakeAsker()
    attach_client(small, origin)
    top = small.rds.top(2)  # attrs survive slicing
    assert top.rds.ask("Why?") == "turn"
    assert origin.calls == [
        ("Why?", [{"id": "t1", "source": "tiktok"}, {"id": "i1", "source": "instagram"}])
    ]
    small.rds.ask("And?", client=other)
    assert other.calls[0][1] == small.rds.post_refs()


def test_ask_without_a_client(small: pd.DataFrame) -> None:
    with pytest.raises(RdsError, match="pass client="):
        small.rds.ask("Why?")


def test_attrs_stay_serialisable(small: pd.DataFrame, tmp_path: Any) -> None:
    # pandas deep-copies attrs and writes them into parquet metadata as JSON.
    asker = FakeAsker()
    attach_client(small, asker)
    small.to_parquet(tmp_path / "x.parquet")
    assert small.copy().rds.ask("Why?") == "turn"


def test_profile_analyses(profiles: pd.DataFrame) -> None:
    tiers = profiles.rds.creator_tiers()
    # p1, p2 nano; p3 micro; p4 mega; p5 unknown (left out).
    assert tiers["profiles"].to_dict() == {"nano": 2, "micro": 1, "mega": 1}
    assert tiers["share"].tolist() == [0.5, 0.25, 0.25]
    bands = profiles.rds.follower_distribution()
    # 500, 5k, 50k, 2M; p5 has no count.
    assert bands["profiles"].to_dict() == {
        "<1k": 1,
        "1k-10k": 1,
        "10k-100k": 1,
        "100k-1M": 0,
        ">=1M": 1,
    }
    assert bands["share"].tolist() == [0.25, 0.25, 0.25, 0.0, 0.25]
    interests = profiles.rds.top_interests(2)
    # coffee: p1, p2, p3 (twice in p3, counted once) of 5 profiles; then gaming/tea by name.
    assert interests["profiles"].to_dict() == {"coffee": 3, "gaming": 1}
    assert interests["share"].tolist() == pytest.approx([0.6, 0.2])
    # Verified: p3, p4 of the four profiles with the flag.
    assert profiles.rds.verified_share() == 0.5
    assert math.isnan(profiles.iloc[4:].rds.verified_share())


def test_profile_analyses_name_missing_columns(profiles: pd.DataFrame) -> None:
    with pytest.raises(MissingColumnsError, match=r"'creator_tier'.*profiles frame"):
        profiles.drop(columns="creator_tier").rds.creator_tiers()


def test_analysis_outputs_are_plain_numbers(small: pd.DataFrame) -> None:
    assert small.rds.sentiment_over_time()["sentiment_score"].dtype == np.float64
    assert small.rds.emotions()["mean"].dtype == np.float64


def _ranked_frame() -> pd.DataFrame:
    """Two platforms, one with estimated views; an ad on top by every measure."""
    return pd.DataFrame(
        {
            "id": ["r1", "r2", "t1", "t2", "ad"],
            "source": ["reddit", "reddit", "tiktok", "tiktok", "tiktok"],
            "engagement_rate": [0.01, 0.02, 0.2, 0.1, 0.9],
            "num_views": [10, 20, 300, 100, 9000],
            "are_views_estimated": [True, True, False, False, False],
            "content_type": ["organic", "organic", "organic", None, "ad"],
        }
    )


def test_top_per_source_ranks_within_each_platform() -> None:
    frame = _ranked_frame()
    ranked = frame.rds.top(1, per="source")
    assert sorted(ranked["id"]) == ["ad", "r2"]
    assert frame.rds.top(5, per="source")["id"].tolist() == ["r2", "r1", "ad", "t1", "t2"]
    assert frame.iloc[0:0].rds.top(3, per="source").empty


def test_a_ranking_across_estimated_and_counted_views_warns() -> None:
    frame = _ranked_frame()
    with pytest.warns(EstimatedViewsWarning, match="reddit.*per='source'"):
        frame.rds.top(2)
    with pytest.warns(EstimatedViewsWarning):
        frame.rds.top(2, by="num_views")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame.rds.top(2, by="id")  # not a views measure
        frame.rds.top(2, per="source")
        frame[frame["source"] == "tiktok"].rds.top(2)  # one kind of views only
        frame.drop(columns="are_views_estimated").rds.top(2)


def test_organic_drops_ads_and_keeps_unknown_content_types() -> None:
    frame = _ranked_frame()
    assert frame.rds.organic()["id"].tolist() == ["r1", "r2", "t1", "t2"]
    frame["ad_advertiser_id"] = [None, None, "adv_1", None, None]  # an ad marked only so
    assert frame.rds.organic()["id"].tolist() == ["r1", "r2", "t2"]
    with pytest.raises(MissingColumnsError, match="content_type"):
        frame.drop(columns="content_type").rds.organic()


@pytest.mark.parametrize("n", [-1, "5", 2.5, True, None])
@pytest.mark.parametrize("method", ["top", "top_authors", "keywords"])
def test_a_bad_row_count_is_named(small: pd.DataFrame, method: str, n: object) -> None:
    with pytest.raises(InvalidParameter, match="n: must be a whole number of rows"):
        getattr(small.rds, method)(n)


def test_a_bad_row_count_is_named_on_profiles(profiles: pd.DataFrame) -> None:
    with pytest.raises(InvalidParameter, match="got -3"):
        profiles.rds.top_interests(-3)
    assert len(profiles.rds.top_interests(np.int64(1))) <= 1  # numpy integers are whole numbers
