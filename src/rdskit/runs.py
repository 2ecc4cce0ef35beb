"""The run-kind registry: everything rdskit knows about each kind of waitable work, once.

A kind of run (dataset run, audience run, custom parameter run, pattern detection,
tracking run, Ask reply) is one :class:`RunKind` subclass: how to re-read it, when it is
over, what its progress is (steps, counters, share done) and how the spec charges it (the
price category and the reservation). ``client.wait`` (:mod:`rdskit.waiting`), the
progress domain (:mod:`rdskit.progress`) and the Jupyter views read it from here; the
price categories come from :data:`rdskit.models.vocab.RUN_KIND_CATEGORIES`, which the
billing estimates use too. Adding a kind means adding one class here.

Example:
    >>> from rdskit.models import DatasetRun
    >>> run = DatasetRun.model_validate({"id": "dsr_1", "dataset_id": "ds_1",
    ...     "created_at": 0, "count": 40, "mentions_count": 10,
    ...     "status": {"type": "working"}})
    >>> kind = kind_of(run)
    >>> kind.state(run), describe(run).counters[0], charge_terms(run).kind
    ('running', ('mentions', '10 of 40'), 'dataset_run')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from rdskit._text import DASH, number
from rdskit.errors import InvalidParameter
from rdskit.models import (
    AskAccepted,
    AudienceRun,
    ChatMessage,
    CustomParameterRun,
    DatasetRun,
    PatternDetectionRun,
    TrackingRun,
)
from rdskit.models._base import parse_datetime
from rdskit.models.vocab import RUN_KIND_CATEGORIES, RUN_STATUSES
from rdskit.resources.audiences import get_audience_run
from rdskit.resources.chats import get_chat_message
from rdskit.resources.custom_parameters import get_custom_parameter_run
from rdskit.resources.datasets import get_dataset_run
from rdskit.resources.patterns import get_pattern_detection
from rdskit.resources.tracking import TrackingRunPoller

if TYPE_CHECKING:
    from rdskit._base_client import Flow, HTTPCore

__all__ = [
    "ChargeTerms",
    "RunKind",
    "RunView",
    "State",
    "Step",
    "charge_terms",
    "describe",
    "kind_of",
    "known_status",
    "register",
]

R = TypeVar("R")

State = Literal["running", "done", "failed"]
"""Where a waited-on object stands: still running, over, or over and failed."""


@dataclass(frozen=True)
class Step:
    """One pipeline step of a run's status."""

    name: str
    status: str
    started: datetime | None = None
    finished: datetime | None = None


@dataclass(frozen=True)
class RunView:
    """What one state of a waited-on object is: title, status, steps, counters, share done."""

    title: str
    status: str
    steps: tuple[Step, ...] = ()
    counters: tuple[tuple[str, str], ...] = ()
    fraction: float | None = None  # share done, when the run says it


@dataclass(frozen=True)
class ChargeTerms:
    """How the spec charges a kind of work.

    ``categories``: usage history categories its charge is booked under; ``kind`` and
    ``quantity``: the reservation (a run kind of :data:`~rdskit.models.vocab.RUN_KIND_CATEGORIES`
    and the reserved units), or ``unknown``: why the reservation cannot be known.
    ``free``: why this piece of work is known to be charged nothing (None: not known).
    """

    categories: tuple[str, ...]
    kind: str | None = None
    quantity: int | None = None
    unknown: str | None = None
    reserves: bool = True  # False: the work is charged afterwards, with no reservation
    free: str | None = None


