"""Agreement between two labellings: the service's labels against a hand-coded
reference, or two coders (``df.rds.agreement(reference)``, :func:`agreement`). For more
coders, Krippendorff's alpha, Gwet's AC1, weighted kappa for ordinal codes, a codebook's
check and corrected shares, see :mod:`rdskit.validation` (whose intervals this module uses).

For ``a`` (the labels judged: the service's, or coder 1) and ``b`` (the reference, or
coder 2), of equal length:

- ``observed``: the share of items on which they agree;
- ``kappa``: Cohen's kappa, ``(po - pe) / (1 - pe)``, ``pe`` from the two labellings'
  marginal shares (computed by :mod:`rdskit.validation.confusion`, as every kappa of
  rdskit is);
- ``per_class``: for each label, ``n`` (items the reference gives it), ``predicted``
  (items ``a`` gives it), ``precision`` (of ``a``'s labels, the share the reference
  confirms), ``recall`` (of the reference's, the share ``a`` finds) and ``error_rate``
  (``1 - recall``: the reference's items ``a`` labels otherwise);
- ``confusion``: counts (weighted: estimated counts), rows ``a``, columns ``b``.

**Weights.** A hand-coded sample is often stratified by the service's own label (say 50
posts of each sentiment). Read as is, it over-represents the rare labels, and agreement
and kappa describe the sample, not the collection. ``weights`` (one per item, e.g. the
stratum's size in the collection over its size in the sample) make every count an
estimate for the collection: the confusion matrix sums weights, and observed agreement,
kappa and the per-class rates are computed from it. ``df.rds.agreement(...,
strata="sentiment")`` builds those weights from the frame (the whole collection) and
gives the unweighted figures too (``.unweighted``).

**Design weights.** The weighted figures are "design-weighted" (weights from the sampling
design), not Cohen's weighted kappa (ordinal disagreement weights:
:func:`rdskit.validation.cohen_weighted_kappa`).

**Intervals.** BCa bootstrap (``n_boot`` resamples, seeded: the same input gives the same
intervals), resampling within each stratum when ``strata`` are given; none (``nan``), with
the reason in the notes, when the sample cannot support one: fewer than 20 items, or every
resample giving the same value (see :mod:`rdskit.validation.intervals`).

numpy only: no scikit-learn or statsmodels is needed.

Example:
    >>> res = agreement(["pos", "neg", "neg", "pos"], ["pos", "neg", "pos", "pos"])
    >>> res.n, res.observed, round(res.kappa, 3)
    (4, 0.75, 0.5)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rdskit.errors import InvalidParameter
from rdskit.frames._checks import MissingColumnsError
from rdskit.frames._table import html_table, interval, text_table
from rdskit.validation.confusion import confusions, kappa, rates
from rdskit.validation.intervals import bootstrap

__all__ = ["Agreement", "agreement", "frame_agreement", "stratum_weights"]


@dataclass(frozen=True)
class Agreement:
    """The result of :func:`agreement` (see the module docs)."""

    n: int
    observed: float
    observed_ci: tuple[float, float]
    kappa: float
    kappa_ci: tuple[float, float]
    per_class: pd.DataFrame
    confusion: pd.DataFrame
    weighted: bool
    confidence: float
    n_boot: int
    unweighted: Agreement | None = None
    notes: tuple[str, ...] = ()

    def _rows(self) -> list[list[str]]:
        shown = [("design-weighted" if self.weighted else "unweighted", self)]
        if self.unweighted is not None:
            shown.append(("unweighted", self.unweighted))
        return [
            [
                name,
                f"{res.n:,}",
                f"{res.observed:.3f}",
                interval(*res.observed_ci),
                "undefined" if res.kappa != res.kappa else f"{res.kappa:.3f}",
                interval(*res.kappa_ci),
            ]
            for name, res in shown
        ]

    _HEADERS = ("", "n", "agreement", "interval", "Cohen's kappa", "interval")

    def _class_rows(self) -> list[list[str]]:
        return [
            [
                r.label,
                f"{r.n:,}",
                f"{r.predicted:,}",
                *("–" if x != x else f"{x:.3f}" for x in r[3:]),
            ]
            for r in self.per_class.itertuples(index=False)
        ]

    def _note(self) -> str:
        level = f"{self.confidence:.0%} BCa bootstrap intervals ({self.n_boot:,} resamples)"
        read = (
            "Design-weighted figures estimate the collection (each stratum counted at its size in "
            "it); unweighted ones describe the sample only."
            if self.weighted
            else "Unweighted: the figures describe this sample; if it was stratified, pass "
            "strata= to estimate the collection."
        )
        undefined = (
            [
                "Cohen's kappa is undefined: the labellings agree by chance alone with "
                "certainty (each uses one label only), so nothing is left to measure."
            ]
            if self.kappa != self.kappa
            else []
        )
        rates = (
            "Per-class n and predicted count items; precision, recall and error rate are "
            "design-weighted; – where a label has no item to divide by."
            if self.weighted
            else "Per class: – where a label has no item to divide by."
        )
        return " ".join([f"{level}.", read, *undefined, rates, *self.notes])

    def __repr__(self) -> str:
        classes = text_table(
            ["label", "n", "predicted", "precision", "recall", "error_rate"],
            self._class_rows(),
        )
        return (
            f"Agreement ({'design-weighted to the strata' if self.weighted else 'unweighted'})\n"
            f"{text_table(list(self._HEADERS), self._rows())}\n\n{classes}\n{self._note()}"
        )

    def _repr_html_(self) -> str:
        summary = html_table(
            list(self._HEADERS), self._rows(), title="Agreement", note=self._note()
        )
        classes = html_table(
            ["label", "n", "predicted", "precision", "recall", "error rate"],
            self._class_rows(),
            title="Per class" + (" (design-weighted)" if self.weighted else ""),
        )
        return summary + classes


def _codes(a: Sequence[Any], b: Sequence[Any]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    left, right = pd.Series(list(a), dtype="object"), pd.Series(list(b), dtype="object")
    if len(left) != len(right):
        raise InvalidParameter(
            "b", f"the two labellings must have the same length ({len(left)} and {len(right)})"
        )
    if not len(left):
        raise InvalidParameter("a", "agreement() needs at least one labelled item")
    missing = left.isna() | right.isna()
    if missing.any():
        raise InvalidParameter(
            "a" if left.isna().any() else "b",
            f"{int(missing.sum())} item(s) have no label; drop them first (say how many)",
        )
    labels = sorted({str(x) for x in left} | {str(x) for x in right})
    index = {label: i for i, label in enumerate(labels)}
    return (
        np.array([index[str(x)] for x in left]),
        np.array([index[str(x)] for x in right]),
        labels,
    )


def _scores(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed agreement and Cohen's kappa of confusion matrices ``m`` (batch, k, k)."""
    total = m.sum(axis=(1, 2))
    return np.trace(m, axis1=1, axis2=2) / total, kappa(m, np.eye(m.shape[-1]))


