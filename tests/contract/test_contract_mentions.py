"""``POST /v1/mentions`` through the client: fields, filters, sorts, paging, lookups."""

from __future__ import annotations

from typing import Any

import pytest
from contract_support import Collected

from rdskit import Client, SyncPage, ValidationError
from rdskit import filters as f
from rdskit.errors import DatasetNotFound, InvalidCursor
from rdskit.models import Mention, PostRef

# sort name -> the value it orders by
SORT_KEYS = {
    "date": lambda m: m.created_at,
    "likes": lambda m: m.num_likes,
    "views": lambda m: m.num_views,
    "comments": lambda m: m.num_comments,
    "shares": lambda m: m.num_shares,
    "engagement_rate": lambda m: m.engagement_rate_value,
    "sentiment_score": lambda m: m.sentiment_score_value,
    "dataset_run_at": lambda m: m.dataset_run_at,
}


def _ids(mentions: list[Mention]) -> set[tuple[str, str]]:
    return {(m.source, m.id) for m in mentions}


@pytest.fixture(scope="module")
def pool(client: Client, collected: Collected) -> list[Mention]:
    """Every mention of the shared dataset, read in one page."""
    page = client.mentions.list(dataset_ids=[collected.dataset.id], limit=100)
    assert not page.has_next
    return page.data


def test_mentions_are_typed_with_their_analysis(pool: list[Mention], collected: Collected) -> None:
    assert len(pool) == collected.run.mentions_count
    mention = next(m for m in pool if m.comments)
    assert isinstance(mention, Mention) and mention.source and mention.id
    assert mention.created_at is not None and mention.created_at.tzinfo is not None
    wire = mention.to_wire()
    assert isinstance(wire["created_at"], int) and isinstance(wire["dataset_run_at"], int)
    assert isinstance(wire["comments"][0]["created_at"], str)  # comments: ISO 8601
    assert mention.comments is not None and mention.comments[0].created_at is not None
    # Other tests collect the same posts into their datasets (comments are kept per run).
    assert collected.dataset.id in [d.id for d in mention.datasets or []]
    assert mention.sentiment is not None and mention.sentiment_score is not None
    assert set(mention.sentiment.as_floats()) == {"negative", "neutral", "positive"}
    assert mention.emotions is not None and mention.hooks is not None
    assert isinstance(mention.vibe, dict) and mention.author is not None
    assert all(isinstance(v, str) for v in mention.sentiment.to_wire().values())


@pytest.mark.parametrize("order", ["desc", "asc"])
@pytest.mark.parametrize("sort", list(SORT_KEYS))
def test_every_sort_pages_in_both_orders(
    client: Client, collected: Collected, pool: list[Mention], sort: str, order: str
) -> None:
    page = client.mentions.list(
        dataset_ids=[collected.dataset.id], sort=sort, order=order, limit=15
    )
    assert isinstance(page, SyncPage) and len(page.data) == 15 and page.has_next
    walked = list(page)
    assert len(walked) == len(pool) and _ids(walked) == _ids(pool)  # each once, over 3 pages
    keys = [SORT_KEYS[sort](m) for m in walked]
    assert keys == sorted(keys, reverse=order == "desc")


def test_a_cursor_from_another_sort_is_rejected(client: Client, collected: Collected) -> None:
    page = client.mentions.list(dataset_ids=[collected.dataset.id], sort="likes", limit=5)
    assert page.cursor
    with pytest.raises(InvalidCursor) as raised:
        client.mentions.list(
            dataset_ids=[collected.dataset.id], sort="views", limit=5, cursor=page.cursor
        )
    assert (raised.value.error_code, raised.value.transient) == ("invalid_cursor", False)
    with pytest.raises(InvalidCursor):
        client.mentions.list(dataset_ids=[collected.dataset.id], cursor="garbage")


def _query(client: Client, collected: Collected, filters: Any) -> list[Mention]:
    return list(
        client.mentions.list(dataset_ids=[collected.dataset.id], filters=filters, limit=100)
    )


def _dominant(scores: Any) -> str:
    values = scores.as_floats()
    top = max(values.values())
    return "neutral" if values.get("neutral") == top else max(values, key=lambda k: values[k])


def _brands(mention: Mention) -> set[str]:
    return {brand.lower() for brand in mention.mentioned_brands or []}


