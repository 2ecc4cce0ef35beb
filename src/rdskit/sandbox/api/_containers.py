"""The five endpoints of a named container: datasets and audience datasets.

Both are a name owned by an account, created empty and filled by runs; they differ in their
table, id prefix, wire shape (each with its own counts) and what DELETE answers (the spec
shows an empty body for audience datasets and none for datasets). :func:`add_container_routes`
serves ``POST /{collection}``, ``GET /{collection}`` and ``GET``/``PATCH``/``DELETE
/{collection}/{id}`` from those, as the client's ``NamedContainers`` does on its side.

No ``from __future__ import annotations`` here: FastAPI reads each handler's body model
from its annotation, which is the ``create``/``update`` argument of the factory.
"""

import sqlite3
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter

from rdskit.models._base import RdsModel
from rdskit.sandbox.api._common import Auth, List10, SettingsDep, StoreDep, ok, page
from rdskit.sandbox.cursors import BY_CREATED, fetch_page
from rdskit.sandbox.db import new_id
from rdskit.sandbox.settings import Settings

__all__ = ["add_container_routes"]


def add_container_routes(
    router: APIRouter,
    collection: str,
    *,
    table: str,
    id_prefix: str,
    model: type[RdsModel],
    create: type[RdsModel],
    update: type[RdsModel],
    or_404: Callable[[sqlite3.Connection, str, str], sqlite3.Row],
    wire: Callable[[sqlite3.Connection, sqlite3.Row, Settings], dict[str, Any]],
    deleted: Callable[[str], Any],
) -> None:
    """Serve the create, list, get, rename and soft-delete endpoints of ``collection``.

    Lists are the account's live rows, newest first by default (limit 10); a deleted row
    is hidden from every read but stays in ``table`` for what was built from it.

    Example:
        >>> add_container_routes(router, "datasets", table="datasets",  # doctest: +SKIP
        ...     id_prefix="ds", model=Dataset, create=DatasetCreate, update=DatasetUpdate,
        ...     or_404=dataset_or_404, wire=_dataset_wire,
        ...     deleted=lambda dataset_id: {"id": dataset_id, "deleted": True})
    """

    @router.post(f"/{collection}")
    def create_container(
        body: create,  # type: ignore[valid-type]
        who: Auth,
        store: StoreDep,
    ) -> dict[str, Any]:
        with store.transaction() as conn:
            container_id = new_id(conn, id_prefix)
            now = store.clock.now()
            conn.execute(
                f"INSERT INTO {table} (id, account_id, name, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (container_id, who.account_id, body.name, now, now),
            )
        created = {"id": container_id, "name": body.name, "created_at": now}
        return ok(model.model_validate(created).to_wire())

    @router.get(f"/{collection}")
    def list_containers(
        who: Auth, store: StoreDep, settings: SettingsDep, params: List10
    ) -> dict[str, Any]:
        with store.read() as conn:
            got = fetch_page(
                conn,
                columns="*",
                source=table,
                where="account_id = ? AND deleted_at IS NULL",
                params=[who.account_id],
                sort=BY_CREATED,
                order=params.order,
                limit=params.limit,
                cursor=params.cursor,
            )
            items = [wire(conn, row, settings) for row in got.rows]
        return page(items, has_next=got.has_next, cursor=got.cursor)

    @router.get(f"/{collection}/{{container_id}}")
    def get_container(
        container_id: str, who: Auth, store: StoreDep, settings: SettingsDep
    ) -> dict[str, Any]:
        with store.read() as conn:
            return ok(wire(conn, or_404(conn, who.account_id, container_id), settings))

    @router.patch(f"/{collection}/{{container_id}}")
    def rename_container(
        container_id: str,
        body: update,  # type: ignore[valid-type]
        who: Auth,
        store: StoreDep,
        settings: SettingsDep,
    ) -> dict[str, Any]:
        with store.transaction() as conn:
            or_404(conn, who.account_id, container_id)
            conn.execute(
                f"UPDATE {table} SET name = ?, updated_at = ? WHERE id = ?",
                (body.name, store.clock.now(), container_id),
            )
            return ok(wire(conn, or_404(conn, who.account_id, container_id), settings))

    @router.delete(f"/{collection}/{{container_id}}")
    def delete_container(container_id: str, who: Auth, store: StoreDep) -> dict[str, Any]:
        with store.transaction() as conn:
            or_404(conn, who.account_id, container_id)
            now = store.clock.now()
            conn.execute(
                f"UPDATE {table} SET deleted_at = ?, updated_at = ? WHERE id = ?",
                (now, now, container_id),
            )
        return ok(deleted(container_id))
