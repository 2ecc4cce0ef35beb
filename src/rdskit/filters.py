"""Friendly builders for mentions and profiles query filters.

Each builder returns the typed filter model; pass one filter, a list (AND) or a list of
lists (OR of ANDs) as ``filters=`` and the query normalises it
(:func:`rdskit.models.normalize_filters`).

Example:
    >>> from rdskit import filters as f
    >>> f.keyword("oat milk", exclude=True).to_wire()
    {'type': 'keyword', 'operator': 'is_not', 'value': 'oat milk'}
    >>> [f.sentiment("negative"), f.source("tiktok", "reddit")]  # doctest: +ELLIPSIS
    [SentimentFilter(...), SourceFilter(...)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from rdskit.models.filters import (
    ContentIntentionFilter,
    ContentTopicFilter,
    CountryCodeFilter,
    CreatorTierFilter,
    CtaFilter,
    DominantEmotionFilter,
    HasMediaFilter,
    HookFilter,
    IsVerifiedFilter,
    KeywordFilter,
    MentionedBrandsFilter,
    MetricChangeFilter,
    SentimentFilter,
    SourceFilter,
    ToneOfVoiceFilter,
)
from rdskit.resources._resource import validated

F = TypeVar("F", bound=Any)

__all__ = [
    "content_intention",
    "content_topic",
    "country_code",
    "creator_tier",
    "cta",
    "dominant_emotion",
    "has_media",
    "hook",
    "is_verified",
    "keyword",
    "mentioned_brands",
    "metric_change",
    "sentiment",
    "source",
    "tone_of_voice",
]


def keyword(value: str, exclude: bool = False) -> KeywordFilter:
    """Text contains ``value`` (1 or 2 words), or lacks it with ``exclude=True``.

    Example:
        >>> keyword("oat milk").operator
        'is'
    """
    return _build(KeywordFilter, dict(operator="is_not" if exclude else "is", value=value))


def sentiment(*values: str) -> SentimentFilter:
    """Overall sentiment is one of ``values`` (positive, negative, neutral).

    Example:
        >>> sentiment("negative", "neutral").values
        ['negative', 'neutral']
    """
    return _build(SentimentFilter, {"values": list(values)})


def metric_change(metric: str, operator: str, **kw: Any) -> MetricChangeFilter:
    """A metric (likes, views, comments, engagement_rate) compared with ``operator``
    (greater_than, less_than, in_range, changed_by); ``kw`` gives the operands.

    Example:
        >>> metric_change("views", "in_range", min=1000, max=5000).to_wire()["max"]
        5000
    """
    return _build(MetricChangeFilter, {"metric": metric, "operator": operator, **kw})


def source(*values: str) -> SourceFilter:
    """Mention source is one of ``values``.

    Example:
        >>> source("reddit").values
        ['reddit']
    """
    return _build(SourceFilter, dict(values=list(values)))


def content_topic(*values: str) -> ContentTopicFilter:
    """Any of the content topics.

    Example:
        >>> content_topic("recipes").operator
        'any_of'
    """
    return _build(ContentTopicFilter, dict(values=list(values)))


def content_intention(*values: str) -> ContentIntentionFilter:
    """Any of the content intentions.

    Example:
        >>> content_intention("review").values
        ['review']
    """
    return _build(ContentIntentionFilter, dict(values=list(values)))


def tone_of_voice(*values: str) -> ToneOfVoiceFilter:
    """Any of the tones of voice.

    Example:
        >>> tone_of_voice("humorous").values
        ['humorous']
    """
    return _build(ToneOfVoiceFilter, dict(values=list(values)))


def hook(*values: str) -> HookFilter:
    """Any of the hook types.

    Example:
        >>> hook("question").values
        ['question']
    """
    return _build(HookFilter, dict(values=list(values)))


def cta(*values: str) -> CtaFilter:
    """Any of the calls to action.

    Example:
        >>> cta("shop now").values
        ['shop now']
    """
    return _build(CtaFilter, dict(values=list(values)))


def mentioned_brands(
    *values: str, match: Literal["any_of", "equals", "contains"] = "any_of"
) -> MentionedBrandsFilter:
    """Mentioned brands match: ``any_of`` the values, or ``equals``/``contains`` one value
    (several values are sent as ``values``).

    Example:
        >>> mentioned_brands("oatly", match="contains").to_wire()
        {'type': 'mentioned_brands', 'operator': {'type': 'contains', 'value': 'oatly'}}
    """
    operator: dict[str, Any]
    if match != "any_of" and len(values) == 1:
        operator = {"type": match, "value": values[0]}
    else:
        operator = {"type": match, "values": list(values)}
    return _build(MentionedBrandsFilter, {"operator": operator})


def country_code(*codes: str) -> CountryCodeFilter:
    """Country is one of ``codes`` (ISO 3166-1 alpha-2, uppercased for you).

    Example:
        >>> country_code("us", "GB").values
        ['US', 'GB']
    """
    return _build(
        CountryCodeFilter, dict(values=[c.upper() if isinstance(c, str) else c for c in codes])
    )


def has_media(value: bool = True) -> HasMediaFilter:
    """Mention has media (or lacks it with ``False``).

    Example:
        >>> has_media().value
        True
    """
    return _build(HasMediaFilter, dict(value=value))


def dominant_emotion(*values: str) -> DominantEmotionFilter:
    """Dominant emotion is one of ``values`` (joy, sadness, anger, fear, surprise, disgust,
    neutral).

    Example:
        >>> dominant_emotion("joy").values
        ['joy']
    """
    return _build(DominantEmotionFilter, {"values": list(values)})


def creator_tier(*values: str) -> CreatorTierFilter:
    """Profile creator tier is one of ``values`` (profiles query).

    Example:
        >>> creator_tier("micro", "macro").values
        ['micro', 'macro']
    """
    return _build(CreatorTierFilter, dict(values=list(values)))


def is_verified(value: bool = True) -> IsVerifiedFilter:
    """Profile is verified (or not, with ``False``) (profiles query).

    Example:
        >>> is_verified(False).value
        False
    """
    return _build(IsVerifiedFilter, dict(value=value))


def _build(model: type[F], fields: Mapping[str, Any]) -> F:
    """The filter ``model`` of ``fields``, or :class:`~rdskit.InvalidParameter` naming the
    filter and the field (never pydantic's own error)."""
    kind = model.model_fields["type"].default
    built: F = validated(model, dict(fields), field=str(kind))
    return built
