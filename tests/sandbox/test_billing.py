"""Reservations, charges and refunds: through HTTP and on the wallet module directly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.api._common import ApiError
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.store import wallet
from rdskit.sandbox.store.accounts import bootstrap, create_account, set_plan
from rdskit.sandbox.store.db import Store

if TYPE_CHECKING:
    from conftest import Account, Api

MENTION = Decimal("0.0148333333333333")  # Pro: 178 USD / 12,000 credits, 16 places
POST = Decimal("0.0074166666666667")  # half a credit: 178 x 0.5 / 12,000, rounded once


def _start_run(account: Account, api: type[Api], count: int, query: str = "oat") -> tuple[str, str]:
    dataset_id = api.data(account.http.post("/v1/datasets", json={"name": "b"}))["id"]
    body = api.prompt_run(query, count=count)
    run = api.data(account.http.post(f"/v1/datasets/{dataset_id}/runs", json=body))
    return dataset_id, run["id"]


def _usage(account: Account, api: type[Api]) -> dict[str, Any]:
    usage: dict[str, Any] = api.data(account.http.get("/v1/me"))["usage"]
    return usage


def test_reservation_is_held_while_the_run_is_pending(api: type[Api]) -> None:
    with start(speed=0.001, rate_limit=1000) as slow:
        created = slow.admin.create_account()
        with httpx.Client(base_url=slow.url, headers={"x-api-key": created.api_key}) as http:
            dataset_id = api.data(http.post("/v1/datasets", json={"name": "slow"}))["id"]
            body = api.prompt_run(count=50)
            api.data(http.post(f"/v1/datasets/{dataset_id}/runs", json=body))
            usage = api.data(http.get("/v1/me"))["usage"]
        assert Decimal(str(usage["balance_used"])) == 50 * MENTION
        assert usage["credits_used"] == "50.000000"
        wallet_now = slow.admin.account(created.account_id)["wallet"]
        assert Decimal(wallet_now["held_usd"]) == 50 * MENTION
        assert Decimal(wallet_now["used_usd"]) == 0


def test_completion_charges_actuals_and_refunds_the_rest(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    dataset_id, run_id = _start_run(account, api, count=40)
    run = api.wait_run(account.http, dataset_id, run_id)
    collected = run["mentions_count"]
    assert run["status"]["type"] == "completed" and collected > 0
    usage = _usage(account, api)
    assert Decimal(str(usage["balance_used"])) == collected * MENTION
    assert usage["credits_used"] == f"{collected}.000000"
    (row,) = api.data(account.http.get("/v1/me/usage_history"))
    assert row["category"] == "mention"
    assert Decimal(str(row["quantity"])) == collected * MENTION
    assert row["quantity_credits"] == f"{collected}.000000"
    wallet_now = sandbox.admin.account(account.account_id)["wallet"]
    assert Decimal(wallet_now["held_usd"]) == 0


def test_insufficient_balance_starts_nothing(
    sandbox: SandboxHandle, new_account: Callable[..., Account], api: type[Api]
) -> None:
    poor = new_account(wallet_usd="0.1")
    dataset_id = api.data(poor.http.post("/v1/datasets", json={"name": "poor"}))["id"]
    response = poor.http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=10))
    body = api.error(response, 402, "insufficient_credits_dataset_run")
    assert body["transient"] is False
    detail = body["detail"]
    assert detail["required"] == str(10 * MENTION) and detail["available"] == "0.1"
    assert detail["required_credits"] == "10.000000"
    assert detail["available_credits"] == "6.741573"  # 0.1 / 0.0148333333333333
    assert detail["top_up_url"].startswith("http") and detail["message"]
    assert api.data(poor.http.get(f"/v1/datasets/{dataset_id}/runs")) == []
    assert _usage(poor, api)["balance_used"] == 0
    assert sandbox.admin.account(poor.account_id)["wallet"]["held_usd"] == "0"
    # exactly affordable still starts: affordability is decided on exact USD
    sandbox.admin.set_wallet(poor.account_id, total_usd=6 * MENTION)
    api.data(poor.http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=6)))


def test_failed_run_refunds_everything(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    dataset_id, run_id = _start_run(account, api, count=25, query="oat __fail__")
    assert api.wait_run(account.http, dataset_id, run_id)["status"]["type"] == "failed"
    usage = _usage(account, api)
    assert usage["balance_used"] == 0 and usage["credits_used"] == "0.000000"
    assert api.data(account.http.get("/v1/me/usage_history")) == []
    assert sandbox.admin.account(account.account_id)["wallet"]["held_usd"] == "0"


# -- the wallet module on a bare store ----------------------------------------------
@pytest.fixture
def store() -> Iterator[Store]:
    with open_store() as s:
        yield s


def _account(store: Store, plan: str = "Pro", usd: str = "10") -> str:
    with store.transaction() as conn:
        bootstrap(conn)
        return create_account(
            conn, team_name="t", email="e@example.test", plan=plan, wallet_usd=Decimal(usd)
        ).account_id


def test_reserve_settle_refund_are_exact(store: Store) -> None:
    account_id = _account(store)
    with store.transaction() as conn:
        first = wallet.reserve(
            conn, account_id, "mention", 100, "dsr_a", error_code="e", top_up_url="u"
        )
        second = wallet.reserve(
            conn, account_id, "post_processing", 10, "cpr_b", error_code="e", top_up_url="u"
        )
        funds = wallet.balance(conn, account_id)
        assert funds.held == 100 * MENTION + 10 * POST
        assert wallet.settle(conn, first, 250) == 100 * MENTION  # capped at the reservation
        wallet.refund(conn, second)
        funds = wallet.balance(conn, account_id)
        assert (funds.used, funds.held) == (100 * MENTION, 0)
        assert funds.available == Decimal(10) - 100 * MENTION
        with pytest.raises(LookupError):
            wallet.settle(conn, first, 1)  # a reservation closes once
        rows = conn.execute(
            "SELECT * FROM usage_rows WHERE account_id = ?", (account_id,)
        ).fetchall()
    assert len(rows) == 1
    assert rows[0]["quantity_credits"] == "100.000000"
    assert rows[0]["credit_value_basis"] == "snapshot"


def test_settling_nothing_writes_no_row(store: Store) -> None:
    account_id = _account(store)
    with store.transaction() as conn:
        reservation = wallet.reserve(
            conn, account_id, "mention", 5, "dsr_x", error_code="e", top_up_url="u"
        )
        assert wallet.settle(conn, reservation, 0) == 0
        assert conn.execute("SELECT COUNT(*) FROM usage_rows").fetchone()[0] == 0


def test_reserve_refuses_more_than_available(store: Store) -> None:
    account_id = _account(store, usd="1")
    with store.transaction() as conn:
        wallet.reserve(conn, account_id, "mention", 60, "a", error_code="e", top_up_url="u")
        with pytest.raises(ApiError) as caught:
            wallet.reserve(
                conn,
                account_id,
                "audience_profile",
                3,
                "b",
                error_code="insufficient_x",
                top_up_url="u",
            )
    assert caught.value.http_status == 402 and caught.value.error_code == "insufficient_x"
    assert caught.value.detail["required_credits"] == "9.000000"


def test_direct_charge_and_snapshot_terms(store: Store) -> None:
    account_id = _account(store)
    with store.transaction() as conn:
        wallet.charge(conn, account_id, "ai_assistant", Decimal("0.0123"))
        set_plan(conn, account_id, "Legacy")
        wallet.charge(conn, account_id, "ai_assistant", Decimal("0.5"))
        pro_row, legacy_row = conn.execute("SELECT * FROM usage_rows ORDER BY id").fetchall()
        assert wallet.balance(conn, account_id).used == Decimal("0.5123")
    assert pro_row["credit_rate_usd"] == str(MENTION)
    assert pro_row["quantity_credits"] == "0.829213"
    for column in (
        "quantity_credits",
        "credit_rate_usd",
        "billing_catalog_version",
        "credit_value_basis",
    ):
        assert legacy_row[column] is None
    with pytest.raises(ValueError):
        wallet.charge(conn, account_id, "ai_assistant", Decimal("-1"))
