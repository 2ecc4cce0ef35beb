"""Client loaders, the incremental cache and parquet export against a real sandbox."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rdskit
import rdskit.frames as frames
from rdskit import _files
from rdskit.frames import cache as cache_module
from rdskit.frames.accessor import origin_client

QUERY = {"type": "prompt", "sources": ["reddit", "tiktok", "instagram"], "search_query": "oat milk"}


def collect(client: rdskit.Client, dataset_id: str, count: int, **options: Any) -> None:
    run = client.datasets.runs.create(dataset_id, QUERY, count=count, **options)
    assert run.wait(timeout=120).status.type == "completed"


@pytest.fixture
def dataset(client: rdskit.Client) -> str:
    """A dataset of 250 analysed mentions with comments."""
    ds = client.datasets.create("Oat milk")
    collect(
        client,
        ds.id,
        250,
        num_comments_per_post=2,
        content_analysis_actions=["sentiment", "hook", "cta"],
    )
    return ds.id


def by_key(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(["source", "id"], key=lambda c: c.astype(str)).reset_index(drop=True)


def test_mentions_to_frame_fetches_every_page(client: rdskit.Client, dataset: str) -> None:
    df = frames.mentions_to_frame(client, dataset_ids=[dataset], limit=40)
    assert len(df) == client.datasets.get(dataset).mentions_count == 250
    expected = frames.mentions_frame(client.mentions.list(dataset_ids=[dataset], limit=100))
    pd.testing.assert_frame_equal(by_key(df), by_key(expected))
    assert df["sentiment_score"].notna().all() and df["comments"].notna().any()
    assert origin_client(df) is client
    turn = df.rds.top(3, by="num_likes").rds.ask("What do these posts have in common?")
    assert turn.status == "working"


def test_custom_parameter_columns_are_named(client: rdskit.Client, dataset: str) -> None:
    parameter = client.custom_parameters.create("brand", "The brand the post names")
    run = client.custom_parameters.runs.create(parameter.id, dataset_id=dataset)
    run.wait(timeout=120)
    df = frames.mentions_to_frame(client, dataset_ids=[dataset], parameter_ids=[parameter.id])
    assert "brand" in df.columns and parameter.id not in df.columns
    values = df.rds.parameters()
    assert set(values["parameter"]) == {"brand"} and len(values) == 250
    listed = [
        {p["parameter_id"]: p["value"] for p in row}[parameter.id] for row in df["parameters"]
    ]
    assert df["brand"].fillna("-").tolist() == [value or "-" for value in listed]
    assert df["brand"].notna().any()


class Spy:
    """Counts the mentions the cache's refresh receives from the server."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.received = 0
        real = cache_module.mention_pages

        def counting(client: Any, query: Any) -> Iterator[list[Any]]:
            for page in real(client, query):
                self.received += len(page)
                yield page

        monkeypatch.setattr(cache_module, "mention_pages", counting)


