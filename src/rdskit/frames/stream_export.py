"""``rdskit export``: a dataset's mentions streamed to disk, resumable after an interruption.

Pages are read in the service's cursor order and written in parts of ``batch_rows`` mentions
(``part-00000.parquet``, ``.jsonl`` or ``.csv``), so memory holds one part at a time however
large the dataset, plus the next page, fetched while the part is written. Each part is
written to a hidden temporary file and renamed into place; only then does
``_rdskit_export.json`` (the state: query, format, parts written, rows, the cursor of the
next page) record it. An export killed at any moment therefore leaves complete parts plus,
at most, a temporary file: ``resume=True`` deletes leftovers, reads the state and continues
from the recorded cursor, so no row is written twice and none is skipped (as long as the
dataset does not change in between: a run adding mentions meanwhile moves the service's
cursor order, and the state says when the export started).

Nothing found in ``out`` is trusted: temporary files are created with ``O_EXCL |
O_NOFOLLOW`` under random names (:func:`rdskit._files.writing`), so a planted file or
symlink is never written through; the state is read without following a symlink and
checked field by field, and every part it records must exist and hold the rows it says,
before anything is resumed. A state that does not hold (truncated, wrongly typed, a part
missing or of another length, a cursor reset to null with parts written, which would
write them again) ends the export with one :class:`~rdskit.errors.InvalidParameter`
naming the problem.

Formats: ``parquet`` (the mentions frame's Arrow columns, provenance in each file's
schema; ``rdskit.frames.read_parquet(dir)``, DuckDB ``read_parquet('dir/*.parquet',
union_by_name=true)``, Polars and plain pandas read the directory), ``jsonl`` (one wire
mention per line, exactly as the service sent it) and ``csv`` (the flattened frame of
``df.rds.to_csv``: lists and objects as JSON, fields holding a line break quoted, rows
ending in ``\r\n``; each part has its header, and parts may differ in key-named columns
such as ``vibe_<key>``). A CSV is written for spreadsheets by default (``excel_safe=True``,
``--excel-safe``: every line of a text that a spreadsheet would run as a formula is
prefixed with ``'``, line ends are ``\n``, as ``df.rds.to_csv(excel=True)`` does, without
the BOM); ``excel_safe=False`` (``--no-excel-safe``) writes every text exactly as it is.
Files starting with ``_`` or ``.`` are ignored by pyarrow, DuckDB and Polars globs.

Example:
    >>> export_mentions(client, "ds_1", "oat/", "parquet")  # doctest: +SKIP
    ExportResult(rows=48210, parts=10, ...)
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import IO, Any, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from rdskit._files import read_private, writing
from rdskit._safe import one_line
from rdskit.errors import InvalidParameter
from rdskit.frames._arrow import to_frame
from rdskit.frames._pages import PAGE_SIZE
from rdskit.frames.exports import CSV_OPTIONS, flatten_frame
from rdskit.frames.mentions import mentions_table
from rdskit.frames.provenance import fetch_record, schema_metadata

__all__ = ["BATCH_ROWS", "FORMATS", "STATE_FILE", "ExportResult", "export_mentions"]

FORMATS = ("parquet", "jsonl", "csv")
STATE_FILE = "_rdskit_export.json"
T = TypeVar("T")
BATCH_ROWS = 5_000
_SURROGATE = re.compile("[\ud800-\udfff]")
"""Mentions per part: what memory holds at once, and at most what a resume reads again."""


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: ``rows`` mentions in ``parts`` files under ``path``."""

    path: Path
    format: str
    rows: int
    parts: int
    resumed: bool


