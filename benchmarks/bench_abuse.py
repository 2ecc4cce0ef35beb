"""Benchmark: one account stays responsive while another client abuses the sandbox.

``rdskit sandbox`` runs in a child process (as a service would) whose file-descriptor
limit is 1,024 (``--fd-limit``: a common default, where the connection budget is 896, so
hoarding reaches it). A second account (the victim, this process) calls
``GET /v1/datasets?limit=1`` back to back; its latency is measured idle, then under each
attack in turn, the attacker **a process of its own** as a real client would be
(loopback only, bounded loops), attacking until the victim has its samples:

- ``mcp-bodies``: crafted 1 MB JSON-RPC bodies to ``POST /mcp/`` with the attacker's key,
  in turn 400 lists of 1,000 zeros as a tool's arguments (past the commas bound) and
  30,000 ``{}`` outside the arguments (under it);
- ``idle-connections``: 1,100 connections that never send a byte, each reopened as soon as
  the server closes it;
- ``admin-bodies``: crafted 1 MB bodies to the admin route ``/sandbox/accounts`` without
  the admin token;
- ``rest-bodies``: the crafted bodies to ``/v1/datasets``, half with the attacker's key;
- ``mcp-streams``: 1,000 ``GET /mcp/`` event streams held with the attacker's key.

Bodies are sent by 8 senders, once at 5 a second in all (``--rates``: what one key may send
at the service's rate limit; the sandbox's own limit is lifted so the victim can call back
to back) and once unpaced (as fast as the 8 go: a key the limiter does not stop).

An attacker thread inside the victim's process (as this script once had it) makes the
victim wait for the attacker's GIL, not for the sandbox: that measured 7-10x where the
sandbox itself costs about 1x.

Printed: the load average, then for idle and each attack the victim's n, p50, p95, p99
and maximum (a p95 can hide a single long stall), the p95 ratio to idle (target <= 3.0
under each attack) and what the attack got back (status counts). Exit status 1 when a
ratio misses the target.

Usage:
    python benchmarks/bench_abuse.py [--samples 1000] [--attacks mcp-bodies,idle-connections]
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
SENDERS = 8  # concurrent senders of crafted bodies
IDLE_CONNECTIONS = 1_100
STREAMS = 1_000
FD_LIMIT = 1_024
CRAFTED = b"[" + b",".join([b"[" + b"0," * 999 + b"0]"] * 400) + b"]"


def tool_call(params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    return json.dumps(message, separators=(",", ":")).encode()  # compact: under 1 MB


CRAFTED_MCP = [
    tool_call({"name": "service__list_collections", "arguments": {"x": json.loads(CRAFTED)}}),
    tool_call(
        {"name": "service__list_collections", "arguments": {}, "_meta": {"x": [{}] * 30_000}}
    ),
]


@contextmanager
def sandbox(fd_limit: int) -> Iterator[tuple[str, str, str]]:
    """``rdskit sandbox`` in a child process with ``fd_limit`` descriptors at most:
    (url, API key, admin token)."""
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--port", "0"]
    command += ["--rate-limit", "1000000", "--today", TODAY]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))

    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, preexec_fn=limited)
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


def victim_times(url: str, key: str, samples: int) -> list[float]:
    """Seconds of ``samples`` calls of the victim's ``GET /v1/datasets?limit=1`` (one
    keep-alive connection, opened again if the server closes it)."""
    times: list[float] = []
    with httpx.Client(base_url=url, headers={"x-api-key": key}, timeout=60) as http:
        for _ in range(20):  # warm-up: connection, caches
            http.get("/v1/datasets", params={"limit": 1}).raise_for_status()
        while len(times) < samples:
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
        await asyncio.sleep(0.1)
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


async def attack(
    url: str, key: str, kind: str, rate: float, stop: asyncio.Event, outcomes: Counter[str]
) -> None:
    """The attack ``kind`` (see the module docstring), held until ``stop``; crafted bodies
    at ``rate`` a second (0: as fast as the senders go)."""
    if kind == "idle-connections":
        host, port = url.removeprefix("http://").split(":")
        await hold_idle(host, int(port), stop, outcomes)
        return
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:

        async def send(path: str, content: bytes, headers: dict[str, str]) -> None:
            try:
                response = await http.post(path, content=content, headers=headers)
                outcomes[f"crafted body to {path} -> {response.status_code}"] += 1
            except httpx.HTTPError as exc:
                outcomes[f"crafted body to {path} -> {type(exc).__name__}"] += 1

        async def sender(n: int) -> None:
            mcp = {"x-api-key": key, "accept": "application/json, text/event-stream",
                   "content-type": "application/json"}  # fmt: skip
            i = n
            while not stop.is_set():
                i += SENDERS
                if rate:  # the senders together send at most ``rate`` bodies a second
                    await asyncio.sleep(SENDERS / rate)
                if kind == "mcp-bodies":
                    await send("/mcp/", CRAFTED_MCP[i % 2], mcp)
                elif kind == "admin-bodies":
                    await send("/sandbox/accounts", CRAFTED, {})
                else:
                    await send("/v1/datasets", CRAFTED, {"x-api-key": key} if i % 2 else {})

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

        if kind == "mcp-streams":
            tasks = [asyncio.create_task(stream()) for _ in range(STREAMS)]
        else:
            tasks = [asyncio.create_task(sender(n)) for n in range(SENDERS)]
        while not outcomes and not stop.is_set():  # under way once the first is answered
            await asyncio.sleep(0.05)
        outcomes["under way"] = 1
        await stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def attacker(url: str, key: str, kind: str, rate: float, pipe: Any) -> None:
    """The attacker's process: attacks until the victim says stop on ``pipe``; sends its
    outcome counts on ``pipe`` as they change, then ``"done"``."""
    raise_file_limit()
    outcomes: Counter[str] = Counter()
    sent: dict[str, int] = {}

    async def run() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(attack(url, key, kind, rate, stop, outcomes))
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


READY = ("under way", "idle connections opened")


def under_attack(
    url: str, attacker_key: str, victim: str, kind: str, rate: float, samples: int
) -> tuple[list[float], Counter[str]]:
    """The victim's latencies while :func:`attacker` runs ``kind`` in a process of its own
    (measured once the attack is under way: at most 60 s of waiting for it)."""
    context = multiprocessing.get_context("spawn")
    here, there = context.Pipe()
    child = context.Process(target=attacker, args=(url, attacker_key, kind, rate, there))
    child.start()
    outcomes: Counter[str] = Counter()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(r in outcomes for r in READY):
        if here.poll(0.05):
            outcomes = Counter(here.recv()[1])
    try:
        return victim_times(url, victim, samples), outcomes
    finally:
        here.send("stop")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if here.poll(1):
                message, counts = here.recv()
                outcomes.clear()
                outcomes.update(counts)
                if message == "done":
                    break
        child.join(30)
        if child.is_alive():
            child.kill()


ATTACKS = ("mcp-bodies", "idle-connections", "admin-bodies", "rest-bodies", "mcp-streams")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--attacks", default=",".join(ATTACKS), help="comma-separated")
    parser.add_argument("--fd-limit", type=int, default=FD_LIMIT)
    parser.add_argument("--rates", default="5,0", help="bodies/s; 0: unpaced (comma-separated)")
    args = parser.parse_args()
    raise_file_limit()
    missed = 0
    print(f"victim GET /v1/datasets; sandbox fd limit {args.fd_limit}; {load_line()}")
    with sandbox(args.fd_limit) as (url, key, token):
        victim = AdminClient(url, token).create_account(plan="Pro").api_key
        idle = victim_times(url, victim, args.samples)
        print(latency_line("  idle", idle), flush=True)
        runs = [
            (kind, float(rate))
            for kind in args.attacks.split(",")
            for rate in (args.rates.split(",") if kind.endswith("-bodies") else ["0"])
        ]
        for kind, rate in runs:
            loaded, outcomes = under_attack(url, key, victim, kind, rate, args.samples)
            if kind.endswith("-bodies"):
                kind = f"{kind} at {rate:g}/s" if rate else f"{kind} unpaced ({SENDERS} senders)"
            ratio = quantile(loaded, 0.95) / quantile(idle, 0.95)
            missed += ratio > TARGET
            print(latency_line(f"  {kind}", loaded, quantile(idle, 0.95)))
            for outcome, count in sorted(outcomes.items()):
                if outcome != "under way":
                    print(f"    {kind}: {outcome}: {count}")
            print(
                f"p95 ratio ({kind} / idle): {ratio:.2f} (target <= {TARGET:.1f}); {load_line()}",
                flush=True,
            )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
