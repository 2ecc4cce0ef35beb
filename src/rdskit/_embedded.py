"""The process's embedded sandbox as the core sees it: whether a client talks to it, and
how long what it holds lasts, so a message about a run or a wallet is true for the client
at hand.

The core never imports the sandbox layer: a sandbox this process started is already
loaded (``rdskit.sandbox.server`` in ``sys.modules``); otherwise there is none to name,
and nothing is started just to look.

Example:
    >>> import rdskit
    >>> client = rdskit.Client("bz_test_0123456789abcdef0123456789abcdef",
    ...                        base_url="https://rds.example.com")
    >>> embedded_sandbox(client) is None
    True
    >>> run_goes_on(client)
    'continues on the service'
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["embedded_sandbox", "kept_in", "run_goes_on"]


def embedded_sandbox(client: Any = None) -> Any | None:
    """The handle of this process's embedded sandbox when ``client`` talks to it (any
    client: ``None``), else None."""
    server = sys.modules.get("rdskit.sandbox.server")
    handle = None if server is None else server.running_embedded()
    if handle is None or client is None:
        return handle
    base_url = str(getattr(client, "base_url", "")).rstrip("/").removesuffix("/v1")
    return handle if base_url == handle.url else None


def kept_in(handle: Any) -> str | None:
    """The file an embedded sandbox keeps its data in (``RDSKIT_SANDBOX_DB``), or None
    for a temporary database, deleted when the process (the notebook's kernel) stops."""
    store = handle.store
    return str(store.path) if store.persistent else None


def run_goes_on(client: Any) -> str:
    """Where a run goes on once its wait is interrupted, and for how long, for the client
    at hand: on the service; in this process's sandbox until the process stops (its
    temporary database goes with it, so a resume call after a restart finds nothing);
    or in its sandbox's file, which a restarted kernel on the same file picks up."""
    handle = embedded_sandbox(client)
    if handle is None:
        return "continues on the service"
    db = kept_in(handle)
    if db is None:
        return (
            "goes on in this kernel's embedded sandbox, on a temporary database: it is "
            "lost when the kernel (this process) stops, so resume in this kernel"
        )
    return (
        f"goes on in this kernel's embedded sandbox, kept in {db}: a kernel restarted "
        "with the same RDSKIT_SANDBOX_DB picks it up"
    )
