"""pandas' own verbs on rdskit frames' list columns, and ``df.rds.dedupe()``.

Arrow list columns (``mentioned_brands``, ``comments``, ``datasets``...) have no hash or
order in pyarrow, so pandas' ``drop_duplicates``, ``duplicated``, ``nunique``,
``describe(include="all")`` and ``value_counts`` raised ``ArrowNotImplementedError`` on any
rdskit frame. Measured on pandas 2.3 / pyarrow 21: those five, ``groupby`` and
``sort_values`` on a list column failed; ``sort_values`` on other columns and
``drop_duplicates(subset=[...])`` of scalar columns worked.

The design: once :mod:`rdskit.frames` is imported, these verbs keep pandas' behaviour and
result for every frame pandas handles; when pandas raises that error on a list column, the
verbs that compare values (``drop_duplicates``, ``duplicated``, ``nunique``, ``describe``,
``value_counts``, on frames and series) are answered on :func:`plain` values (a list
becomes a tuple, a struct a tuple of its items, as ``df.rds.to_numpy_dtypes()`` converts
them: equal lists, equal tuples), and the rows returned are the frame's own. Ordering or
grouping by a list has no meaning to choose for you: ``sort_values`` and ``groupby`` by one
raise :class:`ListColumnError` naming ``df.rds.to_numpy_dtypes()`` (the
conversion, explicit) and ``df.rds.dedupe()``.

``df.rds.dedupe()`` is the verb for stacked loads: one row per (source, id), the first
kept, category dtypes restored over the union of the inputs' categories (``pd.concat``
turns a category column whose categories differ into ``object``), the provenance of every
input kept and the step recorded (the methods paragraph states it).

Example:
    >>> import pyarrow as pa
    >>> s = pd.Series([["a"], ["a"], ["b"]], dtype=pd.ArrowDtype(pa.list_(pa.string())))
    >>> s.nunique(), len(s.drop_duplicates())
    (2, 2)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pandas as pd
import pyarrow as pa

from rdskit.errors import RdsError
from rdskit.frames._checks import MissingColumnsError
from rdskit.frames.columns import CATEGORY, MENTIONS
from rdskit.frames.dtypes import numpy_frame
from rdskit.frames.provenance import add_step, carry

__all__ = ["ListColumnError", "dedupe", "list_columns", "plain"]


class ListColumnError(RdsError, TypeError):
    """A pandas verb that cannot order or group by a list column (see the module docs).

    Example:
        >>> str(ListColumnError("sort_values", ["mentioned_brands"]))[:60]
        'sort_values cannot order or group by the list column(s) ment'
    """

    def __init__(self, verb: str, columns: list[Any]) -> None:
        named = ", ".join(map(str, columns))
        super().__init__(
            f"{verb} cannot order or group by the list column(s) {named}: a list "
            "has no order or key to choose for you. Use df.rds.dedupe() for one row per post "
            "(source, id); df.rds.to_numpy_dtypes() turns list columns into tuples (then "
            "every pandas verb works: df.rds.to_numpy_dtypes().groupby(...))"
        )
        self.verb = verb
        self.columns = columns


def _is_list(dtype: Any) -> bool:
    return isinstance(dtype, pd.ArrowDtype) and (
        pa.types.is_list(dtype.pyarrow_dtype)
        or pa.types.is_large_list(dtype.pyarrow_dtype)
        or pa.types.is_struct(dtype.pyarrow_dtype)
        or pa.types.is_map(dtype.pyarrow_dtype)
    )


def list_columns(frame: pd.DataFrame | pd.Series) -> list[Any]:
    """The columns holding lists or structs (Arrow), which pyarrow cannot hash or order."""
    if isinstance(frame, pd.Series):
        return [frame.name] if _is_list(frame.dtype) else []
    return [c for c, dtype in frame.dtypes.items() if _is_list(dtype)]


def plain(frame: pd.DataFrame | pd.Series) -> Any:
    """``frame`` with its list and struct columns as tuples (the rest unchanged), which
    pandas hashes and compares: what the verbs are answered on."""
    if isinstance(frame, pd.Series):
        if not list_columns(frame):
            return frame
        values = numpy_frame(frame.to_frame(name="values"))["values"]
        return values.rename(frame.name)
    nested = list_columns(frame)
    if not nested:
        return frame
    out = frame.copy(deep=False)
    converted = numpy_frame(frame[nested])
    for column in nested:
        out[column] = converted[column]
    return out


def dedupe(frame: pd.DataFrame, keys: tuple[str, ...] = ("source", "id")) -> pd.DataFrame:
    """One row per ``keys`` (the first kept), categories restored, provenance kept and the
    step recorded (see the module docs)."""
    missing = [k for k in keys if k not in frame.columns]
    if missing:
        raise MissingColumnsError("dedupe", missing, "mentions")
    keep = ~plain(frame[list(keys)]).duplicated()
    out = frame.loc[keep.to_numpy()].reset_index(drop=True)
    for column in out.columns:
        if column not in MENTIONS:
            continue
        spec, dtype = MENTIONS[column], out[column].dtype
        if spec.arrow == CATEGORY and not isinstance(dtype, pd.CategoricalDtype):
            found = [str(v) for v in out[column].dropna().unique()]
            out[column] = out[column].astype(pd.CategoricalDtype(spec.category_order(found)))
    out = carry(out, frame)
    return add_step(out, "dedupe", {"keys": list(keys), "removed": len(frame) - len(out)})


# -- pandas' verbs, answered on plain values where pyarrow cannot -----------------------
def _answered(verb: Callable[..., Any]) -> Callable[..., Any]:
    """``verb``, computed on :func:`plain` values when pandas fails on a list column;
    ``drop_duplicates`` returns the frame's own rows."""

    @functools.wraps(verb)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return verb(self, *args, **kwargs)
        except pa.ArrowNotImplementedError:
            if not list_columns(self):
                raise
        if verb.__name__ == "drop_duplicates":
            inplace = kwargs.pop("inplace", False)
            ignore_index = kwargs.pop("ignore_index", False)
            keep = plain(self).duplicated(*args, **kwargs)
            result = self.loc[~keep.to_numpy()]
            if ignore_index:
                result = result.reset_index(drop=True)
            if inplace:
                self._update_inplace(result)
                return None
            return result.__finalize__(self)
        return verb(plain(self), *args, **kwargs)

    wrapper._rdskit = True  # type: ignore[attr-defined]
    return wrapper


