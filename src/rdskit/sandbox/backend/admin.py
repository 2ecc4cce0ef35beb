"""Admin backend: what ``/sandbox/...`` sets up (accounts, seats, keys, plans, wallets, the
assistant failure switch), its request bodies and their bounds.

The real service does this in its web app; the sandbox offers it to tests and notebooks
through :mod:`rdskit.sandbox.api.admin` (``x-admin-token``) and
``rdskit.sandbox.AdminClient``. Every function takes the ids it acts on and matches them
exactly (no pattern, no prefix): an id of another kind or of an absent row is a 404
(``account_not_found``, ``seat_not_found``) and changes nothing. Ids are bounded by
:data:`MAX_ID_CHARS` and :data:`ID_PATTERN` before any lookup (the API declares both on
its path parameters: 422 naming the parameter), and wallet amounts by
:data:`MAX_WALLET_USD` (a wallet of ``1e40`` USD made every later ``/v1/me`` fail).

Example:
    >>> from rdskit.sandbox.store.accounts import bootstrap
    >>> from rdskit.sandbox.backend.tables import open_store
    >>> store = open_store()
    >>> with store.transaction() as conn:  # the plan catalog and the default account
    ...     _ = bootstrap(conn)
    >>> created = create_account(store, NewAccountBody(plan="Starter", wallet_usd=5))
    >>> set_assistant_failure(store, created["account_id"], "ai_assistant_timeout")
    >>> summary = account_summary(store, created["account_id"])
    >>> summary["plan"], summary["wallet"]["total_usd"], summary["assistant_failure"]
    ('Starter', '5', 'ai_assistant_timeout')
    >>> store.close()
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from rdskit.models import DatasetRunCreate
from rdskit.sandbox.backend.datasets import MAX_HELD_POSTS, hold_runs
from rdskit.sandbox.errors import ApiError
from rdskit.sandbox.store import accounts, wallet
from rdskit.sandbox.store.db import Store
from rdskit.sandbox.synth import truth

__all__ = [
    "ID_PATTERN",
    "MAX_ID_CHARS",
    "MAX_WALLET_USD",
    "AssistantBody",
    "AssistantFailure",
    "HeldRun",
    "KeyBody",
    "NewAccountBody",
    "NewSeatBody",
    "PlanBody",
    "PlatformsBody",
    "PostChangesBody",
    "PostRef",
    "TruthBody",
    "WalletBody",
    "account_summary",
    "change_posts",
    "create_account",
    "create_seat",
    "delete_seat",
    "emulator_truth",
    "hold_study",
    "mint_key",
    "revoke_key",
    "set_assistant_failure",
    "set_plan",
    "set_wallet",
]

MAX_ID_CHARS = 64
"""Longest account or seat id the admin routes look up: ids are a prefix and 16 hex digits
(``acc_…``, ``usr_…``, 20 characters); 64 leaves room without echoing a 10,000-character
path back in a 404."""

ID_PATTERN = r"^[^\x00-\x1f\x7f]+$"
"""An id has no control character (a NUL or a newline is never part of one)."""

MAX_WALLET_USD = Decimal(1_000_000_000)
"""Largest wallet total or used amount (USD): far above any plan, and small enough that
credits at six places stay exact in Decimal's 28 digits (1e40 USD overflowed them)."""

AssistantFailure = Literal["ai_assistant_unavailable", "ai_assistant_timeout"]
"""The assistant failures the admin switch can turn on."""

_Usd = Field(default=None, ge=0, le=MAX_WALLET_USD)


class NewAccountBody(BaseModel):
    """``POST /sandbox/accounts``: an account with an owner seat (wallet: the plan price)."""

    team_name: str = "Sandbox Team"
    email: str = "owner@example.test"
    name: str | None = None
    plan: str = "Pro"
    wallet_usd: Decimal | None = _Usd


class NewSeatBody(BaseModel):
    """``POST /sandbox/accounts/{id}/seats``: a member (who can hold keys) or an invitation."""

    email: str
    name: str | None = None
    kind: Literal["member", "invitation"] = "member"


