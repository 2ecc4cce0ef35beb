"""Mentions (collected posts, Unix-second timestamps) and the mentions query.

Every field but ``source`` and ``id`` is optional: responses omit the fields whose
analysis did not run. Scores the wire sends as strings stay strings, so a model echoes
the wire exactly; ``as_floats()`` / ``*_value`` give numbers.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from rdskit.models._base import IsoDatetime, RdsModel, UnixDatetime
from rdskit.models.common import Media, Order, PostRef
from rdskit.models.filters import FilterGroups

__all__ = [
    "MENTION_SORTS",
    "AdMeta",
    "CollectionTag",
    "Comment",
    "DatasetTag",
    "Emotions",
    "Hook",
    "Mention",
    "MentionAuthor",
    "MentionsQuery",
    "ParameterValue",
    "PatternAssignment",
    "SentimentScores",
    "Sound",
    "TextEvidence",
]

MENTION_SORTS = (
    "date",
    "likes",
    "engagement_rate",
    "views",
    "comments",
    "shares",
    "sentiment_score",
    "dataset_run_at",
)
"""The sorts of ``POST /v1/mentions``."""

# Fields whose JSON type the spec does not show: keep whatever scalar arrives.
Scalar = str | int | float | bool | None


def _number(text: str | None) -> float | None:
    """A wire numeric string as float; None when absent or not a number."""
    try:
        return None if text is None else float(text)
    except ValueError:
        return None


class AdMeta(RdsModel):
    """Ad metadata of an ad post (also on research preview posts); every field optional."""

    advertiser_id: Scalar = None
    advertiser_name: str | None = None
    landing_url: str | None = None
    display_format: str | None = None
    collation_id: Scalar = None
    is_active: bool | None = None
    ended_at: Scalar = None
    publisher_platforms: list[str] | None = None
    cta_text: str | None = None
    cta_type: str | None = None
    eu_reach: Scalar = None
    advertiser_avatar_url: str | None = None
    duration_sec: Scalar = None
    creative_group_key: Scalar = None
    product_category: str | None = None
    creative_format: str | None = None
    advertiser_page_alias: str | None = None
    advertiser_likes: Scalar = None
    advertiser_category: str | None = None
    advertiser_verified: bool | None = None
    advertiser_ig_username: str | None = None
    advertiser_ig_followers: Scalar = None
    advertiser_ig_verified: bool | None = None


class MentionAuthor(RdsModel):
    """The post's author as shown on the post."""

    avatar: Media | None = None
    title: str | None = None
    title_url: str | None = None
    headline: str | None = None
    headline_url: str | None = None


class Sound(RdsModel):
    """A post's sound; ``url`` is the platform's sound page, not an audio file."""

    name: str | None = None
    author: str | None = None
    cover_image_url: str | None = None
    url: str | None = None


class _NumericStrings(RdsModel):
    """Scores sent as strings; ``as_floats()`` reads them as numbers."""

    def as_floats(self) -> dict[str, float | None]:
        """Every score as a float (None when absent or not numeric).

        Example:
            >>> SentimentScores(negative="0.1", neutral="0.2", positive="0.7").as_floats()
            {'negative': 0.1, 'neutral': 0.2, 'positive': 0.7}
        """
        return {name: _number(getattr(self, name)) for name in type(self).model_fields}


class SentimentScores(_NumericStrings):
    """``{negative, neutral, positive}`` as the wire's strings."""

    negative: str | None = None
    neutral: str | None = None
    positive: str | None = None


class Emotions(_NumericStrings):
    """The seven emotion scores as the wire's strings."""

    neutral: str | None = None
    joy: str | None = None
    sadness: str | None = None
    anger: str | None = None
    surprise: str | None = None
    fear: str | None = None
    disgust: str | None = None


class TextEvidence(RdsModel):
    """An analysis value with the post text supporting it."""

    text: str | None = None
    evidence: str | None = None


class Hook(RdsModel):
    """An opening hook: its type and text."""

    type: str | None = None
    text: str | None = None


class DatasetTag(RdsModel):
    """A dataset the mention belongs to."""

    id: str
    name: str | None = None


