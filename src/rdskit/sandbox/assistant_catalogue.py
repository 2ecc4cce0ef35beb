"""What the assistant can filter, group and measure: derived from the column catalogue.

Every column of :data:`rdskit.frames.columns.MENTIONS` is askable by the rule its type
gives, so a column added there becomes askable here without a second list:

- a *metric* is a number column (``num_views`` -> "views", ``engagement_rate``,
  ``sentiment_score``, ...) and each number column of the comments frame
  (``comment_likes``): sum, mean, median, min and max;
- a *dimension* is a label column (category or short text: ``source``, ``language``,
  ``country_code``, ``content_intention``, ``tone_of_voice``, ``cta_text``, ``sentiment``,
  ``dominant_emotion``, ``author_title``...) or a list of labels (``hook_types``,
  ``topics``, ``mentioned_brands``): filter on it, group by it;
- free text (``title``, ``text``, ``*_evidence``, urls, ids) is searched with keywords, and
  comment bodies with the ``comment`` dimension.

A :class:`Table` holds, per post of a scope, the value of every dimension and metric,
read once from the posts as ``POST /v1/mentions`` returns them (the frame the plan runs
over; see :mod:`rdskit.sandbox.assistant_figures`).

Example:
    >>> METRICS["views"].column, DIMENSIONS["tone"].column, DIMENSIONS["hook"].multi
    ('num_views', 'tone_of_voice', True)
    >>> row = values_of({"source": "reddit", "id": "1", "language": "en",
    ...                  "sentiment": {"negative": "0.7", "neutral": "0.2", "positive": "0.1"}})
    >>> row["sentiment"], row["language"], row["source"]
    (('negative',), ('en',), ('reddit',))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from rdskit.frames import columns
from rdskit.sandbox.text.enrichment import dominant

__all__ = [
    "DIMENSIONS",
    "METRICS",
    "Dimension",
    "Metric",
    "Table",
    "text_of",
    "values_of",
]

Post = Mapping[str, Any]

# Free text and identifiers: searched (keywords), never a dimension.
_FREE_TEXT = re.compile(r"(^|_)(id|url|evidence)$|^(title|text|summary)$")
# How a column is named in a question (beyond the words of its name); why: "country_code"
# is said "country", "cta_text" is said "call to action".
_SAID = {
    "source": ("source", "platform", "network", "site"),
    "content_type": ("content type", "type of content", "ads vs organic", "ad or organic"),
    "country_code": ("country", "countries", "location"),
    "content_intention": ("content intention", "intention", "intent", "purpose", "post type"),
    "tone_of_voice": ("tone of voice", "tone"),
    "narrative_structure": ("narrative structure", "narrative"),
    "cta_text": ("call to action", "calls to action", "cta"),
    "hook_types": ("hook type", "hook"),
    "topics": ("content topic", "topic"),
    "mentioned_brands": ("brand",),
    "dominant_emotion": ("dominant emotion", "emotion"),
    "sentiment": ("sentiment", "mood"),
    "author_title": ("author", "creator", "poster"),
    "language": ("language",),
    "category": ("category",),
    "music_genre": ("music genre", "genre"),
    "speech_tempo": ("speech tempo", "tempo"),
    "sound_name": ("sound",),
    "entities": ("entity", "entities"),
}
# Short names a plan uses for the dimensions questions name most (the column otherwise).
_SHORT = {
    "country_code": "country",
    "content_intention": "intention",
    "tone_of_voice": "tone",
    "cta_text": "cta",
    "hook_types": "hook",
    "topics": "topic",
    "mentioned_brands": "brand",
    "dominant_emotion": "emotion",
    "author_title": "author",
}
_METRIC_SAID = {
    "num_views": ("views", "view count", "view", "vistas"),
    "num_likes": ("likes", "like"),
    "num_comments": ("comments", "comment count"),
    "num_shares": ("shares", "share count"),
    "engagement_rate": ("engagement rate",),
    "sentiment_score": ("sentiment score",),
    "comment_num_likes": ("comment likes", "likes did the comments get", "likes of comments"),
}


@dataclass(frozen=True)
class Dimension:
    """A label a post carries: filter and group on it."""

    name: str
    column: str
    said: tuple[str, ...]
    multi: bool = False


@dataclass(frozen=True)
class Metric:
    """A number a post (or its comments) carries: sum, mean, median, min, max."""

    name: str
    column: str
    said: tuple[str, ...]
    comments: bool = False


def _words(name: str) -> str:
    return name.removeprefix("num_").replace("_", " ")


def _is_label(column: columns.Column) -> bool:
    arrow = column.arrow
    if column.name in ("created_at", "dataset_run_at") or _FREE_TEXT.search(column.name):
        return False
    return bool(
        pa.types.is_dictionary(arrow)
        or pa.types.is_string(arrow)
        or pa.types.is_boolean(arrow)
        or (pa.types.is_list(arrow) and pa.types.is_string(arrow.value_type))
    )


def _is_number(arrow: pa.DataType) -> bool:
    return bool(pa.types.is_integer(arrow) or pa.types.is_floating(arrow))


def _catalogue() -> tuple[dict[str, Dimension], dict[str, Metric]]:
    dims: dict[str, Dimension] = {}
    metrics: dict[str, Metric] = {}
    for column in columns.MENTIONS.columns:
        if _is_number(column.arrow):
            name = column.name.removeprefix("num_")
            said = _METRIC_SAID.get(column.name, (_words(column.name),))
            metrics[name] = Metric(name, column.name, said)
        elif _is_label(column):
            name = _SHORT.get(column.name, column.name)
            said = _SAID.get(column.name, (_words(column.name),))
            dims[name] = Dimension(name, column.name, said, pa.types.is_list(column.arrow))
    for column in columns.COMMENTS.columns:
        if _is_number(column.arrow) and column.name.startswith("num_"):
            wire = f"comment_{column.name}"
            name = f"comment_{column.name.removeprefix('num_')}"
            said = _METRIC_SAID.get(wire, (_words(name),))
            metrics[name] = Metric(name, column.name, said, comments=True)
    return dims, metrics


DIMENSIONS, METRICS = _catalogue()
"""Askable dimensions and metrics, by plan name (derived from the column catalogue)."""


# --- reading the values of a post -------------------------------------------------------


def _path(post: Post, column: columns.Column) -> Any:
    value: Any = post
    for step in column.source.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(step)
    return value


def _derived(post: Post) -> dict[str, Any]:
    """The derived columns the catalogue names, computed as the frame loader does."""
    sentiment = post.get("sentiment")
    emotions = post.get("emotions")
    media = post.get("media") or []
    return {
        "sentiment": dominant(sentiment) if sentiment else None,
        "dominant_emotion": dominant(emotions) if emotions else None,
        "hook_types": [h.get("type") for h in post.get("hooks") or [] if h.get("type")],
        "topics": [t.get("text") for t in post.get("content_topics") or [] if t.get("text")],
        "has_media": bool(media),
        "media_count": len(media),
    }


_DERIVED_NAMES = frozenset(_derived({}))


def _labels(value: Any) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, bool):
        return ("true" if value else "false",)
    if isinstance(value, list):
        return tuple(str(v) for v in value if v not in (None, ""))
    return (str(value),)


def values_of(post: Post) -> dict[str, Any]:
    """Every dimension (a tuple of labels, as written) and metric (a float or None) of a post.

    Media types are the dimension ``media`` (``image``/``video``; ``none`` without media).
    """
    derived = _derived(post)
    row: dict[str, Any] = {}
    for dim in DIMENSIONS.values():
        column = columns.MENTIONS[dim.column]
        raw = derived[dim.column] if column.name in _DERIVED_NAMES else _path(post, column)
        row[dim.name] = _labels(raw)
    types = tuple(dict.fromkeys(m.get("type") for m in post.get("media") or [] if m.get("type")))
    row["media"] = types or ("none",)
    for metric in METRICS.values():
        if metric.comments:
            continue
        column = columns.MENTIONS[metric.column]
        raw = derived[column.name] if column.name in _DERIVED_NAMES else _path(post, column)
        try:
            row[metric.name] = None if raw is None or isinstance(raw, bool) else float(raw)
        except (TypeError, ValueError):
            row[metric.name] = None
    return row


def text_of(post: Post) -> str:
    """Title and text, lower-cased: what keywords search (as ``q`` does)."""
    return f"{post.get('title') or ''}\n{post.get('text') or ''}".lower()


@dataclass
class Table:
    """The scope's posts with their values, read once (the frame a plan runs over)."""

    posts: Sequence[Post]
    rows: list[dict[str, Any]] = field(init=False)
    texts: list[str] = field(init=False)
    comments: list[list[Post]] = field(init=False)
    _vocab: dict[str, dict[str, str]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.rows = [values_of(post) for post in self.posts]
        self.texts = [text_of(post) for post in self.posts]
        self.comments = [list(post.get("comments") or ()) for post in self.posts]

    def labels(self, dimension: str) -> dict[str, str]:
        """The dimension's values in the data: lower-cased -> as written."""
        if dimension not in self._vocab:
            found: dict[str, str] = {}
            for row in self.rows:
                for value in row.get(dimension, ()):
                    found.setdefault(value.lower(), value)
            self._vocab[dimension] = found
        return self._vocab[dimension]

    def select(self, test: Callable[[int], bool], within: Iterable[int] | None = None) -> list[int]:
        """Indices of the rows passing ``test`` (among ``within``, else all)."""
        return [i for i in (range(len(self.rows)) if within is None else within) if test(i)]
