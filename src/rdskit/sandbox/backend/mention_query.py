"""The mentions query engine behind ``POST /v1/mentions`` (and any other reader of mentions).

Everything a query asks is pushed into one SQL statement over ``mentions m``:

- scope: the account, the selected live datasets (an ``EXISTS`` on ``dataset_mentions``
  through its ``(dataset_id, source, id)`` key) and ``sources``;
- filters: groups OR-ed, filters in a group AND-ed, each compiled by :func:`compile_filter`
  into a predicate over the indexed columns or ``json_extract`` on the stored body;
- ``q``: every term must start a word of the title or text (``search_mode: semantic``
  uses the same token matching);
- order: one of :data:`SORTS`, each backed by an index ``(account_id, sort)`` whose implicit
  last column, the rowid, breaks ties; paged with signed keyset cursors
  (:mod:`rdskit.sandbox.store.cursors`), never ``OFFSET``.
  Walking the index in order and stopping after ``limit + 1`` matches makes page 900 cost
  what page 1 costs (see :func:`keyset_page` for ties).

Derived values:

- ``dataset_run_at`` is when the post first entered the account's datasets (the completion
  of the run that first collected it, ``mentions.first_seen_at``);
- ``datasets`` lists every live dataset holding the post;
- the dominant sentiment/emotion is the largest share, ties to neutral
  (:func:`rdskit.sandbox.synth.enrichment.dominant`);
- ``metric_change`` ``changed_by`` compares a metric with its value when the post was
  first collected (kept by a trigger, see ``SCHEMA``).

Example:
    >>> sql, params = compile_groups([[{"type": "source", "values": ["reddit"]}]])
    >>> sql, params
    ('((m.source IN (?)))', ['reddit'])
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from rdskit.sandbox.backend.mention_wire import (
    EMPTY_WHEN_NONE,
    FIELDS,
    encode,
    join,
    split,
    unique,
)
from rdskit.sandbox.backend.patterns import pattern_assignments
from rdskit.sandbox.errors import invalid
from rdskit.sandbox.store.cursors import Page, Sort, decode_cursor, page_of
from rdskit.sandbox.store.db import Connection, dumps, keys_table, loads
from rdskit.sandbox.synth.enrichment import dominant


def mention_defaults() -> dict[str, Any]:
    """Every Mention field the spec lists, at its "no value" form.

    Collections of the post's own things are empty (:data:`EMPTY_WHEN_NONE`); everything
    else is ``null``: scalars without a value (``sound``, ``speech_tempo`` without
    transcription, ``ad_meta`` of an organic post) and analysis results whose analysis did
    not run (``sentiment``, ``hooks``, ``content_topics``, ...), so "not analysed" (null)
    stays distinct from "analysed, nothing found" (``[]``).

    Example:
        >>> d = mention_defaults()
        >>> d["comments"], d["hooks"], d["parameters"], d["sound"]
        ([], None, {}, None)
    """
    return {name: EMPTY_WHEN_NONE[name]() if name in EMPTY_WHEN_NONE else None for name in FIELDS}


_UNSET = dict.fromkeys(FIELDS)
"""Every Mention field at None, in model order: a stored body laid over it gets the order
the model would dump it in (empty collections are filled in by :func:`hydrate`)."""

__all__ = [
    "DEFAULT_LIMIT",
    "EMPTY_WHEN_NONE",
    "MAX_LIMIT",
    "METRICS",
    "SCHEMA",
    "SORTS",
    "MentionQuery",
    "Walk",
    "compile_filter",
    "compile_groups",
    "fingerprint",
    "hydrate",
    "keyset_page",
    "keyset_rows",
    "lookup",
    "mention_defaults",
    "page_limit",
    "render",
    "search",
    "text_pattern",
]

DEFAULT_LIMIT = 10
MAX_LIMIT = 100

# The tie-break of every sort. An index ends with the rowid implicitly, so (account, sort)
# serves the whole key; a rowid is also far cheaper to index than a source:id string.
# Upserts keep a post's rowid (ON CONFLICT DO UPDATE), so a cursor stays valid.
_TIE = "m.rowid"

SORTS: dict[str, Sort] = {
    "date": Sort("date", "m.created_at", _TIE),
    "likes": Sort("likes", "m.num_likes", _TIE),
    "views": Sort("views", "m.num_views", _TIE),
    "comments": Sort("comments", "m.num_comments", _TIE),
    "shares": Sort("shares", "m.num_shares", _TIE),
    "engagement_rate": Sort("engagement_rate", "COALESCE(m.engagement_rate, -1.0)", _TIE),
    # Compound scores lie in -1..1; posts never analysed sort below every analysed one.
    "sentiment_score": Sort("sentiment_score", "COALESCE(m.sentiment_score, -2.0)", _TIE),
    "dataset_run_at": Sort("dataset_run_at", "m.first_seen_at", _TIE),
}
"""The sorts of ``POST /v1/mentions``: public name -> SQL key (each has an index)."""

METRICS = {
    "likes": "m.num_likes",
    "views": "m.num_views",
    "comments": "m.num_comments",
    "engagement_rate": "m.engagement_rate",
}
"""``metric_change`` metrics -> current-value columns (first values: ``m.first_<column>``)."""


def _index(name: str, sort: Sort) -> str:
    # Index expressions are written without the table alias; SQLite matches them to m.*.
    column = sort.column.replace("m.", "")
    return f"CREATE INDEX IF NOT EXISTS mentions_sort_{name} ON mentions(account_id, {column});"


# Each dataset's posts in every sort order: a page of one dataset walks its own index
# instead of the account's (whose other datasets' posts it would check and skip). The key
# columns have no declared type, so they hold exactly the values the SORTS expressions
# give (an INTEGER column would turn 5.0 into 5): a cursor minted from them is the same.
def _keys_of(row: str) -> str:
    """The sort keys of the ``mentions`` row named ``row`` (``m``, ``NEW``, ``OLD``)."""
    return ", ".join(sort.column.replace("m.", f"{row}.") for sort in SORTS.values())


_CHANGED = " OR ".join(
    f"({sort.column.replace('m.', 'NEW.')}) IS NOT ({sort.column.replace('m.', 'OLD.')})"
    for sort in SORTS.values()
)
_SET = ", ".join(f"by_{name} = {sort.column.replace('m.', 'NEW.')}" for name, sort in SORTS.items())
_SORT_INDEXES = "\n".join(
    f"CREATE INDEX IF NOT EXISTS dataset_sort_{name}"
    f" ON dataset_sort_keys(dataset_id, by_{name}, mention_rowid);"
    for name in SORTS
)
_DATASET_KEYS = f"""
CREATE TABLE IF NOT EXISTS dataset_sort_keys (
    mention_rowid INTEGER NOT NULL,
    dataset_id    TEXT NOT NULL,
    {", ".join(f"by_{name}" for name in SORTS)},
    PRIMARY KEY (mention_rowid, dataset_id)
) WITHOUT ROWID;
{_SORT_INDEXES}
-- Kept by triggers, so every writer of posts and memberships keeps them: a post's keys
-- when it joins a dataset, and again when an upsert changes one of its sort columns.
CREATE TRIGGER IF NOT EXISTS dataset_sort_keys_join AFTER INSERT ON dataset_mentions BEGIN
    INSERT OR REPLACE INTO dataset_sort_keys
    SELECT m.rowid, NEW.dataset_id, {_keys_of("m")}
    FROM datasets d JOIN mentions m ON m.account_id = d.account_id
    AND m.source = NEW.source AND m.id = NEW.id WHERE d.id = NEW.dataset_id;
