"""The loaders give exactly the stored frames for tricky inputs (see ``golden_cases.py``).

The expected tables were written by the engine before the flattening was made fast, so
these tests pin every column name, Arrow type, value and row order of the fast path:
missing and misshapen nested objects, unknown fields, numbers as strings, odd timestamps,
ads, comments, custom parameters, pattern assignments, duplicates, empty input and more
rows than one conversion chunk. Rewrite the files only for an intended change of output:
``python tests/frames/test_golden.py --write``.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from golden_cases import GOLDEN, MENTION_CASES, PROFILE_CASES

from rdskit.frames import mentions_frame, mentions_table, profiles_frame, profiles_table
from rdskit.frames._arrow import fixed_categories
from rdskit.frames.columns import pandas_dtype


def _path(kind: str, case: str) -> str:
    return str(GOLDEN / f"{kind}-{case}.arrow")


def _read(kind: str, case: str) -> pa.Table:
    with pa.OSFile(_path(kind, case)) as f:
        return pa.ipc.open_file(f).read_all()


def _plain(value: Any) -> Any:
    """``value`` with NaN made comparable (NaN != NaN would fail equal columns)."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def assert_tables_equal(actual: pa.Table, expected: pa.Table) -> None:
    """Same schema (names, types, order) and the same values, column by column."""
    assert actual.schema.names == expected.schema.names
    for name in expected.schema.names:
        assert actual.schema.field(name).type == expected.schema.field(name).type, name
        assert _plain(actual[name].to_pylist()) == _plain(expected[name].to_pylist()), name


def _frame(table: pa.Table) -> pd.DataFrame:
    """The expected frame: the catalogue's dtype for every Arrow type."""

    def mapper(arrow: pa.DataType) -> pd.ArrowDtype | None:
        dtype = pandas_dtype(arrow)
        return dtype if isinstance(dtype, pd.ArrowDtype) else None

    return table.to_pandas(types_mapper=mapper)


def assert_frames_equal(actual: pd.DataFrame, expected_table: pa.Table, kind: str) -> None:
    # Category columns carry the catalogue's categories (vocabulary first), not just the seen.
    expected = fixed_categories(_frame(expected_table), kind)
    assert actual.attrs == {"rdskit": {"kind": kind}}
    assert list(actual.columns) == list(expected.columns)
    assert [str(t) for t in actual.dtypes] == [str(t) for t in expected.dtypes]
    # Compared through Arrow: pandas' equality of ArrowDtype columns trips on NaN.
    assert_tables_equal(
        pa.Table.from_pandas(actual, preserve_index=False),
        pa.Table.from_pandas(expected, preserve_index=False),
    )


@pytest.mark.parametrize("case", list(MENTION_CASES))
def test_mentions_match_the_golden_output(case: str) -> None:
    items, names = MENTION_CASES[case]
    expected = _read("mentions", case)
    assert_tables_equal(mentions_table(items(), names), expected)
    assert_frames_equal(mentions_frame(items(), names), expected, "mentions")


@pytest.mark.parametrize("case", list(PROFILE_CASES))
def test_profiles_match_the_golden_output(case: str) -> None:
    expected = _read("profiles", case)
    assert_tables_equal(profiles_table(PROFILE_CASES[case]()), expected)
    assert_frames_equal(profiles_frame(PROFILE_CASES[case]()), expected, "profiles")


def write() -> None:
    """(Re)write every golden table with the current engine."""
    tables = {("mentions", c): mentions_table(f(), n) for c, (f, n) in MENTION_CASES.items()}
    tables |= {("profiles", c): profiles_table(f()) for c, f in PROFILE_CASES.items()}
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    for (kind, case), table in tables.items():
        table = table.combine_chunks()
        with (
            pa.OSFile(_path(kind, case), "wb") as f,
            pa.ipc.new_file(f, table.schema, options=options) as writer,
        ):
            writer.write_table(table)
        print(f"{kind}-{case}: {table.num_rows} rows, {table.num_columns} columns")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python {sys.argv[0]} --write")
    write()
