"""``import rdskit`` against ``import pandas, pyarrow``: median wall time of fresh processes.

Each figure is the median of 15 new interpreters (``python -c ...``, no bytecode cache
writes), measured in the same run, so the ratio does not depend on the machine. The
target (issue 14) is ``import rdskit`` within 0.15 s of the baseline (exit status 1 when
over). A third figure,
``rdskit.Client`` (the client core, which ``import rdskit`` loads on first use), is shown
for reference.

Run: ``python benchmarks/bench_import.py [runs]``
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

CASES = {
    "baseline: import pandas, pyarrow": "import pandas, pyarrow",
    "import rdskit": "import rdskit",
    "import rdskit; rdskit.Client": "import rdskit; rdskit.Client",
}
TARGET = 0.15  # seconds over the baseline


def timed(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-B", "-c", code], check=True)
    return time.perf_counter() - start


def main(runs: int = 15) -> int:
    for code in CASES.values():  # warm the file cache once
        timed(code)
    medians: dict[str, float] = {}
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(runs):  # interleaved, so a busy moment hits every case alike
        for name, code in CASES.items():
            samples[name].append(timed(code))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    base = medians["baseline: import pandas, pyarrow"]
    for name, value in medians.items():
        print(f"{name:34s} median {value:.3f} s  ({value - base:+.3f} s, x{value / base:.2f})")
    extra = medians["import rdskit"] - base
    verdict = "within" if extra <= TARGET else "OVER"
    print(f"import rdskit: {extra:+.3f} s against the baseline, {verdict} the +{TARGET} s target")
    return 0 if extra <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 15))
