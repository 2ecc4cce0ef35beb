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

The rules of each kind live in the run-kind registry, :mod:`rdskit.runs`. ``pending``,
``working`` and ``processing`` are running; a status the spec does not show is watched: if
it stays the same for :data:`UNKNOWN_STATUS_GRACE` seconds, ``wait`` raises
:class:`~rdskit.errors.UnknownStatus` (it may be a terminal state of a newer service) rather
than polling on. ``timeout`` defaults to :data:`DEFAULT_WAIT_TIMEOUT` (``None`` waits
without limit). ``progress`` shows the wait live (a widget in a notebook, a line in a
terminal): the figures come from :mod:`rdskit.progress`, the views from the Jupyter layer,
loaded only when something may be shown. ``wait`` returns the final object (for an
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

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rdskit import _hooks
from rdskit._base_client import Flow, Sleep
from rdskit._embedded import run_goes_on
from rdskit._safe import one_line
from rdskit.budget import counted_reply
from rdskit.errors import InvalidParameter, RunFailed, UnknownStatus, WaitTimeout
from rdskit.models import AskAccepted, ChatMessage
from rdskit.models._base import DEFAULT_WAIT_TIMEOUT
from rdskit.progress import may_show
from rdskit.runs import RunKind, kind_of, known_status

if TYPE_CHECKING:
    from rdskit._base_client import HTTPCore
    from rdskit.progress import Reporter

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "DEFAULT_WAIT_TIMEOUT",
    "MAX_POLL_INTERVAL",
    "UNKNOWN_STATUS_GRACE",
    "WaitInterrupted",
    "WaitingMixin",
    "stopped_line",
]

DEFAULT_POLL_INTERVAL = 1.0
"""Seconds before the first poll."""
MAX_POLL_INTERVAL = 10.0
"""The interval grows up to this (or ``poll_interval``, if larger)."""
UNKNOWN_STATUS_GRACE = 120.0
"""Seconds a status the spec does not show may stay unchanged before ``wait`` gives up."""
_GROWTH = 1.5


class WaitInterrupted(KeyboardInterrupt):
    """The wait was interrupted (Ctrl-C, a notebook's stop button); the run goes on.

    Still a ``KeyboardInterrupt`` (a script stops as before); IPython and Jupyter show
    its one line instead of a traceback from inside the library: the run, where it goes on
    (``goes_on``: on the service, or in this kernel's embedded sandbox and for how long:
    see :func:`rdskit._embedded.run_goes_on`), and the exact call that picks it up again.
    An ``AsyncClient``'s wait that is cancelled instead (a notebook's stop button on an
    ``await`` cell, a task's ``cancel()``) re-raises the very ``asyncio.CancelledError``
    (asyncio's timeouts and task groups still see a cancellation) carrying the same line:
    as a note, and shown alone by IPython and Jupyter.

    Example:
        >>> str(WaitInterrupted("dataset run dsr_1", "run = client.wait(...)"))[:61]
        'Stopped waiting: dataset run dsr_1 continues on the service. '
        >>> WaitInterrupted("dataset run dsr_1", "run = client.wait(...)").resume
        'run = client.wait(...)'
    """

    def __init__(self, what: str, resume: str, goes_on: str = "continues on the service") -> None:
        super().__init__(stopped_line(what, resume, goes_on))
        self.resume = resume

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


def stopped_line(what: str, resume: str, goes_on: str = "continues on the service") -> str:
    """The one line an interrupted wait shows.

    Example:
        >>> stopped_line("run pdr_1", "run = await client.wait(...)")[:60]
        'Stopped waiting: run pdr_1 continues on the service. Resume '
    """
    return one_line(f"Stopped waiting: {what} {goes_on}. Resume with: {resume}")


async def _interruptible(pending: Awaitable[Any], what: str, resume: str, goes_on: str) -> Any:
    """``pending`` (an AsyncClient's wait), saying what goes on when it is interrupted:
    a ``KeyboardInterrupt`` becomes :class:`WaitInterrupted`; a cancellation stays the
    same ``CancelledError``, with the line as a note and as what IPython shows of it."""
    try:
        return await pending
    except KeyboardInterrupt:
        raise WaitInterrupted(what, resume, goes_on) from None
    except asyncio.CancelledError as exc:
        line = stopped_line(what, resume, goes_on)
        exc.add_note(line)
        # IPython shows what _render_traceback_ returns (looked up on the instance), so
        # the cell shows this line and not a traceback from inside asyncio and rdskit.
        vars(exc)["_render_traceback_"] = lambda: [line]
        raise


