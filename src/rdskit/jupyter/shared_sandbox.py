"""The gateway's shared sandbox, served when no API key is configured: started by the first
kernel request, on a private database in the Jupyter data dir whose state outlives kernel and
server restarts.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from rdskit._files import private_dir, private_file, read_private, write_private
from rdskit.jupyter.gateway_core import Refused

__all__ = ["start_shared_sandbox"]


def start_shared_sandbox(
    db: Path, setting: str, *, speed: float, log: logging.Logger | logging.LoggerAdapter[Any]
) -> tuple[str, str, Callable[[], None]]:
    """Start the shared sandbox on ``db`` privately: its URL, its fresh key, its stop.

    Directory 0700, database 0600 (SQLite gives its -wal/-shm files the database's
    mode), nothing opened through a symlink; the well-known default key is revoked and
    a random key, stored 0600 beside the database, replaces the previous one. The
    kernels' database (``RDSKIT_SANDBOX_DB``, or a file their sandboxes used) is
    refused, naming both settings (``setting`` names the one ``db`` came from, so the
    fix is one edit away): its keys are theirs.

    Raises:
        Refused: 503 ``gateway_sandbox_unusable``, the database cannot be used.

    Example:
        >>> url, key, stop = start_shared_sandbox(path, "c.RdsGateway.sandbox_db",
        ...                                       speed=1.0, log=log)  # doctest: +SKIP
    """
    # The sandbox is an optional extra: imported when the first kernel request needs it.
    from rdskit.sandbox import ENV_DB, start
    from rdskit.sandbox.store.accounts import default_api_key
    from rdskit.sandbox.store.db import DatabaseUnusable, claim, why_unusable

    kernels = os.environ.get(ENV_DB, "").strip()
    try:
        if kernels and Path(kernels).expanduser().resolve() == db:
            raise DatabaseUnusable(
                str(db),
                f"it is the kernels' {ENV_DB} too; give the gateway's shared sandbox another file",
            )
        private_dir(db.parent)
        private_file(db)
        for suffix in ("-wal", "-shm"):
            if db.with_name(db.name + suffix).exists():
                private_file(db.with_name(db.name + suffix), create=False)
        handle = start(db=db, speed=speed)
        try:
            claim(handle.store, "gateway")
        except DatabaseUnusable:
            handle.stop()
            raise
    except (DatabaseUnusable, OSError) as exc:
        unusable = (
            exc.named_by(setting)
            if isinstance(exc, DatabaseUnusable)
            else DatabaseUnusable(str(db), why_unusable(str(db), exc), setting)
        )
        log.error("rdskit gateway: %s", unusable)
        raise Refused(503, "gateway_sandbox_unusable", str(unusable)) from None
    key_file = db.with_name(db.name + ".key")
    old = [default_api_key(handle.store.seed)]
    if key_file.exists():
        old.append(read_private(key_file).decode("utf-8").strip())
    seats = handle.admin.account(handle.account_id)["seats"]
    owner = next(seat["id"] for seat in seats if seat["kind"] == "owner")
    key = handle.admin.create_key(owner)
    write_private(key_file, key.encode())
    for stale in old:
        with contextlib.suppress(httpx.HTTPStatusError):  # already revoked earlier
            handle.admin.revoke_key(stale)
    log.info("rdskit gateway: shared sandbox with database %s", db)
    return handle.url, key, handle.stop
