"""The two reads every run-owning resource serves: its runs, and one run.

``GET /v1/datasets/{id}/runs``, ``/v1/audience_datasets/{id}/runs`` and
``/v1/custom_parameters/{id}/runs`` (each with ``/{run_id}``) differ only in their tables,
their parent's 404 and the run's wire shape, held by a backend
:class:`rdskit.sandbox.backend.runs.ChildRuns`; :func:`add_run_reads` serves both endpoints
of one resource from it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from rdskit.sandbox.api._common import Auth, List10, StoreDep, ok
from rdskit.sandbox.backend.runs import ChildRuns

__all__ = ["add_run_reads"]


def add_run_reads(router: APIRouter, collection: str, runs: ChildRuns) -> None:
    """Serve ``GET /{collection}/{parent_id}/runs`` (newest first by default, limit 10,
    cursors bound to the parent) and ``GET /{collection}/{parent_id}/runs/{run_id}``.

    Example:
        >>> add_run_reads(router, "datasets", backend.RUN_READS)  # doctest: +SKIP
    """

    @router.get(f"/{collection}/{{parent_id}}/runs")
    def list_runs(parent_id: str, who: Auth, store: StoreDep, params: List10) -> dict[str, Any]:
        with store.read() as conn:
            return runs.page(conn, who.account_id, parent_id, params)

    @router.get(f"/{collection}/{{parent_id}}/runs/{{run_id}}")
    def get_run(parent_id: str, run_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
        with store.read() as conn:
            return ok(runs.get(conn, who.account_id, parent_id, run_id))