class WaitingMixin:
    """``client.wait(...)``, shared by both clients."""

    _core: HTTPCore
    _run: Callable[[Flow[Any]], Any]

    def wait(
        self,
        obj: Any,
        *,
        timeout: float | None = DEFAULT_WAIT_TIMEOUT,
        on_update: Callable[[Any], None] | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        progress: bool | None = None,
    ) -> Any:
        """Poll ``obj`` until it is over; returns its final state (see the module table).

        ``timeout``: seconds before :class:`~rdskit.errors.WaitTimeout` (default one hour;
        None waits without limit). ``on_update`` is called with each freshly read object.
        ``progress``: None shows the wait where it makes sense (a notebook widget, an
        interactive terminal's line), True always (a text line at least), False never. On
        an AsyncClient this returns an awaitable. Interrupted (:class:`WaitInterrupted`,
        or a cancelled ``await``), it says in one line that the run goes on and how to
        resume it.

        Example:
            >>> reply = client.wait(client.ask("Top complaints?"), timeout=120)  # doctest: +SKIP
            >>> reply.status  # doctest: +SKIP
            'completed'
        """
        if poll_interval <= 0:
            raise InvalidParameter("poll_interval", f"must be > 0, got {poll_interval!r}")
        if timeout is not None and not timeout > 0:
            raise InvalidParameter("timeout", f"must be > 0 seconds or None, got {timeout!r}")
        kind = kind_of(obj)
        if kind is None:
            raise InvalidParameter("obj", f"cannot wait on a {type(obj).__name__}")
        fetch = _fetcher(kind, obj)
        shown = _reporter(obj, progress)
        updated = on_update if shown is None else shown.watch(on_update)
        flow = _wait(self._core, kind, fetch, obj, timeout, updated, poll_interval)
        goes_on = run_goes_on(self)
        try:
            if shown is None:
                result = self._run(flow)
            else:
                result = shown.run(self._run, shown.wrap(self._core, flow), goes_on=goes_on)
        except KeyboardInterrupt:  # a blocking wait
            raise WaitInterrupted(kind.what(obj), kind.resume(obj), goes_on) from None
        if inspect.isawaitable(result):  # an AsyncClient's: interrupted when awaited
            resume = kind.resume(obj, awaited=True)
            return _interruptible(result, kind.what(obj), resume, goes_on)
        return result


def _reason(obj: Any) -> str:
    """Why a failed run failed, when its status says (a ``reason`` the spec does not
    show, kept as sent: the sandbox sends one), or a failed reply's own text (the
    assistant's apology: the sandbox says why in it), on one line.

    Example:
        >>> from rdskit.models import DatasetRun
        >>> _reason(DatasetRun.model_validate({"id": "dsr_1", "dataset_id": "ds_1",
        ...     "created_at": 0, "status": {"type": "failed", "reason": "it broke"}}))
        ' (it broke)'
        >>> _reason(ChatMessage.model_validate({"id": "msg_1", "role": "assistant",
        ...     "created_at": 0, "status": "failed", "text": "Sorry: it broke."}))
        ' (Sorry: it broke.)'
    """
    if isinstance(obj, ChatMessage):
        reason: Any = obj.text
    else:
        reason = getattr(getattr(obj, "status", None), "reason", None)
    return f" ({one_line(reason)[:300]})" if isinstance(reason, str) and reason.strip() else ""


def _fetcher(kind: RunKind[Any], obj: Any) -> Callable[[HTTPCore], Flow[Any]]:
    """How to re-read ``obj``: its kind's follower; an Ask reply through the process
    budget, which commits the reply's charge once it is over (:mod:`rdskit.budget`)."""
    fetch = kind.follower(obj)  # raises InvalidParameter when it cannot be re-read
    if isinstance(obj, AskAccepted | ChatMessage) and obj.chat_id is not None:
        chat_id = obj.chat_id
        message_id = obj.message_id if isinstance(obj, AskAccepted) else obj.id
        return lambda core: counted_reply(core, chat_id, message_id)
    return fetch


def _reporter(obj: Any, progress: bool | None) -> Reporter | None:
    """The progress display of one wait, or None; the Jupyter layer (the
    ``_hooks.progress`` hook) is loaded only where something may be shown."""
    if not may_show(progress):
        return None
    return _hooks.progress.call(obj, progress)


def _wait(
    core: HTTPCore,
    kind: RunKind[Any],
    fetch: Callable[[HTTPCore], Flow[Any]],
    obj: Any,
    timeout: float | None,
    on_update: Callable[[Any], None] | None,
    poll_interval: float,
) -> Flow[Any]:
    start = core.clock()
    deadline = None if timeout is None else start + timeout
    interval = poll_interval
    cap = max(MAX_POLL_INTERVAL, poll_interval)
    current = obj
    unknown_since: tuple[str, float] | None = None  # (status, first seen)
    while True:
        # An Ask turn is followed through its reply message: judge what was read.
        kind = kind_of(current) or kind
        state = kind.state(current)
        if state == "done":
            return current
        status = kind.status(current)
        if state == "failed":
            raise RunFailed(current, f"{kind.what(current)} failed: {status}{_reason(current)}")
        now = core.clock()
        if known_status(status):
            unknown_since = None
        elif unknown_since is None or unknown_since[0] != status:
            unknown_since = (status, now)
        elif now - unknown_since[1] >= UNKNOWN_STATUS_GRACE:
            raise UnknownStatus(
                current,
                f"{kind.what(current)} has been {status!r} for {now - unknown_since[1]:.0f}s, "
                "a status rdskit does not know (it knows pending, working, processing, "
                "completed, failed): it may be a final state of a newer service. Read the "
                "object again to decide, or upgrade rdskit",
            )
        delay = interval
        if deadline is not None:
            left = deadline - now
            if left <= 0:
                raise WaitTimeout(
                    current,
                    f"{kind.what(current)} is still {status} after {timeout:g}s; "
                    "call client.wait(...) on it again to keep waiting",
                )
            delay = min(delay, left)
        yield Sleep(delay)
        current = yield from fetch(core)
        if on_update is not None:
            on_update(current)
        interval = min(interval * _GROWTH, cap)
