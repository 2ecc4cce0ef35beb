"""Endpoints of the gateway for the JupyterLab extension (``labextension/``).

``GET /rdskit/lab/summary?kernel=<kernel id>`` (Jupyter server authentication: the
browser's session cookie or token and XSRF check, like every ``/api`` route; kernels'
gateway tokens do not open it) answers what the status bar item and the side panel show
for the active notebook::

    {"viewing": {"scope": "notebook", "label": "this notebook: embedded sandbox",
                 "kernel": "…", "note": None},
     "connected": {"mode": "sandbox", "upstream": "http://127.0.0.1:…"},
     "account": {"id": …, "email": …, "team": …, "plan": …, "credits_left": "990 credits"},
     "datasets": [{"id": …, "name": …, "runs": [{"id": …, "status": "working",
                   "share": 0.5, "mentions": "200 requested"}]}],
     "runs_in_flight": 1, "tracking_agents": 1,
     "agents": [{"id": …, "name": …, "paused": False, "alerts": [{"id": …, "at": 1767…,
                 "preview": …, "new_mentions": 12, "chat_id": …}], "more": False}],
     "chats": {"items": [{"id": …, "title": …, "datasets": […], "last_activity": 1767…}],
               "source": "asked from this notebook (%%ask)"},
     "usage": {"days": [{"day": "2026-11-26", "credits": "12.5", "usd": "0.13",
                         "by": [{"category": "mention", "credits": "12"}]}],
               "rows": 3, "more": False},
     "kernel_budget": {"set": True, "announced": True, "total": "100", "left": "40",
                       "committed": "60", "held": "0", "short": "budget 40 of 100 left",
                       "text": "40 of 100 credits left (60 committed)"},
     "rate_limit": 5.0, "queued": 0, "age": 0.4, "next_poll": 5.0}

**Kernel budget.** ``kernel_budget`` is the budget of the notebook's kernel
(:func:`rdskit.set_budget`, ``%rds budget N``), as that kernel last announced it: it
announces every change (set, changed, spent against, held for an Ask, lifted), whatever
client it uses, the gateway's included. ``{"set": False, "short": "no kernel budget"}``
when it has none (``announced`` False: the kernel never told the gateway anything, e.g.
rdskit is not imported there); None when the request names no kernel. A kernel that
stops or restarts (same id, another process) takes its budget with it.

**Which client.** A kernel that makes its own client announces it (``POST
/rdskit/kernel``, the kernel's gateway token, bound to that kernel's id, so a kernel only
speaks for itself; see :func:`rdskit.jupyter.session.announce_client`):

- an embedded sandbox (``rdskit.Client.sandbox()``): its loopback URL and its key (a
  sandbox key of an offline, per-kernel account, not a secret of a real account), kept in
  the server's memory only; the panel reads that sandbox;
- its own key for a service (``%rds connect --base-url``, ``rdskit.Client(key, ...)``):
  the URL only. The key never leaves the kernel, so the panel says which service and that
  it cannot read that account;
- the gateway (``rdskit.Client()``, or no client yet): the gateway's view is shown (the
  registration keeps the kernel's budget only).

A kernel that announced nothing, or is no longer running, or whose sandbox no longer
answers (a restarted kernel), is shown the server gateway's view, and the label says so.

**Rate.** Every read, of the upstream or of a kernel's sandbox, goes through the
gateway's one shared request bucket (:meth:`Gateway.send`, the one the kernels' requests
use), so the panel can never exceed the bucket's rate. On top of that, a view is reused
(whoever asks: several tabs, several panels) long enough that the panel's reads of every
view shown in the last minute take at most :data:`PANEL_SHARE` of the bucket; datasets
and runs are read every :data:`MIN_INTERVAL` seconds at best, chats, alerts and usage
every :data:`SLOW_INTERVAL`.

**Chats.** The service has no list of chats (only ``GET /v1/chats/{id}``); the panel
lists the chats asked through the gateway (it records the chat of every Ask it forwards)
or, for a kernel's own sandbox, the chats that kernel's ``%%ask`` used; the ``source``
field says which. **Alerts**: the service has no read/unread flag; the extension counts
as unread the alerts newer than the last ones the user marked read in that browser.

Service data is returned as JSON strings; the extension renders them as text only
(``textContent``).

Example:
    >>> [pattern for pattern, *_ in lab_handlers(None, "/")]  # doctest: +SKIP
    ['/rdskit/lab/summary', '/rdskit/lab/ask', '/rdskit/lab/starter', '/rdskit/kernel']
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

import httpx
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.base.handlers import APIHandler
from tornado import web

from rdskit._config import SecretKey
from rdskit._format import credits_text, usd_text
from rdskit._gateway_auth import TOKEN_HEADER
from rdskit.budget import left_text
from rdskit.errors import error_from_response
from rdskit.jupyter.gateway_core import Gateway
from rdskit.jupyter.gateway_handlers import GatewayHandler
from rdskit.jupyter.lab_ask import AskFailed, AskHandler
from rdskit.models import (
    Account,
    Chat,
    ChatMessage,
    Dataset,
    DatasetRun,
    TrackingAgent,
    TrackingMessage,
    UsageRow,
)
from rdskit.runs import describe

__all__ = [
    "ANNOUNCEMENT_BYTES",
    "DATASETS_SHOWN",
    "MIN_INTERVAL",
    "PANEL_SHARE",
    "SLOW_INTERVAL",
    "STARTER",
    "KernelBudget",
    "KernelClient",
    "LabSummary",
    "lab_handlers",
    "reuse_seconds",
]

MIN_INTERVAL = 5.0
"""Seconds a view's datasets and runs are reused at least before the service is read again."""
SLOW_INTERVAL = 30.0
"""Seconds a view's chats, alerts and usage history are reused before they are read again."""
PANEL_SHARE = 0.5
"""The largest share of the gateway's bucket the panel's reads take (the rest is the kernels')."""
DATASETS_SHOWN = 8
"""The most recent datasets the panel lists (each costs one read of its runs)."""
RUNS_SHOWN = 3
AGENTS_SHOWN = 5
"""Tracking agents whose alerts are read (each costs one read)."""
ALERTS_READ = 10
SAID_CHARS = 300
"""The most of a refusal's own words (its ``detail``) the panel repeats."""
CHATS_SHOWN = 5
"""Chats shown (each costs two reads: the chat and its latest messages)."""
USAGE_ROWS = 100
"""Usage-history rows read (the latest charges; the panel says when there are more)."""
ACTIVE_SECONDS = 60.0
ANNOUNCEMENT_BYTES = 16_384
"""The largest ``POST /rdskit/kernel`` body read (a kernel sends well under 1 KiB)."""

