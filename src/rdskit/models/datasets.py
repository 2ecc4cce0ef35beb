"""Datasets and dataset runs (ISO 8601 timestamps)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal, Self

from pydantic import Discriminator, Field, Tag, model_validator

from rdskit.models._base import OTHER_TAG, IsoDatetime, RdsModel, Waitable, by_tag
from rdskit.models.common import RunStatus
from rdskit.models.vocab import CONTENT_ANALYSIS_ACTIONS, SEARCH_QUERY_TYPES

__all__ = [
    "CONTENT_ANALYSIS_ACTIONS",
    "Dataset",
    "DatasetCreate",
    "DatasetRun",
    "DatasetRunCreate",
    "DatasetRunParams",
    "DatasetUpdate",
    "DateRange",
    "PromptSearchQuery",
    "SearchQuery",
    "UnknownSearchQuery",
    "UrlSearchQuery",
]


class Dataset(RdsModel):
    """A named pool of mentions. Counts, ``updated_at`` and ``url`` are absent on create.

    Example:
        >>> ds = Dataset.model_validate({"id": "ds_1", "name": "oat",
        ...     "created_at": "2026-01-01T00:00:00Z"})
        >>> ds.created_at.tzinfo is not None, ds.mentions_count
        (True, None)
    """

    id: str
    name: str
    created_at: IsoDatetime
    updated_at: IsoDatetime | None = None
    mentions_count: int | None = None
    images_count: int | None = None
    videos_count: int | None = None
    url: str | None = None


class PromptSearchQuery(RdsModel):
    """Search the sources with a natural-language prompt.

    Example:
        >>> PromptSearchQuery(sources=["reddit"], search_query="oat milk").to_wire()
        {'type': 'prompt', 'sources': ['reddit'], 'search_query': 'oat milk'}
    """

    wire_defaults = ("type",)

    type: Literal["prompt"] = "prompt"
    sources: list[str] = Field(min_length=1)
    search_query: str = Field(min_length=1)
    fragments: list[str] | None = None


class UrlSearchQuery(RdsModel):
    """Collect the given post or profile URLs.

    Example:
        >>> UrlSearchQuery(source_urls=["https://www.reddit.com/r/x"]).to_wire()["type"]
        'url'
    """

    wire_defaults = ("type",)

    type: Literal["url"] = "url"
    source_urls: list[str] = Field(min_length=1)


class UnknownSearchQuery(RdsModel):
    """A run's ``search_query`` of a ``type`` this client does not know yet, kept as sent
    (every field is kept; read them with ``model_extra``).

    Example:
        >>> params = DatasetRunParams.model_validate(
        ...     {"search_query": {"type": "hashtag", "hashtag": "oatmilk"}})
        >>> type(params.search_query).__name__, params.search_query.to_wire()
        ('UnknownSearchQuery', {'type': 'hashtag', 'hashtag': 'oatmilk'})
    """

    type: str | None = None


SearchQuery = Annotated[PromptSearchQuery | UrlSearchQuery, Discriminator("type")]
"""A run request's ``search_query``: tagged union on ``type`` (``prompt`` or ``url``)."""

AnySearchQuery = Annotated[
    Annotated[PromptSearchQuery, Tag("prompt")]
    | Annotated[UrlSearchQuery, Tag("url")]
    | Annotated[UnknownSearchQuery, Tag(OTHER_TAG)],
    Discriminator(by_tag("type", SEARCH_QUERY_TYPES)),
]
"""A ``search_query`` the service sends back: a type the spec does not show yet is kept as
an :class:`UnknownSearchQuery` instead of failing the whole response."""


class DateRange(RdsModel):
    """An inclusive collection window, ``{from, to}`` as ``YYYY-MM-DD``.

    Example:
        >>> DateRange.model_validate({"from": "2026-01-01", "to": "2026-01-31"}).to_wire()
        {'from': '2026-01-01', 'to': '2026-01-31'}
    """

    from_: date = Field(alias="from")
    to: date

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.from_ > self.to:
            raise ValueError("date_range.from must not be after date_range.to")
        return self


class _RunOptions(RdsModel):
    """The options a dataset run request sends and a run's ``params`` echoes."""

    count: int | None = Field(default=None, ge=1)
    date_range: DateRange | None = None
    num_comments_per_post: int | None = Field(default=None, ge=0)
    country_code: str | None = None
    language: str | None = None
    enable_visual_recognition: bool | None = None
    enable_transcribing: bool | None = None
    content_analysis_actions: list[str] | None = None


class DatasetRunParams(_RunOptions):
    """The echo of a run's request (``DatasetRun.params``); unsent keys may come back null."""

    search_query: AnySearchQuery | None = None


class DatasetRunCreate(_RunOptions):
    """Body of ``POST /v1/datasets/{id}/runs``.

    Example:
        >>> body = DatasetRunCreate.model_validate({"search_query": {"type": "prompt",
        ...     "sources": ["reddit"], "search_query": "oat milk"}, "count": 50})
        >>> body.to_wire()["search_query"]["type"]
        'prompt'
    """

    search_query: SearchQuery


class DatasetRun(Waitable):
    """One collection run of a dataset; ``wait()`` polls it to ``completed``/``failed``.

    Example:
        >>> run = DatasetRun.model_validate({"id": "dsr_1", "dataset_id": "ds_1",
        ...     "status": {"type": "pending"}, "created_at": "2026-01-01T00:00:00Z"})
        >>> run.status.type
        'pending'
    """

    id: str
    dataset_id: str
    status: RunStatus
    count: int | None = None
    requested_count: int | None = None
    created_at: IsoDatetime
    updated_at: IsoDatetime | None = None
    mentions_count: int | None = None
    images_count: int | None = None
    videos_count: int | None = None
    new_mentions_count: int | None = None
    params: DatasetRunParams | None = None


class DatasetCreate(RdsModel):
    """Body of ``POST /v1/datasets``.

    Example:
        >>> DatasetCreate(name="Oat milk").to_wire()
        {'name': 'Oat milk'}
    """

    name: str


class DatasetUpdate(RdsModel):
    """Body of ``PATCH /v1/datasets/{id}``.

    Example:
        >>> DatasetUpdate(name="Renamed").to_wire()
        {'name': 'Renamed'}
    """

    name: str
