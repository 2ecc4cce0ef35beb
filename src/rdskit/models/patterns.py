"""Pattern detection runs, patterns and pattern items (Unix-second timestamps).

Pattern field names beyond summary, items, title, synopsis, post_count and item_id are
not shown; whatever else arrives is kept.
"""

from __future__ import annotations

from pydantic import Field

from rdskit.models._base import RdsModel, UnixDatetime, Waitable
from rdskit.models.common import RunStatus
from rdskit.models.references import PostOrUnknown

__all__ = [
    "Pattern",
    "PatternDetectionCreate",
    "PatternDetectionRun",
    "PatternItem",
    "PatternItemDetail",
]


class PatternDetectionRun(Waitable):
    """A detection over a dataset; ``pattern_id`` appears once ``completed``.

    Example:
        >>> run = PatternDetectionRun.model_validate({"run_id": "pdr_1", "collection_id": "ds_1",
        ...     "name": "n", "research_question": "q", "created_at": 0,
        ...     "status": {"type": "pending", "steps": []}})
        >>> run.status.type, run.pattern_id
        ('pending', None)
    """

    run_id: str
    collection_id: str
    name: str | None = None
    research_question: str | None = None
    created_at: UnixDatetime | None = None
    status: RunStatus
    pattern_id: str | None = None


class PatternDetectionCreate(RdsModel):
    """Body of ``POST /v1/pattern_detections``.

    Example:
        >>> PatternDetectionCreate(dataset_id="ds_1", name="why",
        ...     research_question="Why?").to_wire()
        {'dataset_id': 'ds_1', 'name': 'why', 'research_question': 'Why?'}
    """

    dataset_id: str
    name: str
    research_question: str


class PatternItem(RdsModel):
    """One recurring pattern: a short title, a synopsis and how many posts show it."""

    item_id: str
    title: str | None = None
    synopsis: str | None = None
    post_count: int | None = None


class Pattern(RdsModel):
    """A detected pattern set (``pt_`` id): a summary plus ``items[]``.

    Example:
        >>> Pattern.model_validate({"id": "pt_1", "summary": "s", "items": [{"item_id": "i1",
        ...     "title": "t", "synopsis": "y", "post_count": 3}]}).items[0].post_count
        3
    """

    id: str | None = None
    summary: str | None = None
    items: list[PatternItem] = Field(default_factory=list)
    # Beyond the spec's list ("not shown"), the detection it came from, as sent:
    run_id: str | None = None
    collection_id: str | None = None
    name: str | None = None
    research_question: str | None = None
    post_count: int | None = None
    created_at: UnixDatetime | None = None


class PatternItemDetail(PatternItem):
    """A pattern item with its constituent posts (resolve them through mentions); a
    pointer of a type this client does not know yet is kept as an ``UnknownReference``."""

    posts: list[PostOrUnknown] = Field(default_factory=list)
