"""The local ledger of paid calls (``rdskit._ledger``) and ``reuse=True`` on the four paid
calls no list shows, against a scripted service (``httpx.MockTransport``): what is written
(hashes and ids only, 0600), what is read back instead of paying, and what is paid again.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mockapi import MockAPI, Reply, error, make_aclient, ok, page
from samples import (
    ACCEPTED,
    AGENT,
    DATASET_RUN,
    DETECTION,
    ME,
    PREVIEW,
    REPLY,
    TRACKING_RUN,
)

import rdskit
from rdskit import _ledger
from rdskit._ledger import Ledger, identity_digest, ledger_key, ledger_path
from rdskit.errors import BudgetExceeded, LedgerWarning

QUESTION = "Why do baristas complain about oat milk foam?"
ASK = ("POST", "/v1/ask")
REPLY_PATH = ("GET", "/v1/chats/ch_1/messages/msg_2")
DETECT = ("POST", "/v1/pattern_detections")
PREVIEWS = ("POST", "/v1/research_previews")
TRIGGER = ("POST", "/v1/tracking_agents/ta_1/trigger")


@pytest.fixture(autouse=True)
def ledger_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test writes its ledger under its own directory."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(directory))
    return directory


def conversation(api: MockAPI) -> Callable[[Any], Reply]:
    """``GET /v1/chats/ch_1/messages`` (newest first): each Ask answered so far, as its
    question's user row followed by the reply row the service named."""

    def rows(call: Any) -> Reply:
        items: list[dict[str, Any]] = []
        for n, sent in enumerate(api.sent(*ASK)):
            if not isinstance(sent.answer, dict):
                continue
            context = sent.json.get("context") or {}
            items.append({"id": f"msg_q{n}", "role": "user", "text": sent.json["message"],
                          "created_at": 0, "context": context})  # fmt: skip
            items.append({**REPLY, "id": sent.answer["data"]["message_id"]})
        return page(items[::-1])

    return rows


def scripted(api: MockAPI, me: dict[str, Any] | None = None) -> MockAPI:
    """A service that accepts Asks and answers the reply as completed."""
    return (
        api.on("GET", "/v1/me", ok(me or ME))
        .on(*ASK, ok(ACCEPTED, 202))
        .on(*REPLY_PATH, ok(REPLY))
        .on("GET", "/v1/chats/ch_1/messages/msg_9", ok({**REPLY, "id": "msg_9"}))
        .on("GET", "/v1/chats/ch_1/messages", conversation(api))
    )


@pytest.fixture
def asked(api: MockAPI, make_client: Callable[..., rdskit.Client]) -> rdskit.Client:
    """A client that has asked ``QUESTION`` once with ``reuse=True`` (turn ch_1/msg_2)."""
    scripted(api)
    client = make_client()
    client.ask(QUESTION, reuse=True)
    return client


def asks(api: MockAPI) -> int:
    return len(api.sent(*ASK))


# -- the file ----------------------------------------------------------------------------
def test_the_file_holds_hashes_and_ids_only(
    api: MockAPI, make_client: Callable[..., rdskit.Client], ledger_dir: Path
) -> None:
    client = make_client()
    scripted(api)
    turn = client.ask(QUESTION, dataset_ids=["ds_1"], reuse=True)
    assert (turn.chat_id, turn.message_id) == ("ch_1", "msg_2")
    path = ledger_path()
    assert path.parent == ledger_dir
    raw = path.read_bytes()
    assert QUESTION.encode() not in raw and b"baristas" not in raw
    assert client._core.api_key.reveal().encode() not in raw
    assert b"acc_1" not in raw and b"usr_1" not in raw and b"ds_1" not in raw
    entries = json.loads(raw)["entries"]
    # The new chat's question is filed twice: as asked, and as asked in that chat.
    assert len(entries) == 2
    for key, entry in entries.items():
        assert len(key) == 64 and int(key, 16) >= 0  # a SHA-256, hex
        assert entry["kind"] == "ask"
        assert entry["ids"] == {"chat_id": "ch_1", "message_id": "msg_2"}
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct(ledger_dir.stat().st_mode & 0o777) == "0o700"


