"""The rdskit Jupyter server extension: one API gateway for every kernel of the server.

Enabled by ``jupyter-config/jupyter_server_config.d/rdskit.json`` (installed into
``etc/jupyter``). Inside the Jupyter server it:

- **holds the API key** (``c.RdsGateway.api_key_file``, ``c.RdsGateway.api_key`` or the
  server's ``RDSKIT_API_KEY``). It removes ``RDSKIT_API_KEY``/``RDSKIT_BASE_URL`` from the
  server's environment so kernels never inherit them, and overwrites them in the
  process's initial environment block too (:func:`scrub_environ`): a kernel reading
  ``/proc/<server pid>/environ`` finds nothing. Kernels get ``RDSKIT_GATEWAY``: the path
  of a 0600 discovery file (Jupyter runtime dir) with the gateway URL and a bootstrap
  secret that rotates every ``secret_ttl`` seconds;
- **binds tokens to kernels**: ``POST /rdskit/token`` wants the secret, the kernel's id
  and an HMAC of both under that kernel's connection key (:mod:`rdskit._gateway_auth`);
  a token only works while its kernel runs (a kernel shut down revokes its tokens);
- **proxies** ``/rdskit/v1/...`` to ``<base>/v1/...`` only: a path with dot segments, an
  empty segment or an encoded ``/``, ``\\``, ``?``, ``#`` (or ``%``-encoded dots) is
  refused with 400 before anything is sent. Requests pass through ONE request bucket for
  all kernels (5 requests per second by default): they queue in arrival order instead of
  being rejected, so many notebooks together never see a 429. Status codes, bodies and
  the ``RateLimit-*``/``Retry-After`` headers pass through;
- **hosts a shared sandbox** when no key is configured (the default), started by the
  first kernel request: a private file database (directory 0700, files 0600) in the
  Jupyter data dir, so its state outlives kernel (and server) restarts. Its well-known
  default key is revoked; a random key is minted at each start and stored 0600 beside
  the database.

Only loopback clients are served. The key is never logged, written or sent to a kernel,
and never passed back from the upstream (:func:`redact_key`). Holding a key, the server
makes itself non-dumpable (:func:`make_undumpable`: no core file, no ``/proc/<pid>/mem``
for same-user processes). What this isolation does not cover (any same-user process can
read the discovery and kernel connection files and so get a token) is in
``docs/jupyter.md``, Security model.

Example (``jupyter_server_config.py``)::

    c.RdsGateway.base_url = "https://rds.example.com"
    c.RdsGateway.api_key_file = "/run/secrets/rdskit_api_key"  # or RDSKIT_API_KEY
    c.RdsGateway.rate_limit = 5.0
    c.RdsGateway.token_ttl = 900
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from jupyter_core.paths import jupyter_data_dir, jupyter_runtime_dir
from jupyter_server.extension.application import ExtensionApp
from traitlets import Float, Unicode

from rdskit._config import ENV_API_KEY, ENV_BASE_URL, ENV_GATEWAY
from rdskit._files import read_private
from rdskit._ratelimit import DEFAULT_RATE
from rdskit.jupyter.gateway_core import Gateway, KernelKeys, Refused, Upstream
from rdskit.jupyter.gateway_handlers import PREFIX, make_handlers
from rdskit.jupyter.gateway_paths import upstream_path
from rdskit.jupyter.gateway_rate import SharedBucket
from rdskit.jupyter.gateway_tokens import TokenBook
from rdskit.jupyter.hardening import carries_key, make_undumpable, redact_key, scrub_environ
from rdskit.jupyter.lab_api import lab_handlers
from rdskit.jupyter.shared_sandbox import start_shared_sandbox

# The extension, and (for its users: jupyter-config, docs, tests) the names of the modules
# it is made of, one concern each.
__all__ = [
    "PREFIX",
    "Gateway",
    "KernelKeys",
    "RdsGateway",
    "Refused",
    "SharedBucket",
    "TokenBook",
    "Upstream",
    "carries_key",
    "make_handlers",
    "make_undumpable",
    "redact_key",
    "scrub_environ",
    "upstream_path",
]


class RdsGateway(ExtensionApp):
    """The server extension (configure it as ``c.RdsGateway.<trait>``)."""

    name = "rdskit"

    api_key = Unicode(
        None,
        allow_none=True,
        config=True,
        help="API key of the service (prefer api_key_file: a config file or a command line "
        "is readable by the kernels' user); default: api_key_file, else RDSKIT_API_KEY of "
        "the server's environment. Without one, the gateway serves a shared sandbox.",
    )
    api_key_file = Unicode(
        None,
        allow_none=True,
        config=True,
        help="A file holding the API key (e.g. a container secret mounted for the server "
        "only); read once at start, never through a symlink.",
    )
    base_url = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Root URL of the service; default: RDSKIT_BASE_URL of the server's environment.",
    )
    rate_limit = Float(DEFAULT_RATE, config=True, help="Requests per second for all kernels.")
    token_ttl = Float(900.0, config=True, help="Seconds a kernel token stays valid.")
    secret_ttl = Float(
        300.0, config=True, help="Seconds between rotations of the kernels' bootstrap secret."
    )
    sandbox_db = Unicode(
        None,
        allow_none=True,
        config=True,
        help="SQLite file of the shared sandbox; default: <jupyter data dir>/rdskit/sandbox.db "
        "(shown by %rds status). Never the kernels' RDSKIT_SANDBOX_DB (refused).",
    )
    sandbox_speed = Float(1.0, config=True, help="Simulated-time speed-up of the sandbox.")

    gateway: Gateway | None = None
    _stop_sandbox: Callable[[], None] | None = None
    _file: Path | None = None
    _url: str | None = None
    _rotating: asyncio.Task[None] | None = None

    def initialize_settings(self) -> None:
        """Take the key out of the environment, then start the gateway (or the sandbox)."""
        key = self._configured_key()
        url = self.base_url or os.environ.get(ENV_BASE_URL, "").strip() or None
        # Kernels and terminals inherit this process's environment, and can read the block
        # it started with in /proc/<pid>/environ: the key must leave both.
        if not scrub_environ((ENV_API_KEY, ENV_BASE_URL)):
            self.log.warning(
                "rdskit gateway: could not clear RDSKIT_API_KEY from this process's initial "
                "environment (not Linux?); kernels may read it there: use "
                "c.RdsGateway.api_key_file instead"
            )
        if key is not None and url is None:
            self.log.error("rdskit gateway off: an API key is configured but no base URL")
            return
        upstream: tuple[str, str] | Upstream
        if key is not None and url is not None:
            upstream, mode = (url, key), "service"
        elif all(find_spec(name) for name in ("fastapi", "uvicorn")):
            upstream, mode = self._start_sandbox, "sandbox"
        else:
            self.log.warning(
                "rdskit gateway off: no API key is configured and the sandbox extra "
                "(pip install 'rdskit[sandbox]') is not installed"
            )
            return
        self.gateway = Gateway(
            upstream, mode=mode, rate_limit=self.rate_limit, token_ttl=self.token_ttl
        )
        if mode == "sandbox":
            self.gateway.sandbox_db = str(self._sandbox_path())
        elif not make_undumpable():
            self.log.warning(
                "rdskit gateway: could not make the server non-dumpable (not Linux?); a "
                "core dump or a read of its memory by a same-user process can reveal the key"
            )
        self._file = Path(jupyter_runtime_dir()) / f"rdskit-gateway-{os.getpid()}.json"
        os.environ[ENV_GATEWAY] = str(self._file)
        self.log.info("rdskit gateway: %s mode (%s)", mode, self.gateway.status()["upstream"])

    def _configured_key(self) -> str | None:
        """The key from the trait, the key file or the environment (in that order)."""
        if self.api_key:
            return self.api_key.strip() or None
        if self.api_key_file:
            path = Path(self.api_key_file).expanduser()
            try:
                key = read_private(path).decode("utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                self.log.error(
                    "rdskit gateway: cannot read c.RdsGateway.api_key_file %s (%s)",
                    path,
                    type(exc).__name__,
                )
                return None
            if path.stat().st_mode & 0o077:
                self.log.warning(
                    "rdskit gateway: %s is readable by other users; chmod 600 it", path
                )
            return key or None
        return os.environ.get(ENV_API_KEY, "").strip() or None

    def _sandbox_path(self) -> Path:
        """The shared sandbox's database: the trait, or the default. Never the kernels'
        ``RDSKIT_SANDBOX_DB``: the shared sandbox revokes its database's default key."""
        if self.sandbox_db:
            return Path(self.sandbox_db).expanduser().resolve()
        return Path(jupyter_data_dir()) / "rdskit" / "sandbox.db"

    def _start_sandbox(self) -> tuple[str, str]:
        """Start the shared sandbox on the first request that needs it
        (:func:`~rdskit.jupyter.shared_sandbox.start_shared_sandbox`)."""
        setting = "c.RdsGateway.sandbox_db" + ("" if self.sandbox_db else " (default)")
        url, key, self._stop_sandbox = start_shared_sandbox(
            self._sandbox_path(), setting, speed=self.sandbox_speed, log=self.log
        )
        return url, key

    def initialize_handlers(self) -> None:
        """Register the routes (the ExtensionApp prefixes the server's base_url)."""
        if self.gateway is not None:
            self.handlers.extend(
                (pattern.lstrip("/"), handler, kwargs)
                for pattern, handler, kwargs in [
                    *make_handlers(self.gateway),
                    *lab_handlers(self.gateway),
                ]
            )

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        """Bind tokens to the server's kernels, publish the discovery file once the server
        listens (its port is known), and rotate its secret from then on."""
        if self.gateway is None or self._file is None:
            return
        if serverapp.sock:
            self.log.warning("rdskit gateway: unix-socket servers are not supported")
            return
        manager = getattr(serverapp, "kernel_manager", None)
        if manager is not None:
            self.gateway.kernels = _kernel_keys(manager)
            self.gateway.processes = _kernel_processes(manager)
        host = (
            serverapp.ip
            if serverapp.ip not in ("", "*", "0.0.0.0", "::", "localhost")
            else ("127.0.0.1")
        )
        host = f"[{host}]" if ":" in host else host
        scheme = "https" if serverapp.certfile else "http"
        self._url = f"{scheme}://{host}:{serverapp.port}{serverapp.base_url.rstrip('/')}/{PREFIX}"
        self.gateway.publish(self._file, self._url)
        self._rotating = asyncio.get_running_loop().create_task(self._rotate_forever())

    async def _rotate_forever(self) -> None:
        """A new bootstrap secret every ``secret_ttl`` seconds (kernels re-read the file)."""
        assert self.gateway is not None and self._file is not None and self._url is not None
        while True:
            await asyncio.sleep(self.secret_ttl)
            self.gateway.rotate()
            self.gateway.publish(self._file, self._url)

    async def stop_extension(self) -> None:
        """Remove the discovery file, close connections, stop the sandbox."""
        if self._rotating is not None:
            self._rotating.cancel()
        if self._file is not None:
            self._file.unlink(missing_ok=True)
        if self.gateway is not None:
            await self.gateway.aclose()
        if self._stop_sandbox is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._stop_sandbox)


def _kernel_keys(manager: Any) -> KernelKeys:
    """Connection keys of the kernel manager's running kernels, by kernel id."""

    def key_of(kernel_id: str) -> bytes | None:
        if kernel_id not in manager:
            return None
        key = getattr(getattr(manager.get_kernel(kernel_id), "session", None), "key", b"")
        return bytes(key) or None

    return key_of


def _kernel_processes(manager: Any) -> Callable[[str], int | None]:
    """The process id of the kernel manager's running kernels, by kernel id (None when
    its provisioner does not say, e.g. a remote kernel)."""

    def pid_of(kernel_id: str) -> int | None:
        if kernel_id not in manager:
            return None
        pid = getattr(getattr(manager.get_kernel(kernel_id), "provisioner", None), "pid", None)
        return pid if isinstance(pid, int) else None

    return pid_of
