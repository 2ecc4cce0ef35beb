"""Tracking agents: ``/v1/tracking_agents...`` (CRUD, pause/resume, trigger, alert messages).

Thin: the state, SQL and rules (schedules, cycles, alerts) live in
:mod:`rdskit.sandbox.backend.tracking`. An agent re-scrapes its datasets on a schedule
(UTC); a cycle (scheduled, or out of schedule through ``trigger``) starts one dataset run
per dataset, charged as a normal dataset run, and posts an alert message when it completes.

Example (HTTP)::

    POST /v1/tracking_agents {"name": "Oat watch", "instructions": "Is it a complaint?",
                              "dataset_ids": ["ds_…"], "count": 50, "num_comments_per_post": 0,
                              "schedule": {"frequency": "weekly", "time": "09:00",
                                           "day": "monday"}}
    POST /v1/tracking_agents/ta_…/trigger
    -> {"data": {"id": "tar_…", "status": {"type": "pending"}, "dataset_run_ids": […], …}}
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rdskit.models import TrackingAgentCreate, TrackingAgentUpdate
from rdskit.sandbox.api._common import Auth, Newest25, SettingsDep, StoreDep, ok, page
from rdskit.sandbox.backend import tracking as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["tracking agents"])


@router.post("/tracking_agents")
def create_agent(body: TrackingAgentCreate, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Create an active agent; ``next_run_at`` follows from the schedule."""
    with store.transaction() as conn:
        return ok(backend.create_agent(conn, who.account_id, who.seat_id, body))


@router.get("/tracking_agents")
def list_agents(who: Auth, store: StoreDep) -> dict[str, Any]:
    """The account's agents (deleted ones hidden), oldest first; no pagination fields."""
    with store.read() as conn:
        return ok(backend.list_agents(conn, who.account_id))


@router.get("/tracking_agents/{agent_id}")
def get_agent(agent_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """One agent."""
    with store.read() as conn:
        return ok(backend.get_agent(conn, who.account_id, agent_id))


@router.patch("/tracking_agents/{agent_id}")
def update_agent(
    agent_id: str, body: TrackingAgentUpdate, who: Auth, store: StoreDep
) -> dict[str, Any]:
    """Partial update of the create fields; a new schedule moves ``next_run_at``."""
    with store.transaction() as conn:
        return ok(backend.update_agent(conn, who.account_id, agent_id, body))


@router.delete("/tracking_agents/{agent_id}")
def delete_agent(agent_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Soft delete: hidden from every endpoint, kept on the server; no more cycles."""
    with store.transaction() as conn:
        backend.delete_agent(conn, who.account_id, agent_id)
    return ok({"id": agent_id, "deleted": True})


@router.post("/tracking_agents/{agent_id}/pause")
def pause_agent(agent_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Stop scheduled cycles (``next_run_at`` becomes null); history is kept."""
    with store.transaction() as conn:
        return ok(backend.pause_agent(conn, who.account_id, agent_id))


@router.post("/tracking_agents/{agent_id}/resume")
def resume_agent(agent_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
    """Resume scheduled cycles from now on (``next_run_at`` recomputed)."""
    with store.transaction() as conn:
        return ok(backend.resume_agent(conn, who.account_id, agent_id))


@router.post("/tracking_agents/{agent_id}/trigger")
def trigger_agent(
    agent_id: str, who: Auth, store: StoreDep, settings: SettingsDep
) -> dict[str, Any]:
    """Start an out-of-schedule cycle; returns the tracking run (``pending``)."""
    with store.transaction() as conn:
        return ok(backend.trigger(conn, settings, who.account_id, agent_id))


@router.get("/tracking_agents/{agent_id}/messages")
def list_messages(
    agent_id: str,
    who: Auth,
    store: StoreDep,
    params: Newest25,
) -> dict[str, Any]:
    """The agent's alert messages, newest first (``limit`` and ``cursor`` only)."""
    with store.read() as conn:
        items, has_next, next_cursor = backend.list_messages(
            conn, who.account_id, agent_id, params.limit, params.cursor
        )
    return page(items, has_next=has_next, cursor=next_cursor)
