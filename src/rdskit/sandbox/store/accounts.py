"""Plans, accounts, seats and API keys of the sandbox.

Plans are priced as the spec prices them (Starter 98 USD / 5,000 credits, 1 seat; Pro 178
USD / 12,000 credits, 3 seats; Business 450 USD / 60,000 credits, 5 seats; Trial 1 USD for
one day with 1,000 credits). ``Legacy`` bills in plain USD with no credit rate, so the
"no current rate" paths (null credit fields) can be exercised.

Keys are ``bz_test_`` + 32 hex; only their SHA-256 digest is stored. The default
account's first key is derived from the seed, so ``rdskit sandbox --seed N`` always prints
the same key (a local test key, not a secret).

Example:
    >>> from rdskit.sandbox.store.db import Store
    >>> with Store(":memory:") as store, store.transaction() as conn:
    ...     _ = bootstrap(conn)
    ...     acct = create_account(conn, team_name="Acme", plan="Starter", email="a@acme.test")
    ...     acct.api_key.startswith("bz_test_"), plan_of(conn, acct.account_id)["name"]
    (True, 'Starter')
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from rdskit._config import mask_key
from rdskit.models.vocab import PLAN_FEATURES
from rdskit.sandbox.errors import ApiError
from rdskit.sandbox.store.db import Connection, dumps, loads, new_id

__all__ = [
    "CATALOG_VERSION",
    "DEFAULT_EMAIL",
    "DEFAULT_WALLET_USD",
    "PLANS",
    "NewAccount",
    "bootstrap",
    "create_account",
    "create_seat",
    "default_api_key",
    "delete_seat",
    "key_digest",
    "key_owner",
    "mint_key",
    "plan_of",
    "refusal",
    "revoke_key",
    "set_plan",
    "set_wallet",
]

CATALOG_VERSION = "2026-01-01"
DEFAULT_EMAIL = "owner@sandbox.rdskit.invalid"
_DAY = 86_400.0
_MONTH = 30 * _DAY
# Credits per unit on ordinary plans (spec, Limits).
_CREDITS = {"mention": 1, "audience_profile": 3, "post_processing": "0.5", "preview_generation": 1}
# Enough places that any wallet up to millions of USD shows whole credits exactly
# (1,780 USD of Pro: 120000.000000), and few enough to survive a JSON float round trip.
_RATE_PLACES = Decimal("1E-16")

_ALL_FEATURES = PLAN_FEATURES


def key_digest(api_key: str) -> str:
    """SHA-256 hex digest of a raw API key: the only form the sandbox stores.

    Example:
        >>> len(key_digest("rds_example"))
        64
    """
    return hashlib.sha256(api_key.encode()).hexdigest()


def key_owner(conn: sqlite3.Connection, digest: str) -> sqlite3.Row | None:
    """The ``account_id`` and ``seat_id`` of the active key whose digest is ``digest``
    (``None`` for an unknown or revoked key).

    Example:
        >>> from rdskit.sandbox.store.db import Store
        >>> with Store(":memory:") as store, store.transaction() as conn:
        ...     account_id = bootstrap(conn)
        ...     owner = key_owner(conn, key_digest(default_api_key(conn.store.seed)))
        ...     owner["account_id"] == account_id, key_owner(conn, key_digest("bz_nope"))
        (True, None)
    """
    row: sqlite3.Row | None = conn.execute(
        "SELECT account_id, seat_id FROM api_keys WHERE digest = ? AND revoked_at IS NULL",
        (digest,),
    ).fetchone()
    return row


def refusal(conn: sqlite3.Connection, api_key: str) -> str:
    """Why the sandbox refuses ``api_key`` (a 401): missing, revoked or unknown, and the
    one fix. Never "check RDSKIT_API_KEY": a notebook's sandbox client used no such key.

    Example:
        >>> from rdskit.sandbox.store.db import Store
        >>> with Store(":memory:") as store, store.transaction() as conn:
        ...     _ = bootstrap(conn)
        ...     revoke_key(conn, default_api_key(conn.store.seed))
        ...     print(refusal(conn, default_api_key(conn.store.seed)))
        This API key was revoked in this sandbox's database (by its admin API, or another \
program using the same file); a new rdskit.Client.sandbox() (%rds connect --sandbox) gets \
a working key.
    """
    if not api_key:
        return "Missing API key (x-api-key header)."
    row = conn.execute(
        "SELECT revoked_at FROM api_keys WHERE digest = ?", (key_digest(api_key),)
    ).fetchone()
    what = (
        "is not a key of this sandbox's database (made for another one?)"
        if row is None
        else "was revoked in this sandbox's database (by its admin API, or another program "
        "using the same file)"
    )
    return f"This API key {what}; {_NEW_CLIENT}."


_NEW_CLIENT = "a new rdskit.Client.sandbox() (%rds connect --sandbox) gets a working key"


def _features(*enabled: str) -> dict[str, bool]:
    return {name: name in enabled for name in _ALL_FEATURES}


@dataclass(frozen=True)
class _Plan:
    name: str
    type: str
    price_usd: str
    credits: int | None  # None: billed in USD
    seats: int  # including the owner
    features: dict[str, bool]
    max_research_depth: int
    parallelism: int
    projects: int
    tracking_agents: int

    def rate(self) -> Decimal | None:
        if self.credits is None:
            return None
        return (Decimal(self.price_usd) / self.credits).quantize(_RATE_PLACES).normalize()

    def unit_usd(self, credits: Decimal) -> Decimal:
        """USD price of ``credits`` from the exact plan fraction (price x credits / allotment),
        so 3 credits on Pro are 0.0445 USD, not 3 x the rounded rate."""
        if self.credits is None:
            return credits * Decimal("0.015")  # Legacy: 1.5 cents per mention-credit
        exact = Decimal(self.price_usd) * credits / self.credits
        return exact.quantize(_RATE_PLACES).normalize()

    def allotment_usd(self) -> Decimal:
        """The wallet a new account on this plan starts with: its price (Trial: 1 USD, i.e.
        1,000 credits; Legacy, billed in USD: its monthly fee)."""
        return Decimal(self.price_usd)

    def row(self) -> tuple[Any, ...]:
        prices = {k: str(self.unit_usd(Decimal(str(v)))) for k, v in _CREDITS.items()}
        limits = {
            "max_research_depth": self.max_research_depth,
            "num_seats": self.seats - 1,  # the spec counts invited teammates only
            "parallelism": self.parallelism,
            "projects": self.projects,
            "tracking_agents": self.tracking_agents,
        }
        return (
            self.name,
            self.type,
            self.price_usd,
            self.credits,
            None if self.credits is None else str(self.rate()),
            CATALOG_VERSION,
            dumps(prices),
            dumps(self.features),
            dumps(limits),
        )


_PAID = ("api_access", "csv_export", "multisource_research", "daily_digest")
PLANS: dict[str, _Plan] = {
    p.name: p
    for p in (
        _Plan("Trial", "one_time", "1", 1_000, 1, _features("api_access"), 100, 1, 1, 0),
        _Plan("Starter", "subscription", "98", 5_000, 1, _features(*_PAID), 500, 2, 5, 1),
        _Plan(
            "Pro",
            "subscription",
            "178",
            12_000,
            3,
            _features(*_PAID, "audience_research", "custom_date_filter", "mcp", "webhooks"),
            1_000,
            5,
            20,
            5,
        ),
        _Plan(
            "Business",
            "subscription",
            "450",
            60_000,
            5,
            _features(*_ALL_FEATURES),
            5_000,
            10,
            -1,
            20,
        ),
        _Plan("Legacy", "subscription", "178", None, 3, _features(*_ALL_FEATURES), 1_000, 5, 20, 5),
    )
}
"""The sandbox's plan catalog, seeded into the ``plans`` table."""

