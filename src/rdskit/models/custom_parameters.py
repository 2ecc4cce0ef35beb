"""Custom parameters (extraction rules) and their runs (Unix-second timestamps)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field

from rdskit.models._base import RdsModel, UnixDatetime, Waitable
from rdskit.models.common import PostRef, RunStatus

__all__ = [
    "SCOPE_KINDS",
    "CustomParameter",
    "CustomParameterCreate",
    "CustomParameterPreview",
    "CustomParameterPreviewRequest",
    "CustomParameterRun",
    "CustomParameterRunCreate",
    "CustomParameterRunStarted",
    "CustomParameterUpdate",
    "PreviewValue",
    "RunScope",
]

SCOPE_KINDS = ("dataset",)
"""Run scope kinds the spec shows; other kinds are kept as given."""


def _non_empty(name: str) -> str:
    if not name.strip():
        raise ValueError("name must not be empty")
    return name


NonEmptyName = Annotated[str, AfterValidator(_non_empty)]


class CustomParameter(RdsModel):
    """A named extraction rule whose values land on mentions under its id.

    Example:
        >>> CustomParameter.model_validate({"id": "cp_1", "name": "price", "instructions": "...",
        ...     "value_type": "string", "created_at": 1767225600}).to_wire()["created_at"]
        1767225600
    """

    id: str
    name: str
    instructions: str | None = None
    value_type: str | None = None
    created_at: UnixDatetime | None = None
    updated_at: UnixDatetime | None = None


class RunScope(RdsModel):
    """What a run processes: tagged on ``kind`` (only ``dataset`` is shown; others kept).

    Example:
        >>> RunScope(id="ds_1").to_wire()
        {'kind': 'dataset', 'id': 'ds_1'}
    """

    wire_defaults = ("kind",)

    kind: str = "dataset"
    id: str


class CustomParameterRun(Waitable):
    """One extraction run; complete when done + error == total.

    Example:
        >>> run = CustomParameterRun.model_validate({"id": "cpr_1", "custom_parameter_id": "cp_1",
        ...     "status": {"type": "processing"}, "mentions_total": 3, "mentions_done": 2,
        ...     "mentions_error": 1, "mentions_remaining": 0})
        >>> run.is_complete
        True
    """

    id: str
    custom_parameter_id: str | None = None
    scope: RunScope | None = None
    status: RunStatus
    mentions_total: int | None = None
    mentions_done: int | None = None
    mentions_error: int | None = None
    mentions_remaining: int | None = None
    created_at: UnixDatetime | None = None
    updated_at: UnixDatetime | None = None

    @property
    def run_id(self) -> str:
        """``id`` under the name the start response (``{run_id}``) gives it."""
        return self.id

    @property
    def is_complete(self) -> bool:
        """True once every mention is done or errored (False while the total is unknown)."""
        if self.mentions_total is None:
            return False
        done = (self.mentions_done or 0) + (self.mentions_error or 0)
        return done == self.mentions_total


class CustomParameterCreate(RdsModel):
    """Body of ``POST /v1/custom_parameters``.

    Example:
        >>> CustomParameterCreate(name="price", instructions="The price quoted").to_wire()
        {'name': 'price', 'instructions': 'The price quoted', 'value_type': 'string'}
    """

    wire_defaults = ("value_type",)

    name: NonEmptyName
    instructions: str
    value_type: str = "string"


class CustomParameterUpdate(RdsModel):
    """Body of ``PATCH /v1/custom_parameters/{id}``: only the fields given are sent.

    Example:
        >>> CustomParameterUpdate(name="price_usd").to_wire()
        {'name': 'price_usd'}
    """

    name: NonEmptyName | None = None
    instructions: str | None = None
    value_type: str | None = None


class CustomParameterPreviewRequest(RdsModel):
    """Body of ``POST /v1/custom_parameters/preview`` (free): 1..5 posts.

    Example:
        >>> CustomParameterPreviewRequest(instructions="The price",
        ...     post_refs=[{"id": "t3_a", "source": "reddit"}]).to_wire()["post_refs"]
        [{'id': 't3_a', 'source': 'reddit'}]
    """

    wire_defaults = ("value_type",)

    instructions: str
    value_type: str = "string"
    post_refs: list[PostRef] = Field(min_length=1, max_length=5)


class PreviewValue(RdsModel):
    """The value extracted from one post by a preview."""

    post_id: str
    source: str
    value: Any = None


class CustomParameterPreview(RdsModel):
    """Response of a custom parameter preview: ``{results}``."""

    results: list[PreviewValue]


class CustomParameterRunCreate(RdsModel):
    """Body of ``POST /v1/custom_parameters/{id}/runs``.

    Example:
        >>> CustomParameterRunCreate(scope=RunScope(id="ds_1")).to_wire()
        {'scope': {'kind': 'dataset', 'id': 'ds_1'}}
    """

    scope: RunScope


class CustomParameterRunStarted(RdsModel):
    """Response of starting a custom parameter run: ``{run_id}``."""

    run_id: str
