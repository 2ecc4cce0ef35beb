"""Serving the sandbox: ``start()``, its :class:`SandboxHandle` and the shared ``embedded()``.

``start()`` serves a sandbox on a free loopback port in a background thread and returns
a handle with the base URL, a ready API key of the default account and admin helpers.
``embedded()`` is the per-process shared sandbox behind ``rdskit.Client.sandbox()``.

Example:
    >>> import httpx
    >>> with start(speed=100) as sb:
    ...     r = httpx.get(f"{sb.url}/v1/datasets", headers={"x-api-key": sb.api_key})
    >>> r.status_code
    200
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import socket
import threading
import time
from collections.abc import Callable, Sequence
from datetime import date
from decimal import Decimal
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from rdskit.errors import ConfigurationError
from rdskit.sandbox import _extra  # noqa: F401  (names the extra when it is missing)
from rdskit.sandbox.admin_client import AdminClient
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.runtime.clock import parse_today, today_from_env
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.accounts import (
    DEFAULT_WALLET_USD,
    PLANS,
    default_api_key,
    key_digest,
    key_owner,
    mint_key,
)
from rdskit.sandbox.store.db import DatabaseUnusable, Store, claim

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
    "ENV_DB",
    "ENV_PLAN",
    "ENV_SEED",
    "ENV_SPEED",
    "SandboxHandle",
    "embedded",
    "running_embedded",
    "start",
]


class SandboxHandle:
    """A running sandbox: ``url`` (no ``/v1``), ``api_key``, ``admin``, ``stop()``."""

    def __init__(
        self,
        *,
        url: str,
        api_key: str,
        admin_token: str,
        account_id: str,
        stop: Callable[[], None],
        settings: Settings,
        store: Store,
    ) -> None:
        self.url = url
        self.api_key = api_key
        self.admin_token = admin_token
        self.account_id = account_id
        self.settings = settings
        self.store = store
        self.admin = AdminClient(url, admin_token)
        self._stop = stop

    def stop(self) -> None:
        """Shut the server and worker down and close the store (idempotent)."""
        self.admin.close()
        self._stop()

    def __enter__(self) -> SandboxHandle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<SandboxHandle {self.url} account={self.account_id}>"


def start(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    db: str | os.PathLike[str] | None = None,
    seed: int = 0,
    speed: float = 1.0,
    rate_limit: float = 5.0,
    worker_threads: int = 2,
    job_cpu_budget: float | None = 30.0,
    chaos: Sequence[tuple[str, dict[str, Any]]] = (),
    today: date | str | None = None,
    max_connections: int | None = None,
) -> SandboxHandle:
    """Serve a sandbox in a background thread; ``port=0`` picks a free port.

    ``db=None`` uses a temporary database deleted on ``stop()``; a path persists
    everything across restarts (one that cannot be opened, such as a folder or a path in
    a missing folder, is a :class:`~rdskit.sandbox.store.db.DatabaseUnusable` naming it and what
    is wrong, a :class:`~rdskit.errors.ConfigurationError`, with nothing left open).
    ``job_cpu_budget`` is the CPU seconds one worker job may use (its run fails, refunded,
    beyond it); ``chaos`` sets chaos controls from the start (``(control, body)`` pairs,
    see ``rdskit.sandbox.runtime.chaos``). ``today`` fixes the sandbox's date (``"YYYY-MM-DD"`` or
    a ``date``; default ``RDSKIT_SANDBOX_TODAY``, else the real date): its clock starts at
    noon UTC of that day and runs from there (see :mod:`rdskit.sandbox.runtime.clock`).
    ``max_connections`` is the connection budget (default: the file-descriptor limit less
    a reserve): idle connections are closed first when it is near, see
    :func:`rdskit.sandbox.app.connection_limits`.

    Example:
        >>> with start(speed=100, today="2026-11-20") as sb:
        ...     sb.store.clock.today().isoformat()
        '2026-11-20'
    """
    from rdskit.sandbox.app import create_app

    fixed = parse_today(today) if today is not None else today_from_env()

    # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on accepted sockets whose proto
    # says TCP; without it every keep-alive response waits ~40 ms for a delayed ACK.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    # Until the handle is returned, whatever fails (a busy port, a --db that cannot be
    # opened, a server that does not start) closes everything opened so far: the socket
    # is not left bound, the store not left open, the server not left running.
    with contextlib.ExitStack() as opened:
        opened.callback(sock.close)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))  # first, so a busy port fails before anything is opened
        bound_port = sock.getsockname()[1]
        settings = Settings(
            rate_limit=rate_limit,
            worker_threads=worker_threads,
            job_cpu_budget=job_cpu_budget,
            chaos=tuple(chaos),
        )
        try:
            store = open_store(db, seed=seed, speed=speed, today=fixed)
        except DatabaseUnusable as exc:
            raise exc.named_by("db") from exc.__cause__
        opened.callback(store.close)
        stop = _serve(create_app(store, settings), sock, store, max_connections, opened)
        url_host = f"[{host}]" if ":" in host else host
        handle = SandboxHandle(
            url=f"http://{url_host}:{bound_port}",
            api_key=default_api_key(store.seed),
            admin_token=settings.admin_token,
            account_id=_default_account(store),
            stop=stop,
            settings=settings,
            store=store,
        )
        opened.pop_all()  # started: the handle's stop() closes them now
    return handle


def _serve(
    app: FastAPI,
    sock: socket.socket,
    store: Store,
    max_connections: int | None,
    opened: contextlib.ExitStack,
) -> Callable[[], None]:
    """Serve ``app`` on the bound ``sock`` in a daemon thread and wait until it has started
    (at most 10 s); returns its ``stop``, also pushed on ``opened`` so a server that does not
    start is stopped (before its store closes) and its socket closed."""
    import uvicorn

    from rdskit.sandbox.app import connection_limits

    limits = connection_limits(max_connections)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **limits))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="rdskit-sandbox", daemon=True
    )
    stopped = threading.Event()

    def stop() -> None:
        if stopped.is_set():
            return
        stopped.set()
        server.should_exit = True
        if thread.is_alive():
            thread.join(10)
        sock.close()
        store.close()

    opened.callback(stop)  # runs first: the server stops before its store closes
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the sandbox server did not start")
        time.sleep(0.01)
    return stop


def _default_account(store: Store) -> str:
    """The id of the account the store was seeded with (the handle's key is its owner's)."""
    with store.read() as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'default_account'").fetchone()
    return str(row[0])


_embedded: SandboxHandle | None = None
_N = TypeVar("_N", int, float)
_embedded_lock = threading.Lock()


ENV_SPEED = "RDSKIT_SANDBOX_SPEED"
ENV_SEED = "RDSKIT_SANDBOX_SEED"
ENV_DB = "RDSKIT_SANDBOX_DB"
ENV_PLAN = "RDSKIT_SANDBOX_PLAN"


def embedded() -> SandboxHandle:
    """The process's shared sandbox, started on first use and stopped at exit.

    Its options come from the environment, so a classroom or a CI job can tune every
    notebook at once: ``RDSKIT_SANDBOX_SPEED`` (simulated-time speed-up, default 1),
    ``RDSKIT_SANDBOX_SEED`` (corpus and id seed, default 0), ``RDSKIT_SANDBOX_DB``
    (a SQLite file that keeps the state across restarts; default a temporary one),
    ``RDSKIT_SANDBOX_PLAN`` (the ready account's plan: Trial, Starter, Pro, Business or
    Legacy, with one allotment of it in the wallet, e.g. Trial's 1,000 credits; default
    Pro with ten allotments), so a lesson can be tried under each plan a class may hold, and
    ``RDSKIT_SANDBOX_TODAY`` (a fixed date, ``YYYY-MM-DD``: see :func:`start`), so a class
    sees the same dates whatever day it runs the lessons.

    Example:
        >>> embedded() is embedded()
        True
    """
    global _embedded
    with _embedded_lock:
        if _embedded is None:
            plan = _plan_from_env()
            try:
                handle = start(
                    speed=_number_from_env(ENV_SPEED, 1.0, _speed, "a number above 0"),
                    seed=_number_from_env(ENV_SEED, 0, int, "a whole number"),
                    db=os.environ.get(ENV_DB) or None,
                )
            except DatabaseUnusable as exc:
                raise exc.named_by(ENV_DB) from exc.__cause__
            try:
                claim(handle.store, "kernels")
            except DatabaseUnusable as exc:
                handle.stop()
                raise exc.named_by(ENV_DB) from None
            _embedded = handle
            atexit.register(_embedded.stop)
            if plan:
                _give_plan(_embedded, plan)
        _own_key(_embedded)
        return _embedded


def running_embedded() -> SandboxHandle | None:
    """The process's embedded sandbox if :func:`embedded` started it, else None (nothing
    is started).

    Example:
        >>> running_embedded() is None or running_embedded() is embedded()
        True
    """
    return _embedded


def _own_key(handle: SandboxHandle) -> None:
    """Give ``handle`` a key of its own process, minted in its database, unless the one it
    holds still opens it.

    The default key is derived from the seed and lives in the database: anything else
    that opens the same file can revoke it (an older gateway's shared sandbox did, and
    every notebook then got 401 for good). A key minted here is known to this process
    only, and a revoked one is replaced on the next ``Client.sandbox()``.
    """
    if handle.api_key != default_api_key(handle.store.seed):
        with handle.store.read() as conn:
            if key_owner(conn, key_digest(handle.api_key)) is not None:
                return
    with handle.store.transaction() as conn:
        (owner,) = conn.execute(
            "SELECT id FROM seats WHERE account_id = ? AND kind = 'owner' ORDER BY created_at",
            (handle.account_id,),
        ).fetchone()
        handle.api_key = mint_key(conn, owner)


def _give_plan(handle: SandboxHandle, plan: str) -> None:
    """Put the ready account on ``plan`` with one allotment of it in the wallet (Trial:
    1,000 credits), as a new account on that plan has, so a course run on Trial meets
    Trial's wallet. Only a fresh account (on another plan, or the untouched default
    wallet) is changed: a kernel restarted on the same ``RDSKIT_SANDBOX_DB`` keeps what
    was spent."""
    account = handle.admin.account(handle.account_id)
    wallet = account["wallet"]
    untouched = (
        Decimal(wallet["total_usd"]) == DEFAULT_WALLET_USD and Decimal(wallet["used_usd"]) == 0
    )
    if account["plan"] == plan and not untouched:
        return
    handle.admin.set_plan(handle.account_id, plan)
    handle.admin.set_wallet(handle.account_id, total_usd=PLANS[plan].allotment_usd(), used_usd="0")


def _number_from_env(name: str, default: _N, read: Callable[[str], _N], what: str) -> _N:
    """The environment variable ``name`` read by ``read`` (``default`` when unset); a
    :class:`~rdskit.errors.ConfigurationError` naming it when it is not ``what``.

    Example:
        >>> os.environ["RDSKIT_EXAMPLE"] = "fast"
        >>> _number_from_env("RDSKIT_EXAMPLE", 1.0, _speed, "a number above 0")
        Traceback (most recent call last):
        ...
        rdskit.errors.ConfigurationError: RDSKIT_EXAMPLE='fast' is not a number above 0
        >>> del os.environ["RDSKIT_EXAMPLE"]
    """
    text = (os.environ.get(name) or "").strip()
    if not text:
        return default
    try:
        return read(text)
    except ValueError:
        raise ConfigurationError(f"{name}={text[:40]!r} is not {what}") from None


def _speed(text: str) -> float:
    """A speed-up: a finite number above 0 (0, a negative one or NaN would stop or reverse
    the sandbox's clock)."""
    speed = float(text)
    if not (math.isfinite(speed) and speed > 0):
        raise ValueError(text)
    return speed


def _plan_from_env() -> str | None:
    """``RDSKIT_SANDBOX_PLAN`` as a plan name (any case), checked before anything starts."""
    wanted = (os.environ.get(ENV_PLAN) or "").strip()
    if not wanted:
        return None
    names = {name.lower(): name for name in PLANS}
    if wanted.lower() not in names:
        raise ConfigurationError(
            f"{ENV_PLAN}={wanted!r} is not a sandbox plan; use one of {', '.join(PLANS)}"
        )
    return names[wanted.lower()]
