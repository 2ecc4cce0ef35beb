"""The column-wise engine behind every loader: wire dicts -> Arrow -> pandas.

Speed comes from letting Arrow's C++ converter read a batch of wire dicts in one pass
against a declared wire schema (``pa.array(rows, type=struct)``), then deriving every flat
column with vectorised compute (``struct_field``, casts, list kernels); no Python loop
touches individual values. Python only loops when the input breaks the wire schema (a
number where the wire sends a string, an ISO string where it sends Unix seconds...): that
field alone is then coerced value by value.

That converter's walk over the Python objects is about 90% of a mentions frame's time
(``benchmarks/bench_flatten.py``); everything after it is a few milliseconds per chunk.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rdskit.frames._surrogates import Replaced, repair_settings, repaired_rows, repairs_of
from rdskit.frames.columns import FRAMES, Column, Family, FrameSpec, pandas_dtype
from rdskit.frames.provenance import add_step
from rdskit.models._base import parse_datetime

__all__ = [
    "build_table",
    "cast",
    "coerce",
    "column",
    "combine",
    "dict_columns",
    "distinct_rows",
    "dominant",
    "entries",
    "field_at",
    "first_indices",
    "first_of",
    "fixed_categories",
    "from_frame",
    "list_field",
    "map_columns",
    "offsets",
    "order_columns",
    "regroup",
    "scatter",
    "single",
    "struct_array",
    "struct_paths",
    "to_frame",
    "unique",
    "unique_name",
    "wire_rows",
]

_CONVERSION_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError)


def wire_rows(items: Iterable[Any]) -> list[Mapping[str, Any]]:
    """Wire dicts from raw dicts or rdskit models (``to_wire()``), or any iterable of them
    (a ``SyncPage`` is walked to its last page)."""
    # The common case, checked in C: a list of plain dicts is used as it is.
    if type(items) is list and set(map(type, items)) <= {dict}:
        return items
    rows: list[Mapping[str, Any]] = []
    for item in items:
        if isinstance(item, dict):
            rows.append(item)
        elif isinstance(item, Mapping):
            # Arrow's converter reads dicts only; another mapping would send its whole
            # chunk down the value-by-value path.
            rows.append(dict(item))
        elif hasattr(item, "to_wire"):
            rows.append(item.to_wire())
        else:
            raise TypeError(f"expected wire dicts or rdskit models, got {type(item).__name__}")
    return rows


def string_bytes(texts: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The bytes of a ``string`` array's values (a view, not a copy) and where each value
    begins in them (``len(texts) + 1`` offsets, the first 0); a null's bytes, if it has
    any, are there too.

    Example:
        >>> raw, offsets = string_bytes(pa.array(["ab", "c"]).slice(1))
        >>> raw.tobytes(), offsets.tolist()
        (b'c', [0, 1])
    """
    if not len(texts):
        return np.zeros(0, np.uint8), np.zeros(1, np.int32)
    offsets = np.frombuffer(texts.buffers()[1], np.int32, len(texts) + 1, texts.offset * 4)
    first, last = int(offsets[0]), int(offsets[-1])
    data = texts.buffers()[2]
    if data is None or last == first:
        return np.zeros(0, np.uint8), np.zeros(len(texts) + 1, np.int32)
    return np.frombuffer(data, np.uint8, last - first, first), offsets - first


def first_indices(keys: Sequence[pa.Array | pa.ChunkedArray]) -> pa.Array | None:
    """Indices of the first row of each distinct combination of ``keys`` (in row order);
    None when no combination repeats."""
    first, codes = distinct_rows(keys)
    return None if len(first) == len(codes) else first


