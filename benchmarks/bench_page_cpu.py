"""Benchmark: the client's CPU per 100-mention page on the way into a frame.

The 5 requests/s rate limit gives a client 200 ms per page; whatever CPU a page costs
comes out of that (and out of a notebook's responsiveness). Measured in-process on the
same pre-encoded response bodies (100 analysed mentions with three comments each, from
the sandbox corpus) served by ``httpx.MockTransport``, so only the client's work counts:
HTTP handling, JSON decoding, validation and the Arrow conversion. CPU time, not wall
time, best of ``--repeat`` interleaved runs (the slower runs measure other load).

- ``frame path``: what ``client.mentions.to_frame`` does, ``wire_pages`` (the wire
  validated, no model built) into ``mentions_table_from_pages``;
- ``models path`` (the baseline, the frame path until now): ``client.mentions.list``
  pages of :class:`~rdskit.models.Mention` models, dumped back to dicts by
  ``mentions_table``. It already runs on models without per-instance private state, so
  the ratio understates the change from the previous release.

Targets: the frame path at most half the models path, and at most 12 ms per page
(6% of the 200 ms the rate limit allows). Exit status 1 on a miss.

Usage:
    python benchmarks/bench_page_cpu.py [--pages 20] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx

import rdskit
from rdskit.frames.mentions import mentions_table, mentions_table_from_pages
from rdskit.resources.mentions import wire_pages
from rdskit.sandbox.synth import corpus, enrichment

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC).timestamp()  # the same corpus whatever the day
PAGE = 100
BUDGET_MS = 1000 / 5  # the rate limit's time per request
TARGET_MS = 12.0
TARGET_RATIO = 0.5


def bodies(pages: int) -> list[bytes]:
    """``pages`` list responses of 100 analysed mentions each, chained by cursors."""
    query = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": "oat milk"}
    posts = corpus.collect(11, query, PAGE * pages, num_comments_per_post=3, now=NOW)
    posts = [enrichment.enrich(post, ["sentiment", "hook", "cta"]) for post in posts]
    out = []
    for n in range(pages):
        last = n == pages - 1
        out.append(
            json.dumps(
                {
                    "status": "success",
                    "data": posts[n * PAGE : (n + 1) * PAGE],
                    "has_next": not last,
                    "cursor": None if last else str(n + 1),
                }
            ).encode()
        )
    return out


def client_for(pages: list[bytes]) -> rdskit.Client:
    """A client (no rate limit: CPU is measured) whose service serves ``pages``."""

    def answer(request: httpx.Request) -> httpx.Response:
        cursor = json.loads(request.content).get("cursor")
        return httpx.Response(200, content=pages[int(cursor or 0)])

    http = httpx.Client(transport=httpx.MockTransport(answer))
    key = "bz_test_" + secrets.token_hex(16)
    return rdskit.Client(key, base_url="http://rds.test", http_client=http, rate_limit=None)


def frame_path(client: rdskit.Client) -> int:
    return mentions_table_from_pages(wire_pages(client, limit=PAGE)).num_rows


def models_path(client: rdskit.Client) -> int:
    return mentions_table(client.mentions.list(limit=PAGE)).num_rows


def cpu_ms_per_page(
    call: Callable[[rdskit.Client], int], client: rdskit.Client, pages: int
) -> float:
    began = time.process_time()
    rows = call(client)
    spent = time.process_time() - began
    assert rows == pages * PAGE, rows
    return spent * 1000 / pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"building {args.pages} pages of {PAGE} analysed mentions ...", flush=True)
    served = bodies(args.pages)
    size = sum(map(len, served)) / len(served) / 1024
    candidates: dict[str, Callable[[rdskit.Client], int]] = {
        "frame path": frame_path,
        "models path": models_path,
    }
    runs: dict[str, list[float]] = {name: [] for name in candidates}
    with client_for(served) as client:
        for call in candidates.values():  # warm-up: imports, validators, allocators
            call(client)
        for _ in range(args.repeat):
            for name, call in candidates.items():
                runs[name].append(cpu_ms_per_page(call, client, args.pages))
    best: dict[str, Any] = {name: min(values) for name, values in runs.items()}
    print(f"CPU per {PAGE}-mention page ({size:.0f} KiB of JSON), best of {args.repeat}:")
    for name, ms in best.items():
        share = ms / BUDGET_MS
        print(f"  {name:12s} {ms:6.2f} ms = {share:5.1%} of the {BUDGET_MS:.0f} ms per request")
    ratio = best["frame path"] / best["models path"]
    fast = best["frame path"] <= TARGET_MS
    print(f"frame path / models path: {ratio:.2f}x (target <= {TARGET_RATIO}x:", end=" ")
    print(f"{'met' if ratio <= TARGET_RATIO else 'NOT met'})")
    print(f"frame path per page: target <= {TARGET_MS:.0f} ms: {'met' if fast else 'NOT met'}")
    return 0 if ratio <= TARGET_RATIO and fast else 1


if __name__ == "__main__":
    sys.exit(main())
