"""Round trips of frames a hostile user makes: formula-like text, ids with leading zeros
and dashes, the largest int64, missing values inside lists, emoji and newlines, naive and
non-UTC dates of the user's own columns, filtered, sorted and empty frames. Every writer's
file is read back by plain pandas, pyarrow, DuckDB and Polars, and by rdskit's reader into
the same frame (values, dtypes, column order and index)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

import rdskit.frames as frames
from rdskit.models import vocab

ROWS = [
    {
        "source": "tiktok",
        "id": "007",
        "created_at": 1767225600,
        "text": "=1+1\nsecond line 😀",
        "title": "+",
        "url": "-",
        "language": "en",
        "mentioned_brands": ["@oatly", None, "=SUM(A1)"],
        "entities": [],
        "num_likes": 2**63 - 1,
        "num_views": 0,
        "engagement_rate": "0.1",
        "comments": [{"id": "c1", "body": "-1", "created_at": "2026-01-01T10:00:00+02:00"}],
    },
    {
        "source": "reddit",
        "id": "-HduGaVNcpG",
        "created_at": 0,
        "text": "@x",
        "title": "tab\there",
        "language": "fr",
        "num_likes": None,
        "mentioned_brands": None,
    },
    {"source": "mastodon", "id": "0000", "text": "", "num_likes": -5},
]


def hostile() -> pd.DataFrame:
    frame = frames.mentions_frame(ROWS)
    frame["naive"] = pd.Timestamp("2026-01-01 12:00")  # a user's own column, no zone
    frame["paris"] = pd.Timestamp("2026-01-01 12:00", tz="Europe/Paris")
    return frame


VARIANTS: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    "whole": lambda df: df,
    "filtered": lambda df: df[df["source"] != "reddit"],
    "sorted": lambda df: df.sort_values("num_likes"),
    "empty": lambda df: df.iloc[0:0],
}

WRITERS: dict[str, Callable[[pd.DataFrame, Path], object]] = {
    "rds.to_parquet": lambda df, p: df.rds.to_parquet(p),
    "pandas to_parquet": lambda df, p: df.to_parquet(p),
    "rds.to_feather": lambda df, p: df.rds.to_feather(p),
}


def texts(values: pd.Series) -> list[object]:
    return [None if v is None or v is pd.NA else v for v in values]


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_reader_gets_the_hostile_values_back(
    tmp_path: Path, writer: str, variant: str
) -> None:
    frame = VARIANTS[variant](hostile())
    path = tmp_path / ("f.feather" if "feather" in writer else "f.parquet")
    WRITERS[writer](frame, path)
    read = pd.read_feather if "feather" in writer else pd.read_parquet
    for options in ({}, {"dtype_backend": "pyarrow"}, {"columns": ["id", "mentioned_brands"]}):
        back = read(path, **options)
        assert list(back.columns) == options.get("columns", list(frame.columns))
        assert back["id"].tolist() == frame["id"].tolist()
    back = read(path)
    assert texts(back["text"]) == texts(frame["text"])
    assert [None if pd.isna(v) else int(v) for v in back["num_likes"]] == [
        None if pd.isna(v) else int(v) for v in frame["num_likes"]
    ]
    table = feather.read_table(path) if "feather" in writer else pq.read_table(path)
    assert table.column("mentioned_brands").to_pylist() == [
        None if v is None or v is pd.NA else list(v) for v in frame["mentioned_brands"]
    ]
    polars = pl.read_ipc(path) if "feather" in writer else pl.read_parquet(path)
    assert polars["id"].to_list() == frame["id"].tolist()
    assert polars["num_likes"].to_list() == table.column("num_likes").to_pylist()
    (count,) = duckdb.arrow(table).aggregate("count(*)").fetchall()[0]
    assert count == len(frame)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("writer", ["rds.to_parquet", "pandas to_parquet"])
def test_rdskit_reader_gives_the_same_frame_back(tmp_path: Path, writer: str, variant: str) -> None:
    frame = VARIANTS[variant](hostile())
    WRITERS[writer](frame, tmp_path / "f.parquet")
    back = frames.read_parquet(tmp_path / "f.parquet")
    # Same values, dtypes (naive and Paris dates included), column order and index as the
    # frame written, and as plain pandas gives it back.
    empty = variant == "empty"
    pd.testing.assert_frame_equal(back, frame, check_categorical=not empty)
    if empty:  # a file holds no dictionary for an empty column: the vocabulary comes back
        assert list(back["source"].cat.categories) == list(vocab.SOURCES)
        assert list(back["language"].cat.categories) == []
    pd.testing.assert_index_equal(back.index, pd.read_parquet(tmp_path / "f.parquet").index)


def test_the_pandas_vs_rdskit_table_says_what_happens(tmp_path: Path) -> None:
    """The limits docs/columns.md states for plain pandas calls are what happens."""
    known = frames.mentions_frame([{"source": "reddit", "id": "1", "language": "en"}])
    new_source = frames.mentions_frame([{"source": "mastodon", "id": "2", "language": "en"}])
    empty = frames.mentions_frame([])
    assert isinstance(pd.concat([known, known])["language"].dtype, pd.CategoricalDtype)
    assert not isinstance(pd.concat([known, new_source])["source"].dtype, pd.CategoricalDtype)
    with_empty = pd.concat([known, empty])
    assert isinstance(with_empty["source"].dtype, pd.CategoricalDtype)
    # pandas 3 drops an empty frame's (empty) categories into object; pandas 2 keeps them.
    pandas_3 = int(pd.__version__.split(".")[0]) >= 3
    assert isinstance(with_empty["language"].dtype, pd.CategoricalDtype) is not pandas_3
    # Polars and pandas' own feather of a category with a missing value; rdskit's reads.
    frame = frames.mentions_frame([{"source": "reddit", "id": "1"}, {"id": "2"}])
    frame.to_feather(tmp_path / "pandas.feather")
    with pytest.raises(pl.exceptions.ComputeError, match="usize"):
        pl.read_ipc(tmp_path / "pandas.feather")
    frame.rds.to_feather(tmp_path / "rdskit.feather")
    assert pl.read_ipc(tmp_path / "rdskit.feather")["source"].to_list() == ["reddit", None]
    assert "pandas' own feather of a category column" in frames.columns.render_markdown()