def distinct_rows(keys: Sequence[pa.Array | pa.ChunkedArray]) -> tuple[pa.Array, pa.Array]:
    """The first row of each distinct combination of ``keys`` (in row order) and, for
    each row, the number of its combination (its position in the first); a null is not
    an empty string.

    Example:
        >>> first, codes = distinct_rows([pa.array(["a", "b", "a"])])
        >>> first.to_pylist(), codes.to_pylist()
        ([0, 1], [0, 1, 0])
    """
    # Each key hashed on its own (one pass each, in C), its codes folded into one int64
    # per row (codes * width + own), and those numbered the same way: no joined strings
    # are built. When the next fold could overflow, the row codes are numbered first
    # (then fewer than 2**31 and so is a width: the fold fits).
    codes: pa.Array | None = None
    span = 1  # how many values the row codes may take
    for key in keys:
        if isinstance(key, pa.ChunkedArray):
            key = key.combine_chunks()
        own = _codes(key.cast(pa.string()) if pa.types.is_dictionary(key.type) else key)
        width = pc.max(own).as_py() + 1 if len(own) else 1
        if codes is None:
            codes, span = own, width
            continue
        if span * width >= 2**62:
            codes = _codes(codes)
            span = pc.max(codes).as_py() + 1
        fold = pc.multiply_checked(codes.cast(pa.int64()), width)  # checked: never wraps
        codes = pc.add_checked(fold, own.cast(pa.int64()))
        span *= width
    assert codes is not None, "distinct_rows needs at least one key"
    if len(keys) > 1:
        codes = _codes(codes)
    # Codes are numbered in order of first appearance: a row is its combination's first
    # exactly where the running maximum of the codes grows.
    numbers = codes.to_numpy(zero_copy_only=False)
    grows = np.empty(len(numbers), dtype=bool)
    if len(numbers):
        top = np.maximum.accumulate(numbers)
        grows[0] = True
        grows[1:] = top[1:] > top[:-1]
    first = np.flatnonzero(grows)
    return pa.array(first), codes


def _codes(values: pa.Array) -> pa.Array:
    """Each value's number in order of first appearance (a null is a value of its own)."""
    return pc.dictionary_encode(values, null_encoding="encode").indices


def unique(rows: pa.StructArray, key: Sequence[str]) -> pa.StructArray:
    """``rows`` without repeats of the ``key`` fields (the first occurrence wins)."""
    keep = first_indices([field_at(rows, [name]) for name in key])
    return rows if keep is None else rows.take(keep)


# --- value coercion (the slow path) --------------------------------------------------------


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return None if math.isnan(number) else number


def _python_values(array: pa.Array) -> list[Any]:
    """The values as Python objects; None for those Python cannot hold (a timestamp after
    the year 9999)."""
    try:
        values: list[Any] = array.to_pylist()
        return values
    except (OverflowError, ValueError):
        return [_python_value(scalar) for scalar in array]


def _python_value(scalar: pa.Scalar) -> Any:
    try:
        return scalar.as_py()
    except (OverflowError, ValueError):
        return None


def coerce(value: Any, arrow: pa.DataType) -> Any:
    """``value`` as a Python value Arrow accepts for ``arrow``; None when it cannot be read.

    Example:
        >>> coerce("0.25", pa.float64()), coerce(0.5, pa.string()), coerce("x", pa.int64())
        (0.25, '0.5', None)
    """
    if value is None:
        return None
    if pa.types.is_dictionary(arrow):
        arrow = arrow.value_type
    if pa.types.is_string(arrow) or pa.types.is_large_string(arrow):
        if isinstance(value, str):
            return value
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, dict | list):
            return json.dumps(value, sort_keys=True)
        if isinstance(value, datetime):
            return value.isoformat()
        return str(value)
    if pa.types.is_boolean(arrow):
        if isinstance(value, str):
            return {"true": True, "false": False}.get(value.strip().lower())
        return bool(value) if isinstance(value, int | float) else None
    if pa.types.is_integer(arrow):
        # Python ints stay exact; a number outside the type's range is unreadable too.
        number = value if isinstance(value, int) else _number(value)
        bounds = np.iinfo(arrow.to_pandas_dtype())
        return int(number) if number is not None and bounds.min <= number <= bounds.max else None
    if pa.types.is_floating(arrow):
        return _number(value)
    if pa.types.is_decimal(arrow):
        try:
            exact = Decimal(repr(value) if isinstance(value, float) else str(value).strip())
            return exact.quantize(Decimal(1).scaleb(-arrow.scale), ROUND_HALF_EVEN)
        except InvalidOperation:
            return None
    if pa.types.is_timestamp(arrow):
        try:
            return parse_datetime(value)
        except (TypeError, ValueError, OverflowError, OSError):
            return None
    if pa.types.is_map(arrow):
        if not isinstance(value, Mapping):
            return None
        return [(str(k), coerce(v, arrow.item_type)) for k, v in value.items()]
    if pa.types.is_list(arrow) or pa.types.is_large_list(arrow):
        if not isinstance(value, list | tuple):
            return None
        return [coerce(v, arrow.value_type) for v in value]
    if pa.types.is_struct(arrow):
        if not isinstance(value, Mapping):
            return None
        return {f.name: coerce(value.get(f.name), f.type) for f in arrow}
    return value


