"""Safe re-runs, written once: find what an earlier call already made before making it again.

Re-running a notebook cell must not create a second dataset, agent or rule, nor pay a
second time for a run with the same parameters. The ``get_or_create`` methods of the
resources read first (free) and create only when nothing fits:

- :func:`oldest_named` picks, among containers of one exact name, the oldest (so repeated
  calls keep returning the same one even after a duplicate slipped in) and warns with the
  ids of the others (:class:`~rdskit.errors.DuplicateNameWarning`);
- :func:`reuse_or_start` looks through a run list for a run that is not ``failed`` and
  whose echoed parameters equal the requested ones (compared by :func:`comparable`), and
  starts the paid run only when there is none;
- :func:`differences` names the settings in which an existing object differs from a request.

Example:
    >>> comparable({"sources": ["tiktok", "reddit"], "language": None, "count": 50})
    {'count': 50, 'sources': ['reddit', 'tiktok']}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from rdskit._base_client import APIRequest
from rdskit.errors import DuplicateNameWarning, warn
from rdskit.models import RdsModel

if TYPE_CHECKING:
    from rdskit._base_client import Flow, HTTPCore

__all__ = [
    "comparable",
    "created_order",
    "differences",
    "every_item",
    "named_create",
    "oldest_named",
    "reuse_or_start",
    "unpaged",
]

T = TypeVar("T")
M = TypeVar("M", bound=RdsModel)


def comparable(value: Any) -> Any:
    """``value`` as parameters are compared: fields that say nothing (null, false, empty)
    dropped, keys sorted, lists of plain values sorted and de-duplicated (sources, actions,
    ids and URLs are sets: their order changes nothing the service does).

    Example:
        >>> comparable({"a": [3, 1, 1], "b": {"c": False}, "d": "x"})
        {'a': [1, 3], 'd': 'x'}
    """
    if isinstance(value, Mapping):
        kept = {str(key): comparable(item) for key, item in value.items()}
        return {key: kept[key] for key in sorted(kept) if not _says_nothing(kept[key])}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        items = [comparable(item) for item in value]
        if all(isinstance(item, str | int | float) for item in items):
            return sorted(set(items), key=lambda item: (type(item).__name__, item))
        return items
    return value


def _says_nothing(value: Any) -> bool:
    # False and null are "not asked for"; 0 is a value (0 comments per post).
    return value is None or value is False or (isinstance(value, list | dict) and not value)


def differences(have: Mapping[str, Any], want: Mapping[str, Any]) -> list[str]:
    """The fields of ``want`` whose comparable value differs from ``have``'s, as
    ``field: have -> want`` lines (empty when ``have`` fits ``want``).

    Example:
        >>> differences({"time": "08:00", "day": None}, {"time": "09:00"})
        ["time: '08:00' -> '09:00'"]
    """
    lines = []
    for key, wanted in want.items():
        if comparable(wanted) != comparable(have.get(key)):
            lines.append(f"{key}: {have.get(key)!r} -> {wanted!r}")
    return lines


def named_create(
    collection: str, cast: Callable[[Any], T], body: RdsModel, name: str
) -> APIRequest[T]:
    """``POST /v1/<collection>`` of a named object; when its answer is lost, the hint says
    to look for ``name`` in ``client.<collection>.list()`` before creating it again."""
    return APIRequest(
        "POST",
        f"/v1/{collection}",
        kind="write",
        json=body.to_wire(),
        cast=cast,
        check_hint=f"look for {name!r} in client.{collection}.list() before creating it again",
    )


def unpaged(path: str, model: type[M]) -> APIRequest[list[M]]:
    """``GET path`` of a list endpoint without pages (custom parameters, tracking agents)."""
    return APIRequest("GET", path, cast=lambda items: [model.model_validate(i) for i in items])


def every_item(core: HTTPCore, request: APIRequest[T]) -> Flow[list[T]]:
    """Flow: the items of every page of a list call (reads only)."""
    items: list[T] = []
    while True:
        page = yield from core.call_page(request)
        items.extend(page.data)
        if not page.has_next or not page.cursor:
            return items
        request = request.with_cursor(page.cursor)


def created_order(item: Any) -> float:
    """Sort key: ``item.created_at`` as seconds (items without one first)."""
    created = getattr(item, "created_at", None)
    return created.timestamp() if isinstance(created, datetime) else float("-inf")


def oldest_named(items: Iterable[T], name: str, what: str) -> T | None:
    """The oldest of ``items`` named exactly ``name`` (None if none); warns when several
    share it, naming the others (``what`` says how to list them: ``client.datasets``)."""
    named = sorted(
        (item for item in items if getattr(item, "name", None) == name), key=created_order
    )
    if len(named) > 1:
        others = ", ".join(str(getattr(item, "id", "?")) for item in named[1:])
        warn(
            f"{len(named)} {what.rsplit('.', 1)[-1]} are named {name!r}; using the oldest, "
            f"{getattr(named[0], 'id', '?')}. The others ({others}) are duplicates: delete "
            f"them with {what}.delete(id) if they hold nothing you need",
            DuplicateNameWarning,
        )
    return named[0] if named else None


def reuse_or_start(
    core: HTTPCore,
    runs: APIRequest[T],
    same: Callable[[T], bool],
    start: Flow[T],
) -> Flow[T]:
    """Flow: the newest run of ``runs`` that is not ``failed`` and is ``same`` as the one
    asked for (completed: its data is already there; pending or working: wait on it), or
    else the run ``start`` makes (a paid call, only sent when nothing fits)."""
    found = [run for run in (yield from every_item(core, runs)) if same(run)]
    usable = [run for run in found if _status(run) != "failed"]
    if usable:
        start.close()  # never sent: nothing is charged
        return max(usable, key=created_order)
    return (yield from start)


def _status(run: Any) -> str | None:
    status = getattr(run, "status", None)
    return getattr(status, "type", status)
