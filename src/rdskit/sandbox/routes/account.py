"""The account and its money: ``/v1/me``, ``/v1/me/usage_history``, ``/v1/prices``.

USD stays canonical: ``balance_used``/``balance_total`` and usage ``quantity`` are USD
numbers; credits (six-decimal strings) are derived at the plan's ``credit_rate_usd`` and
are null when the plan bills in USD. ``balance_used`` includes outstanding reservations, so
``balance_total - balance_used`` is exactly what new work can reserve.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from typing import Annotated, Any

from fastapi import APIRouter, Depends

from rdskit.models import Account, Prices, UsageRow
from rdskit.sandbox import wallet
from rdskit.sandbox.accounts import plan_of
from rdskit.sandbox.cursors import BY_CREATED, fetch_page
from rdskit.sandbox.routes._common import (
    ApiError,
    Auth,
    ListParams,
    StoreDep,
    list_params,
    ok,
    page,
)

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["account"])


@router.get("/me")
def me(who: Auth, store: StoreDep) -> dict[str, Any]:
    """The calling seat, its team, the plan (features, limits) and the wallet."""
    with store.read() as conn:
        account = conn.execute("SELECT * FROM accounts WHERE id = ?", (who.account_id,)).fetchone()
        seats = conn.execute(
            "SELECT * FROM seats WHERE account_id = ? ORDER BY created_at, id", (who.account_id,)
        ).fetchall()
        plan = plan_of(conn, who.account_id)
        terms = wallet.terms(conn, who.account_id)
        funds = wallet.balance(conn, who.account_id)
    seat = next(s for s in seats if s["id"] == who.seat_id)
    rate = terms.credit_rate_usd
    used = funds.used + funds.held
    members = [
        {"type": "invitation", "email": s["email"]}
        if s["kind"] == "invitation"
        else {"type": "member", "user_id": s["id"], "email": s["email"], "name": s["name"]}
        for s in seats
    ]
    data = {
        "id": seat["id"],
        "account_id": who.account_id,
        "email": seat["email"],
        "name": seat["name"],
        "team_name": account["team_name"],
        "created_at": seat["created_at"],
        "members": members,
        "teams": [{"account_id": who.account_id, "name": account["team_name"]}],
        "plan": {
            "name": plan["name"],
            "type": plan["type"],
            "features": plan["features"],
            "limits": plan["limits"],
        },
        "usage": {
            "credits_used": wallet.credits_of(used, rate),
            "credits_total": wallet.credits_of(funds.total, rate),
            "billing": terms.billing(),
            "balance_used": used,
            "balance_total": funds.total,
            "renews_at": account["renews_at"],
        },
    }
    return ok(Account.model_validate(data).to_wire())


def _usage_params(params: Annotated[ListParams, Depends(list_params(25))]) -> ListParams:
    """Usage history takes ``limit`` and ``cursor`` only: always newest first."""
    return ListParams(params.limit, params.cursor, "desc")


@router.get("/me/usage_history")
def usage_history(
    who: Auth, store: StoreDep, params: Annotated[ListParams, Depends(_usage_params)]
) -> dict[str, Any]:
    """Charges, newest first: USD ``quantity`` plus the credit terms of their time."""
    with store.read() as conn:
        got = fetch_page(
            conn,
            columns="*",
            source="usage_rows",
            where="account_id = ?",
            params=[who.account_id],
            sort=BY_CREATED,
            order=params.order,
            limit=params.limit,
            cursor=params.cursor,
        )
        current = wallet.terms(conn, who.account_id)
    rows = [
        UsageRow.model_validate(
            {
                "id": row["id"],
                "category": row["category"],
                "quantity": Decimal(row["quantity_usd"]),
                "created_at": row["created_at"],
                **_credit_terms(row, current),
            }
        ).to_wire()
        for row in got.rows
    ]
    return page(rows, has_next=got.has_next, cursor=got.cursor)


def _credit_terms(row: sqlite3.Row, current: wallet.Terms) -> dict[str, Any]:
    """A usage row's four credit fields, by its ``credit_value_basis``.

    A ``snapshot`` row keeps the terms it was charged under. A row booked without credit
    terms (while the account billed in plain USD) is a pre-snapshot event: it is shown at
    today's rate as ``current``, or with all four fields null when there is no rate today.
    """
    if row["credit_value_basis"] == "snapshot":
        return {
            "quantity_credits": row["quantity_credits"],
            "credit_rate_usd": row["credit_rate_usd"],
            "billing_catalog_version": row["billing_catalog_version"],
            "credit_value_basis": "snapshot",
        }
    rate = current.credit_rate_usd
    return {
        "quantity_credits": wallet.credits_of(Decimal(row["quantity_usd"]), rate),
        "credit_rate_usd": rate,
        "billing_catalog_version": None if rate is None else current.catalog_version,
        "credit_value_basis": None if rate is None else "current",
    }


@router.get("/prices")
def prices(who: Auth, store: StoreDep) -> dict[str, Any]:
    """Unit prices of the account's plan in USD (canonical) and credits."""
    with store.read() as conn:
        terms = wallet.terms(conn, who.account_id)
    usd = {name: terms.prices_usd.get(name) for name in wallet.CATEGORIES}
    credits = terms.prices_credits()
    data = {
        "prices_credits": None
        if credits is None
        else {n: credits.get(n) for n in wallet.CATEGORIES},
        "billing": terms.billing(),
        "currency": "usd",
        "rate": usd["mention"],
        "prices": usd,
    }
    return ok(Prices.model_validate(data).to_wire())


@router.api_route(
    "/credit_prices",
    methods=["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    include_in_schema=False,
)
def credit_prices_removed() -> None:
    """Removed from the service (spec, Versioning): 404 whatever the method."""
    raise ApiError(404, "not_found", "GET /v1/credit_prices has been removed; use GET /v1/prices.")
