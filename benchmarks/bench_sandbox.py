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
the hardest case for a keyset). Exit status 1 if a page-900 ratio misses the target.

Usage:
    python benchmarks/bench_sandbox.py [--mentions 100000] [--pages 900] [--limit 20]
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

from rdskit.sandbox import start
from rdskit.sandbox.backend.datasets import seed_mentions
from rdskit.sandbox.backend.mention_query import MentionQuery, search
from rdskit.sandbox.db import Store

TARGET = 1.5  # page 900 may cost at most this many times page 1
SORTS = ("date", "dataset_run_at")
REPEATS = 40  # interleaved page-1 / page-900 pairs per measurement


def build(path: Path, mentions: int) -> tuple[str, float]:
    """Create the dataset in a file database; return (dataset id, seconds it took)."""
    with start(db=path, rate_limit=1e6) as handle:
        with httpx.Client(base_url=handle.url, headers={"x-api-key": handle.api_key}) as http:
            dataset_id = http.post("/v1/datasets", json={"name": "Benchmark"}).json()["data"]["id"]
        began = time.perf_counter()
        seed_mentions(handle.store, handle.account_id, dataset_id, mentions)
        return dataset_id, time.perf_counter() - began


@contextmanager
def serve(path: Path) -> Iterator[httpx.Client]:
    """``rdskit sandbox`` on ``path`` in a child process; yields a client with its key."""
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--port", "0", "--db", str(path)]
    command += ["--rate-limit", "1000000"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        banner = "".join(child.stdout.readline() for _ in range(3))
        url, key = (re.search(rf"{label}\s*:\s*(\S+)", banner) for label in ("base URL", "API key"))
        if url is None or key is None:
            raise RuntimeError(f"unexpected banner from rdskit sandbox: {banner!r}")
        with httpx.Client(
            base_url=url.group(1), headers={"x-api-key": key.group(1)}, timeout=60
        ) as http:
            yield http
    finally:
        child.terminate()
        child.wait(30)


def timed(call: Callable[[], Any]) -> float:
    """Seconds one call takes."""
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


def percentile(samples: list[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``samples`` (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


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
    with Store(path) as store, store.read() as conn:

        def page(at: str | None) -> Callable[[], Any]:
            query = MentionQuery(dataset_ids=[dataset_id], sort=sort, limit=limit, cursor=at)
            return partial(search, conn, account_id, query)

        return interleaved(page(None), page(cursor))


def report(path: Path, dataset_id: str, args: argparse.Namespace) -> bool:
    """Measure and print every figure; True if the deep pages meet the target."""
    ok = True
    with serve(path) as http:
        account_id = http.get("/v1/me").json()["data"]["account_id"]
        trivial = [timed(lambda: http.get("/v1/prices").raise_for_status()) for _ in range(200)]
        base_rps = len(trivial) / sum(trivial)
        base_p50, base_p95 = percentile(trivial, 0.5), percentile(trivial, 0.95)
        print(f"baseline GET /v1/prices: {base_rps:7.1f} req/s,", end=" ")
        print(f"p50 {ms(base_p50)}, p95 {ms(base_p95)}")
        for sort in SORTS:
            body = {"dataset_ids": [dataset_id], "sort": sort, "limit": args.limit}
            latencies, cursor = walk(http, body, args.pages)
            rps = len(latencies) / sum(latencies)
            p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
            http_costs = interleaved(
                partial(mentions_page, http, body),
                partial(mentions_page, http, {**body, "cursor": cursor}),
            )
            sql = sql_costs(path, dataset_id, account_id, sort, args.limit, cursor)
            print(f"\nPOST /v1/mentions sort={sort} limit={args.limit}, pages 1..{args.pages - 1}:")
            print(f"  throughput  {rps:7.1f} req/s = {rps * args.limit:6.0f} mentions/s", end=" ")
            print(f"  ({rps / base_rps:.2f}x the baseline's req/s)")
            print(f"  latency p50 {ms(p50)}   ({p50 / base_p50:.2f}x baseline p50)")
            print(f"  latency p95 {ms(p95)}   ({p95 / base_p95:.2f}x baseline p95)")
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rdskit-bench-") as tmp:
        path = Path(tmp) / "sandbox.db"
        dataset_id, seconds = build(path, args.mentions)
        rate = args.mentions / seconds
        print(f"built {args.mentions:,} mentions in {seconds:.1f} s ({rate:,.0f} mentions/s)\n")
        return 0 if report(path, dataset_id, args) else 1


if __name__ == "__main__":
    sys.exit(main())
