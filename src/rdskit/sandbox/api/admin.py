"""Sandbox-only admin endpoints under ``/sandbox/...`` (not part of the service's API).

They set up what the real service does in its web app: accounts, seats, API keys, plans,
wallets, plus switches for failure modes. All need the ``x-admin-token`` header except
``GET /sandbox/health`` and ``POST /sandbox/platforms``, which any account's key opens (it
changes no account and nothing a search returns: see :func:`platforms`).
``rdskit.sandbox.AdminClient`` wraps them.

Thin: the bodies, bounds and rules live in :mod:`rdskit.sandbox.backend.admin`. Path ids
are declared with its bounds, so a 10,000-character or NUL-holding id is a 422 naming the
parameter (``["path", "account_id"]``), never a lookup.

Example (HTTP)::

    PUT /sandbox/accounts/acc_…/wallet {"total_usd": "0"}   (x-admin-token: …)
    -> {"status": "success", "data": {"account_id": "acc_…"}}
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from rdskit.sandbox.api._common import Admin, Auth, SettingsDep, StoreDep, ok
from rdskit.sandbox.backend import admin as backend
from rdskit.sandbox.backend.admin import (
    AssistantBody,
    KeyBody,
    NewAccountBody,
    NewSeatBody,
    PlanBody,
    PlatformsBody,
    PostChangesBody,
    TruthBody,
    WalletBody,
)

__all__ = ["router"]

router = APIRouter(prefix="/sandbox", tags=["sandbox admin"])
admin = APIRouter(dependencies=[Admin])

RowId = Annotated[
    str, Path(min_length=1, max_length=backend.MAX_ID_CHARS, pattern=backend.ID_PATTERN)
]
"""An account or seat id in the path, bounded before any lookup."""


@router.get("/health")
def health() -> dict[str, Any]:
    """Liveness probe (no token needed)."""
    return ok({"ok": True})


@admin.post("/accounts")
def create_account(body: NewAccountBody, store: StoreDep) -> dict[str, Any]:
    """Create an account with an owner seat; the owner's key is returned once."""
    return ok(backend.create_account(store, body))


@admin.get("/accounts/{account_id}")
def get_account(account_id: RowId, store: StoreDep) -> dict[str, Any]:
    """Plan, wallet (USD strings) and seats of an account."""
    return ok(backend.account_summary(store, account_id))


@admin.post("/accounts/{account_id}/seats")
def create_seat(account_id: RowId, body: NewSeatBody, store: StoreDep) -> dict[str, Any]:
    """Add a member (who can hold keys) or an invitation."""
    return ok({"seat_id": backend.create_seat(store, account_id, body)})


@admin.delete("/seats/{seat_id}")
def delete_seat(seat_id: RowId, store: StoreDep) -> dict[str, Any]:
    """Remove a seat and its keys."""
    backend.delete_seat(store, seat_id)
    return ok({"seat_id": seat_id, "deleted": True})


@admin.post("/seats/{seat_id}/keys")
def mint_key(seat_id: RowId, store: StoreDep) -> dict[str, Any]:
    """Mint a key for the seat (shown once)."""
    return ok({"api_key": backend.mint_key(store, seat_id)})


@admin.post("/keys/revoke")
def revoke_key(body: KeyBody, store: StoreDep) -> dict[str, Any]:
    """Revoke a key; its next call is 401."""
    backend.revoke_key(store, body.api_key)
    return ok({"revoked": True})


@admin.put("/accounts/{account_id}/plan")
def set_plan(account_id: RowId, body: PlanBody, store: StoreDep) -> dict[str, Any]:
    """Switch plan: Trial, Starter, Pro, Business or Legacy (USD billing)."""
    backend.set_plan(store, account_id, body.plan)
    return ok({"account_id": account_id, "plan": body.plan})


@admin.put("/accounts/{account_id}/wallet")
def set_wallet(account_id: RowId, body: WalletBody, store: StoreDep) -> dict[str, Any]:
    """Overwrite wallet totals (USD, 0 to ``MAX_WALLET_USD``)."""
    backend.set_wallet(store, account_id, body)
    return ok({"account_id": account_id})


@admin.put("/accounts/{account_id}/assistant")
def set_assistant_failure(
    account_id: RowId, body: AssistantBody, store: StoreDep
) -> dict[str, Any]:
    """Make Ask fail with ``ai_assistant_unavailable``/``ai_assistant_timeout`` (null: heal)."""
    backend.set_assistant_failure(store, account_id, body.failure)
    return ok({"account_id": account_id, "failure": body.failure})


@admin.post("/truth")
def emulator_truth(body: TruthBody, store: StoreDep) -> dict[str, Any]:
    """The emulator's truth of each post: the voice and latent sentiment the generator
    wrote it from (teaching only: the real service has no such truth)."""
    return ok(backend.emulator_truth(store, body))


@admin.post("/posts")
def change_posts(body: PostChangesBody, store: StoreDep) -> dict[str, Any]:
    """Delete posts from their platforms, or give them more views and likes (emulator
    only: what a later ``url`` run by their links finds, for attrition studies)."""
    return ok(backend.change_posts(store, body))


@router.post("/platforms")
def platforms(
    body: PlatformsBody, _who: Auth, store: StoreDep, settings: SettingsDep
) -> dict[str, Any]:
    """Make the platforms hold a shared study's posts: its runs are replayed in this
    sandbox's corpus, so that a ``url`` run by their links finds them (emulator only: the
    corpus cannot rebuild a post from its link; ``rdskit study rehydrate`` calls it on a
    sandbox). Any account's key: the posts were in the sandbox's deterministic corpus
    already, nothing is charged, and no account or search sees anything new."""
    return ok(backend.hold_study(store, body, settings.job_cpu_budget))


router.include_router(admin)
