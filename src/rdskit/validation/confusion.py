"""Confusion matrices and Cohen's kappa, batched over bootstrap resamples: the one
implementation that :mod:`rdskit.validation.reliability`, :mod:`rdskit.validation.correction`
and :mod:`rdskit.frames.agreement` compute them with.

A batch is rows of unit indices (one row per resample, :mod:`rdskit.validation.intervals`),
so every function takes ``idx`` of shape ``(resamples, units)`` and gives one value (or one
matrix) per row; ``np.arange(n)[None, :]`` is the sample itself.

Example:
    >>> import numpy as np
    >>> a, b = np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])
    >>> c = confusions(a, b, np.ones(4), 2, np.arange(4)[None, :])
    >>> c[0].tolist(), float(kappa(c, np.eye(2))[0])
    ([[1.0, 1.0], [0.0, 2.0]], 0.5)
"""

from __future__ import annotations

import numpy as np

__all__ = ["confusions", "kappa", "rates"]


def confusions(a: np.ndarray, b: np.ndarray, w: np.ndarray, q: int, idx: np.ndarray) -> np.ndarray:
    """Weighted confusion matrices (rows: ``a``'s code, columns: ``b``'s; codes 0..q-1),
    one per row of ``idx``: a single bincount for the whole batch."""
    resamples = len(idx)
    flat = (np.arange(resamples)[:, None] * q * q + (a * q + b)[idx]).ravel()
    counts = np.bincount(flat, weights=w[idx].ravel(), minlength=resamples * q * q)
    return counts.reshape(resamples, q, q)


def kappa(c: np.ndarray, agreement: np.ndarray) -> np.ndarray:
    """Cohen's kappa of confusion matrices ``c`` (batch, q, q): ``(po - pe) / (1 - pe)``
    with ``agreement`` the credit of each cell (the identity: Cohen 1960; linear or
    quadratic weights: Cohen's weighted kappa, 1968). NaN where chance agreement is
    certain (each side uses one code) or no unit is counted."""
    total = c.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = c / np.where(total > 0, total, 1)[:, None, None]
        po = (agreement * p).sum(axis=(1, 2))
        chance = p.sum(axis=2)[:, :, None] * p.sum(axis=1)[:, None, :]
        pe = (agreement * chance).sum(axis=(1, 2))
        value = (po - pe) / (1 - pe)
    return np.where((total > 0) & (pe < 1 - 1e-12), value, np.nan)


def rates(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per code, precision (of the units ``a`` gives it, the share ``b`` gives it too: by
    row) and recall (of the units ``b`` gives it, the share ``a`` finds: by column) of
    confusion matrices ``c`` (batch, q, q); NaN where there is nothing to divide by."""
    hits = np.diagonal(c, axis1=1, axis2=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return hits / c.sum(axis=2), hits / c.sum(axis=1)
