"""The ``rdskit`` command line.

Each subcommand is one ``add_<name>(subparsers)`` function that builds its parser and
sets ``handler``; list it in ``SUBCOMMANDS`` to plug it in.

Operator errors (a busy port, an unknown dataset, a budget refusal, a directory holding
another export...) end in one line on stderr and exit status 1, never a traceback; Ctrl-C
ends with status 130. Every string that came from the service (a dataset name, a run
state, an error's detail) is printed through :func:`rdskit._safe.one_line`, the sanitiser
``%rds`` uses: no escape sequence (colours, conceal, OSC 52 clipboard writes), carriage
return or newline of the service reaches the terminal.

Example:
    $ rdskit sandbox --port 8765 --db ./sandbox.db --speed 10 --today 2026-11-20
    $ rdskit demo --out ./rdskit-demo
    $ rdskit collect "Oat milk" --query "oat milk" --sources reddit,tiktok --count 500
    $ rdskit export ds_123 --format parquet --out ./oat --resume
"""

from __future__ import annotations

import argparse
import errno
import math
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from datetime import date
from decimal import Decimal
from types import FrameType
from typing import TYPE_CHECKING, Any

from rdskit._safe import one_line
from rdskit._version import __version__
from rdskit.demo import add_demo
from rdskit.errors import ConfigurationError, RdsError
from rdskit.frames.stream_export import BATCH_ROWS, FORMATS, export_mentions
from rdskit.study.cli import add_study

if TYPE_CHECKING:
    from rdskit.sandbox import SandboxHandle

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

Subparsers = Any  # argparse's _SubParsersAction is private


def _serve_sandbox(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C or SIGTERM, after printing how to connect."""
    from rdskit.sandbox.runtime.chaos import from_option
    from rdskit.sandbox.runtime.clock import parse_today, today_from_env

    if args.plan is not None or args.top_up is not None or args.reset_wallet:
        return _adjust_wallet(args)
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
    handle = _start(args, controls, today)
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
    _serve_until_stopped(handle)
    return 0


def _start(
    args: argparse.Namespace, controls: list[tuple[str, dict[str, Any]]], today: date | None
) -> SandboxHandle:
    """The sandbox started as the options say; what stops it named by its option."""
    from rdskit.sandbox import start
    from rdskit.sandbox.store.db import DatabaseUnusable

    try:
        return start(
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
    except DatabaseUnusable as exc:
        raise exc.named_by("--db") from None
    except socket.gaierror as exc:
        raise _OperatorError(f"cannot listen on --host {args.host}: {exc.strerror}") from None
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        raise _OperatorError(
            f"port {args.port} on {args.host} is in use (another sandbox?): "
            "choose another with --port, or --port 0 for any free one"
        ) from None


def _serve_until_stopped(handle: SandboxHandle) -> None:
    """Wait for Ctrl-C or SIGTERM, then stop ``handle``."""
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


def _port(text: str) -> int:
    """A TCP port number (0: any free one), for argparse."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, not {text!r}")
    return port


def _positive(text: str) -> float:
    """A finite number above 0, for argparse."""
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number > 0):
        raise argparse.ArgumentTypeError(f"must be a number above 0, not {text!r}")
    return number


def _adjust_wallet(args: argparse.Namespace) -> int:
    """``rdskit sandbox --db FILE --plan/--top-up/--reset-wallet``: change, print, exit."""
    from rdskit.sandbox.wallet_admin import adjust

    if args.db is None:
        print("rdskit sandbox: --plan, --top-up and --reset-wallet need --db FILE", file=sys.stderr)
        return 2
    top_up = None if args.top_up is None else Decimal(str(args.top_up))
    try:
        print(adjust(args.db, plan=args.plan, top_up=top_up, reset=args.reset_wallet))
    except ConfigurationError as exc:
        print(f"rdskit sandbox: {exc}", file=sys.stderr)
        return 2
    return 0