_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
_KEY = re.compile(r"[\x21-\x7e]{8,200}")
_CREDITS = re.compile(r"[0-9]{1,20}(\.[0-9]{1,40})?")  # what Decimal's "f" format writes

Fetch = Callable[[str, str], Awaitable[httpx.Response]]


@dataclass(frozen=True)
class KernelBudget:
    """A kernel's process-wide budget, as it announced it (credits).

    Example:
        >>> KernelBudget(Decimal(100), Decimal(60), Decimal(0)).view()["short"]
        'budget 40 of 100 left'
    """

    total: Decimal
    committed: Decimal
    held: Decimal  # allowances of Asks whose charge is not known yet

    def view(self) -> dict[str, Any]:
        """What the status item and the panel show."""
        left = self.total - self.committed - self.held
        return {
            "set": True,
            "announced": True,
            "total": credits_text(self.total),
            "left": credits_text(left),
            "committed": credits_text(self.committed),
            "held": credits_text(self.held),
            "short": f"budget {credits_text(left)} of {credits_text(self.total)} left",
            "text": left_text(self.total, self.committed, self.held),
        }


def budget_view(mine: KernelClient | None) -> dict[str, Any]:
    """The ``kernel_budget`` of a kernel that announced ``mine`` (None: nothing).

    Example:
        >>> budget_view(None)["text"]
        'no kernel budget (this notebook has not used rdskit yet)'
    """
    if mine is not None and mine.budget is not None:
        return mine.budget.view()
    text = (
        "no kernel budget (%rds budget N sets one)"
        if mine is not None
        else "no kernel budget (this notebook has not used rdskit yet)"
    )
    return {"set": False, "announced": mine is not None, "short": "no kernel budget", "text": text}


