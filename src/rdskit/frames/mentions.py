"""Mentions -> a flat, typed DataFrame (one row per post, unique on ``(source, id)``).

Example:
    >>> df = mentions_frame([{"source": "reddit", "id": "t3_a", "created_at": 1767225600,
    ...     "engagement_rate": "0.042", "sentiment": {"negative": "0.1", "neutral": "0.2",
    ...     "positive": "0.7"}}])
    >>> df.loc[0, "engagement_rate"], df.loc[0, "sentiment"], str(df.loc[0, "created_at"])
    (0.042, 'positive', '2026-01-01 00:00:00+00:00')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from rdskit.frames import _arrow
from rdskit.frames._surrogates import Replaced, repaired_value
from rdskit.frames.columns import (
    AD_META_FIELDS,
    EMOTIONS,
    HOOK,
    INT,
    MEDIA_OBJECT,
    MENTIONS,
    PARAMETER,
    SENTIMENT_LABELS,
    STRING,
    STRINGS,
    TEXT_EVIDENCE,
    TIMESTAMP,
)

__all__ = [
    "CHUNK_ROWS",
    "WIRE",
    "mentions_frame",
    "mentions_table",
    "mentions_table_from_pages",
]

_S, _F = STRING, pa.float64()
_UNIX = pa.timestamp("s", tz="UTC")


def _strings(names: Iterable[str]) -> pa.StructType:
    return pa.struct([(n, _S) for n in names])


WIRE = pa.struct(
    [
        ("source", _S),
        ("id", _S),
        ("content_type", _S),
        # ended_at is Unix seconds on the wire (a timestamp in the frame).
        (
            "ad_meta",
            pa.struct([(n, _UNIX if t == TIMESTAMP else t) for n, t in AD_META_FIELDS.items()]),
        ),
        ("ad_flight_days", INT),
        ("ad_flight_seconds", INT),
        # Only the avatar's first URL is kept: reading whole media objects costs time.
        (
            "author",
            pa.struct(
                [
                    ("avatar", pa.struct([("version_list", pa.list_(_strings(["url"])))])),
                    *_strings(["title", "title_url", "headline", "headline_url"]),
                ]
            ),
        ),
        *_strings(
            [
                "title",
                "text",
                "url",
                "language",
                "country_code",
                "summary",
                "category",
                "content_intention",
                "speech_tempo",
                "music_genre",
            ]
        ),
        ("media", pa.list_(MEDIA_OBJECT)),
        ("sound", _strings(["name", "author", "cover_image_url", "url"])),
        *[(n, INT) for n in ("num_views", "num_likes", "num_comments", "num_shares")],
        ("are_views_estimated", pa.bool_()),
        ("engagement_rate", _S),
        ("sentiment_score", _S),
        ("sentiment", _strings(SENTIMENT_LABELS)),
        ("emotions", _strings(EMOTIONS)),
        ("tone_of_voice", TEXT_EVIDENCE),
        ("narrative_structure", TEXT_EVIDENCE),
        ("cta", TEXT_EVIDENCE),
        ("content_topics", pa.list_(TEXT_EVIDENCE)),
        ("questions", pa.list_(TEXT_EVIDENCE)),
        ("hooks", pa.list_(HOOK)),
        ("vibe", pa.map_(_S, _F)),
        ("mentioned_brands", STRINGS),
        ("entities", STRINGS),
        ("created_at", _UNIX),
        ("dataset_run_at", _UNIX),
        ("datasets", pa.list_(_strings(["id", "name"]))),
        ("collections", pa.list_(_strings(["uid", "name"]))),
        # Comment timestamps are ISO strings; Arrow parses them in one vectorised cast.
        (
            "comments",
            pa.list_(
                pa.struct(
                    [
                        *_strings(["id", "author_username", "author_name", "body"]),
                        ("num_likes", INT),
                        ("num_replies", INT),
                        ("created_at", _S),
                    ]
                )
            ),
        ),
        (
            "parameters",
            pa.map_(_S, pa.struct([("value", _S), ("status", _S), ("computed_at", _UNIX)])),
        ),
        (
            "pattern_assignments",
            pa.map_(
                _S, pa.list_(pa.struct([("pattern_item_id", _S), ("name", _S), ("confidence", _F)]))
            ),
        ),
    ]
)
"""The Mention wire schema the converter reads (fields as the service sends them)."""

CHUNK_ROWS = 16_384
"""Mentions converted at a time (the frame's columns are chunked accordingly)."""


def _parameters(
    maps: pa.Array, names: Mapping[str, str], taken: set[str]
) -> tuple[pa.Array, dict[str, pa.Array]]:
    """The ``parameters`` list column and one value column per parameter (named ones
    first, even when no row has a value yet)."""
    pairs = _arrow.entries(maps)
    flat_pairs = pc.list_flatten(pairs)
    ids, item = pc.struct_field(flat_pairs, [0]), pc.struct_field(flat_pairs, [1])
    value = pc.struct_field(item, [0])
    labels = pa.array([names.get(i, i) for i in ids.to_pylist()], _S)
    flat = pa.StructArray.from_arrays(
        [ids, labels, value, pc.struct_field(item, [1]), pc.struct_field(item, [2])],
        names=PARAMETER.names,
    )
    offsets = _arrow.offsets(pairs)
    values = pa.ListArray.from_arrays(offsets, pa.StructArray.from_arrays([ids, value], ["k", "v"]))
    columns = {
        _arrow.unique_name(names.get(pid, pid), taken, "param_"): column
        for pid, column in _arrow.map_columns(values, "", list(names)).items()
    }
    return pa.ListArray.from_arrays(offsets, flat, mask=maps.is_null()), columns


def _assignments(maps: pa.Array) -> pa.Array:
    """``{pattern_id: [assignment]}`` -> ``[assignment with its pattern_id]`` per row."""
    pairs = _arrow.entries(maps)
    entries = pc.list_flatten(pairs)
    per_pattern = pc.struct_field(entries, [1])
    owner = pc.list_parent_indices(per_pattern)  # the entry each assignment came from
    items = pc.list_flatten(per_pattern)
    flat = pa.StructArray.from_arrays(
        [
            pc.struct_field(entries, [0]).take(owner),
            *(pc.struct_field(items, [i]) for i in range(3)),
        ],
        names=["pattern_id", "pattern_item_id", "name", "confidence"],
    )
    rows = pc.list_parent_indices(pairs).take(owner)
    return _arrow.regroup(len(maps), rows, flat, maps.is_null())


def mentions_table(
    mentions: Iterable[Any], parameter_names: Mapping[str, str] | None = None
) -> pa.Table:
    """The Arrow table behind :func:`mentions_frame` (same columns, Arrow types)."""
    rows = _arrow.wire_rows(mentions)
    # Chunks bound the converter's scratch memory (its buffers grow by doubling).
    return mentions_table_from_pages(
        (rows[i : i + CHUNK_ROWS] for i in range(0, len(rows), CHUNK_ROWS)), parameter_names
    )


def mentions_table_from_pages(
    pages: Iterable[Sequence[Any]], parameter_names: Mapping[str, str] | None = None
) -> pa.Table:
    """:func:`mentions_table` of pages of mentions, read one page at a time.

    Each page becomes an Arrow record batch of the wire schema as it arrives, so its
    Python objects can go before the next page is read: memory holds the Arrow data, a
    page of dicts and one chunk (:data:`CHUNK_ROWS` mentions) being turned into the
    frame's columns, never Python objects for the whole dataset. The chunks are those
    :func:`mentions_table` makes of the same mentions, so the table is the same.

    Example:
        >>> pages = [[{"source": "reddit", "id": "a"}], [{"source": "tiktok", "id": "b"}]]
        >>> mentions_table_from_pages(pages)["source"].to_pylist()
        ['reddit', 'tiktok']
    """
    replaced = Replaced()  # one warning for the table, however many pages needed repair
    # The names become column names, which Arrow stores as UTF-8 too.
    names = repaired_value(parameter_names or {}, None, "parameter_names", "the names", replaced)
    chunks: list[pa.Table] = []
    pending: list[pa.StructArray] = []  # wire batches not yet in a chunk
    held = 0
    for page in pages:
        batch = _arrow.struct_array(_arrow.wire_rows(page), WIRE, replaced)
        pending.append(batch)
        held += len(batch)
        while held >= CHUNK_ROWS:
            wire = pa.concat_arrays(pending)
            chunks.append(_chunk(wire.slice(0, CHUNK_ROWS), names))
            rest = wire.slice(CHUNK_ROWS)
            # A copy of the rest, so the full batches behind the chunk can be freed.
            pending = [pa.concat_arrays([rest])] if len(rest) else []
            held = len(rest)
    if held or not chunks:
        chunks.append(_chunk(pa.concat_arrays(pending) if pending else _EMPTY, names))
    replaced.warn()
    return replaced.marked(_arrow.combine(chunks, MENTIONS, ("source", "id")))


_EMPTY = pa.array([], WIRE)


def _chunk(wire: pa.StructArray, parameter_names: Mapping[str, str]) -> pa.Table:
    field = _arrow.struct_paths(wire)

    def shares(path: str, labels: Iterable[str]) -> dict[str, pa.Array]:
        # Read as numbers once, for their own columns and for the dominant label.
        for label in labels:
            field[path, label] = _arrow.cast(field[path, label], _F)
        return {label: field[path, label] for label in labels}

    # Neutral first: ties go to it, as the service's dominant-label filters do.
    sentiment = shares("sentiment", ("neutral", "negative", "positive"))
    emotions = shares("emotions", EMOTIONS)
    media_count = pc.fill_null(pc.list_value_length(field[("media",)]), 0)
    avatar = field["author", "avatar", "version_list"]
    taken = {c.name for c in MENTIONS.columns}
    parameters, parameter_columns = _parameters(field[("parameters",)], parameter_names, taken)
    assignments = _assignments(field[("pattern_assignments",)])
    derived = {
        "author_avatar_url": pc.struct_field(_arrow.first_of(avatar), [0]),
        "sentiment": _arrow.dominant(sentiment),
        "dominant_emotion": _arrow.dominant(emotions),
        "hook_types": _arrow.list_field(field[("hooks",)], "type"),
        "topics": _arrow.list_field(field[("content_topics",)], "text"),
        "media_count": media_count,
        "has_media": pc.greater(media_count, 0),
        "pattern_item_ids": _arrow.list_field(assignments, "pattern_item_id"),
        "parameters": parameters,
        "pattern_assignments": assignments,
    }
    families = {
        "vibe_<key>": _arrow.map_columns(field[("vibe",)], "vibe_"),
        "<parameter name>": parameter_columns,
    }
    return _arrow.build_table(MENTIONS, field, derived, families)


def mentions_frame(
    mentions: Iterable[Any], parameter_names: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Mentions (wire dicts or :class:`~rdskit.models.Mention`, any iterable or a client
    page) as a DataFrame with the columns of ``docs/columns.md``.

    ``parameter_names`` maps custom parameter ids to names: each parameter's values get a
    column named after it.

    Example:
        >>> df = mentions_frame([{"source": "tiktok", "id": "1", "num_likes": 3,
        ...     "parameters": {"cp_1": {"value": "oatly", "status": "done"}}}],
        ...     parameter_names={"cp_1": "brand"})
        >>> df.loc[0, "brand"], df["num_likes"].dtype.name
        ('oatly', 'int64[pyarrow]')
    """
    return _arrow.to_frame(mentions_table(mentions, parameter_names), "mentions")
