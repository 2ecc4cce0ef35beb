"""Benchmark: flattening 100k mentions with rdskit.frames vs ``pd.json_normalize``.

Both run on the same wire dicts (the sandbox corpus with comments, enriched with the
sentiment/hook/cta analyses, some custom parameter values), built once and pickled; each
measurement runs in a fresh process that unpickles them first, so neither candidate
inherits the other's memory. Reported per candidate: wall time
(median of ``--repeat`` runs) and peak memory = tracemalloc's peak (Python and NumPy)
plus the growth of Arrow's memory pool peak (Arrow buffers are invisible to
tracemalloc; pandas 3 stores json_normalize's strings there too).

Targets: at least 5x faster than json_normalize, at most half its peak memory.

Usage:
    python benchmarks/bench_flatten.py [--rows 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import pickle
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from rdskit.frames import mentions_frame
from rdskit.sandbox import corpus, enrichment


def make_rows(count: int) -> list[dict[str, Any]]:
    """``count`` realistic mention dicts: corpus posts plus analysis fields."""
    query = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": "oat milk"}
    posts = corpus.collect(7, query, count, num_comments_per_post=3)
    # Enriching every post takes ~40 s; a thousand analyses reused cyclically give the
    # same shapes and value variety.
    analyses = [enrichment.enrich(p, ["sentiment", "hook", "cta"]) for p in posts[:1000]]
    added = [k for k in analyses[0] if k not in posts[0]]
    for i, post in enumerate(posts):
        analysis = analyses[i % len(analyses)]
        post.update({k: analysis[k] for k in added if k in analysis})
        post["dataset_run_at"] = post["created_at"] + 3600
        post["datasets"] = [{"id": "ds_bench", "name": "Oat milk"}]
        if i % 10 == 0:
            post["parameters"] = {"cp_1": {"value": "Oatly", "status": "done",
                                           "computed_at": post["created_at"] + 7200}}
    return posts


Target = Callable[[list[dict[str, Any]]], pd.DataFrame]
CANDIDATES: dict[str, Target] = {"rdskit": mentions_frame, "json_normalize": pd.json_normalize}


def _load(path: Path) -> list[dict[str, Any]]:
    with path.open("rb") as f:
        rows: list[dict[str, Any]] = pickle.load(f)
    gc.collect()
    return rows


def _time(name: str, path: Path, out: Any) -> None:
    rows = _load(path)
    start = time.perf_counter()
    frame = CANDIDATES[name](rows)
    out.send((time.perf_counter() - start, frame.shape))


def _memory(name: str, path: Path, out: Any) -> None:
    # A separate run: tracing every allocation slows Python code several times over.
    rows = _load(path)
    pool = pa.default_memory_pool()
    arrow_before = pool.max_memory()
    tracemalloc.start()
    CANDIDATES[name](rows)
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out.send((python_peak, max(pool.max_memory() - arrow_before, 0)))


def in_child(measure: Callable[[str, Path, Any], None], name: str, path: Path) -> Any:
    """What ``measure`` reports about candidate ``name``, run in a fresh process."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=measure, args=(name, path, send))
    child.start()
    result = receive.recv()
    child.join()
    return result


def measure_all(path: Path, repeat: int) -> dict[str, tuple[float, int]]:
    """Median seconds and peak bytes per candidate; prints each line as it comes."""
    results = {}
    for name in CANDIDATES:
        timings = [in_child(_time, name, path) for _ in range(repeat)]
        seconds = statistics.median(t[0] for t in timings)
        python_peak, arrow_peak = in_child(_memory, name, path)
        results[name] = (seconds, python_peak + arrow_peak)
        print(f"{name:>15}: {seconds:6.2f} s  peak {results[name][1] / 2**20:6.1f} MiB "
              f"(Python {python_peak / 2**20:.1f} + Arrow {arrow_peak / 2**20:.1f})  "
              f"shape {timings[0][1]}", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"building {args.rows:,} mention dicts ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mentions.pickle"
        with path.open("wb") as f:
            pickle.dump(make_rows(args.rows), f, protocol=pickle.HIGHEST_PROTOCOL)
        results = measure_all(path, args.repeat)
    ours, baseline = results["rdskit"], results["json_normalize"]
    speedup, memory = baseline[0] / ours[0], ours[1] / baseline[1]
    print(f"speed-up vs json_normalize: {speedup:.1f}x (target >= 5x: "
          f"{'met' if speedup >= 5 else 'NOT met'})")
    print(f"peak memory vs json_normalize: {memory:.2f}x (target <= 0.5x: "
          f"{'met' if memory <= 0.5 else 'NOT met'})")


if __name__ == "__main__":
    main()
