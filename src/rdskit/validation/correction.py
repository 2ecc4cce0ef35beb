"""Validity of a labeller against a human reference, and shares corrected for its errors.

:func:`validity` crosses the service's label with the human code on a validation sample:

- a **design-weighted confusion matrix** (rows: the service's label, columns: the human
  code; with ``weights``, estimated counts in the collection);
- per class, **precision** (of the posts the service gives the label, the share humans
  code so) and **recall** (of the posts humans code so, the share the service finds), with
  BCa bootstrap intervals (or none and why);
- **corrected shares**: the share of each class in the collection once the labels' errors
  are removed. With ``M[j, k] = P(service says j | human code k)`` estimated from the
  sample and ``p`` the service's raw shares over the whole collection, the corrected
  shares solve ``M @ pi = p`` (matrix inversion; with two classes this is the
  Rogan-Gladen estimator, ``(p + specificity - 1) / (sensitivity + specificity - 1)``).
  A solution outside [0, 1] is clipped and renormalised, and the result says so. The
  intervals resample the validation sample (within strata), so they carry its
  uncertainty; the raw shares are a census of the collection and are held fixed.

Example:
    >>> from rdskit.validation import Codebook
    >>> book = Codebook.of("complaint", ["no", "yes"])
    >>> service = ["yes"] * 10 + ["no"] * 30
    >>> human = ["yes"] * 8 + ["no"] * 2 + ["no"] * 27 + ["yes"] * 3
    >>> v = validity(service, human, book, population=["yes"] * 250 + ["no"] * 750)
    >>> v.method, float(v.per_class.loc["yes", "raw_share"])
    ('Rogan-Gladen', 0.25)
    >>> round(float(v.per_class.loc["yes", "corrected_share"]), 3)
    0.275
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from rdskit.errors import InvalidParameter
from rdskit.frames._table import html_table, text_table
from rdskit.validation.codebook import Codebook, _missing
from rdskit.validation.confusion import confusions, rates
from rdskit.validation.intervals import Interval, bootstrap
from rdskit.validation.reliability import Reliability

__all__ = ["Validity", "validity"]


def _correct(c: np.ndarray, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Corrected shares of confusion matrices ``c`` (batch, q, q) given the raw shares, and
    whether each was clipped; NaN where the error matrix cannot be inverted."""
    per_truth = c.sum(axis=1)
    ok = (per_truth > 0).all(axis=1)
    m = c / np.where(per_truth > 0, per_truth, 1)[:, None, :]
    ok &= np.abs(np.linalg.det(m)) > 1e-9
    m[~ok] = np.eye(len(raw))
    pi = np.linalg.solve(m, np.broadcast_to(raw, (len(c), len(raw)))[..., None])[..., 0]
    clipped = ((pi < -1e-12) | (pi > 1 + 1e-12)).any(axis=1)
    pi = np.clip(pi, 0, 1)
    total = pi.sum(axis=1, keepdims=True)
    pi = np.where(total > 0, pi / np.where(total > 0, total, 1), pi)
    pi[~ok] = np.nan
    return pi, clipped & ok