def _refused(verb: Callable[..., Any]) -> Callable[..., Any]:
    """``verb``, with pyarrow's failure on a list column said as :class:`ListColumnError`."""

    @functools.wraps(verb)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        by = args[0] if args else kwargs.get("by")
        named = [by] if isinstance(by, str) else by if isinstance(by, list) else []
        nested = list_columns(self)
        # keys may be Series or arrays (groupby([df.a.astype(str), ...])): only names count
        names = [c for c in named if isinstance(c, str)]
        asked = [c for c in names if c in nested] if isinstance(self, pd.DataFrame) else nested
        if asked and verb.__name__ == "groupby":  # pandas fails later, on the first use
            raise ListColumnError("groupby", asked)
        try:
            return verb(self, *args, **kwargs)
        except pa.ArrowNotImplementedError:
            if not nested:
                raise
            raise ListColumnError(verb.__name__, asked or nested) from None

    wrapper._rdskit = True  # type: ignore[attr-defined]
    return wrapper


def _install() -> None:
    answered = ("drop_duplicates", "duplicated", "nunique", "describe", "value_counts", "unique")
    for owner in (pd.DataFrame, pd.Series):
        for name in answered:
            verb = getattr(owner, name, None)
            if verb is not None and not getattr(verb, "_rdskit", False):
                setattr(owner, name, _answered(verb))
        for name in ("sort_values", "groupby"):
            verb = getattr(owner, name)
            if not getattr(verb, "_rdskit", False):
                setattr(owner, name, _refused(verb))


_install()
