"""``/v1/me``, usage history and prices, and the client's credit maths on top of them."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from contract_support import PROMPT, Account, finish

from rdskit import Client, credits_to_usd, usd_to_credits
from rdskit.errors import InvalidCursor
from rdskit.models import Account as Me
from rdskit.models import Prices, UsageRow
from rdskit.sandbox import SandboxHandle

CATEGORIES = {"audience_profile", "mention", "post_processing", "preview_generation"}


def test_me_shows_identity_plan_and_usage(client: Client, sandbox: SandboxHandle) -> None:
    me = client.me()
    assert isinstance(me, Me) and me.account_id == sandbox.account_id
    assert me.email and me.created_at is not None and me.created_at.tzinfo is not None
    assert me.members and {m.type for m in me.members} <= {"member", "invitation"}
    assert me.teams and me.teams[0].account_id == sandbox.account_id
    assert me.plan is not None and me.plan.type in (
        "subscription",
        "one_time",
        "one_time_renewable",
    )
    assert me.plan.features is not None and me.plan.features.api_access is True
    assert me.plan.limits is not None and isinstance(me.plan.limits.tracking_agents, int)
    usage = me.usage
    assert usage is not None and usage.billing is not None
    assert isinstance(usage.credits_total, Decimal) and isinstance(usage.balance_total, Decimal)
    wire = me.to_wire()["usage"]
    assert isinstance(wire["credits_used"], str) and len(wire["credits_used"].split(".")[1]) == 6
    assert isinstance(wire["balance_used"], int | float)  # USD stays a JSON number
    assert "balance" not in wire and "currency" not in wire
    assert usage.billing.credit_rate_usd is not None
    assert usage.credits_total == usd_to_credits(usage.balance_total, usage.billing.credit_rate_usd)


def test_prices_are_exact_and_consistent(client: Client) -> None:
    prices = client.prices()
    assert isinstance(prices, Prices) and prices.currency == "usd"
    assert prices.prices_credits is not None and set(prices.prices_credits) == CATEGORIES
    assert prices.prices is not None and set(prices.prices) == CATEGORIES
    assert prices.billing is not None and prices.billing.credit_rate_usd is not None
    rate = prices.billing.credit_rate_usd
    assert prices.prices_credits == {
        "mention": 1,
        "audience_profile": 3,
        "post_processing": Decimal("0.5"),
        "preview_generation": 1,
    }
    for category, credits in prices.prices_credits.items():
        assert credits is not None and prices.prices[category] is not None
        assert usd_to_credits(prices.prices[category], rate) == credits
        assert abs(credits_to_usd(credits, rate) - prices.prices[category]) < Decimal("0.000001")
    wire = prices.to_wire()
    assert wire["prices_credits"]["mention"] == "1.000000"  # six-decimal strings, exactly


def test_legacy_prices_have_no_credit_terms(new_account: Callable[..., Account]) -> None:
    client = new_account(plan="Legacy").client
    prices = client.prices()
    assert prices.prices_credits is None and prices.billing is None
    assert prices.prices is not None and prices.prices["mention"] > 0
    estimate = client.estimate("dataset_run", count=10)
    assert estimate.credits is None and estimate.usd == prices.prices["mention"] * 10
    me = client.me()
    assert me.usage is not None and me.usage.billing is None


def test_usage_history_pages_newest_first(
    new_account: Callable[..., Account], collect: Callable[..., Any]
) -> None:
    client = new_account().client
    for i in range(3):
        collect(client, f"spend {i}", count=5)
    first = client.usage_history(limit=2)
    assert (len(first.data), first.has_next) == (2, True)
    rows = list(first)
    assert len(rows) == 3 and all(isinstance(row, UsageRow) for row in rows)
    assert [row.id for row in rows] == sorted((row.id for row in rows), reverse=True)
    for row in rows:
        assert (row.category, row.credit_value_basis) == ("mention", "snapshot")
        assert row.quantity >= 0 and row.quantity_credits is not None
        assert row.credit_rate_usd is not None and row.billing_catalog_version
        assert usd_to_credits(row.quantity, row.credit_rate_usd) == row.quantity_credits
        assert isinstance(row.to_wire()["quantity"], int | float)
        assert isinstance(row.to_wire()["created_at"], int)
    with pytest.raises(InvalidCursor):
        client.usage_history(cursor="garbage")


def test_pre_snapshot_rows_are_projected_at_todays_rate(
    sandbox: SandboxHandle, new_account: Callable[..., Account], collect: Callable[..., Any]
) -> None:
    account = new_account(plan="Legacy")
    collect(account.client, "usd era", count=5)
    (row,) = account.client.usage_history().data
    assert row.quantity > 0  # USD charged
    assert (
        row.quantity_credits,
        row.credit_rate_usd,
        row.billing_catalog_version,
        row.credit_value_basis,
    ) == (None, None, None, None)  # no rate today
    sandbox.admin.set_plan(account.account_id, "Pro")
    (projected,) = account.client.usage_history().data
    assert projected.credit_value_basis == "current" and projected.credit_rate_usd is not None
    assert projected.quantity == row.quantity
    assert projected.quantity_credits == usd_to_credits(row.quantity, projected.credit_rate_usd)


def test_estimates_match_what_the_service_reserves_and_charges(
    new_account: Callable[..., Account],
) -> None:
    client = new_account().client
    prices = client.prices()
    assert prices.prices_credits is not None
    estimate = client.estimate("dataset_run", count=25)
    assert estimate.credits == 25 * prices.prices_credits["mention"]
    dataset = client.datasets.create("estimated")
    done = finish(client.datasets.runs.create(dataset.id, PROMPT, count=25))
    (charge,) = client.usage_history().data
    assert charge.quantity_credits == done.mentions_count  # <= the upper bound
    assert charge.quantity_credits is not None and charge.quantity_credits <= estimate.credits
    assert client.estimate("audience_run", total_profile_count=10).credits == 30
    assert client.estimate("pattern_detection", dataset_id=dataset.id).quantity == (
        client.datasets.get(dataset.id).mentions_count
    )
    assert client.estimate("custom_parameter_run", posts=8).credits == 4
    assert client.estimate("research_preview", sources=["reddit", "tiktok"]).credits == 2
    assert client.estimate("research_preview", source_urls=["u"] * 3).credits == 3
