"""Research previews: a billed sample of what a search would collect."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal, Self

from pydantic import BeforeValidator, ConfigDict, Discriminator, Field, model_validator

from rdskit.models._base import RdsModel
from rdskit.models.mentions import AdMeta

__all__ = [
    "PreviewPost",
    "PromptPreviewRequest",
    "ResearchPreview",
    "ResearchPreviewRequest",
    "UrlPreviewRequest",
]


def _date_text(value: Any) -> Any:
    """Dates given as ``date``/``datetime`` are sent as ISO text, ``YYYY-MM-DD``.

    The wire format is not shown; the windows are whole days, as a run's ``date_range``
    (``YYYY-MM-DD``), and the sandbox refuses an instant, so a ``datetime`` is sent as its
    own calendar day (its time of day, in its own time zone, dropped).

    Example:
        >>> _date_text(datetime(2026, 3, 1, 23, 30)), _date_text("2026-03-01")
        ('2026-03-01', '2026-03-01')
    """
    if isinstance(value, datetime):
        value = value.date()
    return value.isoformat() if isinstance(value, date) else value


DateText = Annotated[str, BeforeValidator(_date_text)]


class PreviewPost(RdsModel):
    """One sample post of a preview."""

    position: int | None = None
    source: str | None = None
    url: str | None = None
    author_display_name: str | None = None
    headline: str | None = None
    relative_date: str | None = None
    text: str | None = None
    is_image_available: bool | None = None
    content_type: str | None = None
    ad_meta: AdMeta | None = None


class ResearchPreview(RdsModel):
    """A stored preview; ``url`` previews also report how their profiles resolved.

    Example:
        >>> p = ResearchPreview.model_validate({"preview_id": "rp_1", "type": "prompt",
        ...     "estimated_number_of_results": 1200,
        ...     "posts": [{"position": 1, "source": "reddit"}]})
        >>> p.posts[0].source
        'reddit'
    """

    preview_id: str
    type: str
    estimated_number_of_results: int | None = None
    posts: list[PreviewPost] = Field(default_factory=list)
    profiles: list[Any] | None = None
    failed_to_retrieve_profiles: list[Any] | None = None
    non_existing_profiles: list[Any] | None = None
    private_profiles: list[Any] | None = None


class PromptPreviewRequest(RdsModel):
    """Preview a prompt search; exactly one window: ``time_filter`` or both dates.

    Example:
        >>> PromptPreviewRequest(search_query="oat milk", sources=["tiktok"],
        ...     time_filter="past_month").to_wire()["type"]
        'prompt'
    """

    wire_defaults = ("type",)
    # _one_window as JSON Schema (the sandbox's document): a null field is an absent one.
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["time_filter"],
                    "properties": {
                        "time_filter": {"type": "string"},
                        "date_since": {"type": "null"},
                        "date_until": {"type": "null"},
                    },
                },
                {
                    "required": ["date_since", "date_until"],
                    "properties": {
                        "time_filter": {"type": "null"},
                        "date_since": {"type": "string"},
                        "date_until": {"type": "string"},
                    },
                },
            ]
        }
    )

    type: Literal["prompt"] = "prompt"
    search_query: str = Field(min_length=1)
    sources: list[str] = Field(min_length=1)
    time_filter: str | None = None
    date_since: DateText | None = None
    date_until: DateText | None = None
    language: str | None = None
    country_code: str | None = None

    @model_validator(mode="after")
    def _one_window(self) -> Self:
        dates = (self.date_since is not None, self.date_until is not None)
        if self.time_filter is not None:
            if any(dates):
                raise ValueError("give either time_filter or date_since/date_until, not both")
        elif not any(dates):
            raise ValueError("a time window is required: time_filter, or date_since and date_until")
        elif not all(dates):
            missing = "date_until" if dates[0] else "date_since"
            raise ValueError(f"date_since and date_until go together: {missing} is missing")
        return self


class UrlPreviewRequest(RdsModel):
    """Preview given URLs; the window (``date_filter_since``/``_until``) is optional.

    Example:
        >>> UrlPreviewRequest(source_urls=["https://www.tiktok.com/@brand"]).to_wire()
        {'type': 'url', 'source_urls': ['https://www.tiktok.com/@brand']}
    """

    wire_defaults = ("type",)

    type: Literal["url"] = "url"
    source_urls: list[str] = Field(min_length=1)
    date_filter_since: DateText | None = None
    date_filter_until: DateText | None = None
    language: str | None = None
    country_code: str | None = None


ResearchPreviewRequest = Annotated[PromptPreviewRequest | UrlPreviewRequest, Discriminator("type")]
"""Body of ``POST /v1/research_previews``: tagged union on ``type``."""
