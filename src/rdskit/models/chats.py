"""Chats, chat messages and Ask requests (Unix-second timestamps)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from rdskit.models._base import RdsModel, UnixDatetime, Waitable
from rdskit.models.common import PostRef
from rdskit.models.references import Reference

__all__ = [
    "MAX_ASK_POST_REFS",
    "AskAccepted",
    "AskContext",
    "AskRequest",
    "Chat",
    "ChatMessage",
    "MessageContext",
    "PromptRef",
    "ResearchFilters",
]

MAX_ASK_POST_REFS = 50
"""At most this many ``context.post_refs`` per Ask."""


class Chat(RdsModel):
    """A conversation with the assistant, created implicitly by Ask.

    Example:
        >>> Chat.model_validate({"id": "ch_1", "name": None, "tracking_agent_id": None,
        ...     "created_at": 1767225600}).to_wire()["created_at"]
        1767225600
    """

    id: str
    name: str | None = None
    tracking_agent_id: str | None = None
    created_at: UnixDatetime | None = None


class ResearchFilters(RdsModel):
    """``context.research_filters`` of a user row; value shapes are not shown."""

    sources: list[str] | None = None
    time: Any = None
    date_range: Any = None
    language: Any = None
    country_code: Any = None
    depth: Any = None
    preview_id: str | None = None
    content_type: Any = None
    ad_filters: Any = None
    ad_advertisers: Any = None
    ad_advertiser: Any = None


class PromptRef(RdsModel):
    """``context.prompt``: ``{id}``."""

    id: str


class MessageContext(RdsModel):
    """The ``context`` a user row carries; every key optional."""

    dataset_ids: list[str] | None = None
    collection_uids: list[str] | None = None
    audience_dataset_ids: list[str] | None = None
    audience_segment_ids: list[str] | None = None
    audience_collection_ids: list[str] | None = None
    post_refs: list[PostRef] | None = None
    prompt: PromptRef | None = None
    research_filters: ResearchFilters | None = None
    audience_research_filters: Any = None
    selected_dataset_id: str | None = None
    retry_intent: Any = None
    open_panel: Any = None
    onboarding_skill_type: Any = None
    onboarding_use_case: Any = None
    force_collection: bool | None = None


class ChatMessage(RdsModel):
    """A message row: user rows carry ``context``, assistant rows ``references``.

    Example:
        >>> row = ChatMessage.model_validate({"id": "msg_1", "role": "assistant",
        ...     "text": "See [1]", "created_at": 0, "references": [{"type": "post",
        ...     "source": "reddit", "id": "a", "citation": 1, "start_index": 4, "end_index": 7}]})
        >>> type(row.references[0]).__name__
        'PostReference'
    """

    id: str
    role: str
    text: str | None = None
    created_at: UnixDatetime | None = None
    status: str | None = None
    context: MessageContext | None = None
    references: list[Reference] | None = None
    stop_reason: str | None = None
    chat_id: str | None = None  # the chat it belongs to (sent on rows; not in the spec)
    # Tokens a final Ask reply is charged for (sent by the sandbox; not in the spec): 0 says
    # the reply is free, so no ai_assistant usage row will come for it. None: not said.
    charged_tokens: int | None = None


class AskContext(RdsModel):
    """``context`` of an Ask: datasets to use and up to 50 posts to discuss.

    Example:
        >>> AskContext(post_refs=[{"id": "t3_a", "source": "reddit"}]).to_wire()
        {'post_refs': [{'id': 't3_a', 'source': 'reddit'}]}
    """

    dataset_ids: list[str] | None = None
    post_refs: list[PostRef] | None = None

    @field_validator("post_refs")
    @classmethod
    def _at_most_50(cls, refs: list[PostRef] | None) -> list[PostRef] | None:
        if refs is not None and len(refs) > MAX_ASK_POST_REFS:
            raise ValueError(
                f"context.post_refs holds at most {MAX_ASK_POST_REFS} posts, got {len(refs)}"
            )
        return refs


class AskRequest(RdsModel):
    """Body of ``POST /v1/ask``; narrowing goes in the message text (no filter field).

    Example:
        >>> AskRequest(message="How does sentiment split?",
        ...     context={"dataset_ids": ["ds_1"]}).to_wire()
        {'message': 'How does sentiment split?', 'context': {'dataset_ids': ['ds_1']}}
    """

    message: str = Field(min_length=1)
    chat_id: str | None = None
    context: AskContext | None = None

    @field_validator("message")
    @classmethod
    def _not_blank(cls, message: str) -> str:
        if not message.strip():
            raise ValueError("message must not be blank")
        return message


class AskAccepted(Waitable):
    """The 202 answer to Ask: ``{chat_id, message_id, status: working}``.

    Example:
        >>> AskAccepted.model_validate({"chat_id": "ch_1", "message_id": "msg_1",
        ...     "status": "working"}).status
        'working'
    """

    chat_id: str
    message_id: str
    status: str
