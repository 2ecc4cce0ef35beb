"""The ``rdskit`` command line.

Each subcommand is one ``add_<name>(subparsers)`` function that builds its parser and
sets ``handler``; list it in ``SUBCOMMANDS`` to plug it in.

Example:
    $ rdskit sandbox --port 8765 --db ./sandbox.db --speed 10 --today 2026-11-20
    $ rdskit demo --out ./rdskit-demo
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

from rdskit.demo import add_demo

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

Subparsers = Any  # argparse's _SubParsersAction is private


def _serve_sandbox(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C or SIGTERM, after printing how to connect."""
    from rdskit.errors import ConfigurationError
    from rdskit.sandbox import start
    from rdskit.sandbox.chaos import from_option
    from rdskit.sandbox.clock import parse_today, today_from_env

    try:
        controls = [
            from_option(control, text)
            for control in _CHAOS_OPTIONS
            for text in getattr(args, f"chaos_{control}") or []
        ]
        today = parse_today(args.today) if args.today else today_from_env()
    except (ValueError, ConfigurationError) as exc:
        print(f"rdskit sandbox: {exc}", file=sys.stderr)
        return 2
    handle = start(
        host=args.host,
        port=args.port,
        db=args.db,
        seed=args.seed,
        speed=args.speed,
        rate_limit=args.rate_limit,
        job_cpu_budget=args.job_cpu_budget,
        chaos=controls,
        today=today,
    )
    print(f"rdskit sandbox listening on {handle.url}")
    print(f"  base URL    : {handle.url}   (REST under {handle.url}/v1)")
    # A local test key of the sandbox's default account: printing it is the point.
    print(f"  API key     : {handle.api_key}")
    print(f"  admin token : {handle.admin_token}   (x-admin-token for {handle.url}/sandbox/...)")
    print(f"  database    : {args.db or 'temporary (deleted on exit)'}")
    if today is not None:
        print(f"  today       : {today} (fixed: the clock started at 12:00 UTC that day)")
    for control, body in controls:
        print(f"  chaos       : {control} {body}")
    print("Press Ctrl-C to stop.", flush=True)

    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    try:
        while not stopping.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        handle.stop()
    return 0


def add_sandbox(subparsers: Subparsers) -> None:
    """``rdskit sandbox``: serve the offline emulator of the service."""
    parser = subparsers.add_parser(
        "sandbox", help="serve the offline Research Data Service sandbox"
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any free)")
    parser.add_argument(
        "--db", default=None, help="SQLite file to persist state (default: temporary)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of ids, corpus and default key")
    parser.add_argument("--speed", type=float, default=1.0, help="simulated-time speed-up")
    parser.add_argument(
        "--today",
        metavar="YYYY-MM-DD",
        default=None,
        help="fix the sandbox's date: its clock starts at 12:00 UTC that day "
        "(default: RDSKIT_SANDBOX_TODAY, else the real date)",
    )
    parser.add_argument(
        "--rate-limit", type=float, default=5.0, help="requests per second per key (service: 5)"
    )
    parser.add_argument(
        "--job-cpu-budget",
        type=float,
        default=30.0,
        help="CPU seconds one worker job may use before its run fails, refunded (default 30)",
    )
    chaos = parser.add_argument_group(
        "chaos controls", "make the sandbox fail on demand (also: /sandbox/chaos admin API)"
    )
    for control, (metavar, text) in _CHAOS_OPTIONS.items():
        chaos.add_argument(
            f"--chaos-{control.replace('_', '-')}",
            dest=f"chaos_{control}",
            action="append",
            metavar=metavar,
            help=text,
        )
    parser.set_defaults(handler=_serve_sandbox)


_CHAOS_OPTIONS = {
    "source": ("SOURCE", "make a source unavailable (repeatable)"),
    "failure": (
        "KIND[:STEP][:N]",
        "fail the next N runs of KIND at STEP, e.g. dataset_run:enrichment:2",
    ),
    "fault": (
        "RULE",
        "inject a fault: route=GLOB,kind=latency|error|drop|rate_limit[,probability=P,seed=S,"
        "methods=GET|POST,status=5xx,latency_ms=MS,times=N]",
    ),
    "assistant": ("FLAGS", "duplicate_citation and/or render_block (comma-separated)"),
    "parameter_posts": ("retry=N,fail=M", "custom-parameter posts that fail once / for good"),
}


SUBCOMMANDS: list[Callable[[Subparsers], None]] = [
    add_sandbox,
    add_demo,
]


def build_parser() -> argparse.ArgumentParser:
    """The ``rdskit`` parser with every registered subcommand."""
    parser = argparse.ArgumentParser(prog="rdskit", description="Research Data Service toolkit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rdskit`` script."""
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
