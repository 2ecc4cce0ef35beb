"""``start()`` that fails part-way closes what it opened: the listening socket first; a
database that cannot be opened is a clear rdskit error naming the path, the setting that
named it and what is wrong, from Python as from the command line."""

from __future__ import annotations

import gc
import os
import socket
import threading
import warnings
from pathlib import Path

import pytest

import rdskit
import rdskit.sandbox.server as sandbox
from rdskit.sandbox import start
from rdskit.sandbox.store.db import DatabaseUnusable


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_database_that_cannot_be_opened_leaves_the_port_free(tmp_path: Path) -> None:
    port = _free_port()
    # Sockets that earlier tests of this worker left to the garbage collector are
    # collected first, and only a warning about a socket on this test's port counts: one
    # about another test's client, collected here, is not this test's leak.
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises(DatabaseUnusable, match="no such folder does not exist") as failure:
            start(port=port, db=tmp_path / "no such folder" / "sandbox.db")
        # The traceback keeps start()'s locals alive, so a socket left open is still bound
        # here: binding its port without SO_REUSEADDR would fail with EADDRINUSE.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as again:
            again.bind(("127.0.0.1", port))
        del failure
        gc.collect()
    leaked = [
        w
        for w in caught
        if issubclass(w.category, ResourceWarning) and f"'127.0.0.1', {port})" in str(w.message)
    ]
    assert not leaked, [str(w.message) for w in leaked]


def test_a_failure_after_the_server_started_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _free_port()

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("the default key cannot be made")

    monkeypatch.setattr(sandbox, "default_api_key", broken)
    with pytest.raises(RuntimeError, match="default key"):
        start(port=port, db=tmp_path / "sandbox.db")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as again:
        again.bind(("127.0.0.1", port))


def _garbage(folder: Path) -> Path:
    notes = folder / "notes.db"
    notes.write_text("not a database, my notes\n" * 100)
    return notes


@pytest.mark.parametrize(
    ("where", "says"),
    [
        (lambda tmp: tmp, "it is a folder, not a file"),
        (lambda tmp: tmp / "missing" / "s.db", "its folder {tmp}/missing does not exist"),
        (lambda tmp: _garbage(tmp) / "s.db", "{tmp}/notes.db is a file, not a folder"),
        (_garbage, "SQLite: file is not a database"),
    ],
    ids=["a folder", "a missing folder", "a file as its folder", "not a database"],
)
def test_a_database_that_cannot_be_opened_is_a_clear_error(
    tmp_path: Path, where: object, says: str
) -> None:
    path = where(tmp_path)  # type: ignore[operator]
    before = threading.enumerate()
    with pytest.raises(rdskit.ConfigurationError) as caught:
        start(port=0, db=path)
    error = caught.value
    assert isinstance(error, DatabaseUnusable) and isinstance(error, rdskit.RdsError)
    assert str(error) == (
        f"cannot use db={str(path)!r} as the sandbox database: {says.format(tmp=tmp_path)}"
    )
    assert (error.path, error.option) == (str(path), "db")
    assert [t for t in threading.enumerate() if t not in before] == []  # no thread left
    if path.is_file():
        assert path.read_text().startswith("not a database")  # left as it was


def test_a_read_only_folder_is_named_unless_it_can_be_written(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    if os.access(locked, os.W_OK):
        # Root writes in a read-only folder (CI runs as root): then nothing is refused.
        with start(port=0, db=locked / "s.db"):
            assert (locked / "s.db").is_file()
        return
    with pytest.raises(DatabaseUnusable, match=f"cannot write in its folder {locked}$"):
        start(port=0, db=locked / "s.db")


def test_the_embedded_sandbox_names_its_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "missing" / "s.db"
    monkeypatch.setattr(sandbox, "_embedded", None)  # as in a fresh process
    monkeypatch.setenv(sandbox.ENV_DB, str(missing))
    with pytest.raises(DatabaseUnusable) as caught:
        rdskit.Client.sandbox()
    assert str(caught.value) == (
        f"cannot use RDSKIT_SANDBOX_DB={str(missing)!r} as the sandbox database: "
        f"its folder {missing.parent} does not exist"
    )
    assert sandbox._embedded is None  # the next call tries again


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("RDSKIT_SANDBOX_SPEED", "fast", "RDSKIT_SANDBOX_SPEED='fast' is not a number above 0"),
        ("RDSKIT_SANDBOX_SPEED", "0", "RDSKIT_SANDBOX_SPEED='0' is not a number above 0"),
        ("RDSKIT_SANDBOX_SPEED", "nan", "RDSKIT_SANDBOX_SPEED='nan' is not a number above 0"),
        ("RDSKIT_SANDBOX_SEED", "1.5", "RDSKIT_SANDBOX_SEED='1.5' is not a whole number"),
    ],
)
def test_the_embedded_sandbox_names_a_bad_number_in_its_environment(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, says: str
) -> None:
    monkeypatch.setattr(sandbox, "_embedded", None)
    monkeypatch.setenv(variable, value)
    before = threading.enumerate()
    with pytest.raises(rdskit.ConfigurationError) as caught:
        rdskit.Client.sandbox()
    assert str(caught.value) == says
    assert [t for t in threading.enumerate() if t not in before] == []
