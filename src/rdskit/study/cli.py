"""``rdskit study ...``: the study subcommands (registered in :mod:`rdskit.cli`).

Example:
    $ rdskit study new study.toml --title "Oat milk brands"
    $ rdskit study status study.toml
    $ rdskit study run study.toml
    $ rdskit study package study.toml ./oat-package --zip
    $ rdskit study validate ./oat-package
    $ rdskit study rehydrate ./oat-package --budget 200
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rdskit.errors import InvalidParameter

__all__ = ["add_study"]


def _client(args: argparse.Namespace) -> Any:
    from rdskit.client import Client

    return Client(base_url=args.base_url)


def _new(args: argparse.Namespace) -> int:
    from rdskit.study import template

    path = Path(args.path)
    if path.exists():
        raise InvalidParameter("path", f"{path} exists: choose a new file")
    path.write_text(template(args.title), encoding="utf-8")
    print(f"wrote {path}: edit it, then `rdskit study status {path}`")
    return 0


def _status(args: argparse.Namespace) -> int:
    from rdskit.study import load_study, study_status

    study = load_study(args.study)
    with _client(args) as client:
        print(study_status(study, client))
    return 0


def _run(args: argparse.Namespace) -> int:
    from rdskit.study import load_study, run_study

    study = load_study(args.study)
    with _client(args) as client:
        status = run_study(
            study,
            client,
            progress=sys.stderr.isatty(),
            report=lambda text: print(text, flush=True),
            timeout=args.timeout,
        )
    print(status)
    return 0


def _package(args: argparse.Namespace) -> int:
    from rdskit.study import load_study, package_study

    study = load_study(args.study)
    with _client(args) as client:
        out = package_study(
            study,
            client,
            args.out,
            study_file=args.study,
            content=args.content,
            confirm_full=args.confirm_full,
            zip=args.zip,
        )
    print(f"wrote {out} ({args.content}){' and ' + str(out) + '.zip' if args.zip else ''}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    from rdskit.study import validate_package

    check = validate_package(args.package)
    print(check)
    return 0 if check.ok else 1


def _rehydrate(args: argparse.Namespace) -> int:
    from rdskit.study import rehydrate

    with _client(args) as client:
        report = rehydrate(
            args.package,
            client,
            dataset=args.dataset,
            budget_credits=args.budget,
            out=args.out,
            timeout=args.timeout,
            progress=sys.stderr.isatty(),
        )
    print(report.sentence)
    print(report.by_source.to_string(index=False))
    return 0


def _connection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-url",
        default=None,
        help="the service (default RDSKIT_BASE_URL); the API key comes from RDSKIT_API_KEY",
    )


def add_study(subparsers: Any) -> None:
    """``rdskit study``: declare, collect, package, validate and re-collect a study."""
    parser = subparsers.add_parser("study", help="a study file: run, package, re-collect")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    new = actions.add_parser("new", help="write a commented study.toml template")
    new.add_argument("path", help="the file to write (study.toml)")
    new.add_argument("--title", default="My study")
    new.set_defaults(handler=_new)

    status = actions.add_parser("status", help="what is collected and what is left to pay")
    status.add_argument("study", help="the study file")
    _connection(status)
    status.set_defaults(handler=_status)

    run = actions.add_parser("run", help="collect what is left (resumable, never pays twice)")
    run.add_argument("study", help="the study file")
    run.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait per run")
    _connection(run)
    run.set_defaults(handler=_run)

    package = actions.add_parser("package", help="an RO-Crate + Data Package to share")
    package.add_argument("study", help="the study file")
    package.add_argument("out", help="a new or empty directory")
    package.add_argument("--zip", action="store_true", help="also write OUT.zip")
    package.add_argument(
        "--content",
        choices=("ids", "pseudonymised", "full"),
        default="ids",
        help="ids only (default), pseudonymised derived tables, or full content",
    )
    package.add_argument(
        "--confirm-full",
        action="store_true",
        help="confirm you may share full content (texts, names, links)",
    )
    _connection(package)
    package.set_defaults(handler=_package)

    validate = actions.add_parser("validate", help="check a package (both standards, ids)")
    validate.add_argument("package", help="the package directory")
    validate.set_defaults(handler=_validate)

    rehydrate = actions.add_parser("rehydrate", help="re-collect a package by its links")
    rehydrate.add_argument("package", help="the package directory")
    rehydrate.add_argument("--dataset", default=None, help="dataset name to collect into")
    rehydrate.add_argument("--budget", type=float, default=None, help="credits at most")
    rehydrate.add_argument("--out", default=None, help="report folder (PACKAGE/attrition)")
    rehydrate.add_argument("--timeout", type=float, default=3600.0)
    _connection(rehydrate)
    rehydrate.set_defaults(handler=_rehydrate)
