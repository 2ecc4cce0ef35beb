"""Benchmark: one account stays responsive while another client abuses the sandbox.

``rdskit sandbox`` runs in a child process (as a service would). A second account (the
victim, this process) calls ``GET /v1/datasets?limit=1`` back to back; its latency is
measured idle, then while an attacker, **a process of its own** as a real client would be
(loopback only, bounded loops), holds at once:

- 1,100 idle connections that never send a byte, each reopened when the server closes it;
- 50 crafted 1 MB bodies sent at once (400 lists of 1,000 zeros: every list within its
  bound, 400,000 values in all) to ``/v1/datasets``, half with the attacker's key;
- 50 crafted 1 MB JSON-RPC bodies (the same lists as a tool call's arguments) to
  ``POST /mcp/`` with the attacker's key;
- 50 crafted 1 MB bodies to the admin route ``/sandbox/accounts`` without the admin token;
- 1,000 ``GET /mcp/`` event streams with the attacker's key.

An attacker thread inside the victim's process (as this script once had it) makes the
victim wait for the attacker's GIL, not for the sandbox: that measured 7-10x where the
sandbox itself costs about 1x.

Printed: the victim's n, p50, p95, p99 and maximum, idle and under attack (a p95 can hide
a single long stall), the p95 ratio (target <= 3.0) and what the attacks got back (status
counts). Exit status 1 when the ratio misses the target.

Both processes raise their RLIMIT_NOFILE soft limit to the hard limit (the attacker holds
~2,100 sockets); the sandbox raises its own (``rdskit.sandbox.app.connection_limits``).

Usage:
    python benchmarks/bench_abuse.py [--samples 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import re
import resource
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from _stats import latency_line, load_line, quantile

from rdskit.sandbox import AdminClient

TARGET = 3.0
TODAY = "2026-06-01"  # the sandbox's date: its corpus is the same whatever the day
BODIES = 50
IDLE_CONNECTIONS = 1_100
STREAMS = 1_000
CRAFTED = b"[" + b",".join([b"[" + b"0," * 999 + b"0]"] * 400) + b"]"
CALL = {"name": "list_datasets", "arguments": {"x": json.loads(CRAFTED)}}
CRAFTED_MCP = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": CALL})
CRAFTED_MCP_BYTES = CRAFTED_MCP.encode()


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


def victim_times(url: str, key: str, samples: int, busy: Any = lambda: False) -> list[float]:
    """Seconds of the victim's ``GET /v1/datasets?limit=1`` (one connection): at least
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
    return times


def raise_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def closed(conn: socket.socket) -> bool:
    """Whether the server closed ``conn`` (a read that would not block finds EOF)."""
    timeout = conn.gettimeout()
    conn.settimeout(0)  # a socket with a timeout would wait for it before answering
    try:
        return bool(conn.recv(1, socket.MSG_PEEK) == b"")
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        conn.settimeout(timeout)


async def hold_idle(host: str, port: int, stop: asyncio.Event, outcomes: Counter[str]) -> None:
    """Idle connections, each reopened when the server closes it, until ``stop``."""
    idle: list[socket.socket] = []
    for _ in range(IDLE_CONNECTIONS):
        try:
            idle.append(socket.create_connection((host, port), timeout=5))
        except OSError as exc:
            outcomes[f"idle connection refused ({type(exc).__name__})"] += 1
    outcomes["idle connections opened"] = len(idle)
    while not stop.is_set():
        await asyncio.sleep(0.5)
        for n, conn in enumerate(idle):
            if closed(conn):
                conn.close()
                outcomes["idle connections closed by the server, reopened"] += 1
                try:
                    idle[n] = socket.create_connection((host, port), timeout=5)
                except OSError:
                    outcomes["idle connection refused on reopening"] += 1
    for conn in idle:
        conn.close()


