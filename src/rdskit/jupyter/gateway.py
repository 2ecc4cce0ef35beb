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
import base64
import contextlib
import ctypes
import hashlib
import hmac
import html
import ipaddress
import json
import os
import re
import secrets
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from decimal import Decimal
from importlib.util import find_spec
from pathlib import Path
from typing import Any, NoReturn, TypeGuard
from urllib.parse import unquote

import httpx
from jupyter_core.paths import jupyter_data_dir, jupyter_runtime_dir
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.extension.application import ExtensionApp
from tornado import web
from traitlets import Float, Unicode

from rdskit._base_client import HTTPCore, drive
from rdskit._bodies import DEFAULT_MAX_RESPONSE_BYTES, aread_response
from rdskit._config import ENV_API_KEY, ENV_BASE_URL, ENV_GATEWAY, SecretKey, resolve_base_url
from rdskit._files import private_dir, private_file, read_private, write_private
from rdskit._flow import Flow, Send
from rdskit._gateway_auth import TOKEN_HEADER, kernel_proof
from rdskit._ratelimit import DEFAULT_RATE, RateLimiter
from rdskit.billing import Estimate, PriceCache, estimate_flow
from rdskit.errors import RdsError
from rdskit.jupyter.gateway_budget import ASK, KernelBudgets, OverBudget, paid_call
from rdskit.models.account import INSTANCE_HEADER