DEFAULT_WALLET_USD = PLANS["Pro"].allotment_usd() * 10
"""The default account's wallet: ten Pro allotments (1,780 USD = 120,000 credits)."""


def plan_of(conn: sqlite3.Connection, account_id: str) -> dict[str, Any]:
    """The account's plan: name, type, price_usd, credits, features and limits (dicts)."""
    row = conn.execute(
        "SELECT p.* FROM plans p JOIN accounts a ON a.plan = p.name WHERE a.id = ?",
        (account_id,),
    ).fetchone()
    if row is None:
        raise ApiError(404, "account_not_found", f"Account {account_id} not found")
    return {**dict(row), "features": loads(row["features"]), "limits": loads(row["limits"])}


@dataclass(frozen=True)
class NewAccount:
    """A freshly created account, its owner seat and the owner's raw key (shown once)."""

    account_id: str
    seat_id: str
    api_key: str = field(repr=False)  # the raw key: never in a repr or a traceback

    def __repr__(self) -> str:
        return (
            f"NewAccount(account_id={self.account_id!r}, seat_id={self.seat_id!r}, "
            f"api_key={mask_key(self.api_key)!r})"
        )


def _check_plan(plan: str) -> _Plan:
    if plan not in PLANS:
        raise ApiError(400, "unknown_plan", f"Unknown plan {plan!r}; one of {sorted(PLANS)}")
    return PLANS[plan]


