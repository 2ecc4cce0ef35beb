"""``client.wait(obj)``: poll a run (or an Ask turn) until the spec says it is over.

Each kind of object is re-read through its GET endpoint, with a growing interval (x1.5,
capped at 10 s or ``poll_interval`` if larger); every poll goes through the client's
rate limiter like any call. Terminal conditions:

===========================  ============================================  ===============
object                       done when                                     failed when
===========================  ============================================  ===============
DatasetRun, AudienceRun      ``status.type == "completed"``                ``"failed"``
CustomParameterRun           total known and done + error == total          ``"failed"``
PatternDetectionRun          ``status.type == "completed"`` (pattern_id)   ``"failed"``
TrackingRun                  ``completed`` (see below)                     ``failed``
AskAccepted / ChatMessage    the message's ``status == "completed"``       ``"failed"``
===========================  ============================================  ===============

Any other status is treated as still running. ``progress`` shows the wait live (a widget
in a notebook, a line in a terminal; see :mod:`rdskit.jupyter.progress`, which decides
where and draws it through the ``on_update`` hook). ``wait`` returns the final object (for an
Ask turn: the completed assistant :class:`~rdskit.models.ChatMessage`), raises
:class:`~rdskit.errors.RunFailed` when it failed and :class:`~rdskit.errors.WaitTimeout`
after ``timeout`` seconds.

Tracking runs have no GET endpoint of their own, so they are followed through their
dataset runs (``dataset_run_ids``, found among the runs of the agent's datasets): the
returned TrackingRun carries a status derived from them, ``completed`` once they are all
over and at least one completed, ``failed`` if all failed (the sandbox's rule).

Example:
    >>> run = client.datasets.runs.create("ds_1", search_query=query, count=50)  # doctest: +SKIP
    >>> show = lambda r: print(r.status.type)
    >>> done = client.wait(run, timeout=600, on_update=show)  # doctest: +SKIP
    pending
    working
    completed
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rdskit._base_client import Flow, Sleep
from rdskit.errors import InvalidParameter, RunFailed, WaitTimeout
from rdskit.models import (
    AskAccepted,
    AudienceRun,
    ChatMessage,
    CustomParameterRun,
    DatasetRun,
    PatternDetectionRun,
    TrackingRun,
)
from rdskit.resources.audiences import get_audience_run
from rdskit.resources.chats import get_chat_message
from rdskit.resources.custom_parameters import get_custom_parameter_run
from rdskit.resources.datasets import get_dataset_run, list_dataset_runs
from rdskit.resources.patterns import get_pattern_detection
from rdskit.resources.tracking import get_tracking_agent

if TYPE_CHECKING:
    from rdskit._base_client import HTTPCore

__all__ = ["DEFAULT_POLL_INTERVAL", "MAX_POLL_INTERVAL", "WaitingMixin"]

DEFAULT_POLL_INTERVAL = 1.0
"""Seconds before the first poll."""
MAX_POLL_INTERVAL = 10.0
"""The interval grows up to this (or ``poll_interval``, if larger)."""
_GROWTH = 1.5

State = Literal["running", "done", "failed"]


class WaitingMixin:
    """``client.wait(...)``, shared by both clients."""

    _core: HTTPCore
    _run: Callable[[Flow[Any]], Any]

    def wait(
        self,
        obj: Any,
        *,
        timeout: float | None = None,
        on_update: Callable[[Any], None] | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        progress: bool | None = None,
    ) -> Any:
        """Poll ``obj`` until it is over; returns its final state (see the module table).

        ``on_update`` is called with each freshly read object. ``progress``: None shows
        the wait where it makes sense (a notebook widget, an interactive terminal's line),
        True always (a text line at least), False never. On an AsyncClient this returns
        an awaitable.

        Example:
            >>> reply = client.wait(client.ask("Top complaints?"), timeout=120)  # doctest: +SKIP
            >>> reply.status  # doctest: +SKIP
            'completed'
        """
        if poll_interval <= 0:
            raise InvalidParameter("poll_interval", f"must be > 0, got {poll_interval!r}")
        follow = _follower(obj)
        shown = _reporter(obj, progress)
        if shown is None:
            return self._run(_wait(self._core, follow, obj, timeout, on_update, poll_interval))
        flow = _wait(self._core, follow, obj, timeout, shown.watch(on_update), poll_interval)
        return shown.run(self._run, shown.wrap(self._core, flow))


def _reporter(obj: Any, progress: bool | None) -> Any:
    """The progress display of one wait, or None (imported only when it may show)."""
    if progress is False:
        return None
    from rdskit.jupyter.progress import reporter

    return reporter(obj, progress)


@dataclass
class _Follower:
    """How to re-read one waited-on object and judge its state."""

    what: str  # e.g. "dataset run dsr_1", for messages
    fetch: Callable[[HTTPCore], Flow[Any]]
    state: Callable[[Any], State]


def _wait(
    core: HTTPCore,
    follow: _Follower,
    obj: Any,
    timeout: float | None,
    on_update: Callable[[Any], None] | None,
    poll_interval: float,
) -> Flow[Any]:
    deadline = None if timeout is None else core.clock() + timeout
    interval = poll_interval
    cap = max(MAX_POLL_INTERVAL, poll_interval)
    current = obj
    while True:
        state = follow.state(current)
        if state == "done":
            return current
        if state == "failed":
            raise RunFailed(current, f"{follow.what} failed: {_status(current)}")
        delay = interval
        if deadline is not None:
            left = deadline - core.clock()
            if left <= 0:
                raise WaitTimeout(
                    current,
                    f"{follow.what} is still {_status(current)} after {timeout:g}s; "
                    "call client.wait(...) on it again to keep waiting",
                )
            delay = min(delay, left)
        yield Sleep(delay)
        current = yield from follow.fetch(core)
        if on_update is not None:
            on_update(current)
        interval = min(interval * _GROWTH, cap)


def _status(obj: Any) -> str:
    status = getattr(obj, "status", None)
    return str(getattr(status, "type", status))


def _by_status_type(obj: Any) -> State:
    kind = obj.status.type
    return "done" if kind == "completed" else "failed" if kind == "failed" else "running"


def _custom_parameter_state(run: CustomParameterRun) -> State:
    if run.status.type == "failed":
        return "failed"
    return "done" if run.is_complete else "running"


def _message_state(obj: Any) -> State:
    if isinstance(obj, AskAccepted):
        return "running"  # the turn itself never completes: its reply message does
    status = obj.status
    return "done" if status == "completed" else "failed" if status == "failed" else "running"


def _follower(obj: Any) -> _Follower:
    """The follower of ``obj``, or InvalidParameter for objects that cannot be waited on."""
    if isinstance(obj, DatasetRun):
        return _Follower(
            f"dataset run {obj.id}",
            lambda core: core.call(get_dataset_run(obj.dataset_id, obj.id)),
            _by_status_type,
        )
    if isinstance(obj, AudienceRun):
        return _Follower(
            f"audience run {obj.id}",
            lambda core: core.call(get_audience_run(obj.audience_dataset_id, obj.id)),
            _by_status_type,
        )
    if isinstance(obj, CustomParameterRun):
        parameter_id = obj.custom_parameter_id
        if parameter_id is None:
            raise InvalidParameter(
                "obj", f"custom parameter run {obj.id} has no custom_parameter_id to poll with"
            )
        return _Follower(
            f"custom parameter run {obj.id}",
            lambda core: core.call(get_custom_parameter_run(parameter_id, obj.id)),
            _custom_parameter_state,
        )
    if isinstance(obj, PatternDetectionRun):
        return _Follower(
            f"pattern detection {obj.run_id}",
            lambda core: core.call(get_pattern_detection(obj.run_id)),
            _by_status_type,
        )
    if isinstance(obj, TrackingRun):
        return _Follower(f"tracking run {obj.id}", _TrackingRunPoller(obj), _by_status_type)
    if isinstance(obj, AskAccepted | ChatMessage):
        chat_id = obj.chat_id if isinstance(obj, AskAccepted) else getattr(obj, "chat_id", None)
        message_id = obj.message_id if isinstance(obj, AskAccepted) else obj.id
        if chat_id is None:
            raise InvalidParameter("obj", "wait on the AskAccepted client.ask() returned")
        return _Follower(
            f"assistant reply {message_id}",
            lambda core: core.call(get_chat_message(chat_id, message_id)),
            _message_state,
        )
    raise InvalidParameter("obj", f"cannot wait on a {type(obj).__name__}")


class _TrackingRunPoller:
    """Re-reads a tracking run through its dataset runs (it has no GET endpoint)."""

    def __init__(self, run: TrackingRun) -> None:
        if not run.dataset_run_ids:
            raise InvalidParameter("obj", f"tracking run {run.id} lists no dataset runs to follow")
        self._run = run
        self._dataset_of: dict[str, str] = {}  # dataset run id -> its dataset id

    def __call__(self, core: HTTPCore) -> Flow[TrackingRun]:
        run_ids = self._run.dataset_run_ids or []
        if not self._dataset_of:
            yield from self._locate(core, run_ids)
        states = []
        for run_id in run_ids:
            dataset_run = yield from core.call(get_dataset_run(self._dataset_of[run_id], run_id))
            states.append(dataset_run.status.type)
        over = all(state in ("completed", "failed") for state in states)
        derived = self._run.status.type
        if over:
            derived = "completed" if "completed" in states else "failed"
        fresh = TrackingRun.model_validate({**self._run.to_wire(), "status": {"type": derived}})
        return core.bind(fresh)

    def _locate(self, core: HTTPCore, run_ids: list[str]) -> Flow[None]:
        """Find each dataset run among the newest runs of the agent's datasets."""
        agent = yield from core.call(get_tracking_agent(self._run.agent_id))
        for dataset_id in agent.dataset_ids or []:
            page = yield from core.call_page(list_dataset_runs(dataset_id, limit=100, order="desc"))
            for dataset_run in page.data:
                if dataset_run.id in run_ids:
                    self._dataset_of[dataset_run.id] = dataset_id
        missing = [run_id for run_id in run_ids if run_id not in self._dataset_of]
        if missing:
            raise InvalidParameter(
                "obj",
                f"dataset runs {missing} are not among the runs of agent "
                f"{self._run.agent_id}'s datasets",
            )