def _array(values: list[Any], arrow: pa.DataType) -> pa.Array:
    try:
        return pa.array(values, type=arrow)
    except _CONVERSION_ERRORS:
        return pa.array([coerce(v, arrow) for v in values], type=arrow)


def struct_array(
    rows: Sequence[Mapping[str, Any]], wire: pa.StructType, replaced: Replaced | None = None
) -> pa.StructArray:
    """The rows as one struct array of the ``wire`` schema (unknown keys are ignored).

    One C++ pass when every row follows the schema; otherwise each top-level field is
    converted on its own and only the fields that fail are coerced in Python. Lone
    surrogates in the text are replaced by U+FFFD (see :mod:`rdskit.frames._surrogates`)
    and noted in ``replaced``, or, without one, warned about here.

    Example:
        >>> wire = pa.struct([("id", pa.string()), ("score", pa.string())])
        >>> struct_array([{"id": "a", "score": 0.5}], wire).to_pylist()
        [{'id': 'a', 'score': '0.5'}]
    """
    try:
        return _struct_array(rows, wire)
    except UnicodeEncodeError:
        noted = Replaced() if replaced is None else replaced
        array = _struct_array(repaired_rows(rows, wire, noted), wire)
        if replaced is None:
            noted.warn()
        return array


def _struct_array(rows: Sequence[Mapping[str, Any]], wire: pa.StructType) -> pa.StructArray:
    try:
        return pa.array(rows, type=wire)
    except UnicodeEncodeError:
        # A ValueError, but not one coercion can mend: the caller repairs the text.
        raise
    except _CONVERSION_ERRORS:
        arrays = [_array([row.get(f.name) for row in rows], f.type) for f in wire]
        return pa.StructArray.from_arrays(arrays, fields=list(wire))


def cast(array: pa.Array, arrow: pa.DataType) -> pa.Array:
    """``array`` as ``arrow`` (dictionary types are encoded); unreadable values become null.

    Example:
        >>> cast(pa.array(["0.5", "", None]), pa.float64()).to_pylist()
        [0.5, None, None]
    """
    if pa.types.is_dictionary(arrow):
        if pa.types.is_dictionary(array.type):
            return array.cast(arrow)
        return pc.dictionary_encode(cast(array, arrow.value_type)).cast(arrow)
    if array.type == arrow:
        return array
    try:
        return array.cast(arrow)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return pa.array([coerce(v, arrow) for v in _python_values(array)], type=arrow)


def field_at(array: pa.Array, path: Sequence[str]) -> pa.Array:
    """The struct field at ``path`` (null where any parent is null)."""
    for name in path:
        array = pc.struct_field(array, [array.type.get_field_index(name)])
    return array


def struct_paths(
    struct: pa.StructArray, prefix: tuple[str, ...] = ()
) -> dict[tuple[str, ...], pa.Array]:
    """Every field of ``struct`` by path, nested structs included; each is null where a
    parent is null, as :func:`field_at` gives it, but one ``flatten`` per struct costs far
    less than a compute call per field.

    Example:
        >>> rows = pa.array([{"a": {"b": 1}}, {"a": None}])
        >>> struct_paths(rows)["a", "b"].to_pylist()
        [1, None]
    """
    paths: dict[tuple[str, ...], pa.Array] = {}
    for field, child in zip(struct.type, struct.flatten(), strict=True):
        path = (*prefix, field.name)
        paths[path] = child
        if pa.types.is_struct(field.type):
            paths |= struct_paths(child, path)
    return paths


# --- list and map helpers -----------------------------------------------------------------


def offsets(lists: pa.Array) -> pa.Array:
    """List offsets rebuilt from the lengths (null lists count as empty)."""
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
    return pa.array(np.concatenate([[0], np.cumsum(lengths)]), pa.int32())


def regroup(length: int, rows: pa.Array, values: pa.Array, mask: pa.Array) -> pa.Array:
    """A list array of ``length`` rows from flat ``values`` and their (sorted) ``rows``."""
    counts = np.bincount(rows.to_numpy(zero_copy_only=False), minlength=length)
    bounds = pa.array(np.concatenate([[0], np.cumsum(counts)]), pa.int32())
    return pa.ListArray.from_arrays(bounds, values, mask=mask)


