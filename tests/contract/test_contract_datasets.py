"""Datasets and dataset runs: every row of the spec's Datasets table, through the client."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from contract_support import PROMPT, Account, Collected, finish

from rdskit import Client, InsufficientCredits, NotFound, SyncPage
from rdskit.errors import (
    CollectionContentTypeMismatch,
    DatasetNotFound,
    DateFilterUnavailable,
    InsufficientCreditsDatasetRun,
    InvalidCursor,
    ValidationError,
)
from rdskit.models import Dataset, DatasetRun, PromptSearchQuery, UrlSearchQuery


def test_create_answers_id_name_and_created_at_only(client: Client) -> None:
    dataset = client.datasets.create("Oat milk: create")
    assert isinstance(dataset, Dataset)
    assert dataset.id.startswith("ds_") and dataset.name == "Oat milk: create"
    assert dataset.created_at.tzinfo is not None and dataset.created_at.utcoffset() == timedelta(0)
    assert set(dataset.to_wire()) == {"id", "name", "created_at"}  # nothing else on create
    assert dataset.to_wire()["created_at"].endswith("Z")  # ISO 8601 UTC on the wire


def test_get_reads_counts_and_app_url(client: Client, collected: Collected) -> None:
    dataset = client.datasets.get(collected.dataset.id)
    assert dataset.mentions_count == collected.run.mentions_count
    assert isinstance(dataset.images_count, int) and isinstance(dataset.videos_count, int)
    assert dataset.updated_at is not None and dataset.updated_at >= dataset.created_at
    assert dataset.url is not None and dataset.id in dataset.url


def test_update_renames(client: Client) -> None:
    dataset = client.datasets.create("before")
    renamed = client.datasets.update(dataset.id, name="after")
    assert isinstance(renamed, Dataset) and renamed.name == "after"
    assert client.datasets.get(dataset.id).name == "after"


def test_delete_hides_the_dataset(client: Client) -> None:
    dataset = client.datasets.create("doomed")
    assert client.datasets.delete(dataset.id) is None
    with pytest.raises(DatasetNotFound) as raised:
        client.datasets.get(dataset.id)
    error = raised.value
    assert isinstance(error, NotFound)
    assert (error.status, error.error_code, error.transient) == (404, "dataset_not_found", False)
    assert error.body["status"] == "info"
    assert dataset.id not in {ds.id for ds in client.datasets.list(limit=100)}


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.datasets.get("ds_missing"),
        lambda c: c.datasets.update("ds_missing", name="x"),
        lambda c: c.datasets.delete("ds_missing"),
        lambda c: c.datasets.runs.create("ds_missing", PROMPT, count=5),
        lambda c: c.datasets.runs.list("ds_missing"),
        lambda c: c.datasets.runs.get("ds_missing", "dsr_missing"),
    ],
    ids=["get", "update", "delete", "runs.create", "runs.list", "runs.get"],
)
def test_missing_dataset_is_dataset_not_found(
    client: Client, call: Callable[[Client], object]
) -> None:
    with pytest.raises(DatasetNotFound):
        call(client)


def test_list_pages_through_every_dataset_in_both_orders(
    new_account: Callable[..., Account],
) -> None:
    client = new_account().client
    made = [client.datasets.create(f"ds {i}").id for i in range(5)]
    first = client.datasets.list(limit=2)
    assert isinstance(first, SyncPage)
    assert (len(first.data), first.has_next) == (2, True) and first.cursor
    newest_first = [ds.id for ds in first]  # iterating follows the cursors
    assert newest_first == made[::-1]  # desc is the default
    assert len(list(first.pages())) == 3
    assert [ds.id for ds in client.datasets.list(limit=2, order="asc")] == made
    last = client.datasets.list(limit=100)
    assert (len(last.data), last.has_next) == (5, False)
    with pytest.raises(InvalidCursor):  # cursors are sort-aware
        client.datasets.list(limit=2, order="asc", cursor=first.cursor)


def test_prompt_run_is_created_pending_then_completes(client: Client) -> None:
    dataset = client.datasets.create("prompt run")
    run = client.datasets.runs.create(
        dataset.id,
        PromptSearchQuery(
            sources=["reddit", "tiktok"], search_query="oat milk", fragments=["barista"]
        ),
        count=15,
        num_comments_per_post=1,
        language="en",
        country_code="US",
        enable_visual_recognition=True,
        enable_transcribing=False,
        content_analysis_actions=["sentiment"],
    )
    assert isinstance(run, DatasetRun) and run.id.startswith("dsr_")
    assert (run.dataset_id, run.status.type, run.count, run.requested_count) == (
        dataset.id,
        "pending",
        15,
        15,
    )
    assert {"id", "dataset_id", "count", "requested_count", "created_at", "status"} <= set(
        run.to_wire()
    )
    done = finish(run)
    assert done.status.type == "completed"
    assert 0 < (done.mentions_count or 0) <= 15
    assert done.new_mentions_count == done.mentions_count  # a first run: everything is new
    assert done.status.steps  # the pipeline steps, with timestamps
    assert all(step.started is not None for step in done.status.steps)
    assert done.params is not None
    query = done.params.search_query
    assert isinstance(query, PromptSearchQuery) and query.fragments == ["barista"]
    assert (done.params.count, done.params.num_comments_per_post) == (15, 1)
    assert done.params.content_analysis_actions == ["sentiment"]
    assert done.updated_at is not None and done.updated_at >= done.created_at
    year_ago = datetime.now(UTC) - timedelta(days=366)  # no date_range: the past 365 days
    for mention in client.mentions.list(dataset_ids=[dataset.id], limit=100):
        assert mention.created_at is not None and mention.created_at >= year_ago


def test_url_run_echoes_its_urls(client: Client) -> None:
    dataset = client.datasets.create("url run")
    urls = ["https://www.tiktok.com/@oatly"]
    run = client.datasets.runs.create(dataset.id, {"type": "url", "source_urls": urls}, count=5)
    done = finish(run)
    assert done.status.type == "completed" and done.params is not None
    assert isinstance(done.params.search_query, UrlSearchQuery)
    assert done.params.search_query.source_urls == urls


def test_runs_accumulate_and_page_in_both_orders(client: Client) -> None:
    dataset = client.datasets.create("three runs")
    runs = [client.datasets.runs.create(dataset.id, PROMPT, count=5) for _ in range(3)]
    assert len({run.id for run in runs}) == 3  # several runs may be in flight at once
    for run in runs:
        finish(run)
    page = client.datasets.runs.list(dataset.id, limit=2)
    assert (len(page.data), page.has_next) == (2, True)
    assert [run.id for run in page] == [run.id for run in reversed(runs)]
    assert [run.id for run in client.datasets.runs.list(dataset.id, limit=2, order="asc")] == [
        run.id for run in runs
    ]
    read = client.datasets.runs.get(dataset.id, runs[0].id)
    assert isinstance(read, DatasetRun) and read.status.type == "completed"
    assert read.mentions_count is not None and read.new_mentions_count is not None
    # mentions accumulate across runs of a dataset
    total = client.datasets.get(dataset.id).mentions_count
    assert total is not None and total >= max(run.mentions_count or 0 for run in page)


def test_explicit_date_range_is_refused_on_a_plan_without_it(
    new_account: Callable[..., Account],
) -> None:
    client = new_account(plan="Starter").client
    dataset = client.datasets.create("range")
    today = date.today()
    with pytest.raises(DateFilterUnavailable) as raised:
        client.datasets.runs.create(
            dataset.id, PROMPT, count=5, date_range={"from": today - timedelta(days=7), "to": today}
        )
    assert raised.value.error_code == "date_filter_unavailable"
    assert list(client.datasets.runs.list(dataset.id)) == []


def test_date_range_is_sent_as_days(client: Client) -> None:
    dataset = client.datasets.create("windowed")
    today = date.today()
    window = {"from": (today - timedelta(days=30)).isoformat(), "to": today.isoformat()}
    run = client.datasets.runs.create(dataset.id, PROMPT, count=5, date_range=window)
    done = finish(run)
    assert done.params is not None and done.params.date_range is not None
    assert done.params.date_range.to_wire() == window
    for mention in client.mentions.list(dataset_ids=[dataset.id], limit=100):
        assert mention.created_at is not None
        assert mention.created_at.astimezone(UTC).date() >= today - timedelta(days=30)


def test_content_type_mismatch(client: Client) -> None:
    dataset = client.datasets.create("organic only")
    finish(client.datasets.runs.create(dataset.id, PROMPT, count=5))
    with pytest.raises(CollectionContentTypeMismatch):
        client.datasets.runs.create(dataset.id, {**PROMPT, "content_type": "ad"}, count=5)


def test_unaffordable_run_is_402_and_nothing_starts(new_account: Callable[..., Account]) -> None:
    account = new_account(wallet_usd="0.05")
    client = account.client
    dataset = client.datasets.create("poor")
    with pytest.raises(InsufficientCreditsDatasetRun) as raised:
        client.datasets.runs.create(dataset.id, PROMPT, count=500)
    error = raised.value
    assert isinstance(error, InsufficientCredits) and error.status == 402
    assert error.body["status"] == "client_error"
    assert isinstance(error.required, Decimal) and isinstance(error.available, Decimal)
    assert error.required > error.available
    assert error.available <= Decimal("0.05")  # USD, never relabelled as credits
    assert error.required_credits is not None and error.required_credits >= 500
    assert error.top_up_url and error.top_up_url.startswith("http")
    assert list(client.datasets.runs.list(dataset.id)) == []
    assert list(client.usage_history()) == []


def test_unknown_source_is_a_server_side_422(client: Client) -> None:
    dataset = client.datasets.create("bad source")
    with pytest.raises(ValidationError) as raised:
        client.datasets.runs.create(
            dataset.id, {"type": "prompt", "sources": ["myspace"], "search_query": "oat"}, count=5
        )
    assert raised.value.status == 422
    issue = raised.value.errors[0]
    assert {"loc", "msg", "type"} <= set(issue) and "sources" in issue["loc"]
