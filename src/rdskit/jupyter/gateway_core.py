"""What the gateway's handlers share (:class:`Gateway`): the upstream and its key, the
kernels' bootstrap secret, the token book, the shared bucket, the kernels' budgets; and
:class:`Refused`, a refusal with the service's error shape.

Example:
    >>> Gateway(("http://127.0.0.1:1", "k"), mode="service").status()["mode"]
    'service'
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import re
import secrets
import time
from collections import deque
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeGuard

import httpx

from rdskit._base_client import HTTPCore, drive
from rdskit._bodies import DEFAULT_MAX_RESPONSE_BYTES, aread_response
from rdskit._config import SecretKey, resolve_base_url
from rdskit._files import private_dir, write_private
from rdskit._flow import Flow, Send
from rdskit._gateway_auth import kernel_proof
from rdskit._ratelimit import DEFAULT_RATE
from rdskit.billing import Estimate, PriceCache, estimate_flow
from rdskit.errors import RdsError
from rdskit.jupyter.gateway_budget import ASK, KernelBudgets, OverBudget, paid_call
from rdskit.jupyter.gateway_paths import upstream_path
from rdskit.jupyter.gateway_rate import SharedBucket
from rdskit.jupyter.gateway_tokens import TokenBook

__all__ = ["CHATS_KEPT", "Gateway", "KernelKeys", "Refused", "Upstream"]


CHATS_KEPT = 20
"""Chats asked through the gateway that it remembers for the JupyterLab panel."""
_CHAT_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")

KernelKeys = Callable[[str], bytes | None]
"""The connection key of a running kernel of this server by its id; None once it is gone."""


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

    async def upstream(self) -> tuple[str, SecretKey]:
        """The upstream's base URL and key, starting a lazy upstream (once) if needed."""
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
        base_url, key = await self.upstream()
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
        assert self._target is not None  # the estimate runs after upstream()
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


def _target(base_url: str, api_key: str) -> tuple[str, SecretKey]:
    return resolve_base_url(base_url), SecretKey(api_key)
