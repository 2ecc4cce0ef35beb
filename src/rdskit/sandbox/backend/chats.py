"""Chats backend: Ask turns, chats and their messages, the reply job (state, SQL, rules).

``POST /v1/ask`` answers 202 ``{chat_id, message_id, status: working}`` at once
(:func:`submit_ask`); the worker writes the reply later (job ``ask.reply``, after a
simulated think time), charges the inference tokens as an ``ai_assistant`` usage row and
names the chat once it has two turns (from the first question, see
:func:`assistant.chat_name`). The reply is read with
``GET /v1/chats/{chat_id}/messages/{message_id}``: the assistant row has ``status``
``working`` then ``completed`` with markdown ``text`` and ``references[]``.

- Follow-ups: the reply reads the chat's earlier user turns, so "and on tiktok only?"
  keeps the previous dataset, question and narrowing (:mod:`rdskit.sandbox.assistant`).
- Tracking dialogue: creating a tracking agent opens a chat named after it
  (:func:`open_chat`, with ``tracking_agent_id`` set, owned by the creating seat). Each
  alert of the agent is also posted there as an assistant row (:func:`post_alert`) and the
  alert message carries its ``chat_id`` (a sandbox extension). Ask with that ``chat_id``
  continues the dialogue: the agent's datasets are the default scope and "these
  posts"/"what's new" mean the posts of its latest cycle.
- Chats are created implicitly (by Ask, or as a tracking agent's dialogue) and are
  private to the seat that created them: another seat of the account (the owner
  included) gets 404 ``chat_not_found``.
- A chat's messages list newest first by default (``order=desc``, as the spec's parameter
  listing shows); ``order=asc`` reads the conversation in order.
- An Ask with an already-spent balance (available <= 0 USD) is 402
  ``insufficient_credits_ask``: no turn, no charge. The admin switch
  (``PUT /sandbox/accounts/{id}/assistant``) makes Ask fail with
  ``ai_assistant_unavailable`` (503) or ``ai_assistant_timeout`` (504), both transient.
- Billing: tokens of question + context + answer (:func:`assistant.count_tokens`) times
  :data:`assistant.ASSISTANT_USD_PER_TOKEN`, booked after the reply.

Called by the REST routes (:mod:`rdskit.sandbox.api.chats`), the MCP tools (Ask, the reply
as blocks, render blocks, the synchronous :func:`answer_now`) and tracking (the dialogue
chat); no HTTP here. The tables are :data:`SCHEMA` (listed in
:mod:`rdskit.sandbox.backend.tables`), the reply job :data:`JOBS` (listed in
:mod:`rdskit.sandbox.registry`).

Example:
    >>> from rdskit.models.chats import AskRequest
    >>> from rdskit.sandbox.store.accounts import bootstrap
    >>> from rdskit.sandbox.backend.tables import open_store
    >>> from rdskit.sandbox.settings import Settings
    >>> store = open_store()
    >>> with store.transaction() as conn:
    ...     account_id = bootstrap(conn)
    ...     seat_id = conn.execute("SELECT id FROM seats WHERE account_id = ?",
    ...                            (account_id,)).fetchone()[0]
    >>> turn = submit_ask(store, Settings(), account_id, seat_id, AskRequest(message="Hi"))
    >>> turn["status"], get_message(store, account_id, seat_id, turn["chat_id"],
    ...                             turn["message_id"])["status"]
    ('working', 'working')
    >>> store.close()
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from rdskit.models.chats import AskAccepted, AskRequest, Chat, ChatMessage
from rdskit.sandbox import assistant
from rdskit.sandbox.assistant.posts import cite
from rdskit.sandbox.backend import ask_cache
from rdskit.sandbox.backend.admin import AssistantFailure
from rdskit.sandbox.errors import ApiError, FieldError
from rdskit.sandbox.runtime import chaos
from rdskit.sandbox.runtime.worker import Job, JobKind, WorkerStopped, schedule
from rdskit.sandbox.settings import Settings
from rdskit.sandbox.store import wallet
from rdskit.sandbox.store.cursors import ListParams, Sort, child_page
from rdskit.sandbox.store.db import Connection, Store, dumps, loads, new_id, row_or_404

__all__ = [
    "JOBS",
    "NAME_AFTER_TURNS",
    "SCHEMA",
    "THINK_SECONDS",
    "answer_now",
    "chaos_reply",
    "chat_or_404",
    "chat_wire",
    "check_assistant",
    "compose_reply",
    "get_chat",
    "get_message",
    "list_messages",
    "message_row",
    "message_wire",
    "open_chat",
    "own_message",
    "post_alert",
    "render_block",
    "reply_blocks",
    "submit_ask",
]

SCHEMA = """
-- Chats are private to the seat that created them (seat_id is never returned).
CREATE TABLE IF NOT EXISTS chats (
    id                TEXT PRIMARY KEY,        -- ch_
    account_id        TEXT NOT NULL REFERENCES accounts(id),
    seat_id           TEXT NOT NULL,           -- creating seat; no FK, a chat outlives its seat
    name              TEXT,                    -- set by the assistant after two turns
    tracking_agent_id TEXT,                    -- set for a tracking agent's dialogue
    created_at        REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS chats_seat ON chats(account_id, seat_id, created_at);

CREATE TABLE IF NOT EXISTS chat_messages (
    id          TEXT PRIMARY KEY,              -- msg_
    chat_id     TEXT NOT NULL REFERENCES chats(id),
    seq         INTEGER NOT NULL,              -- position in the chat: 1, 2, ...
    role        TEXT NOT NULL,                 -- user | assistant
    text        TEXT,                          -- NULL while the assistant is working
    context     TEXT,                          -- JSON, user rows
    refs        TEXT,                          -- JSON references[], assistant rows
    blocks      TEXT,                          -- JSON render blocks (MCP), assistant rows
    status      TEXT NOT NULL,                 -- completed | working | failed
    stop_reason TEXT,                          -- NULL while working, then end_turn | error
    reply_to    TEXT,                          -- the user row an assistant row answers
    tokens      INTEGER,                       -- inference tokens charged
    created_at  REAL NOT NULL,
    UNIQUE (chat_id, seq)
);
"""


THINK_SECONDS = 3.0
"""Simulated time the assistant takes to answer (divided by --speed)."""

NAME_AFTER_TURNS = 2
"""The assistant names a chat once it has this many user turns (from the first question)."""

_REPLY_JOB = "ask.reply"
_BY_POSITION = Sort("created_at", "seq", "id")  # seq is creation order, unique per chat
_FAILURES: dict[AssistantFailure, int] = {
    "ai_assistant_unavailable": 503,
    "ai_assistant_timeout": 504,
}


# -- chats and turns (REST and MCP) ---------------------------------------------------
def open_chat(
    conn: Connection,
    account_id: str,
    seat_id: str,
    *,
    tracking_agent_id: str | None = None,
    name: str | None = None,
) -> str:
    """Create a chat owned by ``seat_id`` and return its ``ch_`` id.

    Ask calls it for a new conversation; a tracking agent's dialogue passes its id and name.
    """
    chat_id = new_id(conn, "ch")
    conn.execute(
        "INSERT INTO chats (id, account_id, seat_id, name, tracking_agent_id, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (chat_id, account_id, seat_id, name, tracking_agent_id, conn.store.clock.now()),
    )
    return chat_id


def post_alert(conn: Connection, agent_id: str, alert: Mapping[str, Any]) -> str | None:
    """Post a tracking alert (``text`` and ``references``) into the agent's dialogue chat as
    an assistant row, so the creating seat can answer it with Ask; returns the chat id
    (``None`` for an agent without a dialogue chat)."""
    chat = conn.execute(
        "SELECT id FROM chats WHERE tracking_agent_id = ? ORDER BY created_at, id LIMIT 1",
        (agent_id,),
    ).fetchone()
    if chat is None:
        return None
    (last,) = conn.execute(
        "SELECT COALESCE(MAX(seq), 0) FROM chat_messages WHERE chat_id = ?", (chat["id"],)
    ).fetchone()
    blocks = [{"block_id": "b1", "type": "markdown", "render": False}]
    conn.execute(
        "INSERT INTO chat_messages (id, chat_id, seq, role, text, refs, blocks, status,"
        " stop_reason, tokens, created_at)"
        " VALUES (?, ?, ?, 'assistant', ?, ?, ?, 'completed', 'end_turn', 0, ?)",
        (
            new_id(conn, "msg"),
            chat["id"],
            last + 1,
            alert["text"],
            dumps(alert["references"]),
            dumps(blocks),
            conn.store.clock.now(),
        ),
    )
    return str(chat["id"])


def chat_or_404(
    conn: sqlite3.Connection, account_id: str, seat_id: str, chat_id: str
) -> sqlite3.Row:
    """The seat's own chat, or 404 ``chat_not_found`` (absent, or another seat's)."""
    return row_or_404(
        conn,
        "chats",
        "chat_not_found",
        f"Chat {chat_id} not found",
        id=chat_id,
        account_id=account_id,
        seat_id=seat_id,
    )


def check_assistant(
    conn: sqlite3.Connection, account_id: str, settings: Settings, question: str
) -> None:
    """Refuse a turn the assistant cannot take: the admin failure switch, a spent balance."""
    (failure,) = conn.execute(
        "SELECT assistant_failure FROM accounts WHERE id = ?", (account_id,)
    ).fetchone()
    if failure in _FAILURES:
        message = "The assistant is not answering right now; try again shortly."
        raise ApiError(_FAILURES[failure], failure, message, transient=True)
    available = wallet.balance(conn, account_id).available
    if available <= 0:
        estimate = assistant.inference_cost(assistant.count_tokens(question))
        current = wallet.terms(conn, account_id)
        raise wallet.insufficient(
            current, "insufficient_credits_ask", estimate, available, settings.top_up_url
        )


def submit_ask(
    store: Store, settings: Settings, account_id: str, seat_id: str, request: AskRequest
) -> dict[str, Any]:
    """Accept one Ask turn: write the user row and a working assistant row, queue the reply.

    Returns the AskAccepted wire dict; raises the spec's errors (see the module docstring).
    """
    context = request.context.to_wire() if request.context is not None else {}
    with store.transaction() as conn:
        check_assistant(conn, account_id, settings, request.message)
        if request.chat_id is not None:
            chat_id = chat_or_404(conn, account_id, seat_id, request.chat_id)["id"]
        else:
            chat_id = open_chat(conn, account_id, seat_id)
        (last,) = conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM chat_messages WHERE chat_id = ?", (chat_id,)
        ).fetchone()
        now = conn.store.clock.now()
        question_id, reply_id = new_id(conn, "msg"), new_id(conn, "msg")
        conn.executemany(
            "INSERT INTO chat_messages (id, chat_id, seq, role, text, context, status, reply_to,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    question_id,
                    chat_id,
                    last + 1,
                    "user",
                    request.message,
                    dumps(context),
                    "completed",
                    None,
                    now,
                ),
                (reply_id, chat_id, last + 2, "assistant", None, None, "working", question_id, now),
            ],
        )
        schedule(
            conn,
            _REPLY_JOB,
            reply_id,
            delay=conn.store.clock.scaled(THINK_SECONDS),
            account_id=account_id,
        )
    accepted = {"chat_id": chat_id, "message_id": reply_id, "status": "working"}
    return AskAccepted.model_validate(accepted).to_wire()


def answer_now(
    store: Store,
    settings: Settings,
    account_id: str,
    question: str,
    dataset_ids: Sequence[str] | None,
) -> dict[str, Any]:
    """Answer synchronously, without a chat (the MCP query tool), and charge the tokens.

    ``question`` meets an Ask message's rules (not blank): a 422 naming ``question``.
    """
    try:
        AskRequest.model_validate({"message": question})
    except ValidationError as exc:
        raise FieldError([{**e, "loc": ("question",)} for e in exc.errors()]) from exc
    context = {"dataset_ids": list(dataset_ids)} if dataset_ids else {}
    with store.read() as conn:
        check_assistant(conn, account_id, settings, question)
        reply = compose_reply(conn, account_id, question, context)
    tokens = assistant.count_tokens(question, dumps(context), reply.text)
    if reply.intent != "refuse":  # a refusal does no data work: nothing is charged
        with store.transaction() as conn:
            wallet.charge(conn, account_id, "ai_assistant", assistant.inference_cost(tokens))
    return {"text": reply.text, "references": reply.references, "blocks": reply.blocks}


def compose_reply(
    conn: Connection,
    account_id: str,
    question: str,
    context: Mapping[str, Any],
    history: Sequence[assistant.Turn] = (),
    tracking_agent_id: str | None = None,
) -> assistant.Reply:
    """The database adapter of the answer engine: pick the datasets, load their posts and
    linked work, then answer.

    Datasets follow :func:`assistant.pick_datasets` over ``history`` plus this turn; in a
    tracking agent's dialogue chat they default to the agent's datasets, and "these posts"
    are the posts its latest cycle collected.
    """
    datasets = _datasets(conn, account_id)
    default = None
    earlier_posts: list[tuple[str, str]] = []
    if tracking_agent_id is not None:
        default, earlier_posts = _agent_scope(conn, tracking_agent_id)
    turn = assistant.Turn(question, context.get("dataset_ids"), context.get("post_refs") or ())
    scope, unknown = assistant.pick_datasets([*history, turn], datasets, default)
    table = ask_cache.scope_table(conn, account_id, [item.id for item in scope])
    reply = assistant.answer(
        question,
        table.posts,
        scope,
        table=table,
        post_refs=turn.post_refs,
        history=history,
        earlier_posts=earlier_posts,
        related=_related(conn, account_id, [item.id for item in scope]),
        unknown_dataset_ids=unknown,
        today=conn.store.clock.today(),
    )
    if unknown and not scope and not reply.posts and not reply.references:
        # Only datasets the account cannot see were named: nothing of its data was read,
        # so, like a refusal, the reply is not charged (and reveals nothing either way).
        reply = dataclasses.replace(reply, intent="refuse")
    return reply


def _datasets(conn: sqlite3.Connection, account_id: str) -> list[assistant.Scope]:
    """The account's live datasets, oldest first, with the texts their runs searched."""
    searches: dict[str, list[str]] = {}
    for row in conn.execute(
        "SELECT r.dataset_id, r.params FROM dataset_runs r WHERE r.account_id = ?"
        " ORDER BY r.created_at, r.id",
        (account_id,),
    ):
        text = (loads(row["params"]).get("search_query") or {}).get("search_query")
        if text:
            searches.setdefault(row["dataset_id"], []).append(text)
    return [
        assistant.Scope(row["id"], row["name"], tuple(dict.fromkeys(searches.get(row["id"], []))))
        for row in conn.execute(
            "SELECT id, name FROM datasets WHERE account_id = ? AND deleted_at IS NULL"
            " ORDER BY created_at, id",
            (account_id,),
        )
    ]


