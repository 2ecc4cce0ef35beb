"""Child frames: one row per nested item, keyed by the parent's (source, id)."""

from __future__ import annotations

import pandas as pd
import pytest

from rdskit.frames.columns import COMMENTS, HOOKS, MEDIA, PARAMETERS, TOPICS


def ts(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


def test_comments(small: pd.DataFrame) -> None:
    comments = small.rds.comments()
    assert list(comments.columns) == [c.name for c in COMMENTS.columns]
    for column in COMMENTS.columns:
        assert str(comments[column.name].dtype) == column.dtype_name
    assert comments[["source", "id", "comment_id", "body", "num_likes"]].values.tolist() == [
        ["reddit", "r1", "c1", "agree", 3],
        ["reddit", "r1", "c2", "nope", 0],
        ["tiktok", "t1", "c3", "yum", 7],
    ]
    assert comments["created_at"].tolist() == [
        ts("2026-01-05T11:00"),
        ts("2026-01-05T12:30:00.5"),
        ts("2026-01-06T10:00"),
    ]


def test_children_of_a_filtered_frame(small: pd.DataFrame) -> None:
    tiktok = small[small["source"] == "tiktok"]
    assert tiktok.rds.comments()["comment_id"].tolist() == ["c3"]
    assert tiktok.rds.hooks()[["id", "hook_type"]].values.tolist() == [
        ["t1", "how_to"],
        ["t1", "list"],
    ]


def test_topics(small: pd.DataFrame) -> None:
    topics = small.rds.topics()
    assert list(topics.columns) == [c.name for c in TOPICS.columns]
    assert topics[["id", "topic", "evidence"]].values.tolist() == [
        ["r1", "foam", "foam is great"],
        ["r2", "price", "price is too high"],
        ["r2", "oat milk", "The oat milk"],
    ]


def test_hooks(small: pd.DataFrame) -> None:
    hooks = small.rds.hooks()
    assert list(hooks.columns) == [c.name for c in HOOKS.columns]
    assert hooks[["id", "hook_type", "text"]].values.tolist() == [
        ["r1", "bold_claim", "Oat milk foam"],
        ["t1", "how_to", "oat milk latte"],
        ["t1", "list", "oat milk latte"],
    ]


def test_media(small: pd.DataFrame) -> None:
    media = small.rds.media()
    assert list(media.columns) == [c.name for c in MEDIA.columns]
    assert media.drop(columns="source").values.tolist() == [
        ["r1", 0, "image", "a cup", "https://m/1_big.jpg", 1080, 720, 2],
        ["r1", 1, "video", pd.NA, "https://m/2.mp4", 720, 1280, 1],
    ]


def test_parameters(small: pd.DataFrame) -> None:
    parameters = small.rds.parameters()
    assert list(parameters.columns) == [c.name for c in PARAMETERS.columns]
    assert parameters.drop(columns="source").values.tolist() == [
        ["r2", "cp_1", "brand", "Oatly", "done", ts("2026-01-06")],
        ["t1", "cp_1", "brand", pd.NA, "pending", pd.NaT],
    ]


@pytest.mark.parametrize("method", ["comments", "topics", "hooks", "media", "parameters"])
def test_empty_children(small: pd.DataFrame, method: str) -> None:
    child = getattr(small.iloc[:0].rds, method)()
    assert len(child) == 0 and list(child.columns)[:2] == ["source", "id"]
