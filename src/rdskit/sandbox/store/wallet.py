"""One USD wallet per account: prices, reservations, charges, refunds, usage rows.

USD is canonical and exact (``Decimal``, stored as strings); credits are a presentation of
USD at the plan's ``credit_rate_usd`` (credits = USD / rate, six decimals, rounded only for
display). The balance available to new work is ``total - used - held reservations``.

Chargeable work follows one pattern, each step inside the caller's transaction:

1. ``reserve(conn, account, category, upper_bound_quantity, ref, error_code=...)`` when the
   request arrives (402 with ``error_code`` and nothing written if it cannot be funded);
2. ``settle(conn, reservation_id, actual_quantity)`` on completion (charges the actuals,
   writes the usage row, releases the rest), or ``refund(conn, reservation_id)`` on failure.

``charge(conn, account, category, usd)`` books a direct charge (e.g. assistant inference).

Example:
    >>> credits_of(Decimal("1.78"), Decimal("0.0148333333333333"))
    Decimal('120.000000')
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from rdskit.models import InsufficientCreditsDetail
from rdskit.models.vocab import CREDIT_PLACES, PRICE_CATEGORIES
from rdskit.sandbox.errors import ApiError
from rdskit.sandbox.store.db import Connection, loads, new_id

__all__ = [
    "CATEGORIES",
    "Balance",
    "Terms",
    "balance",
    "charge",
    "credits_of",
    "insufficient",
    "refund",
    "reserve",
    "settle",
    "terms",
]

CATEGORIES = PRICE_CATEGORIES
"""The priced categories of GET /v1/prices."""


def credits_of(usd: Decimal, rate: Decimal | None) -> Decimal | None:
    """USD -> credits at ``rate``, quantized to six decimals; ``None`` without a rate."""
    if rate is None:
        return None
    return (usd / rate).quantize(CREDIT_PLACES, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True)
class Terms:
    """The billing terms an account has right now (its plan's catalog)."""

    plan: str
    credit_rate_usd: Decimal | None
    catalog_version: str
    prices_usd: dict[str, Decimal | None]

    def unit_usd(self, category: str) -> Decimal:
        """USD price of one unit of ``category``; unknown or unpriced categories raise."""
        price = self.prices_usd.get(category)
        if price is None:
            raise ValueError(f"category {category!r} has no price on plan {self.plan}")
        return price

    def prices_credits(self) -> dict[str, Decimal | None] | None:
        """Credit prices per category, or ``None`` when the plan bills in USD."""
        if self.credit_rate_usd is None:
            return None
        return {
            name: credits_of(usd, self.credit_rate_usd) if usd is not None else None
            for name, usd in self.prices_usd.items()
        }

    def billing(self) -> dict[str, Any] | None:
        """The ``billing`` object of /v1/me and /v1/prices (``None`` without a credit rate)."""
        if self.credit_rate_usd is None:
            return None
        return {
            "unit": "credits",
            "credit_rate_usd": str(self.credit_rate_usd),
            "catalog_version": self.catalog_version,
            "precision": 6,
        }


def terms(conn: sqlite3.Connection, account_id: str) -> Terms:
    """The account's current billing terms."""
    row = conn.execute(
        "SELECT p.name, p.credit_rate_usd, p.catalog_version, p.prices_usd "
        "FROM accounts a JOIN plans p ON p.name = a.plan WHERE a.id = ?",
        (account_id,),
    ).fetchone()
    if row is None:
        raise LookupError(f"no account {account_id}")
    prices = {k: None if v is None else Decimal(v) for k, v in loads(row["prices_usd"]).items()}
    rate = None if row["credit_rate_usd"] is None else Decimal(row["credit_rate_usd"])
    return Terms(row["name"], rate, row["catalog_version"], prices)


@dataclass(frozen=True)
class Balance:
    """Wallet totals in USD; ``held`` is the sum of outstanding reservations."""

    total: Decimal
    used: Decimal
    held: Decimal

    @property
    def available(self) -> Decimal:
        """What new work may still reserve."""
        return self.total - self.used - self.held


def balance(conn: sqlite3.Connection, account_id: str) -> Balance:
    """The account's wallet right now."""
    wallet = conn.execute(
        "SELECT total_usd, used_usd FROM wallets WHERE account_id = ?", (account_id,)
    ).fetchone()
    held = conn.execute(
        "SELECT amount_usd FROM reservations WHERE account_id = ? AND state = 'held'",
        (account_id,),
    ).fetchall()
    return Balance(
        Decimal(wallet["total_usd"]),
        Decimal(wallet["used_usd"]),
        sum((Decimal(r["amount_usd"]) for r in held), Decimal(0)),
    )


def _add_used(conn: sqlite3.Connection, account_id: str, usd: Decimal) -> None:
    used = Decimal(
        conn.execute("SELECT used_usd FROM wallets WHERE account_id = ?", (account_id,)).fetchone()[
            0
        ]
    )
    conn.execute(
        "UPDATE wallets SET used_usd = ? WHERE account_id = ?", (str(used + usd), account_id)
    )


def _usage_row(
    conn: Connection, account_id: str, category: str, usd: Decimal, ref: str | None
) -> int:
    """Book one usage history row priced under the account's current terms (snapshot)."""
    current = terms(conn, account_id)
    rate = current.credit_rate_usd
    cursor = conn.execute(
        "INSERT INTO usage_rows (account_id, category, quantity_usd, quantity_credits,"
        " credit_rate_usd, billing_catalog_version, credit_value_basis, ref, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            account_id,
            category,
            str(usd),
            None if rate is None else str(credits_of(usd, rate)),
            None if rate is None else str(rate),
            None if rate is None else current.catalog_version,
            None if rate is None else "snapshot",
            ref,
            conn.store.clock.now(),
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def reserve(
    conn: Connection,
    account_id: str,
    category: str,
    quantity: int | Decimal,
    ref: str,
    *,
    error_code: str,
    top_up_url: str,
) -> str:
    """Hold ``quantity`` units of ``category`` for ``ref``; return the reservation id.

    Raises ApiError 402 ``error_code`` (nothing written) when the available balance is
    below the cost. The 402 detail carries USD strings ``required``/``available`` and,
    under a credit rate, ``required_credits``/``available_credits``.
    """
    current = terms(conn, account_id)
    unit = current.unit_usd(category)
    amount = unit * Decimal(quantity)
    available = balance(conn, account_id).available
    if amount > available:
        raise insufficient(current, error_code, amount, available, top_up_url)
    reservation_id = new_id(conn, "res")
    conn.execute(
        "INSERT INTO reservations (id, account_id, category, quantity, unit_usd, amount_usd,"
        " ref, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'held', ?)",
        (
            reservation_id,
            account_id,
            category,
            str(quantity),
            str(unit),
            str(amount),
            ref,
            conn.store.clock.now(),
        ),
    )
    return reservation_id


def insufficient(
    current: Terms, error_code: str, required: Decimal, available: Decimal, top_up_url: str
) -> ApiError:
    """The 402 for a cost of ``required`` USD against ``available`` USD."""
    rate = current.credit_rate_usd
    shown = max(available, Decimal(0))
    detail: dict[str, Any] = {
        "message": f"Insufficient balance: this needs {required} USD, {shown} USD available.",
        "required": required,
        "available": shown,
        "top_up_url": top_up_url,
    }
    if rate is not None:  # credit presentation only under a credit rate; USD is never relabelled
        detail["required_credits"] = credits_of(required, rate)
        detail["available_credits"] = credits_of(shown, rate)
    return ApiError(402, error_code, InsufficientCreditsDetail.model_validate(detail).to_wire())


def _held(conn: sqlite3.Connection, reservation_id: str) -> sqlite3.Row:
    row = conn.execute(
        "SELECT * FROM reservations WHERE id = ? AND state = 'held'", (reservation_id,)
    ).fetchone()
    if row is None:
        raise LookupError(f"reservation {reservation_id} is not held")
    held: sqlite3.Row = row
    return held


def settle(conn: Connection, reservation_id: str, actual_quantity: int | Decimal) -> Decimal:
    """Charge the actual quantity (capped at the reserved one), release the rest.

    Returns the USD charged. A zero charge writes no usage row.
    """
    held = _held(conn, reservation_id)
    quantity = min(Decimal(actual_quantity), Decimal(held["quantity"]))
    usd = Decimal(held["unit_usd"]) * max(quantity, Decimal(0))
    conn.execute(
        "UPDATE reservations SET state = 'settled', closed_at = ? WHERE id = ?",
        (conn.store.clock.now(), reservation_id),
    )
    if usd > 0:
        _add_used(conn, held["account_id"], usd)
        _usage_row(conn, held["account_id"], held["category"], usd, held["ref"])
    return usd


def refund(conn: Connection, reservation_id: str) -> None:
    """Release the whole reservation (the work failed); nothing is charged."""
    _held(conn, reservation_id)
    conn.execute(
        "UPDATE reservations SET state = 'refunded', closed_at = ? WHERE id = ?",
        (conn.store.clock.now(), reservation_id),
    )


def charge(
    conn: Connection, account_id: str, category: str, usd: Decimal, *, ref: str | None = None
) -> int:
    """Book a direct charge of ``usd`` (no reservation); returns the usage row id.

    The balance may go below zero: callers check affordability first when the spec says so
    (e.g. ``insufficient_credits_ask`` once the balance is spent).
    """
    if usd < 0:
        raise ValueError("a charge cannot be negative")
    _add_used(conn, account_id, usd)
    return _usage_row(conn, account_id, category, usd, ref)
