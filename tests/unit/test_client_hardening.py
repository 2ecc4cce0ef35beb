"""A forward-compatible client that fails cleanly (issue 12, client side).

Unknown union tags are kept, unencodable arguments are refused before anything is sent,
the key is in no traceback local, repr never raises, unreadable 2xx bodies are typed
errors, ``wait()`` ends on its own, and the ``Retry-After`` header wins.
"""

from __future__ import annotations

import asyncio
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import samples as s
from mockapi import BASE_URL, MockAPI, Reply, make_aclient, make_key, ok, page

import rdskit
from rdskit.errors import InvalidParameter, UnexpectedResponse, UnknownStatus, WaitTimeout
from rdskit.models import DatasetRun, UnknownSearchQuery


# -- unknown variants are kept ---------------------------------------------------------------
def _run_with_query(run_id: str, query: dict[str, Any]) -> dict[str, Any]:
    return {**s.DATASET_RUN, "id": run_id, "params": {"count": 5, "search_query": query}}


def test_an_unknown_search_query_type_is_kept_and_lists_still_load(
    api: MockAPI, client: rdskit.Client
) -> None:
    hashtag = {"type": "hashtag", "hashtag": "oatmilk", "sources": ["tiktok"]}
    runs = [_run_with_query("dsr_1", s.PROMPT_QUERY), _run_with_query("dsr_2", hashtag)]
    api.on("GET", "/v1/datasets/ds_1/runs", page(runs))
    api.on("GET", "/v1/datasets/ds_1/runs/dsr_2", ok(runs[1]))
    listed = list(client.datasets.runs.list("ds_1"))
    assert [run.id for run in listed] == ["dsr_1", "dsr_2"]
    assert listed[0].params.search_query.type == "prompt"
    unknown = client.datasets.runs.get("ds_1", "dsr_2").params.search_query
    assert isinstance(unknown, UnknownSearchQuery)
    assert unknown.to_wire() == hashtag  # nothing lost, written back as sent


UNKNOWN_REFS = [
    {"type": "comment", "source": "reddit", "post_id": "t3_a", "comment_id": "c9"},
    {"type": "url", "url": "https://x.example"},
    {"kind": "no type at all"},
]


def test_unknown_reference_types_are_kept_in_pattern_items_answers_and_alerts(
    api: MockAPI, client: rdskit.Client
) -> None:
    item = {**s.PATTERN_ITEM, "posts": [*s.PATTERN_ITEM["posts"], *UNKNOWN_REFS[:2]]}
    api.on("GET", "/v1/patterns/pt_1/items/pti_1", ok(item))
    reply = {**s.REPLY, "references": [*s.REPLY["references"], *UNKNOWN_REFS]}
    api.on("GET", "/v1/chats/ch_1/messages/msg_2", ok(reply))
    alert = {**s.ALERT, "references": [*s.ALERT["references"], *UNKNOWN_REFS]}
    api.on("GET", "/v1/tracking_agents/ta_1/messages", page([alert]))

    posts = client.patterns.item("pt_1", "pti_1").posts
    assert [type(p).__name__ for p in posts] == ["PostPointer", *["UnknownReference"] * 2]
    assert [p.to_wire() for p in posts[1:]] == UNKNOWN_REFS[:2]  # kept as sent
    for refs in (
        client.chats.message("ch_1", "msg_2").references,
        next(iter(client.tracking_agents.messages("ta_1"))).references,
    ):
        assert refs is not None
        assert [type(r).__name__ for r in refs] == ["PostReference", *["UnknownReference"] * 3]
        assert [r.to_wire() for r in refs[1:]] == UNKNOWN_REFS


