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
    StaleEntry,
    created_order,
    differences,
    named_create,
    oldest_named,
    remembered,
    unpaged,
)
from rdskit.resources.datasets import get_dataset_run, list_dataset_runs

if TYPE_CHECKING:
    import pandas as pd

    from rdskit._base_client import HTTPCore

__all__ = ["TrackingAgents", "TrackingRunPoller", "get_tracking_agent"]


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


# What a triggered cycle collects (the ledger key of trigger(reuse=True) besides the agent).
_CYCLE_SETTINGS = ("dataset_ids", "count", "num_comments_per_post")
# What the ledger keeps of a tracking run: ids and its creation time, no status.
_RUN_IDS = ("id", "agent_id", "created_at", "dataset_run_ids")


class TrackingRunPoller:
    """Re-reads a tracking run through its dataset runs (it has no GET endpoint): the
    status is derived from them, ``completed`` once all are over and one completed,
    ``failed`` if all failed (the sandbox's rule). ``client.wait`` polls with it and
    ``trigger(reuse=True)`` reads a recorded cycle back with it."""

    def __init__(self, run: TrackingRun) -> None:
        if not run.dataset_run_ids:
            raise InvalidParameter("obj", f"tracking run {run.id} lists no dataset runs to follow")
        self._run = run
        self._dataset_of: dict[str, str] = {}  # dataset run id -> its dataset id

    def __call__(self, core: HTTPCore) -> Flow[TrackingRun]:
        run_ids = self._run.dataset_run_ids or []
        if not self._dataset_of:
            yield from self._locate(core, run_ids)
        states = []
        reasons: dict[str, list[str]] = {}  # why its dataset runs failed -> which ones
        for run_id in run_ids:
            dataset_run = yield from core.call(get_dataset_run(self._dataset_of[run_id], run_id))
            states.append(dataset_run.status.type)
            if dataset_run.status.type == "failed" and isinstance(dataset_run.status.reason, str):
                reasons.setdefault(dataset_run.status.reason, []).append(run_id)
        over = all(state in ("completed", "failed") for state in states)
        status: dict[str, Any] = {"type": self._run.status.type}
        if over:
            status["type"] = "completed" if "completed" in states else "failed"
        if status["type"] == "failed" and reasons:
            # The cycle's own reason: its dataset runs' (a stopped worker says so, with the fix).
            status["reason"] = "; ".join(
                reason if len(reasons) == 1 else f"{', '.join(ids)}: {reason}"
                for reason, ids in reasons.items()
            )
        fresh = TrackingRun.model_validate({**self._run.to_wire(), "status": status})
        return core.bind(fresh)

    def _locate(self, core: HTTPCore, run_ids: list[str]) -> Flow[None]:
        """Find each dataset run among the newest runs of the agent's datasets."""
        agent = yield from core.call(get_tracking_agent(self._run.agent_id))
        for dataset_id in agent.dataset_ids or []:
            page = yield from core.call_page(list_dataset_runs(dataset_id, limit=100, order="desc"))
            for dataset_run in page.data:
                if dataset_run.id in run_ids:
                    self._dataset_of[dataset_run.id] = dataset_id
        missing = [run_id for run_id in run_ids if run_id not in self._dataset_of]
        if missing:
            raise InvalidParameter(
                "obj",
                f"dataset runs {missing} are not among the runs of agent "
                f"{self._run.agent_id}'s datasets",
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
        body = _agent_body(locals())
        return self._client._run(self._creating(body))

    def _creating(self, body: TrackingAgentCreate) -> Flow[TrackingAgent]:
        """Flow: create ``body``'s agent, if one cycle of it fits the budgets."""
        return self._client._scheduled(_create(body), body.count, len(body.dataset_ids))

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
            return (yield from self._creating(body))
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
            resume = self._action_request("POST", found.id, "/resume")
            yield from self._client._scheduled(resume, found.count, len(found.dataset_ids or ()))
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
        request = APIRequest(
            "PATCH",
            path("/v1/tracking_agents/{}", agent_id),
            kind="write",
            json=body.to_wire(),
            cast=TrackingAgent.model_validate,
            check_hint=self._read_back(agent_id),
        )
        return self._client._run(self._updating(agent_id, request, body))

    def _updating(
        self, agent_id: str, request: APIRequest[TrackingAgent], body: TrackingAgentUpdate
    ) -> Flow[TrackingAgent]:
        """Flow: the update, if the active agent's new cycle size fits the budgets."""
        grows = body.count is not None or body.dataset_ids is not None
        if not grows or not self._client._budgeted():
            return (yield from self._client._core.call(request))
        agent = yield from self._client._core.call(get_tracking_agent(agent_id))
        if agent.paused:  # a paused agent runs no cycle: resuming it is checked
            return (yield from self._client._core.call(request))
        count = body.count if body.count is not None else agent.count
        ids = body.dataset_ids if body.dataset_ids is not None else agent.dataset_ids
        datasets = len(ids or ())
        return (yield from self._client._scheduled(request, count, datasets))

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
        return self._client._run(self._resuming(agent_id))

    def trigger(self, agent_id: str, *, reuse: bool = False) -> TrackingRun:
        """Start an out-of-schedule cycle, charged like dataset runs; ``.wait()`` follows it.

        Under a client budget the agent's ``count`` x its datasets must fit.

        ``reuse=True`` makes a re-run free: the cycle this account last triggered with
        ``reuse=True`` for this agent, while it collects the same datasets with the same
        ``count`` and comments, is read back (through its dataset runs) and returned if it
        did not fail (completed, or still running: wait on it) instead of paying again.
        Tracking runs cannot be listed, so it is found through the local ledger
        (:mod:`rdskit._ledger`); leave ``reuse`` off to collect newer posts.

        Example:
            >>> client.tracking_agents.trigger("ta_1").wait().status.type  # doctest: +SKIP
            'completed'
            >>> client.tracking_agents.trigger("ta_1", reuse=True).status.type  # doctest: +SKIP
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
        start = self._client._guarded("tracking_trigger", request, {"agent_id": agent_id})
        if not reuse:
            return self._client._run(start)
        return self._client._run(self._reused_cycle(agent_id, start))

    def _reused_cycle(self, agent_id: str, start: Flow[TrackingRun]) -> Flow[TrackingRun]:
        """Flow: the agent's last recorded cycle (not failed), or else a new one."""
        core = self._client._core
        agent = (yield from core.call(get_tracking_agent(agent_id))).to_wire()
        cycle = {"agent_id": agent_id, **{key: agent.get(key) for key in _CYCLE_SETTINGS}}

        def reread(ids: Mapping[str, Any]) -> Flow[TrackingRun | None]:
            if ids.get("agent_id") != agent_id:
                raise StaleEntry(f"it is a cycle of agent {ids.get('agent_id')}")
            recorded = TrackingRun.model_validate({**ids, "status": {"type": "pending"}})
            run = yield from TrackingRunPoller(recorded)(core)  # refused once its runs are gone
            return run if run.status.type != "failed" else None

        return (yield from remembered(core, "tracking_trigger", cycle, reread, start, _RUN_IDS))

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

    def _resuming(self, agent_id: str) -> Flow[None]:
        """Flow: resume the agent, if one of its cycles fits the budgets (read first)."""
        resume = self._action_request("POST", agent_id, "/resume")
        if not self._client._budgeted():  # no budget: no read before the resume
            return (yield from self._client._core.call(resume))
        agent = yield from self._client._core.call(get_tracking_agent(agent_id))
        datasets = len(agent.dataset_ids or ())
        return (yield from self._client._scheduled(resume, agent.count, datasets))

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
        return _hooks.messages_to_frame.call(
            self._frames_client("tracking_agents.messages_frame"),
            agent_id,
        )
