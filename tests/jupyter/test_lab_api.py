"""The JupyterLab panel's summary: what it reads, through the gateway's shared bucket, and
how often (reused for MIN_INTERVAL seconds however many callers poll)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from rdskit.jupyter.lab_api import DATASETS_SHOWN, MIN_INTERVAL, LabSummary

ME = {
    "id": "u1",
    "email": "a@example.com",
    "team_name": "Team <b>",
    "plan": {"name": "Pro"},
    "usage": {"credits_total": "1000.000000", "credits_used": "10.500000"},
}
DATASETS = {"data": [{"id": "ds_1", "name": '<img src=x onerror="alert(1)">', "created_at": 0}]}
RUNS = {
    "data": [
        {
            "id": "dsr_1",
            "created_at": 0,
            "dataset_id": "ds_1",
            "count": 40,
            "mentions_count": 0,
            "status": {
                "type": "working",
                "steps": [
                    {"name": "scraping", "status": "completed"},
                    {"name": "enrichment", "status": "working"},
                ],
            },
        }
    ]
}


class FakeGateway:
    """Records every forwarded read (the real Gateway.forward takes a bucket slot each)."""

    def __init__(self) -> None:
        self.reads: list[tuple[str, str]] = []

    def status(self) -> dict[str, Any]:
        return {"mode": "sandbox", "upstream": "http://127.0.0.1:1", "rate_limit": 5.0, "queued": 0}

    async def forward(
        self, method: str, path: str, query: str, body: bytes, headers: dict[str, str]
    ) -> httpx.Response:
        self.reads.append((path, query))
        bodies = {
            "v1/me": ME,
            "v1/datasets": DATASETS,
            "v1/datasets/ds_1/runs": RUNS,
            "v1/tracking_agents": {"data": []},
        }
        return httpx.Response(200, content=json.dumps(bodies[path]).encode())


def test_the_summary_is_read_once_per_interval_and_says_what_the_panel_shows() -> None:
    now = [100.0]
    gateway = FakeGateway()
    summary = LabSummary(gateway, clock=lambda: now[0])  # type: ignore[arg-type]

    async def main() -> list[dict[str, Any]]:
        first = await summary.get()
        together = await asyncio.gather(*(summary.get() for _ in range(5)))
        now[0] += MIN_INTERVAL
        return [first, *together, await summary.get()]

    results = asyncio.run(main())
    # one read of each path per interval, whoever asks: 4 reads, then 4 more
    assert len(gateway.reads) == 8, gateway.reads
    assert ("v1/datasets", f"limit={DATASETS_SHOWN}") in gateway.reads
    first = results[0]
    assert first["account"] == {
        "email": "a@example.com",
        "team": "Team <b>",
        "plan": "Pro",
        "credits_left": "989.5 credits",
    }
    assert first["datasets"][0]["name"] == '<img src=x onerror="alert(1)">'  # as text
    (run,) = first["datasets"][0]["runs"]
    assert run["id"] == "dsr_1" and run["status"] == "working" and 0 < run["share"] < 1
    assert first["runs_in_flight"] == 1 and first["tracking_agents"] == 0
    assert first["next_poll"] == MIN_INTERVAL and first["connected"]["mode"] == "sandbox"
