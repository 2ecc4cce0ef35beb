"""The five endpoints of a named container: datasets and audience datasets.

Both are a name owned by an account, created empty and filled by runs; they differ in their
table, id prefix, wire shape (each with its own counts) and what DELETE answers (the spec
shows an empty body for audience datasets and none for datasets). :func:`add_container_routes`
serves ``POST /{collection}``, ``GET /{collection}`` and ``GET``/``PATCH``/``DELETE
/{collection}/{id_name}`` from those (held by a backend ``Containers``), as the client's
``NamedContainers`` does on its side.

No ``from __future__ import annotations`` here: FastAPI reads each handler's body model
from its annotation, which is the ``create``/``update`` argument of the factory.
"""

from collections.abc import Callable
from typing import Annotated, Any, Protocol, cast

from fastapi import APIRouter, Path

from rdskit.models._base import RdsModel
from rdskit.sandbox.api._common import Auth, List10, SettingsDep, StoreDep, ok, page
from rdskit.sandbox.backend.containers import Containers

__all__ = ["add_container_routes"]


def add_container_routes(
    router: APIRouter,
    collection: str,
    id_name: str,
    *,
    containers: Containers,
    model: type[RdsModel],
    create: type[RdsModel],
    update: type[RdsModel],
    deleted: Callable[[str], Any],
) -> None:
    """Serve the create, list, get, rename and soft-delete endpoints of ``collection``,
    one container's at ``/{collection}/{id_name}`` (the path parameter as the spec names it).

    Lists are the account's live rows, newest first by default (limit 10); a deleted row
    is hidden from every read but stays in its table for what was built from it. The
    state and SQL are ``containers``' (:class:`rdskit.sandbox.backend.containers.Containers`).

    Example:
        >>> add_container_routes(router, "datasets", "dataset_id",  # doctest: +SKIP
        ...     containers=backend.DATASETS, model=Dataset, create=DatasetCreate,
        ...     update=DatasetUpdate,
        ...     deleted=lambda dataset_id: {"id": dataset_id, "deleted": True})
    """

    ContainerId = Annotated[str, Path(alias=id_name)]

    def created(fields: dict[str, Any]) -> dict[str, Any]:
        return model.model_validate(fields).to_wire()

    @router.post(f"/{collection}")
    def create_container(
        body: create,  # type: ignore[valid-type]
        who: Auth,
        store: StoreDep,
    ) -> dict[str, Any]:
        with store.transaction() as conn:
            return ok(containers.create(conn, who.account_id, _name(body), created))

    @router.get(f"/{collection}")
    def list_containers(
        who: Auth, store: StoreDep, settings: SettingsDep, params: List10
    ) -> dict[str, Any]:
        with store.read() as conn:
            items, has_next, cursor = containers.page(conn, settings, who.account_id, params)
        return page(items, has_next=has_next, cursor=cursor)

    @router.get(f"/{collection}/{{{id_name}}}")
    def get_container(
        container_id: ContainerId, who: Auth, store: StoreDep, settings: SettingsDep
    ) -> dict[str, Any]:
        with store.read() as conn:
            return ok(containers.get(conn, settings, who.account_id, container_id))

    @router.patch(f"/{collection}/{{{id_name}}}")
    def rename_container(
        container_id: ContainerId,
        body: update,  # type: ignore[valid-type]
        who: Auth,
        store: StoreDep,
        settings: SettingsDep,
    ) -> dict[str, Any]:
        with store.transaction() as conn:
            renamed = containers.rename(conn, settings, who.account_id, container_id, _name(body))
            return ok(renamed)

    @router.delete(f"/{collection}/{{{id_name}}}")
    def delete_container(container_id: ContainerId, who: Auth, store: StoreDep) -> dict[str, Any]:
        with store.transaction() as conn:
            containers.delete(conn, who.account_id, container_id)
        return ok(deleted(container_id))


class _Named(Protocol):
    name: str


def _name(body: object) -> str:
    """The ``name`` of a create or rename body (its model is chosen per collection)."""
    return cast(_Named, body).name
