"""Typed ``references[]`` of assistant replies and tracking-agent alerts."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Discriminator, Tag

from rdskit.models._base import OTHER_TAG, RdsModel, by_tag

__all__ = [
    "ENTITY_REFERENCE_TYPES",
    "EntityReference",
    "PostPointer",
    "PostReference",
    "Reference",
]

ENTITY_REFERENCE_TYPES = (
    "pattern",
    "research_preview",
    "dataset",
    "audience_dataset",
    "custom_parameter_run",
    "pattern_detection_run",
)
"""Entity reference types the spec lists; unknown types are kept as EntityReference."""


class PostPointer(RdsModel):
    """A ``{type: post, source, id}`` pointer; citation and indices optional (pattern items).

    Example:
        >>> PostPointer(source="reddit", id="t3_a").to_wire()
        {'type': 'post', 'source': 'reddit', 'id': 't3_a'}
    """

    wire_defaults = ("type",)

    type: Literal["post"] = "post"
    source: str
    id: str
    citation: int | None = None
    start_index: int | None = None
    end_index: int | None = None


class PostReference(PostPointer):
    """A cited post: ``text[start_index:end_index]`` is its ``[citation]`` marker.

    Example:
        >>> ref = PostReference(source="reddit", id="t3_a", citation=1, start_index=4,
        ...     end_index=7)
        >>> "See [1]."[ref.start_index:ref.end_index]
        '[1]'
    """

    citation: int
    start_index: int
    end_index: int


class EntityReference(RdsModel):
    """``{type, id}`` of a dataset, pattern, run, ...; any type is accepted and extra keys
    (e.g. the parameter id of a ``custom_parameter_run``) are kept.

    Example:
        >>> EntityReference.model_validate({"type": "dataset", "id": "ds_1"}).type
        'dataset'
    """

    type: str
    id: str


Reference = Annotated[
    Annotated[PostReference, Tag("post")] | Annotated[EntityReference, Tag(OTHER_TAG)],
    Discriminator(by_tag("type", {"post"})),
]
"""A ``references[]`` item: :class:`PostReference` when ``type == "post"``, else entity."""
