"""Provenance: where every rdskit frame came from, carried in ``df.attrs["rdskit"]``.

A loader records one *fetch*: the service base URL (never the key, never credentials in
the URL), the account id, the datasets and their runs with the runs' parameters (query,
sources, date window, analyses), the query the frame was read with, ``fetched_at`` and
the rdskit version. Later *steps* (pseudonymisation) are appended. The record is plain
JSON, so it travels where pandas takes ``attrs`` (slices, ``sort_values``, ``head``...),
into parquet (Arrow schema metadata under the ``rdskit`` key, see
:func:`schema_metadata`), through the parquet cache, into the accessor's child frames,
and through ``pd.concat``/``pd.merge`` of rdskit frames, where the records of the inputs
are merged (pandas alone keeps ``attrs`` only when every input has the same).

Example:
    >>> from rdskit.frames import mentions_frame
    >>> df = mentions_frame([{"source": "reddit", "id": "t3_a"}])
    >>> prov = df.rds.provenance()
    >>> prov.kind, prov.fetches
    ('mentions', ())
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pandas as pd
import pyarrow as pa
from pandas.core.generic import NDFrame

from rdskit._version import __version__
from rdskit.errors import RdsError

__all__ = [
    "METADATA_KEY",
    "DatasetRef",
    "Fetch",
    "Provenance",
    "RunRecord",
    "Step",
    "add_step",
    "attach",
    "carry",
    "fetch_record",
    "from_schema",
    "merge_records",
    "provenance_of",
    "public_base_url",
    "record_fetch",
    "restore",
    "schema_metadata",
]

METADATA_KEY = b"rdskit"
"""The Arrow schema metadata key holding a frame's provenance (JSON)."""

_SCALARS = ("kind", "client", "rdskit_version")


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def public_base_url(url: str) -> str:
    """``url`` without user info, query or fragment: what may be written down.

    Example:
        >>> public_base_url("https://user:secret@api.example.com/v1?key=x")
        'https://api.example.com/v1'
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


# --- the typed view ------------------------------------------------------------------------


@dataclass(frozen=True)
class DatasetRef:
    """A dataset (or audience dataset) a frame read from."""

    id: str
    name: str | None = None


@dataclass(frozen=True)
class RunRecord:
    """One collection run: ``params`` is the service's echo of its request."""

    id: str
    dataset_id: str | None
    status: str | None
    created_at: str | None
    mentions_count: int | None
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def search_query(self) -> str | None:
        """The prompt (``prompt`` searches) or the URLs joined (``url`` searches)."""
        query = self.params.get("search_query") or {}
        if query.get("type") == "url":
            return ", ".join(query.get("source_urls") or []) or None
        return query.get("search_query")

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources searched (empty for ``url`` searches)."""
        return tuple((self.params.get("search_query") or {}).get("sources") or ())

    @property
    def date_range(self) -> tuple[str | None, str | None]:
        """``(from, to)`` as sent (``YYYY-MM-DD``), ``None`` where not given."""
        window = self.params.get("date_range") or {}
        return window.get("from"), window.get("to")

    @property
    def analyses(self) -> tuple[str, ...]:
        """``content_analysis_actions`` of the run."""
        return tuple(self.params.get("content_analysis_actions") or ())


@dataclass(frozen=True)
class Fetch:
    """One loader call: what was read, from where, when."""

    resource: str
    base_url: str | None
    account_id: str | None
    query: Mapping[str, Any]
    fetched_at: str
    rows: int | None
    datasets: tuple[DatasetRef, ...] = ()
    runs: tuple[RunRecord, ...] = ()
    cache: bool = False
    rdskit_version: str | None = None
    plan: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Step:
    """A processing step applied after loading (``pseudonymise``...), with its settings."""

    step: str
    at: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    rows: int | None = None
    """The frame's rows after the step (None in a record from an older rdskit): what
    the step's counts were counted on."""


