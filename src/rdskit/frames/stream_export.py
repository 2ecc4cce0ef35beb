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

Formats: ``parquet`` (the mentions frame's Arrow columns, provenance in each file's
schema; ``rdskit.frames.read_parquet(dir)``, DuckDB ``read_parquet('dir/*.parquet',
union_by_name=true)``, Polars and plain pandas read the directory), ``jsonl`` (one wire
mention per line, exactly as the service sent it) and ``csv`` (the flattened frame of
``df.rds.to_csv(excel=False)``: lists and objects as JSON; each part has its header, and
parts may differ in key-named columns such as ``vibe_<key>``). Files starting with ``_``
or ``.`` are ignored by pyarrow, DuckDB and Polars globs.

Example:
    >>> export_mentions(client, "ds_1", "oat/", "parquet")  # doctest: +SKIP
    ExportResult(rows=48210, parts=10, ...)
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pyarrow.parquet as pq

from rdskit.errors import InvalidParameter
from rdskit.frames._pages import PAGE_SIZE
from rdskit.frames.mentions import mentions_table

__all__ = ["BATCH_ROWS", "FORMATS", "STATE_FILE", "ExportResult", "export_mentions"]

FORMATS = ("parquet", "jsonl", "csv")
STATE_FILE = "_rdskit_export.json"
T = TypeVar("T")
BATCH_ROWS = 5_000
"""Mentions per part: what memory holds at once, and at most what a resume reads again."""


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: ``rows`` mentions in ``parts`` files under ``path``."""

    path: Path
    format: str
    rows: int
    parts: int
    resumed: bool


def _atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    write(temporary)
    os.replace(temporary, path)


def _save_state(out: Path, state: dict[str, Any]) -> None:
    def write(target: Path) -> None:
        target.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    _atomic_write(out / STATE_FILE, write)


def _write_part(rows: list[Any], target: Path, *, fmt: str, meta: dict[bytes, bytes]) -> None:
    if fmt == "jsonl":
        with target.open("w", encoding="utf-8") as handle:
            for row in rows:
                wire = row.to_wire() if hasattr(row, "to_wire") else row
                handle.write(json.dumps(wire, ensure_ascii=False, sort_keys=True) + "\n")
        return
    table = mentions_table(rows)
    if fmt == "parquet":
        pq.write_table(table.replace_schema_metadata(meta), target)
        return
    from rdskit.frames._arrow import to_frame
    from rdskit.frames.exports import flatten_frame

    flatten_frame(to_frame(table, "mentions"), for_excel=False).to_csv(
        target, index=False, encoding="utf-8"
    )


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


def _start_state(out: Path, dataset_id: str, fmt: str, resume: bool) -> tuple[dict[str, Any], bool]:
    state_path = out / STATE_FILE
    if state_path.exists():
        state: dict[str, Any] = json.loads(state_path.read_text(encoding="utf-8"))
        if not resume:
            raise InvalidParameter(
                "out",
                f"{out} holds an export already ({state.get('rows', 0)} rows); "
                "add --resume to continue it, or choose an empty directory",
            )
        if (state.get("dataset_id"), state.get("format")) != (dataset_id, fmt):
            raise InvalidParameter(
                "out",
                f"{out} holds an export of {state.get('dataset_id')} as {state.get('format')}, "
                f"not {dataset_id} as {fmt}",
            )
        # Anything not recorded in the state is a part cut short by the interruption.
        recorded = set(state["parts"])
        for leftover in out.iterdir():
            ours = leftover.name.startswith((".part-", "part-"))
            if ours and leftover.name not in recorded:
                leftover.unlink()
        return state, True
    if any(out.iterdir()) if out.exists() else False:
        raise InvalidParameter("out", f"{out} is not empty: export into a new directory")
    out.mkdir(parents=True, exist_ok=True)
    state = {
        "dataset_id": dataset_id,
        "format": fmt,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "parts": [],
        "rows": 0,
        "cursor": None,
        "complete": False,
    }
    _save_state(out, state)
    return state, False


def export_mentions(
    client: Any,
    dataset_id: str,
    out: str | os.PathLike[str],
    fmt: str = "parquet",
    *,
    resume: bool = False,
    batch_rows: int = BATCH_ROWS,
    progress: Callable[[int], None] | None = None,
) -> ExportResult:
    """Stream every mention of ``dataset_id`` into ``out`` (see the module docs).

    ``progress(rows)`` is called after each part. Raises :class:`~rdskit.InvalidParameter`
    for an unknown format, a directory holding other data, or ``--resume`` of another
    export.
    """
    if fmt not in FORMATS:
        raise InvalidParameter("format", f"must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if not isinstance(batch_rows, int) or batch_rows < 1:
        raise InvalidParameter(
            "batch_rows", f"must be a whole number, 1 or more, not {batch_rows!r}"
        )
    target = Path(out)
    dataset = client.datasets.get(dataset_id)  # NotFound names it before anything is written
    state, resumed = _start_state(target, dataset_id, fmt, resume)
    if state.get("complete"):
        return ExportResult(target, fmt, state["rows"], len(state["parts"]), resumed)

    from rdskit.frames.provenance import fetch_record, schema_metadata

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
    pending: list[Any] = []
    for page in _one_ahead(first.pages()):  # one walk: a server repeating a cursor stops it
        pending += page.data
        following = page.cursor if page.has_next and page.cursor else None
        if pending and (len(pending) >= batch_rows or following is None):
            name = f"part-{len(state['parts']):05d}.{fmt}"
            _atomic_write(target / name, partial(_write_part, pending, fmt=fmt, meta=provenance))
            state["parts"].append(name)
            state["rows"] += len(pending)
            state["cursor"] = following
            _save_state(target, state)
            pending = []
            if progress is not None:
                progress(state["rows"])
    state["complete"] = True
    _save_state(target, state)
    return ExportResult(target, fmt, state["rows"], len(state["parts"]), resumed)
