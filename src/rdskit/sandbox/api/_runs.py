"""The two reads every run-owning resource serves: its runs, and one run.

``GET /v1/datasets/{id}/runs``, ``/v1/audience_datasets/{id}/runs`` and
``/v1/custom_parameters/{id}/runs`` (each with ``/{run_id}``) differ only in their tables,
their parent's 404 and the run's wire shape; :func:`add_run_reads` serves both endpoints of
one resource from those.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter

from rdskit.sandbox.api._common import Auth, List10, StoreDep, ok, row_or_404
from rdskit.sandbox.cursors import child_page

__all__ = ["add_run_reads"]


def add_run_reads(
    router: APIRouter,
    collection: str,
    *,
    parent_or_404: Callable[[sqlite3.Connection, str, str], sqlite3.Row],
    source: str,
    parent: str,
    missing: str,
    wire: Callable[[sqlite3.Row], dict[str, Any]],
) -> None:
    """Serve ``GET /{collection}/{parent_id}/runs`` (newest first by default, limit 10,
    cursors bound to the parent) and ``GET /{collection}/{parent_id}/runs/{run_id}``.

    ``parent_or_404`` checks the caller's parent first (its own 404); a run that is not
    the parent's answers 404 ``missing``: the spec has no ``*_run_not_found`` code.

    Example:
        >>> add_run_reads(router, "datasets", parent_or_404=dataset_or_404,  # doctest: +SKIP
        ...     source="dataset_runs", parent="dataset_id", missing="dataset_not_found",
        ...     wire=_run_wire)
    """

    @router.get(f"/{collection}/{{parent_id}}/runs")
    def list_runs(parent_id: str, who: Auth, store: StoreDep, params: List10) -> dict[str, Any]:
        with store.read() as conn:
            parent_or_404(conn, who.account_id, parent_id)
            return child_page(
                conn, source=source, parent=parent, parent_id=parent_id, params=params, wire=wire
            )

    @router.get(f"/{collection}/{{parent_id}}/runs/{{run_id}}")
    def get_run(parent_id: str, run_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
        with store.read() as conn:
            parent_or_404(conn, who.account_id, parent_id)
            row = row_or_404(
                conn,
                source,
                missing,
                f"Run {run_id} not found in {parent_id}",
                id=run_id,
                **{parent: parent_id},
            )
            return ok(wire(row))
