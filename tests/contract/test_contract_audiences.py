"""Audience datasets, audience runs and audience profiles through the client."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from contract_support import Account, Collected, finish

from rdskit import APIError, Client, Conflict, SyncPage
from rdskit import filters as f
from rdskit.errors import (
    AudienceDatasetNotFound,
    AudienceDatasetRunAlreadyInFlight,
    InsufficientCreditsAudienceDatasetRun,
    InvalidCursor,
    SourceDatasetHasNoCompletedRun,
)
from rdskit.models import AudienceDataset, AudienceProfile, AudienceRun

START_SHAPE = {"id", "audience_dataset_id", "source_dataset_id", "created_at", "status"}


@pytest.fixture(scope="module")
def profiled(client: Client, collected: Collected) -> AudienceRun:
    """A completed run of 25 profiles from the shared dataset."""
    audience = client.audience_datasets.create("Oat milk people")
    run = client.audience_datasets.runs.create(
        audience.id, source_dataset_id=collected.dataset.id, total_profile_count=25
    )
    return finish(run)


def test_create_get_update_delete(client: Client) -> None:
    created = client.audience_datasets.create("fans")
    assert isinstance(created, AudienceDataset) and created.id.startswith("ad_")
    assert set(created.to_wire()) == {"id", "name", "created_at"}
    assert created.created_at.tzinfo is not None
    read = client.audience_datasets.get(created.id)
    assert (read.profile_count, read.name) == (0, "fans") and read.updated_at is not None
    assert client.audience_datasets.update(created.id, name="EU fans").name == "EU fans"
    assert client.audience_datasets.get(created.id).name == "EU fans"
    assert client.audience_datasets.delete(created.id) is None
    with pytest.raises(AudienceDatasetNotFound) as raised:
        client.audience_datasets.get(created.id)
    assert (raised.value.status, raised.value.error_code) == (404, "audience_dataset_not_found")


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.audience_datasets.update("ad_missing", name="x"),
        lambda c: c.audience_datasets.delete("ad_missing"),
        lambda c: c.audience_datasets.runs.create("ad_missing", source_dataset_id="ds_x"),
        lambda c: c.audience_datasets.runs.list("ad_missing"),
        lambda c: c.audience_datasets.runs.get("ad_missing", "adr_missing"),
        lambda c: c.audience_profiles.list(audience_dataset_ids=["ad_missing"]),
    ],
    ids=["update", "delete", "runs.create", "runs.list", "runs.get", "profiles"],
)
def test_missing_audience_dataset(client: Client, call: Callable[[Client], Any]) -> None:
    with pytest.raises(AudienceDatasetNotFound):
        call(client)


def test_list_pages_in_both_orders(new_account: Callable[..., Account]) -> None:
    client = new_account().client
    made = [client.audience_datasets.create(f"aud {i}").id for i in range(3)]
    page = client.audience_datasets.list(limit=2)
    assert isinstance(page, SyncPage) and (len(page.data), page.has_next) == (2, True)
    assert [ad.id for ad in page] == made[::-1]
    assert [ad.id for ad in client.audience_datasets.list(limit=2, order="asc")] == made


def test_run_starts_pending_with_the_start_shape_and_completes(
    client: Client, profiled: AudienceRun, collected: Collected
) -> None:
    audience = client.audience_datasets.create("start shape")
    started = client.audience_datasets.runs.create(
        audience.id, collected.dataset.id, total_profile_count=3
    )
    assert isinstance(started, AudienceRun) and started.id.startswith("adr_")
    assert set(started.to_wire()) == START_SHAPE
    assert started.status.type == "pending" and started.source_dataset_id == collected.dataset.id
    done = finish(started)
    assert (done.status.type, done.profile_count, done.target_profile_count) == ("completed", 3, 3)
    assert profiled.status.type == "completed" and profiled.profile_count == 25
    assert client.audience_datasets.get(profiled.audience_dataset_id).profile_count == 25


def test_runs_list_and_get(client: Client, profiled: AudienceRun) -> None:
    runs = client.audience_datasets.runs.list(profiled.audience_dataset_id, order="asc")
    assert [run.id for run in runs] == [profiled.id]
    read = client.audience_datasets.runs.get(profiled.audience_dataset_id, profiled.id)
    assert isinstance(read, AudienceRun) and read.target_profile_count == 25
    assert read.updated_at is not None and read.created_at.tzinfo is not None


def test_second_run_in_flight_is_409(
    client: Client, collected: Collected, slowed: Callable[..., Any]
) -> None:
    audience = client.audience_datasets.create("one at a time")
    with slowed():
        first = client.audience_datasets.runs.create(
            audience.id, collected.dataset.id, total_profile_count=2
        )
        with pytest.raises(AudienceDatasetRunAlreadyInFlight) as raised:
            client.audience_datasets.runs.create(
                audience.id, collected.dataset.id, total_profile_count=2
            )
    error = raised.value
    assert isinstance(error, Conflict) and error.status == 409
    assert error.body["status"] == "client_error"
    finish(first)
    second = client.audience_datasets.runs.create(
        audience.id, collected.dataset.id, total_profile_count=2
    )
    assert finish(second).status.type == "completed"


def test_run_stops_early_and_refunds_the_rest(
    new_account: Callable[..., Account], collect: Callable[..., Any]
) -> None:
    client = new_account().client
    source = client.datasets.create("one author")
    finish(
        client.datasets.runs.create(
            source.id, {"type": "url", "source_urls": ["https://www.tiktok.com/@oatly"]}, count=3
        )
    )
    audience = client.audience_datasets.create("few")
    done = finish(
        client.audience_datasets.runs.create(audience.id, source.id, total_profile_count=50)
    )
    assert done.status.type == "completed" and done.target_profile_count == 50
    assert done.profile_count is not None and 0 < done.profile_count < 50
    charge = client.usage_history().data[0]
    assert (charge.category, charge.quantity_credits) == (
        "audience_profile",
        3 * done.profile_count,  # the unused reservation came back
    )


def test_a_deleted_source_keeps_its_profiles_but_takes_no_new_runs(
    client: Client, collect: Callable[..., Any]
) -> None:
    source = collect(client, "soon deleted", count=5)
    audience = client.audience_datasets.create("outlives its source")
    finish(client.audience_datasets.runs.create(audience.id, source.id, total_profile_count=2))
    client.datasets.delete(source.id)
    kept = client.audience_profiles.list(audience_dataset_ids=[audience.id]).data
    assert len(kept) == 2 == client.audience_datasets.get(audience.id).profile_count
    with pytest.raises(APIError) as raised:
        client.audience_datasets.runs.create(audience.id, source.id, total_profile_count=2)
    assert 400 <= raised.value.status < 500  # the spec names no code for this refusal


def test_source_without_a_completed_run(client: Client) -> None:
    audience = client.audience_datasets.create("empty source")
    empty = client.datasets.create("never ran")
    with pytest.raises(SourceDatasetHasNoCompletedRun):
        client.audience_datasets.runs.create(audience.id, source_dataset_id=empty.id)


def test_unaffordable_run_is_402(
    new_account: Callable[..., Account], collect: Callable[..., Any]
) -> None:
    client = new_account(wallet_usd="0.5").client
    source = collect(client, "cheap", count=5)
    audience = client.audience_datasets.create("too many")
    with pytest.raises(InsufficientCreditsAudienceDatasetRun) as raised:
        client.audience_datasets.runs.create(audience.id, source.id, total_profile_count=2000)
    assert raised.value.required is not None and raised.value.required > Decimal("0.4")
    assert list(client.audience_datasets.runs.list(audience.id)) == []


def test_profiles_have_every_field_typed(client: Client, profiled: AudienceRun) -> None:
    page = client.audience_profiles.list(
        audience_dataset_ids=[profiled.audience_dataset_id], limit=5
    )
    assert len(page.data) == 5 and page.has_next
    profile = page.data[0]
    assert isinstance(profile, AudienceProfile) and profile.run_id == profiled.id
    assert profile.created_at is not None and profile.created_at.tzinfo is not None
    assert isinstance(profile.to_wire()["created_at"], int)  # Unix seconds on the wire
    expected = set(AudienceProfile.model_fields)
    assert expected <= set(profile.model_fields_set)  # every spec field is present
    assert profile.avatar is not None and profile.avatar.version_list
    assert isinstance(profile.ocean, dict) and isinstance(profile.content_niche, list)


@pytest.mark.parametrize("order", ["desc", "asc"])
@pytest.mark.parametrize("sort", ["created_at", "audience_dataset_run_at"])
def test_profiles_page_by_sort_and_order(
    client: Client, profiled: AudienceRun, sort: str, order: str
) -> None:
    query: dict[str, Any] = {
        "audience_dataset_ids": [profiled.audience_dataset_id],
        "sort": sort,
        "order": order,
    }
    everything = client.audience_profiles.list(**query, limit=100).data
    paged = list(client.audience_profiles.list(**query, limit=7))
    assert [p.id for p in paged] == [p.id for p in everything]
    assert len(paged) == 25 == len({p.id for p in paged})
    stamps = [p.created_at for p in paged]
    assert stamps == sorted(stamps, reverse=order == "desc")  # type: ignore[type-var]


def test_profile_filters_or_groups_and_and_filters(client: Client, profiled: AudienceRun) -> None:
    ids = [profiled.audience_dataset_id]
    everyone = client.audience_profiles.list(audience_dataset_ids=ids, limit=100).data
    tiers = {p.creator_tier for p in everyone}
    tier = sorted(t for t in tiers if t)[0]
    one_tier = list(
        client.audience_profiles.list(
            audience_dataset_ids=ids, filters=f.creator_tier(tier), limit=100
        )
    )
    assert one_tier and all(p.creator_tier == tier for p in one_tier)
    assert len(one_tier) == sum(p.creator_tier == tier for p in everyone)
    both = list(
        client.audience_profiles.list(
            audience_dataset_ids=ids,
            filters=[[f.creator_tier(tier), f.is_verified(False)]],
            limit=100,
        )
    )
    assert {p.id for p in both} == {
        p.id for p in everyone if p.creator_tier == tier and p.is_verified is False
    }
    either = list(
        client.audience_profiles.list(
            audience_dataset_ids=ids,
            filters=[[f.is_verified(True)], [f.is_verified(False)]],
            limit=100,
        )
    )
    assert len(either) == len(everyone)


def test_profile_cursor_is_bound_to_its_sort(client: Client, profiled: AudienceRun) -> None:
    ids = [profiled.audience_dataset_id]
    page = client.audience_profiles.list(audience_dataset_ids=ids, sort="created_at", limit=5)
    assert page.cursor
    with pytest.raises(InvalidCursor) as raised:
        client.audience_profiles.list(
            audience_dataset_ids=ids, sort="audience_dataset_run_at", limit=5, cursor=page.cursor
        )
    assert raised.value.error_code == "invalid_cursor"
    with pytest.raises(InvalidCursor):
        client.audience_profiles.list(audience_dataset_ids=ids, cursor="not-a-cursor")


def test_profiles_without_ids_span_every_audience_dataset(
    client: Client, profiled: AudienceRun
) -> None:
    every = {p.id for p in client.audience_profiles.list(limit=100)}
    mine = {
        p.id
        for p in client.audience_profiles.list(
            audience_dataset_ids=[profiled.audience_dataset_id], limit=100
        )
    }
    assert mine and mine <= every