def _agent_scope(
    conn: sqlite3.Connection, agent_id: str
) -> tuple[list[str], list[tuple[str, str]]]:
    """A tracking agent's datasets and the posts its latest completed cycle collected."""
    agent = conn.execute(
        "SELECT dataset_ids FROM tracking_agents WHERE id = ?", (agent_id,)
    ).fetchone()
    cycle = conn.execute(
        "SELECT dataset_run_ids FROM tracking_runs WHERE agent_id = ? AND status = 'completed'"
        " ORDER BY created_at DESC, id DESC LIMIT 1",
        (agent_id,),
    ).fetchone()
    dataset_ids = loads(agent["dataset_ids"]) if agent is not None else []
    run_ids = loads(cycle["dataset_run_ids"]) if cycle is not None else []
    marks = ", ".join("?" * len(run_ids)) or "NULL"
    posts = conn.execute(
        f"SELECT DISTINCT source, id FROM dataset_mentions WHERE run_id IN ({marks})"
        " ORDER BY source, id",
        run_ids,
    ).fetchall()
    return dataset_ids, [(row["source"], row["id"]) for row in posts]


def _related(
    conn: sqlite3.Connection, account_id: str, dataset_ids: Sequence[str]
) -> list[assistant.Related]:
    """Work done on the scope's datasets (and the account's latest previews), which an
    answer cites when the question is about patterns, parameters, audiences or previews."""
    marks = ", ".join("?" * len(dataset_ids)) or "NULL"
    found: list[assistant.Related] = []
    for row in conn.execute(
        "SELECT r.id, r.name, r.research_question, r.status, r.pattern_id, p.summary"
        " FROM pattern_detection_runs r LEFT JOIN patterns p ON p.id = r.pattern_id"
        f" WHERE r.account_id = ? AND r.dataset_id IN ({marks}) ORDER BY r.created_at, r.id",
        (account_id, *dataset_ids),
    ):
        label = f"Pattern detection “{row['name']}” ({row['status']})"
        question = (f"Research question: {row['research_question']}",)
        found.append(
            assistant.Related("pattern_detection_run", row["id"], label, "patterns", question)
        )
        if row["pattern_id"]:
            pattern = f"Pattern “{row['name']}”: {row['summary']}"
            items = _pattern_items(conn, row["pattern_id"])
            found.append(
                assistant.Related("pattern", row["pattern_id"], pattern, "patterns", items)
            )
    for row in conn.execute(
        "SELECT r.id, r.parameter_id, r.status, r.mentions_done, r.mentions_total, p.name"
        " FROM custom_parameter_runs r JOIN custom_parameters p ON p.id = r.parameter_id"
        f" WHERE r.account_id = ? AND r.scope_id IN ({marks}) ORDER BY r.created_at, r.id",
        (account_id, *dataset_ids),
    ):
        label = (
            f"Custom parameter “{row['name']}” run ({row['status']},"
            f" {row['mentions_done']}/{row['mentions_total']} posts)"
        )
        values = tuple(
            f"{_value(value)}: {count} posts"
            for value, count in conn.execute(
                "SELECT v.value, COUNT(*) FROM mention_parameters v JOIN custom_parameter_run_posts"
                " rp ON rp.source = v.source AND rp.mention_id = v.mention_id"
                " WHERE rp.run_id = ? AND v.account_id = ? AND v.parameter_id = ?"
                " AND v.status = 'completed' GROUP BY v.value ORDER BY COUNT(*) DESC, v.value"
                " LIMIT 5",
                (row["id"], account_id, row["parameter_id"]),
            )
        )
        found.append(
            assistant.Related("custom_parameter_run", row["id"], label, "parameters", values)
        )
    for row in conn.execute(
        "SELECT DISTINCT a.id, a.name FROM audience_datasets a"
        " JOIN audience_runs r ON r.audience_dataset_id = a.id"
        f" WHERE a.account_id = ? AND a.deleted_at IS NULL AND r.source_dataset_id IN ({marks})"
        " ORDER BY a.id",
        (account_id, *dataset_ids),
    ):
        tiers = conn.execute(
            "SELECT creator_tier, COUNT(*) AS n, SUM(is_verified) AS verified"
            " FROM audience_profiles WHERE audience_dataset_id = ? GROUP BY creator_tier"
            " ORDER BY n DESC, creator_tier",
            (row["id"],),
        ).fetchall()
        profiles = sum(tier["n"] for tier in tiers)
        verified = sum(tier["verified"] for tier in tiers)
        label = f"Audience dataset “{row['name']}”: {profiles} profiles, {verified} verified"
        details = tuple(f"{tier['creator_tier']}: {tier['n']} profiles" for tier in tiers[:3])
        found.append(assistant.Related("audience_dataset", row["id"], label, "audience", details))
    for row in conn.execute(
        "SELECT id, type, request, body FROM research_previews WHERE account_id = ?"
        " ORDER BY created_at DESC, id DESC LIMIT 3",
        (account_id,),
    ):
        request = loads(row["request"])
        subject = request.get("search_query") or ", ".join(request.get("source_urls") or [])
        estimate = loads(row["body"]).get("estimated_number_of_results")
        label = f"Research preview ({row['type']}) for “{subject}”: about {estimate} results"
        found.append(assistant.Related("research_preview", row["id"], label, "previews"))
    return found


