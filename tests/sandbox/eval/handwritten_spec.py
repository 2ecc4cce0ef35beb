"""The shape of a hand-written evaluation question and its expected reading (data only).

A question is read into a :class:`Reading`; the ground truth is computed from the reading
alone, independently of the assistant (``handwritten_truth.py``: pandas over the posts as
``POST /v1/mentions`` returns them). Kinds:

- ``figure``: a measure over the posts matching ``where``: ``count``; ``share`` (numerator
  ``where`` + ``part``, denominator ``where``); ``sum`` / ``mean`` / ``median`` / ``min`` /
  ``max`` of ``metric``; ``authors`` (distinct authors). ``group`` splits it by a dimension
  or a period (``day``/``week``/``month``/``year``); ``top`` keeps the k largest groups
  (``order`` ``asc``: the smallest).
- ``rank``: the ``top`` posts matching ``where`` by ``metric`` (``order``).
- ``list``: posts matching ``where`` quoted (every one cited must match).
- ``theme``: an analysis (complaints, praise, topics...) of the posts matching ``where``;
  checked: the posts in scope.
- ``refuse``: a request the assistant must refuse, naming what to use instead (``topic``).
- ``absent``: data that is not collected (``topic``): said so, no figure.
- ``unknown``: a condition the assistant cannot map (``word``): named, no confident figure.

Filters (``where``/``part``), AND-ed across keys, OR-ed inside a list; a key starting with
``not_`` excludes: ``source``, ``sentiment``, ``emotion``, ``language``, ``country``,
``content_type`` (ad/organic), ``media`` (image/video/none), ``hook``, ``cta`` (a label or
``any``/``none``), ``topic`` (content topic), ``intention``, ``tone``, ``brand``, ``author``
(name), ``keyword`` (any of: a word prefix / phrase of title + text), ``keyword_all``,
``comment`` (a comment body contains the phrase), ``days`` (the last N days counted back
from the newest post in scope), ``month`` (``YYYY-MM``), ``year``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reading:
    """How a question must be read (the expected plan, in the test's own terms)."""

    kind: str
    measure: str = "count"
    metric: str | None = None
    where: Mapping[str, Any] = field(default_factory=dict)
    part: Mapping[str, Any] = field(default_factory=dict)
    group: str | None = None
    top: int | None = None
    order: str = "desc"
    topic: str | None = None
    word: str | None = None
    of: Mapping[str, Any] | None = None  # a count's stated denominator, when checked


@dataclass(frozen=True)
class Question:
    """One hand-written question: who asks, in which language, after which turns."""

    text: str
    readings: tuple[Reading, ...]
    role: str
    lang: str = "en"
    after: tuple[str, ...] = ()
    style: str = "plain"


def count(**where: Any) -> Reading:
    return Reading("figure", "count", where=where)


def share(part: Mapping[str, Any], **where: Any) -> Reading:
    return Reading("figure", "share", where=where, part=part)


def stat(measure: str, metric: str, **where: Any) -> Reading:
    return Reading("figure", measure, metric, where=where)


def authors(**where: Any) -> Reading:
    return Reading("figure", "authors", where=where)


def by(group: str, measure: str = "count", metric: str | None = None, *,
       top: int | None = None, order: str = "desc", part: Mapping[str, Any] | None = None,
       **where: Any) -> Reading:  # fmt: skip
    return Reading("figure", measure, metric, where, part or {}, group, top, order)


def rank(top: int, metric: str, order: str = "desc", **where: Any) -> Reading:
    return Reading("rank", metric=metric, where=where, top=top, order=order)


def listing(**where: Any) -> Reading:
    return Reading("list", where=where)


def theme(name: str, **where: Any) -> Reading:
    return Reading("theme", topic=name, where=where)


def refuse(topic: str) -> Reading:
    return Reading("refuse", topic=topic)


def absent(topic: str) -> Reading:
    return Reading("absent", topic=topic)


def unknown(word: str) -> Reading:
    return Reading("unknown", word=word)


def ask(text: str, *readings: Reading, role: str, lang: str = "en",
        after: tuple[str, ...] | str = (), style: str = "plain") -> Question:  # fmt: skip
    """A question: ``ask("How many posts?", count(), role="student")``."""
    earlier = (after,) if isinstance(after, str) else after
    return Question(text, readings, role, lang, earlier, style)