@dataclass(frozen=True)
class _Sample:
    """The coded sample a :class:`Validity` was measured on (codes as indices into the
    codebook's values), kept so that the same errors correct another population's shares
    with the same resamples."""

    codebook: Codebook
    service: np.ndarray
    human: np.ndarray
    weights: np.ndarray
    strata: tuple[str, ...] | None
    confidence: float
    n_boot: int
    seed: int

    def confusions(self, idx: np.ndarray) -> np.ndarray:
        q = len(self.codebook.values)
        return confusions(self.service, self.human, self.weights, q, idx)

    def bootstrap(self, statistic: Any) -> Interval:
        return bootstrap(
            statistic,
            len(self.service),
            strata=self.strata,
            confidence=self.confidence,
            n_boot=self.n_boot,
            seed=self.seed,
        )

    def shares(
        self, population: Sequence[Any]
    ) -> tuple[int, np.ndarray, np.ndarray, bool, dict[str, Interval]]:
        """``population``'s posts counted, raw and corrected shares, whether the
        correction was clipped, and each class's interval of its corrected share."""
        self.codebook.check(list(population), field="population")
        pop = pd.Series([str(v) for v in population if not _missing(v)], dtype="object")
        if pop.empty:
            raise InvalidParameter("population", "needs the service's label of every post")
        values = list(self.codebook.values)
        raw = pop.value_counts(normalize=True).reindex(values, fill_value=0.0).to_numpy()
        corrected, clipped = _correct(self.confusions(np.arange(len(self.service))[None, :]), raw)

        def share(k: int) -> Any:
            return lambda idx: _correct(self.confusions(idx), raw)[0][:, k]

        intervals = {v: self.bootstrap(share(k)) for k, v in enumerate(values)}
        return len(pop), raw, corrected[0], bool(clipped[0]), intervals


def _share_interval(i: Interval, digits: int) -> str:
    if not i.defined:
        return " (no interval)"
    return f" ({i.confidence:.0%} interval {i.low:.{digits}%} to {i.high:.{digits}%})".replace(
        "% interval", " % interval"
    )


