"""pandas verbs on rdskit frames with list columns (rdskit.frames.verbs): keys that are
Series, not column names, reach pandas untouched (lesson 09 groups by two converted
columns; the check compared each Series with the list columns' names and raised
"The truth value of a Series is ambiguous")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import rdskit.frames as frames
from rdskit.sandbox.synth import corpus

NOW = datetime(2026, 6, 1, tzinfo=UTC).timestamp()


def test_groupby_by_series_keys_works_beside_list_columns() -> None:
    query = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}
    df = frames.mentions_frame(corpus.collect(7, query, 30, num_comments_per_post=2, now=NOW))
    assert frames.verbs.list_columns(df)  # comments, media...: the case that failed
    sizes = df.groupby([df["source"].astype(str), df["id"].astype(str)]).size()
    assert int(sizes.sum()) == len(df)
    with pytest.raises(frames.ListColumnError):
        df.groupby("comments")