def test_a_request_still_refuses_an_unknown_search_query_type(
    api: MockAPI, client: rdskit.Client
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        client.datasets.runs.create("ds_1", search_query={"type": "hashtag", "x": 1}, count=5)
    assert caught.value.field.startswith("search_query")
    assert api.calls == []


# -- arguments that cannot be encoded --------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.datasets.create("oat\ud800milk"), "name"),
        (lambda c: c.datasets.get("ds_\udc80"), "id"),
        (lambda c: c.mentions.list(dataset_ids=["ds_1"], q="x\ud800y"), "q"),
        (lambda c: c.mentions.list(dataset_ids=["ds_1", "\ud83d"]), "dataset_ids.1"),
    ],
    ids=["body", "path", "query-text", "nested-list"],
)
def test_unencodable_arguments_are_refused_before_sending(
    api: MockAPI, client: rdskit.Client, call: Callable[[rdskit.Client], Any], field: str
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        call(client)
    assert caught.value.field == field
    assert "cannot be encoded as UTF-8" in str(caught.value)
    assert api.calls == []


def test_non_finite_numbers_and_objects_without_json_form_are_refused() -> None:
    # Models write NaN as null; a raw request body must not carry one either.
    from rdskit._base_client import APIRequest

    with pytest.raises(InvalidParameter, match="finite") as caught:
        APIRequest("POST", "/v1/mentions", json={"filters": [[{"value": float("inf")}]]})
    assert caught.value.field == "filters.0.0.value"
    with pytest.raises(InvalidParameter, match="no JSON form"):
        APIRequest("GET", "/v1/datasets", params={"limit": object()})


# -- the key is in no traceback ----------------------------------------------------------------
def _rendered_tracebacks(exc: BaseException) -> str:
    """What tracebacks with locals (pytest --showlocals, Sentry-style) would print."""
    with_locals = "".join(
        traceback.TracebackException.from_exception(exc, capture_locals=True).format()
    )
    return with_locals + "".join(traceback.format_exception(exc))


def _failure(action: Callable[[], Any]) -> BaseException:
    """The exception ``action`` raises, caught here: its traceback holds only this frame
    and rdskit's (the test's own ``key`` variable is not in it)."""
    try:
        action()
    except Exception as exc:  # every failure is inspected the same way
        return exc
    pytest.fail("the call should have failed")


@pytest.mark.parametrize("where", ["transport", "handler", "unencodable", "async"])
def test_the_key_appears_in_no_traceback_local(where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    key = make_key()
    monkeypatch.setenv("RDSKIT_API_KEY", key)  # so no rdskit frame receives it as argument
    sent: list[bool] = []  # whether the key went out (never the key: this frame is shown)

    def boom(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers["x-api-key"] == os.environ["RDSKIT_API_KEY"])
        if where in ("transport", "async"):
            raise httpx.ConnectError("refused", request=request)
        raise RuntimeError("the handler fails while the request is in flight")

    if where == "async":

        async def handler(request: httpx.Request) -> httpx.Response:
            return boom(request)

        async def main() -> None:
            aclient = rdskit.AsyncClient(
                base_url=BASE_URL,
                transport=httpx.MockTransport(handler),
                rate_limit=None,
                max_retries=0,
            )
            await aclient.datasets.create("oat")

        exc = _failure(lambda: asyncio.run(main()))
    else:
        client = rdskit.Client(
            base_url=BASE_URL,
            transport=httpx.MockTransport(boom),
            rate_limit=None,
            max_retries=0,
        )
        name = "bad\ud800name" if where == "unencodable" else "oat"
        exc = _failure(lambda: client.datasets.create(name))
        client.close()
    rendered = _rendered_tracebacks(exc)
    assert "rdskit" in rendered  # rdskit's frames, with their locals, are in it...
    assert key not in rendered and key[8:] not in rendered  # ...and the key in none
    assert sent == ([] if where == "unencodable" else [True])  # yet it was sent


def test_a_key_that_no_header_can_carry_is_refused_without_echoing_it() -> None:
    bad = "bz_test_caf\u00e9" + "0" * 28
    with pytest.raises(rdskit.ConfigurationError) as caught:
        rdskit.Client(bad, base_url=BASE_URL)
    assert bad not in str(caught.value) and "non-ASCII" in str(caught.value)


# -- repr never raises ---------------------------------------------------------------------------
def test_repr_of_a_half_built_client_does_not_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RDSKIT_API_KEY", raising=False)
    monkeypatch.delenv("RDSKIT_BASE_URL", raising=False)
    half = rdskit.Client.__new__(rdskit.Client)
    assert repr(half) == "Client(<not configured>)"
    with pytest.raises(rdskit.ConfigurationError):
        half.__init__(base_url=BASE_URL)  # type: ignore[misc]
    assert repr(half) == "Client(<not configured>)"


def test_sandbox_account_repr_hides_the_key() -> None:
    from rdskit.sandbox.store.accounts import NewAccount

    key = make_key()
    shown = repr(NewAccount("acc_1", "seat_1", key))
    assert key not in shown and key[8:] not in shown and "acc_1" in shown


# -- unreadable success bodies -------------------------------------------------------------------
@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, {"status": "success", "data": None}),
        Reply(200, {"status": "success"}),
        Reply(200, b"<html>maintenance</html>", {"content-type": "text/html"}),
        Reply(200, {"status": "success", "data": {"name": "no id"}}),
        Reply(200, None),
    ],
    ids=["data-null", "no-data", "html", "wrong-shape", "empty"],
)
def test_an_unreadable_success_is_a_typed_error(
    api: MockAPI, client: rdskit.Client, reply: Reply
) -> None:
    api.on("GET", "/v1/datasets/ds_1", reply)
    with pytest.raises(UnexpectedResponse) as caught:
        client.datasets.get("ds_1")
    assert caught.value.status_code == 200
    assert caught.value.path == "/v1/datasets/ds_1"