def _value(stored: str | None) -> str:
    """An extracted custom parameter value as the answer shows it."""
    value = loads(stored)
    return "(no value)" if value in (None, "") else str(value)


def _pattern_items(conn: sqlite3.Connection, pattern_id: str) -> tuple[str, ...]:
    """One line per pattern item: title, size, synopsis and its most typical post."""
    lines = []
    for item in conn.execute(
        "SELECT i.title, i.synopsis, i.post_count, p.source, p.mention_id FROM pattern_items i"
        " LEFT JOIN pattern_item_posts p ON p.item_id = i.id AND p.rank = 0"
        " WHERE i.pattern_id = ? ORDER BY i.position",
        (pattern_id,),
    ):
        line = f"**{item['title']}**: {item['post_count']} posts. {item['synopsis']}"
        if item["source"] is not None:
            example = {"source": item["source"], "id": item["mention_id"]}
            line += " " + cite(example, "typical post")
        lines.append(line)
    return tuple(lines)


def message_row(
    conn: sqlite3.Connection, account_id: str, seat_id: str, chat_id: str, message_id: str
) -> sqlite3.Row:
    """A message of the seat's chat; 404 ``chat_not_found`` or ``message_not_found``."""
    chat_or_404(conn, account_id, seat_id, chat_id)
    return row_or_404(
        conn,
        "chat_messages",
        "message_not_found",
        f"Message {message_id} not in chat {chat_id}",
        id=message_id,
        chat_id=chat_id,
    )