def _atomic_write(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """``write`` a handle whose bytes replace ``path`` once complete (never through a
    planted file or symlink: see :func:`rdskit._files.writing`)."""
    with writing(path) as handle:
        write(handle)


def _save_state(out: Path, state: dict[str, Any]) -> None:
    text = json.dumps(state, indent=2, sort_keys=True) + "\n"

    def write(handle: IO[bytes]) -> None:
        handle.write(text.encode("utf-8"))

    _atomic_write(out / STATE_FILE, write)


def _write_part(
    rows: list[Any],
    handle: IO[bytes],
    *,
    fmt: str,
    meta: dict[bytes, bytes],
    excel_safe: bool,
) -> None:
    if fmt == "jsonl":
        for row in rows:
            wire = row.to_wire() if hasattr(row, "to_wire") else row
            line = json.dumps(wire, ensure_ascii=False, sort_keys=True) + "\n"
            # A lone surrogate as the JSON escape it came as (UTF-8 cannot hold it).
            line = _SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", line)
            handle.write(line.encode("utf-8"))
        return
    table = mentions_table(rows)
    if fmt == "parquet":
        pq.write_table(table.replace_schema_metadata(meta), handle)
        return

    flat = flatten_frame(to_frame(table, "mentions"), for_excel=excel_safe)
    flat.to_csv(handle, index=False, encoding="utf-8", mode="wb", **CSV_OPTIONS)


def _one_ahead(pages: Iterator[T]) -> Iterator[T]:
    """``pages``, each next one fetched in a worker thread while the caller handles this
    one (writing a part): the request waiting on the service or the rate limiter overlaps
    the writing. One page ahead, never more: memory holds a part plus one page, and the
    limiter (shared by every thread) still spaces the requests."""
    with ThreadPoolExecutor(1, thread_name_prefix="rdskit-export") as worker:
        ahead = worker.submit(next, pages, None)
        while (page := ahead.result()) is not None:
            ahead = worker.submit(next, pages, None)
            yield page


def _start_state(
    out: Path, dataset_id: str, fmt: str, resume: bool, excel_safe: bool
) -> tuple[dict[str, Any], bool]:
    state_path = out / STATE_FILE
    if state_path.exists() or state_path.is_symlink():
        state = _read_state(out)
        if not resume:
            raise InvalidParameter(
                "out",
                f"{out} holds an export already ({state['rows']} rows); "
                "add --resume to continue it, or choose an empty directory",
            )
        if (state["dataset_id"], state["format"]) != (dataset_id, fmt):
            raise InvalidParameter(
                "out",
                f"{out} holds an export of {one_line(state['dataset_id'])} as "
                f"{one_line(state['format'])}, not {dataset_id} as {fmt}",
            )
        if fmt == "csv" and state.get("excel_safe", False) != excel_safe:
            wanted = "--excel-safe" if state.get("excel_safe", False) else "--no-excel-safe"
            raise InvalidParameter("out", f"{out} holds a csv export written with {wanted}")
        # Anything not recorded in the state is a part cut short by the interruption.
        recorded = set(state["parts"])
        for leftover in out.iterdir():
            ours = leftover.name.startswith((".part-", "part-", f".{STATE_FILE}."))
            if ours and leftover.name not in recorded:
                leftover.unlink()
        _check_parts(out, state)
        return state, True
    if any(out.iterdir()) if out.exists() else False:
        raise InvalidParameter("out", f"{out} is not empty: export into a new directory")
    out.mkdir(parents=True, exist_ok=True)
    state = {
        "dataset_id": dataset_id,
        "format": fmt,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "parts": [],
        "part_rows": [],
        "rows": 0,
        "cursor": None,
        "complete": False,
    }
    if fmt == "csv":
        state["excel_safe"] = excel_safe
    _save_state(out, state)
    return state, False


# The state's fields and their types; "part_rows" and "excel_safe" are absent from the
# states of earlier versions (their parts are counted against "rows" only).
_STATE_TYPES: dict[str, type | tuple[type, ...]] = {
    "dataset_id": str,
    "format": str,
    "started_at": str,
    "parts": list,
    "rows": int,
    "cursor": (str, type(None)),
    "complete": bool,
}


def _damaged(out: Path, why: str) -> InvalidParameter:
    return InvalidParameter(
        "out",
        f"{out / STATE_FILE} is damaged ({why}); nothing was written: export into a new directory",
    )


def _read_state(out: Path) -> dict[str, Any]:
    """The state in ``out``, read without following a symlink and checked field by field."""
    try:
        state = json.loads(read_private(out / STATE_FILE).decode("utf-8"))
    except OSError as exc:
        raise _damaged(out, f"cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:  # not UTF-8, not JSON
        raise _damaged(out, f"not JSON: {one_line(exc)}") from None
    if not isinstance(state, dict):
        raise _damaged(out, f"a JSON {type(state).__name__}, not an object")
    for key, kind in _STATE_TYPES.items():
        value = state.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise _damaged(out, f"{key!r} is {one_line(repr(value))[:80]}")
    if state["format"] not in FORMATS or state["rows"] < 0:
        raise _damaged(out, f"format {one_line(state['format'])[:20]}, rows {state['rows']}")
    names = [f"part-{i:05d}.{state['format']}" for i in range(len(state["parts"]))]
    if state["parts"] != names:
        raise _damaged(out, "its parts are not part-00000, part-00001... in order")
    counts = state.get("part_rows")
    if counts is not None and not (
        isinstance(counts, list)
        and len(counts) == len(names)
        and all(type(n) is int and n > 0 for n in counts)
        and sum(counts) == state["rows"]
    ):
        raise _damaged(out, "'part_rows' does not match its parts and rows")
    if state["parts"] and state["cursor"] is None and not state["complete"]:
        # The cursor is null only before the first page or once the last one is written
        # (then "complete" is true too): resuming would write every part again.
        raise _damaged(out, "its cursor was reset to null after parts were written")
    if state.get("excel_safe") not in (None, True, False):
        raise _damaged(out, "'excel_safe' is not true or false")
    return state


def _rows_in(part: Path, fmt: str) -> int:
    """The rows a part file holds (parquet: its footer; jsonl: lines; csv: records)."""
    if fmt == "parquet":
        return int(pq.ParquetFile(part).metadata.num_rows)
    with part.open("rb") as handle:
        if fmt == "jsonl":
            return sum(1 for line in handle if line.strip())
    with part.open(encoding="utf-8", newline="") as text:
        return max(sum(1 for _ in csv.reader(text)) - 1, 0)  # less the header


def _check_parts(out: Path, state: dict[str, Any]) -> None:
    """Every part the state records exists as a file and holds the rows it says (the
    counts are recorded in the state from here on, if an earlier version did not)."""
    counts = state.get("part_rows") or [None] * len(state["parts"])
    found = 0
    counted = []
    for name, expected in zip(state["parts"], counts, strict=True):
        part = out / name
        if part.is_symlink() or not part.is_file():
            raise _damaged(out, f"its part {name} is missing")
        try:
            rows = _rows_in(part, state["format"])
        except (OSError, ValueError, csv.Error, pa.ArrowException) as exc:
            raise _damaged(out, f"its part {name} cannot be read: {one_line(exc)[:120]}") from None
        if expected is not None and rows != expected:
            raise _damaged(out, f"its part {name} holds {rows} rows, the state says {expected}")
        found += rows
        counted.append(rows)
    if found != state["rows"]:
        raise _damaged(out, f"its parts hold {found} rows, the state says {state['rows']}")
    state["part_rows"] = counted


def export_mentions(
    client: Any,
    dataset_id: str,
    out: str | os.PathLike[str],
    fmt: str = "parquet",
    *,
    resume: bool = False,
    batch_rows: int = BATCH_ROWS,
    progress: Callable[[int], None] | None = None,
    excel_safe: bool = True,
) -> ExportResult:
    """Stream every mention of ``dataset_id`` into ``out`` (see the module docs).

    ``progress(rows)`` is called after each part; ``excel_safe`` (csv only): a CSV for
    spreadsheets, formula-like lines prefixed with ``'``. Raises
    :class:`~rdskit.InvalidParameter` for an unknown format, a directory holding other
    data, ``--resume`` of another export, or a state in ``out`` that does not hold.
    """
    if fmt not in FORMATS:
        raise InvalidParameter("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if not isinstance(batch_rows, int) or batch_rows < 1:
        raise InvalidParameter(
            "batch_rows", f"must be a whole number, 1 or more, not {batch_rows!r}"
        )
    target = Path(out)
    dataset = client.datasets.get(dataset_id)  # NotFound names it before anything is written
    state, resumed = _start_state(target, dataset_id, fmt, resume, excel_safe)
    if state.get("complete"):
        return ExportResult(target, fmt, state["rows"], len(state["parts"]), resumed)

    query = {"dataset_ids": [dataset_id]}
    record = fetch_record(
        client,
        "mentions",
        query,
        None,
        datasets=[{"id": dataset.id, "name": dataset.name}],
        dataset_runs=True,
    )
    provenance = schema_metadata({"kind": "mentions", "fetches": [record]})
    first = client.mentions.list(**query, limit=PAGE_SIZE, cursor=state["cursor"])
    if dataset.mentions_count is not None:  # a server paging past it forever is stopped
        first = first.expecting(max(dataset.mentions_count - state["rows"], 0), PAGE_SIZE)
    pending: list[Any] = []
    for page in _one_ahead(first.pages()):  # one walk: a server repeating a cursor stops it
        pending += page.data
        following = page.cursor if page.has_next and page.cursor else None
        if pending and (len(pending) >= batch_rows or following is None):
            name = f"part-{len(state['parts']):05d}.{fmt}"
            write = partial(_write_part, pending, fmt=fmt, meta=provenance, excel_safe=excel_safe)
            _atomic_write(target / name, write)
            state["parts"].append(name)
            state["part_rows"].append(len(pending))
            state["rows"] += len(pending)
            state["cursor"] = following
            state["complete"] = following is None  # one save: never null and incomplete
            _save_state(target, state)
            pending = []
            if progress is not None:
                progress(state["rows"])
    state["complete"] = True
    _save_state(target, state)
    return ExportResult(target, fmt, state["rows"], len(state["parts"]), resumed)
