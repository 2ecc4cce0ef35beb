"""Windows a user types without thinking of the calendar (issue 34, item 5's unscripted
users): nothing is ever posted after the collection. A 10,000-year window collects posts
up to the sandbox's clock, never beyond it (they reached a year ahead: 2027 posts on a
2026 clock); a window wholly in the future collects nothing and its preview estimates 0
posts (it estimated hundreds); a one-day window collects that day's posts. Over real HTTP
through the client."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rdskit import Client
from rdskit.sandbox import SandboxHandle

QUERY = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}


def _collect(rds: Client, name: str, window: dict[str, str]) -> list[datetime]:
    """The creation times of what a 20-post run over ``window`` collected."""
    dataset = rds.datasets.create(name)
    run = rds.datasets.runs.create(dataset.id, QUERY, count=20, date_range=window)
    assert run.wait(progress=False).status.type == "completed"
    frame = rds.mentions.to_frame(dataset_ids=[dataset.id])
    return list(frame["created_at"]) if len(frame) else []


@pytest.mark.timeout(300)
def test_no_post_is_dated_after_the_collection(rds: Client, sandbox: SandboxHandle) -> None:
    ever = _collect(rds, "ten thousand years", {"from": "0001-01-01", "to": "9999-12-31"})
    clock = datetime.fromtimestamp(sandbox.store.clock.now(), tz=UTC)  # after the run
    assert len(ever) == 20 and max(ever) <= clock, (max(ever), clock)

    ahead = {"from": f"{clock.year + 2}-01-01", "to": f"{clock.year + 2}-01-31"}
    assert _collect(rds, "two years ahead", ahead) == []
    preview = rds.research_previews.create(
        search_query="oat milk",
        sources=["reddit", "tiktok"],
        date_since=ahead["from"],
        date_until=ahead["to"],
    )
    assert (preview.estimated_number_of_results, preview.posts) == (0, [])

    day = f"{clock.year - 1}-12-30"
    one_day = _collect(rds, "one day", {"from": day, "to": day})
    assert len(one_day) == 20 and {t.date().isoformat() for t in one_day} == {day}
