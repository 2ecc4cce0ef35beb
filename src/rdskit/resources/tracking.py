"""Tracking agents: ``/v1/tracking_agents`` (schedules, pause/resume, triggers, alerts).

Example:
    >>> agent = client.tracking_agents.create(name="Oat milk watch",
    ...     instructions="Alert me on complaints", dataset_ids=["ds_1"],
    ...     schedule={"frequency": "daily", "time": "08:00"})  # doctest: +SKIP
    >>> for message in client.tracking_agents.messages(agent.id):  # doctest: +SKIP
    ...     print(message.short_preview_message)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rdskit._base_client import APIRequest, path
from rdskit.models import (
    Schedule,
    TrackingAgent,
    TrackingAgentCreate,
    TrackingAgentUpdate,
    TrackingMessage,
    TrackingRun,
)
from rdskit.pagination import SyncPage
from rdskit.resources._resource import Resource, check_limit, discard, given, validated

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TrackingAgents", "get_tracking_agent"]


def get_tracking_agent(agent_id: str) -> APIRequest[TrackingAgent]:
    """``GET /v1/tracking_agents/{agent_id}`` (also used by estimates and waits)."""
    return APIRequest(
        "GET", path("/v1/tracking_agents/{}", agent_id), cast=TrackingAgent.model_validate
    )


class TrackingAgents(Resource):
    """``client.tracking_agents``: scheduled re-collection with alert messages."""

    def create(
        self,
        *,
        name: str,
        instructions: str,
        dataset_ids: Sequence[str],
        schedule: Schedule | Mapping[str, Any],
        integration_ids: Sequence[str] | None = None,
        count: int | None = None,
        num_comments_per_post: int | None = None,
    ) -> TrackingAgent:
        """Create an agent (active); ``schedule`` is ``{frequency, time: "HH:MM"[, day]}``.

        Example:
            >>> client.tracking_agents.create(name="watch", instructions="Complaints",
            ...     dataset_ids=["ds_1"], schedule={"frequency": "weekly", "time": "09:00",
            ...     "day": "monday"}, count=50).paused  # doctest: +SKIP
            False
        """
        body = validated(
            TrackingAgentCreate,
            given(
                name=name,
                instructions=instructions,
                dataset_ids=dataset_ids,
                schedule=schedule,
                integration_ids=integration_ids,
                count=count,
                num_comments_per_post=num_comments_per_post,
            ),
        )
        return self._client._request(
            APIRequest(
                "POST",
                "/v1/tracking_agents",
                kind="write",
                json=body.to_wire(),
                cast=TrackingAgent.model_validate,
                check_hint=f"look for {name!r} in client.tracking_agents.list() before creating it "
                "again",
            )
        )

    def list(self) -> list[TrackingAgent]:
        """Every agent of the account (a plain list: this endpoint has no pages).

        Example:
            >>> [agent.name for agent in client.tracking_agents.list()]  # doctest: +SKIP
            ['Oat milk watch']
        """
        return self._client._request(
            APIRequest(
                "GET",
                "/v1/tracking_agents",
                cast=lambda items: [TrackingAgent.model_validate(item) for item in items],
            )
        )

    def get(self, agent_id: str) -> TrackingAgent:
        """One agent (``ResourceNotFound``, code ``not_found``, if absent).

        Example:
            >>> client.tracking_agents.get("ta_1").schedule.time  # doctest: +SKIP
            '08:00'
        """
        return self._client._request(get_tracking_agent(agent_id))

    def update(
        self,
        agent_id: str,
        *,
        name: str | None = None,
        instructions: str | None = None,
        dataset_ids: Sequence[str] | None = None,
        schedule: Schedule | Mapping[str, Any] | None = None,
        integration_ids: Sequence[str] | None = None,
        count: int | None = None,
        num_comments_per_post: int | None = None,
    ) -> TrackingAgent:
        """Change some fields (``PATCH``; only those given are sent).

        Example:
            >>> client.tracking_agents.update("ta_1", schedule={"frequency": "daily",
            ...     "time": "18:30"}).schedule.time  # doctest: +SKIP
            '18:30'
        """
        body = validated(
            TrackingAgentUpdate,
            given(
                name=name,
                instructions=instructions,
                dataset_ids=dataset_ids,
                schedule=schedule,
                integration_ids=integration_ids,
                count=count,
                num_comments_per_post=num_comments_per_post,
            ),
        )
        return self._client._request(
            APIRequest(
                "PATCH",
                path("/v1/tracking_agents/{}", agent_id),
                kind="write",
                json=body.to_wire(),
                cast=TrackingAgent.model_validate,
                check_hint=self._read_back(agent_id),
            )
        )

    def delete(self, agent_id: str) -> None:
        """Delete an agent (soft: hidden from lists, kept by the service).

        Example:
            >>> client.tracking_agents.delete("ta_1")  # doctest: +SKIP
        """
        return self._action("DELETE", agent_id, "")

    def pause(self, agent_id: str) -> None:
        """Stop scheduled cycles until :meth:`resume`.

        Example:
            >>> client.tracking_agents.pause("ta_1")  # doctest: +SKIP
        """
        return self._action("POST", agent_id, "/pause")

    def resume(self, agent_id: str) -> None:
        """Restart scheduled cycles (history kept).

        Example:
            >>> client.tracking_agents.resume("ta_1")  # doctest: +SKIP
        """
        return self._action("POST", agent_id, "/resume")

    def trigger(self, agent_id: str) -> TrackingRun:
        """Start an out-of-schedule cycle, charged like dataset runs; ``.wait()`` follows it.

        Under a client budget the agent's ``count`` x its datasets must fit.

        Example:
            >>> client.tracking_agents.trigger("ta_1").wait().status.type  # doctest: +SKIP
            'completed'
        """
        request = APIRequest(
            "POST",
            path("/v1/tracking_agents/{}/trigger", agent_id),
            kind="paid",
            cast=TrackingRun.model_validate,
            check_hint=f"see last_run_at in client.tracking_agents.get({agent_id!r}) and the runs "
            "of its datasets (client.datasets.runs.list(dataset_id)) before triggering again",
        )
        return self._client._run(
            self._client._guarded("tracking_trigger", request, {"agent_id": agent_id})
        )

    def messages(
        self, agent_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> SyncPage[TrackingMessage]:
        """Alert messages, newest first; iterate for every page.

        Example:
            >>> latest = client.tracking_agents.messages("ta_1", limit=5).data[0]  # doctest: +SKIP
            >>> latest.new_mention_count  # doctest: +SKIP
            12
        """
        check_limit(limit)
        return self._client._paginate(
            APIRequest(
                "GET",
                path("/v1/tracking_agents/{}/messages", agent_id),
                params=given(limit=limit, cursor=cursor),
                cast=TrackingMessage.model_validate,
            )
        )

    def _action(self, method: str, agent_id: str, suffix: str) -> None:
        return self._client._request(
            APIRequest(
                method,
                path("/v1/tracking_agents/{}", agent_id) + suffix,
                kind="write",
                cast=discard,
                check_hint=self._read_back(agent_id),
            )
        )

    @staticmethod
    def _read_back(agent_id: str) -> str:
        return f"read it back with client.tracking_agents.get({agent_id!r})"

    def messages_frame(self, agent_id: str) -> pd.DataFrame:
        """Every alert message of the agent as a frame (one row per message).

        Example:
            >>> client.tracking_agents.messages_frame("ta_1")  # doctest: +SKIP
        """
        from rdskit.frames.fetch import messages_to_frame

        return messages_to_frame(self._frames_client("tracking_agents.messages_frame"), agent_id)
