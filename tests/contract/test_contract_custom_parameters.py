"""Custom parameters, their free preview and their runs through the client."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from contract_support import Account, Collected, finish

from rdskit import Client, Conflict, RunFailed
from rdskit.errors import (
    CustomParameterDuplicateName,
    CustomParameterLimitExceeded,
    CustomParameterNotFound,
    CustomParameterRunInFlight,
    DatasetNotFound,
    InsufficientCreditsContentAnalysis,
    NothingToAnalyze,
)
from rdskit.models import (
    CustomParameter,
    CustomParameterPreview,
    CustomParameterRun,
    Mention,
    RunScope,
)

BRAND = "Which brand is compared? One of: Oatly, Elmhurst, Silk, Planet Oat, Califia Farms"


@pytest.fixture(scope="module")
def brand(client: Client) -> CustomParameter:
    return client.custom_parameters.create("Compared brand", BRAND)


def test_create_get_list_update_delete(client: Client) -> None:
    created = client.custom_parameters.create(
        "Price", "The price quoted, in USD", value_type="string"
    )
    assert isinstance(created, CustomParameter) and created.id.startswith("cp_")
    assert (created.name, created.value_type) == ("Price", "string")
    assert created.created_at is not None and isinstance(created.to_wire()["created_at"], int)
    listed = client.custom_parameters.list()
    assert isinstance(listed, list)  # no pagination fields: a plain list
    assert created.id in {p.id for p in listed}
    assert client.custom_parameters.get(created.id).instructions == "The price quoted, in USD"
    updated = client.custom_parameters.update(created.id, name="Price (USD)")
    assert (updated.name, updated.instructions) == ("Price (USD)", "The price quoted, in USD")
    assert updated.updated_at is not None and updated.updated_at >= created.created_at
    assert client.custom_parameters.delete(created.id) is None
    with pytest.raises(CustomParameterNotFound) as raised:
        client.custom_parameters.get(created.id)
    assert raised.value.status == 404


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.custom_parameters.get("cp_missing"),
        lambda c: c.custom_parameters.update("cp_missing", name="x"),
        lambda c: c.custom_parameters.delete("cp_missing"),
        lambda c: c.custom_parameters.runs.create("cp_missing", dataset_id="ds_x"),
        lambda c: c.custom_parameters.runs.get("cp_missing", "cpr_missing"),
    ],
    ids=["get", "update", "delete", "runs.create", "runs.get"],
)
def test_missing_parameter(client: Client, call: Callable[[Client], Any]) -> None:
    with pytest.raises(CustomParameterNotFound):
        call(client)


def test_names_are_unique_per_account(client: Client, brand: CustomParameter) -> None:
    with pytest.raises(CustomParameterDuplicateName):
        client.custom_parameters.create(brand.name, "another rule")
    other = client.custom_parameters.create("Unique name", "rule")
    with pytest.raises(CustomParameterDuplicateName):
        client.custom_parameters.update(other.id, name=brand.name)


def test_quota(new_account: Callable[..., Account]) -> None:
    client = new_account(plan="Trial").client
    made = 0
    with pytest.raises(CustomParameterLimitExceeded):
        for i in range(100):
            client.custom_parameters.create(f"p{i}", "rule")
            made += 1
    assert made == len(client.custom_parameters.list()) > 0


def test_preview_is_free_and_answers_per_post(client: Client, collected: Collected) -> None:
    posts = client.mentions.list(dataset_ids=[collected.dataset.id], limit=3).data
    before = client.me().usage
    preview = client.custom_parameters.preview(BRAND, post_refs=[m.ref for m in posts])
    assert isinstance(preview, CustomParameterPreview)
    assert [(r.source, r.post_id) for r in preview.results] == [(m.source, m.id) for m in posts]
    after = client.me().usage
    assert before is not None and after is not None
    assert after.balance_used == before.balance_used


def test_run_processes_the_dataset_and_mentions_carry_values(
    client: Client, brand: CustomParameter, collected: Collected
) -> None:
    started = client.custom_parameters.runs.create(
        brand.id, RunScope(kind="dataset", id=collected.dataset.id)
    )
    assert isinstance(started, CustomParameterRun) and started.run_id.startswith("cpr_")
    assert started.scope is not None and started.scope.id == collected.dataset.id
    assert started.mentions_total == collected.run.mentions_count
    done = finish(started)
    assert done.is_complete and done.mentions_remaining == 0
    assert (done.mentions_done or 0) + (done.mentions_error or 0) == done.mentions_total
    assert [run.id for run in client.custom_parameters.runs.list(brand.id)] == [done.id]
    read = client.custom_parameters.runs.get(brand.id, done.id)
    assert read.is_complete and isinstance(read.to_wire()["updated_at"], int)
    page = client.mentions.list(
        dataset_ids=[collected.dataset.id], parameter_ids=[brand.id], limit=100
    )
    values = [m.parameters[brand.id] for m in page.data if m.parameters]
    assert len(values) == len(page.data) and all(v.status for v in values)
    assert any(v.value is not None for v in values)
    assert all(isinstance(m, Mention) for m in page.data)
    charge = client.usage_history().data[0]  # refunded down to the posts processed
    assert (charge.category, charge.quantity_credits) == (
        "post_processing",
        Decimal("0.5") * (done.mentions_done or 0),
    )


def test_a_second_run_while_one_processes_is_409(
    client: Client, collected: Collected, slowed: Callable[..., Any]
) -> None:
    rule = client.custom_parameters.create("Mood", "Is the author happy? yes or no")
    with slowed():
        first = client.custom_parameters.runs.create(rule.id, dataset_id=collected.dataset.id)
        with pytest.raises(CustomParameterRunInFlight) as raised:
            client.custom_parameters.runs.create(rule.id, dataset_id=collected.dataset.id)
    assert isinstance(raised.value, Conflict)
    assert finish(first).is_complete


def test_empty_dataset_has_nothing_to_analyze(client: Client, brand: CustomParameter) -> None:
    empty = client.datasets.create("nothing here")
    with pytest.raises(NothingToAnalyze):
        client.custom_parameters.runs.create(brand.id, dataset_id=empty.id)
    with pytest.raises(DatasetNotFound):
        client.custom_parameters.runs.create(brand.id, dataset_id="ds_missing")


def test_failed_run_raises_run_failed(client: Client, collected: Collected) -> None:
    broken = client.custom_parameters.create("Broken", "__fail__ on purpose")
    run = client.custom_parameters.runs.create(broken.id, dataset_id=collected.dataset.id)
    with pytest.raises(RunFailed) as raised:
        finish(run)
    assert raised.value.obj.status.type == "failed" and raised.value.obj.id == run.id


def test_unaffordable_run_is_402(
    new_account: Callable[..., Account], collect: Callable[..., Any]
) -> None:
    account = new_account(wallet_usd="0.35")
    client = account.client
    dataset = collect(client, "spent", count=20)
    rule = client.custom_parameters.create("Price", "The price")
    with pytest.raises(InsufficientCreditsContentAnalysis) as raised:
        client.custom_parameters.runs.create(rule.id, dataset_id=dataset.id)
    assert raised.value.status == 402 and raised.value.required is not None
    assert list(client.custom_parameters.runs.list(rule.id)) == []
