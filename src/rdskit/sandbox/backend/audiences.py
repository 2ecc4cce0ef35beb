"""Audiences backend: the part's tables (listed in :mod:`rdskit.sandbox.backend.tables`).

Its state, SQL and rules still live in
:mod:`rdskit.sandbox.api.audiences` (not split yet).
"""

from __future__ import annotations

__all__ = ["SCHEMA"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS audience_datasets (
    id         TEXT PRIMARY KEY,                -- ad_
    account_id TEXT NOT NULL REFERENCES accounts(id),
    name       TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    deleted_at REAL                             -- soft delete
);
CREATE INDEX IF NOT EXISTS audience_datasets_list
    ON audience_datasets(account_id, deleted_at, created_at, id);

CREATE TABLE IF NOT EXISTS audience_runs (
    id                   TEXT PRIMARY KEY,      -- adr_
    audience_dataset_id  TEXT NOT NULL REFERENCES audience_datasets(id),
    account_id           TEXT NOT NULL REFERENCES accounts(id),
    source_dataset_id    TEXT NOT NULL REFERENCES datasets(id),
    status               TEXT NOT NULL,         -- pending | working | completed | failed
    target_profile_count INTEGER NOT NULL,
    profile_count        INTEGER NOT NULL DEFAULT 0,
    reservation_id       TEXT REFERENCES reservations(id),
    error                TEXT,
    created_at           REAL NOT NULL,
    updated_at           REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS audience_runs_list ON audience_runs(audience_dataset_id, created_at, id);
-- The database itself refuses a second in-flight run (the 409 rule).
CREATE UNIQUE INDEX IF NOT EXISTS audience_runs_in_flight
    ON audience_runs(audience_dataset_id) WHERE status IN ('pending', 'working');

CREATE TABLE IF NOT EXISTS audience_profiles (
    id                  TEXT PRIMARY KEY,       -- ap_
    account_id          TEXT NOT NULL REFERENCES accounts(id),
    audience_dataset_id TEXT NOT NULL REFERENCES audience_datasets(id),
    run_id              TEXT NOT NULL REFERENCES audience_runs(id),
    source              TEXT NOT NULL,
    username            TEXT NOT NULL,
    body                TEXT NOT NULL,          -- JSON: the profile without id/run_id/created_at
    creator_tier        TEXT NOT NULL,
    is_verified         INTEGER NOT NULL,
    created_at          REAL NOT NULL,          -- when the run wrote it
    run_at              REAL NOT NULL,          -- the run's created_at (audience_dataset_run_at)
    UNIQUE (audience_dataset_id, source, username)
);
CREATE INDEX IF NOT EXISTS audience_profiles_created
    ON audience_profiles(account_id, created_at, id);
CREATE INDEX IF NOT EXISTS audience_profiles_run_at ON audience_profiles(account_id, run_at, id);
"""
