"""Tracking agents backend: the part's tables (listed in :mod:`rdskit.sandbox.backend.tables`).

Its state, SQL and rules still live in
:mod:`rdskit.sandbox.api.tracking` (not split yet).
"""

from __future__ import annotations

__all__ = ["SCHEMA"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS tracking_agents (
    id                    TEXT PRIMARY KEY,    -- ta_
    account_id            TEXT NOT NULL REFERENCES accounts(id),
    name                  TEXT NOT NULL,
    instructions          TEXT NOT NULL,
    dataset_ids           TEXT NOT NULL,       -- JSON list
    integration_ids       TEXT NOT NULL,       -- JSON list
    count                 INTEGER NOT NULL,
    num_comments_per_post INTEGER NOT NULL,
    schedule              TEXT NOT NULL,       -- JSON {frequency, time, day?}
    paused                INTEGER NOT NULL DEFAULT 0,
    last_run_at           REAL,
    next_run_at           REAL,                -- NULL while paused
    created_at            REAL NOT NULL,
    updated_at            REAL NOT NULL,
    deleted_at            REAL                 -- soft delete
);
CREATE INDEX IF NOT EXISTS tracking_agents_list
    ON tracking_agents(account_id, deleted_at, created_at);

CREATE TABLE IF NOT EXISTS tracking_runs (
    id              TEXT PRIMARY KEY,          -- tar_
    agent_id        TEXT NOT NULL REFERENCES tracking_agents(id),
    account_id      TEXT NOT NULL REFERENCES accounts(id),
    status          TEXT NOT NULL,             -- pending | working | completed | failed
    trigger         TEXT NOT NULL,             -- manual | schedule
    dataset_run_ids TEXT NOT NULL,             -- JSON list
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tracking_runs_agent ON tracking_runs(agent_id, status);

CREATE TABLE IF NOT EXISTS tracking_messages (
    id         TEXT PRIMARY KEY,               -- tam_
    agent_id   TEXT NOT NULL REFERENCES tracking_agents(id),
    run_id     TEXT NOT NULL REFERENCES tracking_runs(id),
    body       TEXT NOT NULL,                  -- JSON: the message fields but id/agent/created_at
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tracking_messages_list ON tracking_messages(agent_id, created_at, id);
"""
