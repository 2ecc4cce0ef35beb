"""Dataset comparison: Wilson intervals as scipy computes them, seeded bootstrap medians,
distinguishing terms (Monroe et al. 2008) recovering a planted term, the chart, errors."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from research_sandbox import Research
from scipy import stats

import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.accessor import MissingColumnsError
from rdskit.frames.compare import log_odds, wilson


def wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927), the textbook formula."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n"), [(7, 50), (0, 10), (10, 10), (1, 1), (682, 925), (3, 1000)])
def test_wilson_matches_scipy_and_the_formula(k: int, n: int) -> None:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert wilson(k, n) == pytest.approx(wilson_by_hand(k, n), abs=1e-9)
    low90, high90 = wilson(k, n, 0.90)
    assert low90 >= wilson(k, n)[0] - 1e-12 and high90 <= wilson(k, n)[1] + 1e-12
    assert all(math.isnan(x) for x in wilson(0, 0))


def sentiment_post(i: int, source: str, sentiment: str, likes: int, text: str) -> dict:
    shares = {"negative": "0.1", "neutral": "0.1", "positive": "0.1", sentiment: "0.8"}
    return {
        "source": source,
        "id": f"{source}{i}",
        "sentiment": shares,
        "num_likes": likes,
        "engagement_rate": str(likes / 1000),
        "text": text,
    }


def test_tables_follow_from_the_counts() -> None:
    rows = [
        sentiment_post(i, "reddit", "positive" if i < 6 else "negative", i, "x") for i in range(10)
    ]
    rows += [
        sentiment_post(i, "tiktok", "positive" if i < 2 else "neutral", 100 + i, "y")
        for i in range(20)
    ]
    cmp = frames.mentions_frame(rows).rds.compare(by="source", resamples=500)
    assert cmp.groups == ("reddit", "tiktok") and cmp.overlap == 0
    assert cmp.volume["posts"].tolist() == [10, 20]
    assert cmp.volume.loc["reddit", ["low", "high"]].tolist() == pytest.approx(wilson(10, 30))
    positive = cmp.sentiment.loc[("reddit", "positive")]
    assert (positive["posts"], positive["analysed"], positive["share"]) == (6, 10, 0.6)
    assert [positive["low"], positive["high"]] == pytest.approx(wilson(6, 10))
    assert cmp.sentiment.loc[("tiktok", "neutral"), "posts"] == 18
    likes = cmp.engagement.loc[("tiktok", "num_likes")]
    assert likes["median"] == np.median(np.arange(100, 120))
    assert likes["low"] <= likes["median"] <= likes["high"]
    again = frames.mentions_frame(rows).rds.compare(by="source", resamples=500)
    pd.testing.assert_frame_equal(cmp.engagement, again.engagement)  # seeded: reproducible


def test_bootstrap_interval_is_scipys() -> None:
    values = np.array([1.0, 2, 2, 3, 5, 8, 13, 21, 34, 55])
    rows = [sentiment_post(i, "a", "positive", int(v), "x") for i, v in enumerate(values)]
    rows += [sentiment_post(i, "b", "positive", 1, "y") for i in range(5)]
    cmp = frames.mentions_frame(rows).rds.compare(by="source", resamples=999, seed=3)
    expected = stats.bootstrap(
        (values,),
        np.median,
        n_resamples=999,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(3),
    ).confidence_interval
    got = cmp.engagement.loc[("a", "num_likes"), ["low", "high"]].tolist()
    assert got == pytest.approx([expected.low, expected.high])


def test_log_odds_recovers_a_planted_term() -> None:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(300)]
    weights = [1 / (r + 1) for r in range(300)]  # Zipf-like background
    texts = {}
    for group in ("a", "b"):
        texts[group] = [" ".join(rng.choices(vocabulary, weights, k=30)) for _ in range(200)]
    # 'zyzzyva' appears in a fifth of group a's posts, never in b's.
    texts["a"] = [t + " zyzzyva" if i % 5 == 0 else t for i, t in enumerate(texts["a"])]
    rows = [
        {"source": group, "id": f"{group}{i}", "text": text}
        for group, group_texts in texts.items()
        for i, text in enumerate(group_texts)
    ]
    terms = frames.mentions_frame(rows).rds.compare(by="source", terms=5).terms
    top_a = terms[terms["group"] == "a"].iloc[0]
    assert top_a["term"] == "zyzzyva" and top_a["count"] == 40 and top_a["other"] == 0
    assert top_a["z"] > 3
    assert "zyzzyva" not in terms.loc[terms["group"] == "b", "term"].tolist()


def test_log_odds_is_the_published_estimator() -> None:
    counts = {"a": Counter(x=30, y=10, z=5), "b": Counter(x=5, y=10, z=5)}
    out = log_odds(counts, prior_size=100).set_index(["group", "term"])
    pooled = np.array([35, 20, 10.0])
    alpha = 100 * pooled / pooled.sum()
    y_i, y_j = np.array([30, 10, 5.0]), np.array([5, 10, 5.0])
    n_i, n_j, a0 = y_i.sum(), y_j.sum(), alpha.sum()
    delta = np.log((y_i + alpha) / (n_i + a0 - y_i - alpha)) - np.log(
        (y_j + alpha) / (n_j + a0 - y_j - alpha)
    )
    z = delta / np.sqrt(1 / (y_i + alpha) + 1 / (y_j + alpha))
    assert out.xs("a")["z"].reindex(["x", "y", "z"]).tolist() == pytest.approx(z.tolist())
    assert out.xs("b")["log_odds"].reindex(["x", "y", "z"]).tolist() == pytest.approx(
        (-delta).tolist()
    )


def test_by_dataset_on_the_sandbox(research: Research) -> None:
    df = research.mentions()
    cmp = df.rds.compare(by="dataset", resamples=300)
    assert cmp.groups == ("Alpro", "Oatly")
    names = df["datasets"].map(lambda ds: [d["name"] for d in ds])
    for name in cmp.groups:
        mine = df[names.map(lambda n, name=name: name in n)]
        assert cmp.volume.loc[name, "posts"] == len(mine)
        negative = int((mine["sentiment"] == "negative").sum())
        row = cmp.sentiment.loc[(name, "negative")]
        assert row["posts"] == negative and row["analysed"] == mine["sentiment"].notna().sum()
        assert [row["low"], row["high"]] == pytest.approx(wilson(negative, row["analysed"]))
        assert cmp.engagement.loc[(name, "engagement_rate"), "median"] == pytest.approx(
            mine["engagement_rate"].median()
        )
    assert set(cmp.terms["group"]) == {"Alpro", "Oatly"}
    ax = df.rds.plot.compare(by="dataset", what="sentiment", resamples=200)
    assert "Wilson" in ax.get_title() and len(ax.patches) == 6
    heights = sorted(round(p.get_height(), 6) for p in ax.patches)
    assert heights == sorted(round(x, 6) for x in cmp.sentiment["share"])
    ax = df.rds.plot.compare(by="source", what="engagement", metric="num_likes", resamples=200)
    assert "num_likes" in ax.get_title()


def test_bad_input_is_named() -> None:
    df = frames.mentions_frame([sentiment_post(1, "reddit", "positive", 1, "a")])
    with pytest.raises(InvalidParameter, match="at least two groups"):
        df.rds.compare(by="source")
    with pytest.raises(InvalidParameter, match="empty"):
        df.iloc[:0].rds.compare(by="source")
    with pytest.raises(MissingColumnsError, match="'datasets'"):
        df.drop(columns=["datasets"]).rds.compare()
    with pytest.raises(MissingColumnsError, match="'brand'"):
        df.rds.compare(by="brand")
    with pytest.raises(InvalidParameter, match="confidence"):
        df.rds.compare(by="source", confidence=95)
    two = frames.mentions_frame(
        [
            sentiment_post(1, "reddit", "positive", 1, "a"),
            sentiment_post(2, "x", "positive", 1, "b"),
        ]
    )
    with pytest.raises(InvalidParameter, match="what"):
        two.rds.plot.compare(by="source", what="colour")
