"""The account and its money: ``/v1/me``, ``/v1/me/usage_history``, ``/v1/prices``.

Thin: the rules (USD canonical, credits derived at the plan's rate, reservations counted as
used) live in :mod:`rdskit.sandbox.backend.account`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from rdskit.models.account import INSTANCE_HEADER
from rdskit.sandbox.api._common import (
    ApiError,
    Auth,
    Newest25,
    StoreDep,
    ok,
    page,
)
from rdskit.sandbox.backend import account as backend

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["account"])


@router.get("/me")
def me(who: Auth, store: StoreDep, response: Response) -> dict[str, Any]:
    """The calling seat, its team, the plan (features, limits) and the wallet; the
    database's instance in a header (a fresh sandbox repeats the last one's ids)."""
    response.headers[INSTANCE_HEADER] = store.instance
    return ok(backend.me(store, who.account_id, who.seat_id))


@router.get("/me/usage_history")
def usage_history(
    who: Auth,
    store: StoreDep,
    params: Newest25,
) -> dict[str, Any]:
    """Charges, newest first (``limit`` and ``cursor``; no ``order``): USD ``quantity``
    plus the credit terms of their time."""
    rows, has_next, cursor = backend.usage_history(
        store, who.account_id, limit=params.limit, cursor=params.cursor
    )
    return page(rows, has_next=has_next, cursor=cursor)


@router.get("/prices")
def prices(who: Auth, store: StoreDep) -> dict[str, Any]:
    """Unit prices of the account's plan in USD (canonical) and credits."""
    return ok(backend.prices(store, who.account_id))


@router.api_route(
    "/credit_prices",
    methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    include_in_schema=False,
)
def credit_prices_removed() -> None:
    """Removed from the service (spec, Versioning): 404 whatever the method."""
    raise ApiError(404, "not_found", "GET /v1/credit_prices has been removed; use GET /v1/prices.")
