"""The two reads every run-owning resource serves: its runs, and one run.

``GET /v1/datasets/{dataset_id}/runs``, ``/v1/audience_datasets/{audience_dataset_id}/runs``
and ``/v1/custom_parameters/{parameter_id}/runs`` (each with ``/{run_id}``) differ only in
their tables, their parent's 404 and the run's wire shape, held by a backend
:class:`rdskit.sandbox.backend.runs.ChildRuns`; :func:`add_run_reads` serves both endpoints
of one resource from it.

No ``from __future__ import annotations`` here: FastAPI reads the parent id's path name
from the annotation, an alias made in the factory.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Path

from rdskit.sandbox.api._common import Auth, List10, StoreDep, ok
from rdskit.sandbox.backend.runs import ChildRuns

__all__ = ["add_run_reads"]


def add_run_reads(router: APIRouter, collection: str, id_name: str, runs: ChildRuns) -> None:
    """Serve ``GET /{collection}/{id_name}/runs`` (newest first by default, limit 10,
    cursors bound to the parent) and ``GET /{collection}/{id_name}/runs/{run_id}``.

    ``id_name`` is the parent's path parameter as the resource's other routes name it (the
    document has one path item per path, so one name per path).

    Example:
        >>> add_run_reads(router, "datasets", "dataset_id", backend.RUN_READS)  # doctest: +SKIP
    """
    ParentId = Annotated[str, Path(alias=id_name)]

    @router.get(f"/{collection}/{{{id_name}}}/runs")
    def list_runs(
        parent_id: ParentId, who: Auth, store: StoreDep, params: List10
    ) -> dict[str, Any]:
        with store.read() as conn:
            return runs.page(conn, who.account_id, parent_id, params)

    @router.get(f"/{collection}/{{{id_name}}}/runs/{{run_id}}")
    def get_run(parent_id: ParentId, run_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
        with store.read() as conn:
            return ok(runs.get(conn, who.account_id, parent_id, run_id))