@dataclass(frozen=True)
class Validity:
    """The result of :func:`validity` (see the module docs)."""

    per_class: pd.DataFrame
    confusion: pd.DataFrame
    n: int
    codebook: str
    design_weighted: bool
    method: str
    clipped: bool
    population: int
    intervals: dict[str, dict[str, Interval]]
    notes: tuple[str, ...] = ()
    stratified: bool = False
    """The bootstrap resampled within strata (the sample was drawn per stratum)."""
    reliability: Reliability | None = None
    """The coders' agreement on the sample, when given to :func:`validity`."""
    sample: _Sample | None = field(default=None, repr=False, compare=False)
    """The coded sample itself (to correct another population's shares alike)."""

    def corrected(self) -> pd.Series:
        """Corrected share per class (NaN where the errors cannot be inverted)."""
        return self.per_class["corrected_share"]

    def for_population(self, labels: Sequence[Any]) -> Validity:
        """The same validation applied to another population: ``labels`` are the
        service's label of each of its posts (one dataset, one group of a comparison),
        its raw shares are corrected with the errors this sample measured, with the same
        resamples: exactly what ``validity(..., population=labels)`` gives.

        Example:
            >>> book = Codebook.of("x", ["a", "b"])
            >>> v = validity(["a", "b"] * 15, ["a", "b"] * 15, book, population=["a"])
            >>> v.for_population(["a", "b", "b", "b"]).corrected().tolist()
            [0.25, 0.75]
        """
        if self.sample is None:
            raise InvalidParameter("validation", "this result holds no sample to correct with")
        posts, raw, corrected, clipped, shares = self.sample.shares(labels)
        per_class = self.per_class.assign(raw_share=raw, corrected_share=corrected)
        intervals = {
            v: {**self.intervals[v], "corrected_share": shares[v]} for v in self.per_class.index
        }
        notes = []
        if np.isnan(corrected).any():
            notes.append(
                "The errors cannot be inverted (a class no post was coded as, or a singular "
                "error matrix): no corrected shares."
            )
        return replace(
            self,
            per_class=per_class,
            population=posts,
            clipped=clipped,
            intervals=intervals,
            notes=tuple(notes),
        )

    def summary(self) -> dict[str, Any]:
        """What a methods paragraph states about this validation, as plain values (the
        frame's provenance records it when a figure is corrected with it)."""
        measure = None
        if self.reliability is not None:
            alphas = [m for m in self.reliability.measures if m.name.startswith("Krippendorff")]
            if alphas:
                a = alphas[0]
                measure = {
                    "name": a.name,
                    "value": None if a.value != a.value else round(a.value, 4),
                    "low": round(a.interval.low, 4) if a.interval.defined else None,
                    "high": round(a.interval.high, 4) if a.interval.defined else None,
                    "reason": a.interval.reason,
                    "confidence": a.interval.confidence,
                }
        sample = self.sample
        return {
            "codebook": self.codebook,
            "posts_coded": self.n,
            "design_weighted": self.design_weighted,
            "stratified": self.stratified,
            "method": self.method,
            "confidence": None if sample is None else sample.confidence,
            "resamples": None if sample is None else sample.n_boot,
            "seed": None if sample is None else sample.seed,
            "coders": None if self.reliability is None else list(self.reliability.coders),
            "coded_by_all": None if self.reliability is None else self.reliability.n_units,
            "alpha": measure,
        }

    def sentence(
        self, *, label: str = "the service's labels", digits: int = 0, shares: bool = True
    ) -> str:
        """A report sentence: every class's errors and (``shares``) its raw and corrected
        share."""
        pc = self.per_class
        errors = "; ".join(
            f"{name}: {1 - r.recall:.{digits}%} of the posts coded {name} were labelled "
            f"otherwise, {1 - r.precision:.{digits}%} of those labelled {name} were coded "
            "otherwise"
            for name, r in pc.iterrows()
        )
        corrected = ", ".join(
            f"{name} {r.raw_share:.{digits}%} raw, "
            + (
                "not correctable"
                if r.corrected_share != r.corrected_share
                else f"{r.corrected_share:.{digits}%} corrected"
                + _share_interval(self.intervals[name]["corrected_share"], digits)
            )
            for name, r in pc.iterrows()
        )
        weighted = "design-weighted " if self.design_weighted else "unweighted "
        clipped = " (clipped to 0-1 and renormalised)" if self.clipped else ""
        said = (
            f"Against {self.n} hand-coded posts ({weighted}estimates, codebook "
            f"{self.codebook}), {label} erred as follows: {errors}."
        )
        if not shares:
            return said
        return (
            f"{said} Shares of the {self.population:,} posts corrected for these errors by "
            f"{self.method}{clipped}: {corrected}."
        )

    def _rows(self) -> list[list[str]]:
        def cell(x: float) -> str:
            return "–" if x != x else f"{x:.3f}"

        def iv(name: str, what: str) -> str:
            i = self.intervals[name][what]
            return f"{i.low:.2f} to {i.high:.2f}" if i.defined else "none"

        return [
            [
                str(name),
                f"{int(r.n_human):,}",
                cell(r.precision),
                iv(str(name), "precision"),
                cell(r.recall),
                iv(str(name), "recall"),
                cell(r.raw_share),
                cell(r.corrected_share),
                iv(str(name), "corrected_share"),
            ]
            for name, r in self.per_class.iterrows()
        ]

    _HEADERS = (
        "class",
        "n coded",
        "precision",
        "interval",
        "recall",
        "interval",
        "raw share",
        "corrected",
        "interval",
    )

    def _note(self) -> str:
        why = sorted(
            {i.reason for d in self.intervals.values() for i in d.values() if not i.defined}
        )
        return " ".join(
            [
                f"{self.n} posts coded (codebook {self.codebook}); "
                + (
                    "design-weighted to the collection."
                    if self.design_weighted
                    else "unweighted (the sample as drawn)."
                ),
                f"Raw shares: the service's labels over {self.population:,} posts; "
                f"corrected by {self.method}"
                + (" (clipped to 0-1 and renormalised)." if self.clipped else "."),
                "BCa bootstrap intervals resample the validation sample.",
                *(f"No interval: {w}." for w in why),
                *self.notes,
            ]
        )

    def __repr__(self) -> str:
        return (
            f"Validity of the labels against the human codes\n"
            f"{text_table(list(self._HEADERS), self._rows())}\n{self._note()}"
        )

    def _repr_html_(self) -> str:
        return html_table(
            list(self._HEADERS),
            self._rows(),
            title="Validity of the labels against the human codes",
            note=self._note(),
        )


