"""Exports for spreadsheet users: ``df.rds.to_excel(path)`` and ``df.rds.to_csv(path)``.

Both keep the frame's values and flatten only what a cell cannot hold: every list or
object (brands, media, hooks, parameters...) becomes one JSON text per cell
(``json.loads`` gives the value back; timestamps inside it are ISO 8601 text), and
timestamps are UTC without a zone (Excel has none; column names say ``(UTC)``).

Social posts are untrusted input. In the workbook every text cell is written as a text
cell (type ``s``; formula-like text also gets Excel's "quote prefix" style), so nothing
runs as a formula and the cell holds exactly the frame's text. The exceptions a cell
forces: characters XML cannot hold (control characters other than tab, newline and
carriage return) are dropped, a carriage return (alone or before a newline) becomes a
newline (XML reads it as one; written so whatever XML library is installed), and text
beyond Excel's 32,767 characters is cut, ending with an ellipsis. Numbers Excel cannot
hold exactly (integers and decimals of more than 15 significant digits, such as
9223372036854775807) are written as text cells of their exact digits. A text holding
OOXML's escape pattern ``_xHHHH_`` (``_x0041_``, which Excel would show as "A") is written
as unformatted runs cut inside each such pattern, so a reader following the spec (Excel)
shows it as written and ``pd.read_excel`` reads it back unchanged; column names and
provenance too. A CSV has no cell types: ``to_csv(excel=True)`` writes line ends as
``\n`` and prefixes with ``'`` every line of a text that Excel (or a reader splitting lines)
would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return),
the first line and every line after a line break; ``excel=False`` writes every text
exactly as it is. Either way a field holding ``\r`` or ``\n`` is quoted (rows end in
``\r\n``, RFC 4180), so every CSV reader reads one row per frame row, and a lone surrogate
(not Unicode, UTF-8 cannot hold it) is written as U+FFFD.

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

import csv
import json
import os
import re
from datetime import datetime
from decimal import Decimal
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from rdskit.errors import InvalidParameter
from rdskit.frames.networks import research_import

__all__ = [
    "CSV_OPTIONS",
    "EXCEL_DIGITS",
    "EXCEL_MAX_CHARS",
    "cell_json",
    "flatten_frame",
    "provenance_rows",
    "write_csv",
    "write_excel",
]

EXCEL_MAX_CHARS = 32_767
"""Excel's limit per cell: longer texts are cut there, ending with an ellipsis."""

EXCEL_DIGITS = 15
"""Significant digits an Excel number keeps: longer integers and decimals are text cells."""

_LINE_END = re.compile(r"\r\n?")
# OOXML's escape in a cell text (_x0041_ reads as "A"); found overlapping (_x0041_x0042_).
_ESCAPE = re.compile(r"(?=_x[0-9A-Fa-f]{4}_)")
_FORMULA = re.compile(r"^[=+\-@\t\r]")
# A formula-like start of any line of a text, for a CSV Excel opens (line ends are "\n"),
# after any double quotes: a reader that splits lines sees a line '"=…' (written '""=…')
# as a field that opens with a quote and goes on with a formula.
_LINE_FORMULA = re.compile(r'(?m)^(?="*[=+\-@\t])')
_SURROGATE = re.compile("[\ud800-\udfff]")

CSV_OPTIONS: dict[str, Any] = {"lineterminator": "\r\n", "quoting": csv.QUOTE_MINIMAL}
"""How every rdskit CSV is written (``DataFrame.to_csv(**CSV_OPTIONS)``): rows end in
``\r\n``, so a field holding ``\r`` or ``\n`` is quoted (the csv module quotes a field
holding any character of the line terminator) and no reader splits a row."""
# Characters XML 1.0 (so .xlsx) cannot hold.
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def cell_json(value: Any) -> str:
    """A list or object as the JSON text of its cell (timestamps as ISO 8601)."""
    return json.dumps(value, default=_json_default, ensure_ascii=False)


