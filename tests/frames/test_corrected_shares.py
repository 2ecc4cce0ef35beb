"""Shares corrected with a validation, beside the raw ones: ``compare(validation=...)``,
``df.rds.plot.compare(..., validation=...)``, ``df.rds.plot.sentiment(..., validation=...)``
and what ``df.rds.methods()`` says of it.

The corrected figures are checked against :func:`rdskit.validation.validity` called
directly on each group's labels, and against the correction computed by hand (the error
matrix from the coded sample's counts, ``numpy.linalg.solve``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.validation import Codebook, Validity, reliability, validity

LABELS = ["negative", "neutral", "positive"]
BOOK = Codebook.of("tone", LABELS)
WEEK = 7 * 86400
START = 1767225600  # 2026-01-01


def _post(i: int, source: str, sentiment: str) -> dict:
    shares = {"negative": "0.1", "neutral": "0.1", "positive": "0.1", sentiment: "0.8"}
    return {
        "source": source,
        "id": f"{source}{i}",
        "sentiment": shares,
        "text": f"post {i}",
        "created_at": START + (i % 4) * WEEK + i,
    }


def _frame() -> pd.DataFrame:
    # The service's labels per source (negative, neutral, positive): mixes whose correction
    # with SAMPLE's errors stays within 0-1 (no clipping).
    mix = {"reddit": (27, 37, 56), "tiktok": (41, 49, 30)}
    rows = []
    for source, counts in mix.items():
        labels = [label for label, k in zip(LABELS, counts, strict=True) for _ in range(k)]
        rows += [_post(i, source, label) for i, label in enumerate(labels)]
    return frames.mentions_frame(rows)


# The service says positive for many posts people code neutral: (service, human, posts).
SAMPLE = [
    ("negative", "negative", 18), ("negative", "neutral", 2),
    ("neutral", "neutral", 16), ("neutral", "positive", 4),
    ("positive", "positive", 12), ("positive", "neutral", 8),
]  # fmt: skip


def _sample() -> tuple[list[str], list[str]]:
    service = [s for s, _, k in SAMPLE for _ in range(k)]
    human = [h for _, h, k in SAMPLE for _ in range(k)]
    return service, human


def _validation(df: pd.DataFrame, **options: object) -> Validity:
    service, human = _sample()
    second = list(human)
    second[:3] = ["neutral"] * 3  # a second coder who differs on three posts
    agreement = reliability({"ann": human, "bob": second}, BOOK, n_boot=300)
    return validity(
        service,
        human,
        BOOK,
        population=df["sentiment"].astype(str),
        reliability=agreement,
        n_boot=300,
        **options,  # type: ignore[arg-type]
    )


def _by_hand(raw: np.ndarray) -> np.ndarray:
    """Matrix inversion from the sample's counts: M[j, k] = P(service j | human k)."""
    service, human = _sample()
    counts = pd.crosstab(pd.Series(service), pd.Series(human)).reindex(
        index=LABELS, columns=LABELS, fill_value=0
    )
    m = counts.to_numpy(dtype=float) / counts.to_numpy(dtype=float).sum(axis=0)
    return np.linalg.solve(m, raw)


def test_compare_reports_corrected_shares_beside_the_raw_ones() -> None:
    df = _frame()
    v = _validation(df)
    plain = df.rds.compare(by="source")
    cmp = df.rds.compare(by="source", validation=v)
    # The raw figures and the differences are untouched.
    pd.testing.assert_frame_equal(cmp.sentiment[plain.sentiment.columns], plain.sentiment)
    pd.testing.assert_frame_equal(cmp.differences, plain.differences)
    for group in ("reddit", "tiktok"):
        labels = df.loc[df["source"] == group, "sentiment"].astype(str)
        direct = validity(
            *_sample(), BOOK, population=labels.tolist(), n_boot=300
        )  # what rdskit.validation computes directly for this group
        raw = labels.value_counts(normalize=True).reindex(LABELS).to_numpy()
        np.testing.assert_allclose(_by_hand(raw), direct.corrected().to_numpy(), atol=1e-12)
        for label in LABELS:
            row = cmp.sentiment.loc[(group, label)]
            expected = direct.intervals[label]["corrected_share"]
            assert row["corrected"] == pytest.approx(direct.corrected()[label], abs=1e-12)
            assert (row["corrected_low"], row["corrected_high"]) == pytest.approx(
                (expected.low, expected.high), abs=1e-12
            )
            assert expected.defined
        assert not direct.clipped
    # The correction moves the shares: the service calls positive what people code neutral.
    tiktok = cmp.sentiment.loc["tiktok"]
    assert tiktok.loc["positive", "corrected"] < tiktok.loc["positive", "share"] - 0.1
    text = repr(cmp)
    assert "Sentiment shares, raw and corrected for the labels' errors measured on 60" in text
    assert "one error matrix for every group" in text
    assert "The differences and their tests are of the raw shares." in text
    assert "corrected" not in repr(plain)


