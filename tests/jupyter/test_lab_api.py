"""The JupyterLab panel's summary: what it reads (the active notebook's own client, else
the gateway's), through the gateway's shared bucket, and how often (reused however many
callers poll; chats, alerts and usage less often than runs)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import httpx
import pytest
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application

import rdskit
from rdskit._config import SecretKey
from rdskit._gateway_auth import TOKEN_HEADER, kernel_proof
from rdskit.jupyter.gateway import Gateway, TokenBook
from rdskit.jupyter.lab_api import (
    DATASETS_SHOWN,
    MIN_INTERVAL,
    SLOW_INTERVAL,
    LabSummary,
    Registrations,
    lab_handlers,
    parse_announcement,
    reuse_seconds,
    usage_by_day,
)
from rdskit.jupyter.session import announcement, note_chat
from rdskit.models import UsageRow

ME = {
    "id": "u1",
    "account_id": "acc_1",
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
AGENTS = {"data": [{"id": "ta_1", "name": "<script>x</script>", "paused": False}]}
ALERTS = {
    "data": [
        {
            "message_id": "tam_2",
            "agent_id": "ta_1",
            "created_at": 1767225700,
            "new_mention_count": 3,
            "short_preview_message": "<b>prices</b>",
        },
        {"message_id": "tam_1", "agent_id": "ta_1", "created_at": 1767225600},
    ],
    "has_next": True,
}
CHAT = {"data": {"id": "ch_1", "name": '"><img src=x>', "created_at": 1767225000}}
MESSAGES = {
    "data": [
        {"id": "m2", "role": "assistant", "text": "…", "created_at": 1767225900},
        {
            "id": "m1",
            "role": "user",
            "text": "q",
            "created_at": 1767225800,
            "context": {"dataset_ids": ["ds_1"]},
        },
    ]
}
USAGE = {
    "data": [
        {
            "id": 2,
            "category": "ai_assistant",
            "quantity": 0.02,
            "created_at": 1767225900,
            "quantity_credits": "2.000000",
        },
        {
            "id": 1,
            "category": "mention",
            "quantity": 0.4,
            "created_at": 1767139200,
            "quantity_credits": "40.000000",
        },
        {
            "id": 0,
            "category": "mention",
            "quantity": 0.1,
            "created_at": 1767139300,
            "quantity_credits": None,
        },
    ],
    "has_next": False,
}
BODIES = {
    "v1/me": ME,
    "v1/datasets": DATASETS,
    "v1/datasets/ds_1/runs": RUNS,
    "v1/tracking_agents": AGENTS,
    "v1/tracking_agents/ta_1/messages": ALERTS,
    "v1/chats/ch_1": CHAT,
    "v1/chats/ch_1/messages": MESSAGES,
    "v1/me/usage_history": USAGE,
}


class FakeGateway:
    """Records every read and where it went (the real Gateway takes a bucket slot each)."""

    def __init__(self) -> None:
        self.reads: list[tuple[str, str, str]] = []  # (target, path, query)
        self.chats: deque[str] = deque(["ch_1", "ch_gone"])
        self.running = {"k1", "k2"}
        self.kernels = lambda kid: b"key" if kid in self.running else None
        self.sandbox_up = True

    def status(self) -> dict[str, Any]:
        return {"mode": "sandbox", "upstream": "http://127.0.0.1:1", "rate_limit": 5.0, "queued": 0}

    def _answer(self, path: str) -> httpx.Response:
        if path not in BODIES:
            return httpx.Response(404, content=b'{"error_code": "chat_not_found"}')
        return httpx.Response(200, content=json.dumps(BODIES[path]).encode())

    async def forward(
        self, method: str, path: str, query: str, body: bytes, headers: dict[str, str]
    ) -> httpx.Response:
        self.reads.append(("gateway", path, query))
        return self._answer(path)

    async def send(
        self, base_url: str, key: SecretKey, method: str, path: str, query: str = ""
    ) -> httpx.Response:
        if not self.sandbox_up:
            raise httpx.ConnectError("refused")
        self.reads.append((f"{base_url} {key.reveal()}", path, query))
        return self._answer(path)


def _summary(now: list[float]) -> tuple[FakeGateway, LabSummary]:
    gateway = FakeGateway()
    return gateway, LabSummary(gateway, clock=lambda: now[0])  # type: ignore[arg-type]


def test_the_gateway_view_is_read_once_per_interval_and_says_what_the_panel_shows() -> None:
    now = [100.0]
    gateway, summary = _summary(now)

    async def main() -> list[dict[str, Any]]:
        first = await summary.get()
        together = await asyncio.gather(*(summary.get() for _ in range(5)))
        now[0] += MIN_INTERVAL
        return [first, *together, await summary.get()]

    results = asyncio.run(main())
    fast = ["v1/me", "v1/datasets", "v1/datasets/ds_1/runs"]
    slow = [
        "v1/tracking_agents",
        "v1/tracking_agents/ta_1/messages",
        "v1/chats/ch_1",
        "v1/chats/ch_1/messages",
        "v1/chats/ch_gone",
        "v1/me/usage_history",
    ]
    # whoever asks, one read per interval: all of it, then the fast part only
    assert [path for _, path, _ in gateway.reads] == fast + slow + fast, gateway.reads
    assert ("gateway", "v1/datasets", f"limit={DATASETS_SHOWN}") in gateway.reads
    first = results[0]
    assert first["viewing"]["scope"] == "server"
    assert first["viewing"]["label"] == "this server's shared sandbox (http://127.0.0.1:1)"
    assert first["account"] == {
        "id": "acc_1",
        "email": "a@example.com",
        "team": "Team <b>",
        "plan": "Pro",
        "credits_left": "989.5 credits",
    }
    assert first["datasets"][0]["name"] == '<img src=x onerror="alert(1)">'  # as text
    (run,) = first["datasets"][0]["runs"]
    assert run["id"] == "dsr_1" and run["status"] == "working" and 0 < run["share"] < 1
    assert first["runs_in_flight"] == 1 and first["tracking_agents"] == 1
    (agent,) = first["agents"]
    assert agent["name"] == "<script>x</script>" and agent["more"] is True
    assert [a["id"] for a in agent["alerts"]] == ["tam_2", "tam_1"]
    assert agent["alerts"][0] == {
        "id": "tam_2",
        "at": 1767225700,
        "preview": "<b>prices</b>",
        "new_mentions": 3,
        "chat_id": None,
    }
    # the chat another seat owns (404) is left out; the rest says title, datasets, activity
    assert first["chats"] == {
        "items": [
            {
                "id": "ch_1",
                "title": '"><img src=x>',
                "datasets": ["ds_1"],
                "last_activity": 1767225900,
                "tracking_agent_id": None,
            }
        ],
        "source": "asked through this server's gateway",
    }
    days = first["usage"]["days"]
    assert [day["day"] for day in days] == ["2026-01-01", "2025-12-31"]
    assert days[1] == {
        "day": "2025-12-31",
        "credits": "40",
        "usd": "0.50",
        "no_credits": 1,
        "by": [{"category": "mention", "credits": "40"}],
    }
    assert first["next_poll"] == MIN_INTERVAL and first["connected"]["mode"] == "sandbox"


def test_chats_alerts_and_usage_are_read_again_after_the_slow_interval_only() -> None:
    now = [0.0]
    gateway, summary = _summary(now)

    async def main() -> None:
        await summary.get()
        for _ in range(int(SLOW_INTERVAL // MIN_INTERVAL)):
            now[0] += MIN_INTERVAL
            await summary.get()

    asyncio.run(main())
    paths = [path for _, path, _ in gateway.reads]
    assert paths.count("v1/me") == 1 + int(SLOW_INTERVAL // MIN_INTERVAL)
    assert paths.count("v1/me/usage_history") == 2


def test_a_notebook_with_its_own_sandbox_is_shown_that_sandbox() -> None:
    now = [0.0]
    gateway, summary = _summary(now)
    embedded = parse_announcement(
        {
            "kind": "embedded",
            "base_url": "http://127.0.0.1:4321/",
            "api_key": "bz_test_sandboxkey1234",
            "chats": ["ch_1"],
        }
    )
    summary.kernels.set("k1", embedded)
    view = asyncio.run(summary.get("k1"))
    assert view["viewing"] == {
        "scope": "notebook",
        "label": "this notebook: embedded sandbox",
        "note": None,
    }
    assert {target for target, _, _ in gateway.reads} == {
        "http://127.0.0.1:4321 bz_test_sandboxkey1234"
    }
    assert view["chats"]["source"] == "asked from this notebook (%%ask)"
    assert [chat["id"] for chat in view["chats"]["items"]] == ["ch_1"]
    assert "bz_test_sandboxkey1234" not in json.dumps(view)
    # another notebook (no announcement) sees the gateway
    assert asyncio.run(summary.get("k2"))["viewing"]["scope"] == "server"

    # a kernel that stopped: its registration is dropped, the gateway's view is shown
    gateway.running.discard("k1")
    assert asyncio.run(summary.get("k1"))["viewing"]["scope"] == "server"
    assert summary.kernels.get("k1") is None

    # a sandbox that no longer answers (restarted kernel): dropped, and said
    gateway.running.add("k1")
    summary.kernels.set("k1", embedded)
    gateway.sandbox_up = False
    now[0] += 60
    view = asyncio.run(summary.get("k1"))
    assert view["viewing"]["scope"] == "server"
    assert "no longer answers" in view["viewing"]["note"]
    assert summary.kernels.get("k1") is None


def test_a_notebook_with_a_real_key_gets_facts_only_and_the_key_never_reaches_the_server() -> None:
    gateway, summary = _summary([0.0])
    mine = parse_announcement(
        {"kind": "service", "base_url": "https://rds.example.com", "api_key": "bz_live_secret99"}
    )
    assert mine is not None and mine.key is None  # dropped on arrival
    summary.kernels.set("k1", mine)
    view = asyncio.run(summary.get("k1"))
    assert gateway.reads == []
    assert view["account"] is None and view["datasets"] == []
    assert view["viewing"]["label"] == "this notebook: its own key for https://rds.example.com"
    assert "cannot read that account" in view["viewing"]["note"]
    # back to the gateway's client: the gateway's view, the kernel's budget kept
    summary.kernels.set(
        "k1",
        parse_announcement(
            {"kind": "gateway", "budget": {"total": "100", "committed": "60", "held": "1"}}
        ),
    )
    view = asyncio.run(summary.get("k1"))
    assert view["viewing"]["scope"] == "server" and view["account"]["id"] == "acc_1"
    assert view["kernel_budget"] == {
        "set": True,
        "announced": True,
        "total": "100",
        "left": "39",
        "committed": "60",
        "held": "1",
        "short": "budget 39 of 100 left",
        "text": "39 of 100 credits left (60 committed, 1 held for asks in flight)",
    }
    assert asyncio.run(summary.get())["kernel_budget"] is None  # no notebook: not said


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "other"}, "kind"),
        ([], "kind"),
        (
            {"kind": "embedded", "base_url": "http://example.com:80", "api_key": "k" * 20},
            "base_url",
        ),
        ({"kind": "embedded", "base_url": "https://127.0.0.1:80", "api_key": "k" * 20}, "base_url"),
        ({"kind": "embedded", "base_url": "file:///etc/passwd", "api_key": "k" * 20}, "base_url"),
        ({"kind": "embedded", "base_url": "http://127.0.0.1:80", "api_key": "a b"}, "api_key"),
        (
            {
                "kind": "embedded",
                "base_url": "http://127.0.0.1:80",
                "api_key": "k" * 20,
                "chats": ["../admin"],
            },
            "chats",
        ),
        (
            {
                "kind": "embedded",
                "base_url": "http://127.0.0.1:80",
                "api_key": "k" * 20,
                "turns": "1",
            },
            "turns",
        ),
        ({"kind": "gateway", "budget": 100}, "budget"),
        (
            {"kind": "gateway", "budget": {"total": 100, "committed": "0", "held": "0"}},
            "budget.total",
        ),
        (
            {"kind": "gateway", "budget": {"total": "1", "committed": "-1", "held": "0"}},
            "budget.committed",
        ),
        (
            {"kind": "gateway", "budget": {"total": "1", "committed": "0", "held": "NaN"}},
            "budget.held",
        ),
        (
            {"kind": "gateway", "budget": {"total": "1" * 30, "committed": "0", "held": "0"}},
            "budget.total",
        ),
    ],
)
def test_a_bad_announcement_is_refused_naming_the_field(body: Any, field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        parse_announcement(body)


def test_the_panel_takes_at_most_its_share_of_the_bucket() -> None:
    assert reuse_seconds(3, 1, 5.0) == MIN_INTERVAL
    # 4 views of 10 requests each: 40 requests per 16 s = 2.5 req/s, half of 5 req/s
    assert reuse_seconds(10, 4, 5.0) == 16.0


def test_usage_rows_without_credits_count_in_usd_and_are_said() -> None:
    rows = [UsageRow.model_validate(row) for row in USAGE["data"]]  # type: ignore[index]
    (_, older) = usage_by_day(rows)["days"]
    assert older["no_credits"] == 1 and older["usd"] == "0.50" and older["credits"] == "40"


def test_the_gateway_remembers_the_chats_asked_through_it_and_tokens_name_their_kernel() -> None:
    answers = iter(
        [
            b'{"chat_id": "ch_a", "message_id": "m", "status": "working"}',
            b'{"chat_id": "ch_b", "message_id": "m", "status": "working"}',
            b'{"chat_id": "ch_a", "message_id": "m", "status": "working"}',
            b'{"chat_id": "../x", "message_id": "m", "status": "working"}',
        ]
    )
    transport = httpx.MockTransport(lambda request: httpx.Response(202, content=next(answers)))
    gateway = Gateway(
        ("http://127.0.0.1:9", "bz_test_key12345"), mode="service", transport=transport
    )

    async def main() -> None:
        for _ in range(4):
            await gateway.forward("POST", "v1/ask", "", b"{}", {})
        await gateway.aclose()

    asyncio.run(main())
    assert list(gateway.chats) == ["ch_a", "ch_b"]  # newest first, once each, ids only

    book = TokenBook(60, alive=lambda kid: kid == "k1")
    token, _ = book.mint("k1")
    unbound, _ = book.mint()
    assert book.kernel_of(token) == "k1"
    assert book.kernel_of(unbound) is None and book.kernel_of("forged") is None


@contextmanager
def kernel_route(gateway: Gateway) -> Iterator[tuple[str, Registrations]]:
    """The gateway's ``POST /rdskit/kernel`` on a loopback port (real HTTP)."""
    routes = [route for route in lab_handlers(gateway) if route[0].endswith("/kernel")]
    registrations: Registrations = routes[0][2]["registrations"]
    sockets = bind_sockets(0, "127.0.0.1")
    ready, holder = threading.Event(), dict[str, Any]()

    async def main() -> None:
        holder["loop"], holder["stop"] = asyncio.get_running_loop(), asyncio.Event()
        server = HTTPServer(Application(routes))
        server.add_sockets(sockets)
        ready.set()
        await holder["stop"].wait()
        server.stop()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield f"http://127.0.0.1:{sockets[0].getsockname()[1]}/rdskit/kernel", registrations
    finally:
        holder["loop"].call_soon_threadsafe(holder["stop"].set)
        thread.join(10)


