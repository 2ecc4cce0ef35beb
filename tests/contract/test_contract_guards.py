"""Authentication, the rate limit and the budget guard, against real responses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal

import pytest
from contract_support import PROMPT, Account, finish

from rdskit import BudgetExceeded, Client, RateLimited, Unauthorized
from rdskit.errors import InsufficientCreditsDatasetRun, TooManyRequests
from rdskit.sandbox import SandboxHandle, start


def test_an_unknown_key_is_401(sandbox: SandboxHandle) -> None:
    key = "bz_test_" + "0" * 32
    with (
        Client(key, base_url=sandbox.url, rate_limit=None) as stranger,
        pytest.raises(Unauthorized) as raised,
    ):
        stranger.datasets.list(limit=1)
    error = raised.value
    assert error.status == 401 and key not in str(error) and key not in repr(error)


def test_a_revoked_key_is_401_on_its_next_call(
    sandbox: SandboxHandle, new_account: Callable[..., Account]
) -> None:
    account = new_account()
    assert account.client.datasets.list(limit=1).data == []  # the spec's key check
    sandbox.admin.revoke_key(account.api_key)
    with pytest.raises(Unauthorized):
        account.client.datasets.list(limit=1)


@pytest.fixture(scope="module")
def limited() -> Iterator[SandboxHandle]:
    """A sandbox at the service's real rate, 5 requests per second per key: the session's
    sandbox runs at 10,000/s and offers no way to lower one key's rate."""
    with start(speed=500, seed=43) as handle:
        yield handle


def test_over_the_rate_is_429_with_retry_after(limited: SandboxHandle) -> None:
    with (
        Client(limited.api_key, base_url=limited.url, rate_limit=None, max_retries=0) as eager,
        pytest.raises(TooManyRequests) as raised,
    ):
        for _ in range(20):
            eager.datasets.list(limit=1)
    error = raised.value
    assert isinstance(error, RateLimited) and error.status == 429 and error.transient
    assert error.body["status"] == "client_error"
    assert error.retry_after is not None and 0 < error.retry_after <= 1


def test_retries_honour_the_servers_wait(limited: SandboxHandle) -> None:
    with Client(limited.api_key, base_url=limited.url, rate_limit=None, max_retries=5) as patient:
        answers = [patient.datasets.list(limit=1) for _ in range(12)]
    assert len(answers) == 12


def test_the_client_limiter_keeps_a_key_under_the_cap(limited: SandboxHandle) -> None:
    key = limited.admin.create_account().api_key  # a fresh bucket on both sides
    with Client(key, base_url=limited.url, max_retries=0) as polite:  # 5/s, the default
        for _ in range(12):
            polite.datasets.list(limit=1)  # a 429 would raise: no retries allowed


def test_budget_guard_refuses_before_sending(new_account: Callable[..., Account]) -> None:
    account = new_account(budget_credits=30)
    client = account.client
    dataset = client.datasets.create("budgeted")
    finish(client.datasets.runs.create(dataset.id, PROMPT, count=20))
    assert client.budget is not None and client.budget.remaining == 10
    with pytest.raises(BudgetExceeded) as raised:
        client.datasets.runs.create(dataset.id, PROMPT, count=20)
    error = raised.value
    assert (error.estimate, error.remaining) == (20, 10)
    assert "20" in str(error) and "10" in str(error)
    assert len(list(client.datasets.runs.list(dataset.id))) == 1  # nothing was sent
    with pytest.raises(BudgetExceeded):
        client.audience_datasets.runs.create(
            client.audience_datasets.create("a").id, dataset.id, total_profile_count=4
        )  # 12 credits
    small = client.audience_datasets.runs.create(
        client.audience_datasets.create("b").id, dataset.id, total_profile_count=3
    )  # 9
    assert finish(small).status.type == "completed"
    assert client.budget.remaining == 1
    with pytest.raises(BudgetExceeded):
        client.research_previews.create(
            search_query="oat", sources=["reddit", "tiktok"], time_filter="past_week"
        )
    with pytest.raises(BudgetExceeded):
        client.pattern_detections.create(dataset.id, name="n", research_question="q")
    assert len(list(client.usage_history())) == 2  # only the run and the audience


def test_budget_refuses_unknown_estimates(new_account: Callable[..., Account]) -> None:
    client = new_account(plan="Legacy", budget_credits=1000).client
    dataset = client.datasets.create("no credit prices")
    with pytest.raises(BudgetExceeded) as raised:
        client.datasets.runs.create(dataset.id, PROMPT, count=1)
    assert raised.value.estimate is None and "unknown" in str(raised.value)


def test_402_reports_the_reservation_the_client_estimates(
    new_account: Callable[..., Account],
) -> None:
    client = new_account(wallet_usd="0.01").client
    dataset = client.datasets.create("poor")
    estimate = client.estimate("dataset_run", count=300)
    with pytest.raises(InsufficientCreditsDatasetRun) as raised:
        client.datasets.runs.create(dataset.id, PROMPT, count=300)
    assert raised.value.required_credits == estimate.credits
    assert estimate.usd is not None and raised.value.required is not None
    assert abs(raised.value.required - estimate.usd) < Decimal("0.01")
