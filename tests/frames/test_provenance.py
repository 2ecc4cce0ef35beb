"""Provenance on every frame: what the loaders record, and that it survives parquet, the
cache, ``pd.concat`` and the accessor's derived frames (against a real sandbox)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pyarrow.parquet as pq
import pytest
from research_sandbox import BRANDS, SOURCES, WINDOW, Research

import rdskit
import rdskit.frames as frames
from rdskit.frames.provenance import (
    METADATA_KEY,
    Provenance,
    merge_records,
    provenance_of,
    public_base_url,
)


def _no_secret(frame: pd.DataFrame, research: Research) -> None:
    text = json.dumps(frame.attrs, default=str) + repr(frame.rds.provenance())
    assert research.api_key not in text


def test_mentions_loader_records_where_the_frame_came_from(research: Research) -> None:
    client = research.client
    before = datetime.now(UTC) - timedelta(seconds=5)
    df = research.mentions(sources=["reddit", "tiktok"])
    prov = df.rds.provenance()
    assert isinstance(prov, Provenance) and prov.kind == "mentions"
    assert prov.base_urls == (client.base_url.rstrip("/"),)
    assert prov.account_ids == (client.me().account_id,)
    assert {d.id: d.name for d in prov.datasets} == {v: k for k, v in research.datasets.items()}
    assert prov.rdskit_version == rdskit.__version__
    fetched = datetime.fromisoformat(prov.fetched_at.replace("Z", "+00:00"))
    assert before <= fetched <= datetime.now(UTC)
    (fetch,) = prov.fetches
    assert fetch.rows == len(df) and fetch.query["sources"] == ["reddit", "tiktok"]
    assert sorted(fetch.query["dataset_ids"]) == sorted(research.datasets.values())
    # One completed run per dataset, with its parameters as the service echoes them.
    runs = {r.dataset_id: r for r in prov.runs}
    assert set(runs) == set(research.datasets.values())
    oatly = runs[research.datasets["Oatly"]]
    assert oatly.status == "completed" and oatly.search_query == BRANDS["Oatly"]
    assert oatly.sources == tuple(SOURCES)
    assert oatly.date_range == (WINDOW["from"], WINDOW["to"])
    assert set(oatly.analyses) == {"sentiment", "hook", "cta"}
    assert oatly.params["num_comments_per_post"] == 3
    _no_secret(df, research)


def test_other_loaders_record_their_fetch(research: Research) -> None:
    client = research.client
    profiles = client.audience_profiles.to_frame(audience_dataset_ids=[research.audience])
    prov = profiles.rds.provenance()
    assert prov.kind == "profiles" and prov.fetches[0].resource == "audience_profiles"
    assert prov.dataset_ids == (research.audience,)
    for frame, resource in (
        (frames.datasets_to_frame(client), "datasets"),
        (frames.usage_history_to_frame(client), "usage"),
    ):
        fetch = frame.rds.provenance().fetches[0]
        assert fetch.resource == resource and fetch.rows == len(frame)
        assert fetch.account_id == client.me().account_id
        _no_secret(frame, research)


def test_base_url_never_keeps_credentials() -> None:
    assert public_base_url("https://u:p@api.test:8443/x/?key=1#f") == "https://api.test:8443/x"


def test_survives_parquet_both_ways(research: Research, tmp_path: Path) -> None:
    df = research.mentions()
    expected = df.rds.provenance()
    # pandas' own writer (attrs in the file) read back by rdskit's reader.
    df.to_parquet(tmp_path / "pandas.parquet")
    assert frames.read_parquet(tmp_path / "pandas.parquet").rds.provenance() == expected
    # rdskit's streaming writer: Arrow schema metadata under b"rdskit" in every file.
    written = frames.mentions_to_parquet(
        research.client, tmp_path / "stream", dataset_ids=list(research.datasets.values())
    )
    files = list((tmp_path / "stream").rglob("*.parquet"))
    assert written == len(df) and files
    for file in files:
        stored = json.loads(pq.read_schema(file).metadata[METADATA_KEY])
        assert stored["fetches"][0]["datasets"] and research.api_key not in json.dumps(stored)
    back = frames.read_parquet(tmp_path / "stream").rds.provenance()
    assert back.dataset_ids == expected.dataset_ids and back.runs == expected.runs
    assert back.account_ids == expected.account_ids and back.fetches[0].rows is None


def test_survives_the_parquet_cache(research: Research) -> None:
    ids = list(research.datasets.values())
    first = research.client.mentions.to_frame(dataset_ids=ids, cache=True)
    second = research.client.mentions.to_frame(dataset_ids=ids, cache=True)
    assert len(first.rds.provenance().fetches) == 1
    fetches = second.rds.provenance().fetches
    # The refresh is recorded after the first fetch, which the cache file remembered.
    assert len(fetches) == 2 and all(f.cache for f in fetches)
    assert fetches[0] == first.rds.provenance().fetches[0]
    assert second.rds.provenance().runs == first.rds.provenance().runs
    cache_file = next(frames.cache_dir().rglob("*.parquet"))
    assert len(from_file(cache_file)["fetches"]) == 2


def from_file(path: Path) -> dict:
    return json.loads(pq.read_schema(path).metadata[METADATA_KEY])


def test_concat_merges_instead_of_dropping(research: Research) -> None:
    oatly = research.client.mentions.to_frame(dataset_ids=[research.datasets["Oatly"]])
    alpro = research.client.mentions.to_frame(dataset_ids=[research.datasets["Alpro"]])
    both = pd.concat([oatly, alpro], ignore_index=True)
    prov = both.rds.provenance()
    assert set(prov.dataset_ids) == set(research.datasets.values())
    assert len(prov.fetches) == 2 and prov.kind == "mentions"
    assert {r.dataset_id for r in prov.runs} == set(research.datasets.values())
    # Stacking a frame with itself keeps one record; with a plain frame, the rdskit one.
    assert pd.concat([oatly, oatly]).rds.provenance() == oatly.rds.provenance()
    plain = pd.DataFrame({"source": ["x"], "id": ["1"]})
    assert pd.concat([oatly, plain]).rds.provenance() == oatly.rds.provenance()
    # And a merge keeps both sides' records too.
    joined = oatly[["source", "id"]].merge(alpro[["source", "id", "text"]], how="outer")
    assert set(joined.rds.provenance().dataset_ids) == set(research.datasets.values())


@pytest.mark.parametrize(
    ("inputs", "method"),
    [
        (lambda a, b: SimpleNamespace(input_objs=[a, b]), "merge"),  # pandas 3
        (lambda a, b: SimpleNamespace(objs=[a, b]), "concat"),  # pandas 2's concatenator
        (lambda a, b: SimpleNamespace(left=a, right=b), "merge"),  # pandas 2's merge
    ],
    ids=["input_objs", "objs", "left-right"],
)
def test_concat_and_merge_inputs_of_every_supported_pandas(
    inputs: Callable[[pd.DataFrame, pd.DataFrame], object], method: str
) -> None:
    # Each pandas version hands __finalize__ the combined frames its own way; the test
    # above sees only the installed version's, this one all of them.
    a, b = pd.DataFrame({"x": [1]}), pd.DataFrame({"x": [2]})
    a.attrs["rdskit"] = {"kind": "mentions", "fetches": [{"rows": 1}]}
    b.attrs["rdskit"] = {"kind": "mentions", "fetches": [{"rows": 2}]}
    out = pd.DataFrame({"x": [1, 2]}).__finalize__(inputs(a, b), method=method)
    assert out.attrs["rdskit"] == {"kind": "mentions", "fetches": [{"rows": 1}, {"rows": 2}]}


def test_derived_frames_carry_it(research: Research) -> None:
    df = research.mentions()
    expected = df.rds.provenance()
    for derived, kind in (
        (df.rds.comments(), "comments"),
        (df.rds.hooks(), "hooks"),
        (df.rds.hashtags(), "hashtags"),
        (df.rds.top(5, per="source"), "mentions"),
        (df[df["source"] == "reddit"], "mentions"),
        (df.sort_values("num_likes").head(3), "mentions"),
    ):
        prov = provenance_of(derived)
        assert prov.kind == kind and prov.fetches == expected.fetches


def test_merge_records_keeps_every_fetch_once() -> None:
    a = {"kind": "mentions", "fetches": [{"rows": 1}], "steps": [{"step": "x"}]}
    b = {"kind": "profiles", "fetches": [{"rows": 1}, {"rows": 2}]}
    merged = merge_records([a, b])
    assert merged["fetches"] == [{"rows": 1}, {"rows": 2}]
    assert "kind" not in merged and merged["steps"] == [{"step": "x"}]


def test_loader_without_client_has_an_empty_record() -> None:
    df = frames.mentions_frame([{"source": "reddit", "id": "t3_a"}])
    assert df.rds.provenance() == Provenance(kind="mentions")