@dataclass(frozen=True)
class Provenance:
    """A frame's provenance (``df.rds.provenance()``); ``to_dict()`` gives the JSON.

    Example:
        >>> p = Provenance.from_dict({"kind": "mentions", "fetches": [{"resource":
        ...     "mentions", "base_url": "https://x.test", "account_id": "acc_1",
        ...     "query": {}, "fetched_at": "2026-01-01T00:00:00Z", "rows": 3}]})
        >>> p.account_ids, p.fetched_at
        (('acc_1',), '2026-01-01T00:00:00Z')
    """

    kind: str | None = None
    rdskit_version: str | None = None
    fetches: tuple[Fetch, ...] = ()
    steps: tuple[Step, ...] = ()

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> Provenance:
        """The typed view of a ``df.attrs["rdskit"]`` record."""
        fetches = tuple(
            Fetch(
                resource=str(f.get("resource")),
                base_url=f.get("base_url"),
                account_id=f.get("account_id"),
                query=dict(f.get("query") or {}),
                fetched_at=str(f.get("fetched_at")),
                rows=None if f.get("rows") is None else int(f["rows"]),
                datasets=tuple(DatasetRef(d["id"], d.get("name")) for d in f.get("datasets", [])),
                runs=tuple(
                    RunRecord(
                        id=r["id"],
                        dataset_id=r.get("dataset_id"),
                        status=r.get("status"),
                        created_at=r.get("created_at"),
                        mentions_count=r.get("mentions_count"),
                        params=dict(r.get("params") or {}),
                    )
                    for r in f.get("runs", [])
                ),
                cache=bool(f.get("cache")),
                rdskit_version=f.get("rdskit_version"),
                plan=f.get("plan"),
            )
            for f in record.get("fetches", [])
        )
        steps = tuple(
            Step(
                s["step"],
                s.get("at", ""),
                dict(s.get("settings") or {}),
                None if s.get("rows") is None else int(s["rows"]),
            )
            for s in record.get("steps", [])
        )
        return cls(record.get("kind"), record.get("rdskit_version"), fetches, steps)

    def to_dict(self) -> dict[str, Any]:
        """The JSON record (as stored in ``df.attrs["rdskit"]``, without the client)."""
        return _public(
            {
                "kind": self.kind,
                "rdskit_version": self.rdskit_version,
                "fetches": [_fetch_dict(f) for f in self.fetches],
                "steps": [
                    {
                        "step": s.step,
                        "at": s.at,
                        "settings": dict(s.settings),
                        **({"rows": s.rows} if s.rows is not None else {}),
                    }
                    for s in self.steps
                ],
            }
        )

    @property
    def base_urls(self) -> tuple[str, ...]:
        """Every service base URL read from (usually one)."""
        return _unique(f.base_url for f in self.fetches)

    @property
    def account_ids(self) -> tuple[str, ...]:
        """Every account read from."""
        return _unique(f.account_id for f in self.fetches)

    @property
    def datasets(self) -> tuple[DatasetRef, ...]:
        """Every dataset read from, first seen first."""
        seen: dict[str, DatasetRef] = {}
        for f in self.fetches:
            for d in f.datasets:
                if d.id not in seen or seen[d.id].name is None:
                    seen[d.id] = d
        return tuple(seen.values())

    @property
    def dataset_ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.datasets)

    @property
    def runs(self) -> tuple[RunRecord, ...]:
        """Every run of those datasets, oldest first."""
        seen = {r.id: r for f in self.fetches for r in f.runs}
        return tuple(sorted(seen.values(), key=lambda r: (r.created_at or "", r.id)))

    @property
    def fetched_at(self) -> str | None:
        """The latest fetch time (ISO 8601 UTC)."""
        return max((f.fetched_at for f in self.fetches), default=None)

    @property
    def pseudonymised(self) -> Step | None:
        """The pseudonymisation step, if one was applied."""
        return next((s for s in reversed(self.steps) if s.step == "pseudonymise"), None)

    @property
    def plans(self) -> tuple[Mapping[str, Any], ...]:
        """The plans (``name``, enabled ``features``) of the accounts read from, each once."""
        seen = {json.dumps(f.plan, sort_keys=True): f.plan for f in self.fetches if f.plan}
        return tuple(seen.values())