def test_a_kernel_announces_its_own_client_only_with_its_own_token() -> None:
    kernels = {"k1": b"connection-key-1"}
    gateway = Gateway(
        ("http://127.0.0.1:9", "bz_test_key12345"), mode="service", kernels=kernels.get
    )
    token, _ = gateway.grant(
        {
            "secret": gateway.secret,
            "kernel_id": "k1",
            "proof": kernel_proof("k1", kernels["k1"], gateway.secret),
        }
    )
    unbound, _ = gateway.tokens.mint()
    body = {"kind": "embedded", "base_url": "http://127.0.0.1:4321", "api_key": "bz_test_abc12345"}
    with kernel_route(gateway) as (url, registrations):
        none = httpx.post(url, json=body)
        other = httpx.post(url, json=body, headers={TOKEN_HEADER: unbound})
        bad = httpx.post(
            url, json={**body, "base_url": "http://example.com"}, headers={TOKEN_HEADER: token}
        )
        assert registrations.get("k1") is None
        good = httpx.post(url, json=body, headers={TOKEN_HEADER: token})
        mine = registrations.get("k1")
        del kernels["k1"]  # the kernel stopped: its token and its registration go
        late = httpx.post(url, json=body, headers={TOKEN_HEADER: token})
        gone = registrations.get("k1")
    assert none.status_code == 401
    assert other.status_code == 403 and other.json()["error_code"] == "gateway_kernel_unknown"
    assert bad.status_code == 422 and bad.json()["detail"].startswith("base_url:")
    assert good.status_code == 200
    assert good.json() == {"kernel_id": "k1", "shown": "this notebook: embedded sandbox"}
    assert mine is not None and mine.base_url == "http://127.0.0.1:4321"
    assert "bz_test_abc12345" not in repr(mine)
    assert late.status_code == 401 and gone is None