class RunKind(Generic[R]):
    """One kind of waitable object. Subclasses set ``model`` and ``label`` and override
    what differs; :func:`register` adds an instance to the registry."""

    model: ClassVar[type[Any]]
    label: ClassVar[str]
    paid: ClassVar[str | None] = None  # its run kind in the vocabulary, when it reserves

    def ident(self, obj: R) -> str:
        """The id shown in titles and messages."""
        return str(getattr(obj, "id", "?"))

    def status(self, obj: R) -> str:
        """Its status as sent (``status.type`` for runs)."""
        status = getattr(obj, "status", None)
        return str(getattr(status, "type", status) or DASH)

    def state(self, obj: R) -> State:
        """Running, done or failed, by the spec's terminal states."""
        status = self.status(obj)
        return "done" if status == "completed" else "failed" if status == "failed" else "running"

    def follower(self, obj: R) -> Callable[[HTTPCore], Flow[R]]:
        """The flow that re-reads ``obj`` (InvalidParameter when it cannot be re-read)."""
        raise InvalidParameter("obj", f"cannot wait on a {type(obj).__name__}")

    def done_of(self, obj: R) -> tuple[str, int | None, int | None] | None:
        """Its main counter: (label, done, total), or None."""
        return None

    def counters(self, obj: R) -> tuple[tuple[str, str], ...]:
        """Its counters as (label, text): the main one (``10 of 40``) first."""
        main = self.done_of(obj)
        return () if main is None else ((main[0], _of(main[1], main[2])),)

    def fraction(self, obj: R) -> float | None:
        """The share done: its pipeline steps (equal weights; a working step counts by
        its counter, else half) and its main counter, when the object says either."""
        main = self.done_of(obj)
        counted = None if main is None else _share(main[1], main[2], self.status(obj))
        return _by_steps(steps(getattr(obj, "status", None)), counted, self.status(obj))

    def charge(self, obj: R) -> ChargeTerms | None:
        """How it is charged (None: nothing to show)."""
        return None

    def read_call(self, obj: R) -> tuple[str, str] | None:
        """How the resume call names it and re-reads it: ``("run",
        "client.datasets.runs.get(...)")``; None when it has no GET of its own."""
        return None

    def resume(self, obj: R, *, awaited: bool = False) -> str:
        """The call that re-reads it and waits again (shown when a wait is interrupted);
        ``awaited``: as written with an AsyncClient (``await`` on each call).

        Example:
            >>> run = PatternDetectionRun.model_validate({"run_id": "pdr_1",
            ...     "collection_id": "ds_1", "status": {"type": "pending"}})
            >>> kind_of(run).resume(run, awaited=True)
            "run = await client.wait(await client.pattern_detections.get('pdr_1'))"
        """
        wait = "await client.wait" if awaited else "client.wait"
        call = self.read_call(obj)
        if call is None:
            return f"{wait}(run), with run the object you waited on"
        name, read = call
        return f"{name} = {wait}({'await ' if awaited else ''}{read})"

    def what(self, obj: R) -> str:
        """How messages name it: ``dataset run dsr_1``."""
        return f"{self.label.lower()} {self.ident(obj)}"

    def view(self, obj: R) -> RunView:
        """Its :class:`RunView`."""
        return RunView(
            f"{self.label} {self.ident(obj)}",
            self.status(obj),
            steps(getattr(obj, "status", None)),
            self.counters(obj),
            self.fraction(obj),
        )

    def _terms(self, quantity: int | None, why: str | None) -> ChargeTerms:
        assert self.paid is not None
        return ChargeTerms((RUN_KIND_CATEGORIES[self.paid],), self.paid, quantity, why)


_KINDS: dict[type[Any], RunKind[Any]] = {}


def register(kind: type[RunKind[Any]]) -> type[RunKind[Any]]:
    """Class decorator: add a kind to the registry (keyed by its model class)."""
    _KINDS[kind.model] = kind()
    return kind


def kind_of(obj: Any) -> RunKind[Any] | None:
    """The registered kind of ``obj`` (by its class or a base class), or None."""
    for cls in type(obj).__mro__:
        if cls in _KINDS:
            return _KINDS[cls]
    return None


def describe(obj: Any) -> RunView:
    """The :class:`RunView` of a waited-on object (runs, Ask turns, replies).

    Example:
        >>> describe(object()).title
        'object'
    """
    kind = kind_of(obj)
    if kind is None:
        status = getattr(obj, "status", None)
        return RunView(type(obj).__name__, str(getattr(status, "type", status) or DASH))
    return kind.view(obj)


