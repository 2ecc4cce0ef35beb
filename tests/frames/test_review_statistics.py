"""An independent check of compare() and agreement(): every expected figure is worked out
here from the textbook formulas (Wilson 1927, Newcombe 1998 method 10, the pooled two-
proportion z test, Cohen 1960 and its stratum-weighted estimate), never taken from rdskit,
on inputs the other tests do not use: intervals that overlap around a significant
difference, tiny and empty groups, zero counts, one-label samples, unequal strata, labels
only one coder uses, missing labels."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

import rdskit  # noqa: F401  (registers df.rds)
import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.agreement import agreement

Z95 = 1.959963984540054  # the 97.5 % normal quantile


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def newcombe(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Newcombe (1998) method 10, from the two Wilson intervals (l, u)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt(
        (u1 - p1) ** 2 + (p2 - l2) ** 2
    )


def z_test(k1: int, n1: int, k2: int, n2: int) -> float:
    p = (k1 + k2) / (n1 + n2)
    z = (k1 / n1 - k2 / n2) / math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2))
    return 2 * (1 - 0.5 * (1 + math.erf(abs(z) / math.sqrt(2))))


def _post(source: str, i: int, label: str | None) -> dict[str, Any]:
    shares = {"negative": "0.1", "neutral": "0.1", "positive": "0.1"}
    post: dict[str, Any] = {"source": source, "id": f"{source}-{i}", "content_type": "organic"}
    if label is not None:
        post["sentiment"] = {**shares, label: "0.8"}
    return post


def frame_of(groups: dict[str, dict[str | None, int]]) -> pd.DataFrame:
    """Posts per source and dominant sentiment (None: not analysed); no views columns set."""
    posts = []
    for source, labels in groups.items():
        for label, count in labels.items():
            posts += [_post(source, len(posts) + i, label) for i in range(count)]
    return frames.mentions_frame(posts)


# --- overlapping intervals, significant difference --------------------------------------


def test_overlapping_group_intervals_but_a_significant_difference() -> None:
    # tiktok 60 positive of 100, youtube 45 of 100.
    df = frame_of(
        {"tiktok": {"positive": 60, "negative": 40}, "youtube": {"positive": 45, "negative": 55}}
    )
    cmp = df.rds.compare(by="source")
    a, b = wilson(60, 100), wilson(45, 100)
    assert a[0] < b[1]  # the two groups' own 95 % intervals overlap...
    p = z_test(60, 100, 45, 100)
    assert p < 0.05  # ...yet the difference is significant (p = 0.0337)
    row = cmp.differences.set_index(["question", "label"]).loc[("sentiment", "positive")]
    assert (row["group_a"], row["group_b"]) == ("tiktok", "youtube")
    assert row["difference"] == pytest.approx(0.15, abs=1e-12)
    assert (row["low"], row["high"]) == pytest.approx(newcombe(60, 100, 45, 100), abs=1e-9)
    assert row["low"] > 0  # the interval of the difference excludes 0
    assert row["p_value"] == pytest.approx(p, abs=1e-9)
    assert bool(row["significant"]) and (row["n_a"], row["n_b"]) == (100, 100)
    group = cmp.sentiment.loc[("tiktok", "positive")]
    assert (group["low"], group["high"]) == pytest.approx(a, abs=1e-9)
    # The repr marks the difference significant and says to read it, not the overlap.
    text = repr(cmp)
    line = next(x for x in text.splitlines() if "sentiment: positive" in x)
    assert "+0.150 *" in line and "0.034" in line
    assert "can overlap while the difference is significant" in text
    assert "can overlap while the difference is significant" in cmp._repr_html_()
    assert "fewer than 5 expected" not in text  # 100 posts a group: no small-sample note


def test_a_non_significant_difference_is_not_starred() -> None:
    df = frame_of(
        {"tiktok": {"positive": 12, "negative": 8}, "youtube": {"positive": 10, "negative": 10}}
    )
    row = (
        df.rds.compare(by="source")
        .differences.set_index(["question", "label"])
        .loc[("sentiment", "positive")]
    )
    assert row["p_value"] == pytest.approx(z_test(12, 20, 10, 20), abs=1e-9)
    assert row["p_value"] > 0.05 and not row["significant"]
    assert row["low"] < 0 < row["high"]


def test_tiny_groups_zero_counts_and_a_group_with_nothing_analysed() -> None:
    df = frame_of(
        {
            "tiktok": {"positive": 1},  # n = 1
            "youtube": {"positive": 3, "neutral": 2},  # no negative at all
            "instagram": {None: 4},  # nothing analysed
        }
    )
    cmp = df.rds.compare(by="source")
    diffs = cmp.differences.set_index(["question", "label", "group_a", "group_b"])
    tiny = diffs.loc[("sentiment", "positive", "tiktok", "youtube")]
    assert (tiny["low"], tiny["high"]) == pytest.approx(newcombe(1, 1, 3, 5), abs=1e-9)
    assert tiny["p_value"] == pytest.approx(z_test(1, 1, 3, 5), abs=1e-9)
    zero = diffs.loc[("sentiment", "negative", "tiktok", "youtube")]
    # 0 of 1 vs 0 of 5: no difference, p = 1, and the interval is Newcombe's around 0.
    assert zero["difference"] == 0 and zero["p_value"] == 1.0 and not zero["significant"]
    assert (zero["low"], zero["high"]) == pytest.approx(newcombe(0, 1, 0, 5), abs=1e-9)
    empty = diffs.loc[("sentiment", "positive", "instagram", "tiktok")]
    assert empty["n_a"] == 0 and math.isnan(empty["share_a"]) and math.isnan(empty["p_value"])
    assert not empty["significant"]
    # Volume by source: the collection split the posts over the sources, so no interval.
    fixed = diffs.loc[("volume", "posts", "instagram", "tiktok")]
    assert math.isnan(fixed["low"]) and fixed["method"].startswith("fixed by the design")
    # By an attribute no collection sets (the language): two shares of one sample of 10
    # posts (Wald), by hand.
    language = df.assign(
        language=df["source"].map({"instagram": "de", "tiktok": "en", "youtube": "fr"})
    )
    by_language = language.rds.compare(by="language").differences
    vol = by_language.set_index(["question", "label", "group_a", "group_b"]).loc[
        ("volume", "posts", "de", "en")
    ]
    p1, p2 = 4 / 10, 1 / 10
    se = math.sqrt((p1 + p2 - (p1 - p2) ** 2) / 10)
    assert (vol["low"], vol["high"]) == pytest.approx((0.3 - Z95 * se, 0.3 + Z95 * se), abs=1e-9)
    # The repr shows no number for what cannot be computed, and says each share's n.
    text = repr(cmp)
    assert "nan" not in text.lower()
    line = next(x for x in text.splitlines() if "positive   instagram vs tiktok" in x)
    assert line.split()[5:7] == ["0", "–"]  # n a, share a
    assert "n: the posts each share is of" in text
    # 3 defined sentiment differences (tiktok vs youtube; the others have no n); two of
    # them have an expected count under 5 (0 of 1 vs 0 of 5 is exactly no difference).
    assert "2 of the 3 sentiment differences rest on fewer than 5 expected posts" in text


# --- Cohen's kappa, unweighted and weighted to the strata -----------------------------


def kappa_of(matrix: np.ndarray) -> tuple[float, float]:
    """(observed agreement, Cohen's kappa) of a confusion matrix, by the definitions."""
    total = matrix.sum()
    po = sum(matrix[i, i] for i in range(len(matrix))) / total
    pe = sum(matrix[i, :].sum() * matrix[:, i].sum() for i in range(len(matrix))) / total**2
    return po, (po - pe) / (1 - pe)


LABELS = ["negative", "neutral", "positive"]


def stratified_sample() -> tuple[list[str], list[str], list[str], dict[str, int]]:
    """A sample of 10 posts per service label (unequal to the collection's 50/150/800);
    rows: (service label, coder's label, count)."""
    cells = [
        ("negative", "negative", 8), ("negative", "neutral", 1), ("negative", "positive", 1),
        ("neutral", "neutral", 4), ("neutral", "negative", 3), ("neutral", "positive", 3),
        ("positive", "positive", 9), ("positive", "neutral", 1),
    ]  # fmt: skip
    service, coder = [], []
    for s, c, n in cells:
        service += [s] * n
        coder += [c] * n
    return service, coder, list(service), {"negative": 50, "neutral": 150, "positive": 800}


def test_weighted_kappa_on_a_stratified_sample_matches_a_hand_calculation() -> None:
    service, coder, strata, population = stratified_sample()
    sample_sizes = {label: strata.count(label) for label in LABELS}
    weights = [population[s] / sample_sizes[s] for s in strata]
    plain = np.zeros((3, 3))
    weighted = np.zeros((3, 3))
    for s, c, w in zip(service, coder, weights, strict=True):
        plain[LABELS.index(s), LABELS.index(c)] += 1
        weighted[LABELS.index(s), LABELS.index(c)] += w
    res = agreement(service, coder, weights=weights, strata=strata, n_boot=200)
    po_w, kappa_w = kappa_of(weighted)
    po, kappa = kappa_of(plain)
    assert res.weighted and res.observed == pytest.approx(po_w, abs=1e-12)
    assert res.kappa == pytest.approx(kappa_w, abs=1e-12)
    assert res.unweighted is not None
    assert res.unweighted.observed == pytest.approx(po, abs=1e-12)  # 21/30
    assert res.unweighted.kappa == pytest.approx(kappa, abs=1e-12)
    assert po == pytest.approx(21 / 30)
    # Weighted: 0.016 + 0.06 + 0.72 = 0.796 of the collection is agreed on.
    assert po_w == pytest.approx(8 / 10 * 0.05 + 4 / 10 * 0.15 + 9 / 10 * 0.8)
    assert res.confusion.to_numpy() == pytest.approx(weighted)
    # Per class, weighted: recall of "neutral" (the coder's neutral items the service finds).
    col = weighted[:, 1]
    per = res.per_class.set_index("label")
    assert per.loc["neutral", "recall"] == pytest.approx(col[1] / col.sum())
    assert per.loc["negative", "precision"] == pytest.approx(weighted[0, 0] / weighted[0].sum())
    assert res.kappa_ci[0] <= res.kappa <= res.kappa_ci[1]


def coded_collection() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The collection (50/150/800 posts per service label) and the coded sample of
    :func:`stratified_sample` (the first 10 posts of each label), with each item's weight."""
    service, coder, _, population = stratified_sample()
    posts = []
    for label, count in population.items():
        posts += [_post("tiktok", len(posts) + i, label) for i in range(count)]
    df = frames.mentions_frame(posts)
    sample = []
    for label in LABELS:
        ids = df.loc[df["sentiment"] == label, "id"].head(10).tolist()
        codes = [c for s, c in zip(service, coder, strict=True) if s == label]
        sample += [(i, c, population[label] / 10) for i, c in zip(ids, codes, strict=True)]
    return df, pd.DataFrame(sample, columns=["id", "label", "weight"])


def test_frame_agreement_weights_the_strata_of_the_frame() -> None:
    service, coder, _, population = stratified_sample()
    df, reference = coded_collection()
    res = df.rds.agreement(reference, strata="sentiment", n_boot=200)
    weights = [population[s] / 10 for s in service]
    by_hand = agreement(service, coder, weights=weights)
    assert res.kappa == pytest.approx(by_hand.kappa, abs=1e-12)
    assert res.unweighted is not None and res.unweighted.kappa == pytest.approx(
        kappa_of(_matrix(service, coder))[1], abs=1e-12
    )
    assert "estimate the collection" in repr(res)


def _matrix(a: list[str], b: list[str]) -> np.ndarray:
    m = np.zeros((3, 3))
    for x, y in zip(a, b, strict=True):
        m[LABELS.index(x), LABELS.index(y)] += 1
    return m


def test_a_label_only_one_coder_uses() -> None:
    a = ["pos", "pos", "neg", "mixed", "neg"]
    b = ["pos", "neg", "neg", "pos", "neg"]
    res = agreement(a, b, n_boot=100)
    # Labels mixed, neg, pos. Matrix rows a, columns b.
    m = np.array([[2, 0, 0], [0, 0, 1], [1, 0, 1]], dtype=float)  # neg, mixed, pos order below
    order = ["neg", "mixed", "pos"]
    by_hand = np.zeros((3, 3))
    for x, y in zip(a, b, strict=True):
        by_hand[order.index(x), order.index(y)] += 1
    assert (by_hand == m).all()
    assert res.kappa == pytest.approx(kappa_of(by_hand)[1], abs=1e-12)
    per = res.per_class.set_index("label")
    assert per.loc["mixed", "n"] == 0 and per.loc["mixed", "predicted"] == 1
    assert per.loc["mixed", "precision"] == 0 and math.isnan(per.loc["mixed", "recall"])


def test_one_label_only_has_no_kappa_and_says_why() -> None:
    res = agreement(["pos"] * 5, ["pos"] * 5, n_boot=50)
    assert res.observed == 1.0 and math.isnan(res.kappa)
    text = repr(res)
    assert "kappa" in text and "undefined" in text  # not a bare "nan"


def test_missing_labels_are_refused_naming_the_coder() -> None:
    with pytest.raises(InvalidParameter, match="no label") as caught:
        agreement(["pos", None, "neg"], ["pos", "neg", "neg"])
    assert caught.value.field == "a"
    with pytest.raises(InvalidParameter) as caught:
        agreement(["pos", "neg"], ["pos", float("nan")])
    assert caught.value.field == "b"


def test_groups_sharing_posts_are_said_not_independent() -> None:
    posts = [
        {
            "source": "tiktok",
            "id": str(i),
            "datasets": [{"id": "a", "name": "A"}] + ([{"id": "b", "name": "B"}] if i < 3 else []),
            "sentiment": {"negative": "0.1", "neutral": "0.1", "positive": "0.8"},
        }
        for i in range(6)
    ] + [
        {"source": "tiktok", "id": f"b{i}", "datasets": [{"id": "b", "name": "B"}]}
        for i in range(2)
    ]
    cmp = frames.mentions_frame(posts).rds.compare(by="dataset", resamples=20)
    assert cmp.overlap == 3
    assert (
        "3 posts are in more than one group: the intervals and tests of differences "
        "assume independent groups" in repr(cmp)
    )


def test_frame_agreement_takes_weights_given_by_the_user() -> None:
    service, coder, _, population = stratified_sample()
    df, reference = coded_collection()
    weighted = np.zeros((3, 3))
    for s, c in zip(service, coder, strict=True):
        weighted[LABELS.index(s), LABELS.index(c)] += population[s] / 10
    by_hand = kappa_of(weighted)
    by_column = df.rds.agreement(reference, weights="weight", n_boot=50)
    by_list = df.rds.agreement(reference, weights=reference["weight"].tolist(), n_boot=50)
    by_strata = df.rds.agreement(reference, strata="sentiment", n_boot=50)
    for res in (by_column, by_list, by_strata):
        assert res.weighted and (res.observed, res.kappa) == pytest.approx(by_hand, abs=1e-12)
    with pytest.raises(InvalidParameter, match="one weight per reference row"):
        df.rds.agreement(reference, weights=[1.0, 2.0])
    with pytest.raises(InvalidParameter, match="no column 'w'"):
        df.rds.agreement(reference, weights="w")


def test_the_comparison_says_whether_ads_are_in_it() -> None:
    posts = [
        {"source": s, "id": f"{s}{i}", "content_type": "ad" if i == 0 else "organic"}
        for s in ("tiktok", "youtube")
        for i in range(4)
    ]
    df = frames.mentions_frame(posts)
    assert "Compared: n = 8 posts; 2 ads included (df.rds.organic() leaves them out)." in repr(
        df.rds.compare(by="source", resamples=20)
    )
    organic = df.rds.organic().rds.compare(by="source", resamples=20)
    assert "Compared: n = 6 posts; ads left out (2)." in repr(organic)
    assert "ads left out (2)" in organic._repr_html_()