def test_what_a_kernel_announces_about_each_kind_of_client() -> None:
    sandbox = rdskit.Client.sandbox()
    note_chat(sandbox, "ch_2")
    note_chat(sandbox, "ch_1")
    note_chat(sandbox, "ch_2")
    told = announcement(sandbox)
    assert told == {
        "kind": "embedded",
        "base_url": sandbox.base_url,
        "api_key": sandbox._core.api_key.reveal(),
        "chats": ["ch_2", "ch_1"],
        "turns": told["turns"],
        "budget": None,
    }
    note_chat(sandbox, "ch_1")
    assert announcement(sandbox)["turns"] == told["turns"] + 1  # the panel reads chats again
    assert parse_announcement(told) is not None  # the gateway accepts what kernels send
    real = rdskit.Client("bz_live_" + "9" * 32, base_url="https://rds.example.com")
    assert announcement(real) == {
        "kind": "service",
        "base_url": "https://rds.example.com",
        "budget": None,
    }
    real.close()


def test_a_kernel_announces_its_budget_through_the_bounded_endpoint() -> None:
    kernels = {"k1": b"connection-key-1", "k2": b"connection-key-2"}
    gateway = Gateway(
        ("http://127.0.0.1:9", "bz_test_key12345"), mode="service", kernels=kernels.get
    )
    pids = {"k1": 101, "k2": 202}
    gateway.processes = pids.get

    def token_of(kernel_id: str) -> str:
        proof = kernel_proof(kernel_id, kernels[kernel_id], gateway.secret)
        token, _ = gateway.grant({"secret": gateway.secret, "kernel_id": kernel_id, "proof": proof})
        return token

    one, two = token_of("k1"), token_of("k2")
    budget = {"total": "100", "committed": "20.5", "held": "0"}
    with kernel_route(gateway) as (url, registrations):
        told = httpx.post(
            url, json={"kind": "gateway", "budget": budget}, headers={TOKEN_HEADER: one}
        )
        mine = registrations.get("k1")
        # k2's token speaks for k2 only, whatever the body says
        httpx.post(url, json={"kind": "gateway", "budget": None}, headers={TOKEN_HEADER: two})
        theirs = registrations.get("k2")
        huge = httpx.post(
            url,
            content=b'{"kind": "gateway", "pad": "' + b"x" * 20_000 + b'"}',
            headers={TOKEN_HEADER: one, "content-type": "application/json"},
        )
        garbled = httpx.post(url, content=b"{not json", headers={TOKEN_HEADER: one})
        bad = httpx.post(
            url,
            json={"kind": "gateway", "budget": {**budget, "held": "1e9"}},
            headers={TOKEN_HEADER: one},
        )
        kept = registrations.get("k1")
        pids["k1"] = 303  # restarted: same kernel id, another process
        restarted = registrations.get("k1")
    assert told.status_code == 200, told.text
    assert told.json() == {"kernel_id": "k1", "shown": "this server's shared connection"}
    assert mine is not None and mine.budget is not None
    assert (mine.budget.total, mine.budget.committed) == (100, Decimal("20.5"))
    assert theirs is not None and theirs.budget is None
    assert huge.status_code == 413 and huge.json()["detail"].startswith("body:")
    assert garbled.status_code == 422 and garbled.json()["detail"] == "body: a JSON object"
    assert bad.status_code == 422 and bad.json()["detail"].startswith("budget.held:")
    assert kept == mine  # a refused announcement changes nothing
    assert restarted is None