def _interval(
    statistic: Callable[[np.ndarray], np.ndarray],
    n: int,
    strata: np.ndarray | None,
    confidence: float,
    n_boot: int,
    seed: int,
) -> tuple[tuple[float, float], str]:
    """A BCa interval, or (nan, nan) and the reason
    (:func:`rdskit.validation.intervals.bootstrap`)."""
    found = bootstrap(
        statistic,
        n,
        strata=None if strata is None else strata.tolist(),
        confidence=confidence,
        n_boot=n_boot,
        seed=seed,
    )
    return (found.low, found.high), found.reason


def agreement(
    a: Sequence[Any],
    b: Sequence[Any],
    *,
    weights: Sequence[float] | np.ndarray | None = None,
    strata: Sequence[Any] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> Agreement:
    """Agreement of labels ``a`` with the reference ``b`` (see the module docs):
    ``weights`` per item make the figures estimates for the collection; ``strata`` per
    item make the bootstrap resample within each stratum.

    Example:
        >>> res = agreement(["x", "x", "y", "y"], ["x", "y", "y", "y"], weights=[1, 1, 3, 3])
        >>> res.weighted, res.observed, float(res.confusion.loc["x", "y"])
        (True, 0.875, 1.0)
    """
    if not 0 < confidence < 1:
        raise InvalidParameter("confidence", f"must be between 0 and 1, not {confidence}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise InvalidParameter("n_boot", f"must be a whole number, 1 or more; got {n_boot!r}")
    codes_a, codes_b, labels = _codes(a, b)
    n, k = len(codes_a), len(labels)
    weighted = weights is not None
    w = np.ones(n) if weights is None else np.asarray(list(weights), dtype="float64")
    if len(w) != n or not np.isfinite(w).all() or (w < 0).any() or w.sum() == 0:
        raise InvalidParameter(
            "weights", f"must be {n} finite numbers, 0 or more, not all 0 (one per item)"
        )
    groups = None if strata is None else np.asarray([str(s) for s in strata])
    if groups is not None and len(groups) != n:
        raise InvalidParameter("strata", f"must have one value per item ({n}), not {len(groups)}")
    everything = confusions(codes_a, codes_b, w, k, np.arange(n)[None, :])
    po, value = (float(x[0]) for x in _scores(everything))

    def score(which: int) -> Callable[[np.ndarray], np.ndarray]:
        return lambda idx: _scores(confusions(codes_a, codes_b, w, k, idx))[which]

    observed_ci, why_po = _interval(score(0), n, groups, confidence, n_boot, seed)
    kappa_ci, why_kappa = _interval(score(1), n, groups, confidence, n_boot, seed)
    withheld = tuple(
        f"No interval for {name}: {why}."
        for name, why in (("agreement", why_po), ("Cohen's kappa", why_kappa))
        if why
    )
    matrix = everything[0]
    precision, recall = (r[0] for r in rates(everything))
    per_class = pd.DataFrame(
        {
            "label": labels,
            "n": np.bincount(codes_b, minlength=k).astype("int64"),
            "predicted": np.bincount(codes_a, minlength=k).astype("int64"),
            "precision": precision,
            "recall": recall,
            "error_rate": 1 - recall,
        }
    )
    confusion = pd.DataFrame(matrix, index=labels, columns=labels)
    confusion.index.name, confusion.columns.name = "labels", "reference"
    result = Agreement(
        n=n,
        observed=po,
        observed_ci=observed_ci,
        kappa=value,
        kappa_ci=kappa_ci,
        per_class=per_class,
        confusion=confusion,
        weighted=weighted,
        confidence=confidence,
        n_boot=n_boot,
        notes=withheld,
    )
    if not weighted:
        return result
    plain = agreement(a, b, strata=strata, confidence=confidence, n_boot=n_boot, seed=seed)
    return Agreement(**{**result.__dict__, "unweighted": plain})


def stratum_weights(sample: pd.Series, population: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Each sample item's weight: its stratum's size in ``population`` over its size in
    ``sample``; and notes on population strata the sample lacks (they cannot be
    estimated, and the weighted figures leave them out).

    Example:
        >>> w, notes = stratum_weights(pd.Series(["a", "b", "b"]), pd.Series(["a"] * 6 + ["b"] * 2))
        >>> w.tolist(), notes
        ([6.0, 1.0, 1.0], [])
    """
    in_sample = sample.astype(str).value_counts()
    in_population = population.dropna().astype(str).value_counts()
    unknown = sorted(set(in_sample.index) - set(in_population.index))
    if unknown:
        raise InvalidParameter(
            "strata", f"stratum {unknown[0]!r} of the sample is not in the population frame"
        )
    absent = in_population.drop(in_sample.index)
    notes = (
        [
            f"Strata absent from the sample, left out of the estimate: "
            f"{', '.join(f'{s} ({n:,} posts)' for s, n in absent.items())}."
        ]
        if len(absent)
        else []
    )
    ratio = in_population.reindex(in_sample.index) / in_sample
    return sample.astype(str).map(ratio).to_numpy(dtype="float64"), notes


def _post(values: Any) -> str:
    """A post's key as a message names it: ``(tiktok, 2)``."""
    return (
        "(" + ", ".join(str(v) for v in values) + ")" if isinstance(values, tuple) else repr(values)
    )


def _one_label(rows: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    """The frame's rows, one per post: a post repeated (stacked reads) with one label is
    one item; with two different labels, which is judged is not known: refused."""
    rows = rows.drop_duplicates([*keys, column])
    clash = rows[rows.duplicated(keys, keep=False)]
    if len(clash):
        first = clash.groupby(keys, sort=False, observed=True)[column]
        key, labels = next(iter(first))
        raise InvalidParameter(
            "frame",
            f"post {_post(key)} has several {column} labels in the frame "
            f"({', '.join(map(str, labels.tolist()))}): drop the repeats you do not mean",
        )
    return rows


def _one_row_per_post(reference: pd.DataFrame, keys: list[str]) -> None:
    """A reference labels each post once (two coders' labels: compare them with
    :func:`agreement`)."""
    counts = reference.groupby(keys, sort=False, observed=True).size()
    twice = counts[counts > 1]
    if len(twice):
        raise InvalidParameter(
            "reference",
            f"post {_post(twice.index[0])} has {int(twice.iloc[0])} rows in the reference: "
            "keep one label per post",
        )


def _unambiguous(frame: pd.DataFrame, joined: pd.DataFrame, keys: list[str]) -> None:
    """Joined on id alone: refuse a matched id that belongs to posts of several sources
    (a post is identified by its source and id)."""
    matched = frame[frame["id"].isin(joined["id"])]
    sources = matched.groupby(keys, sort=False, observed=True)["source"].unique()
    shared = sources[sources.map(len) > 1]
    if len(shared):
        names = ", ".join(sorted(map(str, shared.iloc[0])))
        raise InvalidParameter(
            "reference",
            f"id {_post(shared.index[0])} belongs to posts of several sources ({names}) in "
            "the frame: add a source column to the reference (a post is identified by its "
            "source and id)",
        )


def frame_agreement(
    frame: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    column: str = "sentiment",
    reference_column: str = "label",
    on: str | Sequence[str] = "id",
    strata: str | None = None,
    population: pd.DataFrame | None = None,
    weights: str | Sequence[float] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> Agreement:
    """``frame[column]`` against ``reference[reference_column]``, joined on ``on``; with
    ``strata`` (a column of ``frame``), weighted to the strata's sizes in ``population``
    (default: ``frame``) and resampled within them. ``weights`` gives the weights
    yourself instead: a column of ``reference`` or one number per reference row (e.g.
    inverse inclusion probabilities); with ``strata`` too, the bootstrap still resamples
    within strata. Items the reference does not label are left out (the repr says how
    many of the reference's rows matched). A post is its (source, id): with ``on="id"``
    and a ``source`` column in both frames the join is on both; a reference without
    sources is joined on id alone only if no matched id belongs to two sources (the
    repr says so). A post labelled twice in the reference, or given two labels by a
    stacked frame, is refused by name.

    Example:
        >>> df.rds.agreement(coded, weights="weight")  # doctest: +SKIP
    """
    keys, by_id_alone, notes = _join_keys(frame, reference, on)
    needed = [*keys, column, *([strata] if strata and strata != column else [])]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise MissingColumnsError("agreement", missing, frame.rds.kind)
    missing = [c for c in [*keys, reference_column] if c not in reference.columns]
    if missing:
        raise InvalidParameter(
            "reference", f"the reference frame lacks the column(s) {', '.join(missing)}"
        )
    # A post is (source, id) even when the join is on id alone: two posts sharing an id
    # are two rows here, and an ambiguous match is refused below.
    post = ["source", *keys] if by_id_alone else keys
    left = _one_label(frame[list(dict.fromkeys([*post, *needed]))], post, column)
    _one_row_per_post(reference, keys)
    right = _labels(reference, keys, reference_column, weights)
    joined = left.merge(right, on=keys, how="inner")
    joined = joined[joined[column].notna() & joined["_reference"].notna()]
    if joined.empty:
        raise InvalidParameter(
            "reference", f"no row of the reference matches the frame on {', '.join(keys)}"
        )
    if by_id_alone:  # each matched id must name one post
        _unambiguous(left, joined, keys)
    if len(joined) < len(reference):
        notes.append(
            f"{len(joined):,} of the reference's {len(reference):,} rows matched a labelled "
            "post of the frame."
        )
    item_weights = stratum_of = None
    if strata is not None:
        pool = frame if population is None else population
        stratum_of = joined[strata].astype(str)
        item_weights, pool_notes = _population_weights(pool, strata, stratum_of)
        notes += pool_notes if weights is None else []  # the weights given win
    if weights is not None:  # the weights given win over the strata's
        item_weights = joined["_weight"].to_numpy(dtype="float64")
    result = agreement(
        joined[column].astype(str).tolist(),
        joined["_reference"].astype(str).tolist(),
        weights=item_weights,
        strata=None if stratum_of is None else stratum_of.tolist(),
        confidence=confidence,
        n_boot=n_boot,
        seed=seed,
    )
    return Agreement(**{**result.__dict__, "notes": (*result.notes, *notes)})


def _join_keys(
    frame: pd.DataFrame, reference: pd.DataFrame, on: str | Sequence[str]
) -> tuple[list[str], bool, list[str]]:
    """The columns the reference is joined on, whether that is the id alone while the frame
    has several sources, and the note saying so."""
    keys = [on] if isinstance(on, str) else list(on)
    # Ids are unique per source only (the spec): (source, id) is the post.
    by_id_alone = "id" in keys and "source" not in keys and "source" in frame.columns
    if by_id_alone and "source" in reference.columns:
        keys, by_id_alone = ["source", *keys], False
    notes = (
        [
            "The reference has no source column: it was joined on id alone (no matched "
            "id belongs to posts of two sources)."
        ]
        if by_id_alone
        else []
    )
    return keys, by_id_alone, notes


def _labels(
    reference: pd.DataFrame,
    keys: list[str],
    reference_column: str,
    weights: str | Sequence[float] | None,
) -> pd.DataFrame:
    """The reference's keys and label (as ``_reference``), with the weights given (as
    ``_weight``): a column of the reference or one number per row."""
    right = reference[[*keys, reference_column]].rename(columns={reference_column: "_reference"})
    if isinstance(weights, str):
        if weights not in reference.columns:
            raise InvalidParameter("weights", f"the reference frame has no column {weights!r}")
        return right.assign(_weight=reference[weights].to_numpy(dtype="float64"))
    if weights is not None:
        given = np.asarray(list(weights), dtype="float64")
        if len(given) != len(reference):
            raise InvalidParameter(
                "weights",
                f"needs one weight per reference row ({len(reference)}), not {len(given)}",
            )
        return right.assign(_weight=given)
    return right


def _population_weights(
    pool: pd.DataFrame, strata: str, stratum_of: pd.Series
) -> tuple[np.ndarray, list[str]]:
    """Each labelled item's weight, its stratum's share of ``pool`` (a stacked frame counts
    each post once), and the notes on strata and posts the estimate leaves out."""
    if strata not in pool.columns:
        raise MissingColumnsError("agreement", [strata], pool.rds.kind)
    if {"source", "id"} <= set(pool.columns):  # a stacked frame: each post once
        pool = pool.drop_duplicates(["source", "id"])
    item_weights, absent = stratum_weights(stratum_of, pool[strata])
    notes = []
    unlabelled = int(pool[strata].isna().sum())
    if unlabelled:
        notes.append(
            f"{unlabelled:,} post{'s' if unlabelled != 1 else ''} of the population "
            f"{'have' if unlabelled != 1 else 'has'} no {strata}: the estimate is of the "
            f"{len(pool) - unlabelled:,} that do."
        )
    return item_weights, [*notes, *absent]
