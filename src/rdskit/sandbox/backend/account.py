"""The account and its money: ``/v1/me``, ``/v1/me/usage_history``, ``/v1/prices``.

USD stays canonical: ``balance_used``/``balance_total`` and usage ``quantity`` are USD
numbers; credits (six-decimal strings) are derived at the plan's ``credit_rate_usd`` and
are null when the plan bills in USD. ``balance_used`` includes outstanding reservations, so
``balance_total - balance_used`` is exactly what new work can reserve.

Called by :mod:`rdskit.sandbox.api.account`; no HTTP here.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from typing import Any

from rdskit.models import Account, Prices, UsageRow
from rdskit.sandbox.store import wallet
from rdskit.sandbox.store.accounts import plan_of
from rdskit.sandbox.store.cursors import BY_CREATED, fetch_page
from rdskit.sandbox.store.db import Store

__all__ = ["me", "prices", "usage_history"]


def me(store: Store, account_id: str, seat_id: str) -> dict[str, Any]:
    """The calling seat, its team, the plan (features, limits) and the wallet (wire dict)."""
    with store.read() as conn:
        account = conn.execute("SELECT * FROM accounts WHERE id = ?", (account_id,)).fetchone()
        seats = conn.execute(
            "SELECT * FROM seats WHERE account_id = ? ORDER BY created_at, id", (account_id,)
        ).fetchall()
        plan = plan_of(conn, account_id)
        terms = wallet.terms(conn, account_id)
        funds = wallet.balance(conn, account_id)
    seat = next(s for s in seats if s["id"] == seat_id)
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
        "account_id": account_id,
        "email": seat["email"],
        "name": seat["name"],
        "team_name": account["team_name"],
        "created_at": seat["created_at"],
        "members": members,
        "teams": [{"account_id": account_id, "name": account["team_name"]}],
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
    return Account.model_validate(data).to_wire()


def usage_history(
    store: Store, account_id: str, *, limit: int, cursor: str | None
) -> tuple[list[dict[str, Any]], bool, str | None]:
    """Charges, newest first: USD ``quantity`` plus the credit terms of their time.

    Returns the page's wire rows, ``has_next`` and the next cursor.
    """
    with store.read() as conn:
        got = fetch_page(
            conn,
            columns="*",
            source="usage_rows",
            where="account_id = ?",
            params=[account_id],
            sort=BY_CREATED,
            order="desc",
            limit=limit,
            cursor=cursor,
        )
        current = wallet.terms(conn, account_id)
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
    return rows, got.has_next, got.cursor


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


def prices(store: Store, account_id: str) -> dict[str, Any]:
    """Unit prices of the account's plan in USD (canonical) and credits (wire dict)."""
    with store.read() as conn:
        terms = wallet.terms(conn, account_id)
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
    return Prices.model_validate(data).to_wire()
