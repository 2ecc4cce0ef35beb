"""Chats backend: the part's tables (listed in :mod:`rdskit.sandbox.backend.tables`).

Its state, SQL and rules still live in
:mod:`rdskit.sandbox.api.chats` (not split yet).
"""

from __future__ import annotations

__all__ = ["SCHEMA"]

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
