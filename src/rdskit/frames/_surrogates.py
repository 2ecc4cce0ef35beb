"""Lone surrogates in the text a frame reads: replaced by U+FFFD, and said so.

A Python string can hold half of a UTF-16 surrogate pair (``"a\\ud800b"``: JSON's
``"\\ud800"`` escape decodes to one, and a social media text cut in the middle of an emoji
is how one arrives). That is not Unicode text: Arrow (UTF-8) cannot store it, and the
whole frame would fail on one character. Only when Arrow refuses a batch for this reason
(or, for free-form objects, one pass of ``json`` in C finds one) are its strings walked
here: each lone surrogate becomes U+FFFD, the replacement character readers know as "a
character was lost here", a pair written as two halves becomes the character it encodes,
and one :class:`~rdskit.errors.InvalidTextWarning` names the fields and the rows (their
``id``) that changed. Everything else is kept as sent.

Example:
    >>> import pyarrow as pa
    >>> replaced, wire = Replaced(), pa.struct([("text", pa.string())])
    >>> rows = repaired_rows([{"id": "p1", "text": "a\\ud800b"}], wire, replaced)
    >>> ascii(rows[0]["text"]), replaced.places
    ("'a\\\\ufffdb'", {'text': ["id 'p1'"]})
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from rdskit.errors import InvalidTextWarning, warn

__all__ = [
    "REPAIRED",
    "Replaced",
    "fixed",
    "repair_settings",
    "repaired_dicts",
    "repaired_rows",
    "repaired_value",
    "repairs_of",
    "row_label",
    "with_repairs",
]

_SHOWN = 5  # row labels named per field in the warning; the others are counted
REPAIRED = b"rdskit.repaired_text"
"""The schema metadata key of a table whose text was repaired: ``{field path: {row label:
texts}}``; the frame made of it records the step ``repair_text``."""


def fixed(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a pair of halves joined).

    Example:
        >>> ascii(fixed("a\\ud83d\\ude00b\\udc80"))
        "'a\\\\U0001f600b\\\\ufffd'"
    """
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _valid(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Replaced:
    """Where texts were repaired: ``places`` maps a field path (``comments[].body``) to
    the labels of its rows (their ``id``, else ``row N``), ``count`` the texts changed."""

    def __init__(self) -> None:
        self.places: dict[str, list[str]] = {}
        self.count = 0
        self.texts: dict[str, dict[str, int]] = {}  # path -> row label -> texts repaired

    def add(self, path: str, label: str) -> None:
        self.count += 1
        labels = self.places.setdefault(path, [])
        if label not in labels:
            labels.append(label)
        per_row = self.texts.setdefault(path, {})
        per_row[label] = per_row.get(label, 0) + 1

    def marked(self, table: pa.Table) -> pa.Table:
        """``table`` with what was repaired in its schema metadata (:data:`REPAIRED`), for
        the frame made of it to record as a provenance step; ``table`` itself when nothing
        was.

        Example:
            >>> replaced = Replaced()
            >>> replaced.add("text", "id 'p1'")
            >>> json.loads(replaced.marked(pa.table({"a": [1]})).schema.metadata[REPAIRED])
            {'text': {"id 'p1'": 1}}
        """
        if not self.count:
            return table
        return with_repairs(table, self.texts)

    def warn(self) -> None:
        """One :class:`~rdskit.errors.InvalidTextWarning` naming what changed (none when
        nothing did)."""
        if not self.count:
            return
        where = "; ".join(
            f"{path} in {', '.join(labels[:_SHOWN])}"
            + (f" and {len(labels) - _SHOWN} more rows" if len(labels) > _SHOWN else "")
            for path, labels in self.places.items()
        )
        texts = "1 text" if self.count == 1 else f"{self.count} texts"
        warn(
            f"{texts} held surrogates (halves of UTF-16 pairs: not Unicode text, which Arrow "
            "cannot store): each lone one was replaced by U+FFFD, a pair written as two halves "
            f"joined, the rest kept as sent: {where}",
            InvalidTextWarning,
        )


def repairs_of(table: pa.Table | None) -> dict[str, dict[str, int]]:
    """What :meth:`Replaced.marked` recorded in ``table``: field path -> row -> texts."""
    found = ((table.schema.metadata or {}) if table is not None else {}).get(REPAIRED)
    return {} if found is None else dict(json.loads(found))


def with_repairs(table: pa.Table, repairs: Mapping[str, Mapping[str, int]]) -> pa.Table:
    """``table`` recording ``repairs`` (field path -> row label -> texts) in its metadata;
    none recorded when there are none."""
    metadata = {k: v for k, v in (table.schema.metadata or {}).items() if k != REPAIRED}
    if any(repairs.values()):
        metadata[REPAIRED] = json.dumps({k: dict(v) for k, v in repairs.items() if v}).encode()
    return table.replace_schema_metadata(metadata or None)


def repair_settings(repairs: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """The provenance settings of a ``repair_text`` step: texts repaired, rows per field.

    Example:
        >>> repair_settings({"text": {"id 'a'": 1}, "comments[].body": {"id 'b'": 2}})
        {'replaced_with': 'U+FFFD', 'texts': 3, 'fields': {'text': 1, 'comments[].body': 1}}
    """
    return {
        "replaced_with": "U+FFFD",
        "texts": sum(sum(rows.values()) for rows in repairs.values()),
        "fields": {path: len(rows) for path, rows in repairs.items()},
    }


def row_label(row_id: str) -> str:
    """The label a row with ``row_id`` has in a repair record (see :func:`_label`)."""
    return f"id {fixed(row_id)[:60]!r}"


def _label(row: Any, index: int) -> str:
    key = row.get("id") if isinstance(row, Mapping) else None
    if isinstance(key, str | int) and not isinstance(key, bool):
        return row_label(str(key))
    return f"row {index}"


def repaired_rows(
    rows: Sequence[Mapping[str, Any]], wire: pa.StructType, replaced: Replaced
) -> list[Mapping[str, Any]]:
    """``rows`` with the lone surrogates of the fields ``wire`` reads replaced (rows
    without any are the same objects), each replacement noted in ``replaced``."""
    return [
        repaired_value(row, wire, "", _label(row, index), replaced)
        for index, row in enumerate(rows)
    ]


def repaired_value(
    value: Any, arrow: pa.DataType | None, path: str, label: str, replaced: Replaced
) -> Any:
    """``value`` with its lone surrogates replaced, walking what ``arrow`` reads of it
    (every dict and list when ``arrow`` is None: free-form objects); ``value`` itself
    when nothing changed."""
    if isinstance(value, str):
        if _valid(value):
            return value
        replaced.add(path or "value", label)
        return fixed(value)
    if arrow is not None and pa.types.is_dictionary(arrow):
        arrow = arrow.value_type
    if isinstance(value, Mapping):
        if arrow is None or pa.types.is_map(arrow):
            inner = None if arrow is None else arrow.item_type
            out = {
                repaired_value(k, None, f"{path} (a key)", label, replaced): repaired_value(
                    v, inner, f"{path}.<key>", label, replaced
                )
                for k, v in value.items()
            }
        elif pa.types.is_struct(arrow):
            step = f"{path}." if path else ""
            out = dict(value)
            for field in arrow:
                if field.name in value:
                    out[field.name] = repaired_value(
                        value[field.name], field.type, step + field.name, label, replaced
                    )
        else:
            return value
        changed = any(out[k] is not value.get(k) for k in out) or len(out) != len(value)
        return out if changed else value
    if isinstance(value, list | tuple):
        element = None
        if arrow is not None and (pa.types.is_list(arrow) or pa.types.is_large_list(arrow)):
            element = arrow.value_type
        elif arrow is not None:
            return value
        items = [repaired_value(v, element, f"{path}[]", label, replaced) for v in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value


def repaired_dicts(
    values: Sequence[Mapping[str, Any] | None],
    prefix: str,
    ids: Sequence[Any],
    replaced: Replaced,
) -> Sequence[Mapping[str, Any] | None]:
    """Free-form dicts (one per row, ``ids`` theirs) whose keys become columns named
    ``prefix + key``: lone surrogates in keys and values replaced and noted in
    ``replaced`` under the column's name; ``values`` itself when there are none."""
    try:
        # One pass in C over every key and string: it fails on a lone surrogate (or on
        # what JSON cannot hold, such as a tuple key: those are walked too).
        json.dumps(values, ensure_ascii=False, default=str).encode("utf-8")
        return values
    except (TypeError, ValueError):
        pass
    out: list[Mapping[str, Any] | None] = []
    for index, (row, key) in enumerate(zip(values, ids, strict=True)):
        label = _label({"id": key}, index)
        if not isinstance(row, Mapping):
            out.append(row)
            continue
        fixed_row: dict[Any, Any] = {}
        for name, value in row.items():
            name = repaired_value(name, None, f"{prefix}<key> (a key)", label, replaced)
            # Names that differ only in their lone surrogates: the first one's value stays.
            fixed_row.setdefault(
                name, repaired_value(value, None, f"{prefix}{name}", label, replaced)
            )
        out.append(fixed_row)
    return out