def _unique(values: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def _fetch_dict(f: Fetch) -> dict[str, Any]:
    return {
        "resource": f.resource,
        "base_url": f.base_url,
        "account_id": f.account_id,
        "query": dict(f.query),
        "fetched_at": f.fetched_at,
        "rows": f.rows,
        "datasets": [{"id": d.id, "name": d.name} for d in f.datasets],
        "runs": [
            {
                "id": r.id,
                "dataset_id": r.dataset_id,
                "status": r.status,
                "created_at": r.created_at,
                "mentions_count": r.mentions_count,
                "params": dict(r.params),
            }
            for r in f.runs
        ],
        "cache": f.cache,
        "rdskit_version": f.rdskit_version,
        **({"plan": dict(f.plan)} if f.plan is not None else {}),
    }


def _public(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` as plain JSON types (a round trip through ``json`` proves it)."""
    out: dict[str, Any] = json.loads(json.dumps(record, default=str))
    return out


# --- reading and writing df.attrs ----------------------------------------------------------


def provenance_of(frame: pd.DataFrame | pd.Series) -> Provenance:
    """The typed provenance of ``frame`` (empty when it has none)."""
    return Provenance.from_dict(frame.attrs.get("rdskit") or {})


def _record(frame: pd.DataFrame | pd.Series) -> dict[str, Any]:
    record: dict[str, Any] = frame.attrs.setdefault("rdskit", {})
    return record


def fetch_record(
    client: Any,
    resource: str,
    query: Mapping[str, Any],
    rows: int | None,
    *,
    datasets: Sequence[Mapping[str, Any]] = (),
    dataset_runs: bool = False,
    cache: bool = False,
) -> dict[str, Any]:
    """The record of one read of ``resource`` with ``query`` by ``client`` (``rows`` read).

    ``datasets`` are the (audience) datasets read from (``{id, name}``); with
    ``dataset_runs`` their runs are listed too (one request per dataset); ``rows`` is
    None when not known yet (a streamed write). A lookup the service refuses leaves its
    field empty rather than failing the load.
    """
    account_id: str | None = None
    plan: dict[str, Any] | None = None
    runs: list[dict[str, Any]] = []
    # Stand-ins for a client (tests, wrappers) may lack the account or runs lookups.
    me = getattr(client, "me", None)
    run_list = getattr(getattr(getattr(client, "datasets", None), "runs", None), "list", None)
    try:
        account = me() if me is not None else None
        account_id = account.account_id if account is not None else None
        plan = _plan(getattr(account, "plan", None))
        if dataset_runs and run_list is not None:
            runs = [_run_dict(r) for d in datasets for r in run_list(d["id"])]
    except RdsError:
        pass
    base_url = getattr(client, "base_url", None)
    return _public(
        {
            "resource": resource,
            "base_url": None if base_url is None else public_base_url(str(base_url)),
            "account_id": account_id,
            "query": _query(query),
            "fetched_at": _now(),
            "rows": rows,
            "datasets": [{"id": d["id"], "name": d.get("name")} for d in datasets],
            "runs": runs,
            "cache": cache,
            "rdskit_version": __version__,
            **({"plan": plan} if plan else {}),
        }
    )


def _plan(plan: Any) -> dict[str, Any] | None:
    """The plan as recorded: its name and the features it has on (what shaped the data:
    date windows, several sources a search...)."""
    if plan is None or not hasattr(plan, "name"):
        return None
    flags = plan.features.model_dump() if getattr(plan, "features", None) is not None else {}
    return {"name": plan.name, "features": sorted(k for k, v in flags.items() if v is True)}


def attach(
    frame: pd.DataFrame, fetches: Sequence[Mapping[str, Any]], kind: str | None = None
) -> pd.DataFrame:
    """Record ``fetches`` in ``frame`` (after those it has)."""
    record = _record(frame)
    if kind is not None:
        record["kind"] = kind
    record["rdskit_version"] = __version__
    record["fetches"] = _dedupe([*record.get("fetches", []), *fetches])
    return frame


def record_fetch(
    frame: pd.DataFrame, client: Any, resource: str, query: Mapping[str, Any], **options: Any
) -> pd.DataFrame:
    """Record in ``frame`` that ``client`` just read it (see :func:`fetch_record`)."""
    return attach(frame, [fetch_record(client, resource, query, len(frame), **options)])


def _run_dict(run: Any) -> dict[str, Any]:
    return _public(
        {
            "id": run.id,
            "dataset_id": run.dataset_id,
            "status": run.status.type if run.status is not None else None,
            "created_at": _iso(run.created_at),
            "mentions_count": run.mentions_count,
            "params": run.params.to_wire() if run.params is not None else {},
        }
    )


def _iso(value: Any) -> Any:
    return value.isoformat().replace("+00:00", "Z") if isinstance(value, datetime) else value


def _query(query: Mapping[str, Any]) -> dict[str, Any]:
    """The query as recorded: long lookups (``post_refs``) are summarised, not copied."""
    out = {k: v for k, v in query.items() if v is not None}
    refs = out.get("post_refs")
    if isinstance(refs, Sequence) and len(refs) > 10:
        out["post_refs"] = f"{len(refs)} post refs"
    for key, value in list(out.items()):
        if hasattr(value, "to_wire"):
            out[key] = value.to_wire()
        elif isinstance(value, Sequence) and not isinstance(value, str):
            out[key] = [v.to_wire() if hasattr(v, "to_wire") else v for v in value]
    return _public(out)


def add_step(frame: pd.DataFrame, step: str, settings: Mapping[str, Any]) -> pd.DataFrame:
    """Append a processing step (no secret may be in ``settings``), with the frame's
    rows after it (what the step's counts were counted on)."""
    record = _record(frame)
    record["steps"] = [
        *record.get("steps", []),
        _public({"step": step, "at": _now(), "settings": settings, "rows": len(frame)}),
    ]
    return frame


def carry(child: pd.DataFrame | pd.Series, parent: pd.DataFrame, kind: str | None = None) -> Any:
    """``child`` (a frame derived from ``parent``) with the parent's provenance; the
    child keeps its own kind (``comments``...) unless ``kind`` is given."""
    record = copy.deepcopy(parent.attrs.get("rdskit") or {})
    kind = kind or (child.attrs.get("rdskit") or {}).get("kind")
    if kind is not None:
        record["kind"] = kind
    if record:
        child.attrs["rdskit"] = record
    return child


def _dedupe(items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for item in items:
        seen.setdefault(json.dumps(item, sort_keys=True, default=str), dict(item))
    return list(seen.values())


def merge_records(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One provenance from several (frames stacked or joined): fetches and steps of all,
    each once; ``kind`` and the client when they agree.

    Example:
        >>> merge_records([{"kind": "mentions", "fetches": [{"rows": 1}]},
        ...                {"kind": "mentions", "fetches": [{"rows": 2}]}])["fetches"]
        [{'rows': 1}, {'rows': 2}]
    """
    merged: dict[str, Any] = {}
    for key in _SCALARS:
        values = {json.dumps(r.get(key)) for r in records if r.get(key) is not None}
        if len(values) == 1:
            merged[key] = json.loads(values.pop())
    merged["fetches"] = _dedupe(f for r in records for f in r.get("fetches", []))
    steps = _dedupe(s for r in records for s in r.get("steps", []))
    if steps:
        merged["steps"] = steps
    return merged


# --- parquet ------------------------------------------------------------------------------


def schema_metadata(frame: pd.DataFrame | Mapping[str, Any]) -> dict[bytes, bytes]:
    """``{b"rdskit": JSON}`` of a frame's provenance, for an Arrow schema (no client)."""
    record = frame.attrs.get("rdskit") if isinstance(frame, pd.DataFrame) else frame
    public = {k: v for k, v in (record or {}).items() if k != "client"}
    return {METADATA_KEY: json.dumps(public, sort_keys=True).encode()} if public else {}


def from_schema(schema: pa.Schema | None) -> dict[str, Any]:
    """The provenance stored in an Arrow schema by rdskit, or by pandas' ``to_parquet``."""
    metadata = (schema.metadata if schema is not None else None) or {}
    if METADATA_KEY in metadata:
        record: dict[str, Any] = json.loads(metadata[METADATA_KEY])
        return record
    if b"PANDAS_ATTRS" in metadata:
        attrs = json.loads(metadata[b"PANDAS_ATTRS"])
        return dict(attrs.get("rdskit") or {})
    return {}


def restore(frame: pd.DataFrame, record: Mapping[str, Any]) -> pd.DataFrame:
    """``frame`` with a stored provenance merged into its ``attrs``."""
    if record:
        current = frame.attrs.get("rdskit") or {}
        merged = merge_records([record, current]) if current.get("fetches") else dict(record)
        # Steps the frame recorded as it was made (a repair of its text) stay in it.
        kept = merged.get("steps", [])
        merged["steps"] = [*kept, *(s for s in current.get("steps", []) if s not in kept)]
        if not merged["steps"]:
            del merged["steps"]
        merged.setdefault("kind", current.get("kind") or record.get("kind"))
        versions = [f.get("rdskit_version") for f in merged.get("fetches", [])]
        merged.setdefault("rdskit_version", next((v for v in versions[::-1] if v), None))
        frame.attrs["rdskit"] = merged
    return frame


# --- pd.concat / pd.merge -----------------------------------------------------------------

_FINALIZE = NDFrame.__finalize__


def _inputs(other: Any) -> list[Any] | None:
    """The frames a concat or merge combined, as each pandas version passes them to
    ``__finalize__``: ``input_objs`` (pandas 3), the concatenator's ``objs`` or the merge
    operation's ``left`` and ``right`` (pandas 2.2, 2.3); None for one input."""
    if isinstance(other, NDFrame):
        return None
    inputs = getattr(other, "input_objs", None)
    if inputs is None:
        inputs = getattr(other, "objs", None)
    if inputs is None and hasattr(other, "left") and hasattr(other, "right"):
        inputs = [other.left, other.right]
    return None if inputs is None else list(inputs)


def _finalize(self: NDFrame, other: Any, method: str | None = None, **kwargs: Any) -> NDFrame:
    """pandas' ``__finalize__``, then, for several inputs (concat, merge), their rdskit
    records merged: pandas keeps ``attrs`` only when all inputs have equal ones."""
    out = _FINALIZE(self, other, method=method, **kwargs)
    inputs = _inputs(other)
    if inputs is not None:
        records = [r for r in (getattr(o, "attrs", {}).get("rdskit") for o in inputs) if r]
        if len(records) > 1 and out.attrs.get("rdskit") is None:
            out.attrs["rdskit"] = merge_records(records)
        elif len(records) == 1 and out.attrs.get("rdskit") is None:
            out.attrs["rdskit"] = copy.deepcopy(records[0])
    return out


if not getattr(NDFrame.__finalize__, "_rdskit", False):
    _finalize._rdskit = True  # type: ignore[attr-defined]
    NDFrame.__finalize__ = _finalize
