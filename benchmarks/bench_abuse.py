"""Benchmark: one account stays responsive while another client abuses the sandbox.

``rdskit sandbox`` runs in a child process (as a service would). A second account (the
victim) calls ``GET /v1/datasets?limit=1`` back to back; its p95 latency is measured idle,
then while an attacker (this process, loopback only, bounded loops) holds at once:

- 50 crafted 1 MB bodies sent at once (400 lists of 1,000 zeros: every list within its
  bound, 400,000 values in all) to ``/v1/datasets``, half with the attacker's key;
- 1,100 idle connections that never send a byte;
- 1,000 ``GET /mcp/`` event streams with the attacker's key.

Printed: the idle p95, the p95 under attack and their ratio (target <= 3.0), and what the
attacks got back (status counts). Exit status 1 when the ratio misses the target.

This process raises its own RLIMIT_NOFILE soft limit to the hard limit (it holds ~2,100
sockets); the sandbox raises its own (``rdskit.sandbox.app.connection_limits``).

Usage:
    python benchmarks/bench_abuse.py [--samples 200]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import resource
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from rdskit.sandbox import AdminClient

TARGET = 3.0
TODAY = "2026-06-01"  # the sandbox's date: its corpus is the same whatever the day
BODIES = 50
IDLE_CONNECTIONS = 1_100
STREAMS = 1_000
CRAFTED = b"[" + b",".join([b"[" + b"0," * 999 + b"0]"] * 400) + b"]"


@contextmanager
def sandbox() -> Iterator[tuple[str, str, str]]:
    """``rdskit sandbox`` in a child process: (url, API key, admin token)."""
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--port", "0"]
    command += ["--rate-limit", "1000000", "--today", TODAY]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        banner = "".join(child.stdout.readline() for _ in range(4))
        found = [
            re.search(rf"{label}\s*:\s*(\S+)", banner)
            for label in ("base URL", "API key", "admin token")
        ]
        if not all(found):
            raise RuntimeError(f"unexpected banner from rdskit sandbox: {banner!r}")
        url, key, token = (match.group(1) for match in found if match is not None)
        yield url, key, token
    finally:
        child.terminate()
        child.wait(30)


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[-1]


def victim_p95(url: str, key: str, samples: int, busy: Any = lambda: False) -> float:
    """p95 seconds of the victim's ``GET /v1/datasets?limit=1`` (one connection): at least
    ``samples`` calls, and more while ``busy()`` (at most 120 s)."""
    times: list[float] = []
    deadline = time.monotonic() + 120
    with httpx.Client(base_url=url, headers={"x-api-key": key}, timeout=60) as http:
        for _ in range(20):  # warm-up: connection, caches
            http.get("/v1/datasets", params={"limit": 1}).raise_for_status()
        while len(times) < samples or (busy() and time.monotonic() < deadline):
            started = time.perf_counter()
            http.get("/v1/datasets", params={"limit": 1}).raise_for_status()
            times.append(time.perf_counter() - started)
    return p95(times)


async def attack(url: str, key: str, stop: asyncio.Event, outcomes: Counter[str]) -> None:
    """Idle connections, crafted bodies and MCP streams, held until ``stop``."""
    host, port = url.removeprefix("http://").split(":")
    idle: list[socket.socket] = []
    for _ in range(IDLE_CONNECTIONS):
        try:
            idle.append(socket.create_connection((host, int(port)), timeout=5))
        except OSError as exc:
            outcomes[f"idle connection refused ({type(exc).__name__})"] += 1
    outcomes["idle connections opened"] = len(idle)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:

        async def body(i: int) -> None:
            headers = {"x-api-key": key} if i % 2 else {}
            try:
                response = await http.post("/v1/datasets", content=CRAFTED, headers=headers)
                outcomes[f"crafted body -> {response.status_code}"] += 1
            except httpx.HTTPError as exc:
                outcomes[f"crafted body -> {type(exc).__name__}"] += 1

        async def stream() -> None:
            headers = {"x-api-key": key, "accept": "text/event-stream"}
            try:
                async with http.stream("GET", "/mcp/", headers=headers) as response:
                    outcomes[f"mcp stream -> {response.status_code}"] += 1
                    async for _ in response.aiter_bytes():
                        if stop.is_set():
                            break
            except httpx.HTTPError as exc:
                outcomes[f"mcp stream -> {type(exc).__name__}"] += 1

        tasks = [asyncio.create_task(stream()) for _ in range(STREAMS)]
        tasks += [asyncio.create_task(body(i)) for i in range(BODIES)]
        await stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for conn in idle:
        conn.close()


def under_attack(url: str, attacker: str, victim: str, samples: int) -> tuple[float, Counter[str]]:
    """The victim's p95 while :func:`attack` runs in a thread of this process."""
    import threading

    outcomes: Counter[str] = Counter()
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(attack(url, attacker, stop, outcomes))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    # Measured from when the idle connections are open: the streams and bodies arrive
    # while the victim calls (bounded: at most 60 s of waiting).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "idle connections opened" not in outcomes:
        time.sleep(0.05)

    def busy() -> bool:  # the attack's streams and bodies have not all been answered
        streams = sum(n for o, n in outcomes.items() if o.startswith("mcp stream"))
        bodies = sum(n for o, n in outcomes.items() if o.startswith("crafted body"))
        return streams < STREAMS or bodies < BODIES

    try:
        return victim_p95(url, victim, samples, busy), outcomes
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        print(f"raised this process's RLIMIT_NOFILE from {soft} to {hard}")
    with sandbox() as (url, key, token):
        victim = AdminClient(url, token).create_account(plan="Pro").api_key
        idle = victim_p95(url, victim, args.samples)
        loaded, outcomes = under_attack(url, key, victim, args.samples)
    ratio = loaded / idle
    print(f"victim GET /v1/datasets p95 idle:         {idle * 1000:8.1f} ms")
    print(f"victim GET /v1/datasets p95 under attack: {loaded * 1000:8.1f} ms")
    for outcome, count in sorted(outcomes.items()):
        print(f"  attack: {outcome}: {count}")
    print(f"ratio (under attack / idle): {ratio:.2f} (target <= {TARGET:.1f})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
