"""Benchmark: fetching 20k mentions into a frame from a sandbox with its 5 req/s limit on.

The sandbox runs in its own process (``rdskit sandbox``), as the service would be remote:
in-process it would compete with the client for the GIL. It collects 5,000 mentions on
each of four topics (a run is capped at the plan's research depth), then
``rdskit.frames.mentions_to_frame`` fetches all of them, 100 per page.

The ceiling is the limit itself: 5 requests/s x 100 mentions per page = 500 mentions/s.
Reported: end-to-end mentions/s (requests, parsing, flattening) as a ratio of that ceiling
and the number of 429 responses (the client's own limiter should keep it at zero).

Targets: at least 90% of the ceiling, zero 429s. Exit status 1 on a miss.

Usage:
    python benchmarks/bench_fetch.py
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

import rdskit
from rdskit.frames import mentions_to_frame
from rdskit.sandbox import AdminClient

RATE_LIMIT = 5.0  # requests per second, the service's limit
PAGE = 100  # mentions per page, the service's maximum
CEILING = RATE_LIMIT * PAGE
TODAY = "2026-06-01"  # the sandbox's date: its corpus is the same whatever the day
TOPICS = ("oat milk", "cold brew", "running shoes", "sunscreen")
PER_TOPIC = 5_000  # the Business plan's research depth


def _printed(banner: str, label: str) -> str:
    """The value ``rdskit sandbox`` printed after ``label :``."""
    found = re.search(rf"{label}\s*:\s*(\S+)", banner)
    if found is None:
        raise RuntimeError(f"the sandbox did not print its {label}: {banner!r}")
    return found.group(1)


@contextmanager
def sandbox_process() -> Iterator[tuple[str, AdminClient]]:
    """A sandbox served by a child process: (base URL, admin client)."""
    command = [
        sys.executable,
        "-m",
        "rdskit.cli",
        "sandbox",
        "--port",
        "0",
        "--speed",
        "1000",
        "--rate-limit",
        str(RATE_LIMIT),
        "--today",
        TODAY,
    ]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        banner = "".join(child.stdout.readline() for _ in range(4))
        url, token = (_printed(banner, label) for label in ("base URL", "admin token"))
        admin = AdminClient(url, token)
        try:
            yield url, admin
        finally:
            admin.close()
    finally:
        child.terminate()
        child.wait(timeout=30)


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    with sandbox_process() as (url, admin):
        account = admin.create_account(plan="Business")
        statuses: Counter[int] = Counter()
        http = httpx.Client(event_hooks={"response": [lambda r: statuses.update([r.status_code])]})
        with http, rdskit.Client(account.api_key, base_url=url, http_client=http) as client:
            print(f"collecting {len(TOPICS) * PER_TOPIC:,} mentions in the sandbox ...", flush=True)
            datasets = []
            for topic in TOPICS:
                dataset = client.datasets.create(topic)
                query = {
                    "type": "prompt",
                    "sources": ["reddit", "tiktok", "instagram"],
                    "search_query": topic,
                }
                client.datasets.runs.create(dataset.id, query, count=PER_TOPIC).wait(timeout=600)
                datasets.append(dataset.id)
            statuses.clear()
            started = time.perf_counter()
            frame = mentions_to_frame(client, dataset_ids=datasets)
            elapsed = time.perf_counter() - started
    rate = len(frame) / elapsed
    ratio = rate / CEILING
    too_many = statuses[429]
    print(
        f"fetched {len(frame):,} mentions in {elapsed:.1f} s with {sum(statuses.values())} requests"
    )
    print(
        f"throughput: {rate:.0f} mentions/s = {ratio:.1%} of the {CEILING:.0f} mentions/s "
        f"ceiling (target >= 90%: {'met' if ratio >= 0.9 else 'NOT met'})"
    )
    print(f"429 responses: {too_many} (target 0: {'met' if too_many == 0 else 'NOT met'})")
    return 0 if ratio >= 0.9 and too_many == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
