"""Chaos controls: make the sandbox fail on demand, the way the service can fail.

In the style of LocalStack's chaos API: a per-sandbox :class:`Chaos` state that the admin
endpoints (``/sandbox/chaos/...``, ``api/chaos.py``) and ``rdskit sandbox --chaos-*``
options set, and that the request middleware, the routes and the worker consult. Every
control is a pydantic model (one definition for the HTTP body, the CLI option and
:meth:`Chaos.apply`). No FastAPI import: this is backend state.

Controls (docs/sandbox-internals.md, "Chaos controls"):

- ``source``: make a named source unavailable (previews answer ``source_unavailable``,
  dataset runs searching it fail in ``scraping`` and are refunded);
- ``failure``: fail the next N runs of a kind at a chosen step (refunded per the spec);
- ``fault``: latency, 5xx, dropped connections or 429 on routes matching a glob, with a
  probability and a seed (the same seed gives the same sequence of decisions);
- ``assistant``: replies cite a post twice and carry a ``render: true`` block;
- ``parameter_posts``: custom-parameter posts that fail once and are retried, and posts
  that fail for good (``mentions_error``).

(A dataset's content type, for ``collection_content_type_mismatch``, is set in the
database: :func:`set_content_type`.)

Example:
    >>> chaos = Chaos()
    >>> chaos.apply("failure", {"kind": "dataset_run", "step": "scraping", "count": 1})
    >>> chaos.take_failure("dataset_run", "enrichment")
    False
    >>> chaos.take_failure("dataset_run", "scraping")
    True
    >>> chaos.take_failure("dataset_run", "scraping")  # only the next one
    False
"""

from __future__ import annotations

import random
import sqlite3
import threading
import weakref
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rdskit.models.common import SOURCES
from rdskit.models.vocab import RUN_KIND_CATEGORIES

__all__ = [
    "CONTROLS",
    "FAILABLE_KINDS",
    "RUN_STEPS",
    "AssistantChaos",
    "Chaos",
    "FailureRule",
    "FaultRule",
    "ParameterPostsChaos",
    "SourceChaos",
    "from_option",
    "of",
    "set_content_type",
]

RUN_STEPS: dict[str, tuple[str, ...]] = {
    "dataset_run": ("scraping", "enrichment", "analysis"),
    "audience_run": ("profiling",),
    "custom_parameter_run": ("extraction",),
    "pattern_detection": ("sampling", "clustering", "summarizing"),
    "research_preview": ("scraping",),
}
"""The run kinds a ``failure`` can target and the steps each can fail at: the kinds are
those of :data:`rdskit.models.vocab.RUN_KIND_CATEGORIES` (the one list of kinds of paid
work) that the emulator can fail (a tracking trigger has no step of its own to fail)."""

FAILABLE_KINDS: tuple[str, ...] = tuple(kind for kind in RUN_KIND_CATEGORIES if kind in RUN_STEPS)
"""The kinds a ``failure`` accepts, in the vocabulary's order."""


