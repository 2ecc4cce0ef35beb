"""Run every case of the generated evaluation and print the score with the misses.

python tests/sandbox/eval/run_generated.py        # exits 1 below 95 %
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from generated_cases import generate
from generated_support import load, score

from rdskit.sandbox import start

TARGET = 0.95


def main() -> int:
    with start(speed=500.0, rate_limit=10_000, seed=7) as handle:
        data = load(handle)
        cases = generate(data.df)
        rate, misses = score(data, cases)
    print(f"generated: {rate:.1%} of {len(cases)} cases pass ({len(misses)} misses)")
    for miss in misses:
        print(f"  {miss}")
    return 0 if rate >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