@dataclass(frozen=True)
class KernelClient:
    """What a kernel announced about its client (the key of an embedded sandbox only)
    and its budget.

    Example:
        >>> KernelClient("service", "https://rds.example.com").label
        'this notebook: its own key for https://rds.example.com'
    """

    kind: str  # "gateway", "embedded" or "service"
    base_url: str
    key: SecretKey | None = field(default=None, repr=False)
    chats: tuple[str, ...] = ()
    turns: int = 0  # %%ask turns the kernel made: a new one means its chats changed
    budget: KernelBudget | None = None

    @property
    def label(self) -> str:
        """Which client the panel shows, in words."""
        if self.kind == "gateway":
            return "this server's shared connection"
        if self.kind == "embedded":
            return "this notebook: embedded sandbox"
        return f"this notebook: its own key for {self.base_url}"


def parse_announcement(body: Any) -> KernelClient:
    """The :class:`KernelClient` of a ``POST /rdskit/kernel`` body, or ``ValueError``
    naming the bad field.

    Example:
        >>> parse_announcement({"kind": "gateway", "budget": None}).label
        "this server's shared connection"
        >>> parse_announcement({"kind": "embedded", "base_url": "http://10.0.0.1:80",
        ...                     "api_key": "bz_test_0123456789"})
        Traceback (most recent call last):
        ValueError: base_url: an embedded sandbox listens on a loopback http URL
    """
    if not isinstance(body, dict) or body.get("kind") not in ("gateway", "embedded", "service"):
        raise ValueError("kind: 'gateway', 'embedded' or 'service'")
    kind = body["kind"]
    budget = _parse_budget(body.get("budget"))
    if kind == "gateway":
        return KernelClient("gateway", "", budget=budget)
    url = body.get("base_url")
    if not isinstance(url, str) or len(url) > 300:
        raise ValueError("base_url: a URL string")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("base_url: an http(s) URL")
    chats = body.get("chats", [])
    if not isinstance(chats, list) or not all(
        isinstance(chat, str) and _SAFE_ID.fullmatch(chat) for chat in chats
    ):
        raise ValueError("chats: a list of chat ids")
    if kind == "service":  # a real key never leaves the kernel
        return KernelClient("service", url.rstrip("/"), budget=budget)
    # The gateway sends this key: only to the kernel's own loopback sandbox.
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError("base_url: an embedded sandbox listens on a loopback http URL")
    key = body.get("api_key")
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError("api_key: the embedded sandbox's key")
    turns = body.get("turns", 0)
    if type(turns) is not int or not 0 <= turns < 2**53:
        raise ValueError("turns: a count of %%ask turns")
    chats = tuple(chats[:CHATS_SHOWN])
    return KernelClient("embedded", url.rstrip("/"), SecretKey(key), chats, turns, budget)


def _parse_budget(body: Any) -> KernelBudget | None:
    """The ``budget`` of an announcement: None, or credits as decimal strings."""
    if body is None:
        return None
    if not isinstance(body, dict):
        raise ValueError("budget: null or {total, committed, held}")
    amounts = []
    for name in ("total", "committed", "held"):
        value = body.get(name)
        if not isinstance(value, str) or not _CREDITS.fullmatch(value):
            raise ValueError(f"budget.{name}: credits as a decimal string, 0 or more")
        amounts.append(Decimal(value))
    return KernelBudget(*amounts)


