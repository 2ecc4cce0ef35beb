"""Benchmark: throughput of 1, 2 and 4 kernels through the Jupyter gateway, against the cap.

The service allows 5 requests per second per key (the spec's rate limit section); the
gateway holds the key and queues every kernel's requests in one bucket. This script runs
``rdskit sandbox --rate-limit 5`` in a child process (as a remote service would be), the
gateway (:class:`rdskit.jupyter.gateway.Gateway`, served by tornado) in this process, and
each "kernel" as its own Python process with its own gateway token, calling
``client.datasets.list(limit=1)`` back to back (sequential callers, the hard case: no
pipelining hides a wait).

Printed, as ratios:

- each scenario's upstream throughput over whole windows as a share of the 5 req/s cap
  (target >= 0.90), and its 429 count (target 0);
- the same share for one rdskit client calling the sandbox directly, measured in this run
  (the baseline a gateway should match).

Each share counts the requests sent in ``--seconds`` whole windows: 40 s by default, 200
requests at the cap, so one request more or less moves a share by 0.005 (a 6 s window
moved it in steps of 0.033, coarser than the differences it was meant to show).

Exit status 1 when a scenario misses a target.

Usage:
    python benchmarks/bench_gateway.py [--seconds 40]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from _stats import load_line

from rdskit.jupyter.gateway import Gateway

# The gateway test's loopback server and recording transport, not a copy of them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "jupyter"))
from test_gateway import Recording, serving

CAP = 5.0  # the service's requests per second per key
TARGET_SHARE = 0.90
KERNELS = (1, 2, 4)
TODAY = "2026-06-01"  # the sandbox's date: its corpus is the same whatever the day

# One "kernel": a process with its own gateway token, calling until its deadline.
KERNEL_CODE = """
import sys, time, rdskit
with rdskit.Client(max_retries=0) as client:
    client.me()  # the token exchange happens here, before the measured window
    print("ready", flush=True)
    deadline = float(sys.stdin.readline())  # once every kernel is ready
    while time.time() < deadline:
        client.datasets.list(limit=1)
"""


@contextmanager
def sandbox() -> Iterator[tuple[str, str]]:
    """``rdskit sandbox`` at the service's rate limit in a child process: (url, key)."""
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--port", "0"]
    command += ["--rate-limit", str(CAP), "--today", TODAY]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        banner = "".join(child.stdout.readline() for _ in range(3))
        url, key = (re.search(rf"{label}\s*:\s*(\S+)", banner) for label in ("base URL", "API key"))
        if url is None or key is None:
            raise RuntimeError(f"unexpected banner from rdskit sandbox: {banner!r}")
        yield url.group(1), key.group(1)
    finally:
        child.terminate()
        child.wait(30)


def share(sent: list[float], start: float, seconds: float) -> float:
    """Requests sent in ``seconds`` whole windows from ``start``, as a share of the cap."""
    return sum(1 for t in sent if start <= t < start + seconds) / (seconds * CAP) if seconds else 0


def through_gateway(url: str, key: str, kernels: int, seconds: float) -> tuple[float, int]:
    """``kernels`` processes calling through one gateway: (share of the cap, 429 count)."""
    recorder = Recording()
    gateway = Gateway((url, key), mode="service", transport=recorder)
    with tempfile.TemporaryDirectory() as tmp, serving(gateway) as served:
        discovery = Path(tmp) / "gateway.json"
        gateway.publish(discovery, served.url)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RDSKIT_")}
        env["RDSKIT_GATEWAY"] = str(discovery)
        children = [
            subprocess.Popen(
                [sys.executable, "-c", KERNEL_CODE],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(kernels)
        ]
        for child in children:
            assert child.stdout is not None
            child.stdout.readline()  # "ready": token held, first call made
        # measured from the first whole window of full load (the recorder's clock)
        start = time.monotonic() + 0.5
        deadline = time.time() + 0.5 + seconds + 0.5  # the kernels' clock
        for child in children:
            assert child.stdin is not None
            child.stdin.write(f"{deadline}\n")
            child.stdin.flush()
        for child in children:
            child.wait(seconds + 30)
        failed = [child.returncode for child in children if child.returncode]
        if failed:
            raise RuntimeError(f"{len(failed)} kernel process(es) failed (exit {failed})")
    return share(recorder.sent, start, float(int(seconds))), recorder.statuses.count(429)


class _SyncRecording(httpx.HTTPTransport):
    """A client's transport recording when each request left."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[float] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(time.time())
        return super().handle_request(request)


def direct(url: str, key: str, seconds: float) -> float:
    """One rdskit client calling the sandbox directly: share of the cap (the baseline)."""
    import rdskit

    recorder = _SyncRecording()
    with rdskit.Client(key, base_url=url, transport=recorder) as client:
        client.me()
        start = time.time() + 0.5
        while time.time() < start + seconds + 0.5:
            client.datasets.list(limit=1)
    return share(recorder.sent, start, float(int(seconds)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="measured seconds per run")
    args = parser.parse_args()
    ok = True
    with sandbox() as (url, key):
        baseline = direct(url, key, args.seconds)
        window = int(args.seconds)
        print(
            f"direct client (baseline): {baseline:.3f} of the {CAP:g} req/s cap "
            f"(n={round(baseline * window * CAP)} requests in {window} s; {load_line()})"
        )
        for kernels in KERNELS:
            got, too_many = through_gateway(url, key, kernels, args.seconds)
            # the next scenario starts with a full service window
            time.sleep(1.1)
            verdict = "ok" if got >= TARGET_SHARE and too_many == 0 else "MISSED"
            ok = ok and verdict == "ok"
            ratio = got / baseline if baseline else float("nan")
            print(
                f"{kernels} kernel(s) through the gateway: {got:.3f} of the cap "
                f"(n={round(got * window * CAP)}) "
                f"(target >= {TARGET_SHARE:.2f}), {ratio:.2f}x the direct client, "
                f"429s: {too_many} (target 0) -> {verdict}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
