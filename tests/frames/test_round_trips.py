"""Writers x readers: every file rdskit writes, and pandas' own ``df.to_parquet`` /
``df.to_feather`` of an rdskit frame, read back by plain pandas (default arguments,
``dtype_backend="pyarrow"``, ``columns=``), DuckDB, Polars and pyarrow; rdskit's reader
restores dtypes and provenance."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from frame_samples import PROFILES, SMALL, full_mention
from plain_reads import pandas_reads

import rdskit.frames as frames
from rdskit.frames import read_parquet

MESSAGES = [
    {
        "message_id": "tam_1",
        "agent_id": "ta_1",
        "created_at": 1767225600,
        "new_mention_count": 3,
        "text": "Up [1]",
        "references": [{"type": "mention", "id": "r1", "source": "reddit", "citation": 1}],
    }
]
USAGE = [
    {"id": 1, "category": "mention", "quantity": 0.1, "created_at": 0, "quantity_credits": "10"},
    {"id": 2, "category": "report", "quantity": "0.25", "created_at": 60},
]


def sample_frames() -> dict[str, pd.DataFrame]:
    mentions = frames.mentions_frame(
        [full_mention(), *copy.deepcopy(SMALL)], parameter_names={"cp_1": "brand"}
    )
    mentions.attrs["rdskit"] = {
        "kind": "mentions",
        "fetches": [{"resource": "mentions", "query": {"dataset_ids": ["ds_1"]}}],
    }
    return {
        "mentions": mentions,
        "profiles": frames.profiles_frame(copy.deepcopy(PROFILES)),
        "messages": frames.messages_frame(MESSAGES),
        "usage": frames.usage_frame(USAGE),
    }


WRITERS: dict[str, Callable[[pd.DataFrame, Path], None]] = {
    "rds.to_parquet": lambda df, p: df.rds.to_parquet(p),
    "rds.to_feather": lambda df, p: df.rds.to_feather(p),
    "pandas to_parquet": lambda df, p: df.to_parquet(p),
    "pandas to_feather": lambda df, p: df.to_feather(p),
}


def is_feather(writer: str) -> bool:
    return writer.endswith("feather")


def nested_column(frame: pd.DataFrame) -> str:
    """A column whose dtype name plain pandas cannot parse (a list or a decimal)."""
    return next(c for c in frame.columns if any(m in str(frame[c].dtype) for m in "<("))


def plain_column(frame: pd.DataFrame) -> str:
    return next(c for c in frame.columns if str(frame[c].dtype) == "int64[pyarrow]")


# The same reads in a process that never imports rdskit: what a colleague without it does.
# It leaves with os._exit once its answer is written: pyarrow 20 (the floor) once aborted
# in its thread pool's teardown at interpreter exit ("terminate called without an active
# exception") after printing the right answer; the reads, not pyarrow's exit, are tested.
FRESH = """
import json, os, sys
import pandas as pd
sys.path.insert(0, {tests!r})
from plain_reads import pandas_reads
assert "rdskit" not in sys.modules
print(json.dumps(pandas_reads({path!r}, {feather!r}, {nested!r}, {plain!r})))
assert "rdskit" not in sys.modules
sys.stdout.flush()
os._exit(0)
"""


def expected_reads(frame: pd.DataFrame, plain: str) -> dict[str, Any]:
    values = [None if pd.isna(v) else int(v) for v in frame[plain]]
    width = len(frame.columns)
    return {
        "default": {"shape": [len(frame), width], "plain": values},
        "pyarrow": {"shape": [len(frame), width], "plain": values},
        "columns plain": {"shape": [len(frame), 1], "plain": values},
        "columns nested": {"shape": [len(frame), 2], "plain": values},
        "default columns plain": {"shape": [len(frame), 1], "plain": values},
    }


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("kind", ["mentions", "profiles", "messages", "usage"])
def test_plain_pandas_reads_what_rdskit_frames_write(
    tmp_path: Path, writer: str, kind: str
) -> None:
    frame = sample_frames()[kind]
    path = tmp_path / ("f.feather" if is_feather(writer) else "f.parquet")
    WRITERS[writer](frame, path)
    nested, plain = nested_column(frame), plain_column(frame)
    # In this process (rdskit imported): every writer, every way of reading.
    assert pandas_reads(path, is_feather(writer), nested, plain) == expected_reads(frame, plain)
    if writer.startswith("pandas"):
        return  # pandas' own files name nested dtypes only rdskit teaches pandas to parse
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            FRESH.format(
                tests=str(Path(__file__).parent),
                path=str(path),
                feather=is_feather(writer),
                nested=nested,
                plain=plain,
            ),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    assert json.loads(fresh.stdout) == expected_reads(frame, plain)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_duckdb_polars_pyarrow_read_them(tmp_path: Path, writer: str) -> None:
    frame = sample_frames()["mentions"]
    path = tmp_path / ("m.feather" if is_feather(writer) else "m.parquet")
    WRITERS[writer](frame, path)
    if is_feather(writer):
        table = feather.read_table(path)
        # Polars cannot read pandas' own feather of a categorical with missing values
        # (it reads pandas' -1 code under the null); rdskit's writer stores 0 there.
        polars = pl.read_ipc(path) if writer.startswith("rds") else pl.from_arrow(table)
        rows = duckdb.arrow(table).aggregate("count(*)").fetchall()[0]
    else:
        table = pq.read_table(path)
        polars = pl.read_parquet(path)
        rows = duckdb.sql(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0]
        likes = duckdb.sql(f"SELECT sum(num_likes), sum(len(topics)) FROM '{path}'").fetchall()[0]
        assert likes == (int(frame["num_likes"].sum()), int(frame["topics"].list.len().sum()))
    assert rows == (len(frame),)
    assert table.num_rows == polars.height == len(frame)
    assert polars["id"].to_list() == frame["id"].tolist()
    assert table.column("topics").to_pylist() == [
        None if v is None or v is pd.NA else list(v) for v in frame["topics"].tolist()
    ]


@pytest.mark.parametrize("writer", ["rds.to_parquet", "pandas to_parquet"])
@pytest.mark.parametrize("kind", ["mentions", "profiles", "messages", "usage"])
def test_rdskit_reader_restores_dtypes_and_provenance(
    tmp_path: Path, writer: str, kind: str
) -> None:
    frame = sample_frames()[kind]
    frame.attrs["rdskit"] = {**frame.attrs.get("rdskit", {}), "kind": kind}
    WRITERS[writer](frame, tmp_path / "f.parquet")
    back = read_parquet(tmp_path / "f.parquet")
    pd.testing.assert_frame_equal(back, frame)
    assert back.attrs["rdskit"]["kind"] == kind
    assert back.rds.provenance() is not None


def test_streamed_export_reads_in_plain_pandas(tmp_path: Path) -> None:
    rows = [full_mention(), *copy.deepcopy(SMALL)]
    listing = SimpleNamespace(pages=lambda: iter([SimpleNamespace(data=rows)]))
    client = SimpleNamespace(
        mentions=SimpleNamespace(list=lambda **query: listing),
        custom_parameters=SimpleNamespace(list=lambda: []),
    )
    frames.mentions_to_parquet(client, tmp_path / "out", batch_rows=2)
    for options in ({}, {"dtype_backend": "pyarrow"}, {"columns": ["id", "num_likes"]}):
        back = pd.read_parquet(tmp_path / "out", **options)
        assert sorted(back["id"]) == sorted(r["id"] for r in rows)


def test_concat_keeps_fixed_categories() -> None:
    one = frames.mentions_frame([{"source": "tiktok", "id": "t", "content_type": "ad"}])
    two = frames.mentions_frame([{"source": "reddit", "id": "r", "content_type": "organic"}])
    both = pd.concat([one, two], ignore_index=True)
    assert isinstance(both["source"].dtype, pd.CategoricalDtype)
    assert list(both["source"].cat.categories) == [
        "reddit",
        "tiktok",
        "youtube",
        "instagram",
        "linkedin",
    ]
    assert list(both["content_type"].cat.categories) == ["organic", "ad"]
    # A value outside the vocabulary is kept, after it.
    odd = frames.mentions_frame([{"source": "mastodon", "id": "m"}])
    assert list(odd["source"].cat.categories)[-1] == "mastodon"


def test_numpy_dtypes_let_pandas_calls_work() -> None:
    frame = sample_frames()["mentions"]
    plain = frame.rds.to_numpy_dtypes()
    assert {str(t) for t in plain.dtypes} <= {
        "object",
        "float64",
        "int64",
        "bool",
        "datetime64[us, UTC]",
    }
    assert len(plain.drop_duplicates()) == len(frame)
    assert plain.nunique()["source"] == frame["source"].nunique()
    assert plain.describe(include="all").loc["count", "id"] == len(frame)
    assert plain.sort_values(["topics", "id"])["id"].tolist()
    assert plain.attrs == frame.attrs
    # Missing integers become NaN floats, others stay exact.
    assert plain["num_likes"].tolist() == [float(v) for v in frame["num_likes"].fillna(-1)] or (
        plain["num_likes"].dtype == "float64"
    )
