"""Validity and corrected shares against hand computations and scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import precision_recall_fscore_support

from rdskit.errors import InvalidParameter
from rdskit.validation import Codebook, validity

SENTIMENT = Codebook.of("sentiment", ["negative", "neutral", "positive"])


def test_rogan_gladen_by_hand() -> None:
    book = Codebook.of("complaint", ["no", "yes"])
    # 20 true yes: 16 labelled yes (sensitivity .8); 30 true no: 27 labelled no (spec .9).
    service = ["yes"] * 16 + ["no"] * 4 + ["no"] * 27 + ["yes"] * 3
    human = ["yes"] * 20 + ["no"] * 30
    v = validity(service, human, book, population=["yes"] * 300 + ["no"] * 700, n_boot=300)
    se, sp, p = 0.8, 0.9, 0.3
    assert v.method == "Rogan-Gladen"
    assert v.per_class.loc["yes", "corrected_share"] == pytest.approx((p + sp - 1) / (se + sp - 1))
    assert v.per_class["corrected_share"].sum() == pytest.approx(1)
    assert not v.clipped


def test_matrix_inversion_recovers_the_true_shares_when_the_errors_are_known() -> None:
    truth = np.array([0.2, 0.5, 0.3])
    m = np.array([[0.9, 0.1, 0.05], [0.1, 0.6, 0.15], [0.0, 0.3, 0.8]])  # P(service | human)
    raw = m @ truth
    service, human = [], []
    for k, h in enumerate(SENTIMENT.values):
        for j, s in enumerate(SENTIMENT.values):
            service += [s] * round(m[j, k] * 100)
            human += [h] * round(m[j, k] * 100)
    population = [
        v
        for v, share in zip(SENTIMENT.values, raw, strict=True)
        for _ in range(round(share * 10000))
    ]
    v = validity(service, human, SENTIMENT, population=population, n_boot=300)
    assert v.method == "matrix inversion"
    assert v.per_class["corrected_share"].to_numpy() == pytest.approx(truth, abs=1e-3)
    assert "corrected" in v.sentence() and "neutral:" in v.sentence()


def test_an_impossible_correction_is_clipped_and_said_so() -> None:
    book = Codebook.of("complaint", ["no", "yes"])
    # False positives at 30 %: a raw share of 10 % is below what the errors alone give.
    service = ["yes"] * 9 + ["no"] * 1 + ["yes"] * 9 + ["no"] * 21
    human = ["yes"] * 10 + ["no"] * 30
    v = validity(service, human, book, population=["yes"] * 10 + ["no"] * 90, n_boot=300)
    assert v.clipped and v.per_class.loc["yes", "corrected_share"] == 0
    assert "clipped to 0-1 and renormalised" in repr(v)
    assert "clipped to 0-1 and renormalised" in v.sentence()


def test_precision_recall_and_the_confusion_matrix_are_design_weighted() -> None:
    rng = np.random.default_rng(1)
    values = np.array(SENTIMENT.values)
    human = rng.choice(values, 90)
    service = np.where(rng.random(90) < 0.7, human, rng.choice(values, 90))
    w = rng.uniform(1, 6, 90)
    v = validity(
        list(service), list(human), SENTIMENT, population=list(service), weights=w, n_boot=300
    )
    precision, recall, _, _ = precision_recall_fscore_support(
        human, service, labels=list(values), sample_weight=w, zero_division=np.nan
    )
    assert v.per_class["precision"].to_numpy() == pytest.approx(precision)
    assert v.per_class["recall"].to_numpy() == pytest.approx(recall)
    assert v.confusion.to_numpy().sum() == pytest.approx(w.sum())
    assert v.confusion.loc["positive", "neutral"] == pytest.approx(
        w[(service == "positive") & (human == "neutral")].sum()
    )
    for name in values:
        iv = v.intervals[name]["recall"]
        assert iv.defined and iv.low <= v.per_class.loc[name, "recall"] <= iv.high
    assert "design-weighted" in repr(v)


def test_a_class_nobody_coded_makes_the_errors_not_invertible() -> None:
    service = ["positive"] * 15 + ["neutral"] * 15
    human = ["positive"] * 15 + ["neutral"] * 15
    v = validity(service, human, SENTIMENT, population=service, n_boot=200)
    assert math.isnan(v.per_class.loc["negative", "corrected_share"])
    assert "cannot be inverted" in repr(v)


def test_codes_are_checked_first() -> None:
    with pytest.raises(InvalidParameter, match="human: item 2 has the code 'Neutral'"):
        validity(["neutral", "neutral"], ["neutral", "Neutral"], SENTIMENT, population=["neutral"])
    with pytest.raises(InvalidParameter, match="one code per service label"):
        validity(["neutral"], ["neutral", "neutral"], SENTIMENT, population=["neutral"])