def own_message(
    conn: sqlite3.Connection, account_id: str, seat_id: str, message_id: str
) -> sqlite3.Row:
    """A message of any of the seat's chats, found by its id alone (404 otherwise)."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT m.* FROM chat_messages m JOIN chats c ON c.id = m.chat_id"
        " WHERE m.id = ? AND c.account_id = ? AND c.seat_id = ?",
        (message_id, account_id, seat_id),
    ).fetchone()
    if row is None:
        raise ApiError(404, "message_not_found", f"Message {message_id} not found")
    return row


def message_wire(row: sqlite3.Row) -> dict[str, Any]:
    """A message row on the wire: user rows carry ``context``; assistant rows carry
    ``references``, ``status`` and ``stop_reason``."""
    data: dict[str, Any] = {
        "id": row["id"],
        "chat_id": row["chat_id"],
        "role": row["role"],
        "text": row["text"],
        "status": row["status"],
        "created_at": row["created_at"],
    }
    if row["role"] == "user":
        data["context"] = loads(row["context"]) or {}
    else:
        data["references"] = loads(row["refs"]) or []
        data["stop_reason"] = row["stop_reason"]
        data["charged_tokens"] = _charged_tokens(row)
    return ChatMessage.model_validate(data).to_wire()


def _charged_tokens(row: sqlite3.Row) -> int | None:
    """The tokens an Ask reply is charged for, once final (a sandbox extension: the spec
    shows no charge on a message): 0 for a refusal or a failed reply, which are not
    charged, so a client knows at once that no usage row will come. None while working,
    and on an alert row (no Ask)."""
    if row["status"] == "failed":
        return 0
    if row["status"] != "completed" or row["reply_to"] is None:
        return None
    tokens: int | None = row["tokens"]
    return tokens


def chat_wire(row: sqlite3.Row) -> dict[str, Any]:
    """A chat row on the wire (its ``seat_id`` is never returned)."""
    chat = {key: row[key] for key in ("id", "name", "tracking_agent_id", "created_at")}
    return Chat.model_validate(chat).to_wire()


# -- reads (REST and MCP) -------------------------------------------------------------
def get_chat(store: Store, account_id: str, seat_id: str, chat_id: str) -> dict[str, Any]:
    """One of the seat's chats (wire dict); 404 ``chat_not_found`` otherwise."""
    with store.read() as conn:
        return chat_wire(chat_or_404(conn, account_id, seat_id, chat_id))


