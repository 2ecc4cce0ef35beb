"""The agreement measures against published worked examples, hand computations and the
reference implementations (scikit-learn's ``cohen_kappa_score``, the ``krippendorff``
package), with each weighting and the degenerate cases."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from rdskit.errors import InvalidParameter
from rdskit.validation import (
    Codebook,
    cohen_kappa,
    cohen_weighted_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
    reliability,
)

NA = None
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four
# observers, twelve units, values 1-5, missing values. Published: nominal .743,
# ordinal .815, interval .849.
K2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, 3],
    "C": [NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NA],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA],
}
FIVE = Codebook.of("k2011", ["1", "2", "3", "4", "5"], ordinal=True)


def _str(codes: dict[str, list[int | None]]) -> dict[str, list[str | None]]:
    return {k: [None if v is None else str(v) for v in vs] for k, vs in codes.items()}


@pytest.mark.parametrize(
    ("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_krippendorff_2011_reliability_data(level: str, published: float) -> None:
    alpha = krippendorff_alpha(_str(K2011), FIVE, level=level)  # type: ignore[arg-type]
    assert round(alpha, 3) == published


def test_krippendorff_2011_binary_example() -> None:
    # Section A of the same paper: two observers, ten units, binary; alpha = 0.095.
    book = Codebook.of("binary", ["0", "1"])
    codes = {"A": list("0100000010"), "B": list("1110010000")}
    assert round(krippendorff_alpha(codes, book), 3) == 0.095


def test_alpha_agrees_with_the_package_on_missing_codes_in_reliability() -> None:
    result = reliability(_str(K2011), FIVE, missing="allow", n_boot=200)
    data = np.array([[np.nan if v is None else v for v in vs] for vs in K2011.values()])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    assert result.value("Krippendorff's alpha (ordinal)") == pytest.approx(expected)
    assert "12 units, 4 coders" in repr(result) and "missing code(s) kept" in repr(result)


# Fleiss' kappa, the worked example of its Wikipedia article (10 subjects, 14 raters, 5
# categories): P-bar = 0.378, P-e = 0.213, kappa = 0.210.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_worked_example() -> None:
    book = Codebook.of("five", list("12345"))
    units = [[str(k + 1) for k, c in enumerate(row) for _ in range(c)] for row in FLEISS_TABLE]
    codes = pd.DataFrame(units, columns=[f"r{i}" for i in range(14)])
    assert round(fleiss_kappa(codes, book), 3) == 0.210


def test_fleiss_kappa_by_hand_for_three_coders() -> None:
    book = Codebook.of("ab", ["a", "b"])
    codes = {"x": list("aab"), "y": list("aba"), "z": list("abb")}
    # P_i: 1, 1/3, 1/3 -> P-bar 5/9; shares a 5/9, b 4/9 -> Pe 41/81.
    p_bar, pe = 5 / 9, 41 / 81
    assert fleiss_kappa(codes, book) == pytest.approx((p_bar - pe) / (1 - pe))
    assert percent_agreement(codes, book) == pytest.approx(p_bar)


def test_gwet_ac1_kappa_paradox_example() -> None:
    # Gwet's high-agreement example: 118 (+,+), 5 (+,-), 2 (-,+), 0 (-,-) of 125.
    # Kappa is negative (-0.023) although the coders agree on 94 % of the units; AC1,
    # by hand: pi+ = (123 + 120) / 250 = 0.972, pe = 2 * 0.972 * 0.028 = 0.054432,
    # AC1 = (0.944 - 0.054432) / (1 - 0.054432) = 0.9408.
    book = Codebook.of("pm", ["+", "-"])
    a = ["+"] * 118 + ["+"] * 5 + ["-"] * 2
    b = ["+"] * 118 + ["-"] * 5 + ["+"] * 2
    codes = {"A": a, "B": b}
    assert gwet_ac1(codes, book) == pytest.approx((0.944 - 0.054432) / (1 - 0.054432))
    assert round(cohen_kappa(codes, book), 3) == -0.023
    assert cohen_kappa(codes, book) == pytest.approx(cohen_kappa_score(a, b))


def test_gwet_ac1_counts_the_codebooks_codes_not_the_ones_used() -> None:
    # Three codes in the codebook, two used: chance agreement divides by q - 1 = 2.
    book = Codebook.of("abc", ["a", "b", "c"])
    codes = {"x": list("aabb"), "y": list("abbb")}
    pa = 0.75
    pi = np.array([3 / 8, 5 / 8, 0])
    pe = float((pi * (1 - pi)).sum()) / 2
    assert gwet_ac1(codes, book) == pytest.approx((pa - pe) / (1 - pe))


@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_matches_sklearn_with_nine_codes_and_design_weights(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = [f"c{i}" for i in range(9)]
    book = Codebook.of("nine", values, ordinal=True)
    a = rng.choice(values, 80)
    b = np.where(rng.random(80) < 0.6, a, rng.choice(values, 80))
    w = rng.uniform(0.5, 4, 80)
    codes = {"a": list(a), "b": list(b)}
    assert cohen_kappa(codes, book) == pytest.approx(cohen_kappa_score(a, b))
    assert cohen_kappa(codes, book, weights=w) == pytest.approx(
        cohen_kappa_score(a, b, sample_weight=w)
    )
    for scheme in ("linear", "quadratic"):
        ours = cohen_weighted_kappa(codes, book, scheme=scheme, weights=w)  # type: ignore[arg-type]
        ref = cohen_kappa_score(a, b, labels=values, weights=scheme, sample_weight=w)
        assert ours == pytest.approx(ref)
    assert percent_agreement(codes, book, weights=w) == pytest.approx(
        float(np.sum(w * (a == b)) / w.sum())
    )


def test_weighted_kappa_needs_an_ordinal_codebook() -> None:
    with pytest.raises(InvalidParameter, match="not ordinal"):
        cohen_weighted_kappa({"a": ["x"], "b": ["y"]}, Codebook.of("n", ["x", "y"]))


def test_a_bad_code_is_named_before_anything_is_computed() -> None:
    book = Codebook.of("sentiment", ["negative", "neutral", "positive"])
    codes = {"ann": ["positive"] * 30, "bob": ["positive"] * 29 + ["Positive"]}
    with pytest.raises(InvalidParameter) as caught:
        reliability(codes, book)
    message = str(caught.value)
    assert "\n" not in message
    assert "codes['bob']: item 30 has the code 'Positive'" in message
    assert "did you mean 'positive'?" in message


def test_a_half_filled_list_is_an_error() -> None:
    book = Codebook.of("ab", ["a", "b"])
    codes = {"ann": ["a", "b"] * 10, "bob": ["a", "b"] * 5 + [None] * 10}
    with pytest.raises(InvalidParameter, match=r"coder 'bob' has no code for unit 11 \(10 of 20"):
        reliability(codes, book)


def test_one_class_all_agree_gives_no_chance_corrected_value_and_no_interval() -> None:
    book = Codebook.of("sentiment", ["negative", "neutral", "positive"])
    for n in (10, 30):
        r = reliability({"a": ["positive"] * n, "b": ["positive"] * n}, book, n_boot=300)
        assert r.value("percent agreement") == 1.0
        assert math.isnan(r.value("Cohen's kappa"))
        assert math.isnan(r.value("Krippendorff's alpha (nominal)"))
        assert r.value("Gwet's AC1") == 1.0  # chance agreement over three codes is 0
        assert not any(m.interval.defined for m in r.measures)
        assert "1.000 to 1.000" not in repr(r)


def test_all_agree_on_ten_posts_prints_no_interval() -> None:
    book = Codebook.of("sentiment", ["negative", "neutral", "positive"])
    codes = {"a": ["negative", "neutral", "positive", "positive", "neutral"] * 2}
    codes["b"] = list(codes["a"])
    r = reliability(codes, book)
    assert r.value("Cohen's kappa") == 1.0
    assert not r.measure("Cohen's kappa").interval.defined
    assert "10 units: a bootstrap needs 20 or more" in repr(r)


def test_all_agree_on_forty_posts_prints_no_interval_either() -> None:
    book = Codebook.of("ab", ["a", "b"])
    codes = {"a": ["a", "b"] * 20, "b": ["a", "b"] * 20}
    r = reliability(codes, book, n_boot=300)
    assert r.value("Cohen's kappa") == 1.0
    assert "every resample gives the same value" in r.measure("Cohen's kappa").interval.reason


def test_intervals_cover_the_value_and_are_seeded() -> None:
    rng = np.random.default_rng(3)
    book = Codebook.of("abc", ["a", "b", "c"])
    a = rng.choice(list("abc"), 60)
    b = np.where(rng.random(60) < 0.7, a, rng.choice(list("abc"), 60))
    codes = {"a": list(a), "b": list(b)}
    one, two = reliability(codes, book, n_boot=500), reliability(codes, book, n_boot=500)
    assert one.to_frame().equals(two.to_frame())
    for m in one.measures:
        assert m.interval.defined and m.interval.low <= m.value <= m.interval.high
    kappa = one.measure("Cohen's kappa")
    assert 0.1 < kappa.interval.high - kappa.interval.low < 0.6
    assert kappa.interval.method == "BCa bootstrap"


def test_design_weights_are_named_and_alpha_is_said_to_describe_the_sample() -> None:
    book = Codebook.of("ab", ["a", "b"])
    codes = {"a": ["a", "b", "a", "b"] * 6, "b": ["a", "b", "b", "b"] * 6}
    r = reliability(codes, book, weights=[1, 1, 5, 5] * 6, strata=list("xxyy") * 6, n_boot=200)
    text = repr(r)
    assert "Cohen's kappa (design-weighted)" in text
    assert "weighted kappa" not in text.replace("Cohen's weighted kappa", "")
    assert "alpha is not design-weighted" in text
    assert r.value("percent agreement") == pytest.approx((1 + 1 + 0 + 5) / 12)
