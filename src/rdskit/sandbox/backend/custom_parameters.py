"""Custom parameters backend: the part's tables (listed in :mod:`rdskit.sandbox.backend.tables`).

Its state, SQL and rules still live in
:mod:`rdskit.sandbox.api.custom_parameters` (not split yet).
"""

from __future__ import annotations

__all__ = ["SCHEMA"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS custom_parameters (
    id           TEXT PRIMARY KEY,             -- cp_
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    name         TEXT NOT NULL,
    instructions TEXT NOT NULL,
    value_type   TEXT NOT NULL,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    UNIQUE (account_id, name)
);

CREATE TABLE IF NOT EXISTS custom_parameter_runs (
    id             TEXT PRIMARY KEY,           -- cpr_
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    parameter_id   TEXT NOT NULL REFERENCES custom_parameters(id) ON DELETE CASCADE,
    scope_kind     TEXT NOT NULL,              -- dataset
    scope_id       TEXT NOT NULL,
    status         TEXT NOT NULL,              -- processing | completed | failed
    mentions_total INTEGER NOT NULL,
    mentions_done  INTEGER NOT NULL DEFAULT 0,
    mentions_error INTEGER NOT NULL DEFAULT 0,
    reservation_id TEXT REFERENCES reservations(id),
    error          TEXT,
    created_at     REAL NOT NULL,
    updated_at     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS custom_parameter_runs_list
    ON custom_parameter_runs(parameter_id, created_at, id);

-- The posts of a run and the rule engine's reason for each value (for debugging).
CREATE TABLE IF NOT EXISTS custom_parameter_run_posts (
    run_id      TEXT NOT NULL REFERENCES custom_parameter_runs(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    mention_id  TEXT NOT NULL,
    status      TEXT NOT NULL,                 -- pending | completed | failed
    explanation TEXT,
    PRIMARY KEY (run_id, source, mention_id)
);
CREATE INDEX IF NOT EXISTS custom_parameter_run_posts_pending
    ON custom_parameter_run_posts(run_id, status, source, mention_id);
"""