async def attack(url: str, key: str, stop: asyncio.Event, outcomes: Counter[str]) -> None:
    """Idle connections, crafted bodies (REST, MCP, admin) and MCP streams, held until
    ``stop``."""
    host, port = url.removeprefix("http://").split(":")
    idle = asyncio.create_task(hold_idle(host, int(port), stop, outcomes))
    while "idle connections opened" not in outcomes:
        await asyncio.sleep(0.05)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:

        async def body(path: str, content: bytes, headers: dict[str, str]) -> None:
            try:
                response = await http.post(path, content=content, headers=headers)
                outcomes[f"crafted body to {path} -> {response.status_code}"] += 1
            except httpx.HTTPError as exc:
                outcomes[f"crafted body to {path} -> {type(exc).__name__}"] += 1

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

        mcp = {"x-api-key": key, "accept": "application/json, text/event-stream"}
        tasks = [asyncio.create_task(stream()) for _ in range(STREAMS)]
        for i in range(BODIES):
            rest = {"x-api-key": key} if i % 2 else {}
            tasks.append(asyncio.create_task(body("/v1/datasets", CRAFTED, rest)))
            tasks.append(asyncio.create_task(body("/mcp/", CRAFTED_MCP_BYTES, mcp)))
            tasks.append(asyncio.create_task(body("/sandbox/accounts", CRAFTED, {})))
        await stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    await idle


def attacker(url: str, key: str, pipe: Any) -> None:
    """The attacker's process: attacks until the victim says stop on ``pipe``; sends its
    outcome counts on ``pipe`` as they change (``"ready"`` once the idle connections are
    open), then ``"done"``."""
    raise_file_limit()
    outcomes: Counter[str] = Counter()
    sent: dict[str, int] = {}

    async def run() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(attack(url, key, stop, outcomes))
        while not stop.is_set():
            await asyncio.sleep(0.1)
            if dict(outcomes) != sent:
                sent.clear()
                sent.update(outcomes)
                pipe.send(("outcomes", dict(outcomes)))
            if pipe.poll():
                pipe.recv()
                stop.set()
        await task

    asyncio.run(run())
    pipe.send(("done", dict(outcomes)))


def under_attack(
    url: str, attacker_key: str, victim: str, samples: int
) -> tuple[list[float], Counter[str]]:
    """The victim's latencies while :func:`attacker` runs in a process of its own."""
    context = multiprocessing.get_context("spawn")
    here, there = context.Pipe()
    child = context.Process(target=attacker, args=(url, attacker_key, there))
    child.start()
    outcomes: Counter[str] = Counter()

    def read() -> None:
        while here.poll():
            _, counts = here.recv()
            outcomes.clear()
            outcomes.update(counts)

    # Measured from when the idle connections are open: the streams and bodies arrive
    # while the victim calls (bounded: at most 60 s of waiting).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "idle connections opened" not in outcomes:
        time.sleep(0.05)
        read()

    def busy() -> bool:  # the attack's streams and bodies have not all been answered
        read()
        streams = sum(n for o, n in outcomes.items() if o.startswith("mcp stream"))
        bodies = sum(n for o, n in outcomes.items() if o.startswith("crafted body"))
        return streams < STREAMS or bodies < 3 * BODIES

    try:
        return victim_times(url, victim, samples, busy), outcomes
    finally:
        here.send("stop")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if here.poll(1):
                kind, counts = here.recv()
                outcomes.clear()
                outcomes.update(counts)
                if kind == "done":
                    break
        child.join(30)
        if child.is_alive():
            child.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    args = parser.parse_args()
    raise_file_limit()
    with sandbox() as (url, key, token):
        victim = AdminClient(url, token).create_account(plan="Pro").api_key
        idle = victim_times(url, victim, args.samples)
        loaded, outcomes = under_attack(url, key, victim, args.samples)
    ratio = quantile(loaded, 0.95) / quantile(idle, 0.95)
    print(f"victim GET /v1/datasets; {load_line()}")
    print(latency_line("  idle", idle))
    print(latency_line("  under attack", loaded, quantile(idle, 0.95)))
    for outcome, count in sorted(outcomes.items()):
        print(f"  attack: {outcome}: {count}")
    print(f"p95 ratio (under attack / idle): {ratio:.2f} (target <= {TARGET:.1f})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