def test_keys_are_per_identity_kind_and_canonical_request() -> None:
    me = identity_digest("acc_1", "usr_1", "2026-01-01T00:00:00+00:00")
    assert ledger_key(me, "ask", {"a": [1], "b": "x"}) == ledger_key(
        me, "ask", {"b": "x", "a": [1]}
    )
    others = {
        ledger_key(me, "ask", {"a": [1], "b": "y"}),
        ledger_key(me, "research_preview", {"a": [1], "b": "x"}),
        ledger_key(identity_digest("acc_2", "usr_1", None), "ask", {"a": [1], "b": "x"}),
        ledger_key(identity_digest("acc_1", "usr_2", None), "ask", {"a": [1], "b": "x"}),
    }
    assert ledger_key(me, "ask", {"a": [1], "b": "x"}) not in others and len(others) == 4


def test_a_corrupt_file_is_read_as_empty_with_a_warning(
    api: MockAPI, make_client: Callable[..., rdskit.Client], ledger_dir: Path
) -> None:
    ledger_dir.mkdir(mode=0o700)
    ledger_path().write_bytes(b'{"version": 1, "entries": {"abc": ')
    scripted(api)
    with pytest.warns(LedgerWarning, match="not valid JSON"):
        make_client().ask(QUESTION, reuse=True)
    assert asks(api) == 1  # paid: nothing could be found
    data = json.loads(ledger_path().read_bytes())  # rewritten whole
    assert len(data["entries"]) == 2
    for bad in (b"[1, 2]", b'{"entries": "x"}', b"\xff\xfe"):
        ledger_path().write_bytes(bad)
        with pytest.warns(LedgerWarning, match="ignored"):
            assert Ledger().lookup("0" * 64) is None


def test_entries_of_the_wrong_shape_are_skipped(ledger_dir: Path) -> None:
    ledger_dir.mkdir(mode=0o700)
    good = {"kind": "ask", "ids": {"chat_id": "ch_1"}, "at": 0}
    entries = {"a": good, "b": "x", "c": {"ids": [1]}}
    ledger_path().write_text(json.dumps({"version": 1, "entries": entries}))
    ledger = Ledger()
    assert ledger.lookup("a") == {"chat_id": "ch_1"}
    assert ledger.lookup("b") is None and ledger.lookup("c") is None


def test_a_symlinked_file_is_neither_read_nor_written_through(
    ledger_dir: Path, tmp_path: Path
) -> None:
    ledger_dir.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"entries": {"k": {"ids": {"run_id": "planted"}}}}))
    ledger_path().symlink_to(elsewhere)
    with pytest.warns(LedgerWarning, match="cannot be opened"):
        assert Ledger().lookup("k") is None
    with pytest.warns(LedgerWarning):  # the symlink is replaced, never followed
        Ledger().record(["k2"], "ask", {"chat_id": "ch_1"})
    assert "planted" in elsewhere.read_text() and "ch_1" not in elsewhere.read_text()
    assert not ledger_path().is_symlink()
    assert Ledger().lookup("k2") == {"chat_id": "ch_1"}


def test_an_unwritable_ledger_never_loses_the_paid_result(
    api: MockAPI, make_client: Callable[..., rdskit.Client], tmp_path: Path, monkeypatch: Any
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(blocker))
    scripted(api)
    with pytest.warns(LedgerWarning) as caught:
        turn = make_client().ask(QUESTION, reuse=True)
    assert turn.message_id == "msg_2" and asks(api) == 1
    said = [str(warning.message) for warning in caught]
    assert len(said) == 3 and "no in-flight marker" in said[0]  # the cache dir is a file
    assert "ignored" in said[1] and "may pay for this call again" in said[2]


