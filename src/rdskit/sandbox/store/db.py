"""The sandbox's state: one SQLite database, one transaction per state change.

``Store`` hands every thread its own connection (WAL journal, ``busy_timeout``, foreign
keys on), so the threaded HTTP server, the worker threads and tests can interleave
freely. Writers go through ``store.transaction()`` (``BEGIN IMMEDIATE``: the write lock is
taken up front, so two read-modify-write sequences never interleave and nothing is lost or
duplicated); multi-statement reads use ``store.read()`` for one consistent snapshot.

The schema is the core tables below plus the sections handed in by its opener (``schema=``):
each part's ``SCHEMA``, listed explicitly in :mod:`rdskit.sandbox.backend.tables`, whose
``open_store`` opens a store with all of them (see docs/sandbox-internals.md). The store
imports nothing above it.

Example:
    >>> store = Store(":memory:")
    >>> with store.transaction() as conn:
    ...     dataset_id = new_id(conn, "ds")
    >>> dataset_id.startswith("ds_")
    True
    >>> store.close()
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from rdskit.errors import ConfigurationError
from rdskit.sandbox.errors import ApiError
from rdskit.sandbox.runtime.clock import Clock

log = logging.getLogger(__name__)

__all__ = [
    "CORE_SCHEMA",
    "USERS",
    "Connection",
    "DatabaseUnusable",
    "Store",
    "StoreClosed",
    "claim",
    "dumps",
    "keys_table",
    "loads",
    "new_id",
    "row_or_404",
    "why_unusable",
]

CORE_SCHEMA = """
-- ===== core: meta, accounts, billing ============================================
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS plans (
    name            TEXT PRIMARY KEY,          -- Trial, Starter, Pro, Business, Legacy
    type            TEXT NOT NULL,             -- subscription | one_time | one_time_renewable
    price_usd       TEXT NOT NULL,             -- Decimal string
    credits         INTEGER,                   -- credits bought by price_usd (NULL: USD billing)
    credit_rate_usd TEXT,                      -- Decimal string, NULL when billed in USD
    catalog_version TEXT NOT NULL,
    prices_usd      TEXT NOT NULL,             -- JSON {category: USD string}; USD is canonical
    features        TEXT NOT NULL,             -- JSON {flag: bool}
    limits          TEXT NOT NULL              -- JSON {limit: int}
);

CREATE TABLE IF NOT EXISTS accounts (
    id                TEXT PRIMARY KEY,        -- acc_
    team_name         TEXT NOT NULL,
    plan              TEXT NOT NULL REFERENCES plans(name),
    created_at        REAL NOT NULL,
    renews_at         REAL,
    assistant_failure TEXT                     -- NULL or an ai_assistant_* error code
);

