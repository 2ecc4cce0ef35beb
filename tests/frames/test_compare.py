"""Dataset comparison: Wilson intervals as scipy computes them, seeded bootstrap medians,
distinguishing terms (Monroe et al. 2008) recovering a planted term, the chart, errors."""

from __future__ import annotations

import math
import random
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from research_sandbox import Research
from scipy import stats

import rdskit.frames as frames
from rdskit.errors import EstimatedViewsWarning, InvalidParameter
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
    # The split over the sources is the collection's, not sampled: no interval (see below).
    assert cmp.volume[["low", "high"]].isna().all().all()
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


@pytest.mark.filterwarnings("ignore::rdskit.errors.EstimatedViewsWarning")
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


def _two_groups(k_a: int, n_a: int, k_b: int, n_b: int, name_b: str = "B") -> pd.DataFrame:
    rows = [
        sentiment_post(i, "tiktok", "positive" if i < k_a else "negative", 1, "oat foam")
        | {"content_type": "A"}
        for i in range(n_a)
    ]
    rows += [
        sentiment_post(1000 + i, "tiktok", "positive" if i < k_b else "negative", 1, "soy latte")
        | {"content_type": name_b}
        for i in range(n_b)
    ]
    return frames.mentions_frame(rows)


def test_overlapping_intervals_yet_a_significant_difference() -> None:
    """60 % vs 45 % of 100 posts each: the groups' 95 % Wilson intervals overlap, yet the
    difference is significant, and compare() says so with Newcombe's interval."""
    cmp = _two_groups(60, 100, 45, 100).rds.compare(by="content_type", resamples=200)
    a, b = cmp.sentiment.loc[("A", "positive")], cmp.sentiment.loc[("B", "positive")]
    assert a["low"] < b["high"]  # the intervals overlap
    row = cmp.differences.set_index(["question", "label"]).loc[("sentiment", "positive")]
    assert (row["group_a"], row["group_b"]) == ("A", "B")
    assert row["difference"] == pytest.approx(0.15)
    # Newcombe (1998) method 10, by hand from the two Wilson intervals.
    (la, ha), (lb, hb) = wilson_by_hand(60, 100), wilson_by_hand(45, 100)
    low = 0.15 - math.sqrt((0.6 - la) ** 2 + (hb - 0.45) ** 2)
    high = 0.15 + math.sqrt((ha - 0.6) ** 2 + (0.45 - lb) ** 2)
    assert (row["low"], row["high"]) == pytest.approx((low, high), abs=1e-9)
    assert 0 < row["low"] < row["high"]
    # The pooled z test of equal proportions (statsmodels' proportions_ztest computes the same).
    pooled = 105 / 200
    z = 0.15 / math.sqrt(pooled * (1 - pooled) * (2 / 100))
    assert row["p_value"] == pytest.approx(2 * stats.norm.sf(z), rel=1e-9)
    assert row["p_value"] < 0.05 and row["significant"]
    text = repr(cmp)
    assert "not whether the groups' own intervals overlap" in text
    assert "+0.150 *" in text and "[0.502, 0.691]" in text
    # A clear non-difference is reported as such.
    same = _two_groups(50, 100, 50, 100).rds.compare(by="content_type", resamples=200)
    row = same.differences.set_index(["question", "label"]).loc[("sentiment", "positive")]
    assert row["difference"] == 0 and not row["significant"] and row["low"] < 0 < row["high"]


def test_the_html_repr_is_a_safe_inline_styled_table() -> None:
    hostile = '<img src=x onerror=alert(1)>"\x1b[31m'
    cmp = _two_groups(6, 10, 4, 10, name_b=hostile).rds.compare(by="content_type", resamples=50)
    page = cmp._repr_html_()
    assert "<table" in page and "<style" not in page and "class=" not in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;&quot;" in page
    assert "\x1b" not in page and "\x1b" not in repr(cmp)
    assert "not whether the groups&#x27; own intervals overlap" in page


def test_query_words_are_marked_among_distinguishing_terms() -> None:
    df = _two_groups(6, 10, 4, 10)
    df.attrs["rdskit"]["fetches"] = [
        {
            "resource": "mentions",
            "fetched_at": "2026-01-01T00:00:00Z",
            "query": {},
            "runs": [{"id": "r1", "params": {"search_query": {"search_query": "oat foam"}}}],
        }
    ]
    cmp = df.rds.compare(by="content_type", resamples=50)
    marked = cmp.terms.set_index(["group", "term"])["in_query"]
    assert marked[("A", "oat")] and marked[("A", "foam")] and not marked[("B", "soy")]
    assert "part of the search query (foam, oat)" in repr(cmp)