def add_sandbox(subparsers: Subparsers) -> None:
    """``rdskit sandbox``: serve the offline emulator of the service."""
    parser = subparsers.add_parser(
        "sandbox",
        help="serve the offline Research Data Service sandbox",
        description="Serve the offline Research Data Service sandbox: REST /v1, and MCP "
        '/mcp/ with the "mcp" extra (pip install "rdskit[mcp]"; without it /mcp/ answers '
        "503 mcp_unavailable naming the extra).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=_port, default=8765, help="port (default 8765; 0 = any free)"
    )
    parser.add_argument(
        "--db", default=None, help="SQLite file to persist state (default: temporary)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of ids, corpus and default key")
    parser.add_argument("--speed", type=_positive, default=1.0, help="simulated-time speed-up")
    parser.add_argument(
        "--today",
        metavar="YYYY-MM-DD",
        default=None,
        help="fix the sandbox's date: its clock starts at 12:00 UTC that day "
        "(default: RDSKIT_SANDBOX_TODAY, else the real date)",
    )
    parser.add_argument(
        "--rate-limit", type=_positive, default=5.0, help="requests per second per key (service: 5)"
    )
    parser.add_argument(
        "--job-cpu-budget",
        type=_positive,
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
    wallet = parser.add_argument_group(
        "a learner's wallet",
        "change the sandbox file given by --db, then exit without serving (stop the "
        "learner's kernels first): rdskit sandbox --db FILE --plan Trial --top-up 1000",
    )
    wallet.add_argument("--plan", default=None, help="put the account on this plan")
    wallet.add_argument(
        "--top-up", type=_positive, default=None, metavar="CREDITS", help="add credits"
    )
    wallet.add_argument(
        "--reset-wallet",
        action="store_true",
        help="one allotment of the plan, nothing used (before --top-up)",
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


class _OperatorError(Exception):
    """Something the operator can fix, said in one line (no traceback)."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument said in one line (where the usage is, instead of the
    usage block); subcommand parsers are of this class too."""

    def error(self, message: str) -> Any:  # argparse declares NoReturn
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _client(args: argparse.Namespace) -> Any:
    """The client of ``RDSKIT_API_KEY`` / ``RDSKIT_BASE_URL`` (``--base-url`` wins); the key
    is read from the environment only, never from the command line (``ps`` shows it)."""
    from rdskit.client import Client

    budget = getattr(args, "budget", None)
    return Client(base_url=args.base_url, budget_credits=budget)


def _status(text: str) -> None:
    """One updating status line on a terminal; nothing when stderr is not one."""
    if sys.stderr.isatty():
        print(f"\r{text}", end="", file=sys.stderr, flush=True)


def _collect(args: argparse.Namespace) -> int:
    """Create or reuse a dataset, start (or reuse) a run, wait for it with progress."""
    client = _client(args)
    with client:
        target = args.dataset
        if target.startswith("ds_"):
            dataset = client.datasets.get(target)
        else:
            dataset = client.datasets.get_or_create(target)
        sources = [s.strip() for s in args.sources.split(",") if s.strip()]
        actions = [a.strip() for a in (args.actions or "").split(",") if a.strip()]
        run = client.datasets.runs.create(
            dataset.id,
            search_query={"type": "prompt", "sources": sources, "search_query": args.query},
            count=args.count,
            content_analysis_actions=actions or None,
            reuse=not args.new_run,
        )
        name, ds_id, run_id = one_line(dataset.name), one_line(dataset.id), one_line(run.id)
        print(f"dataset {ds_id} ({name}): run {run_id} {one_line(run.status.type)}", flush=True)
        if args.no_wait:
            return 0
        run = run.wait(timeout=args.timeout, progress=sys.stderr.isatty())
        state, count = one_line(run.status.type), one_line(run.mentions_count)
        print(f"run {run_id}: {state}, {count} mentions", flush=True)
        print(f"export them: rdskit export {ds_id} --format parquet --out DIR", flush=True)
    return 0


def _export(args: argparse.Namespace) -> int:
    """Stream a dataset's mentions to ``--out`` (see :mod:`rdskit.frames.stream_export`)."""
    with _client(args) as client:
        result = export_mentions(
            client,
            args.dataset,
            args.out,
            args.format,
            resume=args.resume,
            batch_rows=args.batch_rows,
            progress=lambda rows: _status(f"exported {rows:,} mentions"),
            excel_safe=args.excel_safe,
        )
    _status("")
    if sys.stderr.isatty():
        print(file=sys.stderr)
    again = " (resumed)" if result.resumed else ""
    print(
        f"wrote {result.rows:,} mentions of {one_line(args.dataset)} to {result.path} as "
        f"{result.format}"
        f" in {result.parts} part file(s){again}"
    )
    return 0


def _connection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        default=None,
        help="the service (default RDSKIT_BASE_URL); the API key comes from RDSKIT_API_KEY",
    )


def add_collect(subparsers: Subparsers) -> None:
    """``rdskit collect``: create or reuse a dataset and collect mentions into it."""
    parser = subparsers.add_parser(
        "collect", help="create or reuse a dataset, start a run, wait with progress"
    )
    parser.add_argument("dataset", help="a dataset id (ds_...) or a name (found or created)")
    parser.add_argument("--query", required=True, help="what to search for")
    parser.add_argument(
        "--sources", required=True, help="comma-separated: reddit,tiktok,youtube,instagram,..."
    )
    parser.add_argument("--count", type=int, default=100, help="posts to collect (default 100)")
    parser.add_argument("--actions", default="", help="content analysis: sentiment,hook,cta")
    parser.add_argument(
        "--budget", type=float, default=None, help="refuse a run costing more than this (credits)"
    )
    parser.add_argument(
        "--new-run", action="store_true", help="start a run even if the same one exists"
    )
    parser.add_argument("--no-wait", action="store_true", help="start the run and return")
    parser.add_argument(
        "--timeout", type=float, default=3600.0, help="seconds to wait (default 3600)"
    )
    _connection_options(parser)
    parser.set_defaults(handler=_collect)


def add_export(subparsers: Subparsers) -> None:
    """``rdskit export``: stream a dataset's mentions to files, resumable."""
    parser = subparsers.add_parser(
        "export", help="stream a dataset's mentions to parquet, jsonl or csv files (resumable)"
    )
    parser.add_argument("dataset", help="the dataset id (ds_...)")
    parser.add_argument("--format", choices=FORMATS, default="parquet")
    parser.add_argument("--out", required=True, help="a new or empty directory")
    parser.add_argument(
        "--resume", action="store_true", help="continue an interrupted export in --out"
    )
    parser.add_argument(
        "--batch-rows",
        type=int,
        default=BATCH_ROWS,
        help=f"mentions per part file, what memory holds at once (default {BATCH_ROWS})",
    )
    parser.add_argument(
        "--excel-safe",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="csv only, on by default (a CSV is meant for spreadsheets): every line of a text "
        "starting with = + - @ or tab gets a ' prefix so no spreadsheet runs it as a formula, "
        "and line ends are \\n; --no-excel-safe writes every text exactly as sent. Either way "
        "fields holding a line break are quoted and rows end in \\r\\n",
    )
    _connection_options(parser)
    parser.set_defaults(handler=_export)


SUBCOMMANDS: list[Callable[[Subparsers], None]] = [
    add_sandbox,
    add_demo,
    add_collect,
    add_export,
    add_study,
]


def build_parser() -> argparse.ArgumentParser:
    """The ``rdskit`` parser with every registered subcommand."""
    parser = _Parser(prog="rdskit", description="Research Data Service toolkit")
    parser.add_argument("--version", action="version", version=f"rdskit {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``rdskit`` script (and ``python -m rdskit``)."""
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except (RdsError, _OperatorError) as exc:
        # One line whatever the service put in a detail (a newline would fake a second one).
        print(f"rdskit {args.command}: {one_line(exc)}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file or a socket: its message names it
        said = f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")
        print(f"rdskit {args.command}: {one_line(said)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        hint = " (run it again with --resume to continue)" if args.command == "export" else ""
        print(f"\nrdskit {args.command}: interrupted{hint}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