def list_messages(
    store: Store, account_id: str, seat_id: str, chat_id: str, params: ListParams
) -> dict[str, Any]:
    """The list envelope of a chat's rows, newest first unless ``params.order`` is ``asc``."""
    with store.read() as conn:
        chat_or_404(conn, account_id, seat_id, chat_id)
        return child_page(
            conn,
            source="chat_messages",
            parent="chat_id",
            parent_id=chat_id,
            params=params,
            wire=message_wire,
            sort=_BY_POSITION,
        )


def get_message(
    store: Store, account_id: str, seat_id: str, chat_id: str, message_id: str
) -> dict[str, Any]:
    """One row of the seat's chat (wire dict); an assistant row is ``working`` until answered."""
    with store.read() as conn:
        return message_wire(message_row(conn, account_id, seat_id, chat_id, message_id))


def reply_blocks(
    store: Store, account_id: str, seat_id: str, chat_id: str, message_id: str
) -> dict[str, Any]:
    """A reply as MCP blocks: ``render: false`` blocks carry the markdown text and its
    references, ``render: true`` ones only their id, type and title (see :func:`render_block`);
    ``stop_reason`` stays null while the assistant is working."""
    with store.read() as conn:
        row = message_row(conn, account_id, seat_id, chat_id, message_id)
    wire = message_wire(row)
    blocks = []
    for block in loads(row["blocks"]) or []:
        if block["render"]:
            blocks.append({key: block[key] for key in ("block_id", "type", "render", "title")})
        else:
            blocks.append({**block, "text": wire["text"], "references": wire["references"]})
    return {
        "chat_id": chat_id,
        "message_id": message_id,
        "status": wire["status"],
        "stop_reason": row["stop_reason"],
        "blocks": blocks,
    }


