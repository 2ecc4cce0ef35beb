"""Client-side loaders: fetch every page of a resource into a frame.

Each function takes a (sync) :class:`rdskit.Client`; the client attaches them as methods
(``client.mentions.to_frame(**query)`` is :func:`mentions_to_frame`). Frames remember the
client in ``df.attrs`` so ``df.rds.ask(...)`` can use it.

Example:
    >>> df = mentions_to_frame(client, dataset_ids=["ds_1"], cache=True)  # doctest: +SKIP
    >>> df.rds.volume("W")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa

from rdskit.frames import _arrow
from rdskit.frames._pages import PAGE_SIZE, frame_datasets, mention_pages
from rdskit.frames.accessor import attach_client
from rdskit.frames.cache import cached_mentions
from rdskit.frames.loaders import (
    datasets_frame,
    messages_frame,
    pattern_items_frame,
    usage_frame,
)
from rdskit.frames.mentions import mentions_table, mentions_table_from_pages
from rdskit.frames.profiles import profiles_frame
from rdskit.frames.provenance import from_schema, record_fetch, restore
from rdskit.models import PostPointer
from rdskit.resources.mentions import wire_pages

__all__ = [
    "PAGE_SIZE",
    "datasets_to_frame",
    "lookup_mentions",
    "mention_pages",
    "mentions_to_frame",
    "messages_to_frame",
    "parameter_names",
    "pattern_items_to_frame",
    "profiles_to_frame",
    "usage_history_to_frame",
]

LOOKUP_BATCH = 100
"""Post refs per mentions lookup."""


def parameter_names(client: Any, parameter_ids: Sequence[str] | None) -> dict[str, str]:
    """``{id: name}`` of the requested custom parameters (the id when it has no name)."""
    if not parameter_ids:
        return {}
    known = {p.id: p.name for p in client.custom_parameters.list()}
    return {pid: known.get(pid) or pid for pid in parameter_ids}


def mentions_to_frame(client: Any, *, cache: bool = False, **query: Any) -> pd.DataFrame:
    """Every mention matching ``query`` (the arguments of ``client.mentions.list``) as a
    mentions frame; custom parameters in ``parameter_ids`` get columns named after them.

    ``cache=True`` keeps the result in a parquet cache (see :mod:`rdskit.frames.cache`)
    and later calls fetch only the mentions collected since.

    Example:
        >>> df = client.mentions.to_frame(
        ...     dataset_ids=["ds_1"], parameter_ids=["cp_1"])  # doctest: +SKIP
    """
    names = parameter_names(client, query.get("parameter_ids"))
    if cache:
        # The cache stores its fetches (this one included) in the file's schema metadata.
        table = cached_mentions(client, query, names)
        frame = restore(_arrow.to_frame(table, "mentions"), from_schema(table.schema))
    else:
        # Page by page, as wire dicts: the frame needs no model objects, and no page's
        # Python objects outlive its Arrow record batch.
        pages = wire_pages(client, **{"limit": PAGE_SIZE, **query})
        table = mentions_table_from_pages(pages, names)
        frame = record_fetch(
            _arrow.to_frame(table, "mentions"),
            client,
            "mentions",
            query,
            datasets=frame_datasets(table, query.get("dataset_ids")),
            dataset_runs=True,
        )
    return attach_client(frame, client)


def profiles_to_frame(client: Any, **query: Any) -> pd.DataFrame:
    """Every audience profile matching ``query`` (the arguments of
    ``client.audience_profiles.list``) as a profiles frame.

    Example:
        >>> client.audience_profiles.to_frame(audience_dataset_ids=["ad_1"])  # doctest: +SKIP
    """
    frame = _all(profiles_frame, client.audience_profiles.list, client, query)
    ids = query.get("audience_dataset_ids") or []
    datasets = [{"id": i} for i in ids]
    return record_fetch(frame, client, "audience_profiles", query, datasets=datasets)


def lookup_mentions(client: Any, refs: Sequence[Mapping[str, str]]) -> list[Any]:
    """The mentions behind ``[{source, id}]`` post refs (unknown ones left out)."""
    found = []
    for start in range(0, len(refs), LOOKUP_BATCH):
        batch = list(refs[start : start + LOOKUP_BATCH])
        found += list(client.mentions.list(post_refs=batch, limit=PAGE_SIZE))
    return found


def pattern_items_to_frame(client: Any, pattern_id: str, posts: bool = False) -> pd.DataFrame:
    """A pattern's items, one row each; with ``posts=True`` a mentions frame of their
    posts instead, one row per (item, post) with ``item_id`` and ``item_title`` first.

    Example:
        >>> posts = client.patterns.items_frame("pt_1", posts=True)  # doctest: +SKIP
        >>> posts.groupby("item_title").size()  # doctest: +SKIP
    """
    pattern = client.patterns.get(pattern_id)
    source = {"pattern_id": pattern_id, "posts": posts}
    if not posts:
        frame = pattern_items_frame(pattern)
        return attach_client(record_fetch(frame, client, "patterns", source), client)
    members = [
        (
            item,
            [
                (p.source, p.id)
                for p in client.patterns.item(pattern_id, item.item_id).posts
                if isinstance(p, PostPointer)  # a pointer of an unknown type names no post
            ],
        )
        for item in pattern.items
    ]
    refs = list(dict.fromkeys(key for _, keys in members for key in keys))
    table = mentions_table(lookup_mentions(client, [{"source": s, "id": i} for s, i in refs]))
    row_of = {
        key: row
        for row, key in enumerate(
            zip(table["source"].to_pylist(), table["id"].to_pylist(), strict=True)
        )
    }
    pairs = [(item, row_of[key]) for item, keys in members for key in keys if key in row_of]
    out = table.take(pa.array([row for _, row in pairs], pa.int64()))
    out = out.add_column(0, "item_title", pa.array([item.title for item, _ in pairs], pa.string()))
    out = out.add_column(0, "item_id", pa.array([item.item_id for item, _ in pairs], pa.string()))
    frame = _arrow.to_frame(out, "mentions")
    datasets = frame_datasets(out, None)
    record_fetch(frame, client, "patterns", source, datasets=datasets, dataset_runs=True)
    return attach_client(frame, client)


def messages_to_frame(client: Any, agent_id: str) -> pd.DataFrame:
    """Every alert message of a tracking agent, newest first.

    Example:
        >>> client.tracking_agents.messages_frame("ta_1").head()  # doctest: +SKIP
    """
    frame = _all(
        messages_frame, lambda **q: client.tracking_agents.messages(agent_id, **q), client, {}
    )
    return record_fetch(frame, client, "tracking_messages", {"agent_id": agent_id})


def usage_history_to_frame(client: Any) -> pd.DataFrame:
    """The account's whole usage history, newest first (exact decimal money columns).

    Example:
        >>> client.usage_history_frame().groupby("category")["quantity"].sum()  # doctest: +SKIP
    """
    return record_fetch(_all(usage_frame, client.usage_history, client, {}), client, "usage", {})


def datasets_to_frame(client: Any) -> pd.DataFrame:
    """Every dataset of the account.

    Example:
        >>> client.datasets.to_frame()[["name", "mentions_count"]]  # doctest: +SKIP
    """
    frame = _all(datasets_frame, client.datasets.list, client, {})
    return record_fetch(frame, client, "datasets", {})


def _all(
    loader: Callable[[Any], pd.DataFrame],
    list_call: Callable[..., Any],
    client: Any,
    query: Mapping[str, Any],
) -> pd.DataFrame:
    """``loader`` over every item of a paginated list call."""
    return attach_client(loader(list_call(**{"limit": PAGE_SIZE, **query})), client)
