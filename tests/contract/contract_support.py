"""Names shared by the contract tests (imported by name; the fixtures live in conftest)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdskit import Client
from rdskit.models import Dataset, DatasetRun

FAST = 500.0  # simulated-time speed-up: a dataset run takes ~15 ms
SLOW = 2.0  # while slowed: a queued run waits ~0.5 s before it starts
PROMPT = {"type": "prompt", "sources": ["reddit", "tiktok", "instagram"],
          "search_query": "oat milk"}  # fmt: skip
WAIT = 30.0  # seconds any single wait may take before the test fails
POLL = 0.01  # first poll interval of waits (the default 1 s suits the real service)


@dataclass
class Account:
    """An isolated account: its ids, its raw key and a typed client on it."""

    account_id: str
    seat_id: str
    api_key: str
    client: Client


def finish(obj: Any) -> Any:
    """``obj.wait()`` at the sandbox's pace: polls from 10 ms on, fails after ``WAIT`` s."""
    return obj.wait(timeout=WAIT, poll_interval=POLL)


def collect_into(client: Client, name: str, count: int = 20, **options: Any) -> Dataset:
    """A new dataset with one completed prompt run of ``count`` mentions."""
    dataset = client.datasets.create(name)
    run = client.datasets.runs.create(dataset.id, PROMPT, count=count, **options)
    assert finish(run).status.type == "completed"
    return dataset


@dataclass(frozen=True)
class Collected:
    """The shared dataset and its completed run."""

    dataset: Dataset
    run: DatasetRun
