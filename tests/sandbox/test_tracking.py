"""Tracking agents: the post-link rewrite, CRUD, schedules, triggers, cycles and alerts."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rdskit.references import check_references, rewrite_post_links
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.tracking import compose_alert, next_run_at

if TYPE_CHECKING:
    from conftest import Account, Api

# -- the reference rewrite ------------------------------------------------------------


def test_rewrite_numbers_posts_by_first_appearance_and_reuses_repeats() -> None:
    text, refs = rewrite_post_links(
        "A [x](post:reddit:r1), B [y](post:tiktok:t1), again [z](post:reddit:r1)."
    )
    assert text == "A [1], B [2], again [1]."
    assert [(r["source"], r["id"], r["citation"]) for r in refs] == [
        ("reddit", "r1", 1),
        ("tiktok", "t1", 2),
    ]
    assert all(r["type"] == "post" for r in refs)
    assert [text[r["start_index"] : r["end_index"]] for r in refs] == ["[1]", "[2]"]
    assert refs[0]["start_index"] == 2  # the first occurrence, not the repeat
    assert check_references(text, refs) == []


def test_rewrite_indices_count_unicode_code_points() -> None:
    text, refs = rewrite_post_links(
        "Ça «mousse» 🥛🥛 [très bien](post:instagram:ig_é1) 日本 [x](post:youtube:v)"
    )
    assert text == "Ça «mousse» 🥛🥛 [1] 日本 [2]"
    assert refs[0]["id"] == "ig_é1"
    for ref in refs:
        assert text[ref["start_index"] : ref["end_index"]] == f"[{ref['citation']}]"
    assert check_references(text, refs) == []


def test_same_id_on_two_sources_is_two_posts() -> None:
    text, refs = rewrite_post_links("[a](post:reddit:1)[b](post:tiktok:1)[c](post:reddit:1)")
    assert text == "[1][2][1]"
    assert len(refs) == 2


def test_text_without_links_is_unchanged() -> None:
    assert rewrite_post_links("no links [here](https://x.test) [1]") == (
        "no links [here](https://x.test) [1]",
        [],
    )


def test_check_references_reports_every_broken_rule() -> None:
    text = "see [2] and [1] and [3] [x](post:reddit:z)"
    refs = [
        {"type": "post", "source": "reddit", "id": "a", "citation": 1,
         "start_index": 12, "end_index": 15},
        {"type": "post", "source": "reddit", "id": "a", "citation": 2,
         "start_index": 4, "end_index": 7},
        {"type": "post", "source": "tiktok", "id": "b", "citation": 4,
         "start_index": 0, "end_index": 3},
        {"type": "tracking_agent", "id": "ta_1"},
        {"type": "pattern", "id": "pt_1"},
    ]  # fmt: skip
    problems = check_references(text, refs)
    assert "the text still contains an inline post link" in problems
    assert "post reddit:a: listed more than once" in problems
    assert 'post tiktok:b: text[0:3] is "see" (expected "[4]")' in problems
    assert "reference 3 has unknown type 'tracking_agent'" in problems
    assert any(p.startswith("citations by first appearance are [4, 2, 1]") for p in problems)
    assert "marker [3] has no post reference" in problems
    assert not any("pt_1" in p or "reference 4" in p for p in problems)


_label = st.text(st.characters(blacklist_characters="[]()\\"), max_size=6)  # no escapes
_filler = st.text(st.characters(blacklist_characters="[]\\"), max_size=8)
_post = st.tuples(st.sampled_from(["reddit", "tiktok"]), st.sampled_from(["a", "b", "ü", "9"]))


@given(st.lists(st.tuples(_filler, _label, _post), max_size=8), _filler)
def test_rewrite_always_satisfies_the_reference_rules(
    parts: list[tuple[str, str, tuple[str, str]]], tail: str
) -> None:
    source_text = "".join(f"{f}[{label}](post:{s}:{i})" for f, label, (s, i) in parts) + tail
    text, refs = rewrite_post_links(source_text)
    assert check_references(text, refs) == []
    assert len(refs) == len({post for _, _, post in parts})
    firsts = list(dict.fromkeys(post for _, _, post in parts))
    assert [(r["source"], r["id"]) for r in refs] == firsts


# -- schedule math ------------------------------------------------------------------------

WED = datetime(2026, 1, 7, 10, 30, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("schedule", "now", "expected"),
    [
        ({"frequency": "daily", "time": "11:00"}, WED, datetime(2026, 1, 7, 11, 0)),
        ({"frequency": "daily", "time": "10:30"}, WED, datetime(2026, 1, 8, 10, 30)),  # not "now"
        ({"frequency": "daily", "time": "09:15"}, WED, datetime(2026, 1, 8, 9, 15)),
        ({"frequency": "daily", "time": "00:00"}, datetime(2025, 12, 31, 23, 59, tzinfo=UTC),
         datetime(2026, 1, 1, 0, 0)),
        ({"frequency": "weekly", "time": "12:00", "day": "wednesday"}, WED,
         datetime(2026, 1, 7, 12, 0)),
        ({"frequency": "weekly", "time": "10:30", "day": "wednesday"}, WED,
         datetime(2026, 1, 14, 10, 30)),
        ({"frequency": "weekly", "time": "08:00", "day": "monday"}, WED,
         datetime(2026, 1, 12, 8, 0)),
        ({"frequency": "weekly", "time": "23:59", "day": "tuesday"}, WED,
         datetime(2026, 1, 13, 23, 59)),
        ({"frequency": "weekly", "time": "06:00", "day": "friday"},
         datetime(2026, 12, 31, 7, 0, tzinfo=UTC), datetime(2027, 1, 1, 6, 0)),
    ],
)  # fmt: skip
def test_next_run_at(schedule: dict[str, str], now: datetime, expected: datetime) -> None:
    assert next_run_at(schedule, now) == expected.replace(tzinfo=UTC)


def test_compose_alert_cites_posts_and_a_pattern() -> None:
    posts = [
        {"source": "reddit", "id": "r1", "title": "Leaked [again]", "text": "So disappointed",
         "num_likes": 50, "sentiment_score": "-0.8", "comments": [{}, {}]},
        {"source": "tiktok", "id": "t1", "text": "Love the foam", "num_likes": 5,
         "sentiment_score": "0.6"},
        {"source": "tiktok", "id": "t2", "text": "", "num_likes": 1},
    ]  # fmt: skip
    alert = compose_alert(
        "Oat watch", "Is it a complaint?", posts, ["Oat"], {"id": "pt_1", "name": "Pains"}
    )
    assert (alert["new_mention_count"], alert["comment_count"]) == (3, 2)
    assert alert["sentiment_score"] == -0.1  # mean of the scored posts
    assert "1 of them match your instructions" in alert["text"]
    assert check_references(alert["text"], alert["references"]) == []
    posts_cited = [(r["source"], r["id"]) for r in alert["references"] if r["type"] == "post"]
    assert posts_cited[0] == ("reddit", "r1")  # most engaging, cited in the headline and again
    assert alert["text"].count("[1]") == 2
    assert set(posts_cited) == {("reddit", "r1"), ("tiktok", "t1"), ("tiktok", "t2")}
    assert alert["references"][-1] == {"type": "pattern", "id": "pt_1"}
    assert "Oat watch" in alert["short_preview_message"]


def test_compose_alert_without_new_posts() -> None:
    alert = compose_alert("Quiet", "", [], ["A", "B"])
    assert alert["new_mention_count"] == 0 and alert["references"] == []
    assert alert["text"] == "**Quiet**: 0 new mentions in A, B."


# -- over HTTP ------------------------------------------------------------------------------

DAILY = {"frequency": "daily", "time": "06:00"}


@pytest.fixture(scope="module")
def slow() -> Iterator[SandboxHandle]:
    """A private, slower sandbox: cycles last long enough to be observed, and its clock
    may be advanced without disturbing other tests."""
    with start(speed=25, rate_limit=10_000, seed=11) as handle:
        yield handle


def _dataset(http: httpx.Client, api: type[Api], query: str | None = "oat milk") -> str:
    """A dataset; with a completed run of ``query`` unless ``query`` is None."""
    dataset_id: str = api.data(http.post("/v1/datasets", json={"name": f"track {query}"}))["id"]
    if query is not None:
        run = api.data(http.post(f"/v1/datasets/{dataset_id}/runs", json=api.prompt_run(query, 10)))
        assert (
            api.wait_run(http, dataset_id, run["id"], timeout=60)["status"]["type"] == "completed"
        )
    return dataset_id


def _agent(
    http: httpx.Client, api: type[Api], dataset_ids: list[str], **extra: Any
) -> dict[str, Any]:
    body = {
        "name": "Oat watch",
        "instructions": "Is it a complaint?",
        "dataset_ids": dataset_ids,
        "integration_ids": [],
        "count": 15,
        "num_comments_per_post": 2,
        "schedule": DAILY,
        **extra,
    }
    agent: dict[str, Any] = api.data(http.post("/v1/tracking_agents", json=body))
    return agent


def _messages(http: httpx.Client, api: type[Api], agent_id: str, n: int) -> list[dict[str, Any]]:
    """Wait until the agent has ``n`` messages; return them (newest first)."""
    deadline = time.monotonic() + 60
    while True:
        got: list[dict[str, Any]] = api.data(
            http.get(f"/v1/tracking_agents/{agent_id}/messages", params={"limit": 100})
        )
        if len(got) >= n:
            return got
        assert time.monotonic() < deadline, f"only {len(got)} messages"
        time.sleep(0.05)


def test_agent_crud_pause_resume_and_soft_delete(account: Account, api: type[Api]) -> None:
    http = account.http
    dataset_id = _dataset(http, api, None)
    agent = _agent(http, api, [dataset_id])
    assert agent["id"].startswith("ta_")
    assert (agent["dataset_ids"], agent["count"], agent["num_comments_per_post"]) == (
        [dataset_id],
        15,
        2,
    )
    assert agent["paused"] is False and agent["schedule"] == DAILY and agent["integrations"] == []
    assert agent["last_run_at"] is None
    created = datetime.fromtimestamp(agent["created_at"], tz=UTC)
    assert agent["next_run_at"] == int(next_run_at(DAILY, created).timestamp())

    listed = api.data(http.get("/v1/tracking_agents"))
    assert [a["id"] for a in listed] == [agent["id"]]
    assert set(http.get("/v1/tracking_agents").json()) == {"status", "data"}  # no pagination
    assert api.data(http.get(f"/v1/tracking_agents/{agent['id']}")) == agent

    weekly = {"frequency": "weekly", "time": "21:45", "day": "saturday"}
    patched = api.data(
        http.patch(
            f"/v1/tracking_agents/{agent['id']}", json={"name": "Renamed", "schedule": weekly}
        )
    )
    assert patched["name"] == "Renamed" and patched["schedule"] == weekly
    moment = datetime.fromtimestamp(patched["next_run_at"], tz=UTC)
    assert (moment.weekday(), moment.hour, moment.minute) == (5, 21, 45)
    assert patched["instructions"] == agent["instructions"]

    api.data(http.post(f"/v1/tracking_agents/{agent['id']}/pause"))
    paused = api.data(http.get(f"/v1/tracking_agents/{agent['id']}"))
    assert paused["paused"] is True and paused["next_run_at"] is None
    api.data(http.post(f"/v1/tracking_agents/{agent['id']}/resume"))
    resumed = api.data(http.get(f"/v1/tracking_agents/{agent['id']}"))
    assert resumed["paused"] is False
    assert resumed["next_run_at"] == int(next_run_at(weekly, datetime.now(UTC)).timestamp())

    api.data(http.delete(f"/v1/tracking_agents/{agent['id']}"))
    assert api.data(http.get("/v1/tracking_agents")) == []
    calls = ["GET ", "DELETE ", "PATCH ", "POST /pause", "POST /resume", "POST /trigger"]
    for method, suffix in (call.split(" ") for call in [*calls, "GET /messages"]):
        response = http.request(method, f"/v1/tracking_agents/{agent['id']}{suffix}", json={})
        api.error(response, 404, "not_found")


@pytest.mark.parametrize(
    "schedule",
    [
        {"frequency": "hourly", "time": "06:00"},
        {"frequency": "daily", "time": "24:00"},
        {"frequency": "daily", "time": "6:00"},
        {"frequency": "weekly", "time": "06:00"},
        {"frequency": "weekly", "time": "06:00", "day": "someday"},
        {"frequency": "daily", "time": "06:00", "day": "monday"},
    ],
)
def test_invalid_schedules_are_422(
    account: Account, api: type[Api], schedule: dict[str, str]
) -> None:
    dataset_id = _dataset(account.http, api, None)
    body = {"name": "x", "instructions": "", "dataset_ids": [dataset_id], "count": 5,
            "num_comments_per_post": 0, "schedule": schedule}  # fmt: skip
    response = account.http.post("/v1/tracking_agents", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][:2] == ["body", "schedule"]


def test_referenced_datasets_must_exist(
    account: Account, new_account: Callable[..., Account], api: type[Api]
) -> None:
    with pytest.raises(AssertionError, match="not_found"):
        _agent(account.http, api, ["ds_missing"])
    theirs = _dataset(new_account().http, api, None)
    api.error(
        account.http.post(
            "/v1/tracking_agents",
            json={
                "name": "x",
                "instructions": "",
                "dataset_ids": [theirs],
                "count": 5,
                "num_comments_per_post": 0,
                "schedule": DAILY,
            },
        ),
        404,
        "not_found",
    )


def test_agent_quota_follows_the_plan(new_account: Callable[..., Account], api: type[Api]) -> None:
    trial = new_account(plan="Trial")
    dataset_id = _dataset(trial.http, api, None)
    body = {"name": "x", "instructions": "", "dataset_ids": [dataset_id], "count": 5,
            "num_comments_per_post": 0, "schedule": DAILY}  # fmt: skip
    api.error(
        trial.http.post("/v1/tracking_agents", json=body), 400, "tracking_agent_limit_reached"
    )

    starter = new_account(plan="Starter")
    dataset_id = _dataset(starter.http, api, None)
    body["dataset_ids"] = [dataset_id]
    first = api.data(starter.http.post("/v1/tracking_agents", json=body))
    api.error(
        starter.http.post("/v1/tracking_agents", json=body), 400, "tracking_agent_limit_reached"
    )
    api.data(starter.http.delete(f"/v1/tracking_agents/{first['id']}"))
    api.data(starter.http.post("/v1/tracking_agents", json=body))  # deleted agents do not count


def test_trigger_runs_each_dataset_and_posts_a_valid_alert(
    slow: SandboxHandle, connect: Callable[..., httpx.Client], api: type[Api]
) -> None:
    acct = slow.admin.create_account()
    http = connect(slow, acct.api_key)
    first, second = _dataset(http, api, "oat milk"), _dataset(http, api, "almond milk")
    agent = _agent(http, api, [first, second])
    wallet_before = Decimal(slow.admin.account(acct.account_id)["wallet"]["used_usd"])

    run = api.data(http.post(f"/v1/tracking_agents/{agent['id']}/trigger"))
    assert run["id"].startswith("tar_") and run["agent_id"] == agent["id"]
    assert run["status"] == {"type": "pending"} and isinstance(run["created_at"], int)
    assert len(run["dataset_run_ids"]) == 2
    api.error(
        http.post(f"/v1/tracking_agents/{agent['id']}/trigger"),
        409,
        "tracking_agent_run_in_progress",
    )

    # one normal dataset run per dataset, with that dataset's last search query
    runs = []
    for dataset_id, query, run_id in zip(
        [first, second], ["oat milk", "almond milk"], run["dataset_run_ids"], strict=True
    ):
        done = api.wait_run(http, dataset_id, run_id, timeout=60)
        assert done["status"]["type"] == "completed"
        assert done["params"]["search_query"]["search_query"] == query
        assert (done["count"], done["params"]["num_comments_per_post"]) == (15, 2)
        runs.append(done)

    (message,) = _messages(http, api, agent["id"], 1)
    assert message["message_id"].startswith("tam_")
    assert (message["agent_id"], message["agent_name"]) == (agent["id"], "Oat watch")
    assert message["new_mention_count"] == sum(r["new_mentions_count"] for r in runs)
    assert isinstance(message["sentiment_score"], int | float)
    assert isinstance(message["comment_count"], int) and message["short_preview_message"]
    refs = message["references"]
    assert check_references(message["text"], refs) == []
    posts = [{"source": r["source"], "id": r["id"]} for r in refs if r["type"] == "post"]
    assert posts
    found = api.data(
        http.post("/v1/mentions", json={"dataset_ids": [first, second], "post_refs": posts})
    )
    assert {(m["source"], m["id"]) for m in found} == {(p["source"], p["id"]) for p in posts}

    # charged as normal dataset runs: the mentions collected, at the mention price
    unit = Decimal(str(api.data(http.get("/v1/prices"))["prices"]["mention"]))
    spent = Decimal(slow.admin.account(acct.account_id)["wallet"]["used_usd"]) - wallet_before
    assert spent == unit * sum(r["mentions_count"] for r in runs)
    agent_after = api.data(http.get(f"/v1/tracking_agents/{agent['id']}"))
    assert agent_after["last_run_at"] == run["created_at"]


def test_trigger_errors(
    new_account: Callable[..., Account], api: type[Api], sandbox: SandboxHandle
) -> None:
    acct = new_account()
    never_ran = _dataset(acct.http, api, None)
    agent = _agent(acct.http, api, [never_ran])
    api.error(
        acct.http.post(f"/v1/tracking_agents/{agent['id']}/trigger"), 400, "dataset_has_no_queries"
    )

    dataset_id = _dataset(acct.http, api, "oat milk")
    agent = _agent(acct.http, api, [dataset_id], count=50)
    used = sandbox.admin.account(acct.account_id)["wallet"]["used_usd"]
    sandbox.admin.set_wallet(acct.account_id, total_usd=used)
    body = api.error(
        acct.http.post(f"/v1/tracking_agents/{agent['id']}/trigger"), 402, "insufficient_credits"
    )
    assert Decimal(body["detail"]["available"]) == 0
    runs = api.data(acct.http.get(f"/v1/datasets/{dataset_id}/runs"))
    assert len(runs) == 1  # nothing started


def test_messages_are_paginated_newest_first(account: Account, api: type[Api]) -> None:
    http = account.http
    agent = _agent(http, api, [_dataset(http, api, "oat milk")], count=5)
    for n in range(1, 4):
        api.data(http.post(f"/v1/tracking_agents/{agent['id']}/trigger"))
        _messages(http, api, agent["id"], n)
    everything = _messages(http, api, agent["id"], 3)
    assert [m["created_at"] for m in everything] == sorted(
        (m["created_at"] for m in everything), reverse=True
    )

    url = f"/v1/tracking_agents/{agent['id']}/messages"
    first = http.get(url, params={"limit": 2}).json()
    assert first["has_next"] is True and first["cursor"]
    second = http.get(url, params={"limit": 2, "cursor": first["cursor"]}).json()
    assert second["has_next"] is False and second["cursor"] is None
    ids = [m["message_id"] for m in first["data"] + second["data"]]
    assert ids == [m["message_id"] for m in everything]
    default = http.get(url).json()
    assert len(default["data"]) == 3 and default["has_next"] is False

    api.error(http.get(url, params={"cursor": "not-a-cursor"}), 400, "invalid_cursor")
    for limit in (0, 101):
        assert http.get(url, params={"limit": limit}).status_code == 422


def test_scheduled_cycles_fire_at_next_run_at(
    slow: SandboxHandle, connect: Callable[..., httpx.Client], api: type[Api]
) -> None:
    acct = slow.admin.create_account()
    http = connect(slow, acct.api_key)
    dataset_id = _dataset(http, api, "oat milk")
    now = datetime.fromtimestamp(slow.store.clock.now(), tz=UTC)
    at = (now + timedelta(hours=2)).strftime("%H:%M")
    agent = _agent(http, api, [dataset_id], schedule={"frequency": "daily", "time": at}, count=5)
    idle = _agent(http, api, [dataset_id], schedule={"frequency": "daily", "time": at}, count=5)
    api.data(http.post(f"/v1/tracking_agents/{idle['id']}/pause"))

    slow.store.clock.advance(agent["next_run_at"] - slow.store.clock.now() + 1)
    (message,) = _messages(http, api, agent["id"], 1)
    assert check_references(message["text"], message["references"]) == []
    fired = api.data(http.get(f"/v1/tracking_agents/{agent['id']}"))
    assert fired["last_run_at"] >= agent["next_run_at"]
    assert fired["next_run_at"] == agent["next_run_at"] + 86_400
    assert api.data(http.get(f"/v1/tracking_agents/{idle['id']}/messages")) == []
    runs = api.data(http.get(f"/v1/datasets/{dataset_id}/runs"))
    assert len(runs) == 2  # the first collection and the one scheduled cycle
