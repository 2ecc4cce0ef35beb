"""Benchmark: the sandbox assistant's planner + answer time on a 2,000-mention dataset.

A sandbox collects an analysed "oat milk" dataset of ``--mentions`` posts (five sources,
three comments per post, sentiment/hook/CTA analysis) through the real API. Its posts are
read back with ``POST /v1/mentions``; then every question of the evaluation suite
(``tests/sandbox/eval``: development and held-out cases, follow-ups with their earlier
turns) is planned and answered in-process with :func:`rdskit.sandbox.assistant.answer`,
exactly as the Ask worker does after loading the posts.

Printed next to a baseline measured in the same run, as a ratio, so the result does not
depend on the machine: ``POST /v1/mentions`` for one page (``limit`` 100) of the same
dataset over HTTP. Also printed: the end-to-end Ask (``POST /v1/ask`` until the reply is
completed) for a sample of questions, which adds loading the posts from SQLite and the
simulated think time. Exit status 1 if the p95 of planner + answer misses 300 ms.

Usage:
    python benchmarks/bench_assistant.py [--mentions 2000] [--asks 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from rdskit.sandbox import assistant, start
from rdskit.sandbox.assistant import Scope, Turn

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "sandbox" / "eval"))
import assistant_cases_dev  # the suite's cases live with the tests
import assistant_cases_heldout
from eval_support import collect, read_all

TARGET_P95_MS = 300.0
NAME = "oat milk"


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def page_time(http: httpx.Client, dataset_id: str, repeats: int = 30) -> list[float]:
    """Seconds of ``POST /v1/mentions`` for the first page of 100 posts."""
    body = {"dataset_ids": [dataset_id], "limit": 100}
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        http.post("/v1/mentions", json=body).raise_for_status()
        times.append(time.perf_counter() - began)
    return times


def answer_times(posts: list[dict[str, Any]], dataset_id: str) -> list[float]:
    """Seconds of planner + answer for every question of the suite."""
    scope = [Scope(dataset_id, NAME, (NAME,))]
    cases = assistant_cases_dev.CASES + assistant_cases_heldout.CASES
    assistant.answer("warm-up", posts, scope)  # the vocabulary is built once per dataset
    times = []
    for case in cases:
        history = [Turn(text) for text in case.after]
        began = time.perf_counter()
        assistant.answer(case.question, posts, scope, history=history)
        times.append(time.perf_counter() - began)
    return times


def ask_times(http: httpx.Client, dataset_id: str, count: int) -> list[float]:
    """Seconds of end-to-end Ask (202, then polling until completed) for ``count`` questions."""
    cases = assistant_cases_dev.CASES[:: max(1, len(assistant_cases_dev.CASES) // count)][:count]
    times = []
    for case in cases:
        began = time.perf_counter()
        body = {"message": case.question, "context": {"dataset_ids": [dataset_id]}}
        accepted = http.post("/v1/ask", json=body).json()["data"]
        path = f"/v1/chats/{accepted['chat_id']}/messages/{accepted['message_id']}"
        while http.get(path).json()["data"]["status"] == "working":
            time.sleep(0.005)
        times.append(time.perf_counter() - began)
    return times


def ms(seconds: float) -> str:
    return f"{1000 * seconds:7.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mentions", type=int, default=2000, help="dataset size")
    parser.add_argument("--asks", type=int, default=20, help="end-to-end asks to time")
    args = parser.parse_args()
    with start(speed=1000, rate_limit=1e6, seed=7) as handle:
        # Business: a run may collect up to 5,000 posts (Pro stops at 1,000).
        headers = {"x-api-key": handle.admin.create_account(plan="Business").api_key}
        with httpx.Client(base_url=handle.url, headers=headers, timeout=120) as http:
            began = time.perf_counter()
            dataset_id = collect(http, NAME, args.mentions)
            posts = read_all(http, {"dataset_ids": [dataset_id]})
            print(f"collected {len(posts):,} posts in {time.perf_counter() - began:.1f} s")
            base = statistics.median(page_time(http, dataset_id))
            times = answer_times(posts, dataset_id)
            asks = ask_times(http, dataset_id, args.asks)
            base_after = statistics.median(page_time(http, dataset_id))
    baseline = (base + base_after) / 2
    p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
    print(f"baseline: POST /v1/mentions, one page of 100   {ms(baseline)}")
    print(f"planner + answer over {len(times)} questions of the suite ({len(posts):,} posts):")
    print(f"  p50 {ms(p50)}   ({p50 / baseline:.2f}x the baseline)")
    print(f"  p95 {ms(p95)}   ({p95 / baseline:.2f}x the baseline)")
    print(f"  max {ms(max(times))}   ({max(times) / baseline:.2f}x the baseline)")
    a50, a95 = percentile(asks, 0.5), percentile(asks, 0.95)
    print(f"end-to-end Ask over HTTP, {len(asks)} questions (loads posts, think time):")
    print(f"  p50 {ms(a50)}   ({a50 / baseline:.2f}x the baseline)")
    print(f"  p95 {ms(a95)}   ({a95 / baseline:.2f}x the baseline)")
    verdict = "ok" if 1000 * p95 <= TARGET_P95_MS else f"OVER {TARGET_P95_MS:.0f} ms"
    print(f"target: planner + answer p95 <= {TARGET_P95_MS:.0f} ms  [{verdict}]")
    return 0 if 1000 * p95 <= TARGET_P95_MS else 1


if __name__ == "__main__":
    sys.exit(main())
