"""Bad input is refused before any request, with an error naming the field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import samples as s
from mockapi import MockAPI, ok

import rdskit
from rdskit import models as m
from rdskit.errors import InvalidParameter

REF = {"source": "reddit", "id": "t3_a"}
SCHEDULE = {"frequency": "daily", "time": "08:00"}

# name -> (call, the field the error must name, a fragment of its message)
REFUSED: dict[str, tuple[Callable[[Any], Any], str, str]] = {
    "limit 0": (lambda c: c.datasets.list(limit=0), "limit", "between 1 and 100"),
    "limit 101": (lambda c: c.mentions.list(limit=101), "limit", "between 1 and 100"),
    "limit on runs": (lambda c: c.datasets.runs.list("ds_1", limit=500), "limit", "100"),
    "limit on messages": (lambda c: c.tracking_agents.messages("ta_1", limit=0), "limit", "1"),
    "limit on usage": (lambda c: c.usage_history(limit=1000), "limit", "100"),
    "limit on chat": (lambda c: c.chats.messages("ch_1", limit=-1), "limit", "100"),
    "limit on profiles": (lambda c: c.audience_profiles.list(limit=200), "limit", "100"),
    # a preview's window typed into a run's search_query: the service would not read it
    # there, so the run would collect (and charge) its default window instead
    "a preview's window in a run's search_query": (
        lambda c: c.datasets.runs.create(
            "ds_1",
            {
                "type": "prompt",
                "sources": ["reddit"],
                "search_query": "oat milk",
                "date_since": "2025-12-30",
                "date_until": "2025-12-30",
            },
        ),
        "search_query.date_since",
        "pass date_range={'from': 'YYYY-MM-DD', 'to': 'YYYY-MM-DD'}",
    ),
    # a lone surrogate (a paste from a broken source) is named by its character and place
    "a lone surrogate in a run's query": (
        lambda c: c.datasets.runs.create(
            "ds_1", {"type": "prompt", "sources": ["reddit"], "search_query": "oat \ud800 milk"}
        ),
        "search_query.prompt.search_query",
        "cannot be encoded as UTF-8: a lone surrogate \\ud800 at position 4",
    ),
    "a lone surrogate in a question": (
        lambda c: c.ask("What about \ud800 posts?"),
        "message",
        "a lone surrogate \\ud800 at position 11",
    ),
    "11 filters": (
        lambda c: c.mentions.list(filters=[{"type": "has_media", "value": True}] * 11),
        "filters",
        "at most 10",
    ),
    "11 filters across groups": (
        lambda c: c.audience_profiles.list(
            filters=[
                [{"type": "is_verified", "value": True}] * 6,
                [{"type": "is_verified", "value": False}] * 5,
            ]
        ),
        "filters",
        "at most 10",
    ),
    "3-word keyword": (
        lambda c: c.mentions.list(filters={"type": "keyword", "value": "a b c"}),
        "filters",
        "2 words",
    ),
    "51 ask post_refs": (
        lambda c: c.ask("Why?", post_refs=[REF] * 51),
        "context.post_refs",
        "at most 50",
    ),
    "blank ask": (lambda c: c.ask("  "), "message", "blank"),
    "0 preview post_refs": (
        lambda c: c.custom_parameters.preview("p", post_refs=[]),
        "post_refs",
        "at least 1",
    ),
    "6 preview post_refs": (
        lambda c: c.custom_parameters.preview("p", post_refs=[REF] * 6),
        "post_refs",
        "at most 5",
    ),
    "profile count 0": (
        lambda c: c.audience_datasets.runs.create(
            "ad_1", source_dataset_id="ds_1", total_profile_count=0
        ),
        "total_profile_count",
        "1",
    ),
    "profile count 2001": (
        lambda c: c.audience_datasets.runs.create(
            "ad_1", source_dataset_id="ds_1", total_profile_count=2001
        ),
        "total_profile_count",
        "2000",
    ),
    "preview without window": (
        lambda c: c.research_previews.create(search_query="oat", sources=["reddit"]),
        "time window",
        "time window is required",
    ),
    "preview with both windows": (
        lambda c: c.research_previews.create(
            search_query="oat",
            sources=["reddit"],
            time_filter="past_week",
            date_since="2026-01-01",
            date_until="2026-01-31",
        ),
        "time window",
        "not both",
    ),
    "preview with half a range": (
        lambda c: c.research_previews.create(
            search_query="oat", sources=["reddit"], date_since="2026-01-01"
        ),
        "time window",
        "date_until is missing",
    ),
    "preview url field on prompt": (
        lambda c: c.research_previews.create(
            "prompt",
            search_query="oat",
            sources=["reddit"],
            time_filter="past_week",
            source_urls=["https://x.test"],
        ),
        "source_urls",
        "type='url'",
    ),
    "preview bad type": (lambda c: c.research_previews.create("video"), "type", "'prompt'"),
    "schedule 25:00": (
        lambda c: c.tracking_agents.create(
            name="w",
            instructions="i",
            dataset_ids=["ds_1"],
            schedule={"frequency": "daily", "time": "25:00"},
        ),
        "schedule.time",
        "HH:MM",
    ),
    "schedule 9:5": (
        lambda c: c.tracking_agents.update("ta_1", schedule={"frequency": "daily", "time": "9:5"}),
        "schedule.time",
        "HH:MM",
    ),
    "weekly without day": (
        lambda c: c.tracking_agents.update(
            "ta_1", schedule={"frequency": "weekly", "time": "09:00"}
        ),
        "schedule",
        "day",
    ),
    "search query type": (
        lambda c: c.datasets.runs.create("ds_1", {"type": "video"}),
        "search_query",
        "prompt",
    ),
    "search query sources": (
        lambda c: c.datasets.runs.create(
            "ds_1", {"type": "prompt", "sources": [], "search_query": "oat"}
        ),
        "search_query.prompt.sources",
        "at least 1",
    ),
    "date range order": (
        lambda c: c.datasets.runs.create(
            "ds_1", s.PROMPT_QUERY, date_range={"from": "2026-02-01", "to": "2026-01-01"}
        ),
        "date_range",
        "after",
    ),
    "scope and dataset_id": (
        lambda c: c.custom_parameters.runs.create(
            "cp_1", {"kind": "dataset", "id": "ds_1"}, dataset_id="ds_1"
        ),
        "scope",
        "exactly one",
    ),
    "empty parameter name": (lambda c: c.custom_parameters.create(" ", "rule"), "name", "empty"),
    "dataset ids as a string": (
        lambda c: c.mentions.list(dataset_ids="ds_1"),
        "dataset_ids",
        "list",
    ),
    "51 post_refs in an ask context": (
        lambda c: c.ask("Why?", context={"post_refs": [REF] * 51}),
        "context.post_refs",
        "at most 50",
    ),
    "ask context and its parts": (
        lambda c: c.ask("Why?", context={}, dataset_ids=["ds_1"]),
        "context",
        "not both",
    ),
    "preview body without window": (
        lambda c: c.research_previews.create(
            {"type": "prompt", "search_query": "oat", "sources": ["reddit"]}
        ),
        "time window",
        "time window is required",
    ),
    "preview body and fields": (
        lambda c: c.research_previews.create(
            {"type": "url", "source_urls": ["https://x.test"]}, language="en"
        ),
        "language",
        "not both",
    ),
    "preview body bad type": (
        lambda c: c.research_previews.create({"type": "video"}),
        "type",
        "'prompt'",
    ),
}


@pytest.mark.parametrize("name", REFUSED)
def test_refused_before_any_request(name: str, api: MockAPI, client: rdskit.Client) -> None:
    call, field, fragment = REFUSED[name]
    with pytest.raises(InvalidParameter) as raised:
        call(client)
    assert raised.value.field == field
    assert fragment in str(raised.value)
    assert isinstance(raised.value, ValueError)
    assert api.calls == []


def test_models_and_plain_values_send_the_same_body(api: MockAPI, client) -> None:
    api.on("POST", "/v1/datasets/ds_1/runs", ok(s.DATASET_RUN))
    client.datasets.runs.create(
        "ds_1", s.PROMPT_QUERY, date_range={"from": "2026-01-01", "to": "2026-01-02"}
    )
    client.datasets.runs.create(
        "ds_1",
        m.PromptSearchQuery(sources=["reddit", "tiktok"], search_query="oat milk"),
        date_range=m.DateRange.model_validate({"from": "2026-01-01", "to": "2026-01-02"}),
    )
    assert api.calls[0].json == api.calls[1].json


def test_filter_models_and_dicts_are_equivalent(api: MockAPI, client) -> None:
    api.on("POST", "/v1/mentions", ok([]))
    client.mentions.list(filters=[m.SentimentFilter(values=["negative"])])
    client.mentions.list(filters={"type": "sentiment", "values": ["negative"]})
    assert (
        api.calls[0].json
        == api.calls[1].json
        == {"filters": [[{"type": "sentiment", "values": ["negative"]}]]}
    )


def test_ask_context_as_a_dict_a_model_or_two_arguments(api: MockAPI, client) -> None:
    api.on("POST", "/v1/ask", ok(s.ACCEPTED, 202))
    client.ask("Why?", dataset_ids=["ds_1"], post_refs=[REF])
    client.ask("Why?", context={"dataset_ids": ["ds_1"], "post_refs": [REF]})
    client.ask("Why?", context=m.AskContext(dataset_ids=["ds_1"], post_refs=[m.PostRef(**REF)]))
    assert (
        api.calls[0].json
        == api.calls[1].json
        == api.calls[2].json
        == {
            "message": "Why?",
            "context": {"dataset_ids": ["ds_1"], "post_refs": [REF]},
        }
    )


@pytest.mark.parametrize("variant", ["prompt", "url"])
def test_preview_body_as_a_dict_or_a_model_matches_the_keywords(
    variant: str, api: MockAPI, client
) -> None:
    api.on("POST", "/v1/research_previews", ok(s.PREVIEW))
    fields: dict[str, Any] = (
        {
            "search_query": "oat milk",
            "sources": ["reddit", "tiktok"],
            "date_since": "2026-01-01",
            "date_until": "2026-01-31",
            "language": "en",
        }
        if variant == "prompt"
        else {"source_urls": ["https://www.tiktok.com/@oatly"], "date_filter_since": "2026-01-01"}
    )
    model = m.PromptPreviewRequest if variant == "prompt" else m.UrlPreviewRequest
    client.research_previews.create(variant, **fields)
    client.research_previews.create({"type": variant, **fields})
    client.research_previews.create(model.model_validate(fields))
    assert api.calls[0].json == api.calls[1].json == api.calls[2].json
    assert api.calls[0].json == {"type": variant, **fields}