__all__ = [
    "PREFIX",
    "Gateway",
    "KernelKeys",
    "RdsGateway",
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

PREFIX = "rdskit"
"""The gateway's path under the server's ``base_url``."""
CHATS_KEPT = 20
"""Chats asked through the gateway that it remembers for the JupyterLab panel."""
_CHAT_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")

# Request headers worth forwarding (the key header is replaced, cookies never leave).
_FORWARD_REQUEST = ("accept", "content-type", "user-agent")
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
# Response headers passed back to the kernel (the service's instance: a kernel behind the
# gateway keys its ledger of paid calls as a client of the service itself does).
_FORWARD_RESPONSE = (
    "content-type",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "retry-after",
    INSTANCE_HEADER,
)


KernelKeys = Callable[[str], bytes | None]
"""The connection key of a running kernel of this server by its id; None once it is gone."""


class TokenBook:
    """Short-lived tokens handed to kernels; only their SHA-256 digests are kept.

    A token minted for a kernel is valid while that kernel runs (``alive``): its
    shutdown revokes it, even before its lifetime ends.

    Example:
        >>> book = TokenBook(ttl=60, alive=lambda kernel_id: kernel_id == "k1")
        >>> token, lifetime = book.mint("k1")
        >>> book.check(token), book.check("forged"), lifetime
        ('valid', 'invalid', 60.0)
        >>> book.alive = lambda kernel_id: False  # the kernel shut down
        >>> book.check(token)
        'revoked'
    """

    def __init__(
        self,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        alive: Callable[[str], bool] | None = None,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"token_ttl must be positive, got {ttl!r}")
        self.ttl = float(ttl)
        self.alive = alive
        self._clock = clock
        self._grants: dict[str, tuple[float, str | None]] = {}  # digest -> (expiry, kernel)

    def mint(self, kernel_id: str | None = None) -> tuple[str, float]:
        """A new token (bound to ``kernel_id`` when given) and its lifetime in seconds."""
        now = self._clock()
        # Forget tokens expired for a whole lifetime; newer ones still answer "expired".
        self._grants = {d: g for d, g in self._grants.items() if g[0] > now - self.ttl}
        token = secrets.token_urlsafe(32)
        self._grants[_digest(token)] = (now + self.ttl, kernel_id)
        return token, self.ttl

    def check(self, token: str | None) -> str:
        """``"valid"``, ``"expired"``, ``"revoked"`` (its kernel is gone) or ``"invalid"``."""
        digest = _digest(token or "")
        grant = self._grants.get(digest)
        if grant is None:
            return "invalid"
        expiry, kernel_id = grant
        if kernel_id is not None and self.alive is not None and not self.alive(kernel_id):
            self.revoke_kernel(kernel_id)
            return "revoked"
        return "valid" if self._clock() < expiry else "expired"

    def kernel_of(self, token: str | None) -> str | None:
        """The kernel a valid token was minted for (None: invalid, expired, or unbound)."""
        if self.check(token) != "valid":
            return None
        return self._grants[_digest(token or "")][1]

    def revoke_kernel(self, kernel_id: str) -> int:
        """Drop every token of ``kernel_id``; returns how many there were."""
        kept = {d: g for d, g in self._grants.items() if g[1] != kernel_id}
        dropped = len(self._grants) - len(kept)
        self._grants = kept
        return dropped


class SharedBucket:
    """One request bucket for every kernel: callers queue in arrival order for a slot.

    The service counts ``floor(rate)`` calls per window of ``floor(rate) / rate`` seconds
    (5 per second), a window opening with its first call. The bucket holds that many
    tokens; a request takes one when it is sent and the token comes back one window after
    its *answer* arrived. A call reaches the service before its answer returns, so any
    window of the service holds at most ``floor(rate)`` of them whatever the network or
    scheduling delays (never a 429 while the gateway is the key's only user), and the
    cost is one round trip per window (~98 % of the cap on loopback). The service's own
    ``RateLimit-*``/429 answers hold the queue too (:meth:`observe`), for other users of
    the key.

    Example:
        >>> bucket = SharedBucket(2)
        >>> bucket.capacity, bucket.window
        (2, 1.0)
    """

    def __init__(
        self, rate: float = DEFAULT_RATE, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limiter = RateLimiter(rate, clock=clock)  # server holds (429, Remaining: 0)
        self.rate = self.limiter.rate
        self.capacity = self.limiter.capacity
        self.window = self.limiter.window
        self.waiting = 0
        self._clock = clock
        self._sent = 0  # requests sent whose answer has not come back
        self._returns: deque[float] = deque()  # when answered tokens come back
        self._turn: asyncio.Lock | None = None  # made in the server's event loop
        self._freed: asyncio.Event | None = None

    def _wait(self) -> float | None:
        """Seconds until a token is free (0: take it now; None: when an answer arrives)."""
        now = self._clock()
        while self._returns and self._returns[0] <= now:
            self._returns.popleft()
        held = self.limiter.held()
        if held > 0:
            return held
        if self._sent + len(self._returns) < self.capacity:
            return 0.0
        return self._returns[0] - now if self._returns else None

    async def acquire(self) -> None:
        """Wait for this request's slot (FIFO: asyncio locks wake waiters in order)."""
        if self._turn is None:
            self._turn = asyncio.Lock()
            self._freed = asyncio.Event()
        assert self._freed is not None
        self.waiting += 1
        try:
            async with self._turn:
                while (wait := self._wait()) != 0.0:
                    self._freed.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._freed.wait(), wait)
                self._sent += 1
        finally:
            self.waiting -= 1

    def release(self) -> None:
        """The answer (or failure) of a sent request arrived: its token returns a window later."""
        self._sent -= 1
        self._returns.append(self._clock() + self.window + _MARGIN)
        if self._freed is not None:
            self._freed.set()

    def observe(self, response: httpx.Response) -> None:
        """Hold the queue when the service answered 429, or says its window is spent while
        this bucket's own tokens do not explain it (another user of the key)."""
        spent = response.headers.get("ratelimit-remaining", "").strip() in ("0", "0.0")
        if spent and self._sent + len(self._returns) < self.capacity:
            self.limiter.observe(response.headers)  # holds until the service's reset
        if response.status_code == 429:
            retry_after = response.headers.get("retry-after", "1")
            self.limiter.hold(float(retry_after) if retry_after.isdigit() else 1.0)


# Clocks of the gateway and the service differ by rounding only; a hair of slack.
_MARGIN = 0.005


Upstream = Callable[[], tuple[str, str]]
"""Starts the upstream on first use and returns its ``(base_url, api_key)`` (may block)."""


class Gateway:
    """What the handlers share: upstream, key, bootstrap secret, tokens and bucket.

    ``upstream`` is ``(base_url, api_key)``, or an :data:`Upstream` run once, in a worker
    thread, when the first request needs it (the shared sandbox starts that way).
    ``transport`` replaces the upstream transport (tests record upstream traffic with it).
    ``kernels`` gives the connection key of a running kernel: with it, tokens go only to
    kernels of this server that prove they hold their key, and die with the kernel
    (the extension passes its kernel manager's; None serves any holder of the secret).
    After :meth:`rotate`, the previous secret still works for ``secret_grace`` seconds
    (a kernel may have read the file just before).
    """

    def __init__(
        self,
        upstream: tuple[str, str] | Upstream,
        *,
        mode: str,
        rate_limit: float = DEFAULT_RATE,
        token_ttl: float = 900.0,
        transport: httpx.AsyncBaseTransport | None = None,
        kernels: KernelKeys | None = None,
        secret_grace: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.mode = mode
        self.sandbox_db: str | None = None  # the shared sandbox's database, in sandbox mode
        self.secret = secrets.token_urlsafe(32)
        self.secret_grace = secret_grace
        self._previous: tuple[str, float] | None = None  # (secret, accepted until)
        self._clock = clock
        self.tokens = TokenBook(token_ttl, clock=clock)
        self.kernels = kernels
        # The process id of a running kernel (None: unknown): a restart keeps the kernel's
        # id but not its process, and what the old process announced goes with it.
        self.processes: Callable[[str], int | None] | None = None
        self.bucket = SharedBucket(rate_limit)
        self._start = upstream if callable(upstream) else None
        self._target = None if callable(upstream) else _target(*upstream)
        self._starting: asyncio.Lock | None = None  # made in the server's event loop
        self._transport = transport
        self._http: httpx.AsyncClient | None = None  # made in the server's event loop
        self.chats: deque[str] = deque(maxlen=CHATS_KEPT)  # asked through the gateway
        # What each kernel's tokens spent against the budget it announced.
        self.budgets = KernelBudgets()
        self.prices = PriceCache()  # for the estimates of those paid calls

    @property
    def base_url(self) -> str | None:
        """The upstream root URL (None until a lazy upstream has started)."""
        return None if self._target is None else self._target[0]

    def __repr__(self) -> str:
        key = None if self._target is None else self._target[1]
        return f"Gateway(base_url={self.base_url!r}, mode={self.mode!r}, api_key={key!r})"

    async def _upstream(self) -> tuple[str, SecretKey]:
        if self._target is None:
            if self._starting is None:
                self._starting = asyncio.Lock()
            async with self._starting:  # one start, however many requests wait for it
                if self._target is None and self._start is not None:
                    started = await asyncio.get_running_loop().run_in_executor(None, self._start)
                    self._target = _target(*started)
        assert self._target is not None
        return self._target

    @property
    def kernels(self) -> KernelKeys | None:
        """Where kernel keys come from (None: tokens are not bound to kernels)."""
        return self._kernels

    @kernels.setter
    def kernels(self, kernels: KernelKeys | None) -> None:
        self._kernels = kernels
        self.tokens.alive = None if kernels is None else (lambda kid: kernels(kid) is not None)

    def rotate(self) -> None:
        """A new bootstrap secret (the old one lasts ``secret_grace`` more seconds)."""
        self._previous = (self.secret, self._clock() + self.secret_grace)
        self.secret = secrets.token_urlsafe(32)

    def secret_matches(self, candidate: Any) -> TypeGuard[str]:
        """Constant-time comparison with the bootstrap secret (or the previous one, briefly)."""
        if not isinstance(candidate, str):
            return False
        if hmac.compare_digest(candidate, self.secret):
            return True
        previous = self._previous
        return (
            previous is not None
            and self._clock() < previous[1]
            and hmac.compare_digest(candidate, previous[0])
        )

    def grant(self, request: Any) -> tuple[str, float]:
        """Mint a token for a ``POST /token`` body, or raise :class:`Refused`."""
        body = request if isinstance(request, dict) else {}
        secret = body.get("secret")
        if not self.secret_matches(secret):
            raise Refused(403, "gateway_secret_invalid", "wrong bootstrap secret")
        if self.kernels is None:
            return self.tokens.mint()
        kernel_id, proof = body.get("kernel_id"), body.get("proof")
        key = self.kernels(kernel_id) if isinstance(kernel_id, str) else None
        if key is None or not isinstance(kernel_id, str) or not isinstance(proof, str):
            raise Refused(
                403,
                "gateway_kernel_unknown",
                "tokens go to running kernels of this Jupyter server only",
            )
        if not hmac.compare_digest(proof, kernel_proof(kernel_id, key, secret)):
            raise Refused(403, "gateway_kernel_proof_invalid", "wrong kernel proof")
        return self.tokens.mint(kernel_id)

    async def forward(
        self,
        method: str,
        path: str,
        query: str,
        body: bytes,
        headers: dict[str, str],
        kernel_id: str | None = None,
    ) -> httpx.Response:
        """Send one request upstream with the real key, after waiting for its slot.

        ``path`` must be what :func:`upstream_path` returned (``v1/...``, normalised).
        A paid call of ``kernel_id``'s token must fit what remains of the budget that
        kernel announced (:mod:`rdskit.jupyter.gateway_budget`), or it is refused with
        402 ``kernel_budget_exceeded`` before anything is sent.
        """
        if upstream_path(path) != path:
            raise Refused(400, "gateway_path_refused", "not a normalised /v1 path")
        base_url, key = await self._upstream()
        held = await self._hold(kernel_id, method, path, body)
        response = await self.send(base_url, key, method, path, query, body, headers)
        if held and kernel_id is not None and response.status_code >= 400:
            self.budgets.release(kernel_id, held)  # refused by the service: nothing started
        if method == "POST" and path == "v1/ask" and response.status_code in (200, 202):
            self._remember_chat(response)
        return response

    async def _hold(
        self, kernel_id: str | None, method: str, path: str, body: bytes
    ) -> Decimal | None:
        """Reserve a paid call's estimate against its kernel's budget (None: no budget)."""
        paid = paid_call(method, path, body) if kernel_id is not None else None
        process = None if self.processes is None or kernel_id is None else self.processes(kernel_id)
        if paid is None or kernel_id is None or not self.budgets.capped(kernel_id, process):
            return None
        kind, params = paid
        credits: Decimal | None = None
        why: str | None = "the body is not a JSON object"
        if kind != ASK and not params.pop("unreadable", False):
            try:
                estimate = await self._run(estimate_flow(self, kind, params))
                credits, why = estimate.credits, estimate.reason
            except RdsError as exc:  # the call would fail upstream too: nothing is lost
                why = f"its estimate could not be read: {type(exc).__name__}"
        try:
            return self.budgets.reserve(kernel_id, kind, credits, why)
        except OverBudget as exc:
            raise Refused(402, "kernel_budget_exceeded", str(exc)) from None

    @property
    def _core(self) -> HTTPCore:
        """An HTTP core on the upstream, for the estimate flows (:mod:`rdskit.billing`)."""
        assert self._target is not None  # the estimate runs after _upstream()
        base_url, key = self._target
        return HTTPCore(
            owner=None, api_key=key, base_url=base_url, timeout=30.0, max_retries=0, limiter=None
        )

    @property
    def _prices(self) -> PriceCache:
        return self.prices

    async def _run(self, flow: Flow[Estimate]) -> Estimate:
        """Drive an estimate flow, its reads through the shared bucket."""
        if self._http is None:
            self._http = httpx.AsyncClient(transport=self._transport, timeout=60.0)
        http = self._http

        async def send(step: Send) -> httpx.Response:
            await self.bucket.acquire()
            try:
                return await aread_response(
                    http, step.request, step.auth, DEFAULT_MAX_RESPONSE_BYTES
                )
            finally:
                self.bucket.release()

        return await drive(flow, send)

    async def send(
        self,
        base_url: str,
        key: SecretKey,
        method: str,
        path: str,
        query: str = "",
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """One request to ``base_url`` with ``key``, through the shared bucket: the
        upstream's, or (for the JupyterLab panel) a kernel's embedded sandbox."""
        if self._http is None:
            self._http = httpx.AsyncClient(transport=self._transport, timeout=60.0)
        url = f"{base_url}/{path}" + (f"?{query}" if query else "")
        await self.bucket.acquire()
        try:
            response = await self._http.request(
                method,
                url,
                content=body or None,
                headers={**(headers or {}), "x-api-key": key.reveal()},
            )
        finally:
            self.bucket.release()
        self.bucket.observe(response)
        return response

    def _remember_chat(self, response: httpx.Response) -> None:
        """Keep the chat an Ask through the gateway opened or continued: the service has
        no list of chats, so the JupyterLab panel lists these (newest first)."""
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            body = json.loads(response.content)
            chat_id = (body.get("data") or body).get("chat_id")
            if isinstance(chat_id, str) and _CHAT_ID.fullmatch(chat_id):
                if chat_id in self.chats:
                    self.chats.remove(chat_id)
                self.chats.appendleft(chat_id)

    def status(self) -> dict[str, Any]:
        """What ``GET /rdskit/status`` reports (nothing secret)."""
        return {
            "mode": self.mode,
            "upstream": self.base_url or "starts with the first request",
            "rate_limit": self.bucket.rate,
            "queued": self.bucket.waiting,
            "token_ttl": self.tokens.ttl,
            "sandbox_db": self.sandbox_db,
        }

    async def aclose(self) -> None:
        """Close the upstream connections."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def publish(self, path: Path, url: str) -> None:
        """Write the discovery file (0600, atomically, never through a symlink) for kernels;
        it holds the secret, never the key."""
        private_dir(path.parent)
        content = json.dumps({"url": url, "mode": self.mode, "secret": self.secret})
        write_private(path, content.encode())


class Refused(Exception):
    """A gateway refusal: HTTP status, error code and detail (no secret in any of them)."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


# An encoded "/", "\", "?", "#", "." or NUL would let a segment turn into a separator or a
# dot segment once the upstream decodes it.
_ENCODED = re.compile(r"%(?:2f|5c|3f|23|2e|00)", re.IGNORECASE)


def upstream_path(raw: str) -> str | None:
    """``raw`` (a path under the gateway, as received, still percent-encoded) when it is a
    normalised ``v1/...`` path, else None.

    Refused: dot segments, empty segments, a backslash, control characters, and encoded
    ``/``, ``\\``, ``?``, ``#``, ``.`` or NUL, so nothing can reach the upstream outside
    ``<base>/v1/``.

    Example:
        >>> upstream_path("v1/datasets/ds_1"), upstream_path("v1/..%2F..%2Fadmin%2Fkeys")
        ('v1/datasets/ds_1', None)
        >>> upstream_path("v1/../admin"), upstream_path("v2/x"), upstream_path("v1//x")
        (None, None, None)
    """
    if _ENCODED.search(raw) or "\\" in raw:
        return None
    segments = raw.split("/")
    if segments[0] != "v1" or len(segments) < 2:
        return None
    if any(segment in ("", ".", "..") for segment in segments[1:]):
        return None
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in unquote(raw)):
        return None
    return raw


def scrub_environ(names: Iterable[str]) -> bool:
    """Remove ``names`` from this process's environment, including its initial block.

    ``os.environ.pop`` only unsets a variable for this process and its future children;
    ``/proc/<pid>/environ`` shows the block the process started with, which any process
    of the same user (a kernel, a terminal) can read. On Linux this overwrites those
    variables in that block with NULs. Returns whether ``/proc/self/environ`` no longer
    shows any of them (False on other systems: keep the key out of the server's
    environment there, e.g. with ``c.RdsGateway.api_key_file``).

    Example:
        >>> scrub_environ(["RDSKIT_NOT_SET_ANYWHERE"])  # doctest: +SKIP
        True
    """
    names = list(names)
    for name in names:
        os.environ.pop(name, None)  # unsetenv(): C code no longer points into the block
    environ = Path("/proc/self/environ")
    if not sys.platform.startswith("linux") or not environ.exists():
        return False
    prefixes = tuple(f"{name}=".encode() for name in names)
    try:
        # Fields 50 and 51 of /proc/self/stat (man 5 proc): the block's start and end.
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])
        if not 0 < start < end:
            return False
        offset = 0
        for entry in ctypes.string_at(start, end - start).split(b"\0"):
            if entry.startswith(prefixes):
                ctypes.memset(start + offset, 0, len(entry))
            offset += len(entry) + 1
        shown = environ.read_bytes().split(b"\0")
    except (OSError, IndexError, ValueError):
        return False
    return not any(entry.startswith(prefixes) for entry in shown)


PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3  # <linux/prctl.h>


def make_undumpable() -> bool:
    """Make this process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``): no core file
    is written whatever its core limit (a kernel raising it with ``prlimit`` and sending
    SIGSEGV gets nothing), and ``/proc/<pid>/mem``, ``maps``, ``environ`` and ptrace are
    refused to every process of the same user that is not root. Returns whether the flag
    is now 0 (False elsewhere: say so, the key is then as exposed as the process).

    Example:
        >>> make_undumpable()  # doctest: +SKIP
        True
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            return False
        return bool(libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def redact_key(
    content: bytes, headers: Iterable[tuple[str, str]], key: str
) -> tuple[bytes, list[tuple[str, str]]]:
    """``content`` and ``headers`` of an upstream answer with every copy of the key (and
    any header that carries it) removed: an upstream that echoes the request's headers
    cannot hand the key to a kernel.

    Example:
        >>> redact_key(b'{"x-api-key": "bz_live_k"}', [("x-echo", "bz_live_k")], "bz_live_k")
        (b'{"x-api-key": "[redacted]"}', [])
    """
    secret = key.encode()
    if len(secret) >= 8 and secret in content:
        content = content.replace(secret, b"[redacted]")
    kept = [(name, value) for name, value in headers if len(key) < 8 or not carries_key(value, key)]
    return content, kept


# Runs of base64 (standard or URL-safe) long enough to hold an encoded key.
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{12,}")


def carries_key(content: bytes | str, key: str) -> bool:
    """Whether ``content`` holds the key in a form the gateway recognises: as is, base64
    (standard or URL-safe, at any alignment), hex, or JSON whose strings (``\\u``-escaped
    or not) hold it alone or joined in document order (a key split across fields). Other
    encodings (compressed, encrypted, reversed, split across responses) are not found.

    Example:
        >>> import base64
        >>> carries_key(base64.b64encode(b'{"k": "bz_live_secret"}'), "bz_live_secret")
        True
        >>> carries_key('{"a": "bz_live", "b": "_secret"}', "bz_live_secret")
        True
        >>> carries_key(b'{"a": 1}', "bz_live_secret")
        False
    """
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    secret = key.encode()
    if secret in raw or secret.hex().encode() in raw.lower():
        return True
    for run in _BASE64_RUN.findall(raw.replace(b"\\/", b"/")):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                with contextlib.suppress(ValueError):
                    if secret in decode(chunk):
                        return True
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    values, names = _strings(parsed)
    if key in "".join(values):
        return True
    whole = raw.decode("utf-8", "ignore")
    return any(carries_key(text, key) for text in [*values, *names] if text != whole)


def _strings(value: Any) -> tuple[list[str], list[str]]:
    """The string values of a parsed JSON value in document order, and its object keys."""
    values: list[str] = []
    names: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            values.append(item)
        elif isinstance(item, dict):
            names.extend(item)
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return values, names


def _target(base_url: str, api_key: str) -> tuple[str, SecretKey]:
    return resolve_base_url(base_url), SecretKey(api_key)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _loopback(address: str | None) -> bool:
    try:
        return ipaddress.ip_address((address or "").split("%")[0]).is_loopback
    except ValueError:
        return False


class _GatewayHandler(web.RequestHandler):
    """Base handler: loopback only, JSON errors in the service's error shape."""

    gateway: Gateway

    def initialize(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def check_xsrf_cookie(self) -> None:
        """Callers authenticate with a secret or token header, never a cookie: no XSRF."""

    def prepare(self) -> None:
        if not _loopback(self.request.remote_ip):
            self._fail(403, "gateway_forbidden", "the rdskit gateway serves local kernels only")

    def _fail(self, status: int, code: str, detail: str) -> NoReturn:
        self.set_status(status)
        self.set_header("content-type", "application/json")
        self.finish({"status": "info", "error_code": code, "detail": detail, "transient": False})
        raise web.Finish()

    def _authorize(self) -> None:
        state = self.gateway.tokens.check(self.request.headers.get(TOKEN_HEADER))
        if state != "valid":
            self._fail(
                401,
                f"gateway_token_{state}",
                f"the gateway token is {state}; the rdskit client renews it by itself, so "
                "restart the kernel if this persists",
            )


class TokenHandler(_GatewayHandler):
    """``POST /rdskit/token`` ``{secret, kernel_id, proof}`` -> ``{token, expires_in}``."""

    @allow_unauthenticated
    def post(self) -> None:
        try:
            body = json.loads(self.request.body or b"{}")
        except ValueError:
            body = None
        try:
            token, lifetime = self.gateway.grant(body)
        except Refused as refused:
            self._fail(refused.status, refused.code, refused.detail)
        self.finish({"token": token, "expires_in": lifetime})


class StatusHandler(_GatewayHandler):
    """``GET /rdskit/status``: mode, upstream URL, shared rate and queue length."""

    @allow_unauthenticated
    def get(self) -> None:
        self._authorize()
        self.finish(self.gateway.status())


class PageHandler(_GatewayHandler):
    """``GET /rdskit``: a small human page at the URL ``%rds status`` prints (no secrets,
    no token needed: what it shows is the gateway's mode, rate and queue)."""

    @allow_unauthenticated
    def get(self) -> None:
        # A rebinding page names another host: only the loopback names this server has.
        host = (self.request.host_name or "").lower()
        if host not in ("localhost", "127.0.0.1", "::1", "[::1]") and not host.endswith(
            ".localhost"
        ):
            self._fail(403, "gateway_host_refused", "the rdskit page answers loopback hosts only")
        facts = self.gateway.status()
        rows = "".join(
            f"<tr><th>{html.escape(label)}</th><td>{html.escape(str(facts[key]))}</td></tr>"
            for key, label in _PAGE_FACTS
            if facts.get(key) is not None
        )
        self.set_header("content-type", "text/html; charset=utf-8")
        self.set_header(
            "content-security-policy",
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        )
        self.set_header("x-frame-options", "DENY")
        self.finish(
            "<!doctype html><meta charset=utf-8><title>rdskit gateway</title>"
            "<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:44em}"
            "th{text-align:left;padding-right:1em;font-weight:600}</style>"
            "<h1>rdskit gateway</h1><p>This Jupyter server forwards its kernels' rdskit "
            "requests here, through one shared request bucket. Kernels connect with "
            "<code>rdskit.Client()</code> or <code>%rds connect</code>; this page is for "
            f"people.</p><table>{rows}</table>"
        )


_PAGE_FACTS = (
    ("mode", "mode"),
    ("upstream", "service URL"),
    ("sandbox_db", "shared sandbox database"),
    ("rate_limit", "requests per second (all kernels)"),
    ("queued", "requests queued now"),
    ("token_ttl", "kernel token lifetime (s)"),
)


class ProxyHandler(_GatewayHandler):
    """``/rdskit/v1/...``: forwarded upstream through the shared bucket."""

    @allow_unauthenticated
    async def get(self, decoded: str) -> None:
        request = self.request
        # Tornado hands over the path decoded; the upstream must get the bytes that came in,
        # checked as they are (an encoded "/" decoded here would become a separator there).
        root = str(self.settings.get("base_url") or "/").rstrip("/") + f"/{PREFIX}/"
        raw = request.path[len(root) :] if request.path.startswith(root) else ""
        path = upstream_path(raw)
        if path is None:
            self._fail(
                400,
                "gateway_path_refused",
                "the gateway forwards normalised /v1/... paths only (no dot or empty "
                "segments, no encoded '/', '\\', '?', '#' or '.')",
            )
        self._authorize()
        headers = {
            name: request.headers[name] for name in _FORWARD_REQUEST if name in request.headers
        }
        if not all(_PRINTABLE_ASCII.fullmatch(value) for value in headers.values()):
            # httpx sends ASCII header values only: refused here, not a 500 and a traceback.
            self._fail(
                400,
                "gateway_header_refused",
                f"the headers {', '.join(_FORWARD_REQUEST)} must be printable ASCII",
            )
        kernel_id = self.gateway.tokens.kernel_of(request.headers.get(TOKEN_HEADER))
        try:
            response = await self.gateway.forward(
                request.method or "GET", path, request.query, request.body, headers, kernel_id
            )
        except Refused as refused:
            self._fail(refused.status, refused.code, refused.detail)
        except (httpx.TransportError, OSError, RuntimeError) as exc:
            # Unreachable service, or a shared sandbox that could not start.
            self._fail(
                502,
                "gateway_upstream_unreachable",
                f"the gateway could not reach the service ({type(exc).__name__})",
            )
        _, key = await self.gateway._upstream()
        forwarded = [(n, response.headers[n]) for n in _FORWARD_RESPONSE if n in response.headers]
        content, forwarded = redact_key(response.content, forwarded, key.reveal())
        if carries_key(content, key.reveal()):  # encoded: not cut out, so not passed on
            self._fail(
                502,
                "gateway_upstream_echoed_key",
                "the service's answer carried the API key in an encoded form; the gateway "
                "did not pass it on",
            )
        # The standard reason phrase: the upstream's own could carry anything (the key).
        self.set_status(response.status_code)
        self.clear_header("content-type")
        for name, value in forwarded:
            self.set_header(name, value)
        self.finish(content)

    post = patch = put = delete = get


def make_handlers(gateway: Gateway, base_url: str = "/") -> list[tuple[str, type, dict[str, Any]]]:
    """The gateway's tornado routes under ``base_url``.

    Example:
        >>> gw = Gateway(("http://127.0.0.1:1", "k"), mode="service")
        >>> [pattern for pattern, *_ in make_handlers(gw)]
        ['/rdskit/?', '/rdskit/token', '/rdskit/status', '/rdskit/(v1/.*)']
    """
    root = base_url.rstrip("/") + "/" + PREFIX
    kwargs = {"gateway": gateway}
    return [
        (f"{root}/?", PageHandler, kwargs),
        (f"{root}/token", TokenHandler, kwargs),
        (f"{root}/status", StatusHandler, kwargs),
        (f"{root}/(v1/.*)", ProxyHandler, kwargs),
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
        """Start the shared sandbox (on the first request that needs it), privately.

        Directory 0700, database 0600 (SQLite gives its -wal/-shm files the database's
        mode), nothing opened through a symlink; the well-known default key is revoked and
        a random key, stored 0600 beside the database, replaces the previous one. The
        kernels' database (``RDSKIT_SANDBOX_DB``, or a file their sandboxes used) is
        refused, naming both settings: its keys are theirs.
        """
        from rdskit.sandbox import ENV_DB, start
        from rdskit.sandbox.store.accounts import default_api_key
        from rdskit.sandbox.store.db import DatabaseUnusable, claim, why_unusable

        db = self._sandbox_path()
        # The error names the setting the path came from, so the fix is one edit away.
        setting = "c.RdsGateway.sandbox_db" + ("" if self.sandbox_db else " (default)")
        kernels = os.environ.get(ENV_DB, "").strip()
        try:
            if kernels and Path(kernels).expanduser().resolve() == db:
                raise DatabaseUnusable(
                    str(db),
                    f"it is the kernels' {ENV_DB} too; give the gateway's shared sandbox "
                    "another file",
                )
            private_dir(db.parent)
            private_file(db)
            for suffix in ("-wal", "-shm"):
                if db.with_name(db.name + suffix).exists():
                    private_file(db.with_name(db.name + suffix), create=False)
            handle = start(db=db, speed=self.sandbox_speed)
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
            self.log.error("rdskit gateway: %s", unusable)
            raise Refused(503, "gateway_sandbox_unusable", str(unusable)) from None
        self._stop_sandbox = handle.stop
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
        self.log.info("rdskit gateway: shared sandbox with database %s", db)
        return handle.url, key

    def initialize_handlers(self) -> None:
        """Register the routes (the ExtensionApp prefixes the server's base_url)."""
        if self.gateway is not None:
            from rdskit.jupyter.lab_api import lab_handlers  # the JupyterLab panel's reads

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