def test_the_oldest_entries_are_dropped_past_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_ledger, "MAX_ENTRIES", 3)
    ledger = Ledger()
    for index in range(5):
        ledger.record([f"k{index}"], "ask", {"n": index})
    assert [ledger.lookup(f"k{index}") for index in range(5)] == [
        None,
        None,
        {"n": 2},
        {"n": 3},
        {"n": 4},
    ]
    ledger.record(["k2"], "ask", {"n": 22})  # re-recorded: the newest again
    ledger.record(["k5"], "ask", {"n": 5})
    assert ledger.lookup("k3") is None and ledger.lookup("k2") == {"n": 22}
    ledger.forget("k2")
    assert ledger.lookup("k2") is None and ledger.lookup("k5") == {"n": 5}


def test_two_processes_writing_at_once_keep_every_entry(ledger_dir: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from rdskit._ledger import Ledger
        ledger = Ledger()
        for index in range(60):
            ledger.record([f"{sys.argv[1]}-{index}"], "ask", {"n": index})
        """
    )
    env = {**os.environ, "RDSKIT_CACHE_DIR": str(ledger_dir)}
    writers = [
        subprocess.Popen([sys.executable, "-c", script, name], env=env) for name in ("a", "b")
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    entries = json.loads(ledger_path().read_bytes())["entries"]
    assert len(entries) == 120
    ledger = Ledger()
    assert all(ledger.lookup(f"{name}-{i}") == {"n": i} for name in "ab" for i in range(60))
    leftovers = [p.name for p in ledger_dir.iterdir() if p.name.endswith(".partial")]
    assert leftovers == []


# -- Ask ---------------------------------------------------------------------------------
def test_ask_reuse_pays_once_and_reads_the_reply_back(
    api: MockAPI, make_client: Callable[..., rdskit.Client]
) -> None:
    scripted(api)
    client = make_client()
    first = client.ask(QUESTION, dataset_ids=["ds_1", "ds_2"], reuse=True)
    assert first.status == "working" and asks(api) == 1
    again = client.ask(QUESTION, dataset_ids=["ds_2", "ds_1"], reuse=True)  # datasets: a set
    assert asks(api) == 1
    assert (again.chat_id, again.message_id, again.status) == ("ch_1", "msg_2", "completed")
    assert again.wait().text == REPLY["text"]  # waits like a fresh turn
    assert len(api.sent("GET", "/v1/me")) == 1  # the identity is read once per client
    # Another kernel (a new client of the same account) finds it too.
    make_client().ask(QUESTION, dataset_ids=["ds_1", "ds_2"], reuse=True)
    assert asks(api) == 1
    # Without reuse, or asking something else, pays.
    client.ask(QUESTION, dataset_ids=["ds_1", "ds_2"])
    client.ask(QUESTION + " ", dataset_ids=["ds_1", "ds_2"], reuse=True)
    client.ask(QUESTION, dataset_ids=["ds_1"], reuse=True)
    assert asks(api) == 4


def test_a_question_that_opened_a_chat_is_found_in_that_chat(
    api: MockAPI, asked: rdskit.Client
) -> None:
    client = asked
    # Re-running the notebook's first %%ask cell: the current chat is now ch_1.
    assert client.ask(QUESTION, chat_id="ch_1", reuse=True).message_id == "msg_2"
    assert asks(api) == 1
    # A follow-up keys on its chat: found again in ch_1, not in another chat.
    api.on(*ASK, ok({**ACCEPTED, "message_id": "msg_9"}, 202))
    assert client.ask("And why?", chat_id="ch_1", reuse=True).message_id == "msg_9"
    assert client.ask("And why?", chat_id="ch_1", reuse=True).message_id == "msg_9"
    assert asks(api) == 2
    client.ask("And why?", reuse=True)  # no chat: another question
    assert asks(api) == 3
    assert [call.json.get("chat_id") for call in api.sent(*ASK)] == [None, "ch_1", None]


@pytest.mark.parametrize(
    "reply",
    [ok({**REPLY, "status": "failed"}), error(404, "chat_not_found"), error(404, "not_found")],
    ids=["failed", "chat gone", "message gone"],
)
def test_a_failed_or_vanished_reply_is_asked_again(
    api: MockAPI, asked: rdskit.Client, reply: Reply
) -> None:
    client = asked
    api.on(*REPLY_PATH, reply)
    api.on(*ASK, ok({**ACCEPTED, "message_id": "msg_9"}, 202))
    if reply.status == 404:  # gone: a stale entry, dropped with one line
        with pytest.warns(LedgerWarning, match=r"\(ch_1, msg_2\) is stale: .*404"):
            assert client.ask(QUESTION, reuse=True).message_id == "msg_9"
    else:  # failed: asked again, quietly
        with no_ledger_warning():
            assert client.ask(QUESTION, reuse=True).message_id == "msg_9"
    assert asks(api) == 2
    # The new turn replaced the old entry.
    assert client.ask(QUESTION, reuse=True).message_id == "msg_9"
    assert asks(api) == 2


@pytest.mark.parametrize(
    "ids",
    [{}, {"chat_id": 5, "message_id": None}, {"chat_id": "ch_1", "message_id": "m\ud800"}],
    ids=["missing", "not strings", "unencodable"],
)
def test_an_entry_with_unusable_ids_is_paid_again(
    api: MockAPI, asked: rdskit.Client, ids: dict[str, Any]
) -> None:
    data = json.loads(ledger_path().read_bytes())
    for entry in data["entries"].values():
        entry["ids"] = ids
    ledger_path().write_text(json.dumps(data))
    with pytest.warns(LedgerWarning, match="is stale: its ids"):
        assert asked.ask(QUESTION, reuse=True).message_id == "msg_2"
    assert asks(api) == 2
    assert asked.ask(QUESTION, reuse=True).status == "completed"  # the entry is whole again
    assert asks(api) == 2


def test_a_reply_to_another_question_is_stale(api: MockAPI, asked: rdskit.Client) -> None:
    """The ids of the entry now name the reply to another question (a fresh service that
    repeats ids): the question row it answers is compared, so it is not handed back."""
    other = {"id": "msg_1", "role": "user", "text": "Something else?", "created_at": 0}
    api.on("GET", "/v1/chats/ch_1/messages", page([REPLY, other]))
    api.on(*ASK, ok({**ACCEPTED, "message_id": "msg_9"}, 202))
    with pytest.warns(LedgerWarning, match=r"\(ch_1, msg_2\) is stale: it answers another"):
        assert asked.ask(QUESTION, reuse=True).message_id == "msg_9"
    assert asks(api) == 2
    # The same question in other datasets is another question too.
    same = {**other, "text": QUESTION, "context": {"dataset_ids": ["ds_7"]}}
    api.on("GET", "/v1/chats/ch_1/messages", page([{**REPLY, "id": "msg_9"}, same]))
    with pytest.warns(LedgerWarning, match="it answers another question"):
        asked.ask(QUESTION, reuse=True)
    assert asks(api) == 3


@contextmanager
def no_ledger_warning() -> Iterator[None]:
    """Fail on any LedgerWarning raised inside."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", LedgerWarning)
        yield


