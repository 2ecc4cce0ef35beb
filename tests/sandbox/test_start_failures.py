"""``start()`` that fails part-way closes what it opened: the listening socket first."""

from __future__ import annotations

import gc
import socket
import warnings
from pathlib import Path

import pytest

from rdskit.sandbox import start


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_database_that_cannot_be_opened_leaves_the_port_free(tmp_path: Path) -> None:
    port = _free_port()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises(Exception, match="unable to open database file") as failure:
            start(port=port, db=tmp_path / "no such folder" / "sandbox.db")
        # The traceback keeps start()'s locals alive, so a socket left open is still bound
        # here: binding its port without SO_REUSEADDR would fail with EADDRINUSE.
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as again:
            again.bind(("127.0.0.1", port))
        del failure
        gc.collect()
    leaked = [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert not leaked, [str(w.message) for w in leaked]


def test_a_failure_after_the_server_started_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rdskit.sandbox as sandbox

    port = _free_port()

    def broken(*args: object, **kwargs: object) -> str:
        raise RuntimeError("the default key cannot be made")

    monkeypatch.setattr(sandbox, "default_api_key", broken)
    with pytest.raises(RuntimeError, match="default key"):
        start(port=port, db=tmp_path / "sandbox.db")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as again:
        again.bind(("127.0.0.1", port))