def test_the_kernel_tells_its_budget_never_its_key() -> None:
    real = rdskit.Client("bz_live_" + "7" * 32, base_url="https://rds.example.com")
    try:
        rdskit.set_budget(100)
        budget = rdskit.get_budget()
        assert budget is not None
        budget.charge(Decimal("12.5"))
        told = announcement(real)
        assert told["budget"] == {"total": "100", "committed": "12.5", "held": "0"}
        assert "7" * 32 not in json.dumps(told)
        shown = parse_announcement(told).budget
        assert shown is not None and shown.view()["short"] == "budget 87.5 of 100 left"
        # an Ask's charge in USD at a credit rate (28 digits), a tiny one (1E-7 to str())
        budget.charge(Decimal(1) / Decimal(3))
        budget.charge(Decimal("1E-7"))
        exact = parse_announcement(announcement(real)).budget
        assert exact is not None and exact.committed == budget.spent
        rdskit.set_budget(None)
        assert announcement(real)["budget"] is None
    finally:
        rdskit.set_budget(None)
        real.close()


def test_a_throttled_read_keeps_the_last_good_view_and_waits_out_retry_after() -> None:
    now = [100.0]
    gateway, summary = _summary(now)
    throttled = {"on": False}
    answer = gateway._answer

    def maybe_429(path: str) -> httpx.Response:
        if throttled["on"]:
            return httpx.Response(429, headers={"retry-after": "12"}, content=b"{}")
        return answer(path)

    gateway._answer = maybe_429  # type: ignore[method-assign]

    async def main() -> list[dict[str, Any]]:
        good = await summary.get("k1")
        throttled["on"] = True
        now[0] += MIN_INTERVAL
        stale = await summary.get("k1")
        reads = len(gateway.reads)
        now[0] += 6  # within Retry-After: the service is left alone
        held = await summary.get("k1")
        assert len(gateway.reads) == reads
        throttled["on"] = False
        now[0] += 7  # past it: read again, fresh
        return [good, stale, held, await summary.get("k1")]

    good, stale, held, fresh = asyncio.run(main())
    assert good["stale"] is None and good["account"]["email"] == "a@example.com"
    assert stale["account"] == good["account"] and stale["datasets"] == good["datasets"]
    assert stale["stale"]["status"] == 429 and "too many requests" in stale["stale"]["reason"]
    assert stale["stale"]["retry_after"] == 12 and stale["next_poll"] == 12
    assert held["stale"]["retry_after"] == 6
    assert fresh["stale"] is None


