"""Streaming mentions to partitioned parquet and reading them back (pandas, DuckDB, Polars)."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from frame_samples import SMALL, full_mention

from rdskit.frames import mentions_frame, mentions_to_parquet, read_parquet


class Listing:
    """What ``client.mentions.list(...)`` returns: ``.pages()`` of ``.data``."""

    def __init__(self, rows: list[dict[str, Any]], limit: int) -> None:
        self._rows, self._limit = rows, limit

    def pages(self) -> Any:
        for start in range(0, len(self._rows), self._limit):
            yield SimpleNamespace(data=self._rows[start : start + self._limit])


def fake_client(rows: list[dict[str, Any]], page_size: int = 2) -> Any:
    names = [SimpleNamespace(id="cp_1", name="brand")]
    return SimpleNamespace(
        mentions=SimpleNamespace(list=lambda **query: Listing(rows, page_size)),
        custom_parameters=SimpleNamespace(list=lambda: names),
    )


def rows() -> list[dict[str, Any]]:
    # The full mention has vibe columns, SMALL has none: batches differ in their columns.
    return [full_mention(), *copy.deepcopy(SMALL)]


def by_key(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["source", "id"], key=lambda c: c.astype(str)).reset_index(drop=True)


def test_round_trip_keeps_columns_and_dtypes(tmp_path: Path) -> None:
    target = tmp_path / "mentions"
    written = mentions_to_parquet(fake_client(rows()), target, batch_rows=2, parameter_ids=["cp_1"])
    assert written == 6
    assert sorted(p.name for p in target.iterdir()) == [
        "source=instagram",
        "source=reddit",
        "source=tiktok",
    ]
    # Batches of two: (ig_1, r1), (r2, t1), (t2, i1), each spanning two sources.
    assert len(list(target.rglob("*.parquet"))) == 6
    back = read_parquet(target)
    expected = mentions_frame(rows(), parameter_names={"cp_1": "brand"})
    assert list(back.columns) == list(expected.columns)
    back, expected = by_key(back), by_key(expected)
    back["source"] = back["source"].cat.set_categories(expected["source"].cat.categories)
    pd.testing.assert_frame_equal(back, expected)


def test_unpartitioned_and_single_file(tmp_path: Path) -> None:
    mentions_to_parquet(fake_client(rows()), tmp_path / "flat", partition_by=())
    (only,) = (tmp_path / "flat").iterdir()
    assert (
        by_key(read_parquet(only))["id"].tolist() == by_key(mentions_frame(rows()))["id"].tolist()
    )


def test_refuses_to_mix_with_existing_data(tmp_path: Path) -> None:
    mentions_to_parquet(fake_client(rows()), tmp_path / "m")
    with pytest.raises(pa.ArrowInvalid):
        mentions_to_parquet(fake_client(rows()), tmp_path / "m")


def test_duckdb_and_polars_read_it(tmp_path: Path) -> None:
    target = tmp_path / "mentions"
    mentions_to_parquet(fake_client(rows()), target, batch_rows=2)
    glob = f"{target}/**/*.parquet"
    counts = duckdb.sql(
        f"SELECT source, count(*) AS n, sum(num_likes) AS likes, epoch(max(created_at)) AS last "
        f"FROM read_parquet('{glob}', hive_partitioning=true, union_by_name=true) "
        "GROUP BY source ORDER BY source"
    ).fetchall()
    assert [(s, n, likes) for s, n, likes, _ in counts] == [
        ("instagram", 2, 90),
        ("reddit", 2, 14),
        ("tiktok", 2, 100),
    ]
    comments = duckdb.sql(
        f"SELECT id, len(comments) FROM read_parquet('{glob}', hive_partitioning=true, "
        "union_by_name=true) WHERE comments IS NOT NULL ORDER BY id"
    ).fetchall()
    assert comments == [("ig_1", 1), ("r1", 2), ("t1", 1)]

    frame = pl.read_parquet(glob, hive_partitioning=True, missing_columns="insert")
    assert frame.height == 6
    assert frame.filter(pl.col("id") == "ig_1")["engagement_rate"].to_list() == [0.0425]
    assert frame.schema["created_at"] == pl.Datetime("us", "UTC")
    assert frame.filter(pl.col("id") == "r1")["comments"].list.len().to_list() == [2]
