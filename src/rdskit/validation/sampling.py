"""Drawing a validation sample, and how large it must be.

:func:`validation_sample` draws a stratified sample of a frame (strata: the service's
label and/or the source), the same number of posts per stratum (or all of a smaller
one), and records the design: ``stratum``, ``inclusion`` (the post's chance of being
drawn) and ``weight`` (``1 / inclusion``: the posts of the collection it stands for). Pass
``weight`` and ``stratum`` to :func:`rdskit.validation.reliability` and
:func:`rdskit.validation.validity`.

Sample sizes (normal approximations; a plan, not a guarantee):

- :func:`sample_size_for_precision`: posts per class so that a proportion (precision or
  recall) near ``expected`` has a ``confidence`` interval about ``width`` wide;
- :func:`sample_size_for_kappa`: units for a kappa (or alpha) interval about ``width``
  wide, from Cohen's (1960) large-sample variance ``po (1 - po) / (n (1 - pe)^2)``.

Example:
    >>> sample_size_for_precision(0.8, width=0.2)
    62
    >>> sample_size_for_kappa(0.7, width=0.2, chance=0.5)
    196
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from rdskit.errors import InvalidParameter

__all__ = ["sample_size_for_kappa", "sample_size_for_precision", "validation_sample"]


def _z(confidence: float) -> float:
    from scipy.stats import norm

    if not 0 < confidence < 1:
        raise InvalidParameter("confidence", f"must be between 0 and 1, not {confidence}")
    return float(norm.ppf(1 - (1 - confidence) / 2))


def sample_size_for_precision(
    expected: float, *, width: float = 0.2, confidence: float = 0.95
) -> int:
    """Posts per class for a proportion near ``expected`` known to about ``width``.

    Example:
        >>> sample_size_for_precision(0.5, width=0.1)
        385
    """
    if not 0 < expected < 1 or not 0 < width < 1:
        raise InvalidParameter("width", "expected and width must lie between 0 and 1")
    return math.ceil(_z(confidence) ** 2 * expected * (1 - expected) / (width / 2) ** 2)


def sample_size_for_kappa(
    expected: float, *, width: float = 0.2, chance: float = 0.5, confidence: float = 0.95
) -> int:
    """Units for a kappa near ``expected`` known to about ``width``, given the chance
    agreement ``chance`` (two balanced classes: 0.5; three: about 0.33).

    Example:
        >>> sample_size_for_kappa(0.8, width=0.1, chance=0.33)
        398
    """
    if not -1 < expected < 1 or not 0 <= chance < 1 or not 0 < width < 2:
        raise InvalidParameter("expected", "kappa in (-1, 1), chance in [0, 1), width in (0, 2)")
    po = expected * (1 - chance) + chance
    return math.ceil(_z(confidence) ** 2 * po * (1 - po) / ((1 - chance) ** 2 * (width / 2) ** 2))


def validation_sample(
    frame: pd.DataFrame,
    per_stratum: int,
    *,
    strata: str | Sequence[str] = "sentiment",
    seed: int = 0,
) -> pd.DataFrame:
    """``per_stratum`` posts of each stratum of ``frame`` (all of a smaller stratum), each
    post once by (source, id), with ``stratum``, ``inclusion`` and ``weight``.

    Example:
        >>> df = pd.DataFrame({"source": ["x"] * 6, "id": list("abcdef")})
        >>> df["sentiment"] = list("ppppnn")
        >>> s = validation_sample(df, 2, strata="sentiment")
        >>> s.groupby("stratum")["weight"].first().to_dict()
        {'n': 1.0, 'p': 2.0}
    """
    keys = [strata] if isinstance(strata, str) else list(strata)
    missing = [c for c in keys if c not in frame.columns]
    if missing:
        raise InvalidParameter("strata", f"the frame has no column {missing[0]!r}")
    if isinstance(per_stratum, bool) or not isinstance(per_stratum, int) or per_stratum < 1:
        raise InvalidParameter(
            "per_stratum", f"must be a whole number, 1 or more; got {per_stratum!r}"
        )
    posts = frame.drop_duplicates(["source", "id"]) if {"source", "id"} <= set(frame) else frame
    posts = posts[posts[keys].notna().all(axis=1)]
    stratum = posts[keys].astype(str).agg(" / ".join, axis=1)
    rng = np.random.default_rng(seed)
    picked = []
    for name in sorted(stratum.unique()):
        members = np.flatnonzero((stratum == name).to_numpy())
        take = rng.choice(members, size=min(per_stratum, len(members)), replace=False)
        chosen = posts.iloc[np.sort(take)].copy()
        chosen["stratum"] = name
        chosen["inclusion"] = len(take) / len(members)
        chosen["weight"] = len(members) / len(take)
        picked.append(chosen)
    return pd.concat(picked, ignore_index=True)
