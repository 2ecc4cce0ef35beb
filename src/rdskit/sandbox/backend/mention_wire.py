"""A stored mention's text, laid out so that a page of mentions is joined, not re-encoded.

``POST /v1/mentions`` serves every Mention field in model order, then the fields no model
declares. All but six are the stored body's; the six :data:`DERIVED` fields come last
among the model's and are the reader's (``dataset_run_at``, ``datasets``, ``collections``
and ``comments`` from the runs of the datasets asked for; ``parameters`` and
``pattern_assignments`` from their tables). So the writer stores the body
(:func:`stored_body`) as the served text around those six, with the body's own comments
(every run's, merged) in the middle, each part delimited by a raw newline::

    {<every other model field, in order, nulls included>,"comments":
    <the body's comments>
    <,the unknown fields>}

The newline is JSON whitespace, so every other reader (``json_extract``, ``loads``) sees
the same object, and it marks the parts with certainty: JSON text never holds a raw
newline inside a string, and the JSON encoder never writes one, so only this writer does.
A body written otherwise (by an older sandbox) has none: :func:`split` returns None and
the reader renders that one mention from its parsed body. Every part is encoded by
:func:`encode` (pydantic-core, the encoder FastAPI answers a returned dict with), so a
joined mention is byte for byte the encoding of its dict.

Example:
    >>> body = stored_body({"source": "reddit", "id": "1", "new": True, "comments": None})
    >>> head, comments, tail = split(body)
    >>> head[:30], comments, tail
    ('{"source":"reddit","id":"1","c', '[]', ',"new":true}')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from pydantic_core import to_json

from rdskit.models.mentions import Mention

__all__ = [
    "DERIVED",
    "EMPTY_WHEN_NONE",
    "FIELDS",
    "StoredParts",
    "encode",
    "join",
    "split",
    "stored_body",
    "unique",
]

FIELDS = tuple(Mention.model_fields)
"""Every Mention field, in the order the model dumps (and the service serves) them."""

DERIVED = (
    "dataset_run_at",
    "datasets",
    "collections",
    "comments",
    "parameters",
    "pattern_assignments",
)
"""The fields a read fills in, in model order: the last ones of the model."""

if FIELDS[-len(DERIVED) :] != DERIVED:  # pragma: no cover - guards a model edit
    raise RuntimeError(f"Mention must end with {DERIVED}: the stored layout relies on it")

_HEAD = FIELDS[: -len(DERIVED)]
_KNOWN = frozenset(FIELDS)
_COMMENTS = ',"comments":\n'

EMPTY_WHEN_NONE = {
    "media": list,
    "comments": list,
    "datasets": list,
    "collections": list,
    "parameters": dict,
    "pattern_assignments": dict,
}
"""Mention fields sent empty (not null) when the post has none: what the post *is* (its
media, comments, datasets, collections) or a lookup (parameters asked for, pattern items)."""


def encode(value: Any) -> str:
    """Compact JSON text as the API serves it (pydantic-core, like FastAPI's dict answers).

    Example:
        >>> encode({"a": [1, 0.5, "é", None]})
        '{"a":[1,0.5,"é",null]}'
    """
    return to_json(value).decode()


def stored_body(mention: Mapping[str, Any]) -> str:
    """``mention`` (a validated wire dict) as the ``mentions.body`` text (see the module).

    Its derived fields other than ``comments`` are not stored: a read always replaces them.
    """
    head = {}
    for name in _HEAD:
        value = mention.get(name)
        head[name] = EMPTY_WHEN_NONE[name]() if value is None and name in EMPTY_WHEN_NONE else value
    extras = {name: value for name, value in mention.items() if name not in _KNOWN}
    tail = "," + encode(extras)[1:] if extras else "}"
    return f"{encode(head)[:-1]}{_COMMENTS}{encode(mention.get('comments') or [])}\n{tail}"


class StoredParts(NamedTuple):
    """A stored body cut around its derived fields."""

    head: str
    """``{`` and every model field before the derived ones, without a trailing comma."""
    comments: str
    """The body's own comments (a JSON array)."""
    tail: str
    """``,`` and the unknown fields then ``}``, or just ``}``."""


def split(body: str) -> StoredParts | None:
    """The parts of a body :func:`stored_body` wrote; None for a body written otherwise."""
    first = body.find("\n")
    second = body.find("\n", first + 1)
    head = first + 1 - len(_COMMENTS)
    if first < 0 or second < 0 or body[head : first + 1] != _COMMENTS:
        return None
    return StoredParts(body[:head], body[first + 1 : second], body[second + 1 :])


def join(parts: StoredParts, derived: Sequence[str]) -> str:
    """The served mention: ``parts`` around the :data:`DERIVED` fields' JSON text.

    Example:
        >>> parts = split(stored_body({"source": "x", "id": "1", "comments": [{"id": "c"}]}))
        >>> served = join(parts, ["7", "[]", "[]", parts.comments, "{}", "{}"])
        >>> served.endswith(',"dataset_run_at":7,"datasets":[],"collections":[],'
        ...     '"comments":[{"id":"c"}],"parameters":{},"pattern_assignments":{}}')
        True
    """
    if len(derived) != len(DERIVED):
        raise ValueError(f"{len(DERIVED)} derived fields expected, got {len(derived)}")
    return _JOINED.format(parts.head, *derived, parts.tail)


_JOINED = "{}" + "".join(f',"{name}":{{}}' for name in DERIVED) + "{}"


def unique(comments: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``comments`` each once (by ``id``), the first kept: a run's list as stored, or
    several runs' lists, newest first, as a read merges them.

    Example:
        >>> unique([{"id": "c1", "num_likes": 5}, {"id": "c2"}, {"id": "c1", "num_likes": 1}])
        [{'id': 'c1', 'num_likes': 5}, {'id': 'c2'}]
    """
    seen: set[Any] = set()
    out = []
    for comment in comments:
        if comment.get("id") not in seen:
            seen.add(comment.get("id"))
            out.append(comment)
    return out