END;
CREATE TRIGGER IF NOT EXISTS dataset_sort_keys_update AFTER UPDATE ON mentions
WHEN {_CHANGED} BEGIN
    UPDATE dataset_sort_keys SET {_SET} WHERE mention_rowid = NEW.rowid;
END;
-- A database written before these keys existed gets them once (the check is one row).
INSERT INTO dataset_sort_keys
SELECT m.rowid, dm.dataset_id, {_keys_of("m")}
FROM dataset_mentions dm JOIN datasets d ON d.id = dm.dataset_id
JOIN mentions m ON m.account_id = d.account_id AND m.source = dm.source AND m.id = dm.id
WHERE NOT EXISTS (SELECT 1 FROM dataset_sort_keys);
"""

SCHEMA = "\n".join(
    [
        *(_index(name, sort) for name, sort in SORTS.items()),
        _DATASET_KEYS,
        """
-- Extracted custom parameter values, written by custom parameter runs, read here.
CREATE TABLE IF NOT EXISTS mention_parameters (
    account_id   TEXT NOT NULL,
    source       TEXT NOT NULL,
    mention_id   TEXT NOT NULL,
    parameter_id TEXT NOT NULL,
    value        TEXT,                          -- JSON
    status       TEXT NOT NULL,
    computed_at  REAL,
    PRIMARY KEY (account_id, parameter_id, source, mention_id)
);
""",
    ]
)
"""Indexes on ``mentions`` for every sort, and the custom parameter values."""


# --- SQL functions -----------------------------------------------------------------------

_WITH_FUNCTIONS: weakref.WeakSet[sqlite3.Connection] = weakref.WeakSet()


@lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I | re.S)


def _matches(text: str | None, pattern: str) -> int:
    return int(text is not None and _regex(pattern).search(text) is not None)


def _dominant(shares: str | None) -> str | None:
    return None if shares is None else dominant(json.loads(shares))


def _ensure_functions(conn: sqlite3.Connection) -> None:
    """Register ``rds_match(text, regex)`` and ``rds_dominant(json)`` once per connection."""
    if conn not in _WITH_FUNCTIONS:
        conn.create_function("rds_match", 2, _matches, deterministic=True)
        conn.create_function("rds_dominant", 1, _dominant, deterministic=True)
        _WITH_FUNCTIONS.add(conn)


def text_pattern(words: Iterable[str], *, whole: bool) -> str:
    """A regex for terms in a post: ``whole`` = the words as one phrase, else each a word prefix.

    Example:
        >>> text_pattern(["oat", "milk"], whole=True)
        '\\\\boat\\\\W+milk\\\\b'
        >>> text_pattern(["oat", "milk"], whole=False)
        '^(?=.*\\\\boat)(?=.*\\\\bmilk)'
    """
    escaped = [re.escape(w) for w in words]
    if whole:
        return r"\b" + r"\W+".join(escaped) + r"\b"
    return "^" + "".join(rf"(?=.*\b{w})" for w in escaped)


_TEXT = (
    "(COALESCE(json_extract(m.body, '$.title'), '') || char(10)"
    " || COALESCE(json_extract(m.body, '$.text'), ''))"
)
_WORDS = re.compile(r"\w+")


def fingerprint(*parts: Any) -> str:
    """A short digest of JSON-able query parts, for a cursor's ``scope``.

    Example:
        >>> a, b = fingerprint(["ds_1"], "oat"), fingerprint(["ds_2"], "oat")
        >>> a == fingerprint(["ds_1"], "oat") != b
        True
    """
    return hashlib.blake2b(dumps(list(parts)).encode(), digest_size=8).hexdigest()


# --- filters -----------------------------------------------------------------------------


def _in(expr: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
    return f"{expr} IN ({', '.join('?' * len(values))})", list(values)


def _lowered(values: Iterable[Any]) -> list[str]:
    return [str(v).lower() for v in values]


def _any_json(path: str, item: str, values: Sequence[str]) -> tuple[str, list[Any]]:
    """Some element of the array at ``path`` has ``item`` (lower-cased) among ``values``."""
    inner, params = _in(f"lower({item})", values)
    return f"EXISTS (SELECT 1 FROM json_each(m.body, '{path}') WHERE {inner})", params


def _brands(operator: Any, filt: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """``mentioned_brands``: ``operator`` is ``{type, values|value}`` (or a bare type name)."""
    spec = operator if isinstance(operator, Mapping) else {"type": operator}
    kind = spec.get("type", "any_of")
    values = spec.get("values", filt.get("values"))
    value = spec.get("value", filt.get("value"))
    if kind == "any_of":
        return _any_json("$.mentioned_brands", "value", _lowered(values or []))
    if kind == "equals":
        return _any_json("$.mentioned_brands", "value", _lowered([value]))
    if kind == "contains":
        return (
            "EXISTS (SELECT 1 FROM json_each(m.body, '$.mentioned_brands')"
            " WHERE instr(lower(value), ?) > 0)",
            [str(value).lower()],
        )
    raise invalid(("filters",), f"unknown mentioned_brands operator {kind!r}")


def _metric_change(filt: Mapping[str, Any]) -> tuple[str, list[Any]]:
    column = METRICS[filt["metric"]]
    operator = filt["operator"]
    if operator in ("greater_than", "less_than", "changed_by") and filt.get("value") is None:
        # The model leaves value optional (the spec does not show it); these operators
        # compare with it, so a filter without one is the caller's error, not a 500.
        raise invalid(("filters", "value"), f"metric_change {operator} needs a numeric value")
    if operator == "greater_than":
        return f"{column} > ?", [filt["value"]]
    if operator == "less_than":
        return f"{column} < ?", [filt["value"]]
    if operator == "in_range":
        low, high = filt.get("min"), filt.get("max")
        return (
            f"{column} BETWEEN COALESCE(?, -1e308) AND COALESCE(?, 1e308)",
            [low, high],
        )
    if operator == "changed_by":
        first = column.replace("m.", "m.first_")
        return (
            f"abs({column} - {first}) * 100.0 / max(abs({first}), 1e-9) >= ?",
            [abs(float(filt["value"]))],
        )
    raise invalid(("filters",), f"unknown metric_change operator {operator!r}")


def compile_filter(filt: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """One wire filter -> ``(SQL predicate over m, params)``.

    Matching is case-insensitive for labels (topics, intentions, tones, hook types, CTA
    labels, brands); ``keyword`` matches whole words of title + text. ``metric_change``:
    ``greater_than``/``less_than`` take ``value``; ``in_range`` takes ``min``/``max``
    (bounds included, either may be open); ``changed_by`` takes ``value``, a percentage: the
    metric moved at least that much since the post was first collected. A filter type the
    engine cannot evaluate is a 422.

    Example:
        >>> compile_filter({"type": "has_media", "value": True})
        ("(COALESCE(json_array_length(m.body, '$.media'), 0) > 0) = ?", [True])
    """
    kind = filt["type"]
    values = list(filt.get("values") or [])
    if kind == "keyword":
        words = _WORDS.findall(str(filt["value"]))
        sql = f"rds_match({_TEXT}, ?)"
        return (f"NOT {sql}" if filt.get("operator") == "is_not" else sql), [
            text_pattern(words, whole=True)
        ]
    if kind == "sentiment":
        return _in("rds_dominant(json_extract(m.body, '$.sentiment'))", _lowered(values))
    if kind == "dominant_emotion":
        return _in("rds_dominant(json_extract(m.body, '$.emotions'))", _lowered(values))
    if kind == "metric_change":
        return _metric_change(filt)
    if kind == "source":
        return _in("m.source", _lowered(values))
    if kind == "country_code":
        return _in("m.country_code", [str(v).upper() for v in values])
    if kind == "has_media":
        return "(COALESCE(json_array_length(m.body, '$.media'), 0) > 0) = ?", [bool(filt["value"])]
    if kind == "content_topic":
        return _any_json("$.content_topics", "json_extract(value, '$.text')", _lowered(values))
    if kind == "hook":
        return _any_json("$.hooks", "json_extract(value, '$.type')", _lowered(values))
    if kind == "content_intention":
        return _in("lower(json_extract(m.body, '$.content_intention'))", _lowered(values))
    if kind == "tone_of_voice":
        return _in("lower(json_extract(m.body, '$.tone_of_voice.text'))", _lowered(values))
    if kind == "cta":
        return _in("lower(json_extract(m.body, '$.cta.text'))", _lowered(values))
    if kind == "mentioned_brands":
        return _brands(filt.get("operator"), filt)
    raise invalid(("filters",), f"filter type {kind!r} does not apply to mentions")


def compile_groups(groups: Sequence[Sequence[Mapping[str, Any]]]) -> tuple[str, list[Any]]:
    """Groups OR-ed, filters inside a group AND-ed; no groups -> ``1`` (everything)."""
    ors, params = [], []
    for group in groups:
        ands = []
        for filt in group:
            sql, values = compile_filter(filt)
            ands.append(f"({sql})")
            params += values
        if ands:
            ors.append("(" + " AND ".join(ands) + ")")
    return (" OR ".join(ors) if ors else "1"), params


def _stored_value(text: str | None) -> Any:
    """A parameter value column: JSON as agreed; plain text is tolerated as a string."""
    try:
        return loads(text)
    except ValueError:
        return text


def page_limit(limit: int | None) -> int:
    """``limit`` of a query body: default 10, at most 100 (the service's list bounds)."""
    if limit is None:
        return DEFAULT_LIMIT
    if not 1 <= limit <= MAX_LIMIT:
        raise invalid(("limit",), f"limit must be between 1 and {MAX_LIMIT}")
    return limit


# --- queries -----------------------------------------------------------------------------


@dataclass(frozen=True)
class MentionQuery:
    """A validated mentions query (the engine's view of the request body)."""

    dataset_ids: Sequence[str]
    sources: Sequence[str] = ()
    groups: Sequence[Sequence[Mapping[str, Any]]] = ()
    q: str | None = None
    sort: str = "date"
    order: Literal["asc", "desc"] = "desc"
    limit: int = 10
    cursor: str | None = None

    def scope(self) -> str:
        """A fingerprint of everything but the page position: a cursor only fits its query."""
        return fingerprint(sorted(self.dataset_ids), sorted(self.sources), self.groups, self.q)


def _membership(dataset_ids: Sequence[str]) -> tuple[str, list[Any]]:
    inner, params = _in("dm.dataset_id", dataset_ids)
    return (
        f"EXISTS (SELECT 1 FROM dataset_mentions dm WHERE dm.source = m.source"
        f" AND dm.id = m.id AND {inner})",
        params,
    )


_OWN_INDEXES = 4
"""A query naming at most this many datasets walks each one's own sort index
(``dataset_sort_keys``) and merges their pages; more (all of an account's, when none are
named) walk the account's index, where most posts belong to a selected dataset."""


def search(conn: Connection, account_id: str, query: MentionQuery) -> Page:
    """One page of mentions rows (``m.*``) matching ``query``, in its sort order.

    ``query.dataset_ids`` must already be the account's live datasets (the route checks).
    A page of a few datasets costs what their own posts make it cost, whatever else the
    account holds: each dataset's sort index is walked to ``limit + 1`` matches, and the
    walks are merged (a post in two of them once: its keys are the same in both).
    """
    _ensure_functions(conn)
    where = ["m.account_id = ?"]
    params: list[Any] = [account_id]
    if query.sources:
        sql, values = _in("m.source", list(query.sources))
        where.append(sql)
        params += values
    if query.groups:
        sql, values = compile_groups(query.groups)
        where.append(f"({sql})")
        params += values
    terms = _WORDS.findall(query.q or "")
    if terms:
        where.append(f"rds_match({_TEXT}, ?)")
        params.append(text_pattern(terms, whole=False))
    sort, secret, scope = SORTS[query.sort], conn.store.secret, query.scope()
    after = (
        decode_cursor(secret, query.cursor, sort, query.order, scope=scope)
        if query.cursor
        else None
    )
    if not query.dataset_ids or len(query.dataset_ids) > _OWN_INDEXES:
        membership, member_params = _membership(query.dataset_ids)
        walk = Walk(
            # Pinning the sort's index keeps the plan an ordered index walk whatever the stats.
            f"mentions m INDEXED BY mentions_sort_{sort.name}",
            " AND ".join([*where, membership]),
            [*params, *member_params],
            sort,
            query.order,
            query.limit,
        )
        rows = keyset_rows(conn, walk, after)
    else:
        own = Sort(sort.name, f"s.by_{sort.name}", "s.mention_rowid")
        found: dict[Any, sqlite3.Row] = {}
        for dataset_id in query.dataset_ids:
            walk = Walk(
                # CROSS JOIN: the dataset's index is the outer loop, each post one rowid probe.
                f"dataset_sort_keys s INDEXED BY dataset_sort_{sort.name}"
                " CROSS JOIN mentions m ON m.rowid = s.mention_rowid",
                " AND ".join(["s.dataset_id = ?", *where]),
                [dataset_id, *params],
                own,
                query.order,
                query.limit,
                columns="m.*",
            )
            for row in keyset_rows(conn, walk, after):
                found[row["_k1"]] = row
        rows = sorted(
            found.values(), key=lambda row: (row["_k0"], row["_k1"]), reverse=query.order == "desc"
        )[: query.limit + 1]
    return page_of(secret, rows, sort=sort, order=query.order, limit=query.limit, scope=scope)


@dataclass(frozen=True)
class Walk:
    """An ordered walk of ``SELECT {columns} FROM {source} WHERE {where}`` by ``sort``,
    ``limit`` rows a page (see :func:`keyset_rows`)."""

    source: str
    where: str
    params: Sequence[Any]
    sort: Sort
    order: Literal["asc", "desc"]
    limit: int
    columns: str = "*"


def keyset_rows(conn: Connection, walk: Walk, after: Sequence[Any] | None) -> list[sqlite3.Row]:
    """Up to ``limit + 1`` rows of ``walk`` after the key ``after``, with their keys as
    ``_k0``/``_k1`` (see :func:`keyset_page`)."""
    sort, order, params = walk.sort, walk.order, walk.params
    direction, op = ("DESC", "<") if order == "desc" else ("ASC", ">")
    select = (
        f"SELECT {walk.columns}, {sort.column} AS _k0, {sort.tiebreak} AS _k1"
        f" FROM {walk.source} WHERE {walk.where}"
    )
    order_by = f"ORDER BY {sort.column} {direction}, {sort.tiebreak} {direction} LIMIT ?"
    want = walk.limit + 1
    if after is None:
        return conn.execute(f"{select} {order_by}", [*params, want]).fetchall()
    rows = conn.execute(
        f"{select} AND {sort.column} = ? AND {sort.tiebreak} {op} ? {order_by}",
        [*params, after[0], after[1], want],
    ).fetchall()
    if len(rows) < want:
        rows += conn.execute(
            f"{select} AND {sort.column} {op} ? {order_by}",
            [*params, after[0], want - len(rows)],
        ).fetchall()
    return rows


def keyset_page(
    conn: Connection,
    *,
    source: str,
    where: str,
    params: Sequence[Any],
    sort: Sort,
    order: Literal["asc", "desc"],
    limit: int,
    cursor: str | None,
    scope: str,
) -> Page:
    """One page of ``SELECT * FROM {source} WHERE {where}`` after the cursor's key.

    Like :func:`rdskit.sandbox.store.cursors.fetch_page`, but as at most two index range scans:
    a row-value bound ``(sort, tie) < (?, ?)`` only narrows the index on ``sort``, so a
    deep page inside one big tie group (100k posts of one run share ``dataset_run_at``)
    would re-scan the group from its start. Reading the rest of the tie group (``sort = ?
    AND tie < ?``), then the values beyond (``sort < ?``), keeps every page equally cheap.
    The index to walk is ``(…, sort, tie)``; ``scope`` binds the cursor to the query.
    """
    secret = conn.store.secret
    after = decode_cursor(secret, cursor, sort, order, scope=scope) if cursor else None
    rows = keyset_rows(conn, Walk(source, where, params, sort, order, limit), after)
    return page_of(secret, rows, sort=sort, order=order, limit=limit, scope=scope)


def lookup(
    conn: Connection, account_id: str, refs: Sequence[Mapping[str, str]], dataset_ids: Sequence[str]
) -> list[sqlite3.Row]:
    """The mentions behind ``refs`` ([{source, id}]) in the order given; unknown refs skipped."""
    if not refs or not dataset_ids:
        return []
    membership, params = _membership(dataset_ids)
    wanted, key_params = keys_table("k", [(ref["source"], ref["id"]) for ref in refs], "source, id")
    rows = conn.execute(
        f"{wanted} SELECT m.* FROM k JOIN mentions m ON m.account_id = ?"
        f" AND m.source = k.source AND m.id = k.id WHERE {membership}",
        [*key_params, account_id, *params],
    ).fetchall()
    by_key = {(row["source"], row["id"]): row for row in rows}
    seen: set[tuple[str, str]] = set()
    ordered = []
    for ref in refs:
        key = (ref["source"], ref["id"])
        if key in by_key and key not in seen:
            seen.add(key)
            ordered.append(by_key[key])
    return ordered


Key = tuple[str, str]


class _Lookups(NamedTuple):
    """What the mentions of a page take from other tables, by ``(source, id)``."""

    keys: list[Key]
    datasets: dict[Key, list[dict[str, str]]]
    parameters: dict[Key, dict[str, Any]]
    patterns: dict[Key, dict[str, Any]]
    comments: dict[Key, list[str]]
    """The comment lists (JSON text) of the post's runs in scope, newest run first; a post
    no run commented on is absent, one only runs out of scope commented on maps to []."""


def _lookups(
    conn: Connection,
    account_id: str,
    rows: Sequence[sqlite3.Row],
    parameter_ids: Sequence[str],
    dataset_ids: Sequence[str] | None,
) -> _Lookups:
    keys = [(row["source"], row["id"]) for row in rows]
    page_keys, key_params = keys_table("k", keys, "source, id")
    datasets: dict[Key, list[dict[str, str]]] = {key: [] for key in keys}
    for dm in conn.execute(
        f"{page_keys} SELECT dm.source, dm.id, d.id AS dataset_id, d.name FROM k"
        " JOIN dataset_mentions dm ON dm.source = k.source AND dm.id = k.id"
        " JOIN datasets d ON d.id = dm.dataset_id"
        " WHERE d.account_id = ? AND d.deleted_at IS NULL ORDER BY dm.dataset_run_at, d.id",
        [*key_params, account_id],
    ):
        datasets[(dm["source"], dm["id"])].append({"id": dm["dataset_id"], "name": dm["name"]})
    parameters: dict[Key, dict[str, Any]] = {}
    if parameter_ids:
        wanted, wanted_params = _in("p.parameter_id", list(parameter_ids))
        for p in conn.execute(
            f"{page_keys} SELECT p.source, p.mention_id, p.parameter_id, p.value, p.status,"
            " p.computed_at FROM k JOIN mention_parameters p ON p.account_id = ?"
            f" AND p.source = k.source AND p.mention_id = k.id WHERE {wanted}",
            [*key_params, account_id, *wanted_params],
        ):
            parameters.setdefault((p["source"], p["mention_id"]), {})[p["parameter_id"]] = {
                "value": _stored_value(p["value"]),
                "status": p["status"],
                "computed_at": None if p["computed_at"] is None else int(p["computed_at"]),
            }
    scope = None if dataset_ids is None else set(dataset_ids)
    comments: dict[Key, list[str]] = {}
    for row in conn.execute(
        f"{page_keys} SELECT rc.source, rc.post_id, rc.dataset_id, rc.comments FROM k"
        " JOIN run_comments rc ON rc.account_id = ? AND rc.source = k.source"
        " AND rc.post_id = k.id ORDER BY rc.rowid DESC",
        [*key_params, account_id],
    ):
        lists = comments.setdefault((row["source"], row["post_id"]), [])
        if scope is None or row["dataset_id"] in scope:
            lists.append(row["comments"])
    return _Lookups(
        keys, datasets, parameters, pattern_assignments(conn, account_id, keys), comments
    )


def _merged(lists: Sequence[str]) -> list[dict[str, Any]]:
    """The comments of ``lists`` (JSON text, newest run first), each comment once."""
    return unique(comment for text in lists for comment in loads(text))


def _collections(datasets: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each dataset is also a collection (pattern detections and Ask name it by uid)."""
    return [{"uid": d["id"], "name": d["name"]} for d in datasets]


def _hydrated(row: sqlite3.Row, key: Key, found: _Lookups) -> dict[str, Any]:
    # Every Mention field in model order (as the model dumps them), then the body's.
    body: dict[str, Any] = _UNSET | loads(row["body"])
    body["datasets"] = found.datasets[key]
    body["collections"] = _collections(found.datasets[key])
    body["dataset_run_at"] = int(row["first_seen_at"])
    body["parameters"] = found.parameters.get(key, {})
    body["pattern_assignments"] = found.patterns.get(key, {})
    if key in found.comments:  # else: stored before per-run comments (the body's are kept)
        body["comments"] = _merged(found.comments[key])
    for name, empty in EMPTY_WHEN_NONE.items():
        if body[name] is None:
            body[name] = empty()
    return body


def hydrate(
    conn: Connection,
    account_id: str,
    rows: Sequence[sqlite3.Row],
    parameter_ids: Sequence[str] = (),
    dataset_ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Mention wire dicts: the stored body plus ``datasets``, ``collections``,
    ``dataset_run_at``, ``parameters``, ``pattern_assignments`` and ``comments``: those the
    runs of ``dataset_ids`` (all datasets when None) collected, newest run first.

    Served as they are: bodies and comments were validated when written
    (:func:`rdskit.sandbox.backend.datasets.wire_mention`), and what is added here is
    built in its wire form (whole Unix seconds, floats for confidences), so each body is
    parsed once and never re-validated. :func:`render` gives the same mentions as JSON text.
    """
    if not rows:
        return []
    found = _lookups(conn, account_id, rows, parameter_ids, dataset_ids)
    return [_hydrated(row, key, found) for row, key in zip(rows, found.keys, strict=True)]


def render(
    conn: Connection,
    account_id: str,
    rows: Sequence[sqlite3.Row],
    parameter_ids: Sequence[str] = (),
    dataset_ids: Sequence[str] | None = None,
) -> list[str]:
    """The mentions :func:`hydrate` gives, each as the JSON text the API serves, without
    parsing stored bodies: the stored text around the derived fields
    (:mod:`rdskit.sandbox.backend.mention_wire`) joined with those fields' text.

    A run's comment list is served as stored (the writer keeps each comment once per
    run); only a post with comments from several runs in scope has them parsed and merged.
    A body not in the stored layout (an older sandbox's) is parsed and encoded whole.
    """
    if not rows:
        return []
    found = _lookups(conn, account_id, rows, parameter_ids, dataset_ids)
    memo: dict[tuple[str, ...], tuple[str, str]] = {}  # the posts of a page share datasets
    out = []
    for row, key in zip(rows, found.keys, strict=True):
        parts = split(row["body"])
        if parts is None:
            out.append(encode(_hydrated(row, key, found)))
            continue
        datasets = found.datasets[key]
        names = tuple(f"{d['id']}\0{d['name']}" for d in datasets)
        if names not in memo:
            memo[names] = encode(datasets), encode(_collections(datasets))
        lists = found.comments.get(key)
        if lists is None:
            comments = parts.comments
        elif len(lists) == 1:
            comments = lists[0]
        else:
            comments = encode(_merged(lists))
        parameters, patterns = found.parameters.get(key), found.patterns.get(key)
        derived = (
            str(int(row["first_seen_at"])),
            *memo[names],
            comments,
            encode(parameters) if parameters else "{}",
            encode(patterns) if patterns else "{}",
        )
        out.append(join(parts, derived))
    return out
