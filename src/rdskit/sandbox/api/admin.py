"""Sandbox-only admin endpoints under ``/sandbox/...`` (not part of the service's API).

They set up what the real service does in its web app: accounts, seats, API keys, plans,
wallets, plus switches for failure modes. All need the ``x-admin-token`` header except
``GET /sandbox/health``. ``rdskit.sandbox.AdminClient`` wraps them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from rdskit.sandbox import accounts, wallet
from rdskit.sandbox.api._common import Admin, ApiError, StoreDep, ok

__all__ = ["router"]

router = APIRouter(prefix="/sandbox", tags=["sandbox admin"])
admin = APIRouter(dependencies=[Admin])


@router.get("/health")
def health() -> dict[str, Any]:
    """Liveness probe (no token needed)."""
    return ok({"ok": True})


class NewAccountBody(BaseModel):
    team_name: str = "Sandbox Team"
    email: str = "owner@example.test"
    name: str | None = None
    plan: str = "Pro"
    wallet_usd: Decimal | None = Field(default=None, ge=0)


class NewSeatBody(BaseModel):
    email: str
    name: str | None = None
    kind: Literal["member", "invitation"] = "member"


class KeyBody(BaseModel):
    api_key: str


class PlanBody(BaseModel):
    plan: str


class WalletBody(BaseModel):
    total_usd: Decimal | None = Field(default=None, ge=0)
    used_usd: Decimal | None = Field(default=None, ge=0)


class AssistantBody(BaseModel):
    failure: Literal["ai_assistant_unavailable", "ai_assistant_timeout"] | None = None


@admin.post("/accounts")
def create_account(body: NewAccountBody, store: StoreDep) -> dict[str, Any]:
    """Create an account with an owner seat; the owner's key is returned once."""
    with store.transaction() as conn:
        created = accounts.create_account(conn, **body.model_dump())
    return ok(
        {"account_id": created.account_id, "seat_id": created.seat_id, "api_key": created.api_key}
    )


@admin.get("/accounts/{account_id}")
def get_account(account_id: str, store: StoreDep) -> dict[str, Any]:
    """Plan, wallet (USD strings) and seats of an account."""
    with store.read() as conn:
        plan = accounts.plan_of(conn, account_id)
        funds = wallet.balance(conn, account_id)
        seats = conn.execute(
            "SELECT id, kind, email, name FROM seats WHERE account_id = ? ORDER BY created_at",
            (account_id,),
        ).fetchall()
        failure = conn.execute(
            "SELECT assistant_failure FROM accounts WHERE id = ?", (account_id,)
        ).fetchone()[0]
    return ok(
        {
            "account_id": account_id,
            "plan": plan["name"],
            "wallet": {
                "total_usd": str(funds.total),
                "used_usd": str(funds.used),
                "held_usd": str(funds.held),
                "available_usd": str(funds.available),
            },
            "seats": [dict(seat) for seat in seats],
            "assistant_failure": failure,
        }
    )


@admin.post("/accounts/{account_id}/seats")
def create_seat(account_id: str, body: NewSeatBody, store: StoreDep) -> dict[str, Any]:
    """Add a member (who can hold keys) or an invitation."""
    with store.transaction() as conn:
        accounts.plan_of(conn, account_id)  # 404 for an unknown account
        seat_id = accounts.create_seat(conn, account_id, **body.model_dump())
    return ok({"seat_id": seat_id})


@admin.delete("/seats/{seat_id}")
def delete_seat(seat_id: str, store: StoreDep) -> dict[str, Any]:
    """Remove a seat and its keys."""
    with store.transaction() as conn:
        accounts.delete_seat(conn, seat_id)
    return ok({"seat_id": seat_id, "deleted": True})


@admin.post("/seats/{seat_id}/keys")
def mint_key(seat_id: str, store: StoreDep) -> dict[str, Any]:
    """Mint a key for the seat (shown once)."""
    with store.transaction() as conn:
        api_key = accounts.mint_key(conn, seat_id)
    return ok({"api_key": api_key})


@admin.post("/keys/revoke")
def revoke_key(body: KeyBody, store: StoreDep) -> dict[str, Any]:
    """Revoke a key; its next call is 401."""
    with store.transaction() as conn:
        accounts.revoke_key(conn, body.api_key)
    return ok({"revoked": True})


@admin.put("/accounts/{account_id}/plan")
def set_plan(account_id: str, body: PlanBody, store: StoreDep) -> dict[str, Any]:
    """Switch plan: Trial, Starter, Pro, Business or Legacy (USD billing)."""
    with store.transaction() as conn:
        accounts.set_plan(conn, account_id, body.plan)
    return ok({"account_id": account_id, "plan": body.plan})


@admin.put("/accounts/{account_id}/wallet")
def set_wallet(account_id: str, body: WalletBody, store: StoreDep) -> dict[str, Any]:
    """Overwrite wallet totals (USD)."""
    if body.total_usd is None and body.used_usd is None:
        raise ApiError(400, "nothing_to_update", "Give total_usd and/or used_usd.")
    with store.transaction() as conn:
        accounts.set_wallet(conn, account_id, total_usd=body.total_usd, used_usd=body.used_usd)
    return ok({"account_id": account_id})


@admin.put("/accounts/{account_id}/assistant")
def set_assistant_failure(account_id: str, body: AssistantBody, store: StoreDep) -> dict[str, Any]:
    """Make Ask fail with ``ai_assistant_unavailable``/``ai_assistant_timeout`` (null: heal)."""
    with store.transaction() as conn:
        updated = conn.execute(
            "UPDATE accounts SET assistant_failure = ? WHERE id = ?", (body.failure, account_id)
        ).rowcount
    if not updated:
        raise ApiError(404, "account_not_found", f"Account {account_id} not found")
    return ok({"account_id": account_id, "failure": body.failure})


router.include_router(admin)
