"""The client-side Answer, through the real Client/AsyncClient over a mock transport:
cited posts in citation order (batched by 50, cached), markdown links, reference
resolution through each GET endpoint, follow-ups."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pandas as pd
import pytest

from rdskit import AsyncClient, Client
from rdskit.answers import Answer, chat_message
from rdskit.models import ChatMessage, CustomParameterRun, Dataset, EntityReference, Mention
from rdskit.references import rewrite_post_links

KEY = "bz_test_0123456789abcdef0123456789abcdef"
BASE = "http://rds.test"


def _post(number: int) -> dict[str, Any]:
    source = "reddit" if number % 2 else "tiktok"
    return {"source": source, "id": f"p{number}", "url": f"https://{source}.test/p{number}",
            "text": f"post {number}", "created_at": 1767225600 + number}  # fmt: skip


ENTITIES = {
    "/v1/datasets/ds_1": {"id": "ds_1", "name": "Oat milk", "created_at": "2026-01-01T00:00:00Z"},
    "/v1/audience_datasets/ad_1": {
        "id": "ad_1",
        "name": "Fans",
        "created_at": "2026-01-01T00:00:00Z",
    },
    "/v1/patterns/pt_1": {"id": "pt_1", "summary": "Foam", "items": []},
    "/v1/pattern_detections/pdr_1": {
        "run_id": "pdr_1",
        "collection_id": "ds_1",
        "name": "n",
        "research_question": "q",
        "created_at": 0,
        "status": {"type": "completed"},
    },
    "/v1/research_previews/rp_1": {"preview_id": "rp_1", "type": "prompt", "posts": []},
    "/v1/custom_parameters": [
        {"id": "cp_1", "name": "a", "instructions": "i"},
        {"id": "cp_2", "name": "b", "instructions": "i"},
    ],
    "/v1/custom_parameters/cp_2/runs/cpr_1": {
        "id": "cpr_1",
        "custom_parameter_id": "cp_2",
        "status": {"type": "processing"},
    },
}


class Service:
    """A tiny stand-in service: one chat whose reply cites ``cited`` posts."""

    def __init__(self, cited: list[int], known: set[int]) -> None:
        text, refs = rewrite_post_links(
            " ".join(f"see [a](post:{_post(n)['source']}:{_post(n)['id']})" for n in cited)
        )
        entities = [{"type": kind, "id": f"{prefix}_1"} for kind, prefix in (
            ("dataset", "ds"), ("audience_dataset", "ad"), ("pattern", "pt"),
            ("pattern_detection_run", "pdr"), ("research_preview", "rp"),
            ("custom_parameter_run", "cpr"),
        )]  # fmt: skip
        self.reply = {"id": "msg_2", "role": "assistant", "text": text, "created_at": 0,
                      "status": "completed", "references": [*refs, *entities]}  # fmt: skip
        self.posts = {(p["source"], p["id"]): p for p in map(_post, known)}
        self.lookups: list[int] = []
        self.asked: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        route = request.url.path
        if route == "/v1/mentions":
            refs = json.loads(request.content)["post_refs"]
            self.lookups.append(len(refs))
            found = [
                self.posts[(r["source"], r["id"])]
                for r in refs
                if (r["source"], r["id"]) in self.posts
            ]
            return httpx.Response(
                200, json={"status": "success", "data": found, "has_next": False, "cursor": None}
            )
        if route == "/v1/ask":
            self.asked.append(json.loads(request.content))
            accepted = {"chat_id": "ch_1", "message_id": "msg_2", "status": "working"}
            return httpx.Response(202, json={"status": "success", "data": accepted})
        if route == "/v1/chats/ch_1/messages/msg_2":
            return httpx.Response(200, json={"status": "success", "data": self.reply})
        if route in ENTITIES:
            return httpx.Response(200, json={"status": "success", "data": ENTITIES[route]})
        error = {
            "status": "info",
            "error_code": "custom_parameter_not_found",
            "detail": "no",
            "transient": False,
        }
        return httpx.Response(404, json=error)


def _client(service: Service) -> Client:
    return Client(KEY, base_url=BASE, transport=httpx.MockTransport(service), rate_limit=None)


@pytest.fixture
def service() -> Service:
    return Service(cited=[7, 3, 7, *range(10, 130)], known=set(range(1, 130)))


@pytest.fixture
def answer(service: Service) -> Iterator[Answer]:
    with _client(service) as client:
        turn = client.ask("How does sentiment split?", dataset_ids=["ds_1"])
        got = turn.wait(poll_interval=0.01)
        assert isinstance(got, Answer)
        yield got


def test_wait_returns_a_bound_answer(answer: Answer, service: Service) -> None:
    assert (answer.chat_id, answer.message_id) == ("ch_1", "msg_2")
    assert answer.problems() == []
    assert service.asked == [
        {"message": "How does sentiment split?", "context": {"dataset_ids": ["ds_1"]}}
    ]


def test_posts_come_in_citation_order_batched_by_50_and_cached(
    answer: Answer, service: Service
) -> None:
    frame = answer.posts()
    assert isinstance(frame, pd.DataFrame) and frame.columns[0] == "citation"
    assert list(frame["citation"]) == list(range(1, 123))  # 122 distinct posts; p7 cited twice
    assert list(frame["id"][:3]) == ["p7", "p3", "p10"]
    assert service.lookups == [50, 50, 22]
    frame.loc[0, "citation"] = 99  # callers get a copy ...
    assert answer.posts()["citation"][0] == 1
    assert service.lookups == [50, 50, 22]  # ... of the cached frame


def test_unreadable_posts_are_left_out() -> None:
    service = Service(cited=[1, 2, 3], known={1, 3})
    with _client(service) as client:
        frame = client.chats.message("ch_1", "msg_2").posts()
    assert list(frame["citation"]) == [1, 3] and list(frame["id"]) == ["p1", "p3"]


def test_to_markdown_links_markers_to_post_urls() -> None:
    service = Service(cited=[1, 2, 1], known={1, 2})
    with _client(service) as client:
        answer = client.chats.message("ch_1", "msg_2")
        assert answer.to_markdown(links=False) == "see [1] see [2] see [1]"
        assert answer.to_markdown() == (
            "see [[1]](https://reddit.test/p1) see [[2]](https://tiktok.test/p2) "
            "see [[1]](https://reddit.test/p1)"
        )


def test_references_resolve_through_their_endpoints(answer: Answer) -> None:
    resolved = {ref.type: answer.resolve(ref) for ref in answer.entity_references}
    assert isinstance(resolved["dataset"], Dataset) and resolved["dataset"].name == "Oat milk"
    assert resolved["audience_dataset"].id == "ad_1"
    assert resolved["pattern"].id == "pt_1"
    assert resolved["pattern_detection_run"].run_id == "pdr_1"
    assert resolved["research_preview"].preview_id == "rp_1"
    run = resolved["custom_parameter_run"]
    assert isinstance(run, CustomParameterRun) and run.custom_parameter_id == "cp_2"
    post = answer.resolve(answer.post_references[1])
    assert isinstance(post, Mention) and (post.source, post.id) == ("reddit", "p3")
    with pytest.raises(ValueError, match="tracking_agent"):  # not a reference type
        answer.resolve(EntityReference(type="tracking_agent", id="ta_1"))


def test_follow_up_continues_the_chat(answer: Answer, service: Service) -> None:
    turn = answer.follow_up("And by month?")
    assert turn.chat_id == "ch_1"
    assert service.asked[-1] == {"message": "And by month?", "chat_id": "ch_1"}


def test_async_client_gives_awaitables() -> None:
    service = Service(cited=[2, 1], known={1, 2})

    async def main() -> tuple[Answer, pd.DataFrame, str]:
        transport = httpx.MockTransport(service)
        async with AsyncClient(KEY, base_url=BASE, transport=transport, rate_limit=None) as client:
            turn = await client.ask("Top posts?")
            answer = await turn.wait(poll_interval=0.01)
            return answer, await answer.posts(), await answer.to_markdown()

    answer, frame, markdown = asyncio.run(main())
    assert isinstance(answer, Answer) and list(frame["id"]) == ["p2", "p1"]
    assert markdown.startswith("see [[1]](https://tiktok.test/p2)")


def test_rows_cast_by_role_and_unbound_answers_explain() -> None:
    cast = chat_message("ch_9")
    user = cast({"id": "msg_1", "role": "user", "text": "hi", "context": {"dataset_ids": ["d"]}})
    assert type(user) is ChatMessage
    reply = cast({"id": "msg_2", "role": "assistant", "text": "Hi"})
    assert isinstance(reply, Answer) and reply.chat_id == "ch_9"
    with pytest.raises(RuntimeError, match=r"client\.ask"):
        reply.posts()
