"""Stored mentions are served as validated when written, joined from their stored text:
the same bytes as the old per-request ``Mention.model_validate(item).to_wire()`` round
trip of the parsed bodies.

Sandboxes with the same seed and a pinned clock store one corpus (analysed posts with
comments, plus values only a validating reader normalises and fields no model declares)
into dataset A, then a second run brings some of the posts into dataset B with other
comments (some the same, some changed, some new, a duplicate, none). Stored and served

- ``old``: raw bodies (no stored layout), validated, dumped and encoded on every read;
- ``new``: validated once by the writer, in the stored layout, joined on read;
- ``legacy``: validated by the writer but stored as an older sandbox did (no layout):
  the reader's per-row fallback.

Every page of ``POST /v1/mentions`` over A, over B and over both must be byte-for-byte
the same, the cursor and the dataset ids aside (signed with, and carrying, each sandbox's
own secret and instance).
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
from rdskit.sandbox.backend.mention_wire import encode
from rdskit.sandbox.store.db import dumps
from rdskit.sandbox.synth import corpus, enrichment

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


def second_run(posts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Some of ``posts`` collected again: their comments the same, changed and new, one
    repeated within the run, or none."""
    again = copy.deepcopy(posts[:60])
    for n, post in enumerate(again):
        comments = post.get("comments") or []
        if n % 4 == 0:
            post["comments"] = []
        elif n % 4 == 1 and comments:
            changed = {**comments[0], "num_likes": 1000 + n}
            post["comments"] = [changed, {**comments[-1], "id": f"{post['id']}_again"}]
        elif n % 4 == 2 and comments:
            post["comments"] = [*comments, {**comments[0], "num_likes": 2000 + n}]
    return again


def pages(
    monkeypatch: pytest.MonkeyPatch, runs: list[list[dict[str, Any]]], mode: str
) -> dict[str, list[bytes]]:
    """Every page (limit 50) over dataset A, B and both, the ``runs`` stored into A then
    B and served the ``old``, ``new`` or ``legacy`` way."""
    with start(speed=1000, rate_limit=1e6) as sb, monkeypatch.context() as patch:
        patch.setattr(sb.store.clock, "now", lambda: NOW)
        if mode != "new":  # written as the sandbox before the stored layout wrote them
            patch.setattr(datasets, "stored_body", dumps)
            patch.setattr(datasets, "unique", list)
        if mode == "old":
            hydrate = mention_query.hydrate

            def validated_on_read(*args: Any) -> list[str]:
                return [encode(Mention.model_validate(item).to_wire()) for item in hydrate(*args)]

            patch.setattr(datasets, "wire_mention", lambda mention: mention)
            patch.setattr(mention_query, "render", validated_on_read)
        headers = {"x-api-key": sb.api_key}
        with httpx.Client(base_url=sb.url, headers=headers, timeout=60) as http:
            ids = {}
            for name, posts in zip("AB", runs, strict=True):
                ids[name] = http.post("/v1/datasets", json={"name": name}).json()["data"]["id"]
                patch.setattr(
                    datasets, "collect_mentions", lambda *a, p=posts, **k: copy.deepcopy(p)
                )
                datasets.seed_mentions(sb.store, sb.account_id, ids[name], len(posts))
            out: dict[str, list[bytes]] = {}
            for scope in ("A", "B", "AB"):
                out[scope], cursor = [], None
                while True:
                    body = {"dataset_ids": [ids[n] for n in scope], "limit": 50, "cursor": cursor}
                    response = http.post("/v1/mentions", json=body)
                    assert response.status_code == 200, response.text
                    served = CURSOR.sub(b'"cursor":"-"', response.content)
                    for name, dataset_id in ids.items():  # ids carry each sandbox's instance
                        served = served.replace(dataset_id.encode(), f"ds_{name}".encode())
                    out[scope].append(served)
                    cursor = response.json()["cursor"]
                    if cursor is None:
                        break
            return out


def test_served_bytes_match_the_old_validate_and_dump(monkeypatch: pytest.MonkeyPatch) -> None:
    posts = odd_corpus()
    runs = [posts, second_run(posts)]
    old, new = pages(monkeypatch, runs, "old"), pages(monkeypatch, runs, "new")
    for scope in ("A", "B", "AB"):
        assert len(new[scope]) == len(old[scope]) >= 2
        for number, (before, after) in enumerate(zip(old[scope], new[scope], strict=True)):
            assert after == before, f"{scope} page {number + 1} differs"
    served = b"".join(new["A"])
    # The oddities were really there and were normalised (or kept), not dropped.
    assert b'"future_field":{"b":[1,2],"a":null}' in served
    assert b'"mixed":"0.01"' in served and b'"followers":12' in served
    assert b'"language":"en"' in served and b'"vibe":{"calm":1.0,"serious":0.0}' in served
    assert b"+00:00" not in served
    # Every comments case was served: merged over two runs, B's own, none in scope.
    both, only_b = b"".join(new["AB"]), b"".join(new["B"])
    assert b"_again" in both and b'"num_likes":1001' in both and b'"num_likes":2002' not in both
    assert b'"comments":[]' in only_b and b'"comments":[{' in only_b


def test_a_body_stored_by_an_older_sandbox_is_served_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    posts = odd_corpus()
    runs = [
        posts,
        [
            p
            for p in second_run(posts)
            if len({c["id"] for c in p["comments"]}) == len(p["comments"])
        ],
    ]
    new, legacy = pages(monkeypatch, runs, "new"), pages(monkeypatch, runs, "legacy")
    assert new == legacy


def test_a_value_the_model_rejects_fails_the_write() -> None:
    with pytest.raises(ValueError, match="num_likes"):
        datasets.wire_mention({"source": "reddit", "id": "1", "num_likes": "many"})