def test_the_instance_header_keeps_two_services_apart(
    api: MockAPI, make_client: Callable[..., rdskit.Client]
) -> None:
    """A service naming its instance (a sandbox database) keys the ledger on it; one that
    names none keeps the keys it had (entries of the real service stay valid)."""
    from rdskit.models.account import INSTANCE_HEADER
    from rdskit.resources._reuse import account_identity

    scripted(api)
    plain = make_client()
    assert plain._run(account_identity(plain._core)) == identity_digest(
        "acc_1", "usr_1", "1970-01-01T00:00:00+00:00"
    )
    make_client().ask(QUESTION, reuse=True)
    for instance in ("db-one", "db-two", "db-one"):
        api.on("GET", "/v1/me", Reply(200, {"status": "success", "data": ME},
                                      {INSTANCE_HEADER: instance}))  # fmt: skip
        make_client().ask(QUESTION, reuse=True)
    assert asks(api) == 3  # one per instance, the third found again


def test_a_working_reply_is_returned_to_wait_on(api: MockAPI, asked: rdskit.Client) -> None:
    client = asked
    api.on(*REPLY_PATH, ok({**REPLY, "status": "working", "text": None}), ok(REPLY))
    again = client.ask(QUESTION, reuse=True)
    assert again.status == "working" and asks(api) == 1
    assert again.wait(poll_interval=0.01).status == "completed"