def charge_terms(obj: Any) -> ChargeTerms | None:
    """The :class:`ChargeTerms` of a waited-on object (None: nothing to show).

    Example:
        >>> terms = charge_terms(AudienceRun.model_validate({"id": "adr_1",
        ...     "audience_dataset_id": "ad_1", "source_dataset_id": "ds_1", "created_at": 0,
        ...     "status": {"type": "completed"}, "target_profile_count": 300}))
        >>> terms.categories, terms.kind, terms.quantity
        (('audience_profile',), 'audience_run', 300)
    """
    kind = kind_of(obj)
    return None if kind is None else kind.charge(obj)


def known_status(status: str) -> bool:
    """Whether ``status`` is one the spec shows for runs and Ask replies.

    Example:
        >>> known_status("working"), known_status("cancelled")
        (True, False)
    """
    return status in RUN_STATUSES


def steps(status: Any) -> tuple[Step, ...]:
    """The pipeline steps of a ``status`` object."""
    return tuple(
        Step(
            step.name or "step",
            step.status or DASH,
            _when(step.started_at),
            _when(step.finished_at),
        )
        for step in (getattr(status, "steps", None) or [])
    )


def _when(value: Any) -> Any:
    """A step's timestamp, or None when the service sent something unreadable (a view
    never fails on a field the spec leaves open)."""
    try:
        return parse_datetime(value)
    except (ValueError, TypeError, OverflowError, OSError):
        return None


def _of(done: int | None, total: int | None) -> str:
    return number(done) if total is None else f"{number(done or 0)} of {number(total)}"


def _by_steps(parts: tuple[Step, ...], counted: float | None, status: str) -> float | None:
    """The share done from pipeline steps, the counter moving the working step.

    Example:
        >>> _by_steps((Step("a", "completed"), Step("b", "working"), Step("c", "pending"),
        ...     Step("d", "pending")), None, "working")
        0.375
    """
    if status == "completed":
        return 1.0
    if not parts:
        return counted
    done = sum(1 for step in parts if step.status == "completed")
    working = sum(1 for step in parts if step.status == "working")
    # A counter that moves says how far the working step is; without one, halfway.
    inside = counted if counted else 0.5
    return max(0.0, min(1.0, (done + working * inside) / len(parts)))


def _share(done: int | None, total: int | None, status: str) -> float | None:
    if status == "completed":
        return 1.0
    if done is None or not total:
        return None
    return max(0.0, min(1.0, done / total))


def _capped(run: DatasetRun) -> str:
    """What the main counter adds when the service capped the run's count (the plan's
    research depth): the count asked for, so "1,000" is not read as what was asked.

    Example:
        >>> _capped(DatasetRun.model_validate({"id": "dsr_1", "dataset_id": "ds_1",
        ...     "created_at": 0, "count": 1000, "requested_count": 2000,
        ...     "status": {"type": "pending"}}))
        " (capped from 2,000 by the plan's research depth)"
    """
    asked, kept = run.requested_count, run.count
    if asked is None or kept is None or asked <= kept:
        return ""
    return f" (capped from {number(asked)} by the plan's research depth)"


# -- the kinds -------------------------------------------------------------------------
@register
class DatasetRunKind(RunKind[DatasetRun]):
    model = DatasetRun
    label = "Dataset run"
    paid = "dataset_run"

    def follower(self, obj: DatasetRun) -> Callable[[HTTPCore], Flow[DatasetRun]]:
        return lambda core: core.call(get_dataset_run(obj.dataset_id, obj.id))

    def read_call(self, obj: DatasetRun) -> tuple[str, str]:
        return "run", f"client.datasets.runs.get({obj.dataset_id!r}, {obj.id!r})"

    @staticmethod
    def _wanted(obj: DatasetRun) -> int | None:
        """How many mentions the run asked for (``count``, else the echoed request)."""
        return obj.count or obj.requested_count

    def done_of(self, obj: DatasetRun) -> tuple[str, int | None, int | None]:
        return "mentions", obj.mentions_count, self._wanted(obj)

    def counters(self, obj: DatasetRun) -> tuple[tuple[str, str], ...]:
        wanted = self._wanted(obj)
        if not obj.mentions_count and wanted and self.state(obj) == "running":
            # The service may count mentions only at the end: "0 of 40" would read as stuck.
            main: tuple[tuple[str, str], ...] = (
                ("mentions", f"{number(wanted)} requested{_capped(obj)}"),
            )
            return main
        extra = (
            ("new mentions", obj.new_mentions_count),
            ("images", obj.images_count),
            ("videos", obj.videos_count),
        )
        more = tuple((label, number(value)) for label, value in extra if value is not None)
        main = tuple((label, text + _capped(obj)) for label, text in super().counters(obj))
        return main + more

    def charge(self, obj: DatasetRun) -> ChargeTerms:
        count = self._wanted(obj)
        return self._terms(count, None if count else "the run does not show its count")


