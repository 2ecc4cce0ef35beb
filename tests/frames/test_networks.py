"""Networks for Gephi: hand-checkable graphs on synthetic frames, GEXF/GraphML round trips
with attributes, child frames, bad input, and a 100k-edge graph built in seconds."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import networkx as nx
import pandas as pd
import pytest

import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.accessor import MissingColumnsError


def post(source: str, pid: str, handle: str, commenters: list[str], **extra: Any) -> dict:
    return {
        "source": source,
        "id": pid,
        "author": {"title": handle.title(), "title_url": f"https://www.tiktok.com/@{handle}"},
        "comments": [
            {"id": f"{pid}_{k}", "author_username": who, "author_name": who.title(), "body": "hi"}
            for k, who in enumerate(commenters)
        ],
        **extra,
    }


@pytest.fixture
def df() -> pd.DataFrame:
    return frames.mentions_frame(
        [
            post(
                "tiktok",
                "1",
                "maya",
                ["sam", "sam", "lea"],
                text="#Oat #barista love",
                mentioned_brands=["Oatly", "Alpro"],
            ),
            post(
                "tiktok", "2", "maya", ["sam"], text="#oat again @Lea", mentioned_brands=["Oatly"]
            ),
            post("tiktok", "3", "sam", ["maya"], text="no tags", mentioned_brands=[]),
        ]
    )


def test_reply_network_counts_comments(df: pd.DataFrame) -> None:
    g = df.rds.network("reply")
    assert g.is_directed() and g.graph["kind"] == "reply"
    # sam commented three times on maya's two posts; lea once; maya once on sam's post.
    assert g.edges["tiktok:sam", "tiktok:maya"] == {"weight": 3, "posts": 2}
    assert g.edges["tiktok:lea", "tiktok:maya"] == {"weight": 1, "posts": 1}
    assert g.edges["tiktok:maya", "tiktok:sam"] == {"weight": 1, "posts": 1}
    assert g.number_of_edges() == 3
    assert g.nodes["tiktok:maya"] == {
        "label": "maya",
        "source": "tiktok",
        "role": "both",
        "posts": 2,
        "comments": 1,
    }
    assert g.nodes["tiktok:lea"]["role"] == "commenter"


def test_graph_equals_networkx_own_construction(df: pd.DataFrame) -> None:
    for kind in ("reply", "hashtags", "brands", "author-brand"):
        g = df.rds.network(kind)
        rebuilt = type(g)(**g.graph)
        rebuilt.add_nodes_from(g.nodes(data=True))
        rebuilt.add_edges_from(g.edges(data=True))
        assert nx.utils.graphs_equal(g, rebuilt), kind
        assert dict(g.adj) == dict(rebuilt.adj)


def test_co_occurrence_and_author_brand(df: pd.DataFrame) -> None:
    tags = df.rds.network("hashtags")
    assert not tags.is_directed()
    assert tags.edges["oat", "barista"]["weight"] == 1 and tags.nodes["oat"]["posts"] == 2
    brands = df.rds.network("brands")
    assert list(brands.edges(data="weight")) == [("Oatly", "Alpro", 1)] or list(
        brands.edges(data="weight")
    ) == [("Alpro", "Oatly", 1)]
    assert brands.nodes["Oatly"]["posts"] == 2
    ab = df.rds.network("author-brand")
    assert ab.edges["tiktok:maya", "Oatly"]["weight"] == 2
    assert ab.nodes["Oatly"]["type"] == "brand" and ab.nodes["tiktok:maya"]["type"] == "author"


@pytest.mark.parametrize("kind", ["reply", "hashtags", "brands", "author-brand"])
def test_round_trips_through_gexf_and_graphml(df: pd.DataFrame, kind: str, tmp_path: Path) -> None:
    g = df.rds.network(kind)
    nx.write_gexf(g, tmp_path / "g.gexf")
    nx.write_graphml(g, tmp_path / "g.graphml")
    for back in (nx.read_gexf(tmp_path / "g.gexf"), nx.read_graphml(tmp_path / "g.graphml")):
        assert back.is_directed() == g.is_directed()
        assert set(back.nodes) == set(g.nodes) and back.number_of_edges() == g.number_of_edges()
        for node, attrs in g.nodes(data=True):
            kept = {k: v for k, v in back.nodes[node].items() if k in attrs}
            assert kept == attrs, (node, back.nodes[node])
        for u, v, attrs in g.edges(data=True):
            assert {k: back.edges[u, v][k] for k in attrs} == attrs


def test_hashtag_and_handle_frames(df: pd.DataFrame) -> None:
    tags = df.rds.hashtags()
    assert tags.values.tolist() == [
        ["tiktok", "1", "oat"],
        ["tiktok", "1", "barista"],
        ["tiktok", "2", "oat"],
    ]
    assert df.rds.handles().values.tolist() == [["tiktok", "2", "lea"]]
    # '#1' and 'a#b' are not hashtags; an email is not a handle.
    odd = frames.mentions_frame([{"source": "x", "id": "1", "text": "#1 a#b me@x.com #ok_2"}])
    assert odd.rds.hashtags()["hashtag"].tolist() == ["ok_2"]
    assert odd.rds.handles().empty


def test_bad_input_is_named(df: pd.DataFrame) -> None:
    with pytest.raises(InvalidParameter, match="reply, hashtags"):
        df.rds.network("friends")
    with pytest.raises(InvalidParameter, match="empty"):
        df.iloc[:0].rds.network("reply")
    with pytest.raises(MissingColumnsError, match="'comments'"):
        df.drop(columns=["comments"]).rds.network("reply")
    with pytest.raises(MissingColumnsError, match="'mentioned_brands'"):
        df[["source", "id", "text"]].rds.network("brands")
    with pytest.raises(MissingColumnsError, match="'text'"):
        df[["source", "id"]].rds.hashtags()


def test_a_pseudonymised_frame_keeps_the_same_structure(df: pd.DataFrame) -> None:
    plain = df.rds.network("reply")
    safe = df.rds.pseudonymise("network test key, 32 characters.").rds.network("reply")
    assert sorted(d for _, d in plain.degree()) == sorted(d for _, d in safe.degree())
    assert sorted(w for *_, w in plain.edges(data="weight")) == sorted(
        w for *_, w in safe.edges(data="weight")
    )
    assert not set(plain.nodes) & set(safe.nodes)


def test_100k_edges_build_in_seconds() -> None:
    # 25k posts by 5k authors, 4 comments each from 60k commenters: ~100k distinct edges.
    rows = [
        post(
            "tiktok",
            str(i),
            f"author{i % 5000}",
            [f"fan{(i * 7 + k * 13) % 60000}" for k in range(4)],
        )
        for i in range(25_000)
    ]
    df = frames.mentions_frame(rows)
    start = time.perf_counter()
    g = df.rds.network("reply")
    elapsed = time.perf_counter() - start
    assert g.number_of_edges() >= 95_000
    assert elapsed < 10, f"{g.number_of_edges()} edges took {elapsed:.1f} s"


def test_without_the_research_extra_the_error_says_what_to_install(
    df: pd.DataFrame, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for module in ("networkx", "scipy.stats", "openpyxl"):
        monkeypatch.setitem(__import__("sys").modules, module, None)
    for call in (
        lambda: df.rds.network("reply"),
        lambda: df.rds.compare(by="id"),
        lambda: df.rds.to_excel(tmp_path / "x.xlsx"),
    ):
        with pytest.raises(ImportError, match=r'pip install "rdskit\[research\]"'):
            call()
