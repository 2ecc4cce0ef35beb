"""Mentions frames built page by page: the same table as from one list, and the wire still
validated (no model is built on this path, but a bad value is not let through)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import httpx
import pyarrow as pa
import pytest

import rdskit
from rdskit.frames import mentions as frame_mentions
from rdskit.frames.mentions import mentions_table, mentions_table_from_pages
from rdskit.resources.mentions import wire_pages
from rdskit.sandbox.synth import corpus, enrichment


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    """Analysed corpus posts with comments, some with custom parameter values."""
    query = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": "oat milk"}
    posts = [
        enrichment.enrich(post, ["sentiment", "hook", "cta"])
        for post in corpus.collect(5, query, 230, num_comments_per_post=2)
    ]
    for n, post in enumerate(posts[::7]):
        post["parameters"] = {"cp_1": {"value": f"v{n}", "status": "done", "computed_at": 0}}
    # A repeat: the first occurrence wins, in both builds.
    return [*posts, {**posts[3], "title": "repeated"}]


@pytest.mark.parametrize("page_size", [1, 37, 100])
def test_pages_build_the_table_one_list_builds(
    rows: list[dict[str, Any]], page_size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frame_mentions, "CHUNK_ROWS", 50)  # several chunks, split mid-page
    names = {"cp_1": "brand"}
    whole = mentions_table(rows, names)
    pages = (rows[i : i + page_size] for i in range(0, len(rows), page_size))
    paged = mentions_table_from_pages(pages, names)
    assert paged.equals(whole) and paged.schema == whole.schema
    assert [len(c) for c in paged["id"].chunks] == [len(c) for c in whole["id"].chunks]
    assert "brand" in paged.column_names
    assert paged.num_rows == len(rows) - 1


def test_no_pages_give_the_empty_table() -> None:
    empty = mentions_table_from_pages([])
    assert empty.num_rows == 0 and empty.schema == mentions_table([]).schema
    assert isinstance(empty, pa.Table)


def serving(*items: dict[str, Any]) -> rdskit.Client:
    """A client whose service answers every mentions call with one page of ``items``."""
    body = {"status": "success", "data": list(items), "has_next": False, "cursor": None}

    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/mentions", request.url
        return httpx.Response(200, content=json.dumps(body).encode())

    http = httpx.Client(transport=httpx.MockTransport(answer))
    key = "bz_test_" + secrets.token_hex(16)
    return rdskit.Client(key, base_url="http://rds.test", http_client=http)


def test_a_bad_value_from_the_service_names_its_field(rows: list[dict[str, Any]]) -> None:
    bad = json.loads(json.dumps(rows[0]))
    bad["comments"][0]["num_likes"] = "lots"
    with serving(rows[1], bad) as client, pytest.raises(rdskit.UnexpectedResponse) as caught:
        client.mentions.to_frame()
    assert "comments.0.num_likes" in str(caught.value)
    bad_date = {"source": "reddit", "id": "1", "created_at": "soon"}
    with serving(bad_date) as client, pytest.raises(rdskit.UnexpectedResponse, match="created_at"):
        client.mentions.to_frame()


def test_unknown_fields_and_values_are_accepted(rows: list[dict[str, Any]]) -> None:
    novel = {**rows[0], "future_field": {"x": 1}, "content_type": "hologram"}
    novel["sentiment"] = {**(novel.get("sentiment") or {}), "mixed": "0.2"}
    with serving(novel) as client:
        (page,) = wire_pages(client)
        table = mentions_table_from_pages([page])
    assert page == [novel]  # what the service sent, unknown fields kept
    assert table["content_type"].to_pylist() == ["hologram"]
    assert table["id"].to_pylist() == [rows[0]["id"]]