def render_block(
    store: Store, account_id: str, seat_id: str, message_id: str, block_id: str
) -> dict[str, Any]:
    """A ``render: true`` block of one of the seat's replies, with a markdown rendering;
    404 ``message_not_found`` or ``block_not_found``."""
    with store.read() as conn:
        row = own_message(conn, account_id, seat_id, message_id)
    block = next(
        (b for b in loads(row["blocks"]) or [] if b["block_id"] == block_id and b["render"]),
        None,
    )
    if block is None:
        raise ApiError(404, "block_not_found", f"No render block {block_id} in {message_id}")
    header = "| " + " | ".join(block["columns"]) + " |"
    lines = [header, "|" + "---|" * len(block["columns"])]
    lines += ["| " + " | ".join(str(cell) for cell in cells) + " |" for cells in block["rows"]]
    return {**block, "markdown": f"**{block['title']}**\n\n" + "\n".join(lines) + "\n"}


# -- the reply job --------------------------------------------------------------------
def _reply(store: Store, job: Job) -> None:
    """Answer outside the write lock, then store the reply, charge it and name the chat."""
    with store.read() as conn:
        row = conn.execute(
            "SELECT m.chat_id, m.status, c.account_id, c.tracking_agent_id, q.text AS question,"
            " q.context, q.seq FROM chat_messages m JOIN chats c ON c.id = m.chat_id"
            " JOIN chat_messages q ON q.id = m.reply_to WHERE m.id = ?",
            (job.ref_id,),
        ).fetchone()
        if row is None or row["status"] != "working":
            return  # already answered (a job re-run after a restart)
        history = [
            _turn(text, loads(context) or {})
            for text, context in conn.execute(
                "SELECT text, context FROM chat_messages"
                " WHERE chat_id = ? AND role = 'user' AND seq < ? ORDER BY seq",
                (row["chat_id"], row["seq"]),
            )
        ]
        context = loads(row["context"]) or {}
        reply = compose_reply(
            conn, row["account_id"], row["question"], context, history, row["tracking_agent_id"]
        )
        datasets = _datasets(conn, row["account_id"])
    reply = chaos_reply(chaos.of(store).assistant, reply)
    tokens = assistant.count_tokens(row["question"], dumps(context), reply.text)
    if reply.intent == "refuse":
        tokens = 0
    with store.transaction() as conn:
        updated = conn.execute(
            "UPDATE chat_messages SET text = ?, refs = ?, blocks = ?, status = 'completed',"
            " stop_reason = 'end_turn', tokens = ? WHERE id = ? AND status = 'working'",
            (reply.text, dumps(reply.references), dumps(reply.blocks), tokens, job.ref_id),
        ).rowcount
        if not updated:
            return
        if reply.intent != "refuse":  # a refusal does no data work: nothing is charged
            usd = assistant.inference_cost(tokens)
            wallet.charge(conn, row["account_id"], "ai_assistant", usd, ref=job.ref_id)
        if len(history) + 1 >= NAME_AFTER_TURNS:
            name = _chat_name(history[0].text, datasets, reply)
            conn.execute(
                "UPDATE chats SET name = ? WHERE id = ? AND name IS NULL", (name, row["chat_id"])
            )