def _renews_at(plan: _Plan, now: float) -> float | None:
    return now + _MONTH if plan.type == "subscription" else None


def create_account(
    conn: Connection,
    *,
    team_name: str,
    email: str,
    name: str | None = None,
    plan: str = "Pro",
    wallet_usd: Decimal | None = None,
    api_key: str | None = None,
) -> NewAccount:
    """Create an account with one owner seat, a key and a wallet.

    The wallet holds ``wallet_usd`` (default: the plan's price, i.e. its credit allotment).
    """
    chosen = _check_plan(plan)
    now = conn.store.clock.now()
    account_id = new_id(conn, "acc")
    conn.execute(
        "INSERT INTO accounts (id, team_name, plan, created_at, renews_at) VALUES (?, ?, ?, ?, ?)",
        (account_id, team_name, plan, now, _renews_at(chosen, now)),
    )
    total = chosen.allotment_usd() if wallet_usd is None else wallet_usd
    conn.execute("INSERT INTO wallets VALUES (?, ?, '0')", (account_id, str(total)))
    seat_id = create_seat(conn, account_id, email=email, name=name, kind="owner")
    return NewAccount(account_id, seat_id, mint_key(conn, seat_id, api_key=api_key))


def create_seat(
    conn: Connection, account_id: str, *, email: str, name: str | None = None, kind: str = "member"
) -> str:
    """Add an owner, member or invitation; an invitation at or above seat capacity is 409."""
    if kind not in ("owner", "member", "invitation"):
        raise ApiError(400, "invalid_seat_kind", "kind is one of owner, member, invitation")
    if kind == "invitation":
        capacity = plan_of(conn, account_id)["limits"]["num_seats"]
        (taken,) = conn.execute(
            "SELECT COUNT(*) FROM seats WHERE account_id = ? AND kind != 'owner'", (account_id,)
        ).fetchone()
        if capacity >= 0 and taken >= capacity:
            raise ApiError(409, "seat_limit_reached", f"The plan allows {capacity} teammates.")
    seat_id = new_id(conn, "usr")
    conn.execute(
        "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)",
        (seat_id, account_id, kind, email, name, conn.store.clock.now()),
    )
    return seat_id


def delete_seat(conn: Connection, seat_id: str) -> None:
    """Remove a seat; its keys go with it (spec: removing a seat deletes its keys)."""
    if conn.execute("DELETE FROM seats WHERE id = ?", (seat_id,)).rowcount == 0:
        raise ApiError(404, "seat_not_found", f"Seat {seat_id} not found")


