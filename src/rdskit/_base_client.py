"""The HTTP core: one sans-IO request flow, driven by a sync and an async driver.

Everything that talks to the service is a *flow*: a generator that yields steps and gets
their results sent back in:

- ``Sleep(seconds)`` -> the driver sleeps (``time.sleep`` or ``asyncio.sleep``), sends None;
- ``Send(httpx.Request)`` -> the driver sends it and sends back the ``httpx.Response``, or
  throws the ``httpx.TransportError`` into the flow.

:meth:`HTTPCore.call` is the flow of one API call: rate-limit acquisition, the request,
retries (exponential backoff with full jitter, ``Retry-After``), error mapping and
envelope unwrapping. Operations made of several calls (a budget check before a paid call,
polling a run) are flows too: they ``yield from core.call(...)``, so they are also written
once. :class:`SyncAPIClient` runs a flow to its value; :class:`AsyncAPIClient` returns a
coroutine that does.

Resources describe a call with :class:`APIRequest` and hand it to the client::

    def get(self, dataset_id: str) -> Dataset:
        return self._client._request(
            APIRequest("GET", path("/v1/datasets/{}", dataset_id), cast=Dataset.model_validate)
        )

Retry policy by ``kind``:

- ``read`` (GET) and ``free_post`` (POST /v1/mentions, /v1/audience_profiles,
  /v1/custom_parameters/preview): retried on 5xx, timeouts, broken connections and
  ``transient: true`` errors;
- ``write`` and ``paid``: never re-sent once the request may have reached the service;
  a lost answer (or a 5xx without one of the spec's error codes) raises
  :class:`~rdskit.errors.OutcomeUnknown` with ``check_hint``;
- every kind: retried on 429 (nothing started) and on connection errors raised before
  the request left (connect error, connect timeout, pool timeout).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, Generic, Literal, NamedTuple, Self, TypeAlias, TypeVar
from urllib.parse import quote

import httpx
import pydantic

from rdskit._bodies import (
    ACCEPT_ENCODING,
    DEFAULT_MAX_RESPONSE_BYTES,
    MAX_REQUEST_BYTES,
    aread_response,
    check_request_size,
    parse_json,
    read_response,
)
from rdskit._config import Credential, SecretKey, gateway_file, resolve_api_key, resolve_base_url
from rdskit._flow import Flow, Send, Sleep
from rdskit._gateway_auth import gateway_credentials
from rdskit._ratelimit import DEFAULT_RATE, RateLimiter, shared_limiter
from rdskit.errors import (
    APIConnectionError,
    APITimeoutError,
    ConfigurationError,
    InvalidParameter,
    OutcomeUnknown,
    RateLimited,
    RdsError,
    RequestTooLarge,
    UnexpectedResponse,
    error_from_response,
    seconds_or_none,
)
from rdskit.models.account import INSTANCE_HEADER
from rdskit.pagination import AsyncPager, SyncPage

__all__ = [
    "DEFAULT_MAX_PAGES",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_TIMEOUT",
    "APIRequest",
    "AsyncAPIClient",
    "Flow",
    "HTTPCore",
    "KeyHeader",
    "Kind",
    "Page",
    "Send",
    "Sleep",
    "SyncAPIClient",
    "check_encodable",
    "discard",
    "drive",
    "path",
    "resolve_credentials",
]

T = TypeVar("T")

log = logging.getLogger("rdskit")

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_RETRY_AFTER = 60.0
"""The longest wait a ``Retry-After`` may impose (seconds); a longer one is cut to it."""
DEFAULT_MAX_PAGES = 100_000
"""The most pages one list walk follows (a server that always has a next page stops)."""
_BACKOFF_BASE = 0.5  # seconds before the first retry (upper bound of the jitter)
_BACKOFF_CAP = 8.0
_USER_AGENT = "rdskit-python"

Amount: TypeAlias = Decimal | int | float | str
"""A credit or USD amount as a caller may give it (floats go through their shortest repr)."""

Kind = Literal["read", "free_post", "write", "paid"]
"""What a call does, which decides whether it may be re-sent (see the module docstring)."""

# Raised by httpx before any byte of the request left: re-sending cannot duplicate work.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class KeyHeader(httpx.Auth):
    """Writes the key into the ``x-api-key`` header at the moment of sending.

    Example:
        >>> KeyHeader(SecretKey("bz_test_0123456789abcdef0123456789abcdef"))
        KeyHeader(SecretKey('bz_test_…#0044f9ce'))
    """

    def __init__(self, key: Credential) -> None:
        self._key = key

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["x-api-key"] = self._key.reveal()
        yield request

    def __repr__(self) -> str:
        return f"KeyHeader({self._key!r})"


def resolve_credentials(
    api_key: str | SecretKey | None = None, base_url: str | None = None
) -> tuple[Credential, str]:
    """The key and base URL a client uses.

    An explicit ``api_key``/``base_url`` or ``RDSKIT_API_KEY``/``RDSKIT_BASE_URL`` always
    wins; only when none is set and ``RDSKIT_GATEWAY`` is (a kernel of a Jupyter server
    running the rdskit extension) does the client go through the server's gateway, with a
    refreshing short-lived token in place of the key (:mod:`rdskit._gateway_auth`).

    Example:
        >>> key, url = resolve_credentials("bz_test_0123456789abcdef0123456789abcdef",
        ...                                "http://127.0.0.1:8000/v1")
        >>> key, url
        (SecretKey('bz_test_…#0044f9ce'), 'http://127.0.0.1:8000')
    """
    gateway = gateway_file(api_key, base_url)
    if gateway is not None:
        return gateway_credentials(gateway)
    return SecretKey(resolve_api_key(api_key)), resolve_base_url(base_url)


def path(template: str, *ids: str) -> str:
    """Fill ``{}`` slots of a path with URL-quoted identifiers.

    Raises:
        InvalidParameter: an identifier cannot be encoded (a lone surrogate), before any
            request.

    Example:
        >>> path("/v1/datasets/{}/runs/{}", "ds_1", "dsr/2")
        '/v1/datasets/ds_1/runs/dsr%2F2'
        >>> path("/v1/datasets/{}", "ds\\udc80")
        Traceback (most recent call last):
        ...
        rdskit.errors.InvalidParameter: id: ...cannot be encoded as UTF-8...
    """
    for part in ids:
        check_encodable(str(part), "id")
    return template.format(*(quote(str(part), safe="") for part in ids))


def check_encodable(value: Any, field: str) -> None:
    """Refuse a value that cannot travel as JSON text: a string that is not valid Unicode
    (a lone surrogate), a NaN or infinite float, or a type JSON has no form for.

    ``field`` names the value; nested values are named by their dotted path.

    Raises:
        InvalidParameter: naming the first offending field.

    Example:
        >>> check_encodable({"name": "ok", "tags": ["a", "b\\ud800"]}, "body")
        Traceback (most recent call last):
        ...
        rdskit.errors.InvalidParameter: body.tags.1: cannot be encoded as UTF-8: ...
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = value[exc.start].encode("unicode_escape").decode("ascii")
            raise InvalidParameter(
                field, f"cannot be encoded as UTF-8: a lone surrogate {bad} at position {exc.start}"
            ) from None
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameter(field, f"must be a finite number, got {value!r}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            check_encodable(key, field)
            check_encodable(item, f"{field}.{key}")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_encodable(item, f"{field}.{index}")
    elif value is not None and not isinstance(value, bool | int | Decimal):
        raise InvalidParameter(field, f"{type(value).__name__} has no JSON form")


def discard(_: Any) -> None:
    """``cast`` of calls whose response body is not shown by the spec (deletes, actions):
    their ``data`` may be null or absent."""


@dataclass(frozen=True)
class APIRequest(Generic[T]):
    """One API call as data: what to send, how to read ``data``, and what it may do.

    ``cast`` turns the envelope's ``data`` (or, for a page, each item) into the value;
    ``check_hint`` says how to find out whether a ``write``/``paid`` call happened when
    its answer is lost; ``cursor_in`` says where the next page's cursor goes.
    """

    method: str
    path: str
    kind: Kind = "read"
    params: Mapping[str, Any] | None = None
    json: Any = None
    cast: Callable[[Any], T] | None = None
    check_hint: str | None = None
    cursor_in: Literal["params", "json"] = "params"

    def __post_init__(self) -> None:
        # A body the service would refuse for its size is refused first, before the checks
        # below walk (and copy) all of it; then everything must encode, or nothing is sent.
        check_request_size(self.json)
        for name, value in (self.params or {}).items():
            check_encodable(value, name)
        if isinstance(self.json, Mapping):
            for name, value in self.json.items():
                check_encodable(value, name)
        else:
            check_encodable(self.json, "body")

    @property
    def resendable(self) -> bool:
        """Whether re-sending after the request may have arrived is harmless."""
        return self.kind in ("read", "free_post")

    def with_cursor(self, cursor: str) -> APIRequest[T]:
        """The same call (same limit, order and sort) for the page at ``cursor``."""
        if self.cursor_in == "json":
            return replace(self, json={**(self.json or {}), "cursor": cursor})
        return replace(self, params={**(self.params or {}), "cursor": cursor})


class Page(NamedTuple, Generic[T]):
    """One page of a list response."""

    data: list[T]
    has_next: bool
    cursor: str | None


class HTTPCore:
    """Builds requests and runs the retry/error/envelope logic of every call (no I/O).

    ``owner`` is the client that returned objects get bound to.
    """

    def __init__(
        self,
        *,
        owner: Any,
        api_key: Credential,
        base_url: str,
        timeout: float | httpx.Timeout,
        max_retries: int,
        limiter: RateLimiter | None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        max_pages: int = DEFAULT_MAX_PAGES,
    ) -> None:
        if max_retries < 0:
            raise ConfigurationError(f"max_retries must be >= 0, got {max_retries}")
        _check_limit("max_response_bytes", max_response_bytes, 1)
        _check_limit("max_retry_after", max_retry_after, 0)
        _check_limit("max_pages", max_pages, 1)
        self.owner = owner
        self.api_key = api_key
        self.base_url = base_url
        self.timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self.max_retries = max_retries
        self.limiter = limiter
        self.max_response_bytes = int(max_response_bytes)
        self.max_retry_after = float(max_retry_after)
        self.max_pages = int(max_pages)
        self.auth = KeyHeader(api_key)
        self.clock: Callable[[], float] = time.monotonic
        # The RateLimit-* headers of the last response that had them (``%rds status``).
        self.rate_limit_headers: dict[str, str] = {}
        # The service's INSTANCE_HEADER, once a response had it (a sandbox database).
        self.instance: str | None = None

    def __repr__(self) -> str:
        return f"HTTPCore(base_url={self.base_url!r}, api_key={self.api_key!r})"

    # -- flows ------------------------------------------------------------------------
    def call(self, request: APIRequest[T]) -> Flow[T]:
        """Flow of one call, finishing with the cast (and bound) ``data``.

        Raises:
            UnexpectedResponse: a 2xx whose ``data`` is missing or null (where the spec
                shows one) or does not match its model.
        """
        body = yield from self.exchange(request)
        data: Any = body.get("data") if isinstance(body, Mapping) else None
        if request.cast is discard:
            return None  # type: ignore[return-value]  # T is None for these calls
        if request.cast is None:
            raw: T = data  # an uncast call returns the envelope's data as it came
            return raw
        if data is None:
            raise _unexpected(request, body, "its data is null or missing")
        return self.bind(_cast(request, request.cast, data, body))

    def call_page(self, request: APIRequest[T]) -> Flow[Page[T]]:
        """Flow of one list call, finishing with its :class:`Page` (items cast and bound)."""
        body = yield from self.exchange(request)
        items = body.get("data") if isinstance(body, Mapping) else None
        if not isinstance(items, list):
            raise _unexpected(request, body, "its data is not a list")
        cast = request.cast or (lambda item: item)
        return Page(
            [self.bind(_cast(request, cast, item, body)) for item in items],
            bool(body.get("has_next", False)),
            body.get("cursor"),
        )

    def exchange(self, request: APIRequest[Any]) -> Flow[Any]:
        """Flow of one call, finishing with the decoded JSON body (None when empty)."""
        attempt = 0
        renewed = False  # a gateway token refused once is renewed once
        while True:
            yield from self._acquire()
            log.debug("%s %s (attempt %d)", request.method, request.path, attempt + 1)
            yield from self._refresh_credential()
            try:
                response: httpx.Response = yield Send(self._build(request), self.auth)
            except httpx.TransportError as exc:
                if isinstance(exc, _NOT_SENT) or request.resendable:
                    if attempt < self.max_retries:
                        attempt += 1
                        yield from self._backoff(request, attempt, type(exc).__name__)
                        continue
                    raise _connection_error(exc, request) from exc
                raise OutcomeUnknown(
                    request.method, request.path, self._hint(request), type(exc).__name__
                ) from exc
            self._observe(response)
            body = _decode(response, request)
            log.debug("%s %s -> %d", request.method, request.path, response.status_code)
            if response.is_success:
                return _json_object(response, body, request)
            if not renewed and _gateway_refused(response.status_code, body):
                # The gateway restarted or revoked its token: nothing ran; a renewable
                # credential (a gateway token, not an API key) is exchanged once again.
                renewed = self.api_key.forget()
                if renewed:
                    continue
            error = error_from_response(
                response.status_code,
                body,
                method=request.method,
                path=request.path,
                retry_after_header=_retry_after_header(response),
            )
            if isinstance(error, RateLimited):
                if attempt >= self.max_retries:
                    raise error
                attempt += 1
                delay = self._rate_limit_delay(error, attempt)
                log.info("429 on %s %s; retrying in %.2fs", request.method, request.path, delay)
                if self.limiter is not None:
                    self.limiter.hold(delay)  # other threads of this key wait too
                yield Sleep(delay)
                continue
            server_side = response.status_code >= 500
            if server_side and not request.resendable and error.code is None:
                # A 5xx does not say whether the work started before the failure, unless it
                # carries one of the spec's codes (e.g. ai_assistant_unavailable on Ask).
                raise OutcomeUnknown(
                    request.method,
                    request.path,
                    self._hint(request),
                    f"HTTP {response.status_code}",
                ) from error
            retryable = (server_side or error.transient) and request.resendable
            if retryable and attempt < self.max_retries:
                attempt += 1
                yield from self._backoff(request, attempt, f"HTTP {response.status_code}")
                continue
            raise error

    # -- helpers ----------------------------------------------------------------------
    def _observe(self, response: httpx.Response) -> None:
        """What every response tells the client: the limiter's headers, the sandbox
        instance, the last rate-limit headers (for ``client.rate_limit``)."""
        if self.limiter is not None:
            self.limiter.observe(response.headers)
        if INSTANCE_HEADER in response.headers:
            self.instance = response.headers[INSTANCE_HEADER]
        if "ratelimit-limit" in response.headers:
            self.rate_limit_headers = {
                name: value
                for name, value in response.headers.items()
                if name.startswith("ratelimit-")
            }

    def _rate_limit_delay(self, error: RateLimited, attempt: int) -> float:
        """How long to wait after a 429: the wait the service asks for, capped at
        ``max_retry_after``; none (or a nonsense one) -> the backoff's."""
        delay = error.retry_after
        if delay is None:
            return self._jitter(attempt)
        if delay > self.max_retry_after:
            log.info("Retry-After %.0fs cut to max_retry_after", delay)
            return self.max_retry_after
        return delay

    def bind(self, value: T) -> T:
        """Bind returned models (or a list of them) to the owning client."""
        for item in value if isinstance(value, list) else (value,):
            bind = getattr(item, "_bind", None)
            if callable(bind):
                bind(self.owner)
        return value

    def _acquire(self) -> Flow[None]:
        if self.limiter is None:
            return
        while (wait := self.limiter.try_acquire()) > 0:
            yield Sleep(wait)

    def _backoff(self, request: APIRequest[Any], attempt: int, reason: str) -> Flow[None]:
        delay = self._jitter(attempt)
        log.info(
            "retrying %s %s after %s in %.2fs (retry %d of %d)",
            request.method,
            request.path,
            reason,
            delay,
            attempt,
            self.max_retries,
        )
        yield Sleep(delay)

    @staticmethod
    def _jitter(attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2**(attempt-1))]."""
        return random.uniform(0, min(_BACKOFF_CAP, _BACKOFF_BASE * 2 ** (attempt - 1)))

    @staticmethod
    def _hint(request: APIRequest[Any]) -> str:
        return request.check_hint or (
            f"read the resource back before repeating {request.method} {request.path}"
        )

    def _refresh_credential(self) -> Flow[None]:
        """A Jupyter gateway token may need an exchange before the request, done as a step
        of this flow so async clients never block their loop on it. The token stays in the
        key object (no local holds it); :class:`KeyHeader` writes it at send time."""
        yield from self.api_key.auth_flow()

    def _build(self, request: APIRequest[Any]) -> httpx.Request:
        params = {k: v for k, v in (request.params or {}).items() if v is not None}
        built = httpx.Request(
            request.method,
            self.base_url + request.path,
            params=params or None,
            json=request.json,
            headers={
                "accept": "application/json",
                "accept-encoding": ACCEPT_ENCODING,
                "user-agent": _USER_AGENT,
            },
            extensions={"timeout": self.timeout.as_dict()},
        )
        # APIRequest counted the body from below; its encoding (escapes, UTF-8) can be more.
        if len(built.content) > MAX_REQUEST_BYTES:
            raise RequestTooLarge(_largest(request.json), len(built.content), MAX_REQUEST_BYTES)
        return built


def _largest(body: Any) -> str:
    """The top-level field of a JSON ``body`` that encodes longest ("body" if it has none)."""
    if not isinstance(body, Mapping) or not body:
        return "body"
    return str(max(body, key=lambda name: len(json.dumps(body[name], default=str))))


def _unexpected(request: APIRequest[Any], body: Any, why: str) -> UnexpectedResponse:
    return UnexpectedResponse(
        200,
        None,
        f"the service's answer cannot be read: {why}",
        body=body,
        method=request.method,
        path=request.path,
    )


def _cast(request: APIRequest[Any], cast: Callable[[Any], T], data: Any, body: Any) -> T:
    """``cast(data)``; a body that does not match its model is a typed error, not pydantic's."""
    try:
        return cast(data)
    except pydantic.ValidationError as exc:
        issue = exc.errors()[0]
        where = ".".join(str(part) for part in issue["loc"]) or "data"
        raise _unexpected(request, body, f"{where}: {issue['msg']}") from exc


