"""Benchmark: listing mentions of a 100k-mention dataset from the sandbox, page 1 to page 900.

The dataset is built in-process with ``rdskit.sandbox.backend.datasets.seed_mentions`` (real
corpus posts copied with their own ids, dates and metrics, written by the same code as a
dataset run), then served by ``rdskit sandbox`` in a child process, as the service would be
remote: in-process the server would compete with this client for the GIL. The rate limit
is raised so that the server, not the limiter, is measured.

Every figure is printed next to a baseline measured in the same run, as a ratio, so the
result does not depend on the machine:

- list-mentions throughput and p50/p95 latency while walking 900 pages (``limit`` 20)
  sequentially, against ``GET /v1/prices`` (authenticated, no database work);
- page 900 against page 1, over HTTP and in SQL alone (the keyset query without HTTP and
  JSON), requests interleaved so that load spikes hit both alike. Keyset pagination makes
  a deep page cost what the first costs; the target is at most 1.5x.

Two sorts are measured: ``date`` (distinct keys) and ``dataset_run_at`` (one 100k tie group,
the hardest case for a keyset).

A third figure is the page a researcher's client reads most: 100 analysed mentions
(sentiment, hooks, CTA, three comments each) from a second dataset, ``--analysed`` posts.
It is measured against a minimal app (FastAPI + uvicorn, like the sandbox, in its own
process) returning the very same bytes, so the ratio shows what serving mentions costs
beyond moving the bytes, and printed next to ``GET /v1/prices``; its p50 must be at most
4x the minimal app's (an absolute 10 ms once, which one machine met and another did not:
a ratio measured in the same run does not depend on the machine). The three are
requested in turn, ``--samples`` times each, so load hits them alike; each is printed with
its n, p50, p95, p99 and maximum.

Exit status 1 if a page-900 ratio misses its target or the analysed page's p50 is over
4x the minimal app's. Figures measured on a busy machine are inflated: compare the ratios.

Usage:
    python benchmarks/bench_sandbox.py [--mentions 100000] [--pages 900] [--limit 20]
        [--analysed 2000] [--samples 200]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx
from _stats import latency_line, load_line, quantile

from rdskit.sandbox import start
from rdskit.sandbox.backend.datasets import seed_mentions
from rdskit.sandbox.backend.mention_query import MentionQuery, search
from rdskit.sandbox.backend.tables import open_store

TARGET = 1.5  # page 900 may cost at most this many times page 1
PAGE_RATIO = 4.0  # the 100-analysed-mention page's p50, at most this many times the minimal app's
TODAY = "2026-06-01"  # the sandbox's date: its corpus is the same whatever the day
ANALYSES = ("sentiment", "hook", "cta")
SORTS = ("date", "dataset_run_at")
REPEATS = 40  # interleaved page-1 / page-900 pairs per measurement


def build(path: Path, mentions: int, analysed: int) -> tuple[str, str, float]:
    """Create both datasets in a file database; return (dataset id, analysed dataset id,
    seconds the big one took)."""
    with start(db=path, rate_limit=1e6, today=TODAY) as handle:
        with httpx.Client(base_url=handle.url, headers={"x-api-key": handle.api_key}) as http:
            dataset_id, analysed_id = (
                http.post("/v1/datasets", json={"name": name}).json()["data"]["id"]
                for name in ("Benchmark", "Analysed")
            )
        seed_mentions(
            handle.store, handle.account_id, analysed_id, analysed, analyses=ANALYSES, comments=3
        )
        began = time.perf_counter()
        seed_mentions(handle.store, handle.account_id, dataset_id, mentions)
        return dataset_id, analysed_id, time.perf_counter() - began


@contextmanager
def child_server(command: list[str], labels: tuple[str, ...], lines: int) -> Iterator[list[str]]:
    """A server in a child process; yields the values its banner (the first ``lines``
    lines) prints after ``labels``."""
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        banner = "".join(child.stdout.readline() for _ in range(lines))
        found = [re.search(rf"{label}\s*:\s*(\S+)", banner) for label in labels]
        if None in found:
            raise RuntimeError(f"unexpected banner from {command[1:4]}: {banner!r}")
        yield [match.group(1) for match in found if match is not None]
    finally:
        child.terminate()
        child.wait(30)


@contextmanager
def serve(path: Path) -> Iterator[httpx.Client]:
    """``rdskit sandbox`` on ``path`` in a child process; yields a client with its key."""
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--port", "0", "--db", str(path)]
    command += ["--rate-limit", "1000000", "--today", TODAY]
    with (
        child_server(command, ("base URL", "API key"), 3) as (url, key),
        httpx.Client(base_url=url, headers={"x-api-key": key}, timeout=60) as http,
    ):
        yield http


def serve_bytes(path: Path) -> None:
    """The minimal app: ``POST /page`` answers the bytes in ``path``, served like the
    sandbox (FastAPI route on the thread pool, uvicorn, a TCP_NODELAY loopback socket)."""
    import socket

    import uvicorn
    from fastapi import FastAPI, Response

    content = path.read_bytes()
    app = FastAPI()

    @app.post("/page")
    def page() -> Response:
        return Response(content, media_type="application/json")

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    print(f"base URL: http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


def analysed_page(http: httpx.Client, analysed_id: str, samples: int) -> bool:
    """Time the 100-analysed-mention page against its two baselines; True if on target."""
    body = {"dataset_ids": [analysed_id], "limit": 100}
    content = http.post("/v1/mentions", json=body).content
    assert len(http.post("/v1/mentions", json=body).json()["data"]) == 100
    with tempfile.TemporaryDirectory(prefix="rdskit-bench-") as tmp:
        copy = Path(tmp) / "page.json"
        copy.write_bytes(content)
        command = [sys.executable, __file__, "--serve-bytes", str(copy)]
        with child_server(command, ("base URL",), 1) as (url,), httpx.Client(base_url=url) as bare:
            calls = {
                "POST /v1/mentions (100 analysed)": partial(http.post, "/v1/mentions", json=body),
                "GET /v1/prices": partial(http.get, "/v1/prices"),
                "minimal app, same bytes": partial(bare.post, "/page"),
            }
            assert bare.post("/page").content == content
            times: dict[str, list[float]] = {name: [] for name in calls}
            for _ in range(samples):
                for name, call in calls.items():
                    times[name].append(timed(call))
    page, prices, bare = (quantile(values, 0.5) for values in times.values())
    print(f"\n100-analysed-mention page ({len(content) / 1024:.0f} KiB); {load_line()}:")
    for name, values in times.items():
        print(latency_line(f"  {name:34s}", values, bare))
    ratio = page / bare
    met = ratio <= PAGE_RATIO
    print(f"  page p50 = {page / prices:.1f}x GET /v1/prices, {ratio:.2f}x the minimal app with")
    print(f"  the same bytes; target <= {PAGE_RATIO:.0f}x the minimal app:", end=" ")
    print("met" if met else "NOT met")
    return met


def timed(call: Callable[[], Any]) -> float:
    """Seconds one call takes."""
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


def ms(seconds: float) -> str:
    """Seconds as milliseconds for the report."""
    return f"{seconds * 1000:7.2f} ms"


def mentions_page(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    """One ``POST /v1/mentions`` page; fails loudly on anything but 200."""
    response = http.post("/v1/mentions", json=body)
    response.raise_for_status()
    page: dict[str, Any] = response.json()
    return page


def walk(http: httpx.Client, body: dict[str, Any], pages: int) -> tuple[list[float], str]:
    """Latencies of pages 1..``pages - 1`` walked in order, and the cursor of page ``pages``."""
    latencies, cursor = [], None
    for _ in range(pages - 1):
        began = time.perf_counter()
        page = mentions_page(http, {**body, "cursor": cursor})
        latencies.append(time.perf_counter() - began)
        assert page["has_next"] and len(page["data"]) == body["limit"], "the dataset is too small"
        cursor = page["cursor"]
    assert cursor is not None
    return latencies, cursor


def interleaved(first: Callable[[], Any], deep: Callable[[], Any]) -> tuple[float, float]:
    """Median seconds of ``first`` and ``deep``, called alternately ``REPEATS`` times."""
    pairs = [(timed(first), timed(deep)) for _ in range(REPEATS)]
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def sql_costs(
    path: Path, dataset_id: str, account_id: str, sort: str, limit: int, cursor: str
) -> tuple[float, float]:
    """Median seconds of the keyset query alone for page 1 and for the page at ``cursor``."""
    with open_store(path) as store, store.read() as conn:

        def page(at: str | None) -> Callable[[], Any]:
            query = MentionQuery(dataset_ids=[dataset_id], sort=sort, limit=limit, cursor=at)
            return partial(search, conn, account_id, query)

        return interleaved(page(None), page(cursor))


def report(path: Path, dataset_id: str, analysed_id: str, args: argparse.Namespace) -> bool:
    """Measure and print every figure; True if every target is met."""
    with serve(path) as http:
        ok = analysed_page(http, analysed_id, args.samples)
        account_id = http.get("/v1/me").json()["data"]["account_id"]
        trivial = [timed(lambda: http.get("/v1/prices").raise_for_status()) for _ in range(200)]
        base_rps = len(trivial) / sum(trivial)
        base_p50 = quantile(trivial, 0.5)
        print(f"baseline GET /v1/prices: {base_rps:7.1f} req/s")
        print(latency_line("  GET /v1/prices", trivial))
        for sort in SORTS:
            body = {"dataset_ids": [dataset_id], "sort": sort, "limit": args.limit}
            latencies, cursor = walk(http, body, args.pages)
            rps = len(latencies) / sum(latencies)
            http_costs = interleaved(
                partial(mentions_page, http, body),
                partial(mentions_page, http, {**body, "cursor": cursor}),
            )
            sql = sql_costs(path, dataset_id, account_id, sort, args.limit, cursor)
            print(f"\nPOST /v1/mentions sort={sort} limit={args.limit}, pages 1..{args.pages - 1}:")
            print(f"  throughput  {rps:7.1f} req/s = {rps * args.limit:6.0f} mentions/s", end=" ")
            print(f"  ({rps / base_rps:.2f}x the baseline's req/s)")
            print(latency_line("  latency", latencies, base_p50))
            for label, (one, far) in (("HTTP", http_costs), ("SQL ", sql)):
                verdict = "ok" if far <= TARGET * one else f"OVER {TARGET}x"
                ok &= far <= TARGET * one
                print(f"  {label} page {args.pages} {ms(far)} vs page 1 {ms(one)}:", end=" ")
                print(f"{far / one:.2f}x  [{verdict}]")
    return ok


def main() -> int:
    """Build the dataset, serve it, measure, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mentions", type=int, default=100_000, help="dataset size")
    parser.add_argument("--pages", type=int, default=900, help="the deep page to compare")
    parser.add_argument("--limit", type=int, default=20, help="mentions per page")
    parser.add_argument("--analysed", type=int, default=2_000, help="analysed dataset size")
    parser.add_argument("--samples", type=int, default=200, help="analysed page requests")
    parser.add_argument("--serve-bytes", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bytes is not None:  # the child process of the minimal app
        serve_bytes(args.serve_bytes)
        return 0
    with tempfile.TemporaryDirectory(prefix="rdskit-bench-") as tmp:
        path = Path(tmp) / "sandbox.db"
        dataset_id, analysed_id, seconds = build(path, args.mentions, args.analysed)
        rate = args.mentions / seconds
        print(f"built {args.mentions:,} mentions in {seconds:.1f} s ({rate:,.0f} mentions/s)")
        return 0 if report(path, dataset_id, analysed_id, args) else 1


if __name__ == "__main__":
    sys.exit(main())