def list_field(lists: pa.Array, name: str) -> pa.Array:
    """``list<struct>`` -> ``list<field>``: e.g. every hook's ``type`` per row."""
    values = pc.struct_field(pc.list_flatten(lists), [lists.type.value_type.get_field_index(name)])
    return pa.ListArray.from_arrays(offsets(lists), values, mask=lists.is_null())


def first_of(lists: pa.Array) -> pa.Array:
    """The first element of each list; null for null or empty lists."""
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
    # Offsets index the unsliced values; a take reads just the first elements.
    starts = lists.offsets.to_numpy()[:-1]
    return lists.values.take(pa.array(starts, mask=lengths == 0))


def scatter(length: int, rows: pa.Array, values: pa.Array) -> pa.Array:
    """An array of ``length`` holding ``values[i]`` at row ``rows[i]``, null elsewhere."""
    position = np.full(length, -1, dtype=np.int64)
    position[rows.to_numpy(zero_copy_only=False)] = np.arange(len(values))
    return values.take(pa.array(position, mask=position < 0))


def entries(maps: pa.MapArray) -> pa.ListArray:
    """A map array as ``list<struct<key, value>>`` (what the list kernels accept)."""
    return pa.ListArray.from_arrays(maps.offsets, maps.values, mask=maps.is_null())


def map_columns(maps: pa.Array, prefix: str, always: Sequence[str] = ()) -> dict[str, pa.Array]:
    """One column per key of a map (or ``list<struct<key, value>>``), named ``prefix + key``.

    ``always`` keys come first (null columns when absent), then the others sorted.
    """
    pairs = entries(maps) if isinstance(maps, pa.MapArray) else maps
    flat, rows = pc.list_flatten(pairs), pc.list_parent_indices(pairs)
    keys, values = pc.struct_field(flat, [0]), pc.struct_field(flat, [1])
    seen = pc.unique(keys).to_pylist()
    columns = {}
    for key in [*always, *sorted(k for k in seen if k not in always)]:
        hit = pc.equal(keys, key)
        columns[prefix + key] = scatter(len(maps), rows.filter(hit), values.filter(hit))
    return columns


def dict_columns(values: Sequence[Mapping[str, Any] | None], prefix: str) -> dict[str, pa.Array]:
    """One column per key of free-form dicts (types inferred per key; mixed ones as text)."""
    keys = sorted({k for d in values if isinstance(d, Mapping) for k in d})
    columns = {}
    for key in keys:
        column = [d.get(key) if isinstance(d, Mapping) else None for d in values]
        try:
            array = pa.array(column)
        except _CONVERSION_ERRORS:
            array = pa.array([coerce(v, pa.string()) for v in column], pa.string())
        columns[prefix + key] = array.cast(pa.string()) if pa.types.is_null(array.type) else array
    return columns


def dominant(shares: Mapping[str, pa.Array]) -> pa.Array:
    """The label of the largest share per row (ties: the first label); null if all null
    (or NaN)."""
    matrix = np.column_stack(
        [cast(a, pa.float64()).to_numpy(zero_copy_only=False) for a in shares.values()]
    )
    missing = np.isnan(matrix)
    best = np.where(missing, -np.inf, matrix).argmax(axis=1)
    labels = pa.array(list(shares))
    indices = pa.array(best.astype(np.int32), mask=missing.all(axis=1))
    return pa.DictionaryArray.from_arrays(indices, labels).cast(pa.string())


def unique_name(name: str, taken: set[str], prefix: str) -> str:
    """``name``, or ``prefix + name`` when a column already has it."""
    return prefix + name if name in taken else name


# --- tables and frames --------------------------------------------------------------------


def build_table(
    spec: FrameSpec,
    struct: pa.StructArray | Mapping[tuple[str, ...], pa.Array] | None,
    derived: Mapping[str, pa.Array] | None = None,
    families: Mapping[str, Mapping[str, pa.Array]] | None = None,
) -> pa.Table:
    """The frame's table in catalogue order, every column cast to its catalogue type.

    Plain columns are read from ``struct`` at their wire path (or from its fields by path,
    as :func:`struct_paths` gives them, when the caller has read some already);
    ``derived`` holds the computed ones by name and ``families`` the key-named columns by
    family pattern.
    """
    derived, families = derived or {}, families or {}
    fields = struct_paths(struct) if isinstance(struct, pa.StructArray) else struct or {}
    names: list[str] = []
    arrays: list[pa.Array] = []
    for entry in spec.entries:
        if isinstance(entry, Family):
            for name, array in families.get(entry.pattern, {}).items():
                names.append(name)
                arrays.append(array if entry.arrow is None else cast(array, entry.arrow))
            continue
        array = derived[entry.name] if entry.derived else fields[entry.path]
        names.append(entry.name)
        arrays.append(cast(array, entry.arrow))
    return pa.Table.from_arrays(arrays, names=names)


