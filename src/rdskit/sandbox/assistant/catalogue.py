"""What the assistant can filter, group and measure: derived from the Mention model.

Every field of :class:`rdskit.models.mentions.Mention` (the core model the frames' column
catalogue also reads) is askable by the rule its type gives, so a field added there
becomes askable here without a second list (the sandbox does not import the frames
layer, see ``tests/test_layers.py``):

- a *metric* is a number: an ``int`` field (``num_views`` -> "views", ``num_likes``,
  ``ad_flight_days``...), a decimal sent as a string (``engagement_rate``,
  ``sentiment_score``: names ending ``_rate`` / ``_score``), a number of ``ad_meta`` or of
  a comment (``comment_likes``): sum, mean, median, min and max;
- a *dimension* is a label: a short text field (``language``, ``country_code``,
  ``content_intention``...), a yes/no field, the ``text`` of a text-with-evidence field
  (``tone_of_voice``, ``cta``), a list of labels (``hooks[].type``,
  ``content_topics[].text``, ``mentioned_brands``), the dominant label of a score object
  (``sentiment``, ``emotions``; ties: neutral), the author's name, an ``ad_meta`` text;
  the media types are the dimension ``media``;
- free text (``title``, ``text``, ``summary``, ``questions``, urls, ids) is searched with
  keywords, and comment bodies with the ``comment`` condition.

A :class:`Table` holds, per post of a scope, the value of every dimension and metric,
read once from the posts as ``POST /v1/mentions`` returns them (the frame a plan runs
over; see :mod:`rdskit.sandbox.assistant.figures`).

Example:
    >>> METRICS["views"].path, DIMENSIONS["tone"].path, DIMENSIONS["hook"].multi
    (('num_views',), ('tone_of_voice', 'text'), True)
    >>> row = values_of({"source": "reddit", "id": "1", "language": "en",
    ...                  "sentiment": {"negative": "0.7", "neutral": "0.2", "positive": "0.1"}})
    >>> row["sentiment"], row["language"], row["source"]
    (('negative',), ('en',), ('reddit',))
"""

from __future__ import annotations

import itertools
import re
import types
import typing
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from rdskit.models.mentions import Comment, Mention
from rdskit.sandbox.synth.enrichment import dominant

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
_FREE_TEXT = re.compile(r"(^|_)(id|url|evidence)$|^(title|text|summary|questions|avatar)$")
_NUMERIC_TEXT = re.compile(r"_(rate|score)$")  # decimals the wire sends as strings
_SKIP = frozenset(
    {
        "datasets",
        "collections",
        "parameters",
        "pattern_assignments",
        "vibe",
        "created_at",
        "dataset_run_at",
        "media",
        "comments",
    }
)
# How a field is named in a question (beyond the words of its name); why: "country_code"
# is said "country", "cta" is said "call to action".
_SAID = {
    "source": ("source", "platform", "network", "site"),
    "content_type": ("content type", "type of content", "ads vs organic", "ad or organic"),
    "country_code": ("country", "countries", "location"),
    "content_intention": ("content intention", "intention", "intent", "purpose", "post type"),
    "tone_of_voice": ("tone of voice", "tone"),
    "narrative_structure": ("narrative structure", "narrative"),
    "cta": ("call to action", "calls to action", "cta"),
    "hooks": ("hook type", "hook"),
    "content_topics": ("content topic", "topic"),
    "mentioned_brands": ("brand",),
    "emotions": ("dominant emotion", "emotion"),
    "sentiment": ("sentiment", "mood"),
    "author": ("author", "creator", "poster", "account"),
    "language": ("language",),
    "category": ("category",),
    "music_genre": ("music genre", "genre"),
    "speech_tempo": ("speech tempo", "tempo"),
    "entities": ("entity", "entities"),
}
# Short names a plan uses for the dimensions questions name most (the field otherwise).
_SHORT = {
    "country_code": "country",
    "content_intention": "intention",
    "tone_of_voice": "tone",
    "hooks": "hook",
    "content_topics": "topic",
    "mentioned_brands": "brand",
    "emotions": "emotion",
}
_METRIC_SAID = {
    "num_views": ("views", "view count", "view", "vistas"),
    "num_likes": ("likes", "like"),
    "num_comments": ("comments", "comment count"),
    "num_shares": ("shares", "share count"),
    "engagement_rate": ("engagement rate",),
    "sentiment_score": ("sentiment score",),
    "comment_num_likes": (
        "comment likes",
        "likes did the comments get",
        "likes of comments",
        "likes per comment",
        "likes a comment got",
        "likes a single comment got",
        "likes on a comment",
        "likes on comments",
        "likes of a comment",
        "likes a comment gets",
        "comment got the most likes",
        "comment has the most likes",
        "comment received the most likes",
        "comment with the most likes",
        "most liked comment",
        "most-liked comment",
        "comment got the fewest likes",
    ),
    "comment_num_replies": ("comment replies", "replies per comment", "replies to comments"),
}
# The key a nested model is read by: its label field.
_LABEL_FIELD = {"TextEvidence": "text", "Hook": "type", "MentionAuthor": "title", "Sound": "name"}
_DOMINANT = frozenset({"SentimentScores", "Emotions"})


