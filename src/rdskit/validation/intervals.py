"""Bootstrap intervals that say when the sample cannot support one.

:func:`bootstrap` resamples units (within strata when given: a stratified sample is
resampled as it was drawn), and gives a BCa interval (bias-corrected and accelerated,
Efron 1987; the acceleration from the jackknife) -- or **no interval**, with the reason,
when:

- the sample has fewer than :data:`MIN_UNITS` units: a bootstrap's coverage is far below
  its nominal level there;
- every resample gives the same value (e.g. all coders agree on every unit): the sample
  shows no variation to measure uncertainty from, and "1.00 (1.00 to 1.00)" would claim a
  certainty ten posts cannot give;
- the statistic is undefined in more than 5 % of the resamples (e.g. one class only).

The statistic takes a batch of resamples (rows of unit indices) and gives one value per
row, so a statistic written with numpy runs all resamples at once.

Example:
    >>> import numpy as np
    >>> x = np.arange(40.0)
    >>> iv = bootstrap(lambda idx: x[idx].mean(axis=1), 40, n_boot=500)
    >>> iv.low < 19.5 < iv.high, iv.reason
    (True, '')
    >>> bootstrap(lambda idx: np.ones(len(idx)), 40).reason[:35]
    'every resample gives the same value'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MIN_UNITS", "Batch", "Interval", "bootstrap", "per_row", "resamples"]

MIN_UNITS = 20
"""Fewer units than this: no bootstrap interval (the value is given with a warning)."""


@dataclass(frozen=True)
class Interval:
    """A confidence interval, or none (``low`` and ``high`` NaN) and the ``reason``."""

    low: float
    high: float
    confidence: float
    method: str
    reason: str = ""

    @property
    def defined(self) -> bool:
        """True when the interval was computed."""
        return not self.reason

    def text(self, digits: int = 2) -> str:
        """``95 % interval 0.41 to 0.63``, or ``no interval (why)``."""
        if not self.defined:
            return f"no interval ({self.reason})"
        return (
            f"{self.confidence:.0%} interval {self.low:.{digits}f} to {self.high:.{digits}f}"
        ).replace("%", " %")

    @classmethod
    def none(cls, reason: str, confidence: float = 0.95) -> Interval:
        """No interval, for ``reason``."""
        return cls(float("nan"), float("nan"), confidence, "none", reason)


def resamples(n: int, strata: Sequence[Any] | None, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` rows of ``n`` unit indices drawn with replacement (within each stratum
    when ``strata`` gives one per unit)."""
    rng = np.random.default_rng(seed)
    if strata is None:
        return rng.integers(0, n, size=(n_boot, n))
    groups = np.asarray([str(s) for s in strata])
    out = np.empty((n_boot, n), dtype=np.int64)
    for value in np.unique(groups):
        members = np.flatnonzero(groups == value)
        out[:, members] = members[rng.integers(0, len(members), size=(n_boot, len(members)))]
    return out


Batch = Callable[[np.ndarray], np.ndarray]
"""A statistic of resamples: unit indices (one row per resample) -> one value per row."""


def per_row(statistic: Callable[[np.ndarray], float]) -> Batch:
    """A :data:`Batch` statistic from one that takes one row of indices."""
    return lambda idx: np.array([statistic(row) for row in idx], dtype="float64")


def _batched(statistic: Batch, idx: np.ndarray, size: int = 256) -> np.ndarray:
    return np.concatenate([statistic(idx[i : i + size]) for i in range(0, len(idx), size)])


def bootstrap(
    statistic: Batch,
    n: int,
    *,
    strata: Sequence[Any] | None = None,
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> Interval:
    """A BCa interval of ``statistic(indices)`` over ``n`` units, or none and why (see
    the module docs)."""
    from scipy.stats import norm

    if n < MIN_UNITS:
        return Interval.none(
            f"{n} units: a bootstrap needs {MIN_UNITS} or more to be trusted", confidence
        )
    estimate = float(statistic(np.arange(n)[None, :])[0])
    boot = _batched(statistic, resamples(n, strata, n_boot, seed))
    finite = boot[np.isfinite(boot)]
    if estimate != estimate or len(finite) < 0.95 * n_boot:
        return Interval.none(
            "the statistic is undefined in more than 5 % of the resamples", confidence
        )
    if np.ptp(finite) < 1e-12:
        return Interval.none(
            "every resample gives the same value: the sample shows no variation to "
            "estimate uncertainty from",
            confidence,
        )
    share_below = (np.sum(finite < estimate) + 0.5 * np.sum(finite == estimate)) / len(finite)
    z0 = float(norm.ppf(min(max(share_below, 1e-6), 1 - 1e-6)))
    leave_one_out = np.array([np.delete(np.arange(n), i) for i in range(n)])
    jack = _batched(statistic, leave_one_out)
    jack = jack[np.isfinite(jack)]
    d = jack.mean() - jack
    denominator = 6 * float(np.sum(d**2)) ** 1.5
    accel = float(np.sum(d**3)) / denominator if denominator > 0 else 0.0
    tail = (1 - confidence) / 2
    levels = []
    for z in (norm.ppf(tail), norm.ppf(1 - tail)):
        levels.append(float(norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))))
    low, high = np.quantile(finite, levels)
    return Interval(float(low), float(high), confidence, "BCa bootstrap")
