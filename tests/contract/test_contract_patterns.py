"""Pattern detections, patterns and pattern items through the client."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from contract_support import Account, Collected, finish

from rdskit import Client, RunFailed
from rdskit.errors import (
    DatasetNotFound,
    InsufficientCreditsPatternDetection,
    PatternDetectionRunNotFound,
)
from rdskit.models import Pattern, PatternDetectionRun, PatternItemDetail, PostPointer


@pytest.fixture(scope="module")
def detected(client: Client, collected: Collected) -> PatternDetectionRun:
    started = client.pattern_detections.create(
        collected.dataset.id, name="Why oat milk", research_question="Why do people switch?"
    )
    assert isinstance(started, PatternDetectionRun) and started.run_id.startswith("pdr_")
    assert (started.status.type, started.status.steps, started.pattern_id) == ("pending", [], None)
    assert started.collection_id == collected.dataset.id
    assert isinstance(started.to_wire()["created_at"], int)
    return finish(started)


def test_detection_completes_with_a_pattern(client: Client, detected: PatternDetectionRun) -> None:
    assert detected.status.type == "completed" and detected.pattern_id
    assert detected.pattern_id.startswith("pt_")
    read = client.pattern_detections.get(detected.run_id)
    assert (read.pattern_id, read.name, read.research_question) == (
        detected.pattern_id,
        "Why oat milk",
        "Why do people switch?",
    )


def test_pattern_items_expand_to_posts(
    client: Client, detected: PatternDetectionRun, collected: Collected
) -> None:
    assert detected.pattern_id is not None
    pattern = client.patterns.get(detected.pattern_id)
    assert isinstance(pattern, Pattern) and pattern.summary and pattern.items
    assert sum(item.post_count or 0 for item in pattern.items) <= (
        collected.run.mentions_count or 0
    )
    item = pattern.items[0]
    assert item.item_id and item.title and item.synopsis
    detail = client.patterns.item(detected.pattern_id, item.item_id)
    assert isinstance(detail, PatternItemDetail) and detail.item_id == item.item_id
    assert len(detail.posts) == item.post_count
    assert all(isinstance(post, PostPointer) and post.type == "post" for post in detail.posts)
    found = client.mentions.list(post_refs=[{"source": p.source, "id": p.id} for p in detail.posts])
    assert [(m.source, m.id) for m in found.data] == [(p.source, p.id) for p in detail.posts]
    assigned = [m.pattern_assignments or {} for m in found.data]
    assert all(
        item.item_id in {a.pattern_item_id for a in assignments.get(detected.pattern_id, [])}
        for assignments in assigned
    )


def test_missing_runs_and_datasets(client: Client) -> None:
    with pytest.raises(PatternDetectionRunNotFound) as raised:
        client.pattern_detections.get("pdr_missing")
    assert raised.value.status == 404
    with pytest.raises(DatasetNotFound):
        client.pattern_detections.create("ds_missing", name="n", research_question="q")


def test_failed_detection_raises_run_failed(client: Client, collected: Collected) -> None:
    run = client.pattern_detections.create(
        collected.dataset.id, name="__fail__", research_question="q"
    )
    with pytest.raises(RunFailed) as raised:
        finish(run)
    assert raised.value.obj.status.type == "failed" and raised.value.obj.pattern_id is None


def test_unaffordable_detection_is_402(
    new_account: Callable[..., Account], collect: Callable[..., Any]
) -> None:
    account = new_account(wallet_usd="0.3")
    dataset = collect(account.client, "nearly spent", count=20)
    with pytest.raises(InsufficientCreditsPatternDetection) as raised:
        account.client.pattern_detections.create(dataset.id, name="n", research_question="q")
    assert raised.value.required is not None and raised.value.required > Decimal(0)
