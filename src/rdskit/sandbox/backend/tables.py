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

from rdskit.sandbox.backend import (
    audiences,
    chats,
    custom_parameters,
    mention_query,
    patterns,
    previews,
    tracking,
)

__all__ = ["SECTIONS"]

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