def order_columns(names: Sequence[str], spec: FrameSpec) -> list[str]:
    """``names`` in catalogue order: fixed columns where listed, others at the position of
    the family they belong to (longest matching prefix), in their given order."""
    fixed = {c.name for c in spec.columns}
    by_prefix = sorted(spec.families, key=lambda f: len(f.prefix), reverse=True)

    def family(name: str) -> Family | None:
        return next((f for f in by_prefix if name.startswith(f.prefix)), None)

    extra = [n for n in names if n not in fixed]
    ordered: list[str] = []
    for entry in spec.entries:
        if isinstance(entry, Column):
            ordered += [entry.name] if entry.name in names else []
        else:
            ordered += [n for n in extra if family(n) is entry]
    return ordered + [n for n in extra if family(n) is None]


def combine(tables: Sequence[pa.Table], spec: FrameSpec, key: Sequence[str]) -> pa.Table:
    """Tables of one frame kind stacked (key-named columns may differ between them), in
    catalogue order, without repeats of ``key`` (the first occurrence wins)."""
    table = tables[0]
    if len(tables) > 1:
        table = pa.concat_tables(tables, promote_options="permissive")
        table = table.select(order_columns(table.column_names, spec))
    keep = first_indices([table[name] for name in key])
    return table if keep is None else table.take(keep)


def _pandas_type(arrow: pa.DataType) -> pd.ArrowDtype | None:
    # None lets pyarrow convert natively, which yields the catalogue's category and
    # datetime64[us, UTC] dtypes for dictionaries and timestamps.
    dtype = pandas_dtype(arrow)
    return dtype if isinstance(dtype, pd.ArrowDtype) else None


def to_frame(table: pa.Table, kind: str) -> pd.DataFrame:
    """The pandas frame of ``table`` (dtypes per :func:`~rdskit.frames.columns.pandas_dtype`)
    tagged with its kind in ``df.attrs["rdskit"]``."""
    frame = table.to_pandas(types_mapper=_pandas_type)
    fixed_categories(frame, kind)
    frame.attrs["rdskit"] = {"kind": kind}
    repairs = repairs_of(table)
    if repairs:  # what methods() and the provenance say was changed
        add_step(frame, "repair_text", repair_settings(repairs))
    return frame


_SPECS = {spec.name: spec for spec in FRAMES}


def fixed_categories(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Give the frame's category columns their catalogue categories in place (vocabulary
    order, then other values sorted; see :class:`~rdskit.frames.columns.Column`), rather
    than the values seen in order of appearance, so ``pd.concat`` keeps them."""
    spec = _SPECS.get(kind)
    for entry in spec.columns if spec else ():
        column = frame.get(entry.name)
        if column is not None and isinstance(column.dtype, pd.CategoricalDtype):
            order = entry.category_order(map(str, column.cat.categories))
            if list(column.cat.categories) != order:
                frame[entry.name] = column.cat.set_categories(order)
    return frame


def column(frame: pd.DataFrame, name: str) -> pa.Array:
    """One column of a frame as a single Arrow array (without a copy for Arrow-backed
    columns)."""
    values = frame[name].array
    if isinstance(values, pd.arrays.ArrowExtensionArray):
        return single(pa.chunked_array(values.__arrow_array__()))
    return single(from_frame(frame, [name])[name])


def single(chunked: pa.ChunkedArray) -> pa.Array:
    """One array of ``chunked``'s values: its chunk when it has one (combine_chunks would
    copy every buffer, nested comments included)."""
    return chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()


def from_frame(frame: pd.DataFrame, columns: Sequence[str]) -> pa.Table:
    """``columns`` of a frame as an Arrow table, one chunk per column (categoricals become
    dictionaries)."""
    table = pa.Table.from_pandas(frame[list(columns)], preserve_index=False)
    return table.combine_chunks()