def _decode(response: httpx.Response, request: APIRequest[Any]) -> Any:
    if not response.content:
        return None
    return parse_json(response.content, (request.method, request.path), response.status_code)


def _check_limit(name: str, value: float, least: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= least:
        raise ConfigurationError(f"{name} must be a number >= {least}, got {value!r}")
    if not math.isfinite(value):
        raise ConfigurationError(f"{name} must be finite, got {value!r}")


def _json_object(response: httpx.Response, body: Any, request: APIRequest[Any]) -> Any:
    """A success's decoded body: a JSON object, or None when empty; anything else is an
    :class:`UnexpectedResponse` naming the content type."""
    if response.content and not isinstance(body, Mapping):
        kind = response.headers.get("content-type", "no content-type")
        raise UnexpectedResponse(
            response.status_code,
            None,
            f"the body is not a JSON object ({kind})",
            body=body,
            method=request.method,
            path=request.path,
        )
    return body


def _gateway_refused(status: int, body: Any) -> bool:
    """A Jupyter gateway's 401 for an expired or revoked token, not the service's."""
    code = body.get("error_code") if isinstance(body, Mapping) else None
    return status == 401 and isinstance(code, str) and code.startswith("gateway_token_")


def _retry_after_header(response: httpx.Response) -> float | None:
    return seconds_or_none(response.headers.get("retry-after"))


def _connection_error(exc: httpx.TransportError, request: APIRequest[Any]) -> APIConnectionError:
    cls = APITimeoutError if isinstance(exc, httpx.TimeoutException) else APIConnectionError
    return cls(f"{type(exc).__name__} on {request.method} {request.path}: {exc}")


class _ClientBase:
    """Configuration shared by both clients: key, URL, limiter, budget, price cache."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        timeout: float | httpx.Timeout,
        max_retries: int,
        rate_limit: float | None,
        budget_credits: Amount | None,
        max_response_bytes: int,
        max_retry_after: float,
        max_pages: int,
    ) -> None:
        key, url = resolve_credentials(api_key, base_url)
        limiter = None if rate_limit is None else shared_limiter(key.digest, rate_limit)
        self._core = HTTPCore(
            owner=self,
            api_key=key,
            base_url=url,
            timeout=timeout,
            max_retries=max_retries,
            limiter=limiter,
            max_response_bytes=max_response_bytes,
            max_retry_after=max_retry_after,
            max_pages=max_pages,
        )
        self._setup_billing(budget_credits)

    def _setup_billing(self, budget_credits: Amount | None) -> None:
        """Set up the budget guard; the billing layer of the client overrides this (the HTTP
        core itself knows nothing of prices)."""
        if budget_credits is not None:
            raise ConfigurationError("budget_credits needs a client with billing (rdskit.Client)")

    @property
    def base_url(self) -> str:
        """The service root URL (request paths start with ``/v1``)."""
        return self._core.base_url

    def __repr__(self) -> str:
        # Never raises, even on a client whose __init__ failed half-way.
        core = self.__dict__.get("_core")
        if not isinstance(core, HTTPCore):
            return f"{type(self).__name__}(<not configured>)"
        return f"{type(self).__name__}(base_url={core.base_url!r}, api_key={core.api_key!r})"


class SyncAPIClient(_ClientBase):
    """Runs flows on an ``httpx.Client`` and returns their values.

    Args:
        api_key: the API key; default ``RDSKIT_API_KEY``. It is never shown in any output.
        base_url: the service root (request paths are ``/v1/...`` under it); default
            ``RDSKIT_BASE_URL``.
        timeout: seconds (or an ``httpx.Timeout``) per request.
        max_retries: how many times a call may be retried (see the module docstring).
        rate_limit: requests per second for this key, shared process-wide; None turns the
            client-side limiter off.
        budget_credits: refuse paid calls whose estimate exceeds what remains of it.
        max_response_bytes: the largest response body read, as sent and once decoded
            (default 64 MiB); a larger one raises :class:`~rdskit.errors.ResponseTooLarge`.
        max_retry_after: the longest wait (seconds) a 429's ``Retry-After`` may impose;
            longer ones are cut to it, nonsense ones (``inf``, negative) ignored.
        max_pages: the most pages one list walk follows before
            :class:`~rdskit.errors.TooManyPages`.
        http_client: an httpx client to send with (left open by ``close()``).
        transport: a transport for the client's own httpx client (``httpx.MockTransport``
            in tests).
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        rate_limit: float | None = DEFAULT_RATE,
        budget_credits: Amount | None = None,
        http_client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        max_pages: int = DEFAULT_MAX_PAGES,
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            rate_limit=rate_limit,
            budget_credits=budget_credits,
            max_response_bytes=max_response_bytes,
            max_retry_after=max_retry_after,
            max_pages=max_pages,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(transport=transport)
        self._sleep: Callable[[float], None] = time.sleep

    def _run(self, flow: Flow[T]) -> T:
        """Drive ``flow`` to its value."""
        reply: Any = None
        error: BaseException | None = None
        while True:
            try:
                step = flow.send(reply) if error is None else flow.throw(error)
            except StopIteration as stop:
                value: T = stop.value
                return value
            reply, error = None, None
            if isinstance(step, Sleep):
                self._sleep(step.seconds)
                continue
            try:
                limit = self._core.max_response_bytes
                reply = read_response(self._http, step.request, step.auth, limit)
            except (httpx.TransportError, RdsError) as exc:
                error = exc  # thrown into the flow, whose cleanup (locks, markers) runs

    def _request(self, request: APIRequest[T]) -> T:
        return self._run(self._core.call(request))

    def _paginate(self, request: APIRequest[T]) -> SyncPage[T]:
        return SyncPage(self, request, self._run(self._core.call_page(request)))

    def close(self) -> None:
        """Close the HTTP connections (not those of an ``http_client`` you passed in)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


async def drive(
    flow: Flow[T],
    send: Callable[[Send], Awaitable[httpx.Response]],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> T:
    """Drive ``flow`` to its value on an event loop: ``send`` answers its ``Send`` steps
    (an ``AsyncClient``'s connection, or the Jupyter gateway's shared bucket), ``sleep``
    its ``Sleep`` steps. A transport or rdskit error of ``send`` is thrown into the flow,
    whose cleanup (locks, markers) runs."""
    reply: Any = None
    error: BaseException | None = None
    while True:
        try:
            step = flow.send(reply) if error is None else flow.throw(error)
        except StopIteration as stop:
            value: T = stop.value
            return value
        reply, error = None, None
        if isinstance(step, Sleep):
            await sleep(step.seconds)
            continue
        try:
            reply = await send(step)
        except (httpx.TransportError, RdsError) as exc:
            error = exc


class AsyncAPIClient(_ClientBase):
    """Runs flows on an ``httpx.AsyncClient``; every call returns an awaitable.

    Arguments as :class:`SyncAPIClient`, with ``httpx.AsyncClient`` / an async transport.
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        rate_limit: float | None = DEFAULT_RATE,
        budget_credits: Amount | None = None,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        max_pages: int = DEFAULT_MAX_PAGES,
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            rate_limit=rate_limit,
            budget_credits=budget_credits,
            max_response_bytes=max_response_bytes,
            max_retry_after=max_retry_after,
            max_pages=max_pages,
        )
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(transport=transport)
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    async def _run(self, flow: Flow[T]) -> T:
        """Drive ``flow`` to its value."""

        async def send(step: Send) -> httpx.Response:
            limit = self._core.max_response_bytes
            return await aread_response(self._http, step.request, step.auth, limit)

        return await drive(flow, send, self._sleep)

    def _request(self, request: APIRequest[T]) -> Awaitable[T]:
        return self._run(self._core.call(request))

    def _paginate(self, request: APIRequest[T]) -> AsyncPager[T]:
        return AsyncPager(self, request)

    async def close(self) -> None:
        """Close the HTTP connections (not those of an ``http_client`` you passed in)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
