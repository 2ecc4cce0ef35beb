"""Lazy auto-pagination: SyncPage (Client) and AsyncPager (AsyncClient)."""

from __future__ import annotations

import asyncio

import pytest
import samples as s
from mockapi import MockAPI, error, make_aclient, page

import rdskit
from rdskit.errors import InvalidCursor
from rdskit.models import Dataset, Mention


def datasets(*ids: str) -> list[dict]:
    return [{**s.DATASET, "id": i} for i in ids]


def mentions(*ids: str) -> list[dict]:
    return [{**s.MENTION, "id": i} for i in ids]


@pytest.fixture
def three_pages(api: MockAPI) -> MockAPI:
    by_cursor = {
        None: page(datasets("a", "b"), "c1"),
        "c1": page(datasets("c", "d"), "c2"),
        "c2": page(datasets("e")),
    }
    api.on("GET", "/v1/datasets", lambda call: by_cursor[call.params.get("cursor")])
    return api


def test_first_page_then_every_item_lazily(three_pages: MockAPI, client: rdskit.Client) -> None:
    first = client.datasets.list(limit=2, order="asc")
    assert [d.id for d in first.data] == ["a", "b"]
    assert (first.has_next, first.cursor) == (True, "c1")
    assert len(three_pages.calls) == 1  # nothing fetched ahead

    items = iter(first)
    assert [next(items).id for _ in range(3)] == ["a", "b", "c"]
    assert len(three_pages.calls) == 2  # the third page only when reached
    assert [d.id for d in items] == ["d", "e"]
    assert all(isinstance(d, Dataset) and d.__pydantic_private__ is None for d in first.data)

    # Every next page repeats the same limit and order, with the new cursor.
    assert [c.params for c in three_pages.calls] == [
        {"limit": "2", "order": "asc"},
        {"limit": "2", "order": "asc", "cursor": "c1"},
        {"limit": "2", "order": "asc", "cursor": "c2"},
    ]


def test_pages(three_pages: MockAPI, client: rdskit.Client) -> None:
    pages = list(client.datasets.list(limit=2).pages())
    assert [[d.id for d in p.data] for p in pages] == [["a", "b"], ["c", "d"], ["e"]]
    assert pages[-1].next_page() is None


def test_each_walk_from_one_page_is_its_own(three_pages: MockAPI, client: rdskit.Client) -> None:
    # The repeated-cursor guard belongs to one walk: iterating a page again, or asking for
    # its next page twice, follows the same cursors anew instead of looking like a loop.
    first = client.datasets.list(limit=2)
    ids = ["a", "b", "c", "d", "e"]
    assert [d.id for d in first] == ids
    assert [d.id for d in first] == ids
    assert len(list(first.pages())) == 3
    assert first.next_page().data == first.next_page().data

    async def twice() -> list[list[str]]:
        async with make_aclient(three_pages) as aclient:
            page = await aclient.datasets.list(limit=2)
            again = [await page.next_page() for _ in range(2)]
            return [[d.id for d in p.data] for p in again if p is not None]

    assert asyncio.run(twice()) == [["c", "d"], ["c", "d"]]


def test_post_lists_send_the_cursor_in_the_body_with_the_same_query(
    api: MockAPI, client: rdskit.Client
) -> None:
    by_cursor = {
        None: page(mentions("1"), "m1"),
        "m1": page(mentions("2"), "m2"),
        "m2": page(mentions("3")),
    }
    api.on("POST", "/v1/mentions", lambda call: by_cursor[call.json.get("cursor")])
    query = {
        "dataset_ids": ["ds_1"],
        "sort": "likes",
        "order": "desc",
        "limit": 1,
        "filters": [[{"type": "has_media", "value": True}]],
    }
    found = [m.id for m in client.mentions.list(**query)]
    assert found == ["1", "2", "3"]
    sent = api.sent("POST", "/v1/mentions")  # (the dataset's runs are read first: not here)
    assert [c.json for c in sent] == [
        query,
        {**query, "cursor": "m1"},
        {**query, "cursor": "m2"},
    ]
    assert all(c.params == {} for c in sent)


def test_invalid_cursor_raises(api: MockAPI, client: rdskit.Client) -> None:
    api.on("POST", "/v1/audience_profiles", error(400, "invalid_cursor", "from another sort"))
    with pytest.raises(InvalidCursor):
        client.audience_profiles.list(sort="created_at", cursor="stale")


def test_has_next_without_cursor_ends(api: MockAPI, client: rdskit.Client) -> None:
    reply = page(datasets("a"))
    reply.body["has_next"] = True  # but no cursor to follow
    api.on("GET", "/v1/datasets", reply)
    assert [d.id for d in client.datasets.list()] == ["a"]
    assert len(api.calls) == 1


def test_async_pager_awaits_first_page_and_iterates_all(three_pages: MockAPI) -> None:
    async def main() -> None:
        async with make_aclient(three_pages) as client:
            pager = client.datasets.list(limit=2)
            first = await pager
            assert [d.id for d in first.data] == ["a", "b"] and first.has_next
            second = await first.next_page()
            assert [d.id for d in second.data] == ["c", "d"]
            assert [d.id async for d in client.datasets.list(limit=2)] == list("abcde")
            assert [len(p.data) async for p in client.datasets.list(limit=2).pages()] == [2, 2, 1]

    asyncio.run(main())
    assert [c.params.get("cursor") for c in three_pages.calls[:2]] == [None, "c1"]


def test_async_post_pagination(api: MockAPI) -> None:
    by_cursor = {None: page(mentions("1"), "m1"), "m1": page(mentions("2"))}
    api.on("POST", "/v1/mentions", lambda call: by_cursor[call.json.get("cursor")])

    async def main() -> list[Mention]:
        async with make_aclient(api) as client:
            return [m async for m in client.mentions.list(q="oat", limit=1)]

    assert [m.id for m in asyncio.run(main())] == ["1", "2"]
    assert api.calls[1].json == {"q": "oat", "limit": 1, "cursor": "m1"}
