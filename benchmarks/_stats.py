"""What the benchmarks share: latency lines, the machine's load, and what a user waits for.

Every latency benchmark prints its sample size, p50, p95, p99 and the maximum (a p95 can
hide a single long stall); every frame-side step is also put beside the time its data takes
to arrive at the service's rate cap, which is what a researcher actually waits for.

Example:
    >>> latency_line("page", [0.010, 0.012, 0.011, 0.050])
    'page: n=4  p50 11.0 ms  p95 50.0 ms  p99 50.0 ms  max 50.0 ms'
    >>> fetch_seconds(100_000)
    200.0
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

RATE_LIMIT = 5.0  # requests per second: the service's limit (the spec's rate limits)
PAGE = 100  # mentions per page: the service's maximum ``limit``


def quantile(samples: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of ``samples`` by nearest rank (a value that was observed)."""
    ordered = sorted(samples)
    if not ordered:
        raise ValueError("no samples")
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def latency_line(label: str, seconds: Sequence[float], baseline: float | None = None) -> str:
    """``label: n=… p50 … p95 … p99 … max …`` in milliseconds; with ``baseline`` (seconds),
    each figure's ratio to it too."""

    def part(name: str, value: float) -> str:
        ratio = f" ({value / baseline:.2f}x)" if baseline else ""
        return f"{name} {value * 1000:.1f} ms{ratio}"

    figures = [(f"p{int(q * 100)}", quantile(seconds, q)) for q in (0.5, 0.95, 0.99)]
    figures.append(("max", max(seconds)))
    return f"{label}: n={len(seconds)}  " + "  ".join(part(n, v) for n, v in figures)


def load_line() -> str:
    """The machine's 1-minute load average and core count, for the figure's context."""
    return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"


def fetch_seconds(mentions: int) -> float:
    """Seconds ``mentions`` take to arrive from the service at its rate cap: one page of
    :data:`PAGE` per request, :data:`RATE_LIMIT` requests a second (comments come inside
    their posts' pages)."""
    return math.ceil(mentions / PAGE) / RATE_LIMIT


def waited_line(step: str, seconds: float, mentions: int) -> str:
    """``step`` as a share of the fetch of the same ``mentions``: what the user waits for."""
    fetch = fetch_seconds(mentions)
    return (
        f"{step}: {seconds:.2f} s = {seconds / fetch:.2%} of the {fetch:.0f} s the "
        f"{mentions:,} mentions take to fetch at {RATE_LIMIT:.0f} req/s"
    )


def cpu_seconds(call: Callable[[], Any]) -> float:
    """CPU seconds of the whole process (all threads: Arrow's work too) for one call: a
    wall time would count other processes' work on a busy machine."""
    start = time.process_time()
    call()
    return time.process_time() - start


def best_cpu(call: Callable[[], Any], repeat: int) -> float:
    """The least CPU time of ``repeat`` calls (the slower runs measure other load)."""
    return min(cpu_seconds(call) for _ in range(repeat))