class _Control(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceChaos(_Control):
    """``{source, unavailable}``: a source that cannot be searched (true) or back (false)."""

    source: str
    unavailable: bool = True

    @model_validator(mode="after")
    def _known_source(self) -> SourceChaos:
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {', '.join(SOURCES)}")
        return self


class FailureRule(_Control):
    """``{kind, step, count}``: the next ``count`` runs of ``kind`` fail at ``step``."""

    kind: str = Field(json_schema_extra={"enum": list(FAILABLE_KINDS)})
    step: str | None = Field(default=None, description="default: the kind's first step")
    count: int = Field(default=1, ge=1, le=1_000)

    @model_validator(mode="after")
    def _known_step(self) -> FailureRule:
        if self.kind not in FAILABLE_KINDS:
            raise ValueError(f"kind must be one of {', '.join(FAILABLE_KINDS)}, not {self.kind!r}")
        steps = RUN_STEPS[self.kind]
        if self.step is None:
            self.step = steps[0]
        if self.step not in steps:
            raise ValueError(f"step of a {self.kind} must be one of {', '.join(steps)}")
        return self


class FaultRule(_Control):
    """``{route, methods, kind, probability, seed, ...}``: a fault on matching requests.

    ``route`` is a glob over the path (``/v1/datasets/*/runs``); ``kind`` is ``latency``
    (``latency_ms`` added), ``error`` (``status``, a 5xx), ``drop`` (the connection is
    closed mid-response) or ``rate_limit`` (429 ``too_many_requests`` with
    ``retry_after_seconds``); ``times`` caps how often it fires (null: unlimited).
    """

    route: str = Field(min_length=1, max_length=500)
    methods: list[str] | None = Field(default=None, max_length=10)
    kind: Literal["latency", "error", "drop", "rate_limit"]
    probability: float = Field(default=1.0, ge=0.0, le=1.0)
    seed: int = Field(default=0, ge=0, le=2**32)
    status: int = Field(default=503, ge=500, le=599)
    latency_ms: int = Field(default=500, ge=0, le=60_000)
    retry_after_seconds: float = Field(default=1.0, gt=0, le=3_600)
    times: int | None = Field(default=None, ge=1, le=1_000_000)

    def matches(self, method: str, path: str) -> bool:
        """Whether a request is one this rule targets."""
        wanted = self.methods is None or method.upper() in {m.upper() for m in self.methods}
        return wanted and fnmatchcase(path, self.route)


class AssistantChaos(_Control):
    """``{duplicate_citation, render_block}``: how the next assistant replies misbehave."""

    duplicate_citation: bool = False
    render_block: bool = False


class ParameterPostsChaos(_Control):
    """``{retry, fail}``: per custom-parameter run, ``retry`` posts fail once and are retried
    (they end ``completed``), and ``fail`` more posts fail for good (``mentions_error``)."""

    retry: int = Field(default=0, ge=0, le=10_000)
    fail: int = Field(default=0, ge=0, le=10_000)


CONTROLS: dict[str, type[_Control]] = {
    "source": SourceChaos,
    "failure": FailureRule,
    "fault": FaultRule,
    "assistant": AssistantChaos,
    "parameter_posts": ParameterPostsChaos,
}
"""Control name -> its model (the admin route ``/sandbox/chaos/{name}`` takes the body)."""


@dataclass
class _Fault:
    rule: FaultRule
    rng: random.Random
    fired: int = 0


class Chaos:
    """One sandbox's chaos state (thread-safe); all controls off when created."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Every control off (faults removed, pending failures forgotten)."""
        with getattr(self, "_lock", threading.Lock()):
            self.unavailable: set[str] = set()
            self.failures: dict[tuple[str, str], int] = {}
            self.faults: list[_Fault] = []
            self.assistant = AssistantChaos()
            self.parameter_posts = ParameterPostsChaos()
            self._attempts: dict[tuple[str, str, str], int] = {}
            self._run_posts: dict[str, dict[tuple[str, str], str]] = {}

    def apply(self, control: str, body: dict[str, Any] | BaseModel) -> None:
        """Set ``control`` (a :data:`CONTROLS` name) from its body; raises ``ValueError``."""
        model = CONTROLS.get(control)
        if model is None:
            raise ValueError(f"unknown chaos control {control!r}; one of {', '.join(CONTROLS)}")
        rule = (
            body
            if isinstance(body, model)
            else model.model_validate(body.model_dump() if isinstance(body, BaseModel) else body)
        )
        with self._lock:
            if isinstance(rule, SourceChaos):
                (self.unavailable.add if rule.unavailable else self.unavailable.discard)(
                    rule.source
                )
            elif isinstance(rule, FailureRule):
                assert rule.step is not None
                key = (rule.kind, rule.step)
                self.failures[key] = self.failures.get(key, 0) + rule.count
            elif isinstance(rule, FaultRule):
                self.faults.append(_Fault(rule, random.Random(rule.seed)))
            elif isinstance(rule, AssistantChaos):
                self.assistant = rule
            elif isinstance(rule, ParameterPostsChaos):
                self.parameter_posts = rule
                self._attempts.clear()
                self._run_posts.clear()

    def snapshot(self) -> dict[str, Any]:
        """The current state, JSON-ready (``GET /sandbox/chaos``)."""
        with self._lock:
            return {
                "unavailable_sources": sorted(self.unavailable),
                "failures": [
                    {"kind": kind, "step": step, "remaining": left}
                    for (kind, step), left in sorted(self.failures.items())
                    if left
                ],
                "faults": [{**f.rule.model_dump(), "fired": f.fired} for f in self.faults],
                "assistant": self.assistant.model_dump(),
                "parameter_posts": self.parameter_posts.model_dump(),
            }

    # -- what the routes and the worker ask ---------------------------------------
    def unavailable_among(self, sources: list[str] | tuple[str, ...]) -> list[str]:
        """The named sources that are made unavailable, in the order given."""
        with self._lock:
            return [s for s in sources if s in self.unavailable]

    def take_failure(self, kind: str, step: str) -> bool:
        """Whether this run of ``kind`` fails at ``step`` (consumes one planned failure)."""
        with self._lock:
            left = self.failures.get((kind, step), 0)
            if left <= 0:
                return False
            self.failures[(kind, step)] = left - 1
            return True

    def fault_for(self, method: str, path: str) -> FaultRule | None:
        """The fault to inject into this request, if a rule fires (first match wins)."""
        with self._lock:
            for fault in self.faults:
                rule = fault.rule
                if not rule.matches(method, path):
                    continue
                if rule.times is not None and fault.fired >= rule.times:
                    continue
                if fault.rng.random() >= rule.probability:
                    continue
                fault.fired += 1
                return rule
        return None

    def parameter_post_outcome(self, run_id: str, source: str, post_id: str) -> str:
        """``ok``, ``retry`` (fail this attempt; the post stays pending) or ``fail``.

        The first ``retry`` posts a run processes fail on their first attempt only; the
        next ``fail`` posts fail for good.
        """
        with self._lock:
            plan = self.parameter_posts
            if not plan.retry and not plan.fail:
                return "ok"
            roles = self._run_posts.setdefault(run_id, {})
            key = (source, post_id)
            if key not in roles:
                taken = list(roles.values())
                if taken.count("retry") < plan.retry:
                    roles[key] = "retry"
                elif taken.count("fail") < plan.fail:
                    roles[key] = "fail"
                else:
                    roles[key] = "ok"
            role = roles[key]
            attempt = self._attempts.get((run_id, *key), 0) + 1
            self._attempts[(run_id, *key)] = attempt
            if role == "retry":
                return "retry" if attempt == 1 else "ok"
            return role


def from_option(control: str, text: str) -> tuple[str, dict[str, Any]]:
    """A ``rdskit sandbox --chaos-*`` option value as ``(control, body)``, validated.

    ``source``: a source name; ``failure``: ``KIND[:STEP][:COUNT]``; ``assistant``:
    ``duplicate_citation`` and/or ``render_block`` (comma-separated); ``fault`` and
    ``parameter_posts``: ``key=value`` pairs separated by commas (``methods`` as
    ``GET|POST``).

    Example:
        >>> from_option("failure", "dataset_run:enrichment:2")
        ('failure', {'kind': 'dataset_run', 'step': 'enrichment', 'count': 2})
        >>> from_option("fault", "route=/v1/mentions,kind=error,probability=0.5,seed=3")[1]
        {'route': '/v1/mentions', 'kind': 'error', 'probability': '0.5', 'seed': '3'}
    """
    body: dict[str, Any]
    if control == "source":
        body = {"source": text.strip()}
    elif control == "failure":
        parts = text.split(":")
        body = {"kind": parts[0]}
        for part in parts[1:]:
            body["count" if part.isdigit() else "step"] = int(part) if part.isdigit() else part
    elif control == "assistant":
        body = {flag.strip(): True for flag in text.split(",") if flag.strip()}
    else:
        body = {}
        for pair in text.split(","):
            key, sep, value = pair.partition("=")
            if not sep:
                raise ValueError(f"--chaos-{control} expects key=value pairs, got {pair!r}")
            body[key.strip()] = value.strip().split("|") if key.strip() == "methods" else value
    model = CONTROLS.get(control)
    if model is None:
        raise ValueError(f"unknown chaos control {control!r}")
    model.model_validate(body)  # fail at start-up, not on the first request
    return control, body


_STATES: weakref.WeakKeyDictionary[Any, Chaos] = weakref.WeakKeyDictionary()
_STATES_LOCK = threading.Lock()


def of(store: Any) -> Chaos:
    """The chaos state of the sandbox that owns ``store`` (created, all off, on first use).

    Example:
        >>> class Owner: ...
        >>> owner = Owner()
        >>> of(owner) is of(owner), of(owner).snapshot()["unavailable_sources"]
        (True, [])
    """
    with _STATES_LOCK:
        state = _STATES.get(store)
        if state is None:
            state = _STATES[store] = Chaos()
        return state


def set_content_type(conn: sqlite3.Connection, dataset_id: str, content_type: str) -> bool:
    """Fix a dataset's content type, so a run of the other type gets
    ``collection_content_type_mismatch``; False when the dataset does not exist."""
    return bool(
        conn.execute(
            "UPDATE datasets SET content_type = ? WHERE id = ? AND deleted_at IS NULL",
            (content_type, dataset_id),
        ).rowcount
    )