@register
class AudienceRunKind(RunKind[AudienceRun]):
    model = AudienceRun
    label = "Audience run"
    paid = "audience_run"

    def follower(self, obj: AudienceRun) -> Callable[[HTTPCore], Flow[AudienceRun]]:
        return lambda core: core.call(get_audience_run(obj.audience_dataset_id, obj.id))

    def read_call(self, obj: AudienceRun) -> tuple[str, str]:
        return "run", f"client.audience_datasets.runs.get({obj.audience_dataset_id!r}, {obj.id!r})"

    def done_of(self, obj: AudienceRun) -> tuple[str, int | None, int | None]:
        return "profiles", obj.profile_count, obj.target_profile_count

    def charge(self, obj: AudienceRun) -> ChargeTerms:
        target = obj.target_profile_count
        return self._terms(
            target, None if target else "the run does not show its target_profile_count"
        )


@register
class CustomParameterRunKind(RunKind[CustomParameterRun]):
    model = CustomParameterRun
    label = "Custom parameter run"
    paid = "custom_parameter_run"

    def state(self, obj: CustomParameterRun) -> State:
        # The spec: completion is mentions_done + mentions_error == mentions_total.
        if obj.status.type == "failed":
            return "failed"
        return "done" if obj.is_complete else "running"

    def follower(self, obj: CustomParameterRun) -> Callable[[HTTPCore], Flow[CustomParameterRun]]:
        parameter_id = obj.custom_parameter_id
        if parameter_id is None:
            raise InvalidParameter(
                "obj", f"custom parameter run {obj.id} has no custom_parameter_id to poll with"
            )
        return lambda core: core.call(get_custom_parameter_run(parameter_id, obj.id))

    def read_call(self, obj: CustomParameterRun) -> tuple[str, str]:
        ids = f"{obj.custom_parameter_id!r}, {obj.id!r}"
        return "run", f"client.custom_parameters.runs.get({ids})"

    def counters(self, obj: CustomParameterRun) -> tuple[tuple[str, str], ...]:
        done, failed = obj.mentions_done or 0, obj.mentions_error or 0
        counters = [("mentions done", _of(done, obj.mentions_total)), ("failed", number(failed))]
        if obj.mentions_remaining is not None:
            counters.append(("remaining", number(obj.mentions_remaining)))
        return tuple(counters)

    def fraction(self, obj: CustomParameterRun) -> float | None:
        done = (obj.mentions_done or 0) + (obj.mentions_error or 0)
        status = "completed" if obj.is_complete else obj.status.type
        return _share(done, obj.mentions_total, status)

    def charge(self, obj: CustomParameterRun) -> ChargeTerms:
        total = obj.mentions_total
        return self._terms(
            total, None if total is not None else "the run does not show mentions_total"
        )


@register
class PatternDetectionKind(RunKind[PatternDetectionRun]):
    model = PatternDetectionRun
    label = "Pattern detection"
    paid = "pattern_detection"

    def ident(self, obj: PatternDetectionRun) -> str:
        return obj.run_id

    def follower(self, obj: PatternDetectionRun) -> Callable[[HTTPCore], Flow[PatternDetectionRun]]:
        return lambda core: core.call(get_pattern_detection(obj.run_id))

    def read_call(self, obj: PatternDetectionRun) -> tuple[str, str]:
        return "run", f"client.pattern_detections.get({obj.run_id!r})"

    def counters(self, obj: PatternDetectionRun) -> tuple[tuple[str, str], ...]:
        return (("pattern", obj.pattern_id),) if obj.pattern_id else ()

    def charge(self, obj: PatternDetectionRun) -> ChargeTerms:
        return self._terms(
            None,
            "sized on the posts of the dataset's latest completed run, which the run does not show",
        )


