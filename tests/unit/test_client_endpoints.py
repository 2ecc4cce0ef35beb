"""Every endpoint of the spec: what the client sends and how it reads the answer.

Each case runs on both clients: the resource code is shared, so a case proves the sync
and the async path alike.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
import samples as s
from mockapi import BASE_URL, MockAPI, Reply, make_aclient, ok, page

import rdskit
from rdskit import models as m
from rdskit.models._base import Bound


@dataclass
class Case:
    """One call: the request it must send and a check of the value it returns."""

    call: Callable[[Any], Any]
    method: str
    path: str
    reply: Reply
    check: Callable[[Any], Any]
    params: dict[str, str] = field(default_factory=dict)
    body: Any = None
    # Further (method, path, reply) the call makes after the first request.
    then: list[tuple[str, str, Reply]] = field(default_factory=list)
    # Free reads the call makes before it (a run's count read against the plan's depth).
    before: list[tuple[str, str, Reply]] = field(default_factory=list)


def first(result: Any) -> Any:
    return result.data[0]


CASES: dict[str, Case] = {
    # -- datasets -------------------------------------------------------------------------
    "datasets.create": Case(
        lambda c: c.datasets.create("Oat milk"),
        "POST",
        "/v1/datasets",
        ok(s.DATASET),
        lambda r: (
            isinstance(r, m.Dataset)
            and r.mentions_count is None
            and r.created_at == datetime(2026, 1, 1, tzinfo=UTC)
        ),
        body={"name": "Oat milk"},
    ),
    "datasets.list": Case(
        lambda c: c.datasets.list(limit=5, order="asc"),
        "GET",
        "/v1/datasets",
        page([s.DATASET_READ]),
        lambda r: first(r).mentions_count == 120,
        params={"limit": "5", "order": "asc"},
    ),
    "datasets.get": Case(
        lambda c: c.datasets.get("ds_1"),
        "GET",
        "/v1/datasets/ds_1",
        ok(s.DATASET_READ),
        lambda r: r.url == "https://app.test/datasets/ds_1",
    ),
    "datasets.update": Case(
        lambda c: c.datasets.update("ds_1", name="Renamed"),
        "PATCH",
        "/v1/datasets/ds_1",
        ok({**s.DATASET_READ, "name": "Renamed"}),
        lambda r: r.name == "Renamed",
        body={"name": "Renamed"},
    ),
    "datasets.delete": Case(
        lambda c: c.datasets.delete("ds_1"),
        "DELETE",
        "/v1/datasets/ds_1",
        ok({"id": "ds_1"}),
        lambda r: r is None,
    ),
    "datasets.runs.create": Case(
        lambda c: c.datasets.runs.create(
            "ds_1",
            search_query=s.PROMPT_QUERY,
            count=50,
            date_range={"from": "2026-01-01", "to": "2026-01-31"},
            content_analysis_actions=["sentiment", "hook"],
            num_comments_per_post=5,
            language="en",
            country_code="US",
            enable_visual_recognition=True,
            enable_transcribing=False,
        ),
        "POST",
        "/v1/datasets/ds_1/runs",
        ok(s.DATASET_RUN),
        lambda r: isinstance(r, m.DatasetRun) and r.status.type == "pending" and r.count == 50,
        before=[("GET", "/v1/me", ok(s.ME))],
        body={
            "search_query": s.PROMPT_QUERY,
            "count": 50,
            "date_range": {"from": "2026-01-01", "to": "2026-01-31"},
            "content_analysis_actions": ["sentiment", "hook"],
            "num_comments_per_post": 5,
            "language": "en",
            "country_code": "US",
            "enable_visual_recognition": True,
            "enable_transcribing": False,
        },
    ),
    "datasets.runs.create(url)": Case(
        lambda c: c.datasets.runs.create(
            "ds_1", m.UrlSearchQuery(source_urls=["https://www.tiktok.com/@oat"])
        ),
        "POST",
        "/v1/datasets/ds_1/runs",
        ok(s.DATASET_RUN),
        lambda r: r.id == "dsr_1",
        body={"search_query": {"type": "url", "source_urls": ["https://www.tiktok.com/@oat"]}},
    ),
    "datasets.runs.list": Case(
        lambda c: c.datasets.runs.list("ds_1", limit=2, cursor="c1", order="desc"),
        "GET",
        "/v1/datasets/ds_1/runs",
        page([s.DATASET_RUN]),
        lambda r: first(r).dataset_id == "ds_1",
        params={"limit": "2", "cursor": "c1", "order": "desc"},
    ),
    "datasets.runs.get": Case(
        lambda c: c.datasets.runs.get("ds_1", "dsr_1"),
        "GET",
        "/v1/datasets/ds_1/runs/dsr_1",
        ok({**s.DATASET_RUN, "status": {"type": "completed"}, "mentions_count": 48}),
        lambda r: r.mentions_count == 48,
    ),
    # -- audiences ------------------------------------------------------------------------
    "audience_datasets.create": Case(
        lambda c: c.audience_datasets.create("fans"),
        "POST",
        "/v1/audience_datasets",
        ok(s.AUDIENCE_DATASET),
        lambda r: isinstance(r, m.AudienceDataset),
        body={"name": "fans"},
    ),
    "audience_datasets.list": Case(
        lambda c: c.audience_datasets.list(limit=100),
        "GET",
        "/v1/audience_datasets",
        page([{**s.AUDIENCE_DATASET, "profile_count": 7}]),
        lambda r: first(r).profile_count == 7,
        params={"limit": "100"},
    ),
    "audience_datasets.get": Case(
        lambda c: c.audience_datasets.get("ad_1"),
        "GET",
        "/v1/audience_datasets/ad_1",
        ok(s.AUDIENCE_DATASET),
        lambda r: r.id == "ad_1",
    ),
    "audience_datasets.update": Case(
        lambda c: c.audience_datasets.update("ad_1", name="EU"),
        "PATCH",
        "/v1/audience_datasets/ad_1",
        ok({**s.AUDIENCE_DATASET, "name": "EU"}),
        lambda r: r.name == "EU",
        body={"name": "EU"},
    ),
    "audience_datasets.delete": Case(
        lambda c: c.audience_datasets.delete("ad_1"),
        "DELETE",
        "/v1/audience_datasets/ad_1",
        Reply(204),
        lambda r: r is None,
    ),
    "audience_datasets.runs.create": Case(
        lambda c: c.audience_datasets.runs.create("ad_1", source_dataset_id="ds_1"),
        "POST",
        "/v1/audience_datasets/ad_1/runs",
        ok(s.AUDIENCE_RUN),
        lambda r: isinstance(r, m.AudienceRun) and r.profile_count is None,
        body={"source_dataset_id": "ds_1", "total_profile_count": 300},
    ),
    "audience_datasets.runs.create(positional)": Case(
        lambda c: c.audience_datasets.runs.create("ad_1", "ds_1", total_profile_count=20),
        "POST",
        "/v1/audience_datasets/ad_1/runs",
        ok(s.AUDIENCE_RUN),
        lambda r: r.id == "adr_1",
        body={"source_dataset_id": "ds_1", "total_profile_count": 20},
    ),
    "audience_datasets.runs.list": Case(
        lambda c: c.audience_datasets.runs.list("ad_1", order="asc"),
        "GET",
        "/v1/audience_datasets/ad_1/runs",
        page([s.AUDIENCE_RUN]),
        lambda r: first(r).id == "adr_1",
        params={"order": "asc"},
    ),
    "audience_datasets.runs.get": Case(
        lambda c: c.audience_datasets.runs.get("ad_1", "adr_1"),
        "GET",
        "/v1/audience_datasets/ad_1/runs/adr_1",
        ok({**s.AUDIENCE_RUN, "profile_count": 200, "target_profile_count": 300}),
        lambda r: (r.profile_count, r.target_profile_count) == (200, 300),
    ),
    "audience_profiles.list": Case(
        lambda c: c.audience_profiles.list(
            audience_dataset_ids=["ad_1"],
            filters=[{"type": "is_verified", "value": True}],
            sort="created_at",
            order="desc",
            limit=10,
        ),
        "POST",
        "/v1/audience_profiles",
        page([s.PROFILE]),
        lambda r: isinstance(first(r), m.AudienceProfile) and first(r).is_verified,
        body={
            "audience_dataset_ids": ["ad_1"],
            "filters": [[{"type": "is_verified", "value": True}]],
            "sort": "created_at",
            "order": "desc",
            "limit": 10,
        },
    ),
    # -- mentions -------------------------------------------------------------------------
    "mentions.list": Case(
        lambda c: c.mentions.list(
            dataset_ids=["ds_1"],
            sources=["reddit"],
            filters=[
                [{"type": "sentiment", "values": ["negative"]}],
                [{"type": "keyword", "value": "oat milk"}],
            ],
            q="foam",
            search_mode="semantic",
            operation="select",
            sort="likes",
            order="desc",
            limit=20,
            cursor="c0",
            parameter_ids=["cp_1"],
            post_refs=[m.PostRef(source="reddit", id="t3_a")],
        ),
        "POST",
        "/v1/mentions",
        page([s.MENTION]),
        lambda r: isinstance(first(r), m.Mention) and first(r).num_likes == 4,
        body={
            "dataset_ids": ["ds_1"],
            "sources": ["reddit"],
            "filters": [
                [{"type": "sentiment", "values": ["negative"]}],
                [{"type": "keyword", "operator": "is", "value": "oat milk"}],
            ],
            "q": "foam",
            "search_mode": "semantic",
            "operation": "select",
            "sort": "likes",
            "order": "desc",
            "limit": 20,
            "cursor": "c0",
            "parameter_ids": ["cp_1"],
            "post_refs": [{"id": "t3_a", "source": "reddit"}],
        },
    ),
    # -- custom parameters ----------------------------------------------------------------
    "custom_parameters.create": Case(
        lambda c: c.custom_parameters.create("price", "The price quoted"),
        "POST",
        "/v1/custom_parameters",
        ok(s.PARAMETER),
        lambda r: isinstance(r, m.CustomParameter),
        body={"name": "price", "instructions": "The price quoted", "value_type": "string"},
    ),
    "custom_parameters.list": Case(
        lambda c: c.custom_parameters.list(),
        "GET",
        "/v1/custom_parameters",
        ok([s.PARAMETER]),
        lambda r: isinstance(r, list) and isinstance(r[0], m.CustomParameter),
    ),
    "custom_parameters.get": Case(
        lambda c: c.custom_parameters.get("cp_1"),
        "GET",
        "/v1/custom_parameters/cp_1",
        ok(s.PARAMETER),
        lambda r: r.instructions == "The price quoted",
    ),
    "custom_parameters.update": Case(
        lambda c: c.custom_parameters.update("cp_1", name="price_usd"),
        "PATCH",
        "/v1/custom_parameters/cp_1",
        ok({**s.PARAMETER, "name": "price_usd"}),
        lambda r: r.name == "price_usd",
        body={"name": "price_usd"},
    ),
    "custom_parameters.delete": Case(
        lambda c: c.custom_parameters.delete("cp_1"),
        "DELETE",
        "/v1/custom_parameters/cp_1",
        Reply(200),
        lambda r: r is None,
    ),
    "custom_parameters.preview": Case(
        lambda c: c.custom_parameters.preview(
            "The price quoted", post_refs=[{"source": "reddit", "id": "t3_a"}]
        ),
        "POST",
        "/v1/custom_parameters/preview",
        ok({"results": [{"post_id": "t3_a", "source": "reddit", "value": "$4"}]}),
        lambda r: r.results[0].value == "$4",
        body={
            "instructions": "The price quoted",
            "value_type": "string",
            "post_refs": [{"id": "t3_a", "source": "reddit"}],
        },
    ),
    "custom_parameters.runs.create": Case(
        lambda c: c.custom_parameters.runs.create("cp_1", dataset_id="ds_1"),
        "POST",
        "/v1/custom_parameters/cp_1/runs",
        ok({"run_id": "cpr_1"}),
        lambda r: isinstance(r, m.CustomParameterRun) and r.mentions_total == 3,
        body={"scope": {"kind": "dataset", "id": "ds_1"}},
        then=[("GET", "/v1/custom_parameters/cp_1/runs/cpr_1", ok(s.PARAMETER_RUN))],
    ),
    "custom_parameters.runs.create(scope)": Case(
        lambda c: c.custom_parameters.runs.create("cp_1", {"kind": "dataset", "id": "ds_1"}),
        "POST",
        "/v1/custom_parameters/cp_1/runs",
        ok({"run_id": "cpr_1"}),
        lambda r: r.id == "cpr_1",
        body={"scope": {"kind": "dataset", "id": "ds_1"}},
        then=[("GET", "/v1/custom_parameters/cp_1/runs/cpr_1", ok(s.PARAMETER_RUN))],
    ),
    "custom_parameters.runs.list": Case(
        lambda c: c.custom_parameters.runs.list("cp_1"),
        "GET",
        "/v1/custom_parameters/cp_1/runs",
        ok([s.PARAMETER_RUN]),
        lambda r: first(r).scope.id == "ds_1" and not r.has_next,
    ),
    "custom_parameters.runs.get": Case(
        lambda c: c.custom_parameters.runs.get("cp_1", "cpr_1"),
        "GET",
        "/v1/custom_parameters/cp_1/runs/cpr_1",
        ok(s.PARAMETER_RUN),
        lambda r: r.mentions_remaining == 2 and not r.is_complete,
    ),
    # -- tracking agents ------------------------------------------------------------------
    "tracking_agents.create": Case(
        lambda c: c.tracking_agents.create(
            name="watch",
            instructions="Complaints",
            dataset_ids=["ds_1"],
            count=10,
            num_comments_per_post=0,
            integration_ids=["int_1"],
            schedule={"frequency": "weekly", "time": "09:30", "day": "monday"},
        ),
        "POST",
        "/v1/tracking_agents",
        ok(s.AGENT),
        lambda r: isinstance(r, m.TrackingAgent) and r.schedule.time == "08:00",
        body={
            "name": "watch",
            "instructions": "Complaints",
            "dataset_ids": ["ds_1"],
            "count": 10,
            "num_comments_per_post": 0,
            "integration_ids": ["int_1"],
            "schedule": {"frequency": "weekly", "time": "09:30", "day": "monday"},
        },
    ),
    "tracking_agents.list": Case(
        lambda c: c.tracking_agents.list(),
        "GET",
        "/v1/tracking_agents",
        ok([s.AGENT]),
        lambda r: isinstance(r, list) and r[0].dataset_ids == ["ds_1"],
    ),
    "tracking_agents.get": Case(
        lambda c: c.tracking_agents.get("ta_1"),
        "GET",
        "/v1/tracking_agents/ta_1",
        ok(s.AGENT),
        lambda r: r.paused is False,
    ),
    "tracking_agents.update": Case(
        lambda c: c.tracking_agents.update(
            "ta_1", name="w2", schedule=m.Schedule(frequency="daily", time="18:00")
        ),
        "PATCH",
        "/v1/tracking_agents/ta_1",
        ok(s.AGENT),
        lambda r: r.id == "ta_1",
        body={"name": "w2", "schedule": {"frequency": "daily", "time": "18:00"}},
    ),
    "tracking_agents.delete": Case(
        lambda c: c.tracking_agents.delete("ta_1"),
        "DELETE",
        "/v1/tracking_agents/ta_1",
        Reply(204),
        lambda r: r is None,
    ),
    "tracking_agents.pause": Case(
        lambda c: c.tracking_agents.pause("ta_1"),
        "POST",
        "/v1/tracking_agents/ta_1/pause",
        ok({"paused": True}),
        lambda r: r is None,
    ),
    "tracking_agents.resume": Case(
        lambda c: c.tracking_agents.resume("ta_1"),
        "POST",
        "/v1/tracking_agents/ta_1/resume",
        ok({"paused": False}),
        lambda r: r is None,
    ),
    "tracking_agents.trigger": Case(
        lambda c: c.tracking_agents.trigger("ta_1"),
        "POST",
        "/v1/tracking_agents/ta_1/trigger",
        ok(s.TRACKING_RUN),
        lambda r: isinstance(r, m.TrackingRun) and r.dataset_run_ids == ["dsr_1"],
    ),
    "tracking_agents.messages": Case(
        lambda c: c.tracking_agents.messages("ta_1", limit=5, cursor="c2"),
        "GET",
        "/v1/tracking_agents/ta_1/messages",
        page([s.ALERT]),
        lambda r: isinstance(first(r), m.TrackingMessage) and first(r).references[0].citation == 1,
        params={"limit": "5", "cursor": "c2"},
    ),
    # -- ask and chats --------------------------------------------------------------------
    "ask": Case(
        lambda c: c.ask(
            "How does sentiment split?",
            dataset_ids=["ds_1"],
            post_refs=[{"source": "reddit", "id": "t3_a"}],
            chat_id="ch_1",
        ),
        "POST",
        "/v1/ask",
        ok(s.ACCEPTED, 202),
        lambda r: isinstance(r, m.AskAccepted) and r.status == "working",
        body={
            "message": "How does sentiment split?",
            "chat_id": "ch_1",
            "context": {"dataset_ids": ["ds_1"], "post_refs": [{"id": "t3_a", "source": "reddit"}]},
        },
    ),
    "ask(plain)": Case(
        lambda c: c.ask("Hello"),
        "POST",
        "/v1/ask",
        ok(s.ACCEPTED, 202),
        lambda r: r.message_id == "msg_2",
        body={"message": "Hello"},
    ),
    "chats.get": Case(
        lambda c: c.chats.get("ch_1"),
        "GET",
        "/v1/chats/ch_1",
        ok(s.CHAT),
        lambda r: isinstance(r, m.Chat) and r.name is None,
    ),
    "chats.messages": Case(
        lambda c: c.chats.messages("ch_1", limit=25, order="asc"),
        "GET",
        "/v1/chats/ch_1/messages",
        page([s.REPLY]),
        lambda r: first(r).role == "assistant",
        params={"limit": "25", "order": "asc"},
    ),
    "chats.message": Case(
        lambda c: c.chats.message("ch_1", "msg_2"),
        "GET",
        "/v1/chats/ch_1/messages/msg_2",
        ok(s.REPLY),
        lambda r: isinstance(r, m.ChatMessage) and r.status == "completed",
    ),
    # -- patterns -------------------------------------------------------------------------
    "pattern_detections.create": Case(
        lambda c: c.pattern_detections.create("ds_1", name="why", research_question="Why?"),
        "POST",
        "/v1/pattern_detections",
        ok(s.DETECTION),
        lambda r: isinstance(r, m.PatternDetectionRun) and r.pattern_id is None,
        body={"dataset_id": "ds_1", "name": "why", "research_question": "Why?"},
    ),
    "pattern_detections.get": Case(
        lambda c: c.pattern_detections.get("pdr_1"),
        "GET",
        "/v1/pattern_detections/pdr_1",
        ok({**s.DETECTION, "status": {"type": "completed", "steps": []}, "pattern_id": "pt_1"}),
        lambda r: r.pattern_id == "pt_1",
    ),
    "patterns.get": Case(
        lambda c: c.patterns.get("pt_1"),
        "GET",
        "/v1/patterns/pt_1",
        ok(s.PATTERN),
        lambda r: isinstance(r, m.Pattern) and r.items[0].post_count == 3,
    ),
    "patterns.item": Case(
        lambda c: c.patterns.item("pt_1", "pti_1"),
        "GET",
        "/v1/patterns/pt_1/items/pti_1",
        ok(s.PATTERN_ITEM),
        lambda r: r.posts[0].id == "t3_a",
    ),
    # -- research previews ----------------------------------------------------------------
    "research_previews.create(prompt)": Case(
        lambda c: c.research_previews.create(
            "prompt",
            search_query="oat milk",
            sources=["reddit"],
            date_since="2026-01-01",
            date_until="2026-01-31",
            language="en",
        ),
        "POST",
        "/v1/research_previews",
        ok(s.PREVIEW),
        lambda r: isinstance(r, m.ResearchPreview) and r.posts[0].position == 1,
        body={
            "type": "prompt",
            "search_query": "oat milk",
            "sources": ["reddit"],
            "date_since": "2026-01-01",
            "date_until": "2026-01-31",
            "language": "en",
        },
    ),
    "research_previews.create(url)": Case(
        lambda c: c.research_previews.create(
            source_urls=["https://www.tiktok.com/@oat"], date_filter_since="2026-01-01"
        ),
        "POST",
        "/v1/research_previews",
        ok({**s.PREVIEW, "type": "url", "profiles": [], "private_profiles": ["@x"]}),
        lambda r: r.private_profiles == ["@x"],
        body={
            "type": "url",
            "source_urls": ["https://www.tiktok.com/@oat"],
            "date_filter_since": "2026-01-01",
        },
    ),
    "research_previews.get": Case(
        lambda c: c.research_previews.get("rp_1"),
        "GET",
        "/v1/research_previews/rp_1",
        ok(s.PREVIEW),
        lambda r: r.estimated_number_of_results == 1200,
    ),
    # -- account --------------------------------------------------------------------------
    "me": Case(
        lambda c: c.me(),
        "GET",
        "/v1/me",
        ok(s.ME),
        lambda r: isinstance(r, m.Account) and r.usage.credits_used == Decimal("12.5"),
    ),
    "usage_history": Case(
        lambda c: c.usage_history(limit=5, cursor="u1"),
        "GET",
        "/v1/me/usage_history",
        page([s.USAGE_ROW]),
        lambda r: first(r).quantity == Decimal("0.98") and first(r).quantity_credits == Decimal(50),
        params={"limit": "5", "cursor": "u1"},
    ),
    "prices": Case(
        lambda c: c.prices(),
        "GET",
        "/v1/prices",
        ok(s.PRICES),
        lambda r: (
            r.prices_credits["audience_profile"] == Decimal(3)
            and r.billing.credit_rate_usd == Decimal("0.0196")
        ),
    ),
}


def _script(api: MockAPI, case: Case) -> None:
    api.on(case.method, case.path, case.reply)
    for method, path, reply in [*case.before, *case.then]:
        api.on(method, path, reply)


def _assert_sent(api: MockAPI, case: Case, client: Any) -> None:
    assert [(c.method, c.path) for c in api.calls] == [
        *[(method, path) for method, path, _ in case.before],
        (case.method, case.path),
        *[(method, path) for method, path, _ in case.then],
    ]
    sent = api.calls[len(case.before)]
    assert sent.params == case.params
    assert sent.json == case.body
    assert sent.headers["x-api-key"] == client._core.api_key.reveal()


def _bound_to(result: Any, client: Any) -> bool:
    """Run-like results and answers know their client; other models carry no private state."""
    values = result if isinstance(result, list) else getattr(result, "data", [result])
    models = [v for v in values if isinstance(v, m.RdsModel)]
    return all(
        v._client is client if isinstance(v, Bound) else v.__pydantic_private__ is None
        for v in models
    )


@pytest.mark.parametrize("name", CASES)
def test_sync(name: str, api: MockAPI, client: rdskit.Client) -> None:
    case = CASES[name]
    _script(api, case)
    result = case.call(client)
    assert case.check(result)
    assert _bound_to(result, client)
    _assert_sent(api, case, client)


@pytest.mark.parametrize("name", CASES)
def test_async(name: str, api: MockAPI) -> None:
    case = CASES[name]
    _script(api, case)

    async def main() -> None:
        async with make_aclient(api) as client:
            pending = case.call(client)
            assert inspect.isawaitable(pending)  # nothing ran before the await
            assert api.calls == []
            result = await pending
            assert case.check(result)
            assert _bound_to(result, client)
            _assert_sent(api, case, client)

    asyncio.run(main())


def test_every_spec_path_is_covered() -> None:
    """Every method+path of the spec's endpoint tables has a case above."""
    spec = {
        ("POST", "/v1/datasets"),
        ("GET", "/v1/datasets"),
        ("GET", "/v1/datasets/{}"),
        ("PATCH", "/v1/datasets/{}"),
        ("DELETE", "/v1/datasets/{}"),
        ("POST", "/v1/datasets/{}/runs"),
        ("GET", "/v1/datasets/{}/runs"),
        ("GET", "/v1/datasets/{}/runs/{}"),
        ("POST", "/v1/audience_datasets"),
        ("GET", "/v1/audience_datasets"),
        ("GET", "/v1/audience_datasets/{}"),
        ("PATCH", "/v1/audience_datasets/{}"),
        ("DELETE", "/v1/audience_datasets/{}"),
        ("POST", "/v1/audience_datasets/{}/runs"),
        ("GET", "/v1/audience_datasets/{}/runs"),
        ("GET", "/v1/audience_datasets/{}/runs/{}"),
        ("POST", "/v1/audience_profiles"),
        ("POST", "/v1/mentions"),
        ("POST", "/v1/custom_parameters"),
        ("GET", "/v1/custom_parameters"),
        ("POST", "/v1/custom_parameters/preview"),
        ("GET", "/v1/custom_parameters/{}"),
        ("PATCH", "/v1/custom_parameters/{}"),
        ("DELETE", "/v1/custom_parameters/{}"),
        ("POST", "/v1/custom_parameters/{}/runs"),
        ("GET", "/v1/custom_parameters/{}/runs"),
        ("GET", "/v1/custom_parameters/{}/runs/{}"),
        ("POST", "/v1/tracking_agents"),
        ("GET", "/v1/tracking_agents"),
        ("GET", "/v1/tracking_agents/{}"),
        ("PATCH", "/v1/tracking_agents/{}"),
        ("DELETE", "/v1/tracking_agents/{}"),
        ("POST", "/v1/tracking_agents/{}/pause"),
        ("POST", "/v1/tracking_agents/{}/resume"),
        ("POST", "/v1/tracking_agents/{}/trigger"),
        ("GET", "/v1/tracking_agents/{}/messages"),
        ("POST", "/v1/ask"),
        ("GET", "/v1/chats/{}"),
        ("GET", "/v1/chats/{}/messages"),
        ("GET", "/v1/chats/{}/messages/{}"),
        ("POST", "/v1/pattern_detections"),
        ("GET", "/v1/pattern_detections/{}"),
        ("GET", "/v1/patterns/{}"),
        ("GET", "/v1/patterns/{}/items/{}"),
        ("POST", "/v1/research_previews"),
        ("GET", "/v1/research_previews/{}"),
        ("GET", "/v1/me"),
        ("GET", "/v1/me/usage_history"),
        ("GET", "/v1/prices"),
    }
    ids = (
        "ds_1",
        "dsr_1",
        "ad_1",
        "adr_1",
        "cp_1",
        "cpr_1",
        "ta_1",
        "ch_1",
        "msg_2",
        "pdr_1",
        "pt_1",
        "pti_1",
        "rp_1",
    )

    def template(path: str) -> str:
        return "/".join("{}" if part in ids else part for part in path.split("/"))

    covered = {(case.method, template(case.path)) for case in CASES.values()}
    assert spec <= covered, spec - covered


def test_ids_are_quoted_into_the_path(api: MockAPI, client: rdskit.Client) -> None:
    api.on("GET", "/v1/datasets/a/b?c", ok(s.DATASET))
    client.datasets.get("a/b?c")
    assert api.calls[0].url == f"{BASE_URL}/v1/datasets/a%2Fb%3Fc"