def chaos_reply(controls: chaos.AssistantChaos, reply: assistant.Reply) -> assistant.Reply:
    """The reply as stored, bent by the ``assistant`` chaos control.

    ``duplicate_citation`` cites the first post reference a second time (its marker ``[N]``
    again at the end: the spec's "a repeated post reuses its number and appears once in
    references[]"); ``render_block`` adds a ``render: true`` table block of the cited posts.
    The references' indices still point at the first occurrences.
    """
    text, blocks = reply.text, list(reply.blocks)
    posts = [ref for ref in reply.references if ref.get("type") == "post"]
    if controls.duplicate_citation and posts:
        first = posts[0]
        marker = text[first["start_index"] : first["end_index"]]
        text = f"{text.rstrip()}\n\nThat post again, for emphasis {marker}.\n"
    if controls.render_block:
        blocks.append(
            {
                "block_id": f"b{len(blocks) + 1}",
                "type": "table",
                "render": True,
                "title": "Posts cited",
                "columns": ["citation", "source", "id"],
                "rows": [[ref.get("citation"), ref["source"], ref["id"]] for ref in posts],
            }
        )
    if (text, blocks) == (reply.text, reply.blocks):
        return reply
    return dataclasses.replace(reply, text=text, blocks=blocks)


def _chat_name(question: str, datasets: Sequence[assistant.Scope], reply: assistant.Reply) -> str:
    """The chat's name from its first question, completed by the dataset the reply used
    when it used exactly one."""
    names = [text for item in datasets for text in (item.name, *item.searches)]
    used = [
        item.name for item in datasets if {"type": "dataset", "id": item.id} in reply.references
    ]
    return assistant.chat_name(question, names, used[0] if len(used) == 1 else None)


def _turn(text: str, context: Mapping[str, Any]) -> assistant.Turn:
    return assistant.Turn(text, context.get("dataset_ids"), context.get("post_refs") or ())


def _reply_failed(store: Store, job: Job, exc: BaseException) -> None:
    """A crashed reply ends the turn with an apology and no charge; a worker that stopped
    is named with its fix (its own message, which holds no data), as a run's reason is."""
    text = "Sorry, I could not answer this question."
    if isinstance(exc, WorkerStopped):
        text = f"Sorry, I could not answer this question: {exc}."
    with store.transaction() as conn:
        conn.execute(
            "UPDATE chat_messages SET text = ?, status = 'failed', stop_reason = 'error'"
            " WHERE id = ? AND status = 'working'",
            (text, job.ref_id),
        )


JOBS = (JobKind(_REPLY_JOB, _reply, atomic=False, on_error=_reply_failed),)
"""This part's job kinds (listed in :mod:`rdskit.sandbox.registry`)."""