@register
class TrackingRunKind(RunKind[TrackingRun]):
    model = TrackingRun
    label = "Tracking run"

    def follower(self, obj: TrackingRun) -> Callable[[HTTPCore], Flow[TrackingRun]]:
        return TrackingRunPoller(obj)

    def counters(self, obj: TrackingRun) -> tuple[tuple[str, str], ...]:
        return (("dataset runs", number(len(obj.dataset_run_ids or []))),)

    def charge(self, obj: TrackingRun) -> ChargeTerms:
        return ChargeTerms(
            (RUN_KIND_CATEGORIES["tracking_trigger"], "tracking", "tracking_mention"),
            unknown="each of its dataset runs reserves its own count",
        )


class _AskKind(RunKind[Any]):
    label = "Assistant reply"

    def stages(self, sent: str, working: str, refs: str, note: str) -> RunView:
        """The stages of an Ask in words: question sent, assistant working, references."""
        parts = (
            Step("question sent", sent),
            Step("assistant working", working),
            Step("references resolved", refs),
        )
        done = working == "completed"
        status = note if not done else "answered"
        return RunView(self.label, status, parts, (), _by_steps(parts, None, status))

    def charge(self, obj: Any) -> ChargeTerms:
        free = None
        if getattr(obj, "charged_tokens", None) == 0:
            free = "the service charged no inference tokens for this reply"
        return ChargeTerms(
            ("ai_assistant",),
            unknown="Ask is charged for inference after the reply",
            reserves=False,
            free=free,
        )

    def follower(self, obj: Any) -> Callable[[HTTPCore], Flow[Any]]:
        chat_id = obj.chat_id if isinstance(obj, AskAccepted) else getattr(obj, "chat_id", None)
        message_id = obj.message_id if isinstance(obj, AskAccepted) else obj.id
        if chat_id is None:
            raise InvalidParameter("obj", "wait on the AskAccepted client.ask() returned")
        return lambda core: core.call(get_chat_message(chat_id, message_id))

    def read_call(self, obj: Any) -> tuple[str, str]:
        chat_id = obj.chat_id
        message_id = obj.message_id if isinstance(obj, AskAccepted) else obj.id
        return "reply", f"client.chats.message({chat_id!r}, {message_id!r})"


@register
class AskTurnKind(_AskKind):
    model = AskAccepted

    def ident(self, obj: AskAccepted) -> str:
        return obj.message_id

    def state(self, obj: AskAccepted) -> State:
        return "running"  # the turn itself never completes: its reply message does

    def counters(self, obj: AskAccepted) -> tuple[tuple[str, str], ...]:
        return (("chat", obj.chat_id),)

    def view(self, obj: AskAccepted) -> RunView:
        shown = self.stages("completed", "pending", "pending", "question sent")
        return RunView(shown.title, shown.status, shown.steps, self.counters(obj), shown.fraction)


@register
class AskReplyKind(_AskKind):
    model = ChatMessage

    def status(self, obj: ChatMessage) -> str:
        return obj.status or "completed"  # a reply read from the chat's list has no status

    def counters(self, obj: ChatMessage) -> tuple[tuple[str, str], ...]:
        # the references are counted in the last stage's words (see view)
        return (("chat", str(chat)),) if (chat := getattr(obj, "chat_id", None)) else ()

    def view(self, obj: ChatMessage) -> RunView:
        status = self.status(obj)
        if status == "completed":
            count = len(obj.references or [])
            refs = f"{number(count)} reference{'' if count == 1 else 's'}"
            shown = self.stages("completed", "completed", "completed", "answered")
            steps = (*shown.steps[:2], Step(f"references resolved ({refs})", "completed"))
            return RunView(shown.title, "answered", steps, self.counters(obj), 1.0)
        working = "failed" if status == "failed" else "working"
        note = "the assistant failed" if status == "failed" else "the assistant is working"
        shown = self.stages("completed", working, "pending", note)
        status = status if status == "failed" else shown.status
        return RunView(shown.title, status, shown.steps, self.counters(obj), shown.fraction)