class CollectionTag(RdsModel):
    """A collection the mention belongs to."""

    uid: str
    name: str | None = None


class Comment(RdsModel):
    """A comment collected with the post; its ``created_at`` is an ISO 8601 string."""

    id: str
    author_username: str | None = None
    author_name: str | None = None
    body: str | None = None
    num_likes: int | None = None
    num_replies: int | None = None
    created_at: IsoDatetime | None = None


class ParameterValue(RdsModel):
    """A custom parameter's value on a mention; ``status`` ``pending`` is seen."""

    value: Any = None
    status: str | None = None
    computed_at: UnixDatetime | None = None


class PatternAssignment(RdsModel):
    """The mention's membership in a pattern item."""

    pattern_item_id: str
    name: str | None = None
    confidence: float | None = None


class Mention(RdsModel):
    """A collected post; ``(source, id)`` identifies it.

    Example:
        >>> m = Mention.model_validate({"source": "reddit", "id": "t3_a", "created_at": 1767225600,
        ...     "sentiment_score": "0.42", "sentiment": {"negative": "0.1", "neutral": "0.2",
        ...     "positive": "0.7"}})
        >>> m.sentiment_score_value, m.created_at.year, m.to_wire()["sentiment_score"]
        (0.42, 2026, '0.42')
    """

    source: str
    id: str
    content_type: str | None = None
    ad_meta: AdMeta | None = None
    ad_flight_days: int | None = None
    ad_flight_seconds: int | None = None
    author: MentionAuthor | None = None
    title: str | None = None
    text: str | None = None
    url: str | None = None
    language: str | None = None
    country_code: str | None = None
    summary: str | None = None
    category: str | None = None
    content_intention: str | None = None
    speech_tempo: str | None = None
    music_genre: str | None = None
    media: list[Media] | None = None
    sound: Sound | None = None
    num_views: int | None = None
    num_likes: int | None = None
    num_comments: int | None = None
    num_shares: int | None = None
    are_views_estimated: bool | None = None
    engagement_rate: str | None = None
    sentiment_score: str | None = None
    sentiment: SentimentScores | None = None
    emotions: Emotions | None = None
    tone_of_voice: TextEvidence | None = None
    narrative_structure: TextEvidence | None = None
    cta: TextEvidence | None = None
    content_topics: list[TextEvidence] | None = None
    questions: list[TextEvidence] | None = None
    hooks: list[Hook] | None = None
    vibe: dict[str, float] | None = None
    mentioned_brands: list[str] | None = None
    entities: list[str] | None = None
    created_at: UnixDatetime | None = None
    dataset_run_at: UnixDatetime | None = None
    datasets: list[DatasetTag] | None = None
    collections: list[CollectionTag] | None = None
    comments: list[Comment] | None = None
    parameters: dict[str, ParameterValue] | None = None
    pattern_assignments: dict[str, list[PatternAssignment]] | None = None

    @property
    def ref(self) -> PostRef:
        """The ``{id, source}`` pointer to this post."""
        return PostRef(id=self.id, source=self.source)

    @property
    def engagement_rate_value(self) -> float | None:
        """``engagement_rate`` as a float."""
        return _number(self.engagement_rate)

    @property
    def sentiment_score_value(self) -> float | None:
        """``sentiment_score`` as a float."""
        return _number(self.sentiment_score)


class MentionsQuery(RdsModel):
    """Body of ``POST /v1/mentions``; ``filters`` accepts any shape
    :func:`~rdskit.models.filters.normalize_filters` does and holds the wire groups.

    Example:
        >>> q = MentionsQuery(dataset_ids=["ds_1"], filters=[{"type": "has_media", "value": True}],
        ...     sort="likes")
        >>> q.to_wire()["filters"]
        [[{'type': 'has_media', 'value': True}]]
    """

    dataset_ids: list[str] | None = None
    sources: list[str] | None = None
    filters: FilterGroups | None = None
    q: str | None = None
    search_mode: str | None = None
    operation: str | None = None
    sort: str | None = None
    order: Order | None = None
    limit: int | None = Field(default=None, ge=1)
    cursor: str | None = None
    parameter_ids: list[str] | None = None
    post_refs: list[PostRef] | None = None