def test_another_account_or_a_fresh_sandbox_does_not_match(
    api: MockAPI, make_client: Callable[..., rdskit.Client]
) -> None:
    scripted(api)
    make_client().ask(QUESTION, reuse=True)
    for me in ({**ME, "account_id": "acc_2"}, {**ME, "id": "usr_2"}, {**ME, "created_at": 5}):
        api.on("GET", "/v1/me", ok(me))
        make_client().ask(QUESTION, reuse=True)
    assert asks(api) == 4


def test_reuse_needs_no_budget(api: MockAPI, make_client: Callable[..., rdskit.Client]) -> None:
    scripted(api)
    api.on("GET", "/v1/me/usage_history", page([]))
    make_client().ask(QUESTION, reuse=True)
    tight = make_client(budget_credits=0)
    with pytest.raises(BudgetExceeded):
        tight.ask("Something new?", reuse=True)
    assert tight.ask(QUESTION, reuse=True).status == "completed"
    assert tight.budget is not None and tight.budget.spent == 0
    assert asks(api) == 1


# -- pattern detections, previews, triggers ----------------------------------------------
def test_pattern_detection_reuse(api: MockAPI, make_client: Callable[..., rdskit.Client]) -> None:
    done = {**DETECTION, "status": {"type": "completed", "steps": []}, "pattern_id": "pt_1"}
    api.on("GET", "/v1/me", ok(ME)).on(*DETECT, ok(DETECTION))
    api.on("GET", "/v1/pattern_detections/pdr_1", ok(done))
    client = make_client()
    assert client.pattern_detections.create("ds_1", "why", "Why?", reuse=True).run_id == "pdr_1"
    again = client.pattern_detections.create("ds_1", "why", "Why?", reuse=True)
    assert again.pattern_id == "pt_1" and len(api.sent(*DETECT)) == 1
    client.pattern_detections.create("ds_1", "why", "Why not?", reuse=True)
    assert len(api.sent(*DETECT)) == 2
    # A run that says it is about something else (ids reused by a fresh service) is not it.
    api.on("GET", "/v1/pattern_detections/pdr_1", ok({**done, "research_question": "Other?"}))
    with pytest.warns(LedgerWarning, match="another detection .its research_question differs"):
        client.pattern_detections.create("ds_1", "why", "Why?", reuse=True)
    api.on("GET", "/v1/pattern_detections/pdr_1", ok({**done, "status": {"type": "failed"}}))
    with no_ledger_warning():
        client.pattern_detections.create("ds_1", "why", "Why?", reuse=True)
    api.on("GET", "/v1/pattern_detections/pdr_1", error(404, "pattern_detection_run_not_found"))
    with pytest.warns(LedgerWarning, match="stale: the service does not have it"):
        client.pattern_detections.create("ds_1", "why", "Why?", reuse=True)
    assert len(api.sent(*DETECT)) == 5


def test_research_preview_reuse(api: MockAPI, make_client: Callable[..., rdskit.Client]) -> None:
    api.on("GET", "/v1/me", ok(ME)).on(*PREVIEWS, ok(PREVIEW))
    api.on("GET", "/v1/research_previews/rp_1", ok(PREVIEW))
    client = make_client()
    options: dict[str, Any] = {"search_query": "oat milk", "time_filter": "past_week"}
    client.research_previews.create(sources=["reddit", "tiktok"], reuse=True, **options)
    again = client.research_previews.create(sources=["tiktok", "reddit"], reuse=True, **options)
    assert again.preview_id == "rp_1" and len(api.sent(*PREVIEWS)) == 1
    client.research_previews.create(sources=["reddit"], reuse=True, **options)
    client.research_previews.create("url", source_urls=["https://x.test/a"], reuse=True)
    assert len(api.sent(*PREVIEWS)) == 3
    # The ids now name a preview of other sources (a fresh service repeats ids).
    youtube = {**PREVIEW, "posts": [{"position": 1, "source": "youtube"}]}
    api.on("GET", "/v1/research_previews/rp_1", ok(youtube))
    with pytest.warns(LedgerWarning, match="posts of youtube, a source not asked for"):
        client.research_previews.create(sources=["tiktok", "reddit"], reuse=True, **options)
    assert len(api.sent(*PREVIEWS)) == 4


