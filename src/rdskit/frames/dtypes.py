"""rdskit frames for other tools: files any pandas reads back, frames of plain dtypes.

:func:`portable_table` is the Arrow table rdskit writes for a frame: its provenance in
the schema, and pandas metadata that every pandas parses (the dtype names pandas cannot
read back, ``list<...>[pyarrow]`` and ``decimal128(...)[pyarrow]``, are written as
``object``: pandas then converts those columns natively, lists to arrays, and rdskit's
own reader restores the catalogue's dtypes). :func:`numpy_frame` turns a frame into NumPy
and object dtypes for tools that know no Arrow dtype.

Example:
    >>> import rdskit.frames
    >>> df = rdskit.frames.mentions_frame([{"source": "reddit", "id": "t3_a",
    ...     "num_likes": 5, "mentioned_brands": ["Oatly"]}])
    >>> plain = numpy_frame(df)
    >>> plain["num_likes"].dtype, plain.loc[0, "mentioned_brands"]
    (dtype('int64'), ('Oatly',))
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq

from rdskit.frames.provenance import schema_metadata

__all__ = ["numpy_frame", "portable_metadata", "portable_table", "write_feather", "write_parquet"]

_PANDAS = b"pandas"


def _pandas_parses(name: str) -> bool:
    """Whether any pandas (2.2 on) parses the dtype name it wrote for a column."""
    if not name.endswith("[pyarrow]") or name == "string[pyarrow]":
        return True
    try:
        pa.type_for_alias(name[: -len("[pyarrow]")])
    except ValueError:
        return False
    return True


def portable_metadata(table: pa.Table) -> pa.Table:
    """``table`` with pandas metadata every pandas reads: unparseable dtype names become
    ``object`` (see the module docs).

    Example:
        >>> frame = pd.DataFrame({"a": pd.Series([["x"]], dtype=pd.ArrowDtype(
        ...     pa.list_(pa.string())))})
        >>> table = portable_metadata(pa.Table.from_pandas(frame))
        >>> json.loads(table.schema.metadata[b"pandas"])["columns"][0]["numpy_type"]
        'object'
    """
    metadata = table.schema.metadata or {}
    if _PANDAS not in metadata:
        return table
    described = json.loads(metadata[_PANDAS])
    for column in described.get("columns", []):
        if not _pandas_parses(str(column.get("numpy_type"))):
            column["numpy_type"] = "object"
    return table.replace_schema_metadata({**metadata, _PANDAS: json.dumps(described).encode()})


def portable_table(frame: pd.DataFrame) -> pa.Table:
    """The frame as an Arrow table with its provenance and portable pandas metadata.

    The index is kept only when it is not the default ``RangeIndex`` (as pandas does).
    """
    table = pa.Table.from_pandas(frame)
    for i, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(i, field, _zeroed(table.column(i)))
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), **schema_metadata(frame)}
    )
    return portable_metadata(table)


def _zeroed(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A dictionary column whose null slots hold index 0, not pandas' -1 code: Polars
    reads the index under a null and refuses -1 ("must fit in a usize")."""
    chunks = []
    for chunk in column.chunks:
        if chunk.null_count:
            missing = chunk.is_null().to_numpy(zero_copy_only=False)
            codes = np.where(missing, 0, chunk.indices.fill_null(0).to_numpy())
            indices = pa.array(codes, chunk.indices.type, mask=missing)
            chunk = pa.DictionaryArray.from_arrays(indices, chunk.dictionary)
        chunks.append(chunk)
    return pa.chunked_array(chunks, column.type)


def write_parquet(frame: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """One parquet file of the frame (:func:`portable_table`); returns its path."""
    pq.write_table(portable_table(frame), path)
    return Path(path)


def write_feather(frame: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """One feather (Arrow IPC) file of the frame (:func:`portable_table`); returns its path."""
    feather.write_feather(portable_table(frame), path)
    return Path(path)


def _plain(values: Any) -> Any:
    """Arrow values as hashable, sortable Python: lists as tuples, structs as tuples of
    ``(field, value)`` pairs."""
    if isinstance(values, list):
        return tuple(_plain(v) for v in values)
    if isinstance(values, dict):
        return tuple((k, _plain(v)) for k, v in values.items())
    return values


def numpy_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with NumPy or object dtypes only (``df.rds.to_numpy_dtypes()``).

    Integers are ``int64`` (``float64`` with NaN when a value is missing), floats
    ``float64``, booleans ``bool`` (``object`` with None when one is missing), text,
    decimals and categories ``object`` (None when missing), lists tuples and structs
    tuples of ``(field, value)`` pairs, so ``drop_duplicates``, ``nunique`` and
    ``sort_values`` work on every column; timestamps stay ``datetime64[us, UTC]``.
    Attributes (provenance) are kept.
    """
    columns: dict[Any, Any] = {}
    for name in frame.columns:
        column = frame[name]
        dtype = column.dtype
        if isinstance(dtype, pd.ArrowDtype):
            array = pa.chunked_array(column.array.__arrow_array__())
            kind = dtype.pyarrow_dtype
            if pa.types.is_nested(kind):
                values: Any = np.empty(len(column), dtype=object)
                values[:] = [_plain(v) for v in array.to_pylist()]
            elif pa.types.is_decimal(kind):
                values = np.array(array.to_pylist(), dtype=object)
            else:
                values = array.to_numpy()
                values = values.astype(object) if pa.types.is_string(kind) else values
            # dtype given: pandas 3 would infer its own ``str`` dtype for text.
            columns[name] = pd.Series(values, index=frame.index, name=name, dtype=values.dtype)
        elif isinstance(dtype, pd.CategoricalDtype):
            values = np.array(column.astype(object).where(column.notna(), None), dtype=object)
            columns[name] = pd.Series(values, index=frame.index, name=name, dtype=object)
        else:
            columns[name] = column
    plain = pd.DataFrame(columns, index=frame.index)
    plain.attrs = dict(frame.attrs)
    return plain
