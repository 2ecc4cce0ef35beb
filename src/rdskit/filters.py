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

from typing import Any, Literal

from rdskit.models.filters import (
    BrandMatch,
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
    return KeywordFilter(operator="is_not" if exclude else "is", value=value)


def sentiment(*values: str) -> SentimentFilter:
    """Overall sentiment is one of ``values`` (positive, negative, neutral).

    Example:
        >>> sentiment("negative", "neutral").values
        ['negative', 'neutral']
    """
    return SentimentFilter.model_validate({"values": list(values)})


def metric_change(metric: str, operator: str, **kw: Any) -> MetricChangeFilter:
    """A metric (likes, views, comments, engagement_rate) compared with ``operator``
    (greater_than, less_than, in_range, changed_by); ``kw`` gives the operands.

    Example:
        >>> metric_change("views", "in_range", min=1000, max=5000).to_wire()["max"]
        5000
    """
    return MetricChangeFilter.model_validate({"metric": metric, "operator": operator, **kw})


def source(*values: str) -> SourceFilter:
    """Mention source is one of ``values``.

    Example:
        >>> source("reddit").values
        ['reddit']
    """
    return SourceFilter(values=list(values))


def content_topic(*values: str) -> ContentTopicFilter:
    """Any of the content topics.

    Example:
        >>> content_topic("recipes").operator
        'any_of'
    """
    return ContentTopicFilter(values=list(values))


def content_intention(*values: str) -> ContentIntentionFilter:
    """Any of the content intentions.

    Example:
        >>> content_intention("review").values
        ['review']
    """
    return ContentIntentionFilter(values=list(values))


def tone_of_voice(*values: str) -> ToneOfVoiceFilter:
    """Any of the tones of voice.

    Example:
        >>> tone_of_voice("humorous").values
        ['humorous']
    """
    return ToneOfVoiceFilter(values=list(values))


def hook(*values: str) -> HookFilter:
    """Any of the hook types.

    Example:
        >>> hook("question").values
        ['question']
    """
    return HookFilter(values=list(values))


def cta(*values: str) -> CtaFilter:
    """Any of the calls to action.

    Example:
        >>> cta("shop now").values
        ['shop now']
    """
    return CtaFilter(values=list(values))


def mentioned_brands(
    *values: str, match: Literal["any_of", "equals", "contains"] = "any_of"
) -> MentionedBrandsFilter:
    """Mentioned brands match: ``any_of`` the values, or ``equals``/``contains`` one value
    (several values are sent as ``values``).

    Example:
        >>> mentioned_brands("oatly", match="contains").to_wire()
        {'type': 'mentioned_brands', 'operator': {'type': 'contains', 'value': 'oatly'}}
    """
    if match != "any_of" and len(values) == 1:
        operator = BrandMatch(type=match, value=values[0])
    else:
        operator = BrandMatch(type=match, values=list(values))
    return MentionedBrandsFilter(operator=operator)


def country_code(*codes: str) -> CountryCodeFilter:
    """Country is one of ``codes`` (ISO 3166-1 alpha-2, uppercased for you).

    Example:
        >>> country_code("us", "GB").values
        ['US', 'GB']
    """
    return CountryCodeFilter(values=[code.upper() for code in codes])


def has_media(value: bool = True) -> HasMediaFilter:
    """Mention has media (or lacks it with ``False``).

    Example:
        >>> has_media().value
        True
    """
    return HasMediaFilter(value=value)


def dominant_emotion(*values: str) -> DominantEmotionFilter:
    """Dominant emotion is one of ``values`` (joy, sadness, anger, fear, surprise, disgust,
    neutral).

    Example:
        >>> dominant_emotion("joy").values
        ['joy']
    """
    return DominantEmotionFilter.model_validate({"values": list(values)})


def creator_tier(*values: str) -> CreatorTierFilter:
    """Profile creator tier is one of ``values`` (profiles query).

    Example:
        >>> creator_tier("micro", "macro").values
        ['micro', 'macro']
    """
    return CreatorTierFilter(values=list(values))


def is_verified(value: bool = True) -> IsVerifiedFilter:
    """Profile is verified (or not, with ``False``) (profiles query).

    Example:
        >>> is_verified(False).value
        False
    """
    return IsVerifiedFilter(value=value)