class Registrations:
    """What kernels announced, by kernel id; a kernel no longer running, or restarted
    (another process under the same id), is dropped."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self._by_kernel: dict[str, tuple[KernelClient, int | None]] = {}

    def set(self, kernel_id: str, client: KernelClient) -> None:
        """Record what ``kernel_id`` uses (and its process, to notice a restart)."""
        self._by_kernel[kernel_id] = (client, self._process(kernel_id))
        self.prune()

    def get(self, kernel_id: str | None) -> KernelClient | None:
        """What ``kernel_id`` announced, while the process that announced it runs."""
        self.prune()
        found = None if kernel_id is None else self._by_kernel.get(kernel_id)
        return None if found is None else found[0]

    def drop(self, kernel_id: str) -> None:
        """Forget a registration whose sandbox no longer answers."""
        self._by_kernel.pop(kernel_id, None)

    def prune(self) -> None:
        """Drop the registrations of kernels that stopped or restarted."""
        alive = self.gateway.kernels
        if alive is None:
            self._by_kernel.clear()
            return
        for kernel_id, (_, pid) in list(self._by_kernel.items()):
            if alive(kernel_id) is None or self._process(kernel_id) != pid:
                del self._by_kernel[kernel_id]

    def _process(self, kernel_id: str) -> int | None:
        processes = getattr(self.gateway, "processes", None)
        return None if processes is None else processes(kernel_id)


def reuse_seconds(cost: float, views: int, rate: float) -> float:
    """Seconds a view is reused so that ``views`` views of ``cost`` requests each take at
    most :data:`PANEL_SHARE` of a bucket of ``rate`` requests per second.

    Example:
        >>> reuse_seconds(3, 1, 5.0), reuse_seconds(12, 2, 5.0)
        (5.0, 9.6)
    """
    return max(MIN_INTERVAL, round(max(views, 1) * cost / (PANEL_SHARE * rate), 1))


@dataclass
class _View:
    fast: dict[str, Any] = field(default_factory=dict)
    slow: dict[str, Any] = field(default_factory=dict)
    fast_at: float = float("-inf")
    slow_at: float = float("-inf")
    fast_cost: int = 0
    slow_cost: int = 0
    seen: float = 0.0


class LabSummary:
    """Builds and caches the views; one read at a time, shared by every caller."""

    def __init__(self, gateway: Gateway, clock: Any = time.monotonic) -> None:
        self.gateway = gateway
        self.kernels = Registrations(gateway)
        self._clock = clock
        self._views: dict[tuple[str, ...], _View] = {}
        self._lock: asyncio.Lock | None = None
        # kernel id -> (wall time, last good view); (monotonic until, why) after a throttle
        self._last: dict[str, tuple[float, dict[str, Any]]] = {}
        self._held: dict[str, tuple[float, Unreadable]] = {}

    async def get(self, kernel_id: str | None = None) -> dict[str, Any]:
        """The view of ``kernel_id``'s client (the gateway's when it announced none or
        uses the gateway), with that kernel's budget.

        When a read fails (401, 429, the sandbox down), the last good view is returned
        with ``stale: {status, reason, fix, retry_after, since}``; after a 429 or a 503
        nothing is read again before its ``Retry-After`` (at least :data:`MIN_INTERVAL`),
        so a notebook paging at the rate limit never gets the panel's reads in its way.
        Raises :class:`Unreadable` only when there is no good view to show yet.
        """
        key = kernel_id or ""
        now = self._clock()
        held = self._held.get(key)
        try:
            if held is not None and now < held[0]:
                raise held[1]
            view = await self._client_view(kernel_id)
        except Unreadable as exc:
            if exc.status in (429, 503):
                pause = max(exc.retry_after or 0.0, MIN_INTERVAL)
                self._held[key] = (held[0] if held and now < held[0] else now + pause, exc)
            last = self._last.get(key)
            if last is None:
                raise
            until = self._held.get(key, (now, exc))[0]
            view = {
                **last[1],
                "stale": {
                    "status": exc.status,
                    "reason": exc.reason,
                    "fix": exc.fix,
                    "retry_after": max(0.0, round(until - now, 1)),
                    "since": last[0],
                },
                "next_poll": max(MIN_INTERVAL, round(until - now, 1)),
            }
        else:
            self._held.pop(key, None)
            view["stale"] = None
            view["read_at"] = time.time()
            self._last[key] = (view["read_at"], view)
        mine = self.kernels.get(kernel_id)  # read after: a dead sandbox drops it
        view["kernel_budget"] = None if kernel_id is None else budget_view(mine)
        return view

    def sender(self, kernel_id: str | None) -> Callable[..., Awaitable[httpx.Response]]:
        """How the panel's ask box reaches ``kernel_id``'s client: its embedded sandbox,
        else the gateway. A kernel with its own key or a budget is refused before anything
        is sent (409, code ``ask_in_kernel``): the panel asks in that kernel instead, where
        the key stays and the budget counts."""
        mine = self.kernels.get(kernel_id)
        if mine is not None and (mine.kind == "service" or mine.budget is not None):
            why = (
                "this notebook's kernel has a budget, which counts its asks"
                if mine.budget is not None
                else "this notebook uses its own key, which never leaves its kernel"
            )
            raise AskFailed(409, f"{why}: the panel asks in that kernel", code="ask_in_kernel")
        gateway = self.gateway

        async def send(method: str, path: str, query: str, body: bytes) -> httpx.Response:
            headers = {"content-type": "application/json"} if body else {}
            if mine is not None and mine.kind == "embedded":
                assert mine.key is not None
                url, key = mine.base_url, mine.key
                return await gateway.send(url, key, method, path, query, body, headers)
            return await gateway.forward(method, path, query, body, headers)

        return send

    async def _client_view(self, kernel_id: str | None) -> dict[str, Any]:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # callers arriving during a read share its result
            mine = self.kernels.get(kernel_id)
            note = None
            if mine is not None and mine.kind == "embedded":
                try:
                    # a new turn (or client) is a new view: read at once, not in SLOW_INTERVAL
                    name = ("kernel", kernel_id or "", mine.base_url, str(mine.turns))
                    return await self._view(name, mine)
                except Unreadable as exc:
                    raise exc.in_notebook_sandbox() from None
                except httpx.TransportError:
                    assert kernel_id is not None
                    self.kernels.drop(kernel_id)
                    note = "this notebook's embedded sandbox no longer answers (kernel restarted?)"
            elif mine is not None and mine.kind == "service":
                return self._service_view(mine)
            view = await self._view(("gateway",), None)
            if note:
                view["viewing"] = {**view["viewing"], "note": note}
            return view

    def _service_view(self, mine: KernelClient) -> dict[str, Any]:
        status = self.gateway.status()
        return {
            "viewing": {
                "scope": "notebook",
                "label": mine.label,
                "note": "its key stays in the kernel, so this panel cannot read that account "
                "(use client.me() in the notebook)",
            },
            "connected": {"mode": "service", "upstream": mine.base_url},
            "account": None,
            **_EMPTY,
            "rate_limit": status["rate_limit"],
            "queued": status["queued"],
            "age": 0.0,
            "next_poll": MIN_INTERVAL,
        }

    async def _view(self, name: tuple[str, ...], mine: KernelClient | None) -> dict[str, Any]:
        now = self._clock()
        view = self._views.setdefault(name, _View())
        view.seen = now
        self._views = {k: v for k, v in self._views.items() if now - v.seen < ACTIVE_SECONDS}
        status = self.gateway.status()
        cost = view.fast_cost + view.slow_cost * MIN_INTERVAL / SLOW_INTERVAL
        reuse = reuse_seconds(cost, len(self._views), status["rate_limit"])
        fetch = self._fetcher(mine)
        if now - view.fast_at >= reuse:
            counted = _Counted(fetch)
            view.fast = await _read_fast(counted)
            view.fast_at, view.fast_cost = self._clock(), counted.calls
        if now - view.slow_at >= max(SLOW_INTERVAL, reuse):
            counted = _Counted(fetch)
            chats = (
                (list(mine.chats), "asked from this notebook (%%ask)")
                if mine is not None
                else (list(self.gateway.chats), "asked through this server's gateway")
            )
            view.slow = await _read_slow(counted, *chats)
            view.slow_at, view.slow_cost = self._clock(), counted.calls
        if mine is not None:
            viewing = {"scope": "notebook", "label": mine.label, "note": None}
            connected = {"mode": "embedded", "upstream": mine.base_url}
        else:
            where = "shared sandbox" if status["mode"] == "sandbox" else "connection to"
            viewing = {
                "scope": "server",
                "label": f"this server's {where} ({status['upstream']})",
                "note": None,
            }
            connected = {"mode": status["mode"], "upstream": status["upstream"]}
        return {
            "viewing": viewing,
            "connected": connected,
            **view.fast,
            **view.slow,
            "rate_limit": status["rate_limit"],
            "queued": status["queued"],
            "age": round(self._clock() - view.fast_at, 1),
            "next_poll": reuse,
        }

    def _fetcher(self, mine: KernelClient | None) -> Fetch:
        gateway = self.gateway

        async def fetch(path: str, query: str) -> httpx.Response:
            if mine is None:
                return await gateway.forward("GET", path, query, b"", {})
            assert mine.key is not None
            return await gateway.send(mine.base_url, mine.key, "GET", path, query)

        return fetch


_EMPTY: dict[str, Any] = {
    "datasets": [],
    "runs_in_flight": 0,
    "tracking_agents": 0,
    "agents": [],
    "chats": {"items": [], "source": ""},
    "usage": {"days": [], "rows": 0, "more": False},
}


class Unreadable(Exception):
    """The service (or a kernel's sandbox) refused a panel read: its status, the reason
    and the fix in words, and how long to leave it alone (``Retry-After``)."""

    def __init__(self, status: int, path: str, retry_after: float | None, said: str = "") -> None:
        self.status = status
        self.retry_after = retry_after
        self.said = said
        reason, fix = _STALE_WORDS.get(status, _STALE_WORDS[0])
        super().__init__(f"{reason} (HTTP {status} on /{path})")
        self.reason = f"{reason} (HTTP {status})"
        self.fix = fix

    def in_notebook_sandbox(self) -> Unreadable:
        """This refusal as a notebook's own embedded sandbox gave it. A 401 there is not
        about the server's key: the sandbox says what happened to the notebook's key and
        the one fix ("This API key was revoked ...; a new rdskit.Client.sandbox() ...
        gets a working key."), so the panel says that, not the gateway's key file.

        Example:
            >>> said = "This API key was revoked in this sandbox's database; a new key."
            >>> refused = Unreadable(401, "v1/me", None, said).in_notebook_sandbox()
            >>> refused.reason, refused.fix
            ("this notebook's sandbox refused its key: This API key was revoked in this \
sandbox's database (HTTP 401)", 'a new key')
        """
        if self.status != 401:
            return self
        happened, _, fix = self.said.rstrip(".").partition("; ")
        self.reason = f"this notebook's sandbox refused its key: {happened} (HTTP 401)"
        self.fix = fix or _SANDBOX_KEY_FIX
        return self


_SANDBOX_KEY_FIX = "run rdskit.Client.sandbox() (or %rds connect --sandbox) in the notebook again"
"""The fix for a notebook sandbox's 401 whose words do not say one."""

_STALE_WORDS = {
    401: (
        "the service refused the key",
        "check the key the Jupyter server was given (c.RdsGateway.api_key_file), or "
        "reconnect the notebook (%rds connect)",
    ),
    429: (
        "too many requests just now (a notebook is using the whole rate limit)",
        "nothing to do: the panel reads again when the service says it may",
    ),
    503: (
        "the sandbox is not available",
        "restart the Jupyter server, or see its log for the sandbox's error",
    ),
    0: ("the service could not be read", "try Refresh in a moment"),
}


class _Counted:
    """Counts the requests one read makes (the reuse interval follows the cost)."""

    def __init__(self, fetch: Fetch) -> None:
        self.fetch = fetch
        self.calls = 0

    async def json(self, path: str, query: str = "", *, missing_ok: bool = False) -> Any:
        self.calls += 1
        response = await self.fetch(path, query)
        if missing_ok and response.status_code == 404:
            return None
        if response.status_code != 200:
            retry = response.headers.get("retry-after", "")
            wait = float(retry) if retry.isdigit() else None
            raise Unreadable(response.status_code, path, wait, _said(response, path))
        return json.loads(response.content)


def _said(response: httpx.Response, path: str) -> str:
    """What an error response's body says (its ``detail``, cleaned to one line and cut to
    :data:`SAID_CHARS`), or ``""`` when it is not JSON or says nothing."""
    try:
        body = json.loads(response.content)
    except ValueError:
        return ""
    refused = error_from_response(response.status_code, body, method="GET", path=f"/{path}")
    return " ".join(refused.message.split())[:SAID_CHARS]


async def _read_fast(read: _Counted) -> dict[str, Any]:
    """The account, the latest datasets and their latest runs."""
    me = Account.model_validate(_data(await read.json("v1/me")))
    page = await read.json("v1/datasets", f"limit={DATASETS_SHOWN}")
    datasets = [Dataset.model_validate(row) for row in _rows(page)]
    shown, in_flight = [], 0
    for dataset in datasets:
        runs_page = await read.json(f"v1/datasets/{dataset.id}/runs", f"limit={RUNS_SHOWN}")
        runs = []
        for row in _rows(runs_page):
            run = DatasetRun.model_validate(row)
            view = describe(run)
            in_flight += run.status.type not in ("completed", "failed")
            counters = dict(view.counters)
            runs.append(
                {
                    "id": run.id,
                    "status": view.status,
                    "share": view.fraction,
                    "mentions": counters.get("mentions", ""),
                }
            )
        shown.append({"id": dataset.id, "name": dataset.name, "runs": runs})
    usage = me.usage
    left = (
        None
        if usage is None or usage.credits_total is None or usage.credits_used is None
        else f"{credits_text(usage.credits_total - usage.credits_used)} credits"
    )
    return {
        "account": {
            "id": me.account_id or me.id,
            "email": me.email,
            "team": me.team_name,
            "plan": me.plan.name if me.plan else None,
            "credits_left": left,
        },
        "datasets": shown,
        "runs_in_flight": in_flight,
    }


async def _read_slow(read: _Counted, chat_ids: list[str], source: str) -> dict[str, Any]:
    """Tracking agents with their latest alerts, the chats, and the usage history by day."""
    agents = [
        TrackingAgent.model_validate(row) for row in _rows(await read.json("v1/tracking_agents"))
    ]
    shown = []
    for agent in agents[:AGENTS_SHOWN]:
        page = await read.json(f"v1/tracking_agents/{agent.id}/messages", f"limit={ALERTS_READ}")
        alerts = [TrackingMessage.model_validate(row) for row in _rows(page)]
        shown.append(
            {
                "id": agent.id,
                "name": agent.name,
                "paused": bool(agent.paused),
                "alerts": [
                    {
                        "id": alert.message_id,
                        "at": _unix(alert.created_at),
                        "preview": alert.short_preview_message or "",
                        "new_mentions": alert.new_mention_count,
                        "chat_id": alert.chat_id,
                    }
                    for alert in alerts
                ],
                "more": bool(isinstance(page, dict) and page.get("has_next")),
            }
        )
    chats = []
    for chat_id in chat_ids[:CHATS_SHOWN]:
        body = await read.json(f"v1/chats/{chat_id}", missing_ok=True)
        if body is None:
            continue  # gone, or another seat's
        chat = Chat.model_validate(_data(body))
        page = await read.json(f"v1/chats/{chat_id}/messages", "limit=10&order=desc")
        rows = [ChatMessage.model_validate(row) for row in _rows(page)]
        times = [int(row.created_at.timestamp()) for row in rows if row.created_at is not None]
        datasets = next(
            (
                list(row.context.dataset_ids)
                for row in rows
                if row.context is not None and row.context.dataset_ids
            ),
            [],
        )
        chats.append(
            {
                "id": chat.id,
                "title": chat.name,
                "datasets": datasets,
                "last_activity": max(times, default=_unix(chat.created_at)),
                "tracking_agent_id": chat.tracking_agent_id,
            }
        )
    history = await read.json("v1/me/usage_history", f"limit={USAGE_ROWS}")
    return {
        "tracking_agents": len(agents),
        "agents": shown,
        "chats": {"items": chats, "source": source},
        "usage": {
            **usage_by_day([UsageRow.model_validate(row) for row in _rows(history)]),
            "more": bool(isinstance(history, dict) and history.get("has_next")),
        },
    }


def usage_by_day(rows: list[UsageRow]) -> dict[str, Any]:
    """Credits (and USD) charged per UTC day and category, newest day first.

    A row whose credit figure the service left null (no current rate) counts in ``usd``
    only, and the day says how many such rows it holds (``no_credits``).

    Example:
        >>> from rdskit.models import UsageRow
        >>> row = lambda cat, usd, cr, at: UsageRow.model_validate({"id": 1, "category": cat,
        ...     "quantity": usd, "quantity_credits": cr, "created_at": at})
        >>> usage_by_day([row("mention", 0.5, "50.000000", 0), row("ai_assistant", 0.1,
        ...     "10.000000", 60)])["days"][0]["by"]
        [{'category': 'mention', 'credits': '50'}, {'category': 'ai_assistant', 'credits': '10'}]
    """
    credits: defaultdict[str, defaultdict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    usd: dict[str, Decimal] = defaultdict(Decimal)
    no_credits: dict[str, int] = defaultdict(int)
    for row in rows:
        day = row.created_at.date().isoformat()
        usd[day] += row.quantity
        if row.quantity_credits is None:
            no_credits[day] += 1
        else:
            credits[day][row.category] += row.quantity_credits
    days = []
    for day in sorted(usd, reverse=True):
        by = sorted(credits[day].items(), key=lambda item: -item[1])
        days.append(
            {
                "day": day,
                "credits": credits_text(sum(credits[day].values(), Decimal(0))),
                "usd": usd_text(usd[day]),
                "no_credits": no_credits[day],
                "by": [{"category": cat, "credits": credits_text(value)} for cat, value in by],
            }
        )
    return {"days": days, "rows": len(rows)}


def _unix(moment: Any) -> int | None:
    return None if moment is None else int(moment.timestamp())


def _data(body: Any) -> Any:
    """The service's envelope (``{"data": ...}``) or the body itself."""
    return body["data"] if isinstance(body, dict) and "data" in body else body


def _rows(body: Any) -> list[Any]:
    rows = _data(body)
    return rows if isinstance(rows, list) else []


class SummaryHandler(APIHandler):
    """``GET /rdskit/lab/summary[?kernel=ID]`` for the JupyterLab extension (server auth)."""

    summary: LabSummary

    def initialize(self, summary: LabSummary) -> None:
        self.summary = summary

    @web.authenticated
    async def get(self) -> None:
        kernel_id = self.get_query_argument("kernel", None) or None
        if kernel_id is not None and not _SAFE_ID.fullmatch(kernel_id):
            raise web.HTTPError(400, "kernel: a kernel id")
        try:
            body = await self.summary.get(kernel_id)
        except Unreadable as exc:
            self.set_status(exc.status if exc.status in (401, 429, 503) else 502)
            if exc.retry_after is not None:
                self.set_header("Retry-After", str(int(exc.retry_after)))
            self.finish(json.dumps({"status": exc.status, "reason": exc.reason, "fix": exc.fix}))
            return
        except (OSError, RuntimeError, ValueError, httpx.TransportError) as exc:
            raise web.HTTPError(
                502, f"the service could not be read ({type(exc).__name__})"
            ) from None
        except asyncio.CancelledError:
            return  # the server is shutting down: nothing to answer, nothing to log
        self.finish(json.dumps(body))


STARTER = "starter.ipynb"
"""The starter notebook (in this package) the launcher card's "rdskit starter" opens."""


class StarterHandler(APIHandler):
    """``GET /rdskit/lab/starter``: the starter notebook (nbformat 4 JSON), whose cells the
    launcher card puts into a new notebook."""

    @web.authenticated
    def get(self) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(files("rdskit.jupyter").joinpath(STARTER).read_text(encoding="utf-8"))


@web.stream_request_body
class KernelHandler(GatewayHandler):
    """``POST /rdskit/kernel``: a kernel announces its client and budget (loopback only;
    its gateway token says which kernel it is, and a token not bound to a running kernel
    is refused). The body is read as it arrives, up to :data:`ANNOUNCEMENT_BYTES`."""

    registrations: Registrations

    def initialize(  # type: ignore[override]
        self, gateway: Gateway, registrations: Registrations
    ) -> None:
        super().initialize(gateway)
        self.registrations = registrations
        self._body = bytearray()

    def prepare(self) -> None:
        super().prepare()
        # Never held in memory beyond the bound: a longer stream is cut by the server.
        self.request.connection.set_max_body_size(ANNOUNCEMENT_BYTES)  # type: ignore[union-attr]
        declared = self.request.headers.get("content-length", "0")
        if not declared.isdigit() or int(declared) > ANNOUNCEMENT_BYTES:
            self._fail(
                413, "announcement_too_large", f"body: at most {ANNOUNCEMENT_BYTES} bytes of JSON"
            )

    def data_received(self, chunk: bytes) -> None:
        self._body += chunk

    @allow_unauthenticated
    def post(self) -> None:
        self._authorize()
        kernel_id = self.gateway.tokens.kernel_of(self.request.headers.get(TOKEN_HEADER))
        if kernel_id is None:
            self._fail(403, "gateway_kernel_unknown", "only a kernel's own token announces it")
        try:
            body = json.loads(bytes(self._body))
        except ValueError:
            self._fail(422, "invalid_announcement", "body: a JSON object")
        try:
            client = parse_announcement(body)
        except ValueError as exc:
            self._fail(422, "invalid_announcement", str(exc))
        self.registrations.set(kernel_id, client)
        processes = self.gateway.processes
        budget = client.budget
        self.gateway.budgets.announce(  # the cap the gateway holds its tokens to
            kernel_id,
            None if processes is None else processes(kernel_id),
            None if budget is None else budget.total,
            Decimal(0) if budget is None else budget.committed,
        )
        self.finish({"kernel_id": kernel_id, "shown": client.label})


def lab_handlers(gateway: Gateway, base_url: str = "/") -> list[tuple[str, type, dict[str, Any]]]:
    """The routes of the extension's endpoints under ``base_url``."""
    root = base_url.rstrip("/")
    summary = LabSummary(gateway)
    return [
        (f"{root}/rdskit/lab/summary", SummaryHandler, {"summary": summary}),
        (f"{root}/rdskit/lab/ask", AskHandler, {"summary": summary}),
        (f"{root}/rdskit/lab/starter", StarterHandler, {}),
        (
            f"{root}/rdskit/kernel",
            KernelHandler,
            {"gateway": gateway, "registrations": summary.kernels},
        ),
    ]
