"""Benchmark: flattening 100k mentions with rdskit.frames vs ``pd.json_normalize``.

Both candidates get the same wire dicts (the sandbox corpus with comments, enriched with
the sentiment/hook/cta analyses, some custom parameter values), built once and pickled;
``json_normalize`` is called the documented way, ``pd.json_normalize(dicts)``.

Time: each candidate runs in a fresh process (so neither inherits the other's heap) that
unpickles the dicts, then flattens them ``--repeat`` times; the figure is the best wall
time, the usual way to read repeated timings (the slower runs measure other load on the
machine, not the code). The first run is printed as well: it also pays one-time costs
(lazy imports, the allocators growing).

Peak memory: one more fresh process per candidate, one call, with tracemalloc's peak
(Python objects and NumPy buffers) plus the growth of the peak of Arrow's memory pool
(Arrow buffers, which tracemalloc does not see; pandas 3 keeps json_normalize's strings
there too). Both are bytes held at once by the call itself, measured the same way for both
candidates. The process's peak RSS would not do: the input dicts dominate it and the
unpickling has already set its high-water mark. Tracing slows Python code several times
over, hence the separate run.

Targets: at least 5x faster than json_normalize, at most half its peak memory. Exit status 1
on a miss.

Where rdskit's time goes: about 90% is Arrow's C++ converter reading the Python objects
(``pa.array(rows, type=wire_schema)``, some 90 values, 20 dicts and 10 lists per mention,
every one of which the frame keeps); the vectorised flattening after it and the pandas
conversion take the rest. json_normalize leaves the nested lists (comments, media, topics)
as Python objects, so it reads fewer of them, but does far more work per value.

Usage:
    python benchmarks/bench_flatten.py [--rows 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import pickle
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from rdskit.frames import mentions_frame
from rdskit.sandbox.synth import corpus, enrichment

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC).timestamp()  # the same corpus whatever the day


def make_rows(count: int) -> list[dict[str, Any]]:
    """``count`` realistic mention dicts: corpus posts plus analysis fields."""
    query = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": "oat milk"}
    posts = corpus.collect(7, query, count, num_comments_per_post=3, now=NOW)
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
            post["parameters"] = {
                "cp_1": {
                    "value": "Oatly",
                    "status": "done",
                    "computed_at": post["created_at"] + 7200,
                }
            }
    return posts


Target = Callable[[list[dict[str, Any]]], pd.DataFrame]
CANDIDATES: dict[str, Target] = {"rdskit": mentions_frame, "json_normalize": pd.json_normalize}


def _load(path: Path) -> list[dict[str, Any]]:
    with path.open("rb") as f:
        rows: list[dict[str, Any]] = pickle.load(f)
    gc.collect()
    return rows


def _time(name: str, path: Path, repeat: int, out: Any) -> None:
    rows = _load(path)
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        frame = CANDIDATES[name](rows)
        seconds.append(time.perf_counter() - start)
        shape = frame.shape
        del frame
        gc.collect()
    out.send((seconds, shape))


def _memory(name: str, path: Path, out: Any) -> None:
    rows = _load(path)
    pool = pa.default_memory_pool()
    arrow_before = pool.max_memory()
    tracemalloc.start()
    CANDIDATES[name](rows)
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out.send((python_peak, max(pool.max_memory() - arrow_before, 0)))


def in_child(measure: Callable[..., None], *args: Any) -> Any:
    """What ``measure(*args, pipe)`` reports, run in a fresh process."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=measure, args=(*args, send))
    child.start()
    result = receive.recv()
    child.join()
    return result


def measure_all(path: Path, repeat: int) -> dict[str, tuple[float, int]]:
    """Best seconds and peak bytes per candidate; prints each line as it comes."""
    results = {}
    for name in CANDIDATES:
        seconds, shape = in_child(_time, name, path, repeat)
        python_peak, arrow_peak = in_child(_memory, name, path)
        results[name] = (min(seconds), python_peak + arrow_peak)
        runs = " ".join(f"{s:.2f}" for s in seconds)
        print(
            f"{name:>15}: best {min(seconds):6.2f} s (runs {runs})  "
            f"peak {results[name][1] / 2**20:6.1f} MiB (Python {python_peak / 2**20:.1f} "
            f"+ Arrow {arrow_peak / 2**20:.1f})  shape {shape}",
            flush=True,
        )
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"building {args.rows:,} mention dicts ...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mentions.pickle"
        with path.open("wb") as f:
            pickle.dump(make_rows(args.rows), f, protocol=pickle.HIGHEST_PROTOCOL)
        results = measure_all(path, args.repeat)
    ours, baseline = results["rdskit"], results["json_normalize"]
    speedup, memory = baseline[0] / ours[0], ours[1] / baseline[1]
    print(
        f"speed-up vs json_normalize: {speedup:.1f}x ({baseline[0]:.2f} s / {ours[0]:.2f} s; "
        f"target >= 5x: {'met' if speedup >= 5 else 'NOT met'})"
    )
    print(
        f"peak memory vs json_normalize: {memory:.2f}x (target <= 0.5x: "
        f"{'met' if memory <= 0.5 else 'NOT met'})"
    )
    return 0 if speedup >= 5 and memory <= 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
