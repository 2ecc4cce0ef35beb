"""Paging through mentions, shared by the loaders (``fetch``), the parquet cache
(``cache``) and the parquet export (``parquet``), below all three.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from rdskit.resources.mentions import bounded_by_declared

__all__ = ["PAGE_SIZE", "frame_datasets", "mention_pages"]


PAGE_SIZE = 100
"""Items per request (the service's maximum): fewer requests under the 5 req/s limit."""


def mention_pages(client: Any, query: Mapping[str, Any]) -> Iterator[list[Any]]:
    """Every page of ``client.mentions.list(**query)`` (100 per page unless ``limit``),
    the walk bounded by what the query can match (:func:`~rdskit.resources.mentions.
    bounded_by_declared`)."""
    asked = {"limit": PAGE_SIZE, **query}
    for page in bounded_by_declared(client, client.mentions.list(**asked), asked).pages():
        yield page.data


def frame_datasets(table: pa.Table, requested: Sequence[str] | None) -> list[dict[str, Any]]:
    """``[{id, name}]`` of the datasets asked for and those the posts belong to."""
    found: dict[str, str | None] = dict.fromkeys(requested or [])
    if "datasets" in table.column_names:
        flat = pc.list_flatten(table["datasets"].combine_chunks())
        ids, names = pc.struct_field(flat, ["id"]), pc.struct_field(flat, ["name"])
        pairs = pa.table({"id": ids, "name": names}).group_by("id").aggregate([("name", "max")])
        for key, name in zip(pairs["id"].to_pylist(), pairs["name_max"].to_pylist(), strict=True):
            if key is not None and (requested is None or key in found):
                found[key] = found.get(key) or name
    return [{"id": key, "name": name} for key, name in found.items()]