def test_cross_platform_engagement_comparisons_warn() -> None:
    rows = [
        sentiment_post(i, source, "positive", 10 * i, "x")
        | {"num_views": 100, "are_views_estimated": source == "reddit"}
        for i, source in enumerate(["reddit", "tiktok"] * 5)
    ]
    df = frames.mentions_frame(rows)
    with pytest.warns(EstimatedViewsWarning, match=r"reddit"):
        cmp = df.rds.compare(by="source", resamples=50)
    assert any("estimated" in note for note in cmp.notes)
    with pytest.warns(EstimatedViewsWarning, match="engagement rates"):
        df.rds.engagement("source")
    with pytest.warns(EstimatedViewsWarning):
        df.rds.plot.engagement("source")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df[df["source"] == "tiktok"].rds.engagement("source")  # one source: no warning


def test_a_split_the_design_fixed_has_no_sampling_interval() -> None:
    # Two datasets of 10 and 20 posts: the runs asked for those counts, nothing was sampled.
    a, b = [{"id": "ds_a", "name": "A"}], [{"id": "ds_b", "name": "B"}]
    rows = [{**sentiment_post(i, "reddit", "positive", i, "x"), "datasets": a} for i in range(10)]
    rows += [
        {**sentiment_post(i, "tiktok", "negative", 100 + i, "y"), "datasets": b} for i in range(20)
    ]
    frame = frames.mentions_frame(rows)
    cmp = frame.rds.compare(by="dataset", resamples=200)
    assert cmp.volume["posts"].tolist() == [10, 20]
    assert cmp.volume[["low", "high"]].isna().all().all()
    volume = cmp.differences[cmp.differences["question"] == "volume"].iloc[0]
    assert math.isnan(volume["low"]) and math.isnan(volume["p_value"])
    assert not volume["significant"] and volume["method"].startswith("fixed by the design")
    assert any("fixed by the design, not sampled" in note for note in cmp.notes)
    assert "fixed by the design" in repr(cmp)
    line = next(x for x in repr(cmp).splitlines() if x.startswith("volume"))
    assert "–" in line and "nan" not in line.lower()
    # By source too: a run splits its count over its sources, so that split was set, not
    # sampled; the note says so and points to research previews instead.
    by_source = frame.rds.compare(by="source", resamples=200)
    assert by_source.volume[["low", "high"]].isna().all().all()
    assert any(note.startswith("Volume by source") for note in by_source.notes)
    assert "research preview per source" in repr(by_source)
    # An attribute no collection sets (here the language) keeps its sampling interval.
    language = frame.assign(language=frame["source"].map({"reddit": "de", "tiktok": "en"}))
    by_language = language.rds.compare(by="language", resamples=200)
    assert by_language.volume["low"].tolist() == pytest.approx(
        [wilson_by_hand(10, 30)[0], wilson_by_hand(20, 30)[0]]
    )
    assert not any("fixed by the design" in note for note in by_language.notes)


def test_the_methods_say_which_shares_have_an_interval() -> None:
    a, b = [{"id": "ds_a", "name": "A"}], [{"id": "ds_b", "name": "B"}]
    rows = [{**sentiment_post(i, "reddit", "positive", i, "x"), "datasets": a} for i in range(6)]
    rows += [{**sentiment_post(i, "tiktok", "negative", i, "y"), "datasets": b} for i in range(6)]
    by_dataset = frames.mentions_frame(rows)
    by_dataset.rds.compare(by="dataset", resamples=50)
    said = by_dataset.rds.methods().text
    assert (
        "each group's sentiment shares with Wilson score intervals (its share of the posts "
        "has none: the design fixed that split)" in said
    )
    by_language = frames.mentions_frame(
        [{**row, "language": "de" if row["source"] == "reddit" else "en"} for row in rows]
    )
    by_language.rds.compare(by="language", resamples=50)
    said = by_language.rds.methods().text
    assert "each group's shares with Wilson score intervals" in said
    assert "fixed that split" not in said
