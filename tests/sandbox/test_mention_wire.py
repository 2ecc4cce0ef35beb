"""Stored mentions are served as validated when written: the same bytes as the old
per-request ``Mention.model_validate(item).to_wire()`` round trip.

Two sandboxes with the same seed and a pinned clock store one corpus (analysed posts with
comments, plus values only a validating reader normalises and fields no model declares):
the first the old way (raw bodies, validated and dumped on every read), the second the
new way (validated once by the writer, served as stored). Every page of ``POST
/v1/mentions`` must be byte-for-byte the same, the cursor aside (it is signed with each
sandbox's own secret).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import httpx
import pytest

from rdskit.models.mentions import Mention
from rdskit.sandbox import start
from rdskit.sandbox.backend import datasets, mention_query
from rdskit.sandbox.text import corpus, enrichment

NOW = 1_790_000_000.0
CURSOR = re.compile(rb'"cursor":"[^"]*"')


def odd_corpus() -> list[dict[str, Any]]:
    """Analysed corpus posts with comments, then values the model reads in another form
    (ISO and float timestamps, integer vibes, numeric strings for counts, ``+00:00``
    comment dates) and unknown fields at every level."""
    query = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": "oat milk"}
    posts = corpus.collect(3, query, 120, num_comments_per_post=3)
    posts = [enrichment.enrich(post, ["sentiment", "hook", "cta"]) for post in posts]
    for n, post in enumerate(posts):
        if n % 3 == 0:
            post["created_at"] = f"2026-03-0{1 + n % 9}T10:00:00+00:00"
        if n % 3 == 1:
            post["created_at"] = float(post["created_at"]) + 0.75
        if n % 4 == 0:
            post["vibe"] = {"calm": 1, "serious": 0}
            post["num_likes"] = str(post.get("num_likes") or 0)
        if n % 5 == 0:
            post["future_field"] = {"b": [1, 2], "a": None}
            if post.get("sentiment"):
                post["sentiment"]["mixed"] = "0.01"
            if post.get("author"):
                post["author"]["followers"] = 12
        for comment in post.get("comments") or []:
            if n % 2 == 0:
                comment["created_at"] = comment["created_at"].replace("Z", "+00:00")
            comment["language"] = "en"
    assert any(post.get("comments") for post in posts)
    return posts


def pages(
    monkeypatch: pytest.MonkeyPatch, posts: list[dict[str, Any]], *, old: bool
) -> list[bytes]:
    """Every page (limit 50) of the posts stored and served the old or the new way."""
    with start(speed=1000, rate_limit=1e6) as sb, monkeypatch.context() as patch:
        patch.setattr(sb.store.clock, "now", lambda: NOW)
        patch.setattr(datasets, "collect_mentions", lambda *a, **k: copy.deepcopy(posts))
        if old:
            read = mention_query.hydrate

            def validated_on_read(*args: Any) -> list[dict[str, Any]]:
                return [Mention.model_validate(item).to_wire() for item in read(*args)]

            patch.setattr(datasets, "wire_mention", lambda mention: mention)
            patch.setattr(mention_query, "hydrate", validated_on_read)
        headers = {"x-api-key": sb.api_key}
        with httpx.Client(base_url=sb.url, headers=headers, timeout=60) as http:
            dataset_id = http.post("/v1/datasets", json={"name": "Wire"}).json()["data"]["id"]
            datasets.seed_mentions(sb.store, sb.account_id, dataset_id, len(posts))
            out, cursor = [], None
            while True:
                body = {"dataset_ids": [dataset_id], "limit": 50, "cursor": cursor}
                response = http.post("/v1/mentions", json=body)
                assert response.status_code == 200, response.text
                out.append(CURSOR.sub(b'"cursor":"-"', response.content))
                cursor = response.json()["cursor"]
                if cursor is None:
                    return out


def test_served_bytes_match_the_old_validate_and_dump(monkeypatch: pytest.MonkeyPatch) -> None:
    posts = odd_corpus()
    old, new = pages(monkeypatch, posts, old=True), pages(monkeypatch, posts, old=False)
    assert len(new) == len(old) >= 3
    for number, (before, after) in enumerate(zip(old, new, strict=True)):
        assert after == before, f"page {number + 1} differs"
    served = b"".join(new)
    # The oddities were really there and were normalised (or kept), not dropped.
    assert b'"future_field":{"b":[1,2],"a":null}' in served
    assert b'"mixed":"0.01"' in served and b'"followers":12' in served
    assert b'"language":"en"' in served and b'"vibe":{"calm":1.0,"serious":0.0}' in served
    assert b"+00:00" not in served


def test_a_value_the_model_rejects_fails_the_write() -> None:
    with pytest.raises(ValueError, match="num_likes"):
        datasets.wire_mention({"source": "reddit", "id": "1", "num_likes": "many"})