def test_a_list_whose_data_is_not_a_list_is_a_typed_error(
    api: MockAPI, client: rdskit.Client
) -> None:
    api.on("GET", "/v1/datasets", Reply(200, {"status": "success", "data": None}))
    with pytest.raises(UnexpectedResponse):
        client.datasets.list()


def test_a_delete_without_data_still_succeeds(api: MockAPI, client: rdskit.Client) -> None:
    api.on("DELETE", "/v1/datasets/ds_1", Reply(200, {"status": "success", "data": None}))
    assert client.datasets.delete("ds_1") is None


# -- wait() ends ----------------------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _ticking(client: rdskit.Client) -> Clock:
    clock = Clock()
    client._core.clock = clock

    def sleep(seconds: float) -> None:
        client.slept.append(seconds)
        clock.now += seconds

    client._sleep = sleep
    return clock


def test_wait_gives_up_on_a_status_it_does_not_know(api: MockAPI, client: rdskit.Client) -> None:
    _ticking(client)
    cancelled = {**s.DATASET_RUN, "status": {"type": "cancelled"}}
    api.on("GET", "/v1/datasets/ds_1/runs/dsr_1", ok(cancelled))
    run = DatasetRun.model_validate(s.DATASET_RUN)
    with pytest.raises(UnknownStatus) as caught:
        client.wait(run, timeout=None)
    assert "'cancelled'" in str(caught.value) and "does not know" in str(caught.value)
    assert caught.value.obj.status.type == "cancelled"
    assert isinstance(caught.value, WaitTimeout)


def test_an_unknown_status_that_moves_on_is_followed(api: MockAPI, client: rdskit.Client) -> None:
    _ticking(client)
    queued = {**s.DATASET_RUN, "status": {"type": "queued"}}
    done = {**s.DATASET_RUN, "status": {"type": "completed"}}
    api.on("GET", "/v1/datasets/ds_1/runs/dsr_1", ok(queued), ok(queued), ok(done))
    final = client.wait(DatasetRun.model_validate(s.DATASET_RUN))
    assert final.status.type == "completed"


def test_wait_has_a_default_timeout(api: MockAPI, client: rdskit.Client) -> None:
    clock = _ticking(client)
    api.on(
        "GET", "/v1/datasets/ds_1/runs/dsr_1", ok({**s.DATASET_RUN, "status": {"type": "working"}})
    )
    with pytest.raises(WaitTimeout) as caught:
        client.wait(DatasetRun.model_validate(s.DATASET_RUN))
    assert not isinstance(caught.value, UnknownStatus)
    assert clock.now == pytest.approx(3600.0)


@pytest.mark.parametrize("timeout", [0, -1, float("nan")])
def test_wait_refuses_a_timeout_that_is_not_positive(client: rdskit.Client, timeout: float) -> None:
    with pytest.raises(InvalidParameter, match="timeout"):
        client.wait(DatasetRun.model_validate(s.DATASET_RUN), timeout=timeout)


# -- Retry-After ----------------------------------------------------------------------------------
def test_the_retry_after_header_wins_over_the_body(api: MockAPI, client: rdskit.Client) -> None:
    limited = Reply(
        429,
        {
            "status": "info",
            "error_code": "too_many_requests",
            "detail": "slow",
            "transient": True,
            "retry_after_seconds": 0.2,
        },
        {"retry-after": "3"},
    )
    api.on("GET", "/v1/me", limited, ok(s.ME))
    client.me()
    assert client.slept == [3.0]


# -- the async client is hardened alike ----------------------------------------------------------
def test_async_client_refuses_unencodable_arguments_and_unreadable_bodies(api: MockAPI) -> None:
    async def main() -> None:
        async with make_aclient(api) as aclient:
            with pytest.raises(InvalidParameter):
                await aclient.datasets.create("x\udfffy")
            api.on("GET", "/v1/me", Reply(200, b"not json", {"content-type": "text/plain"}))
            with pytest.raises(UnexpectedResponse):
                await aclient.me()

    asyncio.run(main())
    assert [c.path for c in api.calls] == ["/v1/me"]


def test_the_process_never_imported_the_jupyter_layer_for_these_waits() -> None:
    # A script's wait() shows nothing and must not load the display layer (issue 14).
    assert "rdskit.jupyter.progress" not in sys.modules or "IPython" in sys.modules
