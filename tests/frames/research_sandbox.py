"""Sandbox data for the research tests: two brand datasets with comments and sentiment,
and an audience of the first, collected once per test module.

``tests/frames/conftest.py`` makes the ``research`` fixture available to every module.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pandas as pd
import pytest

import rdskit
from rdskit.sandbox import SandboxHandle

WINDOW = {"from": "2025-10-01", "to": "2025-12-31"}
BRANDS = {"Oatly": "oatly barista", "Alpro": "alpro soy"}
SOURCES = ["reddit", "tiktok", "instagram", "youtube"]


@dataclass
class Research:
    client: rdskit.Client
    datasets: dict[str, str]  # name -> id
    audience: str  # audience dataset id (of the first brand)
    api_key: str

    def mentions(self, **query: object) -> pd.DataFrame:
        return self.client.mentions.to_frame(dataset_ids=list(self.datasets.values()), **query)


@pytest.fixture(scope="module")
def research(sandbox: SandboxHandle) -> Iterator[Research]:
    account = sandbox.admin.create_account(plan="Business")
    with rdskit.Client(account.api_key, base_url=sandbox.url) as client:
        ids = {}
        for name, query in BRANDS.items():
            ds = client.datasets.create(name)
            run = client.datasets.runs.create(
                ds.id,
                {"type": "prompt", "sources": SOURCES, "search_query": query},
                count=60,
                date_range=WINDOW,
                num_comments_per_post=3,
                content_analysis_actions=["sentiment", "hook", "cta"],
            )
            assert run.wait(timeout=120, progress=False).status.type == "completed"
            ids[name] = ds.id
        audience = client.audience_datasets.create("Oatly audience")
        client.audience_datasets.runs.create(
            audience.id, source_dataset_id=ids["Oatly"], total_profile_count=40
        ).wait(timeout=120, progress=False)
        yield Research(client, ids, audience.id, account.api_key)
