"""Every table section of the sandbox's schema, listed explicitly, in creation order.

:class:`rdskit.sandbox.store.db.Store` creates :data:`rdskit.sandbox.store.db.CORE_SCHEMA`
(accounts, keys, wallet, datasets, runs, mentions, jobs) followed by these sections. A new
part adds its ``SCHEMA`` here; routers and job kinds are listed in :mod:`rdskit.sandbox.registry`.
The list lives in the backend (not in the registry) because the store needs it and the
store sits below the API.

Example:
    >>> [name for name, _ in SECTIONS][:2]
    ['audiences', 'chats']
"""

from __future__ import annotations

import os
from datetime import date

from rdskit.sandbox.backend import (
    audiences,
    chats,
    custom_parameters,
    mention_query,
    patterns,
    previews,
    tracking,
)
from rdskit.sandbox.store.db import Store

__all__ = ["SECTIONS", "open_store"]

SECTIONS: tuple[tuple[str, str], ...] = (
    ("audiences", audiences.SCHEMA),
    ("chats", chats.SCHEMA),
    ("custom_parameters", custom_parameters.SCHEMA),
    ("mentions", mention_query.SCHEMA),  # sort indexes and extracted parameter values
    ("patterns", patterns.SCHEMA),
    ("previews", previews.SCHEMA),
    ("tracking", tracking.SCHEMA),
)
"""``(part, DDL)`` pairs; order matters only in that triggers follow their tables."""


def open_store(
    path: str | os.PathLike[str] | None = None,
    *,
    seed: int = 0,
    speed: float = 1.0,
    today: date | None = None,
    busy_timeout: float = 30.0,
) -> Store:
    """A :class:`~rdskit.sandbox.store.db.Store` with every part's tables (:data:`SECTIONS`
    handed to it: the store imports no part).

    Example:
        >>> with open_store(":memory:") as store, store.read() as conn:
        ...     conn.execute("SELECT count(*) FROM patterns").fetchone()[0]
        0
    """
    return Store(
        path, schema=SECTIONS, seed=seed, speed=speed, today=today, busy_timeout=busy_timeout
    )