@dataclass(frozen=True)
class Dimension:
    """A label a post carries (read at ``path``; ``[]`` steps into a list): filter and
    group on it; ``dominant`` labels are the largest share of a score object."""

    name: str
    path: tuple[str, ...]
    said: tuple[str, ...]
    multi: bool = False
    dominant: bool = False


@dataclass(frozen=True)
class Metric:
    """A number a post (or its comments) carries: sum, mean, median, min, max."""

    name: str
    path: tuple[str, ...]
    said: tuple[str, ...]
    comments: bool = False
    parts: tuple[str, ...] = ()
    """A composite metric's parts (their sum), as the spec defines it: ``engagement`` is
    likes + comments + shares. A post without any of them has no value."""

    @property
    def described(self) -> str:
        """How a read-as line names the metric ("engagement (likes + comments + shares)").

        >>> METRICS["engagement"].described, METRICS["engagement_rate"].described
        ('engagement (likes + comments + shares)', 'engagement rate')
        """
        name = self.name.replace("_", " ")
        return f"{name} ({' + '.join(self.parts)})" if self.parts else name


def _words(name: str) -> str:
    return name.removeprefix("num_").replace("_", " ")


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """(inner type, is a list) of an optional / list annotation."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return _unwrap(args[0]) if args else (annotation, False)
    if typing.get_origin(annotation) is list:
        return args[0], True
    return annotation, False


def _model_fields(model: type[BaseModel], prefix: str = "") -> Iterable[tuple[str, Any]]:
    for name, info in model.model_fields.items():
        yield prefix + name, info.annotation


def _catalogue() -> tuple[dict[str, Dimension], dict[str, Metric]]:
    dims: dict[str, Dimension] = {}
    metrics: dict[str, Metric] = {}

    def dimension(name: str, path: tuple[str, ...], multi: bool = False, top: bool = False) -> None:
        short = _SHORT.get(name, name)
        said = _SAID.get(name, (_words(name),))
        dims[short] = Dimension(short, path, said, multi, top)

    def metric(name: str, path: tuple[str, ...], comments: bool = False) -> None:
        short = (
            name.removeprefix("num_")
            if not comments
            else f"comment_{path[-1].removeprefix('num_')}"
        )
        said = _METRIC_SAID.get(name, (_words(short),))
        metrics[short] = Metric(short, path, said, comments)

    for name, annotation in _model_fields(Mention):
        if name in _SKIP or _FREE_TEXT.search(name):
            continue
        inner, many = _unwrap(annotation)
        if inner is int or inner is float or (inner is str and _NUMERIC_TEXT.search(name)):
            metric(name, (name,))
        elif inner is str or inner is bool:
            dimension(name, (name,), many)
        elif isinstance(inner, type) and issubclass(inner, BaseModel):
            kind = inner.__name__
            if kind in _DOMINANT:
                dimension(name, (name,), top=True)
            elif kind in _LABEL_FIELD:
                step = (name, "[]", _LABEL_FIELD[kind]) if many else (name, _LABEL_FIELD[kind])
                dimension(name, step, many)
            elif name == "ad_meta":
                for sub, sub_annotation in _model_fields(inner):
                    sub_inner, sub_many = _unwrap(sub_annotation)
                    if _FREE_TEXT.search(sub):
                        continue
                    if sub_inner is int or sub_inner is float:
                        metric(f"ad_{sub}", ("ad_meta", sub))
                    elif sub_inner in (str, bool):
                        dimension(f"ad_{sub}", ("ad_meta", sub), sub_many)
    for name, annotation in _model_fields(Comment):
        if _unwrap(annotation)[0] is int:
            metric(f"comment_{name}", (name,), comments=True)
    for name, (path, said) in _DERIVED.items():
        dims[name] = Dimension(name, path, said, multi=name in _MULTI_DERIVED)
    parts = ("likes", "comments", "shares")
    if all(part in metrics for part in parts):  # the spec's engagement, never one of its parts
        metrics["engagement"] = Metric("engagement", (), _COMPOSITE_SAID, parts=parts)
        for pair in itertools.combinations(parts, 2):  # "likes plus comments (no shares)"
            name = "_plus_".join(pair)
            metrics[name] = Metric(name, (), _sum_said(*pair), parts=pair)
    return dims, metrics


def _sum_said(first: str, second: str) -> tuple[str, ...]:
    """How a question names the sum of two of engagement's parts, in either order.

    >>> _sum_said("likes", "shares")[:3]
    ('likes plus shares', 'likes + shares', 'likes+shares')
    """
    return tuple(
        f"{a}{joint}{b}"
        for a, b in ((first, second), (second, first))
        for joint in (" plus ", " + ", "+")
    )


_DERIVED = {
    "dataset": (("datasets", "[]", "name"), ("dataset", "data set", "collection")),
    "weekday": (("created_at",), ("day of the week", "day of week", "weekday")),
    "hour": (("created_at",), ("hour of the day", "hour of day", "time of day", "hour")),
    "hashtag": (("title", "text"), ("hashtag",)),
}
"""Dimensions derived from a Mention's fields: the datasets a post is in (by name: a
question names them, and compares them), the UTC weekday and hour of ``created_at``, the
hashtags its title and text use (lower-cased, each once: "#FYP" is "#fyp")."""
HASHTAG = re.compile(r"(?<![\w#])#([^\W_][\w-]*)")
"""A hashtag as written in a post or a question ("#boardgamenight"; "C#" is none)."""
_MULTI_DERIVED = frozenset({"dataset", "hashtag"})
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _derived(name: str, post: Post) -> tuple[str, ...]:
    if name == "dataset":
        return _labels(_read(post, DIMENSIONS[name].path))
    if name == "hashtag":
        return tuple(dict.fromkeys(f"#{tag}" for tag in HASHTAG.findall(text_of(post))))
    stamp = post.get("created_at")
    if not isinstance(stamp, (int, float)) or isinstance(stamp, bool):
        return ()
    moment = datetime.fromtimestamp(float(stamp), UTC)
    return (_WEEKDAYS[moment.weekday()],) if name == "weekday" else (f"{moment.hour:02d}",)


_COMPOSITE_SAID = (
    "engagement",
    "engagements",
    "total engagement",
    "interactions",
    "interaction",
    "engagement (likes + comments + shares)",
    "likes plus comments plus shares",
)
"""How a question names the spec's engagement (likes + comments + shares)."""