class KeyBody(BaseModel):
    """``POST /sandbox/keys/revoke``: the raw key to revoke."""

    api_key: str


class PlanBody(BaseModel):
    """``PUT /sandbox/accounts/{id}/plan``: Trial, Starter, Pro, Business or Legacy."""

    plan: str


class WalletBody(BaseModel):
    """``PUT /sandbox/accounts/{id}/wallet``: new total and/or used USD."""

    total_usd: Decimal | None = _Usd
    used_usd: Decimal | None = _Usd


class PostChangesBody(BaseModel):
    """``POST /sandbox/posts``: what happens to these posts on their platforms (their
    links, with or without the author's handle): deleted, and/or more views and likes."""

    urls: list[str] = Field(min_length=1, max_length=10_000)
    deleted: bool = False
    extra_views: int = Field(default=0, ge=0, le=10**12)
    extra_likes: int = Field(default=0, ge=0, le=10**12)


class AssistantBody(BaseModel):
    """``PUT /sandbox/accounts/{id}/assistant``: a failure to simulate, or null to heal."""

    failure: AssistantFailure | None = None


class PostRef(BaseModel):
    """A post by its key."""

    source: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    id: str = Field(min_length=1, max_length=200)


class HeldRun(BaseModel):
    """A dataset run as a study package's ``provenance.json`` records it (the service's
    echo of its request in ``params``); other fields of the record are ignored."""

    id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    dataset_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    status: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    created_at: datetime
    mentions_count: int | None = Field(default=None, ge=0, le=MAX_HELD_POSTS)
    params: DatasetRunCreate


class PlatformsBody(BaseModel):
    """``POST /sandbox/platforms``: the runs a shared study's posts came from (every run of
    its datasets), and those posts (to count how many the platforms then hold)."""

    runs: list[HeldRun] = Field(min_length=1, max_length=200)
    posts: list[PostRef] = Field(default_factory=list, max_length=1000)


class TruthBody(BaseModel):
    """``POST /sandbox/truth``: the posts whose emulator truth to reveal (up to 5,000)."""

    posts: list[PostRef] = Field(min_length=1, max_length=5000)


def emulator_truth(store: Store, body: TruthBody) -> list[dict[str, Any]]:
    """Each post's voice, latent sentiment and (a social topic's) latent stance as the
    generator wrote it (:mod:`rdskit.sandbox.synth.truth`): the emulator's truth, for
    teaching validation. A post the sandbox never collected has ``found: false`` and nulls."""
    out = []
    with store.read() as conn:
        for ref in body.posts:
            row = conn.execute(
                "SELECT json_extract(body, '$.text'), content_type FROM mentions "
                "WHERE source = ? AND id = ? LIMIT 1",
                (ref.source, ref.id),
            ).fetchone()
            out.append(
                {
                    "source": ref.source,
                    "id": ref.id,
                    "found": row is not None,
                    "voice": truth.voice_of(row[0], row[1]) if row else None,
                    "latent_sentiment": truth.latent_sentiment(row[0], row[1]) if row else None,
                    "latent_stance": truth.stance_of(row[0], row[1]) if row else None,
                }
            )
    return out


def create_account(store: Store, body: NewAccountBody) -> dict[str, Any]:
    """Create an account with an owner seat; returns its ids and the owner's key (once)."""
    with store.transaction() as conn:
        created = accounts.create_account(conn, **body.model_dump())
    return {
        "account_id": created.account_id,
        "seat_id": created.seat_id,
        "api_key": created.api_key,
    }


