"""Bounded bodies: a hostile or broken server cannot exhaust the client's memory, and a
request too large for the service is refused before it is sent (:func:`check_request_size`).

A response body is read as a stream and decoded here (not by httpx), with a cap on the
bytes that arrive *and* on the bytes they decode to, checked chunk by chunk: a gzip bomb
stops at the cap, not after it has filled memory. The client asks only for the encodings
decoded here (``Accept-Encoding: gzip, deflate``); any other is refused.

JSON is parsed with a depth cap (deeper documents are an :class:`UnexpectedResponse`, not
a ``RecursionError``).

Example:
    >>> import zlib
    >>> packed = zlib.compress(b"0" * 2_000)
    >>> reader = BodyReader({"content-encoding": "deflate"}, limit=1_000, where=("GET", "/v1/me"))
    >>> reader.feed(packed)
    Traceback (most recent call last):
    ...
    rdskit.errors.ResponseTooLarge: error (HTTP 200) on GET /v1/me: the body decodes to ...
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import Any

import httpx

from rdskit.errors import RequestTooLarge, ResponseTooLarge, UnexpectedResponse

__all__ = [
    "ACCEPT_ENCODING",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_REQUEST_BYTES",
    "BodyReader",
    "aread_response",
    "check_request_size",
    "parse_json",
    "read_response",
]

DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""The default cap on a response body, both as sent and once decoded (64 MiB)."""

MAX_REQUEST_BYTES = 1_000_000
"""The largest request body the client sends (bytes). The spec states no bound on request
bodies; the sandbox, which takes its bound from here, answers a larger one 413
``request_too_large``. The biggest legitimate body (50 post refs, 10 filters, a long Ask
message) is a few KB: a megabyte leaves room and stops a 50 MB question at the door."""

MAX_JSON_DEPTH = 256
"""Deepest nesting of arrays and objects read from the service (its documents use < 10)."""

ACCEPT_ENCODING = "gzip, deflate"
"""The only content encodings :class:`BodyReader` decodes, so the only ones asked for."""


def check_request_size(body: Any, limit: int = MAX_REQUEST_BYTES) -> None:
    """Refuse a JSON request ``body`` that cannot be under ``limit`` bytes, before it is
    encoded: its size is counted from below (a character is at least one byte) and the
    count stops once past ``limit``, so a 50 MB string costs neither time nor a copy.

    Raises:
        RequestTooLarge: naming the body's top-level field that carries it over.

    Example:
        >>> check_request_size({"message": "x" * 2_000_000})
        Traceback (most recent call last):
        ...
        rdskit.errors.RequestTooLarge: message: the request body would be at least ...
    """
    if isinstance(body, Mapping):
        size = 1  # {} less the comma the first member does not have
        for key, value in body.items():
            size += _floor(value, limit - size) + len(str(key)) + 4  # a comma, "key":
            if size > limit:
                raise RequestTooLarge(str(key), size, limit)
    elif (size := _floor(body, limit)) > limit:
        raise RequestTooLarge("body", size, limit)


def _floor(value: Any, budget: int) -> int:
    """The least number of bytes ``value`` encodes to as JSON, counted until past ``budget``."""
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, Mapping):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = ((None, item) for item in value)
    else:
        return 1  # a number, true, false or null: at least one character
    size = 2
    for index, (key, item) in enumerate(items):
        size += (
            _floor(item, budget - size) + (index > 0) + (0 if key is None else len(str(key)) + 3)
        )
        if size > budget:
            break
    return size


# Headers that describe the encoded body; the rebuilt response carries the decoded one.
_ENCODING_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