def test_with_no_good_view_yet_a_refusal_names_the_reason_and_the_fix() -> None:
    from rdskit.jupyter.lab_api import Unreadable

    gateway, summary = _summary([100.0])
    gateway._answer = lambda path: httpx.Response(401, content=b"{}")  # type: ignore[method-assign]
    with pytest.raises(Unreadable) as refused:
        asyncio.run(summary.get())
    assert refused.value.status == 401 and "refused the key" in refused.value.reason
    assert "api_key_file" in refused.value.fix


def test_a_notebook_sandbox_that_refuses_its_key_says_what_happened_and_its_fix() -> None:
    """A 401 from a notebook's own sandbox is about that notebook's key: the panel repeats
    the sandbox's words (what happened, then the one fix), never the gateway's key file."""
    now = [0.0]
    gateway, summary = _summary(now)
    summary.kernels.set(
        "k1",
        parse_announcement(
            {"kind": "embedded", "base_url": "http://127.0.0.1:4321/", "api_key": "bz_test_k"}
        ),
    )
    good = asyncio.run(summary.get("k1"))
    assert good["stale"] is None
    revoked = {
        "status": "info",
        "error_code": "unauthorized",
        "detail": "This API key was revoked in this sandbox's database (by its admin API, or "
        "another program using the same file); a new rdskit.Client.sandbox() "
        "(%rds connect --sandbox) gets a working key.",
    }
    gateway._answer = lambda path: httpx.Response(401, json=revoked)  # type: ignore[method-assign]
    now[0] += MIN_INTERVAL
    stale = asyncio.run(summary.get("k1"))["stale"]
    assert stale["status"] == 401
    assert stale["reason"] == (
        "this notebook's sandbox refused its key: This API key was revoked in this sandbox's "
        "database (by its admin API, or another program using the same file) (HTTP 401)"
    )
    assert (
        stale["fix"] == "a new rdskit.Client.sandbox() (%rds connect --sandbox) gets a working key"
    )
    # a refusal without words still names the notebook's fix; the gateway's 401 is unchanged
    gateway._answer = lambda path: httpx.Response(401, content=b"not json")  # type: ignore[method-assign]
    now[0] += MIN_INTERVAL
    stale = asyncio.run(summary.get("k1"))["stale"]
    assert stale["fix"].startswith("run rdskit.Client.sandbox() (or %rds connect --sandbox)")
    assert "api_key_file" not in stale["fix"]


