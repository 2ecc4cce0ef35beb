"""Stream any number of mentions to partitioned parquet, and read it back.

:func:`mentions_to_parquet` holds one batch of mentions at a time (``batch_rows``) and
writes each batch as its own files under hive partitions (``source=reddit/...``), so
memory stays bounded however many mentions match. Files of different batches may differ
in their key-named columns (``vibe_<key>``...): :func:`read_parquet` unifies them and
gives back the frame's exact dtypes; DuckDB (``union_by_name=true``) and Polars
(``missing_columns="insert"``) read the same files.

Example:
    >>> n = mentions_to_parquet(client, "oat.parquet", dataset_ids=["ds_1"])  # doctest: +SKIP
    >>> df = read_parquet("oat.parquet")  # doctest: +SKIP
    >>> duckdb.sql("SELECT source, count(*) FROM read_parquet('oat.parquet/**/*.parquet', "
    ...            "hive_partitioning=true, union_by_name=true) GROUP BY 1")  # doctest: +SKIP
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from rdskit.frames import _arrow
from rdskit.frames._pages import frame_datasets, mention_pages
from rdskit.frames.columns import FRAMES, MENTIONS
from rdskit.frames.fetch import parameter_names
from rdskit.frames.mentions import mentions_table
from rdskit.frames.provenance import (
    fetch_record,
    from_schema,
    merge_records,
    restore,
    schema_metadata,
)

__all__ = ["BATCH_ROWS", "mentions_to_parquet", "read_parquet"]

BATCH_ROWS = 10_000
"""Mentions held in memory before a batch is written."""


def _write(
    table: pa.Table,
    path: Path,
    partition_by: Sequence[str],
    batch: int,
    provenance: Mapping[bytes, bytes],
) -> None:
    # Partition values become directory names: write them as plain strings.
    for name in partition_by:
        table = table.set_column(
            table.schema.get_field_index(name), name, table[name].cast(pa.string())
        )
    # Every file carries the provenance (Arrow schema metadata): read_parquet merges them.
    ds.write_dataset(
        table.replace_schema_metadata({**(table.schema.metadata or {}), **provenance}),
        path,
        format="parquet",
        partitioning=list(partition_by) or None,
        partitioning_flavor="hive" if partition_by else None,
        basename_template=f"part-{batch:05d}-{{i}}.parquet",
        # The first batch refuses to mix with files already there; later ones add theirs.
        existing_data_behavior="error" if batch == 0 else "overwrite_or_ignore",
    )


def mentions_to_parquet(
    client: Any,
    path: str | os.PathLike[str],
    *,
    partition_by: Sequence[str] = ("source",),
    batch_rows: int = BATCH_ROWS,
    **query: Any,
) -> int:
    """Write every mention matching ``query`` (the arguments of ``client.mentions.list``)
    to a parquet dataset at ``path``; returns how many were written.

    ``path`` must not hold data yet. Memory holds at most ``batch_rows`` mentions (plus
    one page); each batch becomes one file per partition value.

    Example:
        >>> mentions_to_parquet(client, "/data/oat", dataset_ids=["ds_1"],
        ...                     batch_rows=5_000)  # doctest: +SKIP
        48210
    """
    names = parameter_names(client, query.get("parameter_ids"))
    target = Path(path)
    written = batches = 0
    pending: list[Any] = []
    provenance: dict[bytes, bytes] = {}

    def flush() -> None:
        nonlocal written, batches, pending, provenance
        table = mentions_table(pending, names)
        if not provenance:
            datasets = frame_datasets(table, query.get("dataset_ids"))
            fetch = fetch_record(
                client, "mentions", query, None, datasets=datasets, dataset_runs=True
            )
            provenance = schema_metadata({"kind": "mentions", "fetches": [fetch]})
        _write(table, target, partition_by, batches, provenance)
        written, batches, pending = written + table.num_rows, batches + 1, []

    for page in mention_pages(client, query):
        pending += page
        if len(pending) >= batch_rows:
            flush()
    if pending:
        flush()
    return written


def read_parquet(path: str | os.PathLike[str]) -> pd.DataFrame:
    """An rdskit frame from a parquet file or a (hive-partitioned) dataset directory
    written by rdskit (or by ``df.to_parquet``): same columns in the same order, same
    dtypes, the same index as ``pd.read_parquet`` gives (a filtered or sorted frame keeps
    its row labels), its provenance. The frame kind comes from the stored provenance
    (mentions when none is stored). Files that differ in their columns (the batches of an
    export) or hive partitions are put in the catalogue's column order.

    Example:
        >>> df = read_parquet("/data/oat")  # doctest: +SKIP
        >>> df.dtypes["source"], df.dtypes["created_at"]  # doctest: +SKIP
        (CategoricalDtype(...), datetime64[us, UTC])
    """
    dataset = ds.dataset(path, format="parquet", partitioning="hive")
    # Batches may differ in key-named columns: read every file footer, not only the first.
    fragments = list(dataset.get_fragments())
    files = [fragment.physical_schema for fragment in fragments]
    stored = [record for record in map(from_schema, files) if record]
    partitions = dataset.partitioning.schema if dataset.partitioning else pa.schema([])
    schema = pa.unify_schemas([*files, partitions]) if files else dataset.schema
    table = ds.dataset(path, schema=schema, format="parquet", partitioning="hive").to_table()
    record = merge_records(stored) if len(stored) > 1 else next(iter(stored), {})
    spec = next((s for s in FRAMES if s.name == record.get("kind")), MENTIONS)
    # A single file's own key-value metadata (the physical schema leaves ARROW:schema out).
    metadata = fragments[0].metadata.metadata if len(files) == 1 else None
    # pandas' own metadata (a df.to_parquet file) gives the index only: the catalogue has
    # the dtypes, and pandas cannot parse every dtype name it wrote there.
    table, index = _split_index(table, metadata)
    table = table.replace_schema_metadata(None)
    # (A single file's "partitioning" schema is its own: only names no file has are keys.)
    keys = [name for name in partitions.names if not any(name in f.names for f in files)]
    one_layout = not keys and len({tuple(f.names) for f in files}) == 1
    if not one_layout:
        table = table.select(_arrow.order_columns(table.column_names, spec))
    written = _written_types(metadata)
    for i, name in enumerate(table.column_names):
        if name in spec:
            table = table.set_column(i, name, _arrow.cast(table[name], spec[name].arrow))
        elif (kind := written.get(name)) is not None and pa.types.is_timestamp(kind):
            # Parquet has no second unit: a timestamp[s] column is stored in ms, which
            # pyarrow 20 gives back as ms; the Arrow schema written beside it has the unit.
            table = table.set_column(i, name, table[name].cast(kind))
    frame = _arrow.to_frame(table, spec.name)
    if index is not None:
        frame.index = index
    return restore(frame, record)


def _written_types(metadata: Mapping[bytes, bytes] | None) -> dict[str, pa.DataType]:
    """Each column's Arrow type as written (the ``ARROW:schema`` pyarrow stores in a
    parquet file); empty when the file has none or it cannot be read."""
    encoded = (metadata or {}).get(b"ARROW:schema")
    if not encoded:
        return {}
    try:
        schema = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(encoded)))
    except (ValueError, pa.ArrowException):
        return {}
    return {field.name: field.type for field in schema}


def _split_index(
    table: pa.Table, metadata: Mapping[bytes, bytes] | None
) -> tuple[pa.Table, pd.Index | None]:
    """``table`` without the index columns pandas stored (``__index_level_0__``...), and
    the index pandas' metadata describes: a range, or those columns (None: the default)."""
    described = json.loads((metadata or {}).get(b"pandas", b"{}"))
    stored = described.get("index_columns") or []
    if len(stored) == 1 and isinstance(stored[0], dict) and stored[0].get("kind") == "range":
        bounds = stored[0]
        index = pd.RangeIndex(
            bounds["start"], bounds["stop"], bounds["step"], name=bounds.get("name")
        )
        return table, index if len(index) == table.num_rows else None
    columns = [name for name in stored if isinstance(name, str)]
    if not columns or len(columns) != len(stored) or not set(columns) <= set(table.column_names):
        return table, None
    names = {c.get("field_name"): c.get("name") for c in described.get("columns", [])}
    levels = table.select(columns).replace_schema_metadata(None).to_pandas()
    levels.columns = [names.get(c) for c in columns]
    index = pd.MultiIndex.from_frame(levels) if len(columns) > 1 else pd.Index(levels.iloc[:, 0])
    return table.drop_columns(columns), index
