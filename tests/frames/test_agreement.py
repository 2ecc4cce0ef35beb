"""Agreement with a hand-coded reference: Cohen's kappa and per-class rates as the
textbook computes them (scikit-learn agrees), weighted to a stratified sample's strata by
hand, seeded bootstrap intervals, the frame join, and bad input named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score, confusion_matrix

import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.agreement import Agreement, agreement

# A sample stratified by the service's label: 4 posts of each, coded by hand.
SAMPLE = [  # (id, service label, hand-coded label)
    ("p1", "positive", "positive"),
    ("p2", "positive", "positive"),
    ("p3", "positive", "positive"),
    ("p4", "positive", "neutral"),
    ("n1", "negative", "negative"),
    ("n2", "negative", "negative"),
    ("n3", "negative", "positive"),
    ("n4", "negative", "neutral"),
    ("u1", "neutral", "neutral"),
    ("u2", "neutral", "positive"),
    ("u3", "neutral", "negative"),
    ("u4", "neutral", "neutral"),
]
# The collection: 800 positive, 150 negative, 50 neutral posts (by the service's label).
SIZES = {"positive": 800, "negative": 150, "neutral": 50}


def collection() -> pd.DataFrame:
    coded = {i for i, _, _ in SAMPLE}
    rows = [{"source": "tiktok", "id": i, "sentiment": {label: "0.9"}} for i, label, _ in SAMPLE]
    for label, size in SIZES.items():
        rows += [
            {"source": "tiktok", "id": f"{label}{k}", "sentiment": {label: "0.9"}}
            for k in range(size - 4)
            if f"{label}{k}" not in coded
        ]
    return frames.mentions_frame(rows)


def reference() -> pd.DataFrame:
    return pd.DataFrame({"id": [i for i, _, _ in SAMPLE], "label": [h for _, _, h in SAMPLE]})


def test_unweighted_kappa_is_cohens() -> None:
    a, b = [s for _, s, _ in SAMPLE], [h for _, _, h in SAMPLE]
    res = agreement(a, b, n_boot=500)
    assert res.n == 12 and not res.weighted and res.unweighted is None
    assert res.observed == pytest.approx(7 / 12)
    # By hand: po = 7/12, pe = (4*3 + 4*4 + 4*5) / 12**2 = 1/3.
    assert res.kappa == pytest.approx((7 / 12 - 1 / 3) / (1 - 1 / 3)) == pytest.approx(0.375)
    assert res.kappa == pytest.approx(cohen_kappa_score(a, b))
    labels = ["negative", "neutral", "positive"]
    assert (res.confusion.to_numpy() == confusion_matrix(a, b, labels=labels)).all()
    per = res.per_class.set_index("label")
    assert per.loc["positive", ["n", "predicted"]].tolist() == [5, 4]
    assert per.loc["positive", "precision"] == pytest.approx(3 / 4)
    assert per.loc["positive", "recall"] == pytest.approx(3 / 5)
    assert per.loc["positive", "error_rate"] == pytest.approx(2 / 5)
    # Twelve items cannot support a bootstrap interval: none, and the note says why.
    assert np.isnan(res.kappa_ci).all() and np.isnan(res.observed_ci).all()
    assert "No interval for Cohen's kappa: 12 units: a bootstrap needs 20" in repr(res)
    # Three times the items: BCa intervals around the (same) values, seeded.
    res = agreement(a * 3, b * 3, n_boot=500)
    low, high = res.kappa_ci
    assert low < res.kappa < high and res.observed_ci[0] < res.observed < res.observed_ci[1]
    assert agreement(a * 3, b * 3, n_boot=500).kappa_ci == res.kappa_ci
    assert agreement(a * 3, b * 3, n_boot=500, seed=1).kappa_ci != res.kappa_ci


def test_weighted_kappa_on_a_stratified_sample_matches_a_hand_calculation() -> None:
    df = collection()
    assert len(df) == 1000
    res = df.rds.agreement(reference(), strata="sentiment", n_boot=500)
    assert isinstance(res, Agreement) and res.weighted and res.n == 12
    # Weights: 800/4 = 200 (positive), 150/4 = 37.5 (negative), 50/4 = 12.5 (neutral).
    # Weighted matrix, rows service, columns hand-coded (negative, neutral, positive):
    #   negative: 75, 37.5, 37.5   (row 150)
    #   neutral : 12.5, 25, 12.5   (row 50)
    #   positive: 0, 200, 600      (row 800)
    # po = (75 + 25 + 600) / 1000 = 0.7; columns 87.5, 262.5, 650;
    # pe = (150 * 87.5 + 50 * 262.5 + 800 * 650) / 1000**2 = 0.54625.
    expected = np.array([[75, 37.5, 37.5], [12.5, 25, 12.5], [0, 200, 600]])
    assert res.confusion.to_numpy() == pytest.approx(expected)
    assert res.observed == pytest.approx(0.7)
    assert res.kappa == pytest.approx((0.7 - 0.54625) / (1 - 0.54625))  # 0.3388...
    per = res.per_class.set_index("label")
    assert per.loc["positive", "recall"] == pytest.approx(600 / 650)
    assert per.loc["neutral", "precision"] == pytest.approx(25 / 50)
    # The unweighted figures (the sample as is) come along, and differ.
    assert res.unweighted is not None and res.unweighted.kappa == pytest.approx(0.375)
    text = repr(res)
    assert "design-weighted" in text and "unweighted" in text
    assert "0.339" in text and "0.375" in text
    assert "<style" not in res._repr_html_()
    # Twelve items: no interval (the repr says why), rather than a falsely precise one.
    assert np.isnan(res.kappa_ci).all() and "No interval for Cohen's kappa" in text


def test_a_stratum_missing_from_the_sample_is_said() -> None:
    df = collection()
    coded = reference()[~reference()["id"].str.startswith("u")]
    res = df.rds.agreement(coded, strata="sentiment", n_boot=100)
    assert any("neutral (50 posts)" in note for note in res.notes)
    assert "left out of the estimate" in repr(res)


def test_bad_input_is_named() -> None:
    with pytest.raises(InvalidParameter, match="same length"):
        agreement(["a"], ["a", "b"])
    with pytest.raises(InvalidParameter, match="weights"):
        agreement(["a", "b"], ["a", "b"], weights=[1, -1])
    with pytest.raises(InvalidParameter, match="no label"):
        agreement(["a", None], ["a", "b"])
    with pytest.raises(InvalidParameter, match="reference"):
        collection().rds.agreement(pd.DataFrame({"id": ["zz"], "label": ["x"]}))
    with pytest.raises(InvalidParameter, match="label"):
        collection().rds.agreement(pd.DataFrame({"id": ["p1"]}))
