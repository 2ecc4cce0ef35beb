"""Offline, stateful emulator of the Research Data Service (FastAPI + SQLite + a worker).

Laid out like an emulator of a cloud service (moto's services): each layer is a folder.

- :mod:`.server`: ``start()``, :class:`SandboxHandle`, the shared ``embedded()``;
  :mod:`.admin_client`: the client of the ``/sandbox/...`` admin endpoints;
- :mod:`.app`, :mod:`.api`: the FastAPI application and its thin routes (one module per
  resource); :mod:`.mcp_server`: the same tools over MCP;
- :mod:`.backend`: each resource's state and rules (one module per resource);
- :mod:`.store`: the SQLite database and its state (accounts, wallet, cursors);
- :mod:`.runtime`: what runs the service (worker, clock, chaos, guard, rate limit, the
  CPU budget of a job);
- :mod:`.synth`: the synthetic world (corpus, enrichment, extraction, clustering,
  lexicons, profiles, preview samples);
- :mod:`.assistant`: the assistant behind ``/v1/chats`` and ``/v1/ask``.

``start()`` and ``embedded()`` are :mod:`.server`'s (see there).

Example:
    >>> import httpx
    >>> with start(speed=100) as sb:
    ...     r = httpx.get(f"{sb.url}/v1/datasets", headers={"x-api-key": sb.api_key})
    >>> r.status_code
    200
"""

from __future__ import annotations

from rdskit.sandbox import _extra  # noqa: F401  (names the extra when it is missing)
from rdskit.sandbox.admin_client import AdminClient
from rdskit.sandbox.runtime.clock import ENV_TODAY
from rdskit.sandbox.server import (
    ENV_DB,
    ENV_SEED,
    ENV_SPEED,
    SandboxHandle,
    embedded,
    running_embedded,
    start,
)
from rdskit.sandbox.store.accounts import NewAccount

__all__ = [
    "ENV_DB",
    "ENV_SEED",
    "ENV_SPEED",
    "ENV_TODAY",
    "AdminClient",
    "NewAccount",
    "SandboxHandle",
    "embedded",
    "running_embedded",
    "start",
]
