"""Credit math, estimates and the budget guard."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
import samples as s
from mockapi import Call, MockAPI, Reply, error, make_aclient, ok, page

import rdskit
from rdskit._flow import Sleep
from rdskit.billing import Budget, Estimate, PriceCache, credits_to_usd, usd_to_credits
from rdskit.budget import GATE_POLL, GROWS, SIZED, gated
from rdskit.errors import (
    BudgetExceeded,
    InsufficientCreditsDatasetRun,
    OutcomeUnknown,
    UnexpectedResponse,
)
from rdskit.models import Prices

RUN_PATH = "/v1/datasets/ds_1/runs"
PARAMETER_RUNS = "/v1/custom_parameters/cp_1/runs"


def accepted(call: Call) -> Reply:
    """A dataset run accepted with the count asked for."""
    count = call.json["count"]
    return ok({**s.DATASET_RUN, "count": count, "requested_count": count})


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
    api.on("GET", RUN_PATH, page([]))
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
    api.on("POST", RUN_PATH, accepted)
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
    api.on("GET", RUN_PATH, page([]))
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


def test_runs_in_flight_count_in_a_dataset_sized_estimate(api: MockAPI, client) -> None:
    # 120 mentions now, and two runs still collecting: the service may price 120 + 30 + 20.
    runs = [
        {**s.DATASET_RUN, "id": "dsr_1", "count": 30, "status": {"type": "pending"}},
        {**s.DATASET_RUN, "id": "dsr_2", "count": 500, "status": {"type": "completed"}},
        {**s.DATASET_RUN, "id": "dsr_3", "count": None, "requested_count": 20,
         "status": {"type": "working"}},
    ]  # fmt: skip
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("GET", "/v1/datasets/ds_1", ok(s.DATASET_READ))
    api.on("GET", RUN_PATH, page(runs))
    assert client.estimate("custom_parameter_run", dataset_id="ds_1").quantity == 170
    assert client.estimate("pattern_detection", dataset_id="ds_1").quantity == 170
    # The runs are read before the dataset: a run finishing in between is not missed.
    order = [c.path for c in api.calls if c.path.startswith("/v1/datasets")]
    assert order[:2] == [RUN_PATH, "/v1/datasets/ds_1"]
    api.on("GET", RUN_PATH, page([{**runs[0], "count": None, "requested_count": None}]))
    unknown = client.estimate("custom_parameter_run", dataset_id="ds_1")
    assert unknown.credits is None and "dsr_1" in unknown.reason


def test_a_reservation_settles_to_what_the_service_reserved(api: MockAPI, make_client) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("GET", "/v1/datasets/ds_1", ok(s.DATASET_READ))
    api.on("GET", RUN_PATH, page([]))
    api.on("POST", RUN_PATH, ok({**s.DATASET_RUN, "count": 50, "requested_count": 60}))
    client = make_client(budget_credits=200)
    client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=60)
    assert client.budget.spent == 50  # the service accepted 50 of the 60 asked for
    # Another process grew the dataset to 130 posts before the run arrived: 65, not 60.
    api.on("POST", PARAMETER_RUNS, ok({"run_id": "cpr_1"}))
    api.on("GET", PARAMETER_RUNS + "/cpr_1", ok({**s.PARAMETER_RUN, "mentions_total": 130}))
    client.custom_parameters.runs.create("cp_1", dataset_id="ds_1")
    assert client.budget.spent == 115


def test_an_accepted_call_with_an_unreadable_answer_stays_counted(
    api: MockAPI, make_client
) -> None:
    api.on("GET", "/v1/prices", ok(s.PRICES))
    api.on("POST", RUN_PATH, Reply(200, b"<html>proxy</html>"))
    client = make_client(budget_credits=100)
    with pytest.raises(UnexpectedResponse):
        client.datasets.runs.create("ds_1", s.PROMPT_QUERY, count=60)
    assert client.budget.remaining == 40  # a 2xx: the run may well have started


def _core() -> Any:
    """What the gate reads of an HTTP core: its account."""
    return SimpleNamespace(base_url="http://service.test", api_key=SimpleNamespace(digest="k"))


def _inside(steps: list[str], name: str):
    steps.append(f"{name} in")
    yield Sleep(0)  # a request in flight
    steps.append(f"{name} out")
    return name


def test_the_gate_keeps_growing_and_sized_calls_apart() -> None:
    steps: list[str] = []
    sized = gated(_core(), SIZED, ["ds_1"], _inside(steps, "sized"))
    grows = gated(_core(), GROWS, ["ds_1"], _inside(steps, "grows"))
    elsewhere = gated(_core(), GROWS, ["ds_2"], _inside(steps, "elsewhere"))
    tracking = gated(_core(), GROWS, ["*"], _inside(steps, "tracking"))
    assert next(sized) == Sleep(0)  # inside, its request in flight
    assert next(grows) == Sleep(GATE_POLL)  # waits for the sized call's answer
    assert next(tracking) == Sleep(GATE_POLL)  # a tracking trigger grows every dataset
    assert next(elsewhere) == Sleep(0)  # another dataset: not held up
    assert next(grows) == Sleep(GATE_POLL)
    with pytest.raises(StopIteration):
        next(sized)
    assert next(grows) == Sleep(0)  # the sized call was answered: in
    assert next(tracking) == Sleep(0)  # growing calls pass together
    another = gated(_core(), SIZED, ["ds_3"], _inside(steps, "another"))
    assert next(another) == Sleep(GATE_POLL)  # held by the tracking trigger
    for flow in (grows, elsewhere, tracking):
        with pytest.raises(StopIteration):
            next(flow)
    assert next(another) == Sleep(0)
    another.close()  # an abandoned flow leaves the gate too
    assert next(gated(_core(), GROWS, ["ds_3"], _inside(steps, "last"))) == Sleep(0)