# filter -> which pool mentions it must return (None: checked elsewhere)
FILTERS: dict[str, tuple[Any, Any]] = {
    "source": (f.source("reddit"), lambda m: m.source == "reddit"),
    "sentiment": (f.sentiment("positive"), lambda m: _dominant(m.sentiment) == "positive"),
    "dominant_emotion": (f.dominant_emotion("joy"), lambda m: _dominant(m.emotions) == "joy"),
    "has_media": (f.has_media(False), lambda m: not m.media),
    "keyword": (f.keyword("oat milk"), None),
    "keyword is_not": (f.keyword("price", exclude=True), None),
    # country_code is not a Mention field in the spec, but the service sends it (the
    # filter exists): the model declares it.
    "country_code": (
        f.country_code("us"),
        lambda m: m.country_code == "US",
    ),
    "metric_change": (
        f.metric_change("likes", "greater_than", value=100),
        lambda m: (m.num_likes or 0) > 100,
    ),
    "metric_change in_range": (
        f.metric_change("views", "in_range", min=100, max=5000),
        lambda m: 100 <= (m.num_views or 0) <= 5000,
    ),
    "content_topic": (
        f.content_topic("price"),
        lambda m: any((t.text or "").lower() == "price" for t in m.content_topics or []),
    ),
    "content_intention": (
        f.content_intention("tutorial"),
        lambda m: (m.content_intention or "").lower() == "tutorial",
    ),
    "tone_of_voice": (
        f.tone_of_voice("casual"),
        lambda m: m.tone_of_voice is not None and (m.tone_of_voice.text or "").lower() == "casual",
    ),
    "hook": (f.hook("question"), lambda m: any(h.type == "question" for h in m.hooks or [])),
    "cta": (
        f.cta("comment"),
        lambda m: m.cta is not None and (m.cta.text or "").lower() == "comment",
    ),
    "mentioned_brands": (
        f.mentioned_brands("Elmhurst", "Silk"),
        lambda m: {"elmhurst", "silk"} & _brands(m),
    ),
    "mentioned_brands equals": (
        f.mentioned_brands("Planet Oat", match="equals"),
        lambda m: "planet oat" in _brands(m),
    ),
    "mentioned_brands contains": (
        f.mentioned_brands("farms", match="contains"),
        lambda m: any("farms" in b for b in _brands(m)),
    ),
}


@pytest.mark.parametrize("name", FILTERS)
def test_every_filter_type_runs_on_the_service(
    client: Client, collected: Collected, pool: list[Mention], name: str
) -> None:
    filt, expected = FILTERS[name]
    got = _query(client, collected, filt)
    assert got and _ids(got) <= _ids(pool)
    if expected is not None:
        assert _ids(got) == _ids([m for m in pool if expected(m)])


def test_keyword_filters_split_the_pool(
    client: Client, collected: Collected, pool: list[Mention]
) -> None:
    has = _ids(_query(client, collected, f.keyword("price")))
    lacks = _ids(_query(client, collected, f.keyword("price", exclude=True)))
    assert has and lacks and not has & lacks and has | lacks == _ids(pool)


def test_groups_are_or_ed_and_filters_inside_and_ed(
    client: Client, collected: Collected, pool: list[Mention]
) -> None:
    reddit, tiktok = f.source("reddit"), f.source("tiktok")
    either = _ids(_query(client, collected, [[reddit], [tiktok]]))
    assert either == _ids([m for m in pool if m.source in ("reddit", "tiktok")])
    both = _query(client, collected, [[reddit, f.has_media(True)]])
    assert _ids(both) == _ids([m for m in pool if m.source == "reddit" and m.media])


def test_q_and_sources(client: Client, collected: Collected, pool: list[Mention]) -> None:
    tiktok = list(
        client.mentions.list(dataset_ids=[collected.dataset.id], sources=["tiktok"], limit=100)
    )
    assert tiktok and {m.source for m in tiktok} == {"tiktok"}
    found = list(
        client.mentions.list(
            dataset_ids=[collected.dataset.id],
            q="oat",
            search_mode="semantic",
            operation="select",
            limit=100,
        )
    )
    assert found and _ids(found) <= _ids(pool)


def test_post_refs_look_posts_up_in_the_given_order(client: Client, pool: list[Mention]) -> None:
    wanted = [pool[3], pool[0], pool[7]]
    page = client.mentions.list(post_refs=[m.ref for m in wanted])
    assert [(m.source, m.id) for m in page.data] == [(m.source, m.id) for m in wanted]
    as_dicts = client.mentions.list(post_refs=[{"source": m.source, "id": m.id} for m in wanted])
    assert [m.id for m in as_dicts.data] == [m.id for m in wanted]
    assert client.mentions.list(post_refs=[PostRef(source="reddit", id="nope")]).data == []


def test_without_dataset_ids_every_dataset_is_searched(
    client: Client, collected: Collected, pool: list[Mention]
) -> None:
    every = list(client.mentions.list(limit=100))
    assert _ids(pool) <= _ids(every)


def test_missing_dataset_is_404(client: Client) -> None:
    with pytest.raises(DatasetNotFound):
        client.mentions.list(dataset_ids=["ds_missing"])


def test_unsupported_sort_is_a_server_side_422(client: Client, collected: Collected) -> None:
    with pytest.raises(ValidationError) as raised:
        client.mentions.list(dataset_ids=[collected.dataset.id], sort="loudness")
    assert raised.value.status == 422 and raised.value.errors
    assert raised.value.errors[0]["loc"][-1] == "sort"
