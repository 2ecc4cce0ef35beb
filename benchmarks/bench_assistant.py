"""Benchmark: the sandbox assistant at 2,000 and 20,000 posts (issue 23.9, issue 28.2).

For each size a sandbox account collects an analysed "oat milk" dataset through the real
API (runs of at most 5,000 posts into one dataset until it holds at least the size; the
count it holds is printed). Then:

- **planner + answer** (compute only): every hand-written evaluation question (follow-ups
  with their earlier turns) answered in-process with :func:`rdskit.sandbox.assistant.answer`
  over the dataset's cached table, as the Ask worker does once the posts are cached;
- **end-to-end Ask**: ``POST /v1/ask`` then polling until the reply is completed, with the
  simulated think time off (speed 10^6): reading the dataset's version, the per-dataset
  post cache, planning, answering, storing, billing. The first Ask (cold: it fills the
  post cache) is printed on its own; then ``--asks`` more (100 by default, the
  hand-written questions in turn) give the warm figures.

Every latency is printed with its sample size, p50, p95, p99 and maximum, each as a
ratio to one ``POST /v1/mentions`` page (``limit`` 100) of the same dataset measured in
the same run. Targets: planner + answer p95 <= 100 ms at
2,000 posts and <= 500 ms at 20,000; end-to-end Ask p95 <= 500 ms at 20,000. Exit status
1 when a target is missed.

Usage:
    python benchmarks/bench_assistant.py [--sizes 2000 20000] [--asks 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx
from _stats import latency_line, load_line, quantile

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.assistant import Scope, Turn, answer
from rdskit.sandbox.backend import ask_cache

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "sandbox" / "eval"))
import handwritten_questions  # the evaluation's questions live with the tests

NAME = "oat milk"
COMPUTE_TARGET_MS = {2000: 100.0, 20000: 500.0}
ASK_TARGET_MS = {20000: 500.0}
RUN_MAX = 5000

TODAY = "2026-06-01"  # the sandbox's date: its corpus is the same whatever the day


def collect(http: httpx.Client, size: int) -> tuple[str, int]:
    """A dataset holding at least ``size`` posts (runs of at most 5,000), and its post
    count: a run's posts that the dataset already holds are not added twice, so a run after
    the first asks for a page more than is missing."""
    dataset_id = http.post("/v1/datasets", json={"name": NAME}).json()["data"]["id"]
    held = 0
    while held < size:
        body = {
            "search_query": {"type": "prompt", "search_query": NAME,
                             "sources": ["reddit", "tiktok", "youtube", "instagram", "linkedin"]},
            "count": min(RUN_MAX, size - held + (100 if held else 0)),
            "num_comments_per_post": 3,
            "content_analysis_actions": ["sentiment", "hook", "cta"],
        }  # fmt: skip
        run = http.post(f"/v1/datasets/{dataset_id}/runs", json=body)
        run.raise_for_status()
        path = f"/v1/datasets/{dataset_id}/runs/{run.json()['data']['id']}"
        while http.get(path).json()["data"]["status"]["type"] not in ("completed", "failed"):
            time.sleep(0.05)
        count = http.get(f"/v1/datasets/{dataset_id}").json()["data"].get("mentions_count")
        if count is None or count <= held:
            break  # the corpus has no new posts for this search
        held = count
    return dataset_id, held


def page_time(http: httpx.Client, dataset_id: str, repeats: int = 30) -> float:
    """Median seconds of ``POST /v1/mentions`` for one page of 100 posts."""
    body = {"dataset_ids": [dataset_id], "limit": 100}
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        http.post("/v1/mentions", json=body).raise_for_status()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def compute_times(handle: SandboxHandle, account_id: str, dataset_id: str) -> list[float]:
    """Seconds of planner + answer for every hand-written question over the cached table."""
    with handle.store.read() as conn:
        table = ask_cache.scope_table(conn, account_id, [dataset_id])
    scope = [Scope(dataset_id, NAME, (NAME,))]
    answer("warm-up", table.posts, scope, table=table)  # the vocabulary is built once
    times = []
    for question in handwritten_questions.QUESTIONS:
        history = [Turn(text) for text in question.after]
        began = time.perf_counter()
        answer(question.text, table.posts, scope, history=history, table=table)
        times.append(time.perf_counter() - began)
    return times


def ask_times(http: httpx.Client, dataset_id: str, count: int) -> tuple[float, list[float]]:
    """Seconds of end-to-end Ask: the first (cold: it fills the dataset's post cache) and
    ``count`` more, cycling through the hand-written questions."""
    questions = [q.text for q in handwritten_questions.QUESTIONS if not q.after]
    picked = [questions[n % len(questions)] for n in range(count)]
    times = []
    for message in ["How many posts are there?", *picked]:
        began = time.perf_counter()
        body = {"message": message, "context": {"dataset_ids": [dataset_id]}}
        accepted = http.post("/v1/ask", json=body).json()["data"]
        path = f"/v1/chats/{accepted['chat_id']}/messages/{accepted['message_id']}"
        while http.get(path).json()["data"]["status"] == "working":
            time.sleep(0.002)
        times.append(time.perf_counter() - began)
    return times[0], times[1:]


def ms(seconds: float) -> str:
    return f"{1000 * seconds:7.1f} ms"


def measure(handle: SandboxHandle, size: int, asks: int) -> list[str]:
    """Print one size's figures; returns the targets it missed."""
    created = handle.admin.create_account(plan="Business", wallet_usd="100000")
    headers = {"x-api-key": created.api_key}
    missed = []
    with httpx.Client(base_url=handle.url, headers=headers, timeout=300) as http:
        began = time.perf_counter()
        dataset_id, held = collect(http, size)
        print(f"\n{held:,} posts collected in {time.perf_counter() - began:.1f} s")
        base = page_time(http, dataset_id)
        compute = compute_times(handle, created.account_id, dataset_id)
        cold, ends = ask_times(http, dataset_id, asks)
        base = (base + page_time(http, dataset_id)) / 2
    print(f"baseline: POST /v1/mentions, one page of 100     {ms(base)}")
    print(latency_line(f"planner + answer, compute only ({load_line()})", compute, base))
    print(f"end-to-end Ask over HTTP (think time off): the first, cold {ms(cold)}")
    print(latency_line("end-to-end Ask over HTTP, warm", ends, base))
    c95, a95 = quantile(compute, 0.95), quantile(ends, 0.95)
    target = COMPUTE_TARGET_MS.get(size)
    if target is not None:
        ok = 1000 * c95 <= target
        print(f"target: planner + answer p95 <= {target:.0f} ms  [{'ok' if ok else 'MISSED'}]")
        missed += [] if ok else [f"planner + answer p95 at {size:,}"]
    target = ASK_TARGET_MS.get(size)
    if target is not None:
        ok = 1000 * a95 <= target
        print(f"target: end-to-end Ask p95 <= {target:.0f} ms  [{'ok' if ok else 'MISSED'}]")
        missed += [] if ok else [f"end-to-end Ask p95 at {size:,}"]
    return missed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--asks", type=int, default=100, help="end-to-end asks per size")
    args = parser.parse_args()
    missed: list[str] = []
    with start(speed=1e6, rate_limit=1e6, seed=7, today=TODAY) as handle:
        for size in args.sizes:
            missed += measure(handle, size, args.asks)
    if missed:
        print("\nMISSED: " + "; ".join(missed))
        return 1
    print("\nall targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
