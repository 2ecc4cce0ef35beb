"""Exports for spreadsheet users: ``df.rds.to_excel(path)`` and ``df.rds.to_csv(path)``.

Both flatten what a spreadsheet cannot hold: lists of text become ``"a; b"``, lists of
objects (media, hooks, parameters...) one compact JSON text per cell, timestamps UTC
without a zone (Excel has none; column names say ``(UTC)``). Text that a spreadsheet
would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return)
is prefixed with ``'`` so it shows as text: social posts are untrusted input.

The workbook (openpyxl, in the ``research`` extra) has a ``posts`` sheet (a mentions
frame without its ``comments`` column), a ``comments`` sheet (``df.rds.comments()``) and a
``provenance`` sheet (key, value rows). ``to_csv(excel=True)`` writes UTF-8 with a BOM so
Excel reads accents and emoji right; ``excel=False`` writes plain UTF-8. Either way a
``<file>.provenance.json`` file (``oat.csv.provenance.json``) is written next to the CSV.

Example:
    >>> df.rds.to_excel("oat.xlsx")  # doctest: +SKIP
    >>> df.rds.to_csv("oat.csv")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from rdskit.errors import InvalidParameter
from rdskit.frames.networks import research_import

__all__ = ["EXCEL_MAX_CHARS", "flatten_frame", "provenance_rows", "write_csv", "write_excel"]

EXCEL_MAX_CHARS = 32_767
"""Excel's limit per cell: longer texts are cut there, ending with an ellipsis."""

_FORMULA = re.compile(r"^[=+\-@\t\r]")
# Characters XML 1.0 (so .xlsx) cannot hold.
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _cell_list(value: Any) -> Any:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    items = list(value)
    if all(isinstance(v, str) or v is None for v in items):
        return "; ".join(v for v in items if v is not None)
    return json.dumps(items, default=str, ensure_ascii=False)


def flatten_frame(frame: pd.DataFrame, *, for_excel: bool = True) -> pd.DataFrame:
    """The frame with list/struct columns as text and timestamps as naive UTC (renamed
    ``<name> (UTC)``); formula-like text escaped when ``for_excel``.

    Example:
        >>> df = pd.DataFrame({"tags": pd.Series([["a", "b"]], dtype=pd.ArrowDtype(
        ...     pa.list_(pa.string()))), "text": ["=1+1"]})
        >>> flatten_frame(df).iloc[0].tolist()
        ['a; b', "'=1+1"]
    """
    out = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        column = frame[name]
        dtype = column.dtype
        arrow = dtype.pyarrow_dtype if isinstance(dtype, pd.ArrowDtype) else None
        label = str(name)
        if arrow is not None and (
            pa.types.is_list(arrow) or pa.types.is_struct(arrow) or pa.types.is_map(arrow)
        ):
            values = column.astype(object).map(
                (lambda v: json.dumps(v, default=str, ensure_ascii=False))
                if pa.types.is_struct(arrow)
                else _cell_list,
                na_action="ignore",
            )
            column = values.astype("object")
        elif isinstance(dtype, pd.DatetimeTZDtype) or (
            arrow is not None and pa.types.is_timestamp(arrow) and arrow.tz is not None
        ):
            column = pd.to_datetime(column).dt.tz_convert("UTC").dt.tz_localize(None)
            label = f"{name} (UTC)"
        elif isinstance(dtype, pd.CategoricalDtype):
            column = column.astype("string")
        if pd.api.types.is_string_dtype(column.dtype) or column.dtype == object:
            column = column.map(lambda v: _text(v, for_excel), na_action="ignore")
        out[label] = column
    return out


def _text(value: Any, for_excel: bool) -> Any:
    if not isinstance(value, str):
        return value
    if for_excel:
        value = _ILLEGAL.sub("", value)
        if _FORMULA.match(value):
            value = "'" + value
        if len(value) > EXCEL_MAX_CHARS:
            value = value[: EXCEL_MAX_CHARS - 1] + "…"
    return value


def provenance_rows(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """The frame's provenance as ``(key, value)`` rows (nested values as JSON)."""
    record = {k: v for k, v in (frame.attrs.get("rdskit") or {}).items() if k != "client"}
    rows = []
    for key, value in record.items():
        if key == "fetches":
            for i, fetch in enumerate(value, 1):
                for sub, item in fetch.items():
                    rows.append((f"fetch {i}: {sub}", _json(item)))
        elif key == "steps":
            for i, step in enumerate(value, 1):
                rows.append((f"step {i}: {step.get('step')}", _json(step)))
        else:
            rows.append((key, _json(value)))
    return rows


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


def _check(frame: pd.DataFrame) -> None:
    if len(frame.columns) == 0:
        raise InvalidParameter("frame", "nothing to export: the frame has no columns")


def write_excel(frame: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write the workbook (see the module docs); returns its path."""
    _check(frame)
    openpyxl = research_import("openpyxl")
    from openpyxl.cell import WriteOnlyCell

    target = Path(path)
    book = openpyxl.Workbook(write_only=True)
    posts = frame.drop(columns=["comments"]) if "comments" in frame.columns else frame
    sheets: list[tuple[str, pd.DataFrame]] = [("posts", flatten_frame(posts))]
    if "comments" in frame.columns and {"source", "id"} <= set(frame.columns):
        sheets.append(("comments", flatten_frame(frame.rds.comments())))
    for title, table in sheets:
        sheet = book.create_sheet(title)
        sheet.append([str(c) for c in table.columns])
        for row in table.itertuples(index=False, name=None):
            cells = []
            for value in row:
                cell = WriteOnlyCell(sheet, value=_excel_value(value))
                if isinstance(value, str):
                    cell.data_type = "s"  # never a formula, whatever the text says
                cells.append(cell)
            sheet.append(cells)
    sheet = book.create_sheet("provenance")
    sheet.append(["key", "value"])
    for key, value in provenance_rows(frame):
        sheet.append([key, _text(value, True)])
    book.save(target)
    return target


def _excel_value(value: Any) -> Any:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and np.isnan(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    return value


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str], *, excel: bool = True) -> Path:
    """Write the flattened frame as CSV (see the module docs); returns its path."""
    _check(frame)
    target = Path(path)
    flat = flatten_frame(frame, for_excel=excel)
    flat.to_csv(target, index=False, encoding="utf-8-sig" if excel else "utf-8")
    sidecar = target.with_name(target.name + ".provenance.json")
    record = {k: v for k, v in (frame.attrs.get("rdskit") or {}).items() if k != "client"}
    sidecar.write_text(json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n")
    return target