def validity(
    service: Sequence[Any],
    human: Sequence[Any],
    codebook: Codebook,
    *,
    population: Sequence[Any],
    weights: Sequence[float] | None = None,
    strata: Sequence[Any] | None = None,
    reliability: Reliability | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> Validity:
    """The service's labels ``service`` against the human codes ``human`` on a validation
    sample, and the shares of ``population`` (the service's label of every post of the
    collection) corrected for the errors measured (see the module docs). ``reliability``
    (:func:`rdskit.validation.reliability` of the coders on this sample) travels with the
    result, so ``df.rds.methods()`` can state the coders and their agreement.

    Example:
        >>> book = Codebook.of("x", ["a", "b"])
        >>> v = validity(["a", "b"] * 15, ["a", "b"] * 15, book, population=["a", "a", "b"])
        >>> v.per_class["corrected_share"].round(3).tolist()
        [0.667, 0.333]
    """
    sample = _checked_sample(service, human, codebook, weights, strata, confidence, n_boot, seed)
    s, h, n = sample.service, sample.human, len(sample.service)
    values = codebook.values
    q = len(values)
    c = sample.confusions(np.arange(n)[None, :])
    precision, recall = (r[0] for r in rates(c))

    def rate(k: int, which: int) -> Any:
        return lambda idx: rates(sample.confusions(idx))[which][:, k]

    intervals = {
        v: {"precision": sample.bootstrap(rate(k, 0)), "recall": sample.bootstrap(rate(k, 1))}
        for k, v in enumerate(values)
    }
    per_class = pd.DataFrame(
        {
            "n_human": np.bincount(h, minlength=q),
            "n_service": np.bincount(s, minlength=q),
            "precision": precision,
            "recall": recall,
        },
        index=pd.Index(list(values), name="class"),
    )
    confusion = pd.DataFrame(
        c[0],
        index=pd.Index(list(values), name="service"),
        columns=pd.Index(list(values), name="human"),
    )
    measured = Validity(
        per_class=per_class,
        confusion=confusion,
        n=n,
        codebook=codebook.label,
        design_weighted=weights is not None,
        method="Rogan-Gladen" if q == 2 else "matrix inversion",
        clipped=False,
        population=0,
        intervals=intervals,
        stratified=strata is not None,
        reliability=reliability,
        sample=sample,
    )
    return measured.for_population(population)


def _checked_sample(
    service: Sequence[Any],
    human: Sequence[Any],
    codebook: Codebook,
    weights: Sequence[float] | None,
    strata: Sequence[Any] | None,
    confidence: float,
    n_boot: int,
    seed: int,
) -> _Sample:
    """The validation sample as the codebook's value indexes, checked: one code per label,
    none missing, at least one post, the weights and strata one per post."""
    for name, values in (("service", service), ("human", human)):
        codebook.check(list(values), field=name)
    s_list, h_list = list(service), list(human)
    if len(s_list) != len(h_list):
        raise InvalidParameter(
            "human", f"needs one code per service label ({len(s_list)}), not {len(h_list)}"
        )
    if any(_missing(v) for v in [*s_list, *h_list]):
        raise InvalidParameter("human", "every sampled post needs a label and a code")
    index = {v: i for i, v in enumerate(codebook.values)}
    s = np.array([index[str(v)] for v in s_list], dtype=np.int64)
    h = np.array([index[str(v)] for v in h_list], dtype=np.int64)
    n = len(s)
    if not n:
        raise InvalidParameter("human", "validity needs at least one coded post")
    w = np.ones(n) if weights is None else np.asarray(list(weights), dtype="float64")
    if len(w) != n or not np.isfinite(w).all() or (w < 0).any() or w.sum() == 0:
        raise InvalidParameter("weights", f"must be {n} finite numbers, 0 or more, not all 0")
    if strata is not None and len(strata) != n:
        raise InvalidParameter("strata", f"must have one value per coded post ({n})")
    return _Sample(
        codebook,
        s,
        h,
        w,
        None if strata is None else tuple(str(x) for x in strata),
        confidence,
        n_boot,
        seed,
    )
