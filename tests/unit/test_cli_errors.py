"""The ``rdskit`` command's operator errors, each in one line on stderr and no traceback:
bad arguments (argparse's usage block is not printed), out-of-range sandbox options, a
database file that cannot be opened, a host that does not resolve."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def rdskit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rdskit", *args],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "RDSKIT_API_KEY": ""},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "rdskit: the following arguments are required: COMMAND"),
        (("fly",), "rdskit: argument COMMAND: invalid choice: 'fly'"),
        (("export",), "rdskit export: the following arguments are required: dataset, --out"),
        (("export", "ds_1", "--out", "x", "--format", "xml"), "invalid choice: 'xml'"),
        (("collect", "Oat", "--query", "q", "--sources", "reddit", "--count", "abc"), "'abc'"),
        (("sandbox", "--port", "99999"), "argument --port: must be 0 to 65535, not '99999'"),
        (("sandbox", "--port", "-1"), "argument --port: must be 0 to 65535, not '-1'"),
        (("sandbox", "--speed", "-1"), "argument --speed: must be a number above 0, not '-1'"),
        (("sandbox", "--rate-limit", "0"), "argument --rate-limit: must be a number above 0"),
        (("sandbox", "--speed", "nan"), "argument --speed: must be a number above 0, not 'nan'"),
        (("sandbox", "--job-cpu-budget", "0"), "argument --job-cpu-budget: must be a number"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    done = rdskit(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert says in done.stderr
    assert done.stderr.rstrip().endswith("--help)")  # where the usage is
    assert done.stdout == ""


def test_a_database_that_cannot_be_opened_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "s.db"
    done = rdskit("sandbox", "--port", "0", "--db", str(missing), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"rdskit sandbox: cannot use --db {missing} as the sandbox database: "
        f"its folder {missing.parent} does not exist"
    ]
    garbage = tmp_path / "notes.db"
    garbage.write_text("not a database, my notes\n" * 100)
    done = rdskit("sandbox", "--port", "0", "--db", str(garbage), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"rdskit sandbox: cannot use --db {garbage} as the sandbox database: "
        "SQLite: file is not a database"
    ]
    assert garbage.read_text().startswith("not a database")  # left as it was


def test_a_host_that_does_not_resolve_is_named(tmp_path: Path) -> None:
    done = rdskit("sandbox", "--port", "0", "--host", "no-such-host.invalid", cwd=tmp_path)
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("rdskit sandbox: cannot listen on --host no-such-host.invalid: ")
