"""Typed ``references[]`` of assistant replies and tracking-agent alerts, and the post
pointers of pattern items.

A reference of a kind this client does not know yet is kept, not fatal: with a string
``id`` it is an :class:`EntityReference` (its type as sent), without one an
:class:`UnknownReference`; a pattern item's pointer whose ``type`` is not ``post`` is an
:class:`UnknownReference` too. Either way the rest of the item, answer or alert is read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Tag

from rdskit.models._base import OTHER_TAG, RdsModel

__all__ = [
    "ENTITY_REFERENCE_TYPES",
    "EntityReference",
    "PostOrUnknown",
    "PostPointer",
    "PostReference",
    "Reference",
    "UnknownReference",
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


class UnknownReference(RdsModel):
    """A reference of a kind this client cannot read yet, kept as sent (every field is
    kept; read them with ``model_extra``; ``to_wire()`` gives them back).

    Example:
        >>> ref = UnknownReference.model_validate({"type": "url", "url": "https://x.example"})
        >>> ref.type, ref.to_wire()
        ('url', {'type': 'url', 'url': 'https://x.example'})
    """

    type: Any = None


def _read(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def _reference_tag(value: Any) -> str:
    """``post``; an entity when it has a string id (any other type); else unknown."""
    if _read(value, "type") == "post":
        return "post"
    return "entity" if isinstance(_read(value, "id"), str) else OTHER_TAG


def _pointer_tag(value: Any) -> str:
    """A pattern item's pointer is a post unless its type says otherwise."""
    return "post" if _read(value, "type") in (None, "post") else OTHER_TAG


Reference = Annotated[
    Annotated[PostReference, Tag("post")]
    | Annotated[EntityReference, Tag("entity")]
    | Annotated[UnknownReference, Tag(OTHER_TAG)],
    Discriminator(_reference_tag),
]
"""A ``references[]`` item: :class:`PostReference` when ``type == "post"``, an
:class:`EntityReference` when it has an ``id``, else :class:`UnknownReference`.

Example:
    >>> from pydantic import TypeAdapter
    >>> refs = TypeAdapter(list[Reference]).validate_python(
    ...     [{"type": "dataset", "id": "ds_1"}, {"type": "url", "url": "https://x.example"}])
    >>> [type(ref).__name__ for ref in refs]
    ['EntityReference', 'UnknownReference']
"""

PostOrUnknown = Annotated[
    Annotated[PostPointer, Tag("post")] | Annotated[UnknownReference, Tag(OTHER_TAG)],
    Discriminator(_pointer_tag),
]
"""A pattern item's post pointer: :class:`PostPointer`, or :class:`UnknownReference` for a
``type`` this client does not know yet (a pointer without ``type`` is a post)."""