def mint_key(conn: Connection, seat_id: str, *, api_key: str | None = None) -> str:
    """Mint a ``bz_test_`` key for the seat; the raw value is returned once, never stored."""
    seat = conn.execute("SELECT account_id, kind FROM seats WHERE id = ?", (seat_id,)).fetchone()
    if seat is None:
        raise ApiError(404, "seat_not_found", f"Seat {seat_id} not found")
    if seat["kind"] == "invitation":
        raise ApiError(409, "seat_not_joined", "An invitation cannot hold API keys.")
    raw = api_key or f"bz_test_{secrets.token_hex(16)}"
    conn.execute(
        "INSERT INTO api_keys (digest, account_id, seat_id, hint, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (
            key_digest(raw),
            seat["account_id"],
            seat_id,
            f"{raw[:8]}…{raw[-4:]}",
            conn.store.clock.now(),
        ),
    )
    return raw


def revoke_key(conn: Connection, api_key: str) -> None:
    """Revoke a key: the next call with it gets 401."""
    updated = conn.execute(
        "UPDATE api_keys SET revoked_at = ? WHERE digest = ? AND revoked_at IS NULL",
        (conn.store.clock.now(), key_digest(api_key)),
    ).rowcount
    if not updated:
        raise ApiError(404, "api_key_not_found", "No active key with that value")


def set_plan(conn: Connection, account_id: str, plan: str) -> None:
    """Move the account to ``plan`` (future charges use its terms; history keeps its own)."""
    chosen = _check_plan(plan)
    updated = conn.execute(
        "UPDATE accounts SET plan = ?, renews_at = ? WHERE id = ?",
        (plan, _renews_at(chosen, conn.store.clock.now()), account_id),
    ).rowcount
    if not updated:
        raise ApiError(404, "account_not_found", f"Account {account_id} not found")


def set_wallet(
    conn: Connection,
    account_id: str,
    *,
    total_usd: Decimal | None = None,
    used_usd: Decimal | None = None,
) -> None:
    """Overwrite the wallet's total and/or used USD (test set-up: top-ups, spent balances)."""
    row = conn.execute(
        "SELECT total_usd, used_usd FROM wallets WHERE account_id = ?", (account_id,)
    ).fetchone()
    if row is None:
        raise ApiError(404, "account_not_found", f"Account {account_id} not found")
    total = row["total_usd"] if total_usd is None else str(total_usd)
    used = row["used_usd"] if used_usd is None else str(used_usd)
    conn.execute(
        "UPDATE wallets SET total_usd = ?, used_usd = ? WHERE account_id = ?",
        (total, used, account_id),
    )


def default_api_key(seed: int) -> str:
    """The default account's well-known key for ``seed``."""
    return "bz_test_" + hashlib.sha256(f"rdskit-sandbox-default:{seed}".encode()).hexdigest()[:32]


def bootstrap(conn: Connection) -> str:
    """Load the plan catalog and create the default account once; return its id.

    The default account is on Pro with ten times the monthly allotment (1,780 USD =
    120,000 credits) and one owner seat holding :func:`default_api_key`.
    """
    conn.executemany(
        "INSERT OR REPLACE INTO plans VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [plan.row() for plan in PLANS.values()],
    )
    row = conn.execute("SELECT value FROM meta WHERE key = 'default_account'").fetchone()
    if row is not None:
        return str(row[0])
    account = create_account(
        conn,
        team_name="Sandbox Team",
        email=DEFAULT_EMAIL,
        name="Sandbox Owner",
        plan="Pro",
        wallet_usd=DEFAULT_WALLET_USD,
        api_key=default_api_key(conn.store.seed),
    )
    conn.execute("INSERT INTO meta VALUES ('default_account', ?)", (account.account_id,))
    return account.account_id
