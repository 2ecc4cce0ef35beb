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

from rdskit import _hooks
from rdskit._base_client import APIRequest, Flow, path
from rdskit.errors import InvalidParameter
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
from rdskit.resources._reuse import (
    created_order,
    differences,
    named_create,
    oldest_named,
    unpaged,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TrackingAgents", "get_tracking_agent"]


def get_tracking_agent(agent_id: str) -> APIRequest[TrackingAgent]:
    """``GET /v1/tracking_agents/{agent_id}`` (also used by estimates and waits)."""
    return APIRequest(
        "GET", path("/v1/tracking_agents/{}", agent_id), cast=TrackingAgent.model_validate
    )


_LIST = unpaged("/v1/tracking_agents", TrackingAgent)


def _create(body: TrackingAgentCreate) -> APIRequest[TrackingAgent]:
    return named_create("tracking_agents", TrackingAgent.model_validate, body, body.name)


def _agent_body(arguments: Mapping[str, Any]) -> TrackingAgentCreate:
    """The create body from a create method's arguments (``self`` and unset ones left out)."""
    return validated(
        TrackingAgentCreate, given(**{k: v for k, v in arguments.items() if k != "self"})
    )


def _settings(agent: TrackingAgent) -> dict[str, Any]:
    """An agent's settings under the names of its create body (integrations as ids)."""
    settings = agent.to_wire()
    settings["integration_ids"] = [item.get("id") for item in agent.integrations or []]
    return settings


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
        return self._client._request(_create(_agent_body(locals())))

    def get_or_create(
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
        """The agent named ``name`` with these settings, created only if there is none.

        Safe to re-run: an agent of that name with the same settings (instructions,
        datasets and integrations as sets, schedule; ``count`` and
        ``num_comments_per_post`` when given) is returned, the oldest if several (with a
        :class:`~rdskit.errors.DuplicateNameWarning`); a paused one is resumed, since the
        call asks for a running agent. An agent of that name with other settings is left
        alone and :class:`~rdskit.errors.InvalidParameter` names the differences: change it
        with :meth:`update`, or delete it.

        Example:
            >>> agent = client.tracking_agents.get_or_create(name="Oat milk watch",
            ...     instructions="Alert me on complaints", dataset_ids=["ds_1"],
            ...     schedule={"frequency": "weekly", "time": "09:00", "day": "monday"},
            ...     count=50)  # doctest: +SKIP
        """
        return self._client._run(self._find_or_create(_agent_body(locals())))

    def _find_or_create(self, body: TrackingAgentCreate) -> Flow[TrackingAgent]:
        core = self._client._core
        named = [agent for agent in (yield from core.call(_LIST)) if agent.name == body.name]
        if not named:
            return (yield from core.call(_create(body)))
        wanted = body.to_wire()
        del wanted["name"]
        fitting = [agent for agent in named if not differences(_settings(agent), wanted)]
        if not fitting:
            newest = max(named, key=created_order)
            changed = differences(_settings(newest), wanted)
            raise InvalidParameter(
                changed[0].split(":", 1)[0],
                f"tracking agent {body.name!r} ({newest.id}) already exists with other "
                f"settings ({'; '.join(changed)}). Change it with "
                f"client.tracking_agents.update({newest.id!r}, ...), or delete it first",
            )
        active = [agent for agent in fitting if not agent.paused]
        found = oldest_named(active or fitting, body.name, "client.tracking_agents") or fitting[0]
        if found.paused:
            yield from core.call(self._action_request("POST", found.id, "/resume"))
            found = yield from core.call(get_tracking_agent(found.id))
        return found

    def list(self) -> list[TrackingAgent]:
        """Every agent of the account (a plain list: this endpoint has no pages).

        Example:
            >>> [agent.name for agent in client.tracking_agents.list()]  # doctest: +SKIP
            ['Oat milk watch']
        """
        return self._client._request(_LIST)

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
        return self._client._request(self._action_request(method, agent_id, suffix))

    def _action_request(self, method: str, agent_id: str, suffix: str) -> APIRequest[None]:
        return APIRequest(
            method,
            path("/v1/tracking_agents/{}", agent_id) + suffix,
            kind="write",
            cast=discard,
            check_hint=self._read_back(agent_id),
        )

    @staticmethod
    def _read_back(agent_id: str) -> str:
        return f"read it back with client.tracking_agents.get({agent_id!r})"

    def messages_frame(self, agent_id: str) -> pd.DataFrame:
        """Every alert message of the agent as a frame (one row per message).

        Example:
            >>> client.tracking_agents.messages_frame("ta_1")  # doctest: +SKIP
        """
        return _hooks.call(
            "frames.messages_to_frame",
            self._frames_client("tracking_agents.messages_frame"),
            agent_id,
        )