def account_summary(store: Store, account_id: str) -> dict[str, Any]:
    """Plan, wallet (USD strings), seats and the assistant switch of an account (404 if absent)."""
    with store.read() as conn:
        plan = accounts.plan_of(conn, account_id)  # 404 for an unknown account
        funds = wallet.balance(conn, account_id)
        seats = conn.execute(
            "SELECT id, kind, email, name FROM seats WHERE account_id = ? ORDER BY created_at",
            (account_id,),
        ).fetchall()
        (failure,) = conn.execute(
            "SELECT assistant_failure FROM accounts WHERE id = ?", (account_id,)
        ).fetchone()
    return {
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


def create_seat(store: Store, account_id: str, body: NewSeatBody) -> str:
    """Add a member or an invitation to the account; returns the seat id."""
    with store.transaction() as conn:
        accounts.plan_of(conn, account_id)  # 404 for an unknown account
        return accounts.create_seat(conn, account_id, **body.model_dump())


def delete_seat(store: Store, seat_id: str) -> None:
    """Remove a seat and its keys (404 ``seat_not_found``)."""
    with store.transaction() as conn:
        accounts.delete_seat(conn, seat_id)


def mint_key(store: Store, seat_id: str) -> str:
    """Mint a key for the seat, on the seat's own account; the raw key is returned once."""
    with store.transaction() as conn:
        return accounts.mint_key(conn, seat_id)


def revoke_key(store: Store, api_key: str) -> None:
    """Revoke an active key (404 ``api_key_not_found``); its next call is 401."""
    with store.transaction() as conn:
        accounts.revoke_key(conn, api_key)


def set_plan(store: Store, account_id: str, plan: str) -> None:
    """Switch the account's plan (400 ``unknown_plan``, 404 ``account_not_found``)."""
    with store.transaction() as conn:
        accounts.set_plan(conn, account_id, plan)


def set_wallet(store: Store, account_id: str, body: WalletBody) -> None:
    """Overwrite the wallet's total and/or used USD (400 ``nothing_to_update`` for neither)."""
    if body.total_usd is None and body.used_usd is None:
        raise ApiError(400, "nothing_to_update", "Give total_usd and/or used_usd.")
    with store.transaction() as conn:
        accounts.set_wallet(conn, account_id, total_usd=body.total_usd, used_usd=body.used_usd)


def set_assistant_failure(store: Store, account_id: str, failure: AssistantFailure | None) -> None:
    """Make Ask fail with ``failure`` (transient 503/504), or heal it with ``None``."""
    with store.transaction() as conn:
        updated = conn.execute(
            "UPDATE accounts SET assistant_failure = ? WHERE id = ?", (failure, account_id)
        ).rowcount
    if not updated:
        raise ApiError(404, "account_not_found", f"Account {account_id} not found")


def hold_study(store: Store, body: PlatformsBody, cpu_seconds: float | None) -> dict[str, int]:
    """Make the sandbox's platforms hold the posts of a shared study's runs
    (:func:`rdskit.sandbox.backend.datasets.hold_runs`); ``cpu_seconds``: a job's budget."""
    runs = [
        run.model_dump()
        | {"created_at": run.created_at.timestamp(), "params": run.params.to_wire()}
        for run in body.runs
    ]
    posts = [(ref.source, ref.id) for ref in body.posts]
    return hold_runs(store, runs, posts, cpu_seconds=cpu_seconds)


def change_posts(store: Store, body: PostChangesBody) -> dict[str, Any]:
    """Record what happened to posts on their platforms; a later ``url`` run sees it
    (400 ``invalid_post_url`` naming the first link that is not one post's)."""
    from rdskit.sandbox.synth.corpus import parse_post_url

    keys = []
    for index, url in enumerate(body.urls):
        key = parse_post_url(url)
        if key is None:
            raise ApiError(400, "invalid_post_url", f"urls[{index}] is not a post's link: {url!r}")
        keys.append(key)
    with store.transaction() as conn:
        conn.executemany(
            "INSERT INTO platform_changes (source, id, deleted, extra_views, extra_likes)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (source, id) DO UPDATE SET"
            " deleted = max(deleted, excluded.deleted),"
            " extra_views = extra_views + excluded.extra_views,"
            " extra_likes = extra_likes + excluded.extra_likes",
            [(s, i, int(body.deleted), body.extra_views, body.extra_likes) for s, i in keys],
        )
    return {"posts": len(set(keys))}