CREATE TABLE IF NOT EXISTS seats (
    id         TEXT PRIMARY KEY,               -- usr_
    account_id TEXT NOT NULL REFERENCES accounts(id),
    kind       TEXT NOT NULL,                  -- owner | member | invitation
    email      TEXT NOT NULL,
    name       TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_account ON seats(account_id, created_at);

CREATE TABLE IF NOT EXISTS api_keys (
    digest     TEXT PRIMARY KEY,               -- sha256 hex; the raw key is never stored
    account_id TEXT NOT NULL REFERENCES accounts(id),
    seat_id    TEXT NOT NULL REFERENCES seats(id) ON DELETE CASCADE,
    hint       TEXT NOT NULL,                  -- bz_test_…last4, for listings
    created_at REAL NOT NULL,
    revoked_at REAL
);

CREATE TABLE IF NOT EXISTS wallets (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id),
    total_usd  TEXT NOT NULL,                  -- Decimal strings: money is never a float here
    used_usd   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS reservations (
    id         TEXT PRIMARY KEY,               -- res_
    account_id TEXT NOT NULL REFERENCES accounts(id),
    category   TEXT NOT NULL,
    quantity   TEXT NOT NULL,                  -- units reserved (Decimal string)
    unit_usd   TEXT NOT NULL,                  -- price per unit at reservation time
    amount_usd TEXT NOT NULL,                  -- quantity * unit_usd
    ref        TEXT NOT NULL,                  -- the run/preview id it funds
    state      TEXT NOT NULL,                  -- held | settled | refunded
    created_at REAL NOT NULL,
    closed_at  REAL
);
CREATE INDEX IF NOT EXISTS reservations_held ON reservations(account_id, state);

CREATE TABLE IF NOT EXISTS usage_rows (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id              TEXT NOT NULL REFERENCES accounts(id),
    category                TEXT NOT NULL,
    quantity_usd            TEXT NOT NULL,
    quantity_credits        TEXT,
    credit_rate_usd         TEXT,
    billing_catalog_version TEXT,
    credit_value_basis      TEXT,
    ref                     TEXT,
    created_at              REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS usage_rows_account ON usage_rows(account_id, created_at, id);

-- ===== core: background jobs (sandbox/runtime/worker.py) ====================================
CREATE TABLE IF NOT EXISTS jobs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,
    ref_id     TEXT NOT NULL,
    payload    TEXT NOT NULL DEFAULT '{}',     -- JSON
    run_at     REAL NOT NULL,
    state      TEXT NOT NULL DEFAULT 'pending', -- pending | running | done | failed
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at REAL NOT NULL,
    account_id TEXT NOT NULL DEFAULT ''     -- whose work (fair share); '' = the sandbox's
);
CREATE INDEX IF NOT EXISTS jobs_due ON jobs(state, run_at);
CREATE INDEX IF NOT EXISTS jobs_fair ON jobs(state, account_id, run_at);

-- ===== core: datasets, runs, mentions (backend/datasets.py) ==========================
CREATE TABLE IF NOT EXISTS datasets (
    id           TEXT PRIMARY KEY,             -- ds_
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    name         TEXT NOT NULL,
    content_type TEXT,                         -- fixed by the first run (organic | ad)
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    deleted_at   REAL                          -- soft delete
);
CREATE INDEX IF NOT EXISTS datasets_list ON datasets(account_id, deleted_at, created_at, id);

CREATE TABLE IF NOT EXISTS dataset_runs (
    id                 TEXT PRIMARY KEY,       -- dsr_
    dataset_id         TEXT NOT NULL REFERENCES datasets(id),
    account_id         TEXT NOT NULL REFERENCES accounts(id),
    ordinal            INTEGER NOT NULL,       -- 1-based position among the dataset's runs
    params             TEXT NOT NULL,          -- JSON echo of the request (with defaults applied)
    count              INTEGER NOT NULL,
    requested_count    INTEGER NOT NULL,
    status             TEXT NOT NULL,          -- pending | working | completed | failed
    steps              TEXT NOT NULL DEFAULT '[]', -- JSON [{name, status, started_at, finished_at}]
    reservation_id     TEXT REFERENCES reservations(id),
    mentions_count     INTEGER NOT NULL DEFAULT 0,
    new_mentions_count INTEGER NOT NULL DEFAULT 0,
    images_count       INTEGER NOT NULL DEFAULT 0,
    videos_count       INTEGER NOT NULL DEFAULT 0,
    error              TEXT,
    created_at         REAL NOT NULL,
    updated_at         REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS dataset_runs_list ON dataset_runs(dataset_id, created_at, id);

-- One row per post per account; `body` is the Mention wire dict, the other columns are
-- copies of it for indexed filtering and sorting.
CREATE TABLE IF NOT EXISTS mentions (
    account_id      TEXT NOT NULL REFERENCES accounts(id),
    source          TEXT NOT NULL,
    id              TEXT NOT NULL,
    body            TEXT NOT NULL,             -- JSON
    created_at      REAL NOT NULL,             -- post date
    language        TEXT,
    country_code    TEXT,
    content_type    TEXT,
    num_views       INTEGER NOT NULL DEFAULT 0,
    num_likes       INTEGER NOT NULL DEFAULT 0,
    num_comments    INTEGER NOT NULL DEFAULT 0,
    num_shares      INTEGER NOT NULL DEFAULT 0,
    engagement_rate REAL,
    sentiment_score REAL,
    images_count    INTEGER NOT NULL DEFAULT 0,
    videos_count    INTEGER NOT NULL DEFAULT 0,
    first_seen_at   REAL NOT NULL,
    updated_at      REAL NOT NULL,
    -- The metrics when the post was first collected (metric_change changed_by); an
    -- upsert never touches them. Columns, not a trigger-fed table: half the write cost.
    first_num_views       INTEGER,
    first_num_likes       INTEGER,
    first_num_comments    INTEGER,
    first_engagement_rate REAL,
    PRIMARY KEY (account_id, source, id)
);

CREATE TABLE IF NOT EXISTS dataset_mentions (
    dataset_id     TEXT NOT NULL REFERENCES datasets(id),
    source         TEXT NOT NULL,
    id             TEXT NOT NULL,
    run_id         TEXT NOT NULL REFERENCES dataset_runs(id), -- the run that first collected it
    dataset_run_at REAL NOT NULL,
    PRIMARY KEY (dataset_id, source, id)
);
CREATE INDEX IF NOT EXISTS dataset_mentions_run_at ON dataset_mentions(dataset_id, dataset_run_at);

-- The comments each run collected for a post (only runs that brought some): a later run,
-- in this dataset or another, never erases them; reads merge the runs of their datasets.
CREATE TABLE IF NOT EXISTS run_comments (
    account_id TEXT NOT NULL,
    source     TEXT NOT NULL,
    post_id    TEXT NOT NULL,
    run_id     TEXT NOT NULL,
    dataset_id TEXT NOT NULL,
    comments   TEXT NOT NULL,                  -- JSON [Comment wire dict]
    PRIMARY KEY (account_id, source, post_id, run_id)
);
CREATE INDEX IF NOT EXISTS dataset_mentions_post ON dataset_mentions(source, id);

-- Sandbox-only: what happened to a post on its platform since it was served (admin route
-- /sandbox/posts): deleted (a URL re-collection no longer finds it) or more engagement.
CREATE TABLE IF NOT EXISTS platform_changes (
    source      TEXT NOT NULL,
    id          TEXT NOT NULL,
    deleted     INTEGER NOT NULL DEFAULT 0,
    extra_views INTEGER NOT NULL DEFAULT 0,
    extra_likes INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source, id)
);

-- Sandbox-only: posts the platforms hold because a shared study's runs were replayed
-- (route /sandbox/platforms): the corpus cannot rebuild a post from its link alone.
CREATE TABLE IF NOT EXISTS held_posts (
    source TEXT NOT NULL,
    id     TEXT NOT NULL,
    body   TEXT NOT NULL,                      -- Mention wire dict, as the run served it
    as_of  REAL NOT NULL,                      -- the run's creation: a later run's copy wins
    PRIMARY KEY (source, id)
);
CREATE TABLE IF NOT EXISTS held_runs (
    digest TEXT PRIMARY KEY                    -- a replayed run's record, hashed: once
);
"""


def dumps(value: Any) -> str:
    """Compact JSON for TEXT columns."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | None) -> Any:
    """Inverse of :func:`dumps`; ``None`` stays ``None``."""
    return None if text is None else json.loads(text)


def keys_table(name: str, keys: Sequence[tuple[Any, ...]], columns: str) -> tuple[str, list[Any]]:
    """``WITH name(columns) AS (VALUES ...)``: a small key list to join on an index.

    A ``WHERE (a = ? AND b = ?) OR ...`` over the same keys may make SQLite scan a whole
    index range (every post of a 100k dataset); joining this table costs one index lookup
    per key. ``keys`` must not be empty.

    Example:
        >>> keys_table("k", [("reddit", "1"), ("tiktok", "2")], "source, id")
        ('WITH k(source, id) AS (VALUES (?, ?), (?, ?))', ['reddit', '1', 'tiktok', '2'])
    """
    row = "(" + ", ".join("?" * len(keys[0])) + ")"
    sql = f"WITH {name}({columns}) AS (VALUES {', '.join([row] * len(keys))})"
    return sql, [value for key in keys for value in key]


class Connection(sqlite3.Connection):
    """A per-thread connection that knows its store and queues after-commit callbacks."""

    store: Store
    _depth: int = 0
    _write: bool = False
    _in_use: bool = False  # a thread is inside _enter, statements included (see close())
    _owner: int = 0  # the thread that opened it
    _query_only: bool = False
    _after_commit: list[Callable[[], None]]

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the outermost transaction commits (dropped on rollback)."""
        self._after_commit.append(callback)


class DatabaseUnusable(ConfigurationError):
    """The sandbox database cannot be opened: ``path``, ``reason`` (what is wrong with it)
    and ``option``, the setting that named it (``db`` of ``start()``, ``--db``...).

    Example:
        >>> print(DatabaseUnusable("/tmp", "it is a folder, not a file", "--db"))
        cannot use --db /tmp as the sandbox database: it is a folder, not a file
    """

    def __init__(self, path: str, reason: str, option: str = "path") -> None:
        self.path, self.reason, self.option = path, reason, option
        named = f"{option} {path}" if option.startswith("-") else f"{option}={path!r}"
        super().__init__(f"cannot use {named} as the sandbox database: {reason}")

    def named_by(self, option: str) -> DatabaseUnusable:
        """The same error naming ``option`` (the caller's name for the path)."""
        return DatabaseUnusable(self.path, self.reason, option)


USERS = {
    "kernels": "the notebooks' own sandboxes (RDSKIT_SANDBOX_DB)",
    "gateway": "the Jupyter gateway's shared sandbox (c.RdsGateway.sandbox_db)",
}
"""Who may hold a sandbox database (:func:`claim`), and the setting that names it."""


def claim(store: Store, user: str) -> None:
    """Mark ``store``'s database as ``user``'s (a key of :data:`USERS`), or raise
    :class:`DatabaseUnusable` when the other one holds it.

    The gateway's shared sandbox revokes the default key of its database; on the
    kernels' database that locked every notebook out (HTTP 401), so each keeps its own
    file. A database no one claimed yet (a standalone ``rdskit sandbox --db``, or one
    written before this check) goes to the first.

    Example:
        >>> with Store(":memory:") as store:
        ...     claim(store, "kernels")
        ...     claim(store, "gateway")
        Traceback (most recent call last):
        ...
        rdskit.sandbox.store.db.DatabaseUnusable: cannot use path=':memory:' as the sandbox \
database: it is the database of the notebooks' own sandboxes (RDSKIT_SANDBOX_DB); give \
the Jupyter gateway's shared sandbox (c.RdsGateway.sandbox_db) another file
    """
    with store.transaction() as conn:
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('user', ?)", (user,))
        (holder,) = conn.execute("SELECT value FROM meta WHERE key = 'user'").fetchone()
    if holder != user:
        raise DatabaseUnusable(
            store.path,
            f"it is the database of {USERS.get(holder, holder)}; give {USERS[user]} another file",
        )


def why_unusable(path: str, error: BaseException) -> str:
    """What is wrong with ``path``, which SQLite (or the file system, ``error``) could not
    use: SQLite says only "unable to open database file" for most of these."""
    target = Path(path)
    parent = target.parent
    if target.is_dir():
        return "it is a folder, not a file"
    if not parent.exists():
        return f"its folder {parent} does not exist"
    if not parent.is_dir():
        return f"{parent} is a file, not a folder"
    if target.exists() and not os.access(target, os.R_OK | os.W_OK):
        return "this user cannot read and write the file"
    if not os.access(parent, os.W_OK | os.X_OK):
        # SQLite writes its journal (-wal, -shm) next to the file.
        return f"this user cannot write in its folder {parent}"
    if isinstance(error, OSError):
        return error.strerror or type(error).__name__
    return f"SQLite: {error}"


class StoreClosed(RuntimeError):
    """The store was closed (the sandbox is stopping): a worker thread still finishing a
    job meets it and ends quietly; the job stays ``running`` and is re-queued on restart."""


class Store:
    """Thread-safe access to the sandbox database.

    ``path=None`` uses a fresh temporary file (removed by ``close()``); ``":memory:"``
    is only for single-threaded use such as doctests; a real path persists across restarts.
    ``seed`` makes the synthetic corpus deterministic (ids carry the database's instance,
    random per database: see :func:`new_id`); a reopened database keeps the seed it was
    created with. ``speed`` and ``today`` make its
    :class:`~rdskit.sandbox.runtime.clock.Clock` (``store.clock``, the sandbox's one "now").
    ``busy_timeout`` is how long (seconds) a statement waits for another thread's write lock
    before ``sqlite3.OperationalError`` "database is locked". ``schema`` is the parts'
    ``(part, DDL)`` sections created after the core tables (none: the core tables only).

    Example:
        >>> with Store(":memory:") as store, store.transaction() as conn:
        ...     _ = conn.execute("INSERT INTO meta VALUES ('hello', 'world')")
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        schema: Sequence[tuple[str, str]] = (),
        seed: int = 0,
        speed: float = 1.0,
        today: date | None = None,
        busy_timeout: float = 30.0,
    ) -> None:
        self._temp_dir: tempfile.TemporaryDirectory[str] | None = None
        if path is None:
            self._temp_dir = tempfile.TemporaryDirectory(prefix="rdskit-sandbox-")
            path = Path(self._temp_dir.name) / "sandbox.db"
        self.path = str(path)
        self.clock = Clock(speed, today=today)
        self.busy_timeout = busy_timeout
        # Set whenever a job is scheduled, so the worker wakes without polling hard.
        self.jobs_changed = threading.Event()
        self._local = threading.local()
        self._connections: list[Connection] = []
        self._lock = threading.Lock()
        self._released = threading.Condition(self._lock)  # a connection left _enter
        self._closed = False
        self._memory: Connection | None = None
        try:
            # executescript() commits on its own: the idempotent DDL runs outside a transaction.
            self._migrate()
            self._connection().executescript(_schema(schema))
            with self.transaction() as conn:
                conn.execute(
                    "INSERT OR IGNORE INTO meta VALUES ('seed', ?), ('secret', ?)",
                    (str(seed), secrets.token_hex(32)),
                )
                meta = dict(
                    conn.execute("SELECT key, value FROM meta WHERE key IN ('seed', 'secret')")
                )
        except sqlite3.Error as exc:
            self.close()
            raise DatabaseUnusable(self.path, why_unusable(self.path, exc)) from exc
        except BaseException:
            self.close()
            raise
        self.seed = int(meta["seed"])
        self.secret = bytes.fromhex(meta["secret"])
        # Which database this is, sent as a header (rdskit.models.account.INSTANCE_HEADER):
        # random per database, kept with it, and saying nothing about the secret.
        self.instance = _instance_of(self.secret)
        # Set by the worker when every thread of it died: no new work is accepted then.
        self.worker_stopped: str | None = None
        if today is not None:
            self._anchor_clock(today)

    def _anchor_clock(self, today: date) -> None:
        """A fixed date's clock goes on where this database's last session left it: the
        moment it first started (sandbox time and wall time) is kept in ``meta``."""
        key = f"clock_anchor:{today.isoformat()}"
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                (key, " ".join(repr(part) for part in self.clock.reading())),
            )
            (value,) = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        started, wall_then = (float(part) for part in value.split())
        self.clock.anchor(started, wall_then)

    def _migrate(self) -> None:
        """Bring a database written by an older sandbox up to the current core schema."""
        conn = self._connection()
        columns = {row[1] for row in conn.execute("PRAGMA table_info(jobs)")}
        if columns and "account_id" not in columns:
            conn.execute("ALTER TABLE jobs ADD COLUMN account_id TEXT NOT NULL DEFAULT ''")

    # -- connections -------------------------------------------------------------
    def _connection(self) -> Connection:
        if self._closed:
            raise StoreClosed("the sandbox store is closed")
        if self.path == ":memory:":
            # One shared connection: a second ":memory:" connection would be another database.
            if self._memory is None:
                self._memory = self._open()
            return self._memory
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self) -> Connection:
        conn = sqlite3.connect(
            self.path,
            factory=Connection,
            isolation_level=None,  # we issue BEGIN/COMMIT ourselves
            check_same_thread=False,  # only so close() may run on another thread
            timeout=self.busy_timeout,
        )
        assert isinstance(conn, Connection)
        conn.row_factory = sqlite3.Row
        conn.store = self
        conn._after_commit = []
        conn._owner = threading.get_ident()
        try:
            conn.execute("PRAGMA journal_mode=WAL")  # the first read: a bad file fails here
            conn.execute("PRAGMA synchronous=NORMAL")
            # A big run rewrites index pages all over the mentions table: with SQLite's 2 MiB
            # default cache it spills them to the WAL again and again (100k mentions: ~2x
            # slower). The cache grows only as pages are touched; mmap shares reads across
            # threads through the OS page cache.
            conn.execute("PRAGMA cache_size=-65536")
            conn.execute("PRAGMA mmap_size=268435456")
            conn.execute("PRAGMA foreign_keys=ON")
        except BaseException:
            conn.close()
            raise
        with self._lock:
            self._connections.append(conn)
        return conn

    # -- transactions ------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``, ``ROLLBACK`` on error).

        Nested calls on the same thread join the outer transaction.
        """
        with self._enter(write=True) as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only snapshot for several SELECTs; joins an enclosing transaction.

        Writes inside it fail (``PRAGMA query_only``): a state change belongs in
        :meth:`transaction`, where the write lock is taken up front.
        """
        with self._enter(write=False) as conn:
            yield conn

    @contextmanager
    def _enter(self, *, write: bool) -> Iterator[Connection]:
        conn = self._connection()
        if conn._depth:
            if write and not conn._write:
                raise RuntimeError("store.transaction() cannot be opened inside store.read()")
            conn._depth += 1
            try:
                yield conn
            finally:
                conn._depth -= 1
            return
        with self._lock:  # close() either sees it in use or has closed the store first
            if self._closed:
                raise StoreClosed("the sandbox store is closed")
            conn._in_use = True
        try:
            if conn._query_only == write:  # switch only when the mode changes
                conn.execute(f"PRAGMA query_only = {int(not write)}")
                conn._query_only = not write
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            conn._depth, conn._write = 1, write
            try:
                yield conn
            except BaseException:
                conn._depth, conn._after_commit = 0, []
                conn.execute("ROLLBACK")
                raise
            conn._depth = 0
            callbacks, conn._after_commit = conn._after_commit, []
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._closed:  # close() interrupted the statement: end quietly (see close())
                raise StoreClosed("the sandbox store was closed during a statement") from exc
            raise
        finally:
            with self._released:
                conn._in_use = False
                self._released.notify_all()
        for callback in callbacks:
            callback()

    @property
    def persistent(self) -> bool:
        """Whether the data outlives ``close()``: a file of the caller's, not a temporary
        database or ``":memory:"``."""
        return self._temp_dir is None and self.path != ":memory:"

    # -- lifecycle ---------------------------------------------------------------
    def close(self, wait: float = 10.0) -> None:
        """Close every connection; a temporary database is deleted.

        A connection another thread is using (a worker's job, a request that outlived the
        server's stop) is interrupted, and closed once that thread leaves it: closing it
        under a running statement crashes the interpreter (CPython's sqlite3 frees the
        database the statement still reads). One still in use after ``wait`` seconds is
        left open rather than crash the process.
        """
        me = threading.get_ident()
        with self._lock:
            self._closed = True
            connections, self._connections = self._connections, []
            busy = [c for c in connections if c._in_use and c._owner != me]
            for conn in busy:
                conn.interrupt()  # thread-safe: the running statement stops at its next step
            self._released.wait_for(lambda: not any(c._in_use for c in busy), timeout=wait)
            stuck = [c for c in busy if c._in_use]
        for conn in connections:
            if conn not in stuck:
                conn.close()
        if stuck:
            log.warning("sandbox store: %d connection(s) still in use were left open", len(stuck))
        if self._temp_dir is not None and not stuck:
            self._temp_dir.cleanup()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def new_id(conn: sqlite3.Connection, prefix: str) -> str:
    """The next opaque id with the spec's type prefix, e.g. ``new_id(conn, "ds")`` -> ``ds_…``.

    16 hex digits after the prefix, as before: the first 6 are the database's instance
    (:attr:`Store.instance`, random per database), so two sandboxes never hand out the
    same id (three fresh sandboxes used to give their first dataset the same one, and a
    ledger could take one sandbox's run for another's); the last 10 grow with the
    per-prefix counter (its low 16 bits a keyed hash), so ids within one database never
    collide and sort in the order they were made, as ties on ``created_at`` are broken by
    id. Call it inside ``store.transaction()``.

    Example:
        >>> with Store(":memory:") as one, Store(":memory:") as two:
        ...     with one.transaction() as a, two.transaction() as b:
        ...         ids = new_id(a, "ds"), new_id(b, "ds"), new_id(a, "ds")
        >>> ids[0] != ids[1], ids[0] < ids[2], ids[0][3:9] == ids[2][3:9] == one.instance[:6]
        (True, True, True)
    """
    key = f"seq:{prefix}"
    conn.execute(
        "INSERT INTO meta VALUES (?, '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        (key,),
    )
    (counter,) = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    (secret,) = conn.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()
    instance = _instance_of(bytes.fromhex(secret))
    jitter = hashlib.blake2b(f"{secret}:{prefix}:{counter}".encode(), digest_size=2).digest()
    return f"{prefix}_{instance[:6]}{(int(counter) << 16) + int.from_bytes(jitter):010x}"


def _instance_of(secret: bytes) -> str:
    """The database's instance name: random with it, saying nothing about the secret."""
    return hashlib.blake2b(b"instance:" + secret, digest_size=8).hexdigest()


def _schema(parts: Sequence[tuple[str, str]]) -> str:
    """The core schema followed by each part's ``(part, DDL)`` section."""
    sections = [CORE_SCHEMA]
    sections.extend(f"-- ===== {part} =====\n{ddl}" for part, ddl in parts)
    return "\n".join(sections)


def row_or_404(
    conn: sqlite3.Connection,
    source: str,
    missing: str,
    detail: str,
    *,
    live: bool = False,
    **match: Any,
) -> sqlite3.Row:
    """The row of ``source`` whose columns equal ``match`` (and not soft-deleted when
    ``live``), or a 404 ``missing`` error with ``detail``.

    Example:
        >>> store = Store(":memory:")
        >>> with store.transaction() as conn:
        ...     _ = conn.execute("CREATE TEMP TABLE things (id TEXT, account_id TEXT)")
        ...     _ = conn.execute("INSERT INTO things VALUES ('th_1', 'acc_1')")
        ...     row = row_or_404(conn, "things", "thing_not_found", "no", id="th_1")
        >>> row["account_id"]
        'acc_1'
        >>> with store.transaction() as conn:
        ...     row_or_404(conn, "things", "thing_not_found", "Thing th_2 not found", id="th_2")
        Traceback (most recent call last):
        rdskit.sandbox.errors.ApiError: 404 thing_not_found: Thing th_2 not found
        >>> store.close()
    """
    where = " AND ".join([*(f"{column} = ?" for column in match), *(["deleted_at IS NULL"] * live)])
    row: sqlite3.Row | None = conn.execute(
        f"SELECT * FROM {source} WHERE {where}", tuple(match.values())
    ).fetchone()
    if row is None:
        raise ApiError(404, missing, detail)
    return row
