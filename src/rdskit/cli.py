"""The ``rdskit`` command line.

Each subcommand is one ``add_<name>(subparsers)`` function that builds its parser and
sets ``handler``; list it in ``SUBCOMMANDS`` to plug it in.

Example:
    $ rdskit sandbox --port 8765 --db ./sandbox.db --speed 10
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
    from rdskit.sandbox import start

    handle = start(
        host=args.host,
        port=args.port,
        db=args.db,
        seed=args.seed,
        speed=args.speed,
        rate_limit=args.rate_limit,
    )
    print(f"rdskit sandbox listening on {handle.url}")
    print(f"  base URL    : {handle.url}   (REST under {handle.url}/v1)")
    # A local test key of the sandbox's default account: printing it is the point.
    print(f"  API key     : {handle.api_key}")
    print(f"  admin token : {handle.admin_token}   (x-admin-token for {handle.url}/sandbox/...)")
    print(f"  database    : {args.db or 'temporary (deleted on exit)'}")
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
        "--rate-limit", type=float, default=5.0, help="requests per second per key (service: 5)"
    )
    parser.set_defaults(handler=_serve_sandbox)


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