def test_the_panel_ask_box_asks_once_and_returns_cards_and_the_equivalent_cell(
    sandbox: Any, seeded: Any
) -> None:
    from rdskit.jupyter.lab_ask import ask

    posts: list[str] = []

    async def main() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=sandbox.url) as http:

            async def send(method: str, path: str, query: str, body: bytes) -> httpx.Response:
                headers = {"x-api-key": sandbox.api_key, "content-type": "application/json"}
                sent = await http.request(method, f"/{path}", content=body or None, headers=headers)
                posts.append(f"{method} {path} {sent.status_code}")
                return sent

            return await ask(send, "What do {people} say?", [seeded.dataset_id], None, poll=0.1)

    result = asyncio.run(main())
    # Accepted once; a 429 (the seeding may have used this second's requests) started nothing.
    assert posts.count("POST v1/ask 202") == 1
    assert {post for post in posts if post.startswith("POST v1/ask")} <= {
        "POST v1/ask 202",
        "POST v1/ask 429",
    }
    assert result["status"] == "completed" and result["citations"]
    card = result["citations"][0]
    assert card["url"].startswith("http") and card["excerpt"] and card["source"]
    assert result["cell"] == (f"%%ask --dataset {seeded.dataset_id}\nWhat do {{{{people}}}} say?")


