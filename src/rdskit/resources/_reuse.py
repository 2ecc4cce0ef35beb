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
- :func:`differences` names the settings in which an existing object differs from a request;
- :func:`remembered` does it for the paid calls no list shows (Ask, pattern detections,
  tracking triggers, research previews): it looks the call up in the local ledger
  (:mod:`rdskit._ledger`), reads what it made back (free), checks that it is what this
  request made (a :class:`StaleEntry` otherwise: another sandbox's object under a
  repeated id, say) and pays only when that is gone, failed, not it, or unknown.

Example:
    >>> comparable({"sources": ["tiktok", "reddit"], "language": None, "count": 50})
    {'count': 50, 'sources': ['reddit', 'tiktok']}
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic

from rdskit._base_client import APIRequest
from rdskit._ledger import InFlight, Ledger, identity_digest, ledger_key
from rdskit._safe import one_line
from rdskit.errors import DuplicateNameWarning, InvalidParameter, LedgerWarning, NotFound, warn
from rdskit.models import RdsModel
from rdskit.models._base import Bound
from rdskit.pagination import PageWalk
from rdskit.resources.account import ME

if TYPE_CHECKING:
    from rdskit._base_client import Flow, HTTPCore

__all__ = [
    "StaleEntry",
    "comparable",
    "created_order",
    "differences",
    "every_item",
    "named_create",
    "oldest_named",
    "remembered",
    "reuse_or_start",
    "unpaged",
]

T = TypeVar("T")
M = TypeVar("M", bound=RdsModel)

log = logging.getLogger("rdskit")

LEDGER = Ledger()
"""The ledger ``reuse=True`` reads and writes (its file follows ``RDSKIT_CACHE_DIR``)."""

# Who a client's key belongs to, read once per client (GET /v1/me is free).
_identities: weakref.WeakKeyDictionary[HTTPCore, str] = weakref.WeakKeyDictionary()

_KIND_NAMES = {
    "ask": "Ask",
    "pattern_detection": "pattern detection",
    "research_preview": "research preview",
    "tracking_trigger": "tracking trigger",
}


class StaleEntry(Exception):
    """Raised by a ``reread`` of :func:`remembered`: the object a ledger entry names is
    not what this request made (``why`` says how it differs), so it is not returned."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


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
    walk = PageWalk.of(request, core.max_pages)
    while True:
        page = yield from core.call_page(request)
        items.extend(page.data)
        cursor = walk.follow(page.has_next, page.cursor)
        if cursor is None:
            return items
        request = request.with_cursor(cursor)


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
    else the run ``start`` makes (a paid call, only sent when nothing fits). An in-flight
    marker (:class:`~rdskit._ledger.InFlight`) is held from the list to the start, so
    identical calls at the same moment start one run."""
    # Held from the list to the start: an identical call waits, then lists this one's run.
    identity = yield from account_identity(core)
    marker = yield from _held(InFlight(ledger_key(identity, "runs", runs.path)), start)
    try:
        found = [run for run in (yield from every_item(core, runs)) if same(run)]
        usable = [run for run in found if _status(run) != "failed"]
        if usable:
            start.close()  # never sent: nothing is charged
            return _mark_reused(max(usable, key=created_order))
        return (yield from start)
    finally:
        marker.release()


def _held(marker: InFlight, start: Flow[Any]) -> Flow[InFlight]:
    """Flow: ``marker`` once held; ``start`` is closed unsent if the wait fails."""
    try:
        yield from marker.acquire()
    except BaseException:
        start.close()  # never sent
        raise
    return marker


def _mark_reused(found: T) -> T:
    """``found`` flagged as reused, so its wait says this call charged nothing."""
    if isinstance(found, Bound):
        found._reused = True
    return found


def _status(run: Any) -> str | None:
    status = getattr(run, "status", None)
    return getattr(status, "type", status)


