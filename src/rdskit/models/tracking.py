"""Tracking agents, their runs and alert messages (Unix-second timestamps)."""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field, field_validator, model_validator

from rdskit.models._base import RdsModel, UnixDatetime, Waitable
from rdskit.models.common import RunStatus
from rdskit.models.references import Reference
from rdskit.models.vocab import FREQUENCIES, SCHEDULE_TIME, WEEKDAYS

__all__ = [
    "FREQUENCIES",
    "WEEKDAYS",
    "Schedule",
    "TrackingAgent",
    "TrackingAgentCreate",
    "TrackingAgentUpdate",
    "TrackingMessage",
    "TrackingRun",
]


class Schedule(RdsModel):
    """When an agent runs: ``{frequency, time: "HH:MM"}`` plus ``day`` for weekly.

    Example:
        >>> Schedule(frequency="weekly", time="09:30", day="monday").to_wire()
        {'frequency': 'weekly', 'time': '09:30', 'day': 'monday'}
    """

    frequency: str
    time: str
    day: str | None = None

    @field_validator("time")
    @classmethod
    def _hh_mm(cls, value: str) -> str:
        if not SCHEDULE_TIME.fullmatch(value):
            raise ValueError(f"schedule.time must be HH:MM (00:00..23:59), got {value!r}")
        return value

    @field_validator("day")
    @classmethod
    def _weekday(cls, value: str | None) -> str | None:
        if value is not None and value not in WEEKDAYS:
            raise ValueError(f"schedule.day must be a lowercase weekday name, got {value!r}")
        return value

    @model_validator(mode="after")
    def _weekly_has_day(self) -> Self:
        if self.frequency == "weekly" and self.day is None:
            raise ValueError("schedule.day is required when frequency is 'weekly'")
        return self


class TrackingAgent(RdsModel):
    """An agent that re-collects its datasets on a schedule and posts alert messages.

    Example:
        >>> agent = TrackingAgent.model_validate({"id": "ta_1", "name": "oat",
        ...     "schedule": {"frequency": "daily", "time": "08:00"}, "created_at": 1767225600})
        >>> agent.schedule.time, agent.to_wire()["created_at"]
        ('08:00', 1767225600)
    """

    id: str
    name: str
    instructions: str | None = None
    dataset_ids: list[str] | None = None
    count: int | None = None
    num_comments_per_post: int | None = None
    integrations: list[dict[str, Any]] | None = None
    paused: bool | None = None
    schedule: Schedule | None = None
    created_at: UnixDatetime | None = None
    updated_at: UnixDatetime | None = None
    last_run_at: UnixDatetime | None = None
    next_run_at: UnixDatetime | None = None


class _AgentFields(RdsModel):
    """The optional create/update fields shared by both request bodies."""

    integration_ids: list[str] | None = None
    count: int | None = Field(default=None, ge=1)
    num_comments_per_post: int | None = Field(default=None, ge=0)


class TrackingAgentCreate(_AgentFields):
    """Body of ``POST /v1/tracking_agents``.

    Example:
        >>> body = TrackingAgentCreate(name="oat", instructions="Alert on complaints",
        ...     dataset_ids=["ds_1"], schedule={"frequency": "daily", "time": "08:00"})
        >>> body.to_wire()["schedule"]
        {'frequency': 'daily', 'time': '08:00'}
    """

    name: str
    instructions: str
    dataset_ids: list[str] = Field(min_length=1)
    schedule: Schedule


class TrackingAgentUpdate(_AgentFields):
    """Body of ``PATCH /v1/tracking_agents/{id}``: only the fields given are sent.

    Example:
        >>> TrackingAgentUpdate(name="renamed").to_wire()
        {'name': 'renamed'}
    """

    name: str | None = None
    instructions: str | None = None
    dataset_ids: list[str] | None = None
    schedule: Schedule | None = None


class TrackingRun(Waitable):
    """One agent cycle (scheduled or triggered); created ``pending``.

    Example:
        >>> TrackingRun.model_validate({"id": "tar_1", "agent_id": "ta_1", "created_at": 0,
        ...     "dataset_run_ids": [], "status": {"type": "pending"}}).status.type
        'pending'
    """

    id: str
    agent_id: str
    created_at: UnixDatetime | None = None
    dataset_run_ids: list[str] | None = None
    status: RunStatus


class TrackingMessage(RdsModel):
    """An alert: markdown ``text`` with ``[N]`` markers and typed ``references``.

    Example:
        >>> msg = TrackingMessage.model_validate({"message_id": "tam_1", "agent_id": "ta_1",
        ...     "sentiment_score": 0.25, "created_at": 0, "text": "x", "references": []})
        >>> msg.sentiment_score
        0.25
    """

    message_id: str
    agent_id: str
    agent_name: str | None = None
    comment_count: int | None = None
    new_mention_count: int | None = None
    sentiment_score: float | None = None
    short_preview_message: str | None = None
    created_at: UnixDatetime | None = None
    text: str | None = None
    references: list[Reference] | None = None
    chat_id: str | None = None  # the chat the alert was posted to (beyond the spec)
