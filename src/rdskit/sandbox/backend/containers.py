"""Named containers filled by runs: datasets and audience datasets (state and SQL).

Both are a name owned by an account, created empty, renamed, soft-deleted (hidden from every
read, kept for what was built from them); they differ in their table, id prefix and wire
shape. :class:`Containers` holds those differences; the routes of
:mod:`rdskit.sandbox.api._containers` call its methods.

Example:
    >>> from rdskit.sandbox.store.accounts import bootstrap
    >>> from rdskit.sandbox.backend.tables import open_store
    >>> things = Containers("datasets", "ds", "dataset_not_found", "Dataset",
    ...                     wire=lambda conn, row, settings: {"name": row["name"]})
    >>> with open_store(":memory:") as store, store.transaction() as conn:
    ...     account = bootstrap(conn)
    ...     made = things.create(conn, account, "Oat milk", lambda row: dict(row))
    ...     renamed = things.rename(conn, Settings(), account, made["id"], "Oats")
    ...     things.delete(conn, account, made["id"])
    ...     gone = things.page(conn, Settings(), account, ListParams(10, None, "desc"))
    >>> renamed, gone
    ({'name': 'Oats'}, ([], False, None))
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store.cursors import BY_CREATED, ListParams, fetch_page
from rdskit.sandbox.store.db import Connection, new_id, row_or_404

__all__ = ["Containers"]

Wire = Callable[[sqlite3.Connection, sqlite3.Row, Settings], dict[str, Any]]


@dataclass(frozen=True)
class Containers:
    """One kind of container: its table, id prefix, 404 code and label, and wire shape."""

    table: str
    id_prefix: str
    missing: str
    label: str
    wire: Wire

    def or_404(self, conn: sqlite3.Connection, account_id: str, container_id: str) -> sqlite3.Row:
        """The account's live container, or 404 ``missing``."""
        return row_or_404(
            conn,
            self.table,
            self.missing,
            f"{self.label} {container_id} not found",
            live=True,
            id=container_id,
            account_id=account_id,
        )

    def create(
        self,
        conn: Connection,
        account_id: str,
        name: str,
        created: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> dict[str, Any]:
        """Create an empty container; ``created`` renders ``{id, name, created_at}``."""
        container_id = new_id(conn, self.id_prefix)
        now = conn.store.clock.now()
        conn.execute(
            f"INSERT INTO {self.table} (id, account_id, name, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (container_id, account_id, name, now, now),
        )
        return created({"id": container_id, "name": name, "created_at": now})

    def page(
        self, conn: Connection, settings: Settings, account_id: str, params: ListParams
    ) -> tuple[list[dict[str, Any]], bool, str | None]:
        """A page of the account's live containers: ``(items, has_next, cursor)``."""
        got = fetch_page(
            conn,
            columns="*",
            source=self.table,
            where="account_id = ? AND deleted_at IS NULL",
            params=[account_id],
            sort=BY_CREATED,
            order=params.order,
            limit=params.limit,
            cursor=params.cursor,
        )
        return [self.wire(conn, row, settings) for row in got.rows], got.has_next, got.cursor

    def get(
        self, conn: sqlite3.Connection, settings: Settings, account_id: str, container_id: str
    ) -> dict[str, Any]:
        """One live container in wire form."""
        return self.wire(conn, self.or_404(conn, account_id, container_id), settings)

    def rename(
        self, conn: Connection, settings: Settings, account_id: str, container_id: str, name: str
    ) -> dict[str, Any]:
        """Rename a live container; returns it in wire form."""
        self.or_404(conn, account_id, container_id)
        conn.execute(
            f"UPDATE {self.table} SET name = ?, updated_at = ? WHERE id = ?",
            (name, conn.store.clock.now(), container_id),
        )
        return self.get(conn, settings, account_id, container_id)

    def delete(self, conn: Connection, account_id: str, container_id: str) -> None:
        """Soft-delete a live container."""
        self.or_404(conn, account_id, container_id)
        now = conn.store.clock.now()
        conn.execute(
            f"UPDATE {self.table} SET deleted_at = ?, updated_at = ? WHERE id = ?",
            (now, now, container_id),
        )