class BodyReader:
    """Decodes a response body chunk by chunk, refusing more than ``limit`` bytes either
    encoded or decoded. ``where`` is the request's (method, path), for the error."""

    def __init__(
        self, headers: Mapping[str, str], *, limit: int, where: tuple[str, str], status: int = 200
    ) -> None:
        self._limit = limit
        self._where = where
        self._status = status
        self._raw = 0
        self._parts: list[bytes] = []
        self._size = 0
        encoding = headers.get("content-encoding", "identity").strip().lower()
        self._decoder: Any = None
        self._deflate = encoding == "deflate"
        if encoding in ("gzip", "x-gzip"):
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif self._deflate:
            self._decoder = zlib.decompressobj()
        elif encoding not in ("identity", ""):
            raise self._unexpected(
                f"its content-encoding {encoding[:40]!r} is not one rdskit asked for "
                f"({ACCEPT_ENCODING})"
            )
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise self._too_large(f"its Content-Length is {int(declared):,} bytes")

    def feed(self, chunk: bytes) -> None:
        """Add the next encoded chunk.

        Raises:
            ResponseTooLarge: past the cap, encoded or decoded.
            UnexpectedResponse: the chunk does not decode.
        """
        self._raw += len(chunk)
        if self._raw > self._limit:
            raise self._too_large(f"more than {self._limit:,} bytes arrived")
        if self._decoder is None:
            self._add(chunk)
            return
        data = chunk
        while data:
            room = self._limit - self._size + 1  # one byte past the cap proves the excess
            try:
                out = self._decoder.decompress(data, room)
            except zlib.error as exc:
                if self._deflate and self._raw == len(chunk) and not self._parts:
                    # "deflate" is raw DEFLATE for some servers, zlib-wrapped for others.
                    self._deflate = False
                    self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise self._unexpected(f"its compressed body is damaged ({exc})") from None
            self._add(out)
            data = self._decoder.unconsumed_tail

    def body(self) -> bytes:
        """The whole decoded body."""
        if self._decoder is not None:
            self._add(self._decoder.flush())
        return b"".join(self._parts)

    def _add(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self._limit:
            raise self._too_large(f"the body decodes to more than {self._limit:,} bytes")
        if data:
            self._parts.append(data)

    def _too_large(self, why: str) -> ResponseTooLarge:
        method, path = self._where
        return ResponseTooLarge(self._status, why, limit=self._limit, method=method, path=path)

    def _unexpected(self, why: str) -> UnexpectedResponse:
        method, path = self._where
        return UnexpectedResponse(self._status, None, why, method=method, path=path)


def read_response(
    http: httpx.Client, request: httpx.Request, auth: httpx.Auth | None, limit: int
) -> httpx.Response:
    """Send ``request`` and read its body within ``limit`` (see :class:`BodyReader`)."""
    response = http.send(request, auth=auth, stream=True)
    try:
        reader = _reader(response, limit)
        try:
            for chunk in response.iter_raw():
                reader.feed(chunk)
        except httpx.StreamConsumed:  # a transport that hands over a body already decoded
            reader = _reader(response, limit, decoded=True)
            reader.feed(response.content)
        return _rebuilt(response, reader.body())
    finally:
        response.close()


async def aread_response(
    http: httpx.AsyncClient, request: httpx.Request, auth: httpx.Auth | None, limit: int
) -> httpx.Response:
    """The asyncio form of :func:`read_response`."""
    response = await http.send(request, auth=auth, stream=True)
    try:
        reader = _reader(response, limit)
        try:
            async for chunk in response.aiter_raw():
                reader.feed(chunk)
        except httpx.StreamConsumed:
            reader = _reader(response, limit, decoded=True)
            reader.feed(response.content)
        return _rebuilt(response, reader.body())
    finally:
        await response.aclose()


def parse_json(content: bytes, where: tuple[str, str], status: int) -> Any:
    """``content`` as JSON (its text when it is not JSON), nested at most
    :data:`MAX_JSON_DEPTH` deep.

    Raises:
        UnexpectedResponse: nested deeper than that.

    Example:
        >>> parse_json(b'{"a": [1]}', ("GET", "/v1/me"), 200)
        {'a': [1]}
        >>> parse_json(b"[" * 300 + b"]" * 300, ("GET", "/v1/me"), 200)
        Traceback (most recent call last):
        ...
        rdskit.errors.UnexpectedResponse: error (HTTP 200) on GET /v1/me: its JSON is nested ...
    """
    try:
        value = json.loads(content)
    except RecursionError:
        value = _TOO_DEEP
    except ValueError:
        return content.decode("utf-8", errors="replace")
    # A depth above the cap needs more containers than the cap: only then is it measured.
    if value is _TOO_DEEP or (
        content.count(b"[") + content.count(b"{") > MAX_JSON_DEPTH
        and _deeper_than(value, MAX_JSON_DEPTH)
    ):
        method, path = where
        raise UnexpectedResponse(
            status,
            None,
            f"its JSON is nested more than {MAX_JSON_DEPTH} levels deep; the service never "
            "sends such documents: check base_url points at the service",
            method=method,
            path=path,
        )
    return value


_TOO_DEEP = object()


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` deep (iterative: no recursion)."""
    if not isinstance(value, dict | list):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def _reader(response: httpx.Response, limit: int, *, decoded: bool = False) -> BodyReader:
    where = (response.request.method, response.request.url.path)
    headers: Mapping[str, str] = {} if decoded else response.headers
    return BodyReader(headers, limit=limit, where=where, status=response.status_code)


def _rebuilt(response: httpx.Response, body: bytes) -> httpx.Response:
    headers = [(k, v) for k, v in response.headers.multi_items() if k not in _ENCODING_HEADERS]
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=body,
        request=response.request,
        extensions={"http_version": response.extensions.get("http_version", b"HTTP/1.1")},
    )