DIMENSIONS, METRICS = _catalogue()
"""Askable dimensions and metrics, by plan name (derived from the Mention model)."""


# --- reading the values of a post -------------------------------------------------------


def _read(value: Any, path: Sequence[str]) -> Any:
    for index, step in enumerate(path):
        if step == "[]":
            items = value if isinstance(value, list) else []
            return [_read(item, path[index + 1 :]) for item in items]
        if not isinstance(value, Mapping):
            return None
        value = value.get(step)
    return value


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
    row: dict[str, Any] = {}
    for dim in DIMENSIONS.values():
        if dim.name in _DERIVED:
            row[dim.name] = _derived(dim.name, post)
            continue
        raw = _read(post, dim.path)
        if dim.dominant:
            raw = dominant(raw) if isinstance(raw, Mapping) and raw else None
        row[dim.name] = _labels(raw)
    types_ = tuple(dict.fromkeys(m.get("type") for m in post.get("media") or [] if m.get("type")))
    row["media"] = types_ or ("none",)
    for metric in METRICS.values():
        if metric.comments:
            continue
        if metric.parts:
            values = [row[part] for part in metric.parts if row.get(part) is not None]
            row[metric.name] = sum(values) if values else None
            continue
        raw = _read(post, metric.path)
        try:
            row[metric.name] = None if raw is None or isinstance(raw, bool) else float(raw)
        except (TypeError, ValueError):
            row[metric.name] = None
    return row


def text_of(post: Post) -> str:
    """Title and text, lower-cased: what keywords search (as ``q`` does)."""
    return f"{post.get('title') or ''}\n{post.get('text') or ''}".lower()


T = TypeVar("T")


@dataclass
class Table:
    """The scope's posts with their values, read once (the frame a plan runs over)."""

    posts: Sequence[Post]
    rows: list[dict[str, Any]] = field(init=False)
    texts: list[str] = field(init=False)
    comments: list[list[Post]] = field(init=False)
    _vocab: dict[str, dict[str, str]] = field(init=False, default_factory=dict)
    _derived: dict[Hashable, Any] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.rows = [values_of(post) for post in self.posts]
        self.texts = [text_of(post) for post in self.posts]
        self.comments = [list(post.get("comments") or ()) for post in self.posts]

    def derived(self, key: Hashable, make: Callable[[], T]) -> T:
        """What the reader derives from these posts (phrases, spelling targets, the
        planner's vocabulary), made once per table under ``key``: a cached table serves
        every question of its dataset until the dataset changes."""
        if key not in self._derived:
            self._derived[key] = make()
        return cast(T, self._derived[key])

    def newest(self) -> float:
        """The newest post's ``created_at`` (0 without posts): the anchor of every period
        a question names ("last week", "since 5 March", "this month")."""
        return self.derived(
            "newest",
            lambda: max((float(p.get("created_at") or 0) for p in self.posts), default=0.0),
        )

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
