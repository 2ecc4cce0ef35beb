"""The parquet cache behind ``client.mentions.to_frame(..., cache=True)``.

One parquet file per (account, query) under :func:`cache_dir` (``RDSKIT_CACHE_DIR`` or
the user cache directory), named by a hash of the account id (from ``client.me()``) and
the normalised query: page size, cursor and sort do not change which mentions match, so
they are left out of the key.

A refresh asks for the mentions newest first by ``dataset_run_at`` (when each post
entered the account's datasets) and stops at the first one already cached, so only
newly collected posts are fetched, including old posts a new run picked up (sorting by
``created_at`` would miss those). The new rows are merged over the cached ones and
deduplicated on ``(source, id)`` (the fresh copy wins), then sorted as the query asked.

The cache is private (:mod:`rdskit._files`): directories 0700, files 0600, written
atomically (fsynced before the replace) and never read or written through a symlink. A
cache file that cannot be read (truncated, damaged, not a mentions table) is reported once
with a :class:`~rdskit.errors.CacheWarning`, moved aside (``<name>.damaged-<time>``) and
its mentions are fetched again.

Example:
    >>> df = client.mentions.to_frame(dataset_ids=["ds_1"], cache=True)  # doctest: +SKIP
    >>> # ... a new run completes; the next call fetches only its new posts:
    >>> df = client.mentions.to_frame(dataset_ids=["ds_1"], cache=True)  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from rdskit._files import CACHE_ENV, cache_dir, private_dir, read_private, writing
from rdskit.errors import CacheWarning, warn
from rdskit.frames import _arrow
from rdskit.frames._pages import frame_datasets, mention_pages
from rdskit.frames._surrogates import repairs_of, row_label, with_repairs
from rdskit.frames.columns import MENTIONS
from rdskit.frames.mentions import mentions_table
from rdskit.frames.provenance import fetch_record, from_schema, schema_metadata
from rdskit.models import MentionsQuery
from rdskit.resources._reuse import account_identity

__all__ = ["CACHE_ENV", "cache_dir", "cache_path", "cached_mentions", "query_key"]

_NOT_IN_KEY = ("sort", "order", "limit", "cursor")
_UNORDERED = ("dataset_ids", "sources", "parameter_ids")

# The frame column each mentions sort orders by.
SORT_COLUMNS = {
    "date": "created_at",
    "likes": "num_likes",
    "engagement_rate": "engagement_rate",
    "views": "num_views",
    "comments": "num_comments",
    "shares": "num_shares",
    "sentiment_score": "sentiment_score",
    "dataset_run_at": "dataset_run_at",
}


def query_key(account: str, query: Mapping[str, Any]) -> str:
    """A stable hash of the account and the query's matching criteria.

    Example:
        >>> query_key("acc_1", {"dataset_ids": ["b", "a"], "sort": "likes"}) == query_key(
        ...     "acc_1", {"dataset_ids": ["a", "b"], "limit": 50})
        True
    """
    wire = MentionsQuery.model_validate(dict(query)).to_wire()
    normal = {
        k: sorted(v) if k in _UNORDERED else v for k, v in wire.items() if k not in _NOT_IN_KEY
    }
    text = json.dumps({"account": account, "query": normal}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cache_path(account: str, query: Mapping[str, Any]) -> Path:
    """The cache file of ``query`` for ``account`` (an account identity)."""
    return cache_dir() / "mentions" / f"{query_key(account, query)}.parquet"


def _newer(client: Any, query: Mapping[str, Any], cached: pa.Table | None) -> list[Any]:
    """Mentions collected after the newest cached one (all of them without a cache)."""
    fetch = {**query, "sort": "dataset_run_at", "order": "desc"}
    watermark: datetime | None = None
    known: set[tuple[str, str]] = set()
    if cached is not None and cached.num_rows:
        watermark = pc.max(cached["dataset_run_at"]).as_py()
        known = set(zip(cached["source"].to_pylist(), cached["id"].to_pylist(), strict=True))
    fresh: list[Any] = []
    for page in mention_pages(client, fetch):
        for mention in page:
            seen = mention.dataset_run_at
            # Posts of one run share a timestamp: stop at the first one already cached.
            if (
                watermark is not None
                and seen is not None
                and (
                    seen < watermark
                    or (seen == watermark and (mention.source, mention.id) in known)
                )
            ):
                return fresh
            fresh.append(mention)
    return fresh


def _read_cache(path: Path) -> pa.Table | None:
    """The cached table at ``path``; None when there is none, or when it cannot be read
    (then it is moved aside, once, with a warning, so the next call starts clean)."""
    if not path.exists():
        return None
    try:
        table = pq.read_table(pa.BufferReader(read_private(path)))
        missing = [
            name for name in ("source", "id", "dataset_run_at") if name not in table.schema.names
        ]
        if missing:
            raise ValueError(f"it has no {', '.join(missing)} column")
    except (pa.ArrowException, ValueError) as exc:
        aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%dT%H%M%S')}")
        os.replace(path, aside)
        warn(
            f"the mentions cache file {path} could not be read ({str(exc)[:200]}); it was "
            f"moved to {aside.name} and its mentions are fetched again",
            CacheWarning,
        )
        return None
    return table


def _sorted(table: pa.Table, query: Mapping[str, Any]) -> pa.Table:
    column = SORT_COLUMNS.get(query.get("sort") or "date")
    if column is None:
        return table
    order = "ascending" if query.get("order") == "asc" else "descending"
    return table.sort_by([(column, order)])


def cached_mentions(
    client: Any, query: Mapping[str, Any], parameter_names: Mapping[str, str]
) -> pa.Table:
    """The mentions of ``query``: the cached table refreshed with what is new, saved back."""
    # Keyed on who the account is (account, seat and creation time, as the ledger keys it),
    # not on the account id alone: a fresh sandbox repeats the last one's ids, and its
    # posts must not be merged with a cache the previous sandbox left behind.
    path = cache_path(client._run(account_identity(client._core)), query)
    private_dir(path.parent)  # before reading: a planted or shared directory is refused
    cached = _read_cache(path)
    fresh = mentions_table(_newer(client, query, cached), parameter_names)
    # The fresh copy of a post wins over the cached one.
    table = _arrow.combine(
        [fresh] if cached is None else [fresh, cached], MENTIONS, ("source", "id")
    )
    # Provenance: the cached file's fetches, then this refresh.
    earlier = from_schema(cached.schema if cached is not None else None).get("fetches", [])
    datasets = frame_datasets(table, query.get("dataset_ids"))
    fetch = fetch_record(
        client, "mentions", query, table.num_rows, datasets=datasets, dataset_runs=True, cache=True
    )
    record = {"kind": "mentions", "fetches": [*earlier, fetch]}
    metadata = {**(table.schema.metadata or {}), **schema_metadata(record)}
    # Text repaired when the cached rows were read, and now: a cached row replaced by
    # its fresh copy counts as the fresh copy was read (repaired again, or not at all).
    refreshed = {row_label(str(i)) for i in fresh["id"].to_pylist()}
    repairs = {
        field_path: {
            **{k: n for k, n in rows.items() if k not in refreshed},
            **repairs_of(fresh).get(field_path, {}),
        }
        for field_path, rows in repairs_of(cached).items()
    }
    for field_path, rows in repairs_of(fresh).items():
        repairs.setdefault(field_path, dict(rows))
    table = with_repairs(table.replace_schema_metadata(metadata), repairs)
    with writing(path) as handle:  # atomic: a crash never leaves a half-written cache
        pq.write_table(table, handle)
    return _sorted(table, query)
