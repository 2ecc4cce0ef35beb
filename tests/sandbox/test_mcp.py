"""The MCP server over real HTTP, driven by the official MCP Python client (``mcp`` SDK)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from rdskit.mcp import McpSession, McpToolError
from rdskit.references import check_references
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.mcp_server import build_server
from rdskit.sandbox.settings import Settings

T = TypeVar("T")
TOOLS = {
    "service__ask",
    "service__get_message",
    "service__render",
    "service__list_collections",
    "service__list_mentions",
    "service__mentions_get",
    "service__mentions_count",
    "service__query",
    "service__collect_mentions",
}


@dataclass
class Setup:
    url: str
    api_key: str
    dataset_id: str
    posts: list[dict[str, Any]]
    http: httpx.Client


@pytest.fixture(scope="module")
def setup(sandbox: SandboxHandle) -> Iterator[Setup]:
    """A Pro account (MCP enabled) with one collected dataset."""
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as http:
        dataset = http.post("/v1/datasets", json={"name": "Cold brew"}).json()["data"]
        search = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "cold brew"}
        body = {"search_query": search, "count": 30, "content_analysis_actions": ["sentiment"]}
        run = http.post(f"/v1/datasets/{dataset['id']}/runs", json=body).json()["data"]
        path = f"/v1/datasets/{dataset['id']}/runs/{run['id']}"
        for _ in range(1500):
            if http.get(path).json()["data"]["status"]["type"] == "completed":
                break
            asyncio.run(asyncio.sleep(0.02))
        listed = http.post("/v1/mentions", json={"dataset_ids": [dataset["id"]], "limit": 100})
        yield Setup(sandbox.url, created.api_key, dataset["id"], listed.json()["data"], http)


@asynccontextmanager
async def mcp_client(url: str, api_key: str | None, **options: Any) -> AsyncIterator[Client]:
    """The official client on ``<url>/mcp/`` sending ``x-api-key`` on every request."""
    headers = {"x-api-key": api_key} if api_key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{url}/mcp/", http_client=http), **options) as client,
    ):
        yield client


def run(setup: Setup, work: Callable[[Client], Awaitable[T]], **options: Any) -> T:
    async def main() -> T:
        async with mcp_client(setup.url, setup.api_key, **options) as client:
            return await work(client)

    return asyncio.run(main())


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return dict(result.structured_content or {})


def test_without_the_slash_is_a_307_to_the_slash(setup: Setup) -> None:
    response = httpx.post(f"{setup.url}/mcp", headers={"x-api-key": setup.api_key}, json={})
    assert response.status_code == 307
    assert response.headers["location"].endswith("/mcp/")


def test_initialize_and_list_tools(setup: Setup) -> None:
    async def work(client: Client) -> tuple[Any, set[str], dict[str, Any]]:
        listed = await client.list_tools()
        schemas = {tool.name: tool.input_schema for tool in listed.tools}
        return client.server_info, set(schemas), schemas

    # mode="legacy" runs the initialize handshake explicitly.
    info, names, schemas = run(setup, work, mode="legacy")
    assert info is not None and info.name == "research-data-service"
    assert names == TOOLS
    assert schemas["service__ask"]["required"] == ["message"]
    assert set(schemas["service__get_message"]["required"]) == {"chat_id", "message_id"}


def test_ask_then_get_message_and_render(setup: Setup) -> None:
    async def work(client: Client) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        question = "How does sentiment split?"
        started = await call(
            client, "service__ask", message=question, dataset_ids=[setup.dataset_id]
        )
        reply = await call(client, "service__get_message", **started)
        table = await call(
            client, "service__render", message_id=started["message_id"], block_id="b2"
        )
        return started, reply, table

    started, reply, table = run(setup, work)
    assert started.keys() == {"chat_id", "message_id", "status"} and started["status"] == "working"
    assert reply["stop_reason"] == "end_turn" and reply["status"] == "completed"
    text_block, table_block = reply["blocks"]
    assert text_block["render"] is False and table_block == {
        "block_id": "b2", "type": "table", "render": True, "title": "Sentiment split"
    }  # fmt: skip
    assert check_references(text_block["text"], text_block["references"]) == []
    keys = {(post["source"], post["id"]) for post in setup.posts}
    cited = {(r["source"], r["id"]) for r in text_block["references"] if r["type"] == "post"}
    assert cited and cited <= keys
    assert table["columns"] == ["sentiment", "posts", "share"]
    # One ads policy per chat: ads are in unless the chat leaves them out.
    assert sum(row[1] for row in table["rows"]) == len(setup.posts)
    # The same turn is a chat of the REST API.
    chat = setup.http.get(f"/v1/chats/{started['chat_id']}/messages/{started['message_id']}")
    assert chat.json()["data"]["text"] == text_block["text"]


def test_ask_with_chat_id_continues_the_dataset_and_question(setup: Setup) -> None:
    async def work(client: Client) -> dict[str, Any]:
        first = await call(
            client,
            "service__ask",
            message="What do people complain about?",
            dataset_ids=[setup.dataset_id],
        )
        await call(client, "service__get_message", **first)
        again = await call(
            client, "service__ask", message="and on tiktok only?", chat_id=first["chat_id"]
        )
        return await call(client, "service__get_message", **again)

    reply = run(setup, work)
    text_block = reply["blocks"][0]
    assert check_references(text_block["text"], text_block["references"]) == []
    tiktok = {(p["source"], p["id"]) for p in setup.posts if p["source"] == "tiktok"}
    cited = {(r["source"], r["id"]) for r in text_block["references"] if r["type"] == "post"}
    assert cited and cited <= tiktok  # the follow-up kept the dataset and the question
    assert {"type": "dataset", "id": setup.dataset_id} in text_block["references"]
    assert "(negative sentiment)" in text_block["text"]


def test_lookups_list_collections_and_mentions(setup: Setup) -> None:
    async def work(client: Client) -> tuple[dict[str, Any], ...]:
        collections = await call(client, "service__list_collections", kind="mentions")
        page = await call(client, "service__list_mentions", dataset_ids=[setup.dataset_id], limit=5)
        count = await call(client, "service__mentions_count", dataset_ids=[setup.dataset_id])
        first = page["mentions"][0]
        one = await call(client, "service__mentions_get", source=first["source"], id=first["id"])
        return collections, page, count, one

    collections, page, count, one = run(setup, work)
    listed = {c["id"]: c for c in collections["collections"]}
    assert listed[setup.dataset_id]["mentions_count"] == len(setup.posts)
    keys = {(post["source"], post["id"]) for post in setup.posts}
    assert len(page["mentions"]) == 5 and page["has_next"] is True
    assert {(m["source"], m["id"]) for m in page["mentions"]} <= keys
    assert count["count"] == len(setup.posts)
    assert (one["mention"]["source"], one["mention"]["id"]) == (
        page["mentions"][0]["source"],
        page["mentions"][0]["id"],
    )


def test_query_answers_synchronously_and_is_charged(setup: Setup) -> None:
    async def work(client: Client) -> dict[str, Any]:
        return await call(
            client,
            "service__query",
            question="Top 3 posts by views",
            dataset_ids=[setup.dataset_id],
        )

    before = len(setup.http.get("/v1/me/usage_history").json()["data"])
    answer = run(setup, work)
    assert check_references(answer["text"], answer["references"]) == []
    expected = sorted(setup.posts, key=lambda p: (-p["num_views"], p["source"], p["id"]))[:3]
    cited = [(r["source"], r["id"]) for r in answer["references"] if r["type"] == "post"]
    assert cited == [(p["source"], p["id"]) for p in expected]
    rows = setup.http.get("/v1/me/usage_history").json()["data"]
    assert len(rows) == before + 1 and rows[0]["category"] == "ai_assistant"


def test_collect_mentions_runs_a_billed_research_preview(setup: Setup) -> None:
    async def work(client: Client) -> dict[str, Any]:
        return await call(
            client,
            "service__collect_mentions",
            search_query="cold brew",
            sources=["reddit", "tiktok"],
        )

    before = {row["id"] for row in setup.http.get("/v1/me/usage_history").json()["data"]}
    preview = run(setup, work)
    assert preview["preview_id"] and preview["type"] == "prompt" and preview["posts"]
    stored = setup.http.get(f"/v1/research_previews/{preview['preview_id']}").json()["data"]
    assert stored == preview
    rows = setup.http.get("/v1/me/usage_history").json()["data"]
    new = [row for row in rows if row["id"] not in before]
    assert [row["category"] for row in new] == ["preview_generation"]


def test_the_notebook_helper_calls_tools_synchronously(setup: Setup) -> None:
    with McpSession(setup.api_key, base_url=setup.url) as session:
        assert set(session.tools()) == TOOLS
        started = session.call(
            "ask", message="Top 3 posts by likes", dataset_ids=[setup.dataset_id]
        )
        reply = session.call("service__get_message", **started)
        assert reply["stop_reason"] == "end_turn"
        with pytest.raises(McpToolError) as caught:
            session.call("render", message_id=started["message_id"], block_id="b9")
    assert (caught.value.code, caught.value.status) == ("block_not_found", 404)


def test_tool_errors_come_back_inside_the_result(setup: Setup) -> None:
    async def work(client: Client) -> list[Any]:
        missing = await client.call_tool(
            "service__get_message", {"chat_id": "ch_nope", "message_id": "msg_nope"}
        )
        kind = await client.call_tool("service__list_collections", {"kind": "audiences"})
        refs = [{"source": "reddit", "id": str(n)} for n in range(51)]
        too_many = await client.call_tool("service__ask", {"message": "hi", "post_refs": refs})
        return [missing, kind, too_many]

    missing, kind, too_many = run(setup, work)
    assert too_many.is_error and too_many.structured_content["error"]["status"] == 422
    assert missing.is_error and missing.structured_content == {
        "error": {"code": "chat_not_found", "message": "Chat ch_nope not found", "status": 404}
    }
    assert kind.is_error and kind.structured_content["error"]["status"] == 422


def test_spent_balance_is_a_402_tool_error(sandbox: SandboxHandle, setup: Setup) -> None:
    broke = sandbox.admin.create_account(plan="Pro", wallet_usd="0")

    async def work(client: Client) -> list[Any]:
        ask = await client.call_tool("service__ask", {"message": "hi"})
        preview = await client.call_tool("service__collect_mentions", {"search_query": "tea"})
        return [ask.structured_content, preview.structured_content]

    ask, preview = run(Setup(setup.url, broke.api_key, "", [], setup.http), work)
    assert ask["error"]["code"] == "insufficient_credits_ask" and ask["error"]["status"] == 402
    assert preview["error"]["code"] == "insufficient_credits_research_preview"


def _refused(setup: Setup, api_key: str) -> pytest.ExceptionInfo[BaseExceptionGroup[Any]]:
    """Connecting with ``api_key`` fails; the SDK wraps the transport error in task groups."""
    with pytest.raises(BaseExceptionGroup) as caught:
        run(Setup(setup.url, api_key, "", [], setup.http), lambda client: client.list_tools())
    return caught


def test_bad_key_is_a_401_transport_error(setup: Setup) -> None:
    assert _refused(setup, "bz_test_" + "0" * 32).group_contains(
        MCPError, match="API key", depth=None
    )
    response = httpx.post(
        f"{setup.url}/mcp/", json={}, headers={"accept": "application/json, text/event-stream"}
    )
    assert response.status_code == 401


def test_plan_without_mcp_is_refused(sandbox: SandboxHandle, setup: Setup) -> None:
    starter = sandbox.admin.create_account(plan="Starter")
    assert _refused(setup, starter.api_key).group_contains(MCPError, match="MCP", depth=None)
    response = httpx.post(f"{setup.url}/mcp/", json={}, headers={"x-api-key": starter.api_key})
    assert response.status_code == 403


def test_mcp_shares_the_rest_rate_limit() -> None:
    # Five REST calls then one MCP call inside one one-second window: the MCP call is
    # refused. A loaded machine can spread the six calls over more than the window (a
    # new one then opens and the MCP call is allowed): such a burst is tried again, after
    # the window has ended, and the test fails if no burst ever fits in the window.
    with start(speed=500, rate_limit=5, seed=3) as sandbox:
        headers = {"x-api-key": sandbox.api_key}
        with httpx.Client(base_url=sandbox.url, headers=headers) as http:
            for _ in range(8):
                time.sleep(1.1)  # the previous window has ended
                began = time.monotonic()
                statuses = [
                    http.get("/v1/datasets", params={"limit": 1}).status_code for _ in range(5)
                ]
                mcp = http.post(
                    "/mcp/", json={}, headers={"accept": "application/json, text/event-stream"}
                )
                if time.monotonic() - began < 0.9:
                    break
            else:
                pytest.fail("no burst of six calls fitted in one second on this machine")
        assert statuses == [200] * 5
        assert mcp.status_code == 429 and "Retry-After" in mcp.headers


def test_arguments_past_the_rest_bounds_are_tool_errors(setup: Setup) -> None:
    # The same bounds as REST bodies (sandbox/runtime/guard.py), by argument name, before any work.
    async def work(client: Client) -> list[Any]:
        calls = [
            ("service__ask", {"message": "x" * 50_000}),
            ("service__query", {"question": "y" * 50_000}),
            ("service__ask", {"message": "hi", "dataset_ids": ["ds_x"] * 5_000}),
            ("service__list_mentions", {"q": "oat " * 1_000}),
            ("service__get_message", {"chat_id": "c" * 20_000, "message_id": "m"}),
        ]
        return [await client.call_tool(tool, arguments) for tool, arguments in calls]

    before = setup.http.get("/v1/me/usage_history").json()["data"]
    results = run(setup, work)
    named = ["message", "question", "dataset_ids", "q", "chat_id"]
    for result, name in zip(results, named, strict=True):
        error = result.structured_content["error"]
        assert result.is_error and (error["code"], error["status"]) == ("validation_error", 422)
        assert error["message"].startswith(f"{name}: {name} must"), error
        assert len(error["message"]) < 200  # the value is not echoed back
    assert setup.http.get("/v1/me/usage_history").json()["data"] == before  # nothing charged


def test_a_blank_question_names_the_question(setup: Setup) -> None:
    async def work(client: Client) -> Any:
        return await client.call_tool("service__query", {"question": "   "})

    error = run(setup, work).structured_content["error"]
    assert (error["code"], error["status"]) == ("validation_error", 422)
    assert error["message"] == "question: Value error, message must not be blank"


def test_a_lone_surrogate_is_a_tool_error_naming_the_argument(setup: Setup) -> None:
    # No client library sends one (they cannot encode it), so the JSON-RPC goes raw. The
    # SDK's own parser would answer a bare parse error; the gate names the argument.
    headers = {
        "x-api-key": setup.api_key,
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }
    before = setup.http.get("/v1/me/usage_history").json()["data"]
    for tool, arguments in (
        ("service__ask", '{"message": "hi \\ud800 there"}'),
        ("service__query", '{"question": "\\udfff"}'),
        ("service__render", '{"message_id": "msg_\\udc00", "block_id": "b1"}'),
        ("service__ask", '{"message": "hi", "post_refs": [{"source": "reddit", "id": "\\ud83d"}]}'),
    ):
        body = (
            '{"jsonrpc": "2.0", "id": 7, "method": "tools/call",'
            f' "params": {{"name": "{tool}", "arguments": {arguments}}}}}'
        )
        response = httpx.post(f"{setup.url}/mcp/", content=body.encode(), headers=headers)
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["id"] == 7 and answer["result"]["isError"] is True
        error = answer["result"]["structuredContent"]["error"]
        assert (error["code"], error["status"]) == ("validation_error", 422)
        assert "lone surrogate" in error["message"] and "\\u" not in error["message"]
    assert setup.http.get("/v1/me/usage_history").json()["data"] == before  # nothing charged
    # Reached by any other path (an in-process call), the tool refuses it the same way.
    store = open_store()
    try:
        server = build_server(store, Settings())
        result = asyncio.run(server.call_tool("service__ask", {"message": "hi \ud800"}))
        assert isinstance(result, CallToolResult) and result.is_error
        assert (result.structured_content or {})["error"]["message"] == (
            "message: message holds a lone surrogate (not UTF-8)"
        )
    finally:
        store.close()
    # And the server still answers.
    started = run(setup, lambda client: call(client, "service__ask", message="hi again"))
    assert started["status"] == "working"


def test_a_body_past_the_rest_size_bound_is_a_413(setup: Setup) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "service__ask", "arguments": {"message": "x" * 1_100_000}},
    }
    headers = {"x-api-key": setup.api_key, "accept": "application/json, text/event-stream"}
    response = httpx.post(f"{setup.url}/mcp/", json=body, headers=headers)
    assert response.status_code == 413


def test_another_accounts_chat_is_not_found(sandbox: SandboxHandle, setup: Setup) -> None:
    turn = setup.http.post("/v1/ask", json={"message": "How does sentiment split?"})
    ids = turn.json()["data"]
    reply = f"/v1/chats/{ids['chat_id']}/messages/{ids['message_id']}"
    for _ in range(1500):  # answered (and charged) before anything else reads the account
        if setup.http.get(reply).json()["data"]["status"] != "working":
            break
        asyncio.run(asyncio.sleep(0.02))
    stranger = sandbox.admin.create_account(plan="Pro")

    async def work(client: Client) -> list[Any]:
        return [
            await client.call_tool(
                "service__get_message",
                {"chat_id": ids["chat_id"], "message_id": ids["message_id"]},
            ),
            await client.call_tool(
                "service__render", {"message_id": ids["message_id"], "block_id": "b2"}
            ),
            await client.call_tool("service__ask", {"message": "hi", "chat_id": ids["chat_id"]}),
        ]

    results = run(Setup(setup.url, stranger.api_key, "", [], setup.http), work)
    codes = [result.structured_content["error"]["code"] for result in results]
    assert codes == ["chat_not_found", "message_not_found", "chat_not_found"]
    # The owner's chat is untouched: still one question and its reply.
    rows = setup.http.get(f"/v1/chats/{ids['chat_id']}/messages").json()["data"]
    assert [row["role"] for row in rows] == ["assistant", "user"]


def test_arguments_of_the_wrong_type_are_validation_errors_that_do_not_echo_them(
    setup: Setup,
) -> None:
    calls = [
        ("service__list_mentions", {"limit": "SECRET-1"}, "limit"),
        ("service__ask", {"message": ["SECRET-2"]}, "message"),
        ("service__mentions_count", {"dataset_ids": "SECRET-3"}, "dataset_ids"),
        ("service__get_message", {"chat_id": {"k": "SECRET-4"}, "message_id": "m"}, "chat_id"),
    ]

    async def work(client: Client) -> list[Any]:
        return [await client.call_tool(tool, arguments) for tool, arguments, _ in calls]

    for result, (_, _, name) in zip(run(setup, work), calls, strict=True):
        error = result.structured_content["error"]
        assert result.is_error and (error["code"], error["status"]) == ("validation_error", 422)
        assert error["message"].startswith(f"{name}: Input should be"), error
        assert "SECRET" not in str(result.content) and "SECRET" not in str(error)


def test_get_streams_are_bounded_in_number_per_key_and_in_time(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rdskit.sandbox import mcp_server

    monkeypatch.setattr(mcp_server, "STREAM_SECONDS", 1.0)
    headers = {"x-api-key": setup.api_key, "accept": "text/event-stream"}

    async def main() -> tuple[list[int], float]:
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:

            async def hold() -> int:
                async with http.stream("GET", f"{setup.url}/mcp/") as response:
                    async for _ in response.aiter_bytes():
                        pass
                    return response.status_code

            started = asyncio.get_running_loop().time()
            statuses = await asyncio.gather(
                *(hold() for _ in range(mcp_server.STREAMS_PER_KEY + 1))
            )
            return sorted(statuses), asyncio.get_running_loop().time() - started

    statuses, seconds = asyncio.run(main())
    assert statuses.count(429) == 1  # one over the per-key number
    assert seconds < 10  # every stream ended on its own


def test_mentions_count_walks_a_bounded_number_of_pages(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rdskit.sandbox import mcp_server

    async def work(client: Client) -> dict[str, Any]:
        return await call(client, "service__mentions_count", dataset_ids=[setup.dataset_id])

    assert run(setup, work) == {"count": len(setup.posts), "complete": True}
    monkeypatch.setattr(mcp_server, "COUNT_PAGES", 0)
    capped = run(setup, work)
    assert capped["complete"] is False and "narrow the query" in capped["note"]


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", '
            b'"arguments": {"a": ' + b"[" * 40 + b"]" * 40 + b"}}}",
            "nests deeper than 32",
        ),
        (
            b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": ['
            + b"0," * 90_000
            + b"0]}}",
            "more than 80000 commas",
        ),
        (  # under the commas, outside the arguments: the whole message is walked, bounded
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": '
            b'"service__list_collections", "arguments": {}, "_meta": {"a": ['
            + b"{}," * 30_000
            + b"{}]}}}",
            "more than 20000 values",
        ),
    ],
    ids=["deep", "commas", "values"],
)
def test_mcp_bodies_meet_the_rest_pre_parse_bounds(setup: Setup, raw: bytes, says: str) -> None:
    headers = {"x-api-key": setup.api_key, "content-type": "application/json",
               "accept": "application/json, text/event-stream"}  # fmt: skip
    response = httpx.post(f"{setup.url}/mcp/", content=raw, headers=headers)
    assert response.status_code == 400
    assert (
        response.json()["error"]["code"] == -32600 and says in response.json()["error"]["message"]
    )


_REST_THEN_MCP = """
import json, sys
import httpx
from rdskit.sandbox import start
with start(speed=200) as sb:
    me = httpx.get(f"{sb.url}/v1/me", headers={"x-api-key": sb.api_key}, timeout=60)
    before = "mcp" in sys.modules
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"}}}
    mcp = httpx.post(f"{sb.url}/mcp/", json=init, timeout=60, headers={
        "x-api-key": sb.api_key, "accept": "application/json, text/event-stream"})
print(json.dumps({"me": me.status_code, "before": before, "mcp": mcp.status_code,
                  "after": "mcp" in sys.modules}))
"""


def test_the_sdk_is_imported_at_the_first_mcp_request_not_at_start() -> None:
    """A sandbox never asked over MCP (a notebook's, ``rdskit demo``, most tests) never
    imports the SDK (about a second of CPU at every start); the first MCP request does,
    and is answered."""
    done = subprocess.run(
        [sys.executable, "-c", _REST_THEN_MCP], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"me": 200, "before": False, "mcp": 200, "after": True}, seen
