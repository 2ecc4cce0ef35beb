"""Typed filters of mentions and profiles queries, and their normalisation.

A query's ``filters`` is a list of groups: groups are OR-ed, filters inside a group are
AND-ed, at most 10 filters in total. :func:`normalize_filters` accepts friendlier shapes
(one filter, a flat list, a list of groups; models or dicts) and returns the wire form.
Filter types the spec does not show are kept as :class:`UnknownFilter`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from rdskit.models._base import OTHER_TAG, RdsModel, by_tag
from rdskit.models.vocab import EMOTIONS
from rdskit.models.vocab import SENTIMENTS as SENTIMENTS

__all__ = [
    "DOMINANT_EMOTIONS",
    "FILTER_MODELS",
    "MAX_FILTERS",
    "METRIC_CHANGE_METRICS",
    "METRIC_CHANGE_OPERATORS",
    "SENTIMENTS",
    "BrandMatch",
    "ContentIntentionFilter",
    "ContentTopicFilter",
    "CountryCodeFilter",
    "CreatorTierFilter",
    "CtaFilter",
    "DominantEmotionFilter",
    "Filter",
    "FilterGroups",
    "HasMediaFilter",
    "HookFilter",
    "IsVerifiedFilter",
    "KeywordFilter",
    "MentionedBrandsFilter",
    "MetricChangeFilter",
    "SentimentFilter",
    "SourceFilter",
    "ToneOfVoiceFilter",
    "UnknownFilter",
    "normalize_filters",
]

MAX_FILTERS = 10
"""At most this many filters per query, across all groups."""

DOMINANT_EMOTIONS = EMOTIONS
METRIC_CHANGE_METRICS = ("likes", "views", "comments", "engagement_rate")
METRIC_CHANGE_OPERATORS = ("greater_than", "less_than", "in_range", "changed_by")

# Static spellings of the vocabulary for type checkers (tests/unit/test_vocab.py keeps them
# equal to rdskit.models.vocab).
Sentiment = Literal["negative", "neutral", "positive"]
Emotion = Literal["neutral", "joy", "sadness", "anger", "surprise", "fear", "disgust"]
Number = int | float

_COUNTRY_CODE = re.compile(r"[A-Z]{2}")
_KEYWORD = re.compile(r"[ \t\n\r]*[^ \t\n\r]+([ \t\n\r]+[^ \t\n\r]+)?[ \t\n\r]*")
"""One or two words separated by spaces, tabs or line breaks (the pattern the document
states: explicit characters, which every regex engine reads alike, unlike ``\\s``)."""


class _TypedFilter(RdsModel):
    """A filter: its ``type`` tag is always written, even when left at its default."""

    wire_defaults: ClassVar[tuple[str, ...]] = ("type",)


class KeywordFilter(_TypedFilter):
    """Text contains (``is``) or lacks (``is_not``) a keyword of at most 2 words.

    Example:
        >>> KeywordFilter(value="oat milk").to_wire()
        {'type': 'keyword', 'operator': 'is', 'value': 'oat milk'}
    """

    wire_defaults = ("type", "operator")

    type: Literal["keyword"] = "keyword"
    operator: Literal["is", "is_not"] = "is"
    value: str = Field(json_schema_extra={"pattern": f"^{_KEYWORD.pattern}$"})

    @field_validator("value")
    @classmethod
    def _at_most_two_words(cls, value: str) -> str:
        if not _KEYWORD.fullmatch(value):
            words = len(value.split())
            raise ValueError(f"keyword filter value must have 1 or 2 words, got {words}")
        return value


class SentimentFilter(_TypedFilter):
    """Overall sentiment is one of ``values``.

    Example:
        >>> SentimentFilter(values=["negative"]).to_wire()
        {'type': 'sentiment', 'values': ['negative']}
    """

    type: Literal["sentiment"] = "sentiment"
    values: list[Sentiment] = Field(min_length=1)


class MetricChangeFilter(_TypedFilter):
    """A metric compared or changed; fields beyond metric and operator are not shown,
    so ``value``/``min``/``max`` are a best guess and other keys are kept as given.

    Example:
        >>> MetricChangeFilter(metric="likes", operator="greater_than", value=100).to_wire()
        {'type': 'metric_change', 'metric': 'likes', 'operator': 'greater_than', 'value': 100}
    """

    type: Literal["metric_change"] = "metric_change"
    metric: Literal["likes", "views", "comments", "engagement_rate"]
    operator: Literal["greater_than", "less_than", "in_range", "changed_by"]
    value: Number | None = None
    min: Number | None = None
    max: Number | None = None


class SourceFilter(_TypedFilter):
    """Mention source is one of ``values``.

    Example:
        >>> SourceFilter(values=["reddit"]).to_wire()
        {'type': 'source', 'values': ['reddit']}
    """

    type: Literal["source"] = "source"
    values: list[str] = Field(min_length=1)


class _AnyOfFilter(_TypedFilter):
    """Shape shared by the analysis filters: ``{operator: any_of, values[]}``."""

    wire_defaults = ("type", "operator")

    type: str  # each subclass narrows it to its Literal tag; declared here for field order
    operator: Literal["any_of"] = "any_of"
    values: list[str] = Field(min_length=1)


class ContentTopicFilter(_AnyOfFilter):
    """Any of the content topics.

    Example:
        >>> ContentTopicFilter(values=["recipes"]).to_wire()
        {'type': 'content_topic', 'operator': 'any_of', 'values': ['recipes']}
    """

    type: Literal["content_topic"] = "content_topic"


class ContentIntentionFilter(_AnyOfFilter):
    """Any of the content intentions.

    Example:
        >>> ContentIntentionFilter(values=["review"]).to_wire()["type"]
        'content_intention'
    """

    type: Literal["content_intention"] = "content_intention"


class ToneOfVoiceFilter(_AnyOfFilter):
    """Any of the tones of voice.

    Example:
        >>> ToneOfVoiceFilter(values=["humorous"]).to_wire()["type"]
        'tone_of_voice'
    """

    type: Literal["tone_of_voice"] = "tone_of_voice"


class HookFilter(_AnyOfFilter):
    """Any of the hook types.

    Example:
        >>> HookFilter(values=["question"]).to_wire()["type"]
        'hook'
    """

    type: Literal["hook"] = "hook"


class CtaFilter(_AnyOfFilter):
    """Any of the calls to action.

    Example:
        >>> CtaFilter(values=["buy now"]).to_wire()["type"]
        'cta'
    """

    type: Literal["cta"] = "cta"


class BrandMatch(RdsModel):
    """The nested operator of a mentioned-brands filter: ``{type, values | value}``."""

    wire_defaults = ("type",)
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {
                    "required": ["values"],
                    "properties": {"values": {"type": "array", "minItems": 1}},
                },
                {
                    "required": ["value"],
                    "properties": {"value": {"type": "string", "minLength": 1}},
                },
            ]
        }
    )

    type: Literal["any_of", "equals", "contains"] = "any_of"
    values: list[str] | None = None
    value: str | None = None

    @model_validator(mode="after")
    def _has_operand(self) -> Self:
        if not self.values and not self.value:
            raise ValueError("mentioned_brands operator needs 'values' or 'value'")
        return self


class MentionedBrandsFilter(_TypedFilter):
    """Mentioned brands match ``operator``.

    Example:
        >>> MentionedBrandsFilter(operator={"type": "contains", "value": "oat"}).to_wire()
        {'type': 'mentioned_brands', 'operator': {'type': 'contains', 'value': 'oat'}}
    """

    type: Literal["mentioned_brands"] = "mentioned_brands"
    operator: BrandMatch


class CountryCodeFilter(_TypedFilter):
    """Country is one of ``values`` (uppercase ISO 3166-1 alpha-2).

    Example:
        >>> CountryCodeFilter(values=["US", "GB"]).to_wire()
        {'type': 'country_code', 'values': ['US', 'GB']}
    """

    type: Literal["country_code"] = "country_code"
    values: list[Annotated[str, Field(json_schema_extra={"pattern": "^[A-Z]{2}$"})]] = Field(
        min_length=1
    )

    @field_validator("values")
    @classmethod
    def _iso_alpha2(cls, values: list[str]) -> list[str]:
        bad = [code for code in values if not _COUNTRY_CODE.fullmatch(code)]
        if bad:
            raise ValueError(f"country codes must be uppercase ISO 3166-1 alpha-2, got {bad}")
        return values


class HasMediaFilter(_TypedFilter):
    """Mention has (or lacks) media.

    Example:
        >>> HasMediaFilter(value=True).to_wire()
        {'type': 'has_media', 'value': True}
    """

    type: Literal["has_media"] = "has_media"
    value: bool


class DominantEmotionFilter(_TypedFilter):
    """Dominant emotion is one of ``values``.

    Example:
        >>> DominantEmotionFilter(values=["joy"]).to_wire()
        {'type': 'dominant_emotion', 'values': ['joy']}
    """

    type: Literal["dominant_emotion"] = "dominant_emotion"
    values: list[Emotion] = Field(min_length=1)


class CreatorTierFilter(_TypedFilter):
    """Profile creator tier is one of ``values`` (profiles query).

    Example:
        >>> CreatorTierFilter(values=["micro"]).to_wire()
        {'type': 'creator_tier', 'values': ['micro']}
    """

    type: Literal["creator_tier"] = "creator_tier"
    values: list[str] = Field(min_length=1)


class IsVerifiedFilter(_TypedFilter):
    """Profile is (or is not) verified (profiles query).

    Example:
        >>> IsVerifiedFilter(value=False).to_wire()
        {'type': 'is_verified', 'value': False}
    """

    type: Literal["is_verified"] = "is_verified"
    value: bool


class UnknownFilter(RdsModel):
    """A filter type the spec does not show: kept as given (every key is an extra)."""

    type: str


FILTER_MODELS: dict[str, type[RdsModel]] = {
    "keyword": KeywordFilter,
    "sentiment": SentimentFilter,
    "metric_change": MetricChangeFilter,
    "source": SourceFilter,
    "content_topic": ContentTopicFilter,
    "content_intention": ContentIntentionFilter,
    "tone_of_voice": ToneOfVoiceFilter,
    "hook": HookFilter,
    "cta": CtaFilter,
    "mentioned_brands": MentionedBrandsFilter,
    "country_code": CountryCodeFilter,
    "has_media": HasMediaFilter,
    "dominant_emotion": DominantEmotionFilter,
    "creator_tier": CreatorTierFilter,
    "is_verified": IsVerifiedFilter,
}
"""The model of each filter type the spec shows, by ``type``."""

Filter = Annotated[
    Annotated[KeywordFilter, Tag("keyword")]
    | Annotated[SentimentFilter, Tag("sentiment")]
    | Annotated[MetricChangeFilter, Tag("metric_change")]
    | Annotated[SourceFilter, Tag("source")]
    | Annotated[ContentTopicFilter, Tag("content_topic")]
    | Annotated[ContentIntentionFilter, Tag("content_intention")]
    | Annotated[ToneOfVoiceFilter, Tag("tone_of_voice")]
    | Annotated[HookFilter, Tag("hook")]
    | Annotated[CtaFilter, Tag("cta")]
    | Annotated[MentionedBrandsFilter, Tag("mentioned_brands")]
    | Annotated[CountryCodeFilter, Tag("country_code")]
    | Annotated[HasMediaFilter, Tag("has_media")]
    | Annotated[DominantEmotionFilter, Tag("dominant_emotion")]
    | Annotated[CreatorTierFilter, Tag("creator_tier")]
    | Annotated[IsVerifiedFilter, Tag("is_verified")]
    | Annotated[UnknownFilter, Tag(OTHER_TAG)],
    Discriminator(by_tag("type", FILTER_MODELS)),
]
"""Any filter: tagged union on ``type``, unknown types fall back to :class:`UnknownFilter`."""

_FILTER = TypeAdapter(Filter)


def _is_group(item: Any) -> bool:
    return isinstance(item, Sequence) and not isinstance(item, str | bytes)


def _as_groups(filters: Any) -> list[Sequence[Any]]:
    """Split the accepted input shapes into groups (before any validation)."""
    if isinstance(filters, RdsModel | Mapping):
        return [[filters]]
    if not _is_group(filters):
        raise ValueError(
            f"filters must be a filter, a list of filters or a list of groups, "
            f"got {type(filters).__name__}"
        )
    nested = [_is_group(item) for item in filters]
    if all(nested):
        return list(filters)
    if any(nested):
        raise ValueError("filters mixes single filters and groups; use a list of groups")
    return [filters]


def normalize_filters(filters: Any) -> list[list[dict[str, Any]]]:
    """The wire form of ``filters``: a list of OR-ed groups of AND-ed filter dicts.

    Accepts ``None`` (no filters), one filter, a flat list (one AND-group) or a list of
    groups; each filter a model or a dict. Each filter is validated; more than
    ``MAX_FILTERS`` in total raises ``ValueError``. Idempotent on its own output.

    Example:
        >>> from rdskit import filters as f
        >>> normalize_filters([[f.sentiment("negative")], [f.keyword("oat milk")]])
        [[{'type': 'sentiment', 'values': ['negative']}], [{'type': 'keyword', 'operator': 'is', 'value': 'oat milk'}]]
    """  # noqa: E501
    return _normalized(filters, strict=False)


def _normalized(filters: Any, *, strict: bool) -> list[list[dict[str, Any]]]:
    if filters is None:
        return []
    if strict and not (_is_group(filters) and all(map(_is_group, filters))):
        raise ValueError("filters must be a list of groups (lists of filters)")
    groups = _as_groups(filters)
    total = sum(len(group) for group in groups)
    if total > MAX_FILTERS:
        raise ValueError(f"filters: at most {MAX_FILTERS} filters in total, got {total}")
    wire: list[list[dict[str, Any]]] = []
    for g, group in enumerate(groups):
        if not group:
            raise ValueError(f"filters[{g}]: a group needs at least one filter")
        wire.append(
            [_validated(item, f"filters[{g}][{i}]", strict) for i, item in enumerate(group)]
        )
    return wire


def _validated(item: Any, where: str, strict: bool) -> dict[str, Any]:
    if isinstance(item, RdsModel):
        item = item.to_wire()
    try:
        model: RdsModel = _FILTER.validate_python(item, strict=strict)
    except ValidationError as exc:
        # Re-raised as ValueError so a query model reports it under its ``filters`` field;
        # loc[0] is the union tag, the rest is the path inside the filter.
        problems = "; ".join(
            ".".join([where, *map(str, err["loc"][1:])])
            + ": "
            + err["msg"].removeprefix("Value error, ")
            for err in exc.errors()
        )
        raise ValueError(problems) from None
    return model.to_wire()


def _query_filters(filters: Any, info: ValidationInfo) -> list[list[dict[str, Any]]]:
    """A query model's ``filters``: any shape :func:`normalize_filters` accepts, or, when
    validated with the context ``{"strict": True}`` (the sandbox reading a request), only
    the wire form, each value of its JSON type (``{"type": "has_media", "value": 0}``
    refused, not read as false)."""
    return _normalized(filters, strict=bool(info.context and info.context.get("strict")))


FilterGroups = Annotated[list[list[dict[str, Any]]], BeforeValidator(_query_filters)]
"""A query's ``filters`` field: any shape :func:`normalize_filters` accepts, held as wire
groups (only the wire form, strictly, under the context ``{"strict": True}``)."""
