"""What several frame methods share, below all of them: the error for missing columns,
which rows are ads, the views check, the dataset of each post, the legend placement.

The ``df.rds`` facade (:mod:`rdskit.frames.accessor`) and the methods it delegates to
(``methods``, ``compare``, ``agreement``, ``networks``, ``plots``) import these from here,
so none of them imports the facade back (tests/test_layers.py forbids the circle).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from rdskit.errors import EstimatedViewsWarning, RdsError, warn
from rdskit.frames import _arrow

__all__ = [
    "VIEW_BASED",
    "MissingColumnsError",
    "ad_rows",
    "dataset_labels",
    "estimated_flags",
    "legend_outside",
    "views_mixed",
]


class MissingColumnsError(RdsError, KeyError):
    """A ``df.rds`` method needs columns the frame does not have.

    Example:
        >>> str(MissingColumnsError("volume", ["created_at"], "mentions"))
        "df.rds.volume() needs the column 'created_at', missing from this mentions frame"
    """

    def __init__(self, method: str, missing: list[str], kind: str) -> None:
        names = ", ".join(repr(c) for c in missing)
        plural = "s" if len(missing) > 1 else ""
        self.method, self.missing = method, missing
        super().__init__(
            f"df.rds.{method}() needs the column{plural} {names}, missing from this {kind} frame"
        )

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def ad_rows(frame: pd.DataFrame) -> np.ndarray:
    """Which rows are ads: ``content_type`` ``"ad"`` or an advertiser (unknown: not).

    Example:
        >>> ad_rows(pd.DataFrame({"content_type": ["ad", "organic", None]})).tolist()
        [True, False, False]
    """
    ad = np.zeros(len(frame), dtype=bool)
    if "content_type" in frame.columns:
        # eq on the column itself (categorical codes, Arrow text): no copy as strings
        ad |= frame["content_type"].eq("ad").to_numpy(dtype=bool, na_value=False)
    if "ad_advertiser_id" in frame.columns:
        ad |= frame["ad_advertiser_id"].notna().to_numpy(dtype=bool)
    return ad


def estimated_flags(frame: pd.DataFrame) -> np.ndarray:
    """``are_views_estimated`` as booleans, missing as False (a boolean column is read as
    it is; others are converted as pandas' ``boolean`` does, refusing what is not one)."""
    column = frame["are_views_estimated"]
    if not pd.api.types.is_bool_dtype(column.dtype):
        column = column.astype("boolean")
    flags: np.ndarray = column.to_numpy(dtype=bool, na_value=False)
    return flags


VIEW_BASED = frozenset({"num_views", "engagement_rate"})
"""Rankings that compare views, measured or estimated depending on the source."""


def views_mixed(frame: pd.DataFrame, what: str, advice: str) -> str | None:
    """When ``frame`` mixes estimated views with counted ones, warn that ``what``
    compares them (:class:`~rdskit.errors.EstimatedViewsWarning`, with ``advice``) and
    return the sources that estimate; else None."""
    if "are_views_estimated" not in frame.columns or frame.empty:
        return None
    estimated = estimated_flags(frame)
    if estimated.all() or not estimated.any():
        return None
    where = frame.loc[estimated, "source"] if "source" in frame.columns else pd.Series(["?"])
    sources = ", ".join(sorted(map(str, where.unique())))
    warn(
        f"{what} mixes estimated views ({sources}) with counted ones; {advice}",
        EstimatedViewsWarning,
    )
    return sources


def dataset_labels(frame: pd.DataFrame) -> pd.Series:
    """The dataset of each post, indexed by the post's row position (a post in two
    datasets appears twice): its name, or its id when it has none.

    Example:
        >>> from rdskit.frames import mentions_frame
        >>> df = mentions_frame([{"source": "x", "id": "1", "datasets": [{"id": "ds_1",
        ...     "name": "Oat"}, {"id": "ds_2"}]}])
        >>> dataset_labels(df).tolist()
        ['Oat', 'ds_2']
    """
    lists = _arrow.column(frame, "datasets")
    flat = pc.list_flatten(lists)
    rows = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False)
    names = pc.coalesce(pc.struct_field(flat, ["name"]), pc.struct_field(flat, ["id"]))
    labels = pd.Series(names.to_pylist(), index=rows, dtype="object")
    return labels.dropna().astype(str)


def legend_outside(ax: Any, **options: Any) -> Any:
    """The legend to the right of the axes, never over the data.

    Example:
        >>> legend_outside(ax, title="source")  # doctest: +SKIP
    """
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, **options)
