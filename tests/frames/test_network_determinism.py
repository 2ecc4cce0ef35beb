"""The reply network of the benchmark corpus is the same in every run: the corpus is
collected at a fixed time (its window once ended at the wall clock, so the node count
changed between runs: 48,148 vs 48,149), and the network does not depend on Python's
string hash seed (set or dict order)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pyarrow as pa
import pytest

from rdskit.sandbox.runtime import clock

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_research.py"
ROWS = 400

# Prints the benchmark corpus's reply network: every node and edge with its attributes.
SCRIPT = f"""
import importlib.util, json, sys
sys.path.insert(0, {str(BENCH.parent)!r})  # the scripts' shared benchmarks/_stats.py
spec = importlib.util.spec_from_file_location("bench_research", {str(BENCH)!r})
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
mentions, _ = bench.make_frames({ROWS})
graph = mentions.rds.network("reply")
print(json.dumps([list(graph.nodes(data=True)), list(graph.edges(data=True))]))
"""


def bench() -> ModuleType:
    if str(BENCH.parent) not in sys.path:  # the scripts' shared benchmarks/_stats.py
        sys.path.insert(0, str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_research", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_corpus_does_not_depend_on_the_wall_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = bench()
    frames = []
    for now in (1.7e9, 1.9e9):  # 2023 and 2030: a window ending "now" would differ
        monkeypatch.setattr(clock, "wall_time", lambda now=now: now)
        mentions, comments = module.make_frames(ROWS)
        frames.append((mentions, comments))
    (m1, c1), (m2, c2) = frames
    # Compared as Arrow tables: every value, list columns included, on every pandas.
    assert pa.Table.from_pandas(m1).equals(pa.Table.from_pandas(m2))
    assert pa.Table.from_pandas(c1).equals(pa.Table.from_pandas(c2))


def test_the_reply_network_is_the_same_whatever_the_hash_seed() -> None:
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(done.stdout)
    nodes, edges = json.loads(outputs[0])
    assert len(nodes) > ROWS and len(edges) > ROWS  # a real network, not an empty one
    assert outputs[0] == outputs[1]
