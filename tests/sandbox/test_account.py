"""/v1/me, /v1/me/usage_history and /v1/prices against a real sandbox."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx

from rdskit.sandbox import SandboxHandle

if TYPE_CHECKING:
    from conftest import Account, Api

SIX = re.compile(r"^\d+\.\d{6}$")
PRO_RATE = Decimal("178") / Decimal("12000")
FEATURES = {
    "api_access",
    "audience_research",
    "csv_export",
    "custom_date_filter",
    "daily_digest",
    "digest_webhook",
    "mcp",
    "multisource_research",
    "webhooks",
}
LIMITS = {"max_research_depth", "num_seats", "parallelism", "projects", "tracking_agents"}
CATEGORIES = {"audience_profile", "mention", "post_processing", "preview_generation"}
TERMS = ("quantity_credits", "credit_rate_usd", "billing_catalog_version", "credit_value_basis")


def test_me_shape(sandbox: SandboxHandle, http: httpx.Client, api: type[Api]) -> None:
    me = api.data(http.get("/v1/me"))
    assert {"id", "account_id", "email", "name", "team_name", "created_at"} <= set(me)
    assert me["account_id"] == sandbox.account_id
    assert isinstance(me["created_at"], int)
    assert me["teams"] == [{"account_id": sandbox.account_id, "name": me["team_name"]}]
    owner = {"type": "member", "user_id": me["id"], "email": me["email"], "name": me["name"]}
    assert owner in me["members"]
    plan = me["plan"]
    assert plan["name"] == "Pro" and plan["type"] == "subscription"
    assert set(plan["features"]) == FEATURES and all(
        isinstance(v, bool) for v in plan["features"].values()
    )
    assert plan["features"]["mcp"] is True
    assert set(plan["limits"]) == LIMITS and plan["limits"]["num_seats"] == 2
    usage = me["usage"]
    assert set(usage) == {
        "credits_used",
        "credits_total",
        "billing",
        "balance_used",
        "balance_total",
        "renews_at",
    }
    assert SIX.match(usage["credits_used"]) and SIX.match(usage["credits_total"])
    assert isinstance(usage["balance_total"], int | float)
    assert usage["billing"]["unit"] == "credits" and usage["billing"]["precision"] == 6
    assert Decimal(usage["billing"]["credit_rate_usd"]) == round(PRO_RATE, 16)
    assert isinstance(usage["billing"]["catalog_version"], str)
    # 1,780 USD at the published rate is exactly the 120,000 credits bought, to six places
    assert Decimal(str(usage["balance_total"])) == 1780
    assert usage["credits_total"] == "120000.000000"
    assert isinstance(usage["renews_at"], int)


def test_fresh_pro_account_usage(account: Account, api: type[Api]) -> None:
    usage = api.data(account.http.get("/v1/me"))["usage"]
    assert usage["balance_total"] == 178 and usage["balance_used"] == 0
    assert usage["credits_total"] == "12000.000000" and usage["credits_used"] == "0.000000"


def test_members_and_invitations(sandbox: SandboxHandle, account: Account, api: type[Api]) -> None:
    sandbox.admin.create_seat(account.account_id, email="m@example.test", name="Mia")
    sandbox.admin.create_seat(account.account_id, email="i@example.test", kind="invitation")
    members = api.data(account.http.get("/v1/me"))["members"]
    assert {"type": "invitation", "email": "i@example.test"} in members
    assert any(m["type"] == "member" and m["name"] == "Mia" for m in members)
    # Pro allows two teammates besides the owner: a third invitation is refused
    refused = httpx.post(
        f"{sandbox.url}/sandbox/accounts/{account.account_id}/seats",
        json={"email": "x@example.test", "kind": "invitation"},
        headers={"x-admin-token": sandbox.admin_token},
    )
    assert refused.status_code == 409


def test_plans_drive_me(
    sandbox: SandboxHandle, new_account: Callable[..., Account], api: type[Api]
) -> None:
    trial = new_account(plan="Trial")
    me = api.data(trial.http.get("/v1/me"))
    assert me["plan"]["type"] == "one_time" and me["usage"]["renews_at"] is None
    assert me["usage"]["credits_total"] == "1000.000000" and me["usage"]["balance_total"] == 1
    assert me["plan"]["features"]["mcp"] is False
    sandbox.admin.set_plan(trial.account_id, "Business")
    assert api.data(trial.http.get("/v1/me"))["plan"]["limits"]["num_seats"] == 4


def test_usd_billed_plan_has_null_credit_fields(
    new_account: Callable[..., Account], api: type[Api]
) -> None:
    legacy = new_account(plan="Legacy")
    usage = api.data(legacy.http.get("/v1/me"))["usage"]
    assert usage["credits_used"] is None and usage["credits_total"] is None
    assert usage["billing"] is None and usage["balance_total"] == 178
    prices = api.data(legacy.http.get("/v1/prices"))
    assert prices["prices_credits"] is None and prices["billing"] is None
    assert all(isinstance(v, int | float) for v in prices["prices"].values())


def test_prices(http: httpx.Client, api: type[Api]) -> None:
    prices = api.data(http.get("/v1/prices"))
    assert set(prices) == {"prices_credits", "billing", "currency", "rate", "prices"}
    assert prices["currency"] == "usd"
    assert prices["prices_credits"] == {
        "mention": "1.000000",
        "audience_profile": "3.000000",
        "post_processing": "0.500000",
        "preview_generation": "1.000000",
    }
    assert set(prices["prices"]) == CATEGORIES
    rate = Decimal(prices["billing"]["credit_rate_usd"])
    for name, credits in prices["prices_credits"].items():
        # the spec's rule: credits = USD price / credit_rate_usd, at six decimals
        usd = Decimal(str(prices["prices"][name]))
        assert Decimal(credits) == (usd / rate).quantize(Decimal("0.000001"))
    assert prices["rate"] == prices["prices"]["mention"]


def test_usage_history_pages_newest_first(
    sandbox: SandboxHandle, account: Account, api: type[Api]
) -> None:
    assert account.http.get("/v1/me/usage_history").json() == {
        "status": "success",
        "data": [],
        "has_next": False,
        "cursor": None,
    }
    dataset_id = api.data(account.http.post("/v1/datasets", json={"name": "h"}))["id"]
    for _ in range(4):
        run = api.data(
            account.http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=3))
        )
        api.wait_run(account.http, dataset_id, run["id"])
    first = account.http.get("/v1/me/usage_history", params={"limit": 3}).json()
    assert len(first["data"]) == 3 and first["has_next"] is True
    rest = account.http.get("/v1/me/usage_history", params={"cursor": first["cursor"]}).json()
    rows = first["data"] + rest["data"]
    assert len(rows) == 4 and rest["has_next"] is False
    assert [r["id"] for r in rows] == sorted((r["id"] for r in rows), reverse=True)
    for row in rows:
        assert isinstance(row["id"], int) and isinstance(row["created_at"], int)
        assert row["category"] == "mention" and row["quantity"] > 0
        assert SIX.match(row["quantity_credits"]) and row["credit_value_basis"] == "snapshot"
        assert Decimal(row["credit_rate_usd"]) == round(PRO_RATE, 16)
        assert isinstance(row["billing_catalog_version"], str)
    api.error(
        account.http.get("/v1/me/usage_history", params={"cursor": "nope"}), 400, "invalid_cursor"
    )
    default = account.http.get("/v1/me/usage_history", params={"limit": 100}).json()
    assert len(default["data"]) == 4
    assert account.http.get("/v1/me/usage_history", params={"limit": 101}).status_code == 422


def _usage_rows(account: Account, api: type[Api]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = api.data(account.http.get("/v1/me/usage_history"))
    return rows


def _charge_a_run(account: Account, api: type[Api], dataset_id: str) -> None:
    run = api.data(
        account.http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(count=3))
    )
    assert api.wait_run(account.http, dataset_id, run["id"])["status"]["type"] == "completed"


def test_usage_rows_keep_or_project_their_credit_terms(
    sandbox: SandboxHandle, new_account: Callable[..., Account], api: type[Api]
) -> None:
    """A row charged under a credit rate keeps it (``snapshot``); a row charged while the
    plan billed in plain USD has no terms of its own: null while there is no rate, then
    shown at today's rate (``current``)."""
    account = new_account(plan="Legacy")
    dataset_id = api.data(account.http.post("/v1/datasets", json={"name": "u"}))["id"]
    _charge_a_run(account, api, dataset_id)
    (legacy,) = _usage_rows(account, api)
    assert legacy["quantity"] > 0
    assert [legacy[k] for k in TERMS] == [None] * 4

    def terms(plan: str) -> tuple[Decimal, str]:
        sandbox.admin.set_plan(account.account_id, plan)
        billing = api.data(account.http.get("/v1/prices"))["billing"]
        return Decimal(billing["credit_rate_usd"]), billing["catalog_version"]

    starter_rate, version = terms("Starter")
    (projected,) = _usage_rows(account, api)
    usd = Decimal(str(projected["quantity"]))
    assert projected["credit_value_basis"] == "current"
    assert Decimal(projected["credit_rate_usd"]) == starter_rate
    assert projected["billing_catalog_version"] == version
    assert Decimal(projected["quantity_credits"]) == round(usd / starter_rate, 6)

    _charge_a_run(account, api, dataset_id)
    pro_rate, _ = terms("Pro")
    snapshot, old = _usage_rows(account, api)
    assert snapshot["credit_value_basis"] == "snapshot"
    assert Decimal(snapshot["credit_rate_usd"]) == starter_rate  # event-time terms kept
    assert old["credit_value_basis"] == "current"
    assert Decimal(old["credit_rate_usd"]) == pro_rate  # projected at today's rate
    assert Decimal(old["quantity_credits"]) == round(usd / pro_rate, 6)