def flatten_frame(
    frame: pd.DataFrame, *, for_excel: bool = True, prefix: bool = True
) -> pd.DataFrame:
    """The frame with list/struct columns as JSON text and timestamps as naive UTC
    (renamed ``<name> (UTC)``); for a CSV Excel opens (``for_excel``), formula-like text
    prefixed with ``'``, characters XML refuses dropped and over-long text cut.

    Example:
        >>> df = pd.DataFrame({"tags": pd.Series([["a", "b"]], dtype=pd.ArrowDtype(
        ...     pa.list_(pa.string()))), "text": ["=1+1"]})
        >>> flatten_frame(df).iloc[0].tolist()
        ['["a", "b"]', "'=1+1"]
        >>> flatten_frame(df, for_excel=False).iloc[0].tolist()
        ['["a", "b"]', '=1+1']
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
            values = pa.chunked_array(column.array.__arrow_array__()).to_pylist()
            column = pd.Series(
                [None if v is None else cell_json(v) for v in values],
                index=frame.index,
                dtype=object,
            )
        elif isinstance(dtype, pd.DatetimeTZDtype) or (
            arrow is not None and pa.types.is_timestamp(arrow) and arrow.tz is not None
        ):
            column = pd.to_datetime(column).dt.tz_convert("UTC").dt.tz_localize(None)
            label = f"{name} (UTC)"
        elif isinstance(dtype, pd.CategoricalDtype):
            column = column.astype("string")
        if pd.api.types.is_string_dtype(column.dtype) or column.dtype == object:
            column = column.map(lambda v: _text(v, for_excel, prefix), na_action="ignore")
        out[label] = column
    return out


def _text(value: Any, for_excel: bool, prefix: bool = True) -> Any:
    """Text as a spreadsheet cell can hold it (see the module docs); ``prefix``: add the
    ``'`` a CSV needs before formula-like text (a workbook uses the cell type instead)."""
    if not isinstance(value, str):
        return value
    value = _SURROGATE.sub("\ufffd", value)
    if for_excel:
        value = _ILLEGAL.sub("", value)
        if prefix:
            # Line ends as "\n" first, so no line can start with a "\r" the guard misses.
            value = _LINE_FORMULA.sub("'", _LINE_END.sub("\n", value))
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

    target = Path(path)
    book = openpyxl.Workbook(write_only=True)
    posts = frame.drop(columns=["comments"]) if "comments" in frame.columns else frame
    sheets: list[tuple[str, pd.DataFrame]] = [("posts", flatten_frame(posts, prefix=False))]
    if "comments" in frame.columns and {"source", "id"} <= set(frame.columns):
        sheets.append(("comments", flatten_frame(frame.rds.comments(), prefix=False)))
    for title, table in sheets:
        sheet = book.create_sheet(title)
        sheet.append([_cell(sheet, str(c)) for c in table.columns])
        for row in table.itertuples(index=False, name=None):
            cells = []
            for value in row:
                cells.append(_cell(sheet, value))
            sheet.append(cells)
    sheet = book.create_sheet("provenance")
    sheet.append(["key", "value"])
    for key, value in provenance_rows(frame):
        sheet.append([_cell(sheet, key), _cell(sheet, _text(value, True, prefix=False))])
    book.save(target)
    return target


def _cell(sheet: Any, value: Any) -> Any:
    """A write-only cell holding ``value``; text is a text cell, never a formula."""
    from openpyxl.cell import WriteOnlyCell

    value = _excel_value(value)
    if isinstance(value, str):
        value = _LINE_END.sub("\n", value)
    cell = WriteOnlyCell(sheet, value=_unescaped(value) if isinstance(value, str) else value)
    if isinstance(value, str):
        cell.data_type = "s"  # whatever the text says, it is stored and shown as text
        if _FORMULA.match(value):
            cell.quotePrefix = True  # Excel keeps it text when the cell is edited too
    return cell


def _unescaped(text: str) -> Any:
    """``text`` as a cell value no reader decodes: OOXML reads ``_xHHHH_`` in a cell's
    text as the character HHHH (Excel shows ``_x0041_`` as "A"). The spec's escape
    (``_x005F_`` for the underscore) is decoded by Excel but left in by openpyxl, so
    ``pd.read_excel`` would read ``_x005F_x0041_``; instead such a text is written as
    runs (rich text without formatting) cut inside each ``_xHHHH_``. The spec decodes each
    run's text on its own, so no run holds a whole sequence; openpyxl joins the runs:
    both read the text as it was."""
    cuts = [match.start() + 2 for match in _ESCAPE.finditer(text)]
    if not cuts:
        return text
    from openpyxl.cell.rich_text import CellRichText

    bounds = [0, *cuts, len(text)]
    return CellRichText([text[a:b] for a, b in pairwise(bounds)])


def _excel_value(value: Any) -> Any:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and np.isnan(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    exact = isinstance(value, int | Decimal) and not isinstance(value, bool)
    if exact and len(Decimal(value).normalize().as_tuple().digits) > EXCEL_DIGITS:
        return str(value)  # a number cell would round it to a double
    return value


def write_csv(frame: pd.DataFrame, path: str | os.PathLike[str], *, excel: bool = True) -> Path:
    """Write the flattened frame as CSV (see the module docs); returns its path."""
    _check(frame)
    target = Path(path)
    flat = flatten_frame(frame, for_excel=excel)
    flat.to_csv(target, index=False, encoding="utf-8-sig" if excel else "utf-8", **CSV_OPTIONS)
    sidecar = target.with_name(target.name + ".provenance.json")
    record = {k: v for k, v in (frame.attrs.get("rdskit") or {}).items() if k != "client"}
    sidecar.write_text(json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n")
    return target