def test_cache_refresh_fetches_only_new_mentions(
    client: rdskit.Client, dataset: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spy = Spy(monkeypatch)
    first = frames.mentions_to_frame(client, dataset_ids=[dataset], cache=True)
    assert len(first) == 250 and spy.received == 250
    assert len(list((tmp_path / "cache").rglob("*.parquet"))) == 1

    spy.received = 0
    again = frames.mentions_to_frame(client, dataset_ids=[dataset], cache=True, sort="likes")
    assert spy.received <= 100  # one page: the first mention is already cached
    assert again["num_likes"].is_monotonic_decreasing

    collect(client, dataset, 150)  # a re-run: ~60% new posts, some from older dates
    spy.received = 0
    refreshed = frames.mentions_to_frame(client, dataset_ids=[dataset], cache=True)
    full = frames.mentions_to_frame(client, dataset_ids=[dataset])
    new = len(full) - 250
    assert 0 < new < 150
    assert spy.received <= new + 100  # the new mentions plus at most one page
    assert set(zip(refreshed["source"], refreshed["id"], strict=True)) == set(
        zip(full["source"], full["id"], strict=True)
    )
    assert refreshed["created_at"].is_monotonic_decreasing  # the default sort: date


def test_other_loaders(client: rdskit.Client, dataset: str) -> None:
    datasets = frames.datasets_to_frame(client)
    assert datasets["id"].tolist() == [dataset] and datasets.loc[0, "mentions_count"] == 250
    usage = frames.usage_history_to_frame(client)
    assert set(usage["category"]) == {"mention"}
    assert usage["quantity_credits"].sum() == 250

    audience = client.audience_datasets.create("Oat audience")
    client.audience_datasets.runs.create(
        audience.id, source_dataset_id=dataset, total_profile_count=20
    ).wait(timeout=120)
    profiles = frames.profiles_to_frame(client, audience_dataset_ids=[audience.id])
    assert len(profiles) == 20 and profiles.rds.kind == "profiles"
    assert profiles.rds.creator_tiers()["profiles"].sum() == 20
    assert profiles["ocean_openness"].between(0, 1).all()


def test_pattern_items(client: rdskit.Client, dataset: str) -> None:
    run = client.pattern_detections.create(dataset, name="Why", research_question="Why oat?")
    pattern_id = run.wait(timeout=120).pattern_id
    items = frames.pattern_items_to_frame(client, pattern_id)
    assert len(items) == len(client.patterns.get(pattern_id).items) > 0
    posts = frames.pattern_items_to_frame(client, pattern_id, posts=True)
    assert list(posts.columns[:4]) == ["item_id", "item_title", "source", "id"]
    per_item = posts.groupby("item_id").size()
    for item in client.patterns.get(pattern_id).items:
        detail = client.patterns.item(pattern_id, item.item_id)
        assert per_item[item.item_id] == len(detail.posts)


def test_mentions_to_parquet_matches_to_frame(
    client: rdskit.Client, dataset: str, tmp_path: Path
) -> None:
    written = frames.mentions_to_parquet(
        client, tmp_path / "oat", batch_rows=100, dataset_ids=[dataset]
    )
    assert written == 250
    back = frames.read_parquet(tmp_path / "oat")
    expected = frames.mentions_to_frame(client, dataset_ids=[dataset])
    back["source"] = back["source"].cat.set_categories(expected["source"].cat.categories)
    pd.testing.assert_frame_equal(by_key(back), by_key(expected))


def test_a_fresh_sandbox_does_not_read_the_last_ones_cache(tmp_path: Path) -> None:
    """Two sandboxes of one seed share their corpus; a cache left by the first must not be
    merged into the second's frame (each database's instance is in its ids, issue 34)."""
    from rdskit.sandbox import start

    sizes = []
    for count in (20, 10):
        with start(speed=50) as sandbox, rdskit.Client(sandbox.api_key, base_url=sandbox.url) as c:
            ds = c.datasets.get_or_create("x")
            collect(c, ds.id, count)
            fresh = frames.mentions_to_frame(c, dataset_ids=[ds.id])
            cached = frames.mentions_to_frame(c, dataset_ids=[ds.id], cache=True)
            sizes.append((c.me().account_id, len(fresh), len(cached)))
    assert sizes[0][0] != sizes[1][0]  # ids carry the database's instance
    assert [(n, m) for _, n, m in sizes] == [(20, 20), (10, 10)]
    assert len(list((tmp_path / "cache").rglob("*.parquet"))) == 2


@pytest.mark.parametrize("damage", ["truncate", "garbage", "not_mentions"])
def test_a_damaged_cache_file_is_reported_once_moved_aside_and_fetched_again(
    client: rdskit.Client,
    dataset: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    damage: str,
) -> None:
    first = frames.mentions_to_frame(client, dataset_ids=[dataset], cache=True)
    (path,) = (tmp_path / "cache").rglob("*.parquet")
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00" * 1000)
    else:
        pq.write_table(pa.table({"x": [1]}), path)
    spy = Spy(monkeypatch)
    with pytest.warns(rdskit.errors.CacheWarning, match="moved to .*damaged-") as caught:
        healed = frames.mentions_to_frame(client, dataset_ids=[dataset], cache=True)
    assert len(caught) == 1
    assert spy.received == 250  # fetched again, whole
    pd.testing.assert_frame_equal(by_key(healed), by_key(first))
    assert len(list(path.parent.glob("*.damaged-*"))) == 1  # kept aside for a look
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # healed: no second warning
        again = frames.mentions_to_frame(client, dataset_ids=[dataset], cache=True)
    assert len(again) == 250


def test_private_files_reach_the_disk_before_they_replace_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync-dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync-file")
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        events.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    _files.write_private(_files.private_dir(tmp_path / "d") / "f", b"data")
    assert events == ["fsync-file", "replace", "fsync-dir"]
