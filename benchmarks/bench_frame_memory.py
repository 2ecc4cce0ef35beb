"""Benchmark: peak memory of ``client.mentions.to_frame`` against the frame it builds.

A synthetic service answers in-process through ``httpx.MockTransport`` (no sockets, no
server process; it holds 1,000 template posts, analysed, three comments each, from the
sandbox corpus, and encodes each 100-mention page on request with fresh ids), so the
client's memory is what is measured and the run takes minutes, not the hours the
sandbox's 5 req/s would. Each size runs twice, each time in a fresh process:

- **cold**, as a user's first call: build the templates (the service's side), read the RSS
  (``before``), then ``client.mentions.to_frame()`` over ``N`` mentions;
- **warm**: the same after a 1,000-mention ``to_frame`` has run (imports, validators and
  allocator pools already there, which the measured call can reuse).

The peak RSS of the process (``ru_maxrss``) minus ``before`` is what the call needed at
most; the final frame's Arrow bytes are its columns as one Arrow table. Reported at 100k
and 300k mentions, for both: that growth as a ratio of the final Arrow bytes, and beside
it the whole process's peak (templates, interpreter and libraries included) as a ratio of
the frame. Target: the **cold** growth at most 2x the frame. Exit status 1 if a size misses
it. On a shared machine the RSS is not affected by load (only the time is).

Usage:
    python benchmarks/bench_frame_memory.py [--sizes 100000 300000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import secrets
import sys
import time
from datetime import UTC, datetime
from typing import Any

import httpx
import pyarrow as pa

import rdskit
from rdskit.sandbox.synth import corpus, enrichment

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC).timestamp()  # the same corpus whatever the day
PAGE = 100
TARGET = 2.0
TEMPLATES = 1_000
ME = {"id": "usr_1", "account_id": "acc_1", "email": "owner@example.test", "created_at": 0}


def templates() -> list[dict[str, Any]]:
    """Analysed corpus posts with comments."""
    query = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": "oat milk"}
    posts = corpus.collect(13, query, TEMPLATES, num_comments_per_post=3, now=NOW)
    return [enrichment.enrich(post, ["sentiment", "hook", "cta"]) for post in posts]


def service(posts: list[dict[str, Any]], total: int) -> httpx.MockTransport:
    """``POST /v1/mentions`` over ``total`` mentions (copies of ``posts`` with their own
    ids), 100 per page, the cursor being the next offset; ``GET /v1/me``."""

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/me":
            return httpx.Response(200, json={"status": "success", "data": ME})
        start = int(json.loads(request.content).get("cursor") or 0)
        stop = min(start + PAGE, total)
        data = [
            {**posts[n % len(posts)], "id": f"{posts[n % len(posts)]['id']}~{n}"}
            for n in range(start, stop)
        ]
        more = stop < total
        body = {
            "status": "success",
            "data": data,
            "has_next": more,
            "cursor": str(stop) if more else None,
        }
        return httpx.Response(200, content=json.dumps(body).encode())

    return httpx.MockTransport(answer)


def rss() -> int:
    """The process's resident set now, in bytes (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def measure(total: int, warm: bool, out: Any) -> None:
    """In a fresh process: (before, peak, final Arrow bytes, seconds) of one to_frame,
    after a warm-up call when ``warm``."""
    posts = templates()
    key = "bz_test_" + secrets.token_hex(16)

    def frame(count: int) -> Any:
        http = httpx.Client(transport=service(posts, count))
        with rdskit.Client(key, base_url="http://rds.test", http_client=http, rate_limit=None) as c:
            return c.mentions.to_frame()

    if warm:
        frame(TEMPLATES)  # imports, validators, allocator pools
    before = rss()
    began = time.perf_counter()
    df = frame(total)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert len(df) == total, len(df)
    arrow = pa.Table.from_pandas(df, preserve_index=False).nbytes
    out.send((before, peak, arrow, seconds))


def in_child(total: int, warm: bool) -> tuple[int, int, int, float]:
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=measure, args=(total, warm, send))
    child.start()
    result: tuple[int, int, int, float] = receive.recv()
    child.join()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000])
    args = parser.parse_args()
    ok = True
    mib = 2**20
    for total in args.sizes:
        for warm in (False, True):
            before, peak, arrow, seconds = in_child(total, warm)
            ratio = (peak - before) / arrow
            verdict = ""
            if not warm:
                ok &= ratio <= TARGET
                verdict = f" (target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'})"
            print(
                f"{total:>9,} mentions, {'warm' if warm else 'cold'}: final frame "
                f"{arrow / mib:7.1f} MiB of Arrow data; to_frame grew the peak by "
                f"{(peak - before) / mib:7.1f} MiB above the {before / mib:.0f} MiB before it "
                f"= {ratio:.2f}x the frame{verdict}; whole process peak {peak / mib:.0f} MiB "
                f"= {peak / arrow:.2f}x the frame; {seconds:.0f} s",
                flush=True,
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