def account_identity(core: HTTPCore) -> Flow[str]:
    """Flow: the hashed identity of ``core``'s account and seat (one ``GET /v1/me`` per
    client), and of the service's instance when it names one (a sandbox database), the
    first part of every ledger key."""
    known = _identities.get(core)
    if known is not None:
        return known
    me = yield from core.call(ME)
    created = me.created_at.isoformat() if me.created_at is not None else None
    identity = identity_digest(me.account_id, me.id, created, core.instance)
    _identities[core] = identity
    return identity


def remembered(
    core: HTTPCore,
    kind: str,
    request: Any,
    reread: Callable[[dict[str, Any]], Flow[M | None]],
    start: Flow[M],
    keep: Sequence[str],
    aliases: Callable[[M], Sequence[Any]] = lambda made: (),
) -> Flow[M]:
    """Flow: what an earlier ``reuse=True`` call with the same ``request`` of ``kind``
    made, read back by ``reread`` (free), or else the result of ``start`` (the paid call,
    only sent then), which is recorded in the ledger.

    ``reread(ids)`` returns the resource read back, or None when it failed (it is then
    asked again); it raises :class:`StaleEntry` when what the ids name now is not what
    this request made (another request's object under the same ids: a fresh sandbox
    repeats the last one's). Such an entry, one the service no longer has (404) and one
    whose ids cannot make a request are stale: dropped, with one
    :class:`~rdskit.errors.LedgerWarning` line, and the call is made anew. ``keep`` names
    the wire fields the ledger keeps of a new result (ids and timestamps only);
    ``aliases(made)`` are other requests that must find it again (an Ask that opened a
    chat, asked again in that chat).
    """
    identity = yield from account_identity(core)
    key = ledger_key(identity, kind, comparable(request))
    # Held from the lookup to the record: an identical call waits here, then finds the
    # entry this one records and reads it back instead of paying.
    marker = yield from _held(InFlight(key), start)
    try:
        entry = LEDGER.lookup(key)
        if entry is not None:
            found = yield from _read_back(key, kind, entry, keep, reread)
            if found is not None:
                start.close()  # never sent: nothing is charged
                log.info("reused a %s recorded in the ledger; nothing was charged", kind)
                return _mark_reused(found)
        made = yield from start
        keys = [key, *(ledger_key(identity, kind, comparable(o)) for o in aliases(made))]
        wire = made.to_wire()
        LEDGER.record(keys, kind, {name: wire[name] for name in keep if name in wire})
        return made
    finally:
        marker.release()


def _read_back(
    key: str,
    kind: str,
    entry: dict[str, Any],
    keep: Sequence[str],
    reread: Callable[[dict[str, Any]], Flow[M | None]],
) -> Flow[M | None]:
    """Flow: what ``entry`` names, read back and checked; None when it failed, or when
    the entry is stale (then it is dropped and one line says so)."""
    why = None if _usable(entry, keep) else "its ids are not usable"
    if why is None:
        try:
            return (yield from reread(entry))
        except StaleEntry as exc:
            why = exc.why
        except NotFound:
            why = "the service does not have it (404)"
        except (InvalidParameter, KeyError, TypeError, pydantic.ValidationError):
            # Ids that no longer make a request (a hand-edited file, a tracking run
            # whose dataset runs are gone).
            why = "its ids no longer name something the service can read back"
    LEDGER.forget(key)
    what = _KIND_NAMES.get(kind, kind)
    named = ", ".join(str(value) for value in entry.values() if isinstance(value, str))
    warn(
        one_line(
            f"reuse=True: the ledger entry for this {what}{f' ({named})' if named else ''} "
            f"is stale: {why}. It was dropped and the call is sent anew, as a paid call"
        ),
        LedgerWarning,
    )
    return None


def _usable(entry: Mapping[str, Any], keep: Sequence[str]) -> bool:
    """Whether a ledger entry holds every kept field, ids as strings (the file is the
    user's to edit: a number where an id belongs must not become a request path)."""
    for name in keep:
        value = entry.get(name)
        if name.endswith("_ids"):
            fits = isinstance(value, list) and all(isinstance(item, str) for item in value)
        elif name == "id" or name.endswith("_id"):
            fits = isinstance(value, str)
        else:
            fits = True  # a timestamp: the model reading it checks it
        if not fits:
            return False
    return True
