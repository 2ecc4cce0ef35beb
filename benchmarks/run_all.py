"""Run the benchmarks one at a time and rewrite the table in ``benchmarks/README.md``.

Each script runs alone in its own process (never two at once: they would measure each
other), with the machine's load average read before and after it. Its figure lines (the
lines that name a target) and exit status are kept in ``benchmarks/results.json`` with the
date, the machine and the load; the README's table is rendered from :data:`BENCHMARKS`
(what each script measures, its target, its baseline and what a user waits for: written
once, here) and those results. Naming scripts runs only those and keeps the others' last
figures.

Usage:
    python benchmarks/run_all.py                      # every benchmark (about 40 minutes)
    python benchmarks/run_all.py bench_research bench_flatten
    python benchmarks/run_all.py --render             # only rewrite the README's table
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
RESULTS = HERE / "results.json"
START, END = "<!-- benchmarks table: start -->", "<!-- benchmarks table: end -->"


@dataclass(frozen=True, kw_only=True)
class Benchmark:
    """What one script measures, against what, and why a user cares."""

    measures: str
    target: str
    baseline: str
    waits_for: str


BENCHMARKS: dict[str, Benchmark] = {
    "bench_abuse": Benchmark(
        measures="another account's latency while one client (its own process) attacks the "
        "sandbox: MCP bodies, 1,100 idle connections, admin bodies, REST bodies, MCP streams",
        target="victim p95 <= 3x idle under each attack",
        baseline="the same victim, idle, in the same run",
        waits_for="a class sharing one sandbox while one notebook misbehaves",
    ),
    "bench_assistant": Benchmark(
        measures="planner + answer, and end-to-end Ask, at 2,000 and 20,000 posts",
        target="planner p95 <= 100 ms (2k), <= 500 ms (20k); Ask p95 <= 500 ms (20k)",
        baseline="one POST /v1/mentions page of the same dataset",
        waits_for="the answer to a %%ask cell",
    ),
    "bench_engagement": Benchmark(
        measures="df.rds.engagement() of 100k mentions",
        target="<= 10x the baseline",
        baseline="the groupby mean alone (the figure without its n and scope)",
        waits_for="a table in a notebook cell",
    ),
    "bench_export": Benchmark(
        measures="rdskit export memory at 100k and 1M mentions; speed under the rate limit",
        target="peak RSS 1M/100k <= 1.5x; >= 0.8x the 500 mentions/s cap over 200 pages",
        baseline="the export of 100k; the rate cap",
        waits_for="a long export from the shell",
    ),
    "bench_fetch": Benchmark(
        measures="20k mentions from a rate-limited sandbox into a frame",
        target=">= 95% of a perfect client's speed, <= 3 extra requests per dataset + 1, 0 429s",
        baseline="a perfect client making the same requests at 5 req/s",
        waits_for="the fetch itself: it is the wait",
    ),
    "bench_flatten": Benchmark(
        measures="100k mention dicts flattened into a frame",
        target="<= 2% of the fetch time; peak memory <= 0.5x json_normalize",
        baseline="pyarrow.json over the same JSON; pd.json_normalize",
        waits_for="the fetch of the same mentions (200 s for 100k)",
    ),
    "bench_frame_memory": Benchmark(
        measures="peak memory of to_frame over 100k and 300k mentions, cold and warm",
        target="cold call growth <= 2x the frame",
        baseline="the final frame's Arrow bytes",
        waits_for="a kernel that is not killed for memory",
    ),
    "bench_gateway": Benchmark(
        measures="1, 2 and 4 kernels through the Jupyter gateway, 200 requests a scenario",
        target=">= 0.90 of the 5 req/s cap, 0 429s",
        baseline="one client calling the sandbox directly, same run",
        waits_for="notebooks sharing a key on one server",
    ),
    "bench_import": Benchmark(
        measures="import rdskit",
        target="<= 0.15 s over the baseline",
        baseline="import pandas, pyarrow",
        waits_for="the first cell of a notebook",
    ),
    "bench_page_cpu": Benchmark(
        measures="the client's CPU per 100-mention page on the way into a frame",
        target="<= 0.5x the models path, <= 12 ms a page",
        baseline="the models path (pages of Mention models dumped to dicts)",
        waits_for="the 200 ms each page has under the rate limit",
    ),
    "bench_reruns": Benchmark(
        measures="a lesson's paid steps run a second time",
        target="0 credits, <= 0.25x the first run's time",
        baseline="the lesson's first run",
        waits_for="a student re-running a notebook",
    ),
    "bench_research": Benchmark(
        measures="pseudonymise and the reply network of 100k mentions + 300k comments",
        target="each <= 2% of the fetch time",
        baseline="a keyed hash + one regex over the same columns; the edge count alone",
        waits_for="the fetch of the same mentions (200 s for 100k)",
    ),
    "bench_sandbox": Benchmark(
        measures="the sandbox's 100-analysed-mention page and list throughput",
        target="page <= 4x a minimal app serving the same bytes",
        baseline="a minimal app serving the same bytes, same run",
        waits_for="every page of every lesson",
    ),
    "bench_worker": Benchmark(
        measures="a small run alone vs while another account floods the worker",
        target="median <= 1.5x",
        baseline="the same run with the worker idle",
        waits_for="a student's run while a classmate collects 5,000 posts",
    ),
}


def machine() -> str:
    """The processor and core count, as a line of the table."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next(
                line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores"


def run(name: str) -> dict[str, Any]:
    """Run ``benchmarks/<name>.py`` alone; its figure lines, status and context."""
    load_before = os.getloadavg()[0]
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(HERE / f"{name}.py")], capture_output=True, text=True, check=False
    )
    lines = [line.strip() for line in done.stdout.splitlines()]
    figures = [line for line in lines if "target" in line.lower()] or lines[-3:]
    print(f"{name}: exit {done.returncode} in {time.monotonic() - began:.0f} s", flush=True)
    for line in figures:
        print(f"  {line}", flush=True)
    return {
        "figures": figures,
        "exit": done.returncode,
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "machine": machine(),
        "load": f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after",
        "seconds": round(time.monotonic() - began),
    }


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(results: dict[str, dict[str, Any]]) -> str:
    """The README's table: one row a script."""
    rows = [
        "| script | measures | target | baseline | what a user waits for | last figure |",
        "|---|---|---|---|---|---|",
    ]
    for name, bench in BENCHMARKS.items():
        result = results.get(name)
        if result is None:
            last = "not run yet"
        else:
            status = "met" if result["exit"] == 0 else f"MISSED (exit {result['exit']})"
            figures = "<br>".join(cell(str(f)) for f in result["figures"])
            last = (
                f"{status}: {figures}<br>*{result['date']}, {cell(str(result['machine']))}, "
                f"load {result['load']}*"
            )
        rows.append(
            f"| `{name}.py` | {cell(bench.measures)} | {cell(bench.target)} | "
            f"{cell(bench.baseline)} | {cell(bench.waits_for)} | {last} |"
        )
    return "\n".join(rows)


def write_readme(results: dict[str, dict[str, Any]]) -> None:
    text = README.read_text()
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{render(results)}\n{END}{tail}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="scripts to run (default: every one)")
    parser.add_argument("--render", action="store_true", help="only rewrite the README table")
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if not args.render:
        for name in args.names or list(BENCHMARKS):
            results[name] = run(name)
            RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    write_readme(results)
    return 0 if all(results.get(n, {}).get("exit") == 0 for n in args.names) else 1


if __name__ == "__main__":
    sys.exit(main())