def test_methods_states_a_validation_only_when_one_was_applied() -> None:
    df = _frame()
    v = _validation(df)
    df.rds.compare(by="source")
    without = df.rds.methods().text
    assert "validated" not in without and "alpha" not in without
    assert "corrected" not in without

    # Passed to methods() but applied to no figure: stated, and said not to correct.
    stated = df.rds.methods(validation=v).text
    assert "validated against 60 hand-coded posts" in stated
    assert "No share reported from this frame was corrected for these errors." in stated

    df.rds.compare(by="source", validation=v)
    text = df.rds.methods().text
    alpha = v.reliability.measure("Krippendorff's alpha (nominal)") if v.reliability else None
    assert alpha is not None and alpha.interval.defined
    assert "The service's labels were validated against 60 hand-coded posts" in text
    assert "unweighted: the sample as drawn" in text
    assert "2 coders (ann and bob) coded 60 of them" in text
    assert (
        f"Krippendorff's alpha (nominal) {alpha.value:.2f} (95 % BCa bootstrap interval "
        f"{alpha.interval.low:.2f} to {alpha.interval.high:.2f})" in text
    )
    assert "corrected for the labels' errors by matrix inversion" in text
    assert "in compare(by='source')" in text
    assert "No share reported" not in text
    assert text.count("validated against") == 1  # once, however often it was applied


def test_a_design_weighted_validation_says_so() -> None:
    df = _frame()
    service, _ = _sample()
    weights = [3.0 if s == "positive" else 1.0 for s in service]
    v = _validation(df, weights=weights, strata=service)
    df.rds.compare(by="source", validation=v)
    text = df.rds.methods().text
    assert "a stratified sample, its estimates design-weighted to the collection" in text


def test_the_comparison_chart_labels_raw_and_corrected_bars() -> None:
    df = _frame()
    v = _validation(df)
    ax = df.rds.plot.compare(by="source", what="sentiment", validation=v)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [f"{label} ({kind})" for label in LABELS for kind in ("raw", "corrected")]
    assert ax.get_title() == (
        "Sentiment by source, raw and corrected (95% intervals)\n"
        "raw: Wilson; corrected: BCa over the validation sample"
    )
    assert "Corrected: corrected for the labels' errors measured on 60" in " ".join(
        ax.get_xlabel().split()
    )
    cmp = df.rds.compare(by="source", validation=v)
    corrected = [b for b in ax.patches if b.get_hatch() == "//"]
    heights = sorted(round(b.get_height(), 9) for b in corrected)
    assert heights == sorted(round(x, 9) for x in cmp.sentiment["corrected"])

    plain = df.rds.plot.compare(by="source", what="sentiment")
    assert [t.get_text() for t in plain.get_legend().get_texts()] == LABELS
    assert "corrected" not in plain.get_title() + plain.get_xlabel()


def test_the_sentiment_chart_draws_corrected_lines_per_period() -> None:
    df = _frame()
    v = _validation(df)
    ax = df.rds.plot.sentiment("W", validation=v, min_n=1)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert {f"{label} (raw)" for label in LABELS} <= set(lines)
    assert {f"{label} (corrected)" for label in LABELS} <= set(lines)
    assert "raw and corrected" in ax.get_title()
    assert "Corrected: corrected for the labels' errors" in " ".join(ax.get_xlabel().split())
    weeks = df.groupby(pd.Grouper(key="created_at", freq="W"))["sentiment"]
    (start, first), *_ = [(s, g) for s, g in weeks if len(g)]
    direct = v.for_population(first.astype(str).tolist()).corrected()
    x = list(pd.to_datetime(lines["positive (corrected)"].get_xdata()))
    y = lines["positive (corrected)"].get_ydata()
    assert y[x.index(start)] == pytest.approx(direct["positive"], abs=1e-12)
    assert "in plot.sentiment('W')" in df.rds.methods().text

    plain = _frame().rds.plot.sentiment("W", min_n=1)
    assert not any("corrected" in str(line.get_label()) for line in plain.get_lines())
    assert "Corrected" not in plain.get_xlabel()


def test_a_validation_of_other_codes_or_another_object_is_refused() -> None:
    df = _frame()
    yes_no = Codebook.of("complaint", ["no", "yes"])
    other = validity(["no", "yes"] * 10, ["no", "yes"] * 10, yes_no, population=["no"])
    with pytest.raises(InvalidParameter, match=r"validation.*complaint.*not the sentiment"):
        df.rds.compare(by="source", validation=other)
    with pytest.raises(InvalidParameter, match=r"validation.*validity"):
        df.rds.compare(by="source", validation={"corrected": 0.5})