def test_the_ask_box_sends_again_only_after_a_429_and_waits_its_retry_after() -> None:
    from rdskit.jupyter import lab_ask

    waits: list[float] = []

    async def no_sleep(seconds: float) -> None:
        waits.append(seconds)

    def scripted(statuses: list[int], chat: str = "ch_1") -> tuple[list[str], lab_ask.Send]:
        sent: list[str] = []

        async def send(method: str, path: str, query: str, body: bytes) -> httpx.Response:
            sent.append(f"{method} {path}")
            status = statuses.pop(0) if statuses else 200
            if status == 429:
                return httpx.Response(429, headers={"retry-after": "30"}, content=b"{}")
            if status == 402:
                return httpx.Response(402, content=b'{"error": {"code": "insufficient_balance"}}')
            if status == 500:
                return httpx.Response(500, content=b"{}")
            if path == "v1/ask":
                accepted = {"chat_id": chat, "message_id": "m_1", "status": "working"}
                return httpx.Response(202, json={"data": accepted})
            reply = {"id": "m_1", "status": "completed", "role": "assistant", "text": "ok"}
            return httpx.Response(200, json={"data": reply})

        return sent, send

    sent, send = scripted([429, 200])
    answer = asyncio.run(lab_ask.ask(send, "Why?", [], None, poll=0, sleep=no_sleep))
    assert answer["text"] == "ok" and sent.count("POST v1/ask") == 2
    assert waits == [lab_ask.MAX_RETRY_AFTER]  # Retry-After 30 s, cut to the panel's cap

    sent, send = scripted([429] * 10)
    with pytest.raises(lab_ask.AskFailed) as refused:
        asyncio.run(lab_ask.ask(send, "Why?", [], None, poll=0, sleep=no_sleep))
    assert refused.value.status == 429 and refused.value.retry_after == "30"
    assert sent.count("POST v1/ask") == lab_ask.RATE_LIMIT_RETRIES + 1

    sent, send = scripted([402])
    with pytest.raises(lab_ask.AskFailed) as refused:
        asyncio.run(lab_ask.ask(send, "Why?", [], None, poll=0, sleep=no_sleep))
    assert refused.value.status == 402 and sent == ["POST v1/ask"]  # a refusal is final

    # A paid request whose outcome a 5xx leaves unknown is never sent again (the client's
    # rule, now the panel's too: one request flow); a free read is.
    sent, send = scripted([500])
    with pytest.raises(lab_ask.AskFailed) as refused:
        asyncio.run(lab_ask.ask(send, "Why?", [], None, poll=0, sleep=no_sleep))
    assert refused.value.status == 502 and sent == ["POST v1/ask"]
    assert "is unknown (HTTP 500); it was not retried" in refused.value.message
    assert "asking again starts another charged turn" in refused.value.message
    # A chat id from the service is one path segment, escaped, whatever it holds.
    sent, send = scripted([], chat="ch/../x?y")
    asyncio.run(lab_ask.ask(send, "Why?", [], None, poll=0, sleep=no_sleep))
    assert sent[1] == "GET v1/chats/ch%2F..%2Fx%3Fy/messages/m_1", sent
    sent, send = scripted([200, 500])
    answer = asyncio.run(lab_ask.ask(send, "Why?", [], None, poll=0, sleep=no_sleep))
    assert answer["text"] == "ok" and sent.count("GET v1/chats/ch_1/messages/m_1") == 2
