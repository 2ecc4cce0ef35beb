"""Loaders for the small resources: pattern items, tracking messages, usage, datasets.

Example:
    >>> usage_frame([{"id": 7, "category": "mention", "quantity": 0.5, "created_at": 0,
    ...     "quantity_credits": "50.000000"}]).loc[0, "quantity"]
    Decimal('0.500000000000')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
import pyarrow as pa

from rdskit.frames import _arrow
from rdskit.frames._surrogates import Replaced, repaired_value
from rdskit.frames.columns import (
    DATASETS,
    FLOAT,
    INT,
    MESSAGES,
    PATTERN_ITEMS,
    STRING,
    USAGE,
    FrameSpec,
)

__all__ = ["datasets_frame", "messages_frame", "pattern_items_frame", "usage_frame"]

_S = STRING
_UNIX = pa.timestamp("s", tz="UTC")


def _wire(fields: str, arrow: pa.DataType) -> list[tuple[str, pa.DataType]]:
    return [(name, arrow) for name in fields.split()]


_ITEM = pa.struct([*_wire("item_id title synopsis", _S), ("post_count", INT)])

_MESSAGE = pa.struct(
    [
        *_wire("message_id agent_id agent_name short_preview_message text", _S),
        *_wire("comment_count new_mention_count", INT),
        ("sentiment_score", FLOAT),
        ("created_at", _UNIX),
        (
            "references",
            pa.list_(
                pa.struct(
                    [*_wire("type id source", _S), *_wire("citation start_index end_index", INT)]
                )
            ),
        ),
    ]
)

# Money arrives as JSON numbers or decimal strings; reading both as text keeps them exact
# (a float is read through its shortest repr) until the cast to decimal.
_USAGE = pa.struct(
    [
        ("id", INT),
        ("created_at", _UNIX),
        *_wire("category quantity quantity_credits credit_rate_usd", _S),
        *_wire("billing_catalog_version credit_value_basis", _S),
    ]
)

# Dataset timestamps are ISO strings on the wire; the cast to timestamp parses them.
_DATASET = pa.struct(
    [
        *_wire("id name created_at updated_at url", _S),
        *_wire("mentions_count images_count videos_count", INT),
    ]
)


def _frame(spec: FrameSpec, items: Iterable[Any], wire: pa.StructType, key: str) -> pd.DataFrame:
    replaced = Replaced()  # one warning for the frame, and its provenance step
    rows = _arrow.unique(_arrow.struct_array(_arrow.wire_rows(items), wire, replaced), (key,))
    replaced.warn()
    return _arrow.to_frame(replaced.marked(_arrow.build_table(spec, rows)), spec.name)


def pattern_items_frame(pattern: Mapping[str, Any] | Any) -> pd.DataFrame:
    """A pattern's items (a :class:`~rdskit.models.Pattern` or its wire dict), one row each.

    Example:
        >>> df = pattern_items_frame({"id": "pt_1", "summary": "s", "items": [
        ...     {"item_id": "i1", "title": "Price", "synopsis": "Too dear", "post_count": 4}]})
        >>> df[["pattern_id", "title", "post_count"]].values.tolist()
        [['pt_1', 'Price', 4]]
    """
    (wire,) = _arrow.wire_rows([pattern])
    replaced = Replaced()  # one warning for the frame
    items = _arrow.struct_array(wire.get("items") or [], _ITEM, replaced)
    pattern_id = repaired_value(wire.get("id"), _S, "id", "the pattern", replaced)
    replaced.warn()
    derived = {"pattern_id": pa.array([pattern_id] * len(items), _S)}
    table = replaced.marked(_arrow.build_table(PATTERN_ITEMS, items, derived))
    return _arrow.to_frame(table, PATTERN_ITEMS.name)


def messages_frame(messages: Iterable[Any]) -> pd.DataFrame:
    """Tracking agent alert messages (:class:`~rdskit.models.TrackingMessage` or wire
    dicts, any iterable or a client page), one row per message.

    Example:
        >>> messages_frame([{"message_id": "tam_1", "agent_id": "ta_1", "created_at": 0,
        ...     "new_mention_count": 3}]).loc[0, "new_mention_count"]
        3
    """
    return _frame(MESSAGES, messages, _MESSAGE, "message_id")


def usage_frame(rows: Iterable[Any]) -> pd.DataFrame:
    """Usage history rows (:class:`~rdskit.models.UsageRow` or wire dicts), one per
    charge; money columns are exact decimals (``quantity`` is USD, never credits).

    Example:
        >>> df = usage_frame([{"id": 1, "category": "mention", "quantity": 0.1,
        ...     "created_at": 0}, {"id": 2, "category": "mention", "quantity": 0.2,
        ...     "created_at": 0}])
        >>> df["quantity"].sum()
        Decimal('0.300000000000')
    """
    return _frame(USAGE, rows, _USAGE, "id")


def datasets_frame(datasets: Iterable[Any]) -> pd.DataFrame:
    """Datasets (:class:`~rdskit.models.Dataset` or wire dicts), one row each.

    Example:
        >>> df = datasets_frame([{"id": "ds_1", "name": "oat", "created_at":
        ...     "2026-01-01T00:00:00Z", "mentions_count": 120}])
        >>> str(df.loc[0, "created_at"]), df.loc[0, "mentions_count"]
        ('2026-01-01 00:00:00+00:00', 120)
    """
    return _frame(DATASETS, datasets, _DATASET, "id")
