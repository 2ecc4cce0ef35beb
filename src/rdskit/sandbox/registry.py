"""What the sandbox app is made of, listed explicitly: its routers and its job kinds.

FastAPI's larger-application layout: :func:`rdskit.sandbox.app.create_app` includes each
router of :data:`ROUTERS` (in this order) and hands :data:`JOBS` to its worker. Nothing is
discovered by scanning packages, so adding a part means adding it here (its tables go to
:mod:`rdskit.sandbox.backend.tables`, which the store below the API reads).

Example:
    >>> "dataset_run.advance" in {job.kind for job in JOBS}
    True
"""

from __future__ import annotations

from fastapi import APIRouter

from rdskit.sandbox.api import (
    account,
    admin,
    audiences,
    chaos,
    chats,
    custom_parameters,
    datasets,
    mentions,
    patterns,
    previews,
    tracking,
)
from rdskit.sandbox.worker import JobKind

__all__ = ["JOBS", "ROUTERS"]

ROUTERS: tuple[APIRouter, ...] = (
    account.router,
    admin.router,
    audiences.router,
    chaos.router,
    chats.router,
    custom_parameters.router,
    datasets.router,
    mentions.router,
    patterns.router,
    previews.router,
    tracking.router,
)
"""Every REST router, in inclusion order (it decides which of two equal paths wins)."""

JOBS: tuple[JobKind, ...] = (
    *audiences.JOBS,
    *chats.JOBS,
    *custom_parameters.JOBS,
    *datasets.JOBS,
    *patterns.JOBS,
    *tracking.JOBS,
)
"""Every background job kind the worker runs."""
