"""Shapes shared by several resources: media, run status, post refs, envelopes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from rdskit.models._base import RdsModel, parse_datetime
from rdskit.models.vocab import SOURCES

__all__ = [
    "SOURCES",
    "Envelope",
    "ListEnvelope",
    "Media",
    "MediaVersion",
    "Order",
    "PostRef",
    "RunStatus",
    "RunStep",
]


Order = Literal["asc", "desc"]
"""Sort direction of list endpoints and queries."""

T = TypeVar("T")


class MediaVersion(RdsModel):
    """One rendition of a media object."""

    url: str | None = None
    width: int | None = None
    height: int | None = None


class Media(RdsModel):
    """A media object (mention media, author and profile avatars).

    Example:
        >>> Media.model_validate({"type": "image", "version_list": [{"url": "u", "width": 1,
        ...     "height": 1}], "description": None}).version_list[0].url
        'u'
    """

    type: str | None = None
    version_list: list[MediaVersion] | None = None
    description: str | None = None


class RunStep(RdsModel):
    """One pipeline step of a run's status (field names are not shown by the spec).

    Step timestamps keep their wire value as sent (the encoding is not shown either);
    ``started`` / ``finished`` read them as UTC datetimes.
    """

    name: str | None = None
    status: str | None = None
    started_at: str | int | float | None = None
    finished_at: str | int | float | None = None

    @property
    def started(self) -> datetime | None:
        """``started_at`` as a tz-aware UTC datetime (or None)."""
        started: datetime | None = parse_datetime(self.started_at)
        return started

    @property
    def finished(self) -> datetime | None:
        """``finished_at`` as a tz-aware UTC datetime (or None)."""
        finished: datetime | None = parse_datetime(self.finished_at)
        return finished


class RunStatus(RdsModel):
    """A run's ``status`` object: ``{type, steps}``; ``type`` is kept as sent.

    Example:
        >>> RunStatus.model_validate({"type": "pending"}).type
        'pending'
    """

    type: str
    steps: list[RunStep] | None = None
    # Not shown by the spec: why a failed run failed, which the sandbox sends; any value a
    # service sends is kept as sent (the client shows it only when it is text).
    reason: Any = None


class PostRef(RdsModel):
    """A ``{id, source}`` pointer to a post (Ask context, mentions lookup, previews).

    Example:
        >>> PostRef(source="reddit", id="t3_abc").to_wire()
        {'id': 't3_abc', 'source': 'reddit'}
    """

    id: str
    source: str


class Envelope(RdsModel, Generic[T]):
    """The success envelope ``{status, data}``.

    Example:
        >>> Envelope[PostRef].model_validate({"status": "success",
        ...     "data": {"id": "a", "source": "reddit"}}).data.id
        'a'
    """

    status: str
    data: T


class ListEnvelope(RdsModel, Generic[T]):
    """A list response: ``{status, data: [...], has_next, cursor}``.

    Example:
        >>> page = ListEnvelope[PostRef].model_validate({"status": "success", "data": [],
        ...     "has_next": False, "cursor": None})
        >>> page.has_next, page.cursor
        (False, None)
    """

    status: str
    data: list[T]
    has_next: bool = False
    cursor: str | None = None
