"""Benchmark: a lesson's paid steps run a second time (as a student re-running a notebook).

One in-process sandbox (``--speed`` simulated-time speed-up; 1 by default, as a student's
embedded sandbox runs) and a private ledger directory.
A *lesson* is the paid steps of the tutorials, each in its safe re-run form: a dataset by
name and a collection run (``get_or_create``, ``reuse=True``), a research preview, a custom
parameter and its run, a pattern detection, and an Ask (all ``reuse=True``).

The baseline is the lesson's first run (it pays and waits for the work); the figures are the
same lesson run again by the same client (a re-run cell) and by a new client (a restarted
kernel), each printed as a ratio of the first run's time, with the credits they charged.
Targets: no credit charged by a re-run, and a re-run at most 0.25x the first run's time (it
only reads; what it takes is mostly the client's 5 requests/second). Exit status 1 if a
target is missed. Measured on the 2-core development machine: 0.075x (same client) and
0.11x (new client), 0 credits, against a 27 s first run.

Usage:
    python benchmarks/bench_reruns.py [--count 200] [--speed 1] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal

import rdskit
from rdskit.sandbox import start
from rdskit.sandbox.runtime.clock import NOTEBOOK_TODAY  # a lesson's date, as the course runs

QUERY = {
    "type": "prompt",
    "sources": ["reddit", "tiktok", "youtube", "instagram"],
    "search_query": "oat milk",
}
WINDOW = {"from": "2025-10-01", "to": "2025-11-30"}
TARGET_RATIO = 0.25


def lesson(client: rdskit.Client, count: int) -> None:
    """The tutorials' paid steps, each in its safe re-run form."""
    ds = client.datasets.get_or_create("Oat milk")
    client.datasets.runs.create(
        ds.id, search_query=QUERY, count=count, date_range=WINDOW, reuse=True
    ).wait(progress=False)
    client.research_previews.create(
        search_query="oat milk",
        sources=["reddit", "tiktok"],
        date_since=WINDOW["from"],
        date_until=WINDOW["to"],
        reuse=True,
    )
    brand = client.custom_parameters.get_or_create("brand", "Which brand is mentioned?")
    client.custom_parameters.runs.create(brand.id, dataset_id=ds.id, reuse=True).wait(
        progress=False
    )
    client.pattern_detections.create(
        ds.id, name="Why switch", research_question="Why do people switch?", reuse=True
    ).wait(progress=False)
    client.ask("What do people complain about?", dataset_ids=[ds.id], reuse=True).wait(
        progress=False
    )


def used(client: rdskit.Client) -> Decimal:
    return client.me().usage.credits_used


def timed(client: rdskit.Client, count: int) -> tuple[float, Decimal]:
    before = used(client)
    started = time.perf_counter()
    lesson(client, count)
    return time.perf_counter() - started, used(client) - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="posts collected by the lesson")
    parser.add_argument("--speed", type=float, default=1.0, help="sandbox time speed-up")
    parser.add_argument("--repeat", type=int, default=3, help="re-runs of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["RDSKIT_CACHE_DIR"] = cache  # a private ledger, not the user's
        with start(speed=args.speed, today=NOTEBOOK_TODAY) as sandbox:
            client = rdskit.Client(sandbox.api_key, base_url=sandbox.url)
            first, paid = timed(client, args.count)
            again = [timed(client, args.count) for _ in range(args.repeat)]
            fresh = []
            for _ in range(args.repeat):
                with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as restarted:
                    fresh.append(timed(restarted, args.count))
    print(f"first run (baseline): {first:.2f}s, {paid} credits")
    ok = paid > 0
    for label, runs in (("re-run, same client", again), ("re-run, new client", fresh)):
        median = statistics.median(seconds for seconds, _ in runs)
        charged = sum((credits for _, credits in runs), Decimal(0))
        ratio = median / first
        print(f"{label}: {median:.3f}s = {ratio:.3f}x the first run, {charged} credits charged")
        ok = ok and charged == 0 and ratio <= TARGET_RATIO
    print(f"target: 0 credits and <= {TARGET_RATIO}x: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