def test_tracking_trigger_reuse(api: MockAPI, make_client: Callable[..., rdskit.Client]) -> None:
    done_run = {**DATASET_RUN, "id": "dsr_1", "status": {"type": "completed"}}
    api.on("GET", "/v1/me", ok(ME)).on("GET", "/v1/tracking_agents/ta_1", ok(AGENT))
    api.on(*TRIGGER, ok(TRACKING_RUN))
    api.on("GET", "/v1/datasets/ds_1/runs", page([done_run]))
    api.on("GET", "/v1/datasets/ds_1/runs/dsr_1", ok(done_run))
    client = make_client()
    assert client.tracking_agents.trigger("ta_1", reuse=True).id == "tar_1"
    again = client.tracking_agents.trigger("ta_1", reuse=True)
    assert (again.id, again.status.type) == ("tar_1", "completed")
    assert len(api.sent(*TRIGGER)) == 1
    # The agent now collects more per cycle: another cycle.
    api.on("GET", "/v1/tracking_agents/ta_1", ok({**AGENT, "count": 20}))
    client.tracking_agents.trigger("ta_1", reuse=True)
    assert len(api.sent(*TRIGGER)) == 2
    # A failed cycle, or one whose dataset runs are gone, is triggered again.
    failed = {**done_run, "status": {"type": "failed"}}
    api.on("GET", "/v1/datasets/ds_1/runs/dsr_1", ok(failed))
    client.tracking_agents.trigger("ta_1", reuse=True)
    api.on("GET", "/v1/datasets/ds_1/runs", page([]))
    with pytest.warns(LedgerWarning, match="no longer name"):
        client.tracking_agents.trigger("ta_1", reuse=True)
    assert len(api.sent(*TRIGGER)) == 4
    # A hand-edited entry that no longer describes a run.
    data = json.loads(ledger_path().read_bytes())
    for entry in data["entries"].values():
        entry["ids"]["dataset_run_ids"] = 7
    ledger_path().write_text(json.dumps(data))
    with pytest.warns(LedgerWarning, match="its ids are not usable"):
        client.tracking_agents.trigger("ta_1", reuse=True)
    assert len(api.sent(*TRIGGER)) == 5
    raw = ledger_path().read_bytes()
    assert b"Complaints" not in raw  # the agent's instructions are not kept


def test_reuse_on_the_async_client(api: MockAPI, make_client: Callable[..., rdskit.Client]) -> None:
    scripted(api).on(*DETECT, ok(DETECTION)).on(
        "GET", "/v1/pattern_detections/pdr_1", ok(DETECTION)
    )
    make_client().ask(QUESTION, reuse=True)

    async def main() -> None:
        client = make_aclient(api)
        try:
            turn = await client.ask(QUESTION, reuse=True)
            assert turn.status == "completed"
            run = await client.pattern_detections.create("ds_1", "why", "Why?", reuse=True)
            again = await client.pattern_detections.create("ds_1", "why", "Why?", reuse=True)
            assert run.run_id == again.run_id == "pdr_1"
        finally:
            await client.close()

    asyncio.run(main())
    assert asks(api) == 1 and len(api.sent(*DETECT)) == 1


def test_bad_input_is_refused_before_the_ledger_is_read(
    api: MockAPI, make_client: Callable[..., rdskit.Client]
) -> None:
    client = make_client()
    with pytest.raises(rdskit.errors.InvalidParameter) as raised:
        client.ask("oat \ud800", reuse=True)
    assert raised.value.field == "message"
    with pytest.raises(rdskit.errors.InvalidParameter):
        client.research_previews.create(search_query="x", sources=[], reuse=True)
    assert api.calls == [] and not ledger_path().exists()
