"""What the sandbox app is made of, listed explicitly: its routers, job kinds and run kinds.

FastAPI's larger-application layout: :func:`rdskit.sandbox.app.create_app` includes each
router of :data:`ROUTERS` (in this order) and hands :data:`JOBS` to its worker. Nothing is
discovered by scanning packages, so adding a part means adding it here (its tables go to
:mod:`rdskit.sandbox.backend.tables`, which the store below the API reads).

Example:
    >>> "dataset_run.advance" in {job.kind for job in JOBS}
    True
"""

from __future__ import annotations

from typing import Any

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
from rdskit.sandbox.backend import audiences as audiences_backend
from rdskit.sandbox.backend import chats as chats_backend
from rdskit.sandbox.backend import custom_parameters as custom_parameters_backend
from rdskit.sandbox.backend import datasets as datasets_backend
from rdskit.sandbox.backend import patterns as patterns_backend
from rdskit.sandbox.backend import tracking as tracking_backend
from rdskit.sandbox.backend.runs import RunKind
from rdskit.sandbox.runtime.worker import JobKind

__all__ = ["JOBS", "ROUTERS", "RUN_KINDS"]

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
    *audiences_backend.JOBS,
    *chats_backend.JOBS,
    *custom_parameters_backend.JOBS,
    *datasets_backend.JOBS,
    *patterns_backend.JOBS,
    *tracking_backend.JOBS,
)
"""Every background job kind the worker runs."""

RUN_KINDS: tuple[RunKind[Any], ...] = (
    datasets_backend.RUN,
    audiences_backend.RUN,
    custom_parameters_backend.RUN,
    patterns_backend.RUN,
    tracking_backend.CYCLE,
)
"""Every kind of run, each on the one run state machine (its job is in :data:`JOBS`)."""
