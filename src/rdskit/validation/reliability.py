"""Agreement between coders (humans, or a labeller and humans): the measures and their
honest intervals.

Codes come as a table, one row per unit (post) and one column per coder (a
``DataFrame``, or a mapping ``coder -> codes``), checked against a :class:`Codebook`
before anything is computed. Measures:

- **percent agreement**: the share of agreeing coder pairs per unit (two coders: the share
  of units they code alike);
- **Cohen's kappa** (two coders): ``(po - pe) / (1 - pe)``, ``pe`` from each coder's own
  code shares (Cohen 1960);
- **Cohen's weighted kappa** (two coders, ordinal codebooks only): disagreements weighted
  by their distance on the codebook's order, ``linear`` or ``quadratic`` (Cohen 1968);
- **Fleiss' kappa** (any number of coders, each unit coded by all; Fleiss 1971);
- **Krippendorff's alpha** (any number of coders, missing codes allowed; ``nominal``, and
  ``ordinal``/``interval`` for ordinal codebooks; computed by the maintained
  ``krippendorff`` package; Krippendorff 2011);
- **Gwet's AC1** (any number of coders; chance agreement from the codes' mean shares over
  the codebook's ``q`` codes, so it stays stable when one code dominates; Gwet 2008).

**Design weights.** A stratified validation sample over-represents rare strata; ``weights``
(one per unit, e.g. :func:`rdskit.validation.validation_sample`'s ``weight``) make
percent agreement, the kappas and AC1 estimates for the collection ("design-weighted").
Krippendorff's alpha has no design-weighted form here: it describes the sample, and the
table says so.

**Intervals** are BCa bootstrap intervals over units (resampled within ``strata``), or
none with the reason when the sample cannot support one (:mod:`rdskit.validation.intervals`).

**Missing codes.** By default every coder must code every unit: a half-filled list is an
error naming the coder and the first unit without a code. ``missing="allow"`` keeps them:
kappa uses the units both coders coded, Fleiss' kappa the units all coded, alpha and AC1
every unit with two codes or more.

Example:
    >>> from rdskit.validation import Codebook
    >>> book = Codebook.of("x", ["a", "b"])
    >>> r = reliability({"ann": ["a", "a", "b", "b"], "bob": ["a", "b", "b", "b"]}, book)
    >>> round(r.value("percent agreement"), 2), round(r.value("Cohen's kappa"), 2)
    (0.75, 0.5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd

from rdskit._extras import require
from rdskit.errors import InvalidParameter
from rdskit.frames._table import html_table, text_table
from rdskit.validation.codebook import Codebook, _missing
from rdskit.validation.confusion import confusions
from rdskit.validation.confusion import kappa as kappa_of
from rdskit.validation.intervals import Batch, Interval, bootstrap, per_row

__all__ = [
    "Measure",
    "Reliability",
    "cohen_kappa",
    "cohen_weighted_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "krippendorff_alpha",
    "percent_agreement",
    "reliability",
]

Codes: TypeAlias = pd.DataFrame | Mapping[str, Sequence[Any]]
Level: TypeAlias = Literal["nominal", "ordinal", "interval"]


def _table(codes: Codes) -> pd.DataFrame:
    frame = codes if isinstance(codes, pd.DataFrame) else pd.DataFrame(dict(codes))
    if frame.shape[1] < 2:
        raise InvalidParameter("codes", "agreement needs two coders or more (one column each)")
    if not len(frame):
        raise InvalidParameter("codes", "agreement needs at least one coded unit")
    return frame


def _matrix(codes: Codes, values: Sequence[str]) -> np.ndarray:
    """Units x coders of code indices in ``values`` (-1: no code)."""
    frame = _table(codes)
    index = {v: i for i, v in enumerate(values)}
    out = np.full(frame.shape, -1, dtype=np.int64)
    for j, column in enumerate(frame.columns):
        for i, code in enumerate(frame[column].tolist()):
            if _missing(code):
                continue
            if str(code) not in index:
                raise InvalidParameter("codes", f"coder {column!r}: {code!r} is not a code")
            out[i, j] = index[str(code)]
    return out


def _counts(x: np.ndarray, q: int) -> np.ndarray:
    """Units x codes: how many coders gave each code to each unit."""
    r = np.zeros((x.shape[0], q))
    for j in range(x.shape[1]):
        coded = x[:, j] >= 0
        np.add.at(r, (np.flatnonzero(coded), x[coded, j]), 1)
    return r


def _w(weights: np.ndarray | None, n: int) -> np.ndarray:
    return np.ones(n) if weights is None else weights


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


class _Units:
    """Per-unit terms of every measure, so that a batch of resamples (rows of unit
    indices) is a sum over gathered rows: all bootstrap resamples at once."""

    def __init__(self, x: np.ndarray, q: int, w: np.ndarray) -> None:
        self.x, self.q, self.w = x, q, w
        r = _counts(x, q)
        m = r.sum(axis=1)
        paired = m >= 2
        with np.errstate(divide="ignore", invalid="ignore"):
            agree = np.where(paired, (r * (r - 1)).sum(axis=1) / (m * (m - 1)), 0.0)
            shares = np.where(m[:, None] > 0, r / np.maximum(m, 1)[:, None], 0.0)
        self.pair_num, self.pair_den = w * agree, w * paired
        self.share_num, self.share_den = (w * (m >= 1))[:, None] * shares, w * (m >= 1)
        k = x.shape[1]
        full = (x >= 0).all(axis=1)
        unit_p = ((r * r).sum(axis=1) - k) / (k * (k - 1))
        self.full_w = w * full
        self.full_p = self.full_w * unit_p
        self.full_share = self.full_w[:, None] * r / k
        both = full if k == 2 else np.zeros(len(x), dtype=bool)
        self.first = np.where(both, x[:, 0], 0)
        self.second = np.where(both, x[:, min(1, k - 1)], 0)
        self.cell_w = w * both

    def percent(self, idx: np.ndarray) -> np.ndarray:
        return _ratio(self.pair_num[idx].sum(axis=1), self.pair_den[idx].sum(axis=1))

    def ac1(self, idx: np.ndarray) -> np.ndarray:
        pa = self.percent(idx)
        pi = _ratio(self.share_num[idx].sum(axis=1), self.share_den[idx].sum(axis=1)[:, None])
        pe = (pi * (1 - pi)).sum(axis=1) / (self.q - 1)
        return _ratio(pa - pe, 1 - pe)

    def fleiss(self, idx: np.ndarray) -> np.ndarray:
        total = self.full_w[idx].sum(axis=1)
        p_bar = _ratio(self.full_p[idx].sum(axis=1), total)
        p_code = _ratio(self.full_share[idx].sum(axis=1), total[:, None])
        pe = (p_code**2).sum(axis=1)
        return np.where(pe < 1 - 1e-12, _ratio(p_bar - pe, 1 - pe), np.nan)

    def kappa(self, idx: np.ndarray, v: np.ndarray) -> np.ndarray:
        return kappa_of(confusions(self.first, self.second, self.cell_w, self.q, idx), v)


def _one(batch: np.ndarray) -> float:
    return float(batch[0])


def _two(x: np.ndarray) -> None:
    if x.shape[1] != 2:
        raise InvalidParameter("codes", f"Cohen's kappa compares two coders, not {x.shape[1]}")


def _agreement_weights(q: int, scheme: str) -> np.ndarray:
    if scheme == "identity":
        return np.eye(q)
    distance = np.abs(np.subtract.outer(np.arange(q), np.arange(q))) / max(q - 1, 1)
    if scheme == "linear":
        return 1 - distance
    if scheme == "quadratic":
        return 1 - distance**2
    raise InvalidParameter("scheme", f"must be 'linear' or 'quadratic', not {scheme!r}")


def _alpha(x: np.ndarray, q: int, level: str) -> float:
    import krippendorff  # the research extra (required by the callers)

    data = np.where(x >= 0, x, np.nan).T.astype("float64")
    if np.unique(data[np.isfinite(data)]).size < 2:
        return float("nan")  # one value only: no disagreement is expected, alpha undefined
    try:
        return float(
            krippendorff.alpha(
                reliability_data=data,
                level_of_measurement=level,  # type: ignore[arg-type]
                value_domain=list(range(q)),
            )
        )
    except ValueError:  # no pairable values
        return float("nan")


def _alpha_of(x: np.ndarray, q: int, level: str) -> Batch:
    return per_row(lambda i: _alpha(x[i], q, level))


def _prepare(
    codes: Codes, codebook: Codebook, weights: Sequence[float] | None
) -> tuple[np.ndarray, np.ndarray | None]:
    frame = _table(codes)
    for column in frame.columns:
        codebook.check(frame[column].tolist(), field=f"codes[{column!r}]")
    x = _matrix(frame, codebook.values)
    w = None
    if weights is not None:
        w = np.asarray(list(weights), dtype="float64")
        if len(w) != len(x) or not np.isfinite(w).all() or (w < 0).any() or w.sum() == 0:
            raise InvalidParameter(
                "weights", f"must be {len(x)} finite numbers, 0 or more, not all 0"
            )
    return x, w


def percent_agreement(
    codes: Codes, codebook: Codebook, *, weights: Sequence[float] | None = None
) -> float:
    """The share of agreeing coder pairs (two coders: of units coded alike).

    Example:
        >>> percent_agreement({"a": ["x", "y"], "b": ["x", "x"]}, Codebook.of("c", "xy"))
        0.5
    """
    x, w = _prepare(codes, codebook, weights)
    units = _Units(x, len(codebook.values), _w(w, len(x)))
    return _one(units.percent(np.arange(len(x))[None, :]))


def cohen_kappa(
    codes: Codes, codebook: Codebook, *, weights: Sequence[float] | None = None
) -> float:
    """Cohen's kappa of two coders (design-weighted with ``weights``).

    Example:
        >>> cohen_kappa({"a": list("xxyy"), "b": list("xyyy")}, Codebook.of("c", "xy"))
        0.5
    """
    x, w = _prepare(codes, codebook, weights)
    _two(x)
    q = len(codebook.values)
    return _one(_Units(x, q, _w(w, len(x))).kappa(np.arange(len(x))[None, :], np.eye(q)))


def cohen_weighted_kappa(
    codes: Codes,
    codebook: Codebook,
    *,
    scheme: Literal["linear", "quadratic"] = "linear",
    weights: Sequence[float] | None = None,
) -> float:
    """Cohen's weighted kappa of two coders on an ordinal codebook: a disagreement of one
    step counts less than one of two (``scheme`` linear or quadratic).

    Example:
        >>> book = Codebook.of("c", ["low", "mid", "high"], ordinal=True)
        >>> codes = {"a": ["low", "mid", "high"], "b": ["mid", "mid", "high"]}
        >>> round(cohen_weighted_kappa(codes, book), 3)
        0.571
    """
    if not codebook.ordinal:
        raise InvalidParameter(
            "codebook", f"{codebook.label} is not ordinal: weighted kappa needs ordered codes"
        )
    x, w = _prepare(codes, codebook, weights)
    _two(x)
    q, v = len(codebook.values), _agreement_weights(len(codebook.values), scheme)
    return _one(_Units(x, q, _w(w, len(x))).kappa(np.arange(len(x))[None, :], v))


def fleiss_kappa(
    codes: Codes, codebook: Codebook, *, weights: Sequence[float] | None = None
) -> float:
    """Fleiss' kappa over the units every coder coded.

    Example:
        >>> fleiss_kappa({"a": list("xxyy"), "b": list("xyyy")}, Codebook.of("c", "xy"))
        0.4666666666666667
    """
    x, w = _prepare(codes, codebook, weights)
    units = _Units(x, len(codebook.values), _w(w, len(x)))
    return _one(units.fleiss(np.arange(len(x))[None, :]))


def gwet_ac1(codes: Codes, codebook: Codebook, *, weights: Sequence[float] | None = None) -> float:
    """Gwet's AC1, chance agreement over the codebook's ``q`` codes.

    Example:
        >>> round(gwet_ac1({"a": list("xxyy"), "b": list("xyyy")}, Codebook.of("c", "xy")), 3)
        0.529
    """
    x, w = _prepare(codes, codebook, weights)
    units = _Units(x, len(codebook.values), _w(w, len(x)))
    return _one(units.ac1(np.arange(len(x))[None, :]))


def krippendorff_alpha(codes: Codes, codebook: Codebook, *, level: Level = "nominal") -> float:
    """Krippendorff's alpha (``level``: nominal; ordinal or interval need an ordinal
    codebook, its order giving the ranks or values 0, 1, 2...).

    Example:
        >>> codes = {"a": list("xxyy"), "b": list("xyyy")}
        >>> round(krippendorff_alpha(codes, Codebook.of("c", "xy")), 3)
        0.533
    """
    if level != "nominal" and not codebook.ordinal:
        raise InvalidParameter(
            "level", f"{level} alpha needs an ordinal codebook; {codebook.label} is not"
        )
    require("research", "Krippendorff's alpha", ("krippendorff",))
    x, _ = _prepare(codes, codebook, None)
    return _alpha(x, len(codebook.values), level)


@dataclass(frozen=True)
class Measure:
    """One agreement measure: its value and interval (or why none)."""

    name: str
    value: float
    interval: Interval
    design_weighted: bool


@dataclass(frozen=True)
class Reliability:
    """The result of :func:`reliability`: one :class:`Measure` per row."""

    measures: tuple[Measure, ...]
    n_units: int
    coders: tuple[str, ...]
    codebook: str
    design_weighted: bool
    notes: tuple[str, ...] = field(default=())

    def measure(self, name: str) -> Measure:
        """The measure called ``name`` (e.g. ``"Cohen's kappa"``)."""
        for m in self.measures:
            if m.name == name:
                return m
        raise KeyError(f"{name!r}; measures: {', '.join(m.name for m in self.measures)}")

    def value(self, name: str) -> float:
        """The value of the measure called ``name``."""
        return self.measure(name).value

    def to_frame(self) -> pd.DataFrame:
        """One row per measure: value, low, high, design_weighted, no_interval_reason."""
        return pd.DataFrame(
            [
                {
                    "measure": m.name,
                    "value": m.value,
                    "low": m.interval.low,
                    "high": m.interval.high,
                    "design_weighted": m.design_weighted,
                    "no_interval_reason": m.interval.reason,
                }
                for m in self.measures
            ]
        )

    def _rows(self) -> list[list[str]]:
        return [
            [
                m.name + (" (design-weighted)" if m.design_weighted else ""),
                "undefined" if m.value != m.value else f"{m.value:.3f}",
                f"{m.interval.low:.3f} to {m.interval.high:.3f}" if m.interval.defined else "none",
            ]
            for m in self.measures
        ]

    def _note(self) -> str:
        conf = self.measures[0].interval.confidence if self.measures else 0.95
        why = sorted({m.interval.reason for m in self.measures if not m.interval.defined})
        return " ".join(
            [
                f"{self.n_units:,} units, {len(self.coders)} coders "
                f"({', '.join(self.coders)}), codebook {self.codebook}.",
                f"{conf:.0%} BCa bootstrap intervals over units.".replace("%", " %"),
                *(f"No interval: {w}." for w in why),
                *(
                    [
                        "Design-weighted measures estimate the collection; Krippendorff's "
                        "alpha is not design-weighted (it describes the sample)."
                    ]
                    if self.design_weighted
                    else []
                ),
                *self.notes,
            ]
        )

    def __repr__(self) -> str:
        table = text_table(["measure", "value", "interval"], self._rows())
        return f"Agreement between coders\n{table}\n{self._note()}"

    def _repr_html_(self) -> str:
        return html_table(
            ["measure", "value", "interval"],
            self._rows(),
            title="Agreement between coders",
            note=self._note(),
        )


def reliability(
    codes: Codes,
    codebook: Codebook,
    *,
    weights: Sequence[float] | None = None,
    strata: Sequence[Any] | None = None,
    missing: Literal["error", "allow"] = "error",
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> Reliability:
    """Every measure that applies to ``codes`` (see the module docs), with intervals.

    Example:
        >>> book = Codebook.of("x", ["a", "b"])
        >>> r = reliability({"p": ["a", "b"] * 15, "q": ["a", "b"] * 14 + ["b", "b"]}, book)
        >>> r.measure("Cohen's kappa").interval.defined
        True
    """
    if not 0 < confidence < 1:
        raise InvalidParameter("confidence", f"must be between 0 and 1, not {confidence}")
    require("research", "reliability()", ("krippendorff", "scipy"))
    frame = _table(codes)
    x, w = _prepare(frame, codebook, weights)
    if missing == "error":
        holes = np.argwhere(x < 0)
        if len(holes):
            unit, coder = holes[0]
            count = int((x[:, coder] < 0).sum())
            raise InvalidParameter(
                "codes",
                f"coder {frame.columns[coder]!r} has no code for unit {unit + 1} "
                f"({count} of {len(x)} units uncoded): finish coding, or pass "
                "missing='allow'",
            )
    if strata is not None and len(strata) != len(x):
        raise InvalidParameter("strata", f"must have one value per unit ({len(x)})")
    q, n = len(codebook.values), len(x)
    units = _Units(x, q, _w(w, n))
    stats: list[tuple[str, Batch, bool]] = [("percent agreement", units.percent, True)]
    if x.shape[1] == 2:
        stats.append(("Cohen's kappa", lambda i: units.kappa(i, np.eye(q)), True))
        if codebook.ordinal:
            linear = _agreement_weights(q, "linear")
            stats.append(
                ("Cohen's weighted kappa (linear)", lambda i: units.kappa(i, linear), True)
            )
    stats.append(("Fleiss' kappa", units.fleiss, True))
    levels: list[Level] = ["nominal", "ordinal"] if codebook.ordinal else ["nominal"]
    for level in levels:
        stats.append((f"Krippendorff's alpha ({level})", _alpha_of(x, q, level), False))
    stats.append(("Gwet's AC1", units.ac1, True))
    measures = tuple(
        Measure(
            name,
            _one(fn(np.arange(n)[None, :])),
            bootstrap(fn, n, strata=strata, confidence=confidence, n_boot=n_boot, seed=seed),
            w is not None and weighted,
        )
        for name, fn, weighted in stats
    )
    notes = []
    uncoded = int((x < 0).sum())
    if uncoded:
        notes.append(f"{uncoded} missing code(s) kept (missing='allow').")
    return Reliability(
        measures=measures,
        n_units=n,
        coders=tuple(str(c) for c in frame.columns),
        codebook=codebook.label,
        design_weighted=w is not None,
        notes=tuple(notes),
    )
