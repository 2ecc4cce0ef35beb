"""Request bounds: hostile JSON is answered 413/422 before any route does work.

Every bound the sandbox enforces on a request body is defined here, once: the ASGI
middleware in ``app.py`` calls :func:`check_body`; the MCP endpoint holds a JSON-RPC
message to the same size, encoding and shape bounds (:func:`parse_body`,
:func:`check_shape`) and a tool's arguments to the value bounds (:func:`check_value`);
the published OpenAPI declares the same numbers (:func:`declare_bounds`). No FastAPI
import: the checks are pure functions over bytes and parsed JSON, so they move to a
backend package unchanged.

What is checked, in order (docs/sandbox-internals.md, "Bounds and limits", says why):

- size: more than :data:`MAX_BODY_BYTES` -> 413 ``request_too_large``;
- encoding: invalid UTF-8, malformed JSON, ``NaN``/``Infinity``, nesting deeper than
  :data:`MAX_DEPTH` -> 422 at ``["body"]``;
- shape: more than :data:`MAX_COMMAS` commas or :data:`MAX_NODES` ``{`` and ``[``
  (counted before parsing), or more than :data:`MAX_NODES` values (object members and
  list items counted) ->
  422 at ``["body"]``, found before the rest of the body is looked at, so the walk is
  bounded whatever the body holds;
- values, at their JSON path: a string with a lone surrogate (SQLite and every UTF-8
  writer reject it), a string, list or integer beyond its bound -> 422 naming the field.

Example:
    >>> check_body(b'{"name": "oat"}') is None
    True
    >>> check_body(b'{"name": "x\\\\ud800y"}').items[0]["loc"]
    ['body', 'name']
    >>> check_body(b'{"count": 9223372036854775808}').items[0]["msg"]
    'count must be at most 100000'
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from rdskit._bodies import MAX_REQUEST_BYTES

__all__ = [
    "ANY_VALUE",
    "FIELD_BOUNDS",
    "KEYED_SANDBOX_PATHS",
    "MAX_BODY_BYTES",
    "MAX_COMMAS",
    "MAX_DEPTH",
    "MAX_ID_CHARS",
    "MAX_INT",
    "MAX_LIST_ITEMS",
    "MAX_NODES",
    "MAX_STRING_CHARS",
    "Bound",
    "Rejection",
    "any_value_schema",
    "check_body",
    "check_shape",
    "check_value",
    "declare_bounds",
    "parse_body",
    "surrogate_free",
    "too_large",
    "url_problems",
]

KEYED_SANDBOX_PATHS = ("/sandbox/platforms",)
"""Emulator-only routes that an account's API key opens instead of the admin token (see
:mod:`rdskit.sandbox.api.admin`): checked, rate limited and documented as ``/v1`` is."""

MAX_BODY_BYTES = MAX_REQUEST_BYTES
"""Largest request body (bytes): the client's own bound (:data:`rdskit._bodies.MAX_REQUEST_BYTES`,
which says why a megabyte), so what the client sends the sandbox takes."""

MAX_DEPTH = 32
"""Deepest JSON nesting: the deepest legitimate body (mentions filters) is 6 levels."""

MAX_NODES = 20_000
"""Most values in one body (every object member and list item counts): the biggest
legitimate body (5,000 dataset ids) is far below; a crafted megabyte of ``[[],[],...]``
or ``{"a":0,...}`` holds ~250,000 and is refused after this many steps."""

MAX_COMMAS = 4 * MAX_NODES
"""Most commas in one body, checked before parsing (strings may hold some: 4x the values)."""

MAX_STRING_CHARS = 10_000
"""Longest string in any field without its own bound (instructions, messages)."""

MAX_LIST_ITEMS = 1_000
"""Longest list in any field without its own bound."""

MAX_INT = 2**53 - 1
"""Largest magnitude of any integer without its own bound: exact in every JSON reader
(JavaScript's safe integers) and far inside SQLite's signed 64 bits (2^63 crashed it)."""


@dataclass(frozen=True)
class Bound:
    """The bound of one field name, wherever it appears in a body.

    ``max_length`` applies to a string value, ``max_items`` to a list, ``minimum`` /
    ``maximum`` to a number; ``item`` bounds each string of a list.
    """

    max_length: int | None = None
    max_items: int | None = None
    minimum: int | None = None
    maximum: int | None = None
    item: Bound | None = None


MAX_ID_CHARS = 200
"""Longest identifier (``ds_…``, a post id; ~20 characters in practice), in a body or a path."""

_ID = Bound(max_length=MAX_ID_CHARS)

_MESSAGE = Bound(max_length=8_000)
"""An Ask message: a long question with pasted context."""

FIELD_BOUNDS: dict[str, Bound] = {
    # Names are labels shown in lists: 200 characters is a long sentence.
    "name": Bound(max_length=200),
    "team_name": Bound(max_length=200),
    # q is matched word by word against every post of the scope: 500 characters (~80
    # words) keeps one query to milliseconds; 1M characters cost ~12 s of CPU before.
    "q": Bound(max_length=500),
    # A search prompt or research question is a sentence or a short paragraph.
    "search_query": Bound(max_length=1_000),
    "research_question": Bound(max_length=2_000),
    "instructions": Bound(max_length=5_000),
    "message": _MESSAGE,
    "question": _MESSAGE,  # the MCP query tool's question is an Ask message by another name
    "fragments": Bound(max_items=20, item=Bound(max_length=200)),
    # URLs: 2,048 characters is the common browser limit; 100 URLs per run or preview.
    "source_urls": Bound(max_items=100, item=Bound(max_length=2_048)),
    "sources": Bound(max_items=10),
    # Ids are ~20 characters; 200 is the bound of an id in a path too. Bounding them keeps
    # every list of ids or post refs the schema allows far below MAX_BODY_BYTES.
    "id": _ID,
    "source": Bound(max_length=50),
    "dataset_id": _ID,
    "source_dataset_id": _ID,
    "chat_id": _ID,
    "dataset_ids": Bound(max_items=100, item=_ID),
    "audience_dataset_ids": Bound(max_items=100, item=_ID),
    "parameter_ids": Bound(max_items=50, item=_ID),
    "integration_ids": Bound(max_items=100, item=_ID),
    # Filter groups of a mentions or profiles query: the spec allows 10 filters in total.
    "filters": Bound(max_items=10, item=Bound(max_items=10)),
    "content_analysis_actions": Bound(max_items=20),
    # Mentions per run: the largest plan depth is 10,000; 100,000 leaves head room for
    # plans without a depth cap while keeping a run's generation to seconds.
    "count": Bound(minimum=1, maximum=100_000),
    # Comments per post: posts carry a few hundred comments at most in the corpus.
    "num_comments_per_post": Bound(minimum=0, maximum=500),
    "total_profile_count": Bound(minimum=1, maximum=2_000),
    "limit": Bound(minimum=1, maximum=100),
    # Cursors are opaque tokens the sandbox wrote: a few hundred characters.
    "cursor": Bound(max_length=2_048),
}
"""Per-field bounds by field name (the spec's bounds where it gives one)."""


@dataclass(frozen=True)
class Rejection:
    """Why a body was refused: an HTTP status and the spec's ``{loc, msg, type}`` items."""

    status: int
    items: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""


def _reject(loc: list[str], msg: str, kind: str) -> Rejection:
    return Rejection(422, [{"loc": ["body", *loc], "msg": msg, "type": kind}], msg)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_free(text: str) -> bool:
    """Whether ``text`` can be encoded as UTF-8 (has no lone surrogate).

    Example:
        >>> surrogate_free("oat"), surrogate_free("x\\ud800")
        (True, False)
    """
    return _SURROGATE.search(text) is None


def url_problems(urls: Sequence[str]) -> list[tuple[int, str]]:
    """``(index, reason)`` for every URL that is not an absolute http(s) URL with a host.

    Example:
        >>> url_problems(["https://www.tiktok.com/@maya", "http://["])
        [(1, 'not a valid URL: Invalid IPv6 URL')]
    """
    problems = []
    for index, url in enumerate(urls):
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError as exc:
            problems.append((index, f"not a valid URL: {exc}"))
            continue
        if parts.scheme not in ("http", "https") or not host:
            problems.append((index, "must be an absolute http(s) URL with a host"))
    return problems


def too_large(size: int) -> Rejection:
    """The 413 for a body of ``size`` bytes (or more: a streamed body is cut off early)."""
    return Rejection(413, message=f"The request body exceeds {MAX_BODY_BYTES} bytes ({size}).")


def check_body(raw: bytes) -> Rejection | None:
    """The reason to refuse ``raw`` (a JSON request body), or ``None`` when it is in bounds.

    An empty or non-JSON-looking body is left to the route (FastAPI answers it with 422).
    """
    if not raw.strip():
        return None
    value, rejection = parse_body(raw)
    if rejection is not None:
        return rejection
    # The shape first: a crafted body is refused by its lists' lengths, not walked.
    return check_shape(value) or check_value(value)


def parse_body(raw: bytes) -> tuple[Any, Rejection | None]:
    """``(value, None)`` for a JSON body within the bounds checked before and while it is
    parsed, else ``(None, rejection)``: REST (:func:`check_body`) and MCP
    (``sandbox/mcp_server.py``) share them. The value is then walked by
    :func:`check_value` (a REST body) or :func:`check_shape` (an MCP message).

    Example:
        >>> parse_body(b'[1, 2]')
        ([1, 2], None)
        >>> parse_body(b"[" + b"0," * 90_000 + b"0]")[1].message
        'the body holds more than 80000 commas'
    """
    if len(raw) > MAX_BODY_BYTES:
        return None, too_large(len(raw))
    # Counted in C before anything is parsed: no legitimate body (a few KB) comes near
    # MAX_COMMAS, and a crafted one is refused without a parse or a walk.
    if raw.count(b",") > MAX_COMMAS:
        return None, _reject([], f"the body holds more than {MAX_COMMAS} commas", "too_many_values")
    # Each object or list is a value: more openings than MAX_NODES cannot be in bounds
    # (none of the few KB of a legitimate body's strings come near it).
    if raw.count(b"{") + raw.count(b"[") > MAX_NODES:
        return None, _reject([], f"the body holds more than {MAX_NODES} values", "too_many_values")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, _reject([], f"the body is not valid UTF-8 (byte {exc.start})", "json_invalid")
    try:
        return json.loads(text, parse_constant=_no_constants), None
    except RecursionError:
        return None, _reject([], f"the body nests deeper than {MAX_DEPTH} levels", "json_too_deep")
    except ValueError as exc:
        return None, _reject([], f"the body is not valid JSON: {exc}", "json_invalid")


def check_shape(value: Any) -> Rejection | None:
    """The reason to refuse a parsed body by its shape alone (more than :data:`MAX_NODES`
    values or deeper than :data:`MAX_DEPTH`), or ``None``: what an envelope whose fields
    are not the service's (an MCP JSON-RPC message) is held to. The walk stops at the
    bound, so it costs at most :data:`MAX_NODES` steps whatever the body holds.

    Example:
        >>> check_shape({"params": {"a": [{}] * 30_000}}).message
        'the body holds more than 20000 values'
        >>> check_shape({"params": {"a": [0] * 1_500}}) is None
        True
    """
    # Only containers are stacked; their items are counted by length, so a crafted list
    # is refused before it is looked into and scalars cost nothing each.
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, dict | list) else []
    seen = 1
    while stack:
        node, depth = stack.pop()
        inner = node.values() if isinstance(node, dict) else node
        if inner and depth >= MAX_DEPTH:  # its items are one level deeper
            return _reject([], f"the body nests deeper than {MAX_DEPTH} levels", "json_too_deep")
        seen += len(inner)
        if seen > MAX_NODES:
            return _reject([], f"the body holds more than {MAX_NODES} values", "too_many_values")
        stack.extend((child, depth + 1) for child in inner if isinstance(child, dict | list))
    return None


def check_value(value: Any) -> Rejection | None:
    """The reason to refuse an already parsed body (the MCP tools' arguments), or ``None``.

    The same value bounds as :func:`check_body` (size and encoding aside: the parser has
    dealt with them), reported at the value's path under ``body``.

    Example:
        >>> check_value({"message": "x" * 50_000}).items[0]["msg"]
        'message must be at most 8000 characters'
        >>> check_value({"chat_id": "ch_\\udc00"}).items[0]["loc"]
        ['body', 'chat_id']
        >>> check_value({"message": "How does sentiment split?"}) is None
        True
    """
    return _check_value(value)


def _walk(value: Any) -> Iterator[tuple[list[str], Any, int]]:
    """Every value of a parsed body with its path and depth (iterative: no recursion)."""
    stack: list[tuple[list[str], Any, int]] = [([], value, 1)]
    while stack:
        path, node, depth = stack.pop()
        yield path, node, depth
        if isinstance(node, dict):
            stack.extend(([*path, str(k)], v, depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(([*path, str(i)], v, depth + 1) for i, v in enumerate(node))


def _field(path: list[str]) -> str | None:
    """The field name a value belongs to: the last key that is not a list index."""
    return next((part for part in reversed(path) if not part.isdigit()), None)


def _check_value(value: Any) -> Rejection | None:
    for seen, (path, node, depth) in enumerate(_walk(value), 1):
        if seen > MAX_NODES:
            return _reject([], f"the body holds more than {MAX_NODES} values", "too_many_values")
        if depth > MAX_DEPTH:
            return _reject(path, f"the body nests deeper than {MAX_DEPTH} levels", "json_too_deep")
        name = _field(path)
        label = name or "body"
        bound = FIELD_BOUNDS.get(name or "")
        if bound is not None and path and path[-1].isdigit() and bound.item is not None:
            bound = bound.item  # an element of a bounded list
        elif path and path[-1].isdigit() and isinstance(node, str | int | float):
            bound = None  # list elements without their own bound get the generic ones
        if isinstance(node, dict):
            bad = next((k for k in node if not surrogate_free(k)), None)
            if bad is not None:
                return _reject(path, "a key holds a lone surrogate (not UTF-8)", "string_unicode")
            continue
        problem = _problem(label, node, bound)
        if problem is not None:
            return _reject(path, *problem)
    return None


def _problem(label: str, node: Any, bound: Bound | None) -> tuple[str, str] | None:
    """``(msg, type)`` when ``node`` breaks its bound (or the generic one)."""
    if isinstance(node, str):
        limit = bound.max_length if bound and bound.max_length else MAX_STRING_CHARS
        if len(node) > limit:
            return f"{label} must be at most {limit} characters", "string_too_long"
        if not surrogate_free(node):
            return f"{label} holds a lone surrogate (not UTF-8)", "string_unicode"
    elif isinstance(node, list):
        limit = bound.max_items if bound and bound.max_items else MAX_LIST_ITEMS
        if len(node) > limit:
            return f"{label} must have at most {limit} items", "too_long"
    elif isinstance(node, bool) or node is None:
        return None
    elif isinstance(node, int):
        high = bound.maximum if bound and bound.maximum is not None else MAX_INT
        low = bound.minimum if bound and bound.minimum is not None else -MAX_INT
        if node > high:
            return f"{label} must be at most {high}", "less_than_equal"
        if node < low:
            return f"{label} must be at least {low}", "greater_than_equal"
    elif isinstance(node, float) and not math.isfinite(node):
        return f"{label} must be a finite number", "finite_number"  # 1e999 parses as inf
    return None


# -- OpenAPI ------------------------------------------------------------------------
def declare_bounds(schema: dict[str, Any], name: str | None = None) -> None:
    """Write the bounds into a JSON schema (in place), field by field.

    Generic bounds go on every string, list and integer; :data:`FIELD_BOUNDS` tightens
    them by property name (``name``: the field the schema itself describes, e.g. a query
    parameter), so a generator produces only what the sandbox accepts. Unknown fields
    (``additionalProperties: true``) become :data:`ANY_VALUE` (:func:`any_value_schema`).
    """
    _declare(schema, name)


ANY_VALUE = "JsonValue"
"""Component name of :func:`any_value_schema` in the published document."""


def any_value_schema(ref: str) -> dict[str, Any]:
    """The JSON schema of any value within the generic bounds; ``ref`` points at itself.

    What a body may hold in a field the request model does not name (unknown fields are
    accepted, the spec's "not shown" rule): any JSON value whose strings, lists and
    integers keep the generic bounds :func:`check_value` enforces.

    Example:
        >>> any_value_schema("#/components/schemas/JsonValue")["anyOf"][2]
        {'type': 'string', 'maxLength': 10000}
    """
    # One branch per JSON type: a schema without "type" made hypothesis-jsonschema build
    # every type at every level (24 GB generating one tracking agent body).
    return {
        "anyOf": [
            {"type": "null"},
            {"type": "boolean"},
            {"type": "string", "maxLength": MAX_STRING_CHARS},
            {"type": "integer", "minimum": -MAX_INT, "maximum": MAX_INT},
            # Only integers are bounded (check_value): a fraction or 1e300 is any finite
            # number; the bound stated here was not enforced (the fuzz: accepted 9e307).
            {"type": "number"},
            {"type": "array", "maxItems": MAX_LIST_ITEMS, "items": {"$ref": ref}},
            {"type": "object", "additionalProperties": {"$ref": ref}},
        ]
    }


def _declare(node: Any, name: str | None, *, item: bool = False) -> None:
    if isinstance(node, list):
        for child in node:
            _declare(child, name, item=item)
        return
    if not isinstance(node, dict):
        return
    bound = FIELD_BOUNDS.get(name or "")
    if item:
        bound = bound.item if bound else None
    kind = node.get("type")
    if kind == "string" and "enum" not in node and "const" not in node:
        node.setdefault(
            "maxLength", bound.max_length if bound and bound.max_length else MAX_STRING_CHARS
        )
    elif kind == "array":
        node.setdefault(
            "maxItems", bound.max_items if bound and bound.max_items else MAX_LIST_ITEMS
        )
    elif kind == "integer":
        high = bound.maximum if bound and bound.maximum is not None else MAX_INT
        low = bound.minimum if bound and bound.minimum is not None else -MAX_INT
        node["maximum"] = min(node.get("maximum", high), high)
        node["minimum"] = max(node.get("minimum", low), low)
    # A "number" gets no bound: check_value bounds integers only (any finite float passes).
    for key, child in (node.get("properties") or {}).items():
        _declare(child, key)
    if isinstance(node.get("items"), dict):
        _declare(node["items"], name, item=True)
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in node:
            _declare(node[combinator], name, item=item)
    if isinstance(node.get("additionalProperties"), dict):
        _declare(node["additionalProperties"], None)
    elif node.get("additionalProperties") is True:
        node["additionalProperties"] = {"$ref": f"#/components/schemas/{ANY_VALUE}"}
