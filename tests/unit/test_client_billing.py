"""Credit math, estimates and the budget guard."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import httpx
import pytest
import samples as s
from mockapi import MockAPI, error, make_aclient, ok

import rdskit
from rdskit.billing import Budget, Estimate, PriceCache, credits_to_usd, usd_to_credits
from rdskit.errors import BudgetExceeded, InsufficientCreditsDatasetRun, OutcomeUnknown
from rdskit.models import Prices

RUN_PATH = "/v1/datasets/ds_1/runs"


def test_usd_and_credits_at_a_rate() -> None:
    rate = Decimal("0.0196")
    assert usd_to_credits(Decimal("0.0196"), rate) == Decimal("1.000000")  # 1-credit mention
    assert usd_to_credits("98", rate) == Decimal("5000.000000")  # Starter: 98 USD
    assert credits_to_usd(5000, rate) == Decimal("98.000000")
    assert usd_to_credits("1", "0.0196") == Decimal("51.020408")  # six places, half-even
    assert str(credits_to_usd("0.5", rate)) == "0.009800"
    assert usd_to_credits(0.0196, 0.0196) == Decimal("1.000000")  # floats via their repr


def prices(**changes: object) -> Prices:
    return Prices.model_validate({**s.PRICES, **changes})


@pytest.mark.parametrize(
    ("kind", "quantity", "credits", "usd"),
    [
        ("dataset_run", 50, "50.000000", "0.9800"),
        ("audience_run", 300, "900.000000", "17.6400"),
        ("custom_parameter_run", 120, "60.000000", "1.1760"),
        ("pattern_detection", 120, "60.000000", "1.1760"),
        ("research_preview", 2, "2.000000", "0.0392"),
        ("tracking_trigger", 20, "20.000000", "0.3920"),
    ],
)
def test_estimate_from_prices(kind: str, quantity: int, credits: str, usd: str) -> None:
    estimate = Estimate.from_prices(kind, quantity, prices())
    assert (estimate.quantity, estimate.credits, estimate.usd) == (
        quantity,
        Decimal(credits),
        Decimal(usd),
    )


def test_unknown_prices_stay_unknown() -> None:
    no_credit_map = prices(prices_credits=None)
    derived = Estimate.from_prices("dataset_run", 10, no_credit_map)
    assert derived.credits == Decimal("10.000000")  # from USD / credit_rate_usd
    null = prices(
        prices_credits={**s.PRICES["prices_credits"], "mention": None},
        prices={**s.PRICES["prices"], "mention": None},
    )
    unknown = Estimate.from_prices("dataset_run", 10, null)
    assert (unknown.credits, unknown.usd) == (None, None)
    assert "mention" in unknown.reason
    no_rate = prices(prices_credits=None, billing=None)
    assert Estimate.from_prices("dataset_run", 10, no_rate).credits is None
    assert Estimate.from_prices("dataset_run", None, prices()).credits is None


def test_client_estimates_read_prices_once_a_minute(
    api: MockAPI, client: rdskit.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("GET", "/v1/datasets/ds_1", ok(s.DATASET_READ))
    api.on("GET", "/v1/tracking_agents/ta_1", ok({**s.AGENT, "dataset_ids": ["ds_1", "ds_2"]}))
    now = [0.0]
    client._prices = PriceCache(clock=lambda: now[0])

    assert client.estimate("dataset_run", count=40).credits == Decimal(40)
    assert client.estimate("audience_run").quantity == 300  # the service's default
    assert client.estimate("research_preview", sources=["reddit", "tiktok"]).quantity == 2
    assert client.estimate("research_preview", source_urls=["u"] * 3).quantity == 3
    assert client.estimate("custom_parameter_run", posts=7).quantity == 7
    assert client.estimate("pattern_detection", dataset_id="ds_1").quantity == 120
    assert client.estimate("tracking_trigger", agent_id="ta_1").credits == Decimal(20)
    assert len(api.sent("GET", "/v1/prices")) == 1
    now[0] = 61.0
    client.estimate("dataset_run", count=1)
    assert len(api.sent("GET", "/v1/prices")) == 2


def test_unknown_quantities_and_kinds(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    for kind, hint in [
        ("dataset_run", "count="),
        ("tracking_trigger", "agent_id="),
        ("custom_parameter_run", "dataset_id="),
        ("research_preview", "sources="),
    ]:
        estimate = client.estimate(kind)
        assert (estimate.quantity, estimate.credits, estimate.usd) == (None, None, None)
        assert hint in estimate.reason
    with pytest.raises(rdskit.InvalidParameter, match="kind"):
        client.estimate("report")


def test_budget_allows_then_refuses_before_sending(api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("POST", RUN_PATH, ok(s.DATASET_RUN))
    client = make_client(budget_credits=100)
    client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=60)
    assert client.budget.remaining == Decimal(40)
    with pytest.raises(BudgetExceeded) as raised:
        client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=41)
    exc = raised.value
    assert (exc.estimate, exc.remaining) == (Decimal(41), Decimal(40))
    assert "estimate 41 credits" in str(exc) and "40 credits remaining" in str(exc)
    assert len(api.sent("POST", RUN_PATH)) == 1  # the refused run was never sent
    client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=40)
    assert client.budget.remaining == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.audience_datasets.runs.create(
            "ad_1", source_dataset_id="ds_1", total_profile_count=50
        ),  # 150 credits
        lambda c: c.custom_parameters.runs.create("cp_1", dataset_id="ds_1"),  # 120 posts: 60
        lambda c: c.pattern_detections.create("ds_1", name="n", research_question="q"),
        lambda c: c.research_previews.create(source_urls=["u"] * 60),
        lambda c: c.tracking_agents.trigger("ta_1"),  # 10 x 6 datasets
    ],
    ids=[
        "audience_run",
        "custom_parameter_run",
        "pattern_detection",
        "research_preview",
        "tracking_trigger",
    ],
)
def test_every_paid_call_is_guarded(call, api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("GET", "/v1/datasets/ds_1", ok(s.DATASET_READ))
    api.on("GET", "/v1/tracking_agents/ta_1", ok({**s.AGENT, "dataset_ids": ["d"] * 6}))
    client = make_client(budget_credits="59.999999")
    with pytest.raises(BudgetExceeded):
        call(client)
    assert {c.method for c in api.calls} == {"GET"}  # only reads were sent


def test_unknown_estimate_is_refused_under_a_budget(api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    client = make_client(budget_credits=1000)
    with pytest.raises(BudgetExceeded, match=r"estimate unknown.*count=") as raised:
        client.datasets.runs.create("ds_1", s.PROMPT_QUERY)  # no count: no upper bound
    assert raised.value.estimate is None
    assert api.sent("POST", RUN_PATH) == []


def test_no_budget_means_no_estimate(api: MockAPI, client: rdskit.Client) -> None:
    api.on("POST", RUN_PATH, ok(s.DATASET_RUN))
    client.datasets.runs.create("ds_1", s.PROMPT_QUERY)
    assert [c.path for c in api.calls] == [RUN_PATH]


def test_refused_calls_give_the_budget_back(api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on(
        "POST",
        RUN_PATH,
        error(
            402,
            "insufficient_credits_dataset_run",
            {"message": "m", "required": "1", "available": "0"},
        ),
    )
    client = make_client(budget_credits=100)
    with pytest.raises(InsufficientCreditsDatasetRun):
        client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=60)
    assert client.budget.remaining == 100


def test_unknown_outcomes_stay_counted(api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("POST", RUN_PATH, httpx.ReadTimeout("slow"))
    client = make_client(budget_credits=100)
    with pytest.raises(OutcomeUnknown):
        client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=60)
    assert client.budget.remaining == 40  # it may have started and been charged


def test_budget_arithmetic() -> None:
    budget = Budget("10.5")
    budget.reserve(Estimate("dataset_run", "mention", 10, None, Decimal(10)))
    with pytest.raises(BudgetExceeded):
        budget.reserve(Estimate("dataset_run", "mention", 1, None, Decimal(1)))
    assert budget.remaining == Decimal("0.5")
    with pytest.raises(rdskit.InvalidParameter):
        Budget(-1)


def test_async_budget_guard(api: MockAPI) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("POST", RUN_PATH, ok(s.DATASET_RUN))

    async def main() -> None:
        async with make_aclient(api, budget_credits=50) as client:
            assert (await client.estimate("dataset_run", count=5)).credits == 5
            await client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=50)
            with pytest.raises(BudgetExceeded):
                await client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=1)

    asyncio.run(main())
    assert len(api.sent("POST", RUN_PATH)) == 1
