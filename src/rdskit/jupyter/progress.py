"""Live progress of ``wait()``: a widget in a notebook, one updating line in a terminal.

``client.wait(obj, progress=None)`` (and ``obj.wait(...)``, and the waits of ``%%ask``)
asks :func:`reporter` for a :class:`Reporter`; the polling logic in ``rdskit.waiting`` only
calls its hooks. What is shown, by ``progress``:

- ``None`` (default, "auto"): in a Jupyter kernel an ipywidgets display (an HTML display
  updated in place when ipywidgets is missing); in an interactive terminal session
  (IPython or the Python REPL, with stderr a terminal) one line on stderr rewritten in
  place; otherwise (scripts, tests, servers) nothing;
- ``True``: the same, but a script or a pipe gets the text line too (one line per change
  when stderr is not a terminal);
- ``False``: nothing.

The display shows the run's status and the elapsed time (ticking every second), its
pipeline steps with their timestamps, its counters (mentions so far, done/total, profiles
vs target) and, once it is over, the credits reserved, charged and refunded. Those come
from the spec's pricing rules and the usage history rows written since the wait began;
a figure the service does not make knowable says so instead of being guessed. Every
display bundle carries a ``text/plain`` line, so front ends without widgets (nbconvert,
nbval) show the final state as text.

Example:
    >>> run = client.datasets.runs.create(ds.id, search_query=query, count=40)  # doctest: +SKIP
    >>> run.wait(progress=True)  # doctest: +SKIP
    Dataset run dsr_1: completed in 3.4s | mentions 40 of 40 | reserved 40 credits ...
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import shutil
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import singledispatch
from typing import IO, Any, Literal, Protocol

from rdskit._base_client import APIRequest, Flow, HTTPCore
from rdskit.billing import Estimate
from rdskit.errors import APIConnectionError, APIError, RunFailed, WaitTimeout
from rdskit.jupyter._html import DASH, amount, esc, number
from rdskit.models import (
    AskAccepted,
    AudienceRun,
    ChatMessage,
    CustomParameterRun,
    DatasetRun,
    PatternDetectionRun,
    Prices,
    TrackingRun,
    UsageRow,
)
from rdskit.models._base import parse_datetime

__all__ = [
    "PROGRESS_CSS",
    "BillingLine",
    "ChargeTerms",
    "DisplayView",
    "LineView",
    "Mode",
    "Reporter",
    "RunView",
    "Snapshot",
    "Step",
    "View",
    "WidgetView",
    "billing_lines",
    "charge_terms",
    "choose_mode",
    "describe",
    "progress_html",
    "progress_line",
    "reporter",
    "view_parts",
]

Mode = Literal["widget", "html", "text"]

TICK = 1.0
"""Seconds between refreshes of the elapsed time."""
USAGE_ROWS_READ = 100
"""Usage rows read after a wait to find its charge (the newest ones)."""

PROGRESS_CSS = (
    ".rds-progress{font-size:13px;line-height:1.4;max-width:52em;padding:.4em .7em;"
    "border-left:3px solid var(--jp-brand-color1,#1976d2);"
    "background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222)}"
    ".rds-progress[data-state=completed]{border-left-color:var(--jp-success-color1,#2e7d32)}"
    ".rds-progress[data-state=failed],.rds-progress[data-state=error]"
    "{border-left-color:var(--jp-error-color1,#d32f2f)}"
    ".rds-progress[data-state='timed out'],.rds-progress[data-state=interrupted]"
    "{border-left-color:var(--jp-warn-color1,#ef6c00)}"
    ".rds-progress .rds-progress-bar{height:4px;margin:.3em 0;"
    "background:var(--jp-layout-color3,#ddd)}"
    ".rds-progress .rds-progress-bar>span{display:block;height:4px;"
    "background:var(--jp-brand-color1,#1976d2)}"
    ".rds-progress table{border-collapse:collapse;margin:.2em 0}"
    ".rds-progress th,.rds-progress td{padding:0 .8em 0 0;text-align:left;border:none;"
    "font-weight:normal}"
    ".rds-progress th{color:var(--jp-ui-font-color2,#666)}"
    ".rds-progress .rds-progress-note{color:var(--jp-ui-font-color2,#666)}"
)


# -- what a run shows ------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One pipeline step of a run's status."""

    name: str
    status: str
    started: datetime | None = None
    finished: datetime | None = None


@dataclass(frozen=True)
class RunView:
    """What one state of a waited-on object shows: title, status, steps, counters."""

    title: str
    status: str
    steps: tuple[Step, ...] = ()
    counters: tuple[tuple[str, str], ...] = ()
    fraction: float | None = None  # share done, when the run says it


def _steps(status: Any) -> tuple[Step, ...]:
    return tuple(
        Step(
            step.name or "step",
            step.status or DASH,
            parse_datetime(step.started_at),
            parse_datetime(step.finished_at),
        )
        for step in (getattr(status, "steps", None) or [])
    )


def _of(done: int | None, total: int | None) -> str:
    return number(done) if total is None else f"{number(done or 0)} of {number(total)}"


def _share(done: int | None, total: int | None, status: str) -> float | None:
    if status == "completed":
        return 1.0
    if done is None or not total:
        return None
    return max(0.0, min(1.0, done / total))


@singledispatch
def describe(obj: Any) -> RunView:
    """The :class:`RunView` of a waited-on object (runs, Ask turns, replies).

    Example:
        >>> run = DatasetRun.model_validate({"id": "dsr_1", "dataset_id": "ds_1",
        ...     "created_at": 0, "count": 40, "mentions_count": 10,
        ...     "status": {"type": "working"}})
        >>> view = describe(run)
        >>> view.title, view.counters[0], view.fraction
        ('Dataset run dsr_1', ('mentions', '10 of 40'), 0.25)
    """
    status = getattr(obj, "status", None)
    return RunView(type(obj).__name__, str(getattr(status, "type", status) or DASH))


@describe.register
def _(run: DatasetRun) -> RunView:
    requested = run.count or run.requested_count
    counters = [("mentions", _of(run.mentions_count, requested))]
    counters += [
        (label, number(value))
        for label, value in (
            ("new mentions", run.new_mentions_count),
            ("images", run.images_count),
            ("videos", run.videos_count),
        )
        if value is not None
    ]
    status = run.status.type
    return RunView(
        f"Dataset run {run.id}",
        status,
        _steps(run.status),
        tuple(counters),
        _share(run.mentions_count, requested, status),
    )


@describe.register
def _(run: AudienceRun) -> RunView:
    status = run.status.type
    return RunView(
        f"Audience run {run.id}",
        status,
        _steps(run.status),
        (("profiles", _of(run.profile_count, run.target_profile_count)),),
        _share(run.profile_count, run.target_profile_count, status),
    )


@describe.register
def _(run: CustomParameterRun) -> RunView:
    done, failed = run.mentions_done or 0, run.mentions_error or 0
    counters = [("mentions done", _of(done, run.mentions_total)), ("failed", number(failed))]
    if run.mentions_remaining is not None:
        counters.append(("remaining", number(run.mentions_remaining)))
    status = run.status.type
    return RunView(
        f"Custom parameter run {run.id}",
        status,
        _steps(run.status),
        tuple(counters),
        _share(done + failed, run.mentions_total, "completed" if run.is_complete else status),
    )


@describe.register
def _(run: PatternDetectionRun) -> RunView:
    counters = (("pattern", esc(run.pattern_id)),) if run.pattern_id else ()
    return RunView(f"Pattern detection {run.run_id}", run.status.type, _steps(run.status), counters)


@describe.register
def _(run: TrackingRun) -> RunView:
    return RunView(
        f"Tracking run {run.id}",
        run.status.type,
        _steps(run.status),
        (("dataset runs", number(len(run.dataset_run_ids or []))),),
    )


@describe.register
def _(turn: AskAccepted) -> RunView:
    return RunView(f"Assistant reply {turn.message_id}", turn.status, (), (("chat", turn.chat_id),))


@describe.register
def _(message: ChatMessage) -> RunView:
    counters = [("chat", str(chat))] if (chat := getattr(message, "chat_id", None)) else []
    if message.status in (None, "completed"):
        counters.append(("references", number(len(message.references or []))))
    status = message.status or "completed"
    return RunView(f"Assistant reply {message.id}", status, (), tuple(counters))


# -- what a run costs ------------------------------------------------------------------
@dataclass(frozen=True)
class ChargeTerms:
    """How the spec charges a kind of work.

    ``categories``: usage history categories its charge is booked under; ``kind`` and
    ``quantity``: the reservation (an estimate kind of :mod:`rdskit.billing` and the
    reserved units), or ``unknown``: why the reservation cannot be known.
    """

    categories: tuple[str, ...]
    kind: str | None = None
    quantity: int | None = None
    unknown: str | None = None
    reserves: bool = True  # False: the work is charged afterwards, with no reservation


@singledispatch
def charge_terms(obj: Any) -> ChargeTerms | None:
    """The :class:`ChargeTerms` of a waited-on object (None: nothing to show).

    Example:
        >>> terms = charge_terms(AudienceRun.model_validate({"id": "adr_1",
        ...     "audience_dataset_id": "ad_1", "source_dataset_id": "ds_1", "created_at": 0,
        ...     "status": {"type": "completed"}, "target_profile_count": 300}))
        >>> terms.categories, terms.kind, terms.quantity
        (('audience_profile',), 'audience_run', 300)
    """
    return None


@charge_terms.register
def _(run: DatasetRun) -> ChargeTerms:
    count = run.count or run.requested_count
    why = None if count else "the run does not show its count"
    return ChargeTerms(("mention",), "dataset_run", count, why)


@charge_terms.register
def _(run: AudienceRun) -> ChargeTerms:
    why = None if run.target_profile_count else "the run does not show its target_profile_count"
    return ChargeTerms(("audience_profile",), "audience_run", run.target_profile_count, why)


@charge_terms.register
def _(run: CustomParameterRun) -> ChargeTerms:
    why = None if run.mentions_total is not None else "the run does not show mentions_total"
    return ChargeTerms(("post_processing",), "custom_parameter_run", run.mentions_total, why)


@charge_terms.register
def _(run: PatternDetectionRun) -> ChargeTerms:
    return ChargeTerms(
        ("post_processing",),
        unknown="sized on the posts of the dataset's latest completed run, which the run "
        "does not show",
    )


@charge_terms.register
def _(run: TrackingRun) -> ChargeTerms:
    return ChargeTerms(
        ("mention", "tracking", "tracking_mention"),
        unknown="each of its dataset runs reserves its own count",
    )


@charge_terms.register(AskAccepted)
@charge_terms.register(ChatMessage)
def _(turn: Any) -> ChargeTerms:
    return ChargeTerms(
        ("ai_assistant",), unknown="Ask is charged for inference after the reply", reserves=False
    )


@dataclass(frozen=True)
class BillingLine:
    """One billing figure: ``label`` (reserved, charged, refunded), ``figure``, ``detail``."""

    label: str
    figure: str
    detail: str = ""


def _money(credits: Decimal | None, usd: Decimal | None) -> str:
    if credits is not None:
        return f"{amount(credits)} credits" + (f" ({amount(usd)} USD)" if usd is not None else "")
    return f"{amount(usd)} USD" if usd is not None else "unknown"


def billing_lines(
    terms: ChargeTerms,
    *,
    failed: bool,
    prices: Prices | None,
    rows: list[UsageRow] | None,
    truncated: bool = False,
) -> list[BillingLine]:
    """Reserved, charged and refunded, from the pricing rules and new usage ``rows``.

    ``rows`` are the usage rows booked since the wait began (None: unreadable).

    Example:
        >>> terms = ChargeTerms(("mention",), "dataset_run", 40)
        >>> prices = Prices.model_validate({"prices_credits": {"mention": "1.000000"},
        ...     "prices": {"mention": 0.02}})
        >>> rows = [UsageRow.model_validate({"id": 3, "category": "mention", "quantity": 0.6,
        ...     "created_at": 0, "quantity_credits": "30.000000"})]
        >>> for line in billing_lines(terms, failed=False, prices=prices, rows=rows):
        ...     print(line.label, line.figure)
        reserved 40 credits (0.8 USD)
        charged 30 credits (0.6 USD)
        refunded 10 credits (0.2 USD)
    """
    reserved: Estimate | None = None
    if terms.kind is not None and terms.quantity is not None and prices is not None:
        reserved = Estimate.from_prices(terms.kind, terms.quantity, prices)
    if reserved is not None and (reserved.credits is not None or reserved.usd is not None):
        lines = [
            BillingLine(
                "reserved",
                _money(reserved.credits, reserved.usd),
                f"the upper bound: {number(terms.quantity)} x the {reserved.category} price",
            )
        ]
    else:
        why = terms.unknown or (reserved.reason if reserved else None) or "prices unavailable"
        lines = [BillingLine("reserved", "not shown" if terms.reserves else "none", why)]
    wanted = " or ".join(terms.categories)
    if rows is None:
        return [*lines, BillingLine("charged", "unknown", "the usage history could not be read")]
    charged = [row for row in rows if row.category in terms.categories]
    if failed and terms.reserves:
        lines.append(BillingLine("charged", "nothing expected", "a failed run is not charged"))
        if reserved is not None and terms.kind is not None:
            lines.append(BillingLine("refunded", lines[0].figure, "the whole reservation"))
        return lines
    if not charged:
        detail = f"no {wanted} usage row since the wait began (none yet, or nothing to charge)"
        return [*lines, BillingLine("charged", "not recorded", detail)]
    credits = _sum([row.quantity_credits for row in charged])
    usd = _sum([row.quantity for row in charged])
    source = f"{len(charged)} {wanted} usage row{'s' if len(charged) > 1 else ''}"
    if truncated:
        source += f" among the newest {USAGE_ROWS_READ}"
    lines.append(BillingLine("charged", _money(credits, usd), f"{source} since the wait began"))
    if reserved is not None and len(charged) == 1:
        back_credits = _minus(reserved.credits, credits)
        back_usd = _minus(reserved.usd, usd)
        lines.append(
            BillingLine(
                "refunded", _money(back_credits, back_usd), "the unused part of the reservation"
            )
        )
    elif reserved is not None:
        lines.append(
            BillingLine(
                "refunded", "not computed", "other work was charged in the same category meanwhile"
            )
        )
    return lines


def _sum(values: list[Decimal | None]) -> Decimal | None:
    return None if any(v is None for v in values) else sum(values, Decimal(0))  # type: ignore[misc]


def _minus(a: Decimal | None, b: Decimal | None) -> Decimal | None:
    return None if a is None or b is None else max(a - b, Decimal(0))


# -- snapshots and their renderings -----------------------------------------------------
State = Literal["running", "completed", "failed", "timed out", "interrupted", "error"]


@dataclass(frozen=True)
class Snapshot:
    """Everything one refresh of the display shows."""

    view: RunView
    state: State
    elapsed: float
    billing: tuple[BillingLine, ...] = ()
    note: str | None = None


def _seconds(value: float) -> str:
    return f"{value:.1f}s" if value < 60 else f"{int(value // 60)}m{int(value % 60):02d}s"


def _clock(value: datetime | None) -> str:
    return value.strftime("%H:%M:%S") if value is not None else DASH


def progress_html(snap: Snapshot) -> str:
    """The HTML of a snapshot: ``<div class="rds-progress" data-state=...>``.

    Example:
        >>> snap = Snapshot(RunView("Dataset run dsr_1", "working"), "running", 2.0)
        >>> progress_html(snap).count('class="rds-progress"')
        1
    """
    view = snap.view
    when = "elapsed" if snap.state == "running" else snap.state
    parts = [
        f'<div class="rds-progress" data-state="{esc(snap.state)}">',
        f"<style>{PROGRESS_CSS}</style>",
        f'<div class="rds-progress-head"><b>{esc(view.title)}</b> · '
        f'<span class="rds-progress-status">{esc(view.status)}</span> · '
        f'<span class="rds-progress-elapsed">{esc(when)} {_seconds(snap.elapsed)}</span></div>',
    ]
    if view.fraction is not None:
        parts.append(
            f'<div class="rds-progress-bar"><span style="width:{view.fraction:.0%}"></span></div>'
        )
    if view.steps:
        rows = "".join(
            f"<tr><th>{esc(step.name)}</th><td>{esc(step.status)}</td>"
            f"<td>{_clock(step.started)}</td><td>{_clock(step.finished)}</td></tr>"
            for step in view.steps
        )
        parts.append(
            '<table class="rds-progress-steps"><tr><th>step</th><th>status</th>'
            f"<th>started (UTC)</th><th>finished</th></tr>{rows}</table>"
        )
    if view.counters:
        cells = " · ".join(f"{esc(label)} <b>{esc(value)}</b>" for label, value in view.counters)
        parts.append(f'<div class="rds-progress-counters">{cells}</div>')
    if snap.billing:
        rows = "".join(
            f"<tr><th>{esc(line.label)}</th><td><b>{esc(line.figure)}</b></td>"
            f'<td class="rds-progress-note">{esc(line.detail)}</td></tr>'
            for line in snap.billing
        )
        parts.append(f'<table class="rds-progress-billing">{rows}</table>')
    if snap.note:
        parts.append(f'<div class="rds-progress-note">{esc(snap.note)}</div>')
    parts.append("</div>")
    return "".join(parts)


def view_parts(view: RunView) -> list[str]:
    """The counters, then the steps, of a view as text (what a narrow terminal keeps first).

    Example:
        >>> view_parts(RunView("Run", "working", (Step("scraping", "completed"),),
        ...     (("mentions", "3 of 9"),)))
        ['mentions 3 of 9', 'scraping completed']
    """
    parts = []
    if view.counters:
        parts.append(", ".join(f"{label} {value}" for label, value in view.counters))
    if view.steps:
        parts.append(", ".join(f"{step.name} {step.status}" for step in view.steps))
    return parts


def progress_line(snap: Snapshot) -> str:
    """The one-line text of a snapshot (terminal line and ``text/plain`` fallback).

    Example:
        >>> view = RunView("Dataset run dsr_1", "working", (Step("scraping", "completed"),
        ...     Step("enrichment", "working")), (("mentions", "12 of 40"),))
        >>> for part in progress_line(Snapshot(view, "running", 3.0)).split(" | "):
        ...     print(part)
        Dataset run dsr_1: working, 3.0s
        mentions 12 of 40
        scraping completed, enrichment working
    """
    view = snap.view
    if snap.state == "running":
        head = f"{view.title}: {view.status}, {_seconds(snap.elapsed)}"
    else:
        status = view.status if view.status == snap.state else f"{view.status} ({snap.state})"
        head = f"{view.title}: {status} after {_seconds(snap.elapsed)}"
    parts = [head, *view_parts(view)]
    parts += [f"{line.label} {line.figure}" for line in snap.billing]
    if snap.note:
        parts.append(snap.note)
    return " | ".join(parts)


# -- where it is shown -----------------------------------------------------------------
class View(Protocol):
    """A place a reporter draws its snapshots."""

    def open(self, snap: Snapshot) -> None: ...

    def show(self, snap: Snapshot) -> None: ...

    def close(self, snap: Snapshot) -> None: ...


class WidgetView:
    """An ipywidgets HTML widget while the wait runs, static HTML once it is over.

    Its display carries ``text/html`` and ``text/plain`` fallbacks; at the end the output
    becomes plain HTML + text, so a saved notebook (or one opened without the kernel)
    shows the final state instead of a widget whose model is gone.
    """

    def __init__(self) -> None:
        import ipywidgets

        self.widget = ipywidgets.HTML()
        self._handle: Any = None

    def open(self, snap: Snapshot) -> None:
        from IPython.display import display

        self.widget.value = progress_html(snap)
        bundle: dict[str, Any] = {**self.widget._repr_mimebundle_(), **DisplayView.bundle(snap)}
        self._handle = display(bundle, raw=True, display_id=True)

    def show(self, snap: Snapshot) -> None:
        self.widget.value = progress_html(snap)  # a comm message: no new output

    def close(self, snap: Snapshot) -> None:
        self._handle.update(DisplayView.bundle(snap), raw=True)
        self.widget.close()  # its comm is not needed any more


class DisplayView:
    """An HTML display updated in place (a kernel without ipywidgets)."""

    def __init__(self) -> None:
        self._handle: Any = None

    @staticmethod
    def bundle(snap: Snapshot) -> dict[str, str]:
        """The static bundle of a snapshot: ``text/html`` and ``text/plain``."""
        return {"text/html": progress_html(snap), "text/plain": progress_line(snap)}

    def open(self, snap: Snapshot) -> None:
        from IPython.display import display

        self._handle = display(self.bundle(snap), raw=True, display_id=True)

    def show(self, snap: Snapshot) -> None:
        self._handle.update(self.bundle(snap), raw=True)

    close = show


class LineView:
    """One line on a text stream: rewritten in place on a terminal (cut to its width
    while running, whole at the end), else printed once per status change."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self._tty = self.stream.isatty()
        self._last = ""

    def open(self, snap: Snapshot) -> None:
        self.show(snap)

    def show(self, snap: Snapshot) -> None:
        line = progress_line(snap)
        if self._tty:
            width = shutil.get_terminal_size().columns - 1
            shown = line if snap.state != "running" else line[:width]
            self.stream.write("\r" + shown + "\x1b[K")
        elif line.split(", ", 1)[0] != self._last.split(", ", 1)[0] or snap.state != "running":
            # Not a terminal: print only when the status changes, not every tick.
            self.stream.write(line + "\n")
        self._last = line
        self.stream.flush()

    def close(self, snap: Snapshot) -> None:
        self.show(snap)
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()


def choose_mode(progress: bool | None) -> Mode | None:
    """Where progress goes for ``wait(progress=...)`` in this process (module docstring).

    Example:
        >>> choose_mode(False) is None
        True
    """
    if progress is False:
        return None
    shell = _ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        return "widget" if _has_widgets() else "html"
    interactive = shell is not None or hasattr(sys, "ps1") or bool(sys.flags.interactive)
    if progress is True or (interactive and sys.stderr.isatty()):
        return "text"
    return None


def _ipython() -> Any:
    if "IPython" not in sys.modules:  # never import IPython just to look for it
        return None
    from IPython import get_ipython

    return get_ipython()


def _has_widgets() -> bool:
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


_VIEWS: dict[Mode, Callable[[], View]] = {
    "widget": WidgetView,
    "html": DisplayView,
    "text": LineView,
}


def reporter(obj: Any, progress: bool | None) -> Reporter | None:
    """The reporter of one wait on ``obj``, or None when progress is off here.

    Example:
        >>> reporter(object(), False) is None
        True
    """
    mode = choose_mode(progress)
    return None if mode is None else Reporter(obj, _VIEWS[mode]())


# -- the reporter ----------------------------------------------------------------------
class Reporter:
    """Shows one wait: the waiting flow calls :meth:`watch`'s callback on each poll, runs
    inside :meth:`wrap` (usage history before and after) and is driven by :meth:`run`.

    Example:
        >>> rep = Reporter(run, LineView(sys.stdout))  # doctest: +SKIP
        >>> done = rep.run(client._run, rep.wrap(client._core, flow))  # doctest: +SKIP
    """

    def __init__(
        self,
        obj: Any,
        view: View,
        *,
        clock: Callable[[], float] = time.monotonic,
        tick: float = TICK,
    ) -> None:
        self.view = view
        self.latest = obj
        self.outcome: State | None = None  # None while the wait runs
        self._clock = clock
        self._tick = tick
        self._started = clock()
        self._billing: tuple[BillingLine, ...] = ()
        self._note: str | None = None
        self._lock = threading.RLock()
        self._stopped = threading.Event()
        self._opened = False

    # -- hooks called by rdskit.waiting -------------------------------------------------
    def watch(self, on_update: Callable[[Any], None] | None) -> Callable[[Any], None]:
        """``on_update`` followed by a refresh of the display."""

        def updated(obj: Any) -> None:
            if on_update is not None:
                on_update(obj)
            self.update(obj)

        return updated

    def wrap(self, core: HTTPCore, flow: Flow[Any]) -> Flow[Any]:
        """The waiting flow, with the usage history read before and the bill after."""
        mark = yield from self._newest_usage_id(core)
        try:
            result = yield from flow
        except RunFailed as exc:
            self.latest = exc.obj
            billing = yield from self._bill(core, exc.obj, mark, failed=True)
            self.finish("failed", billing=billing)
            raise
        except WaitTimeout as exc:
            self.latest = exc.obj
            self.finish("timed out", note="the run goes on; wait on it again to follow it")
            raise
        except Exception as exc:
            self.finish("error", note=f"{type(exc).__name__}: {exc}")
            raise
        billing = yield from self._bill(core, result, mark, failed=False)
        self.latest = result
        self.finish("completed", billing=billing)
        return result

    def run(self, drive: Callable[[Flow[Any]], Any], flow: Flow[Any]) -> Any:
        """Open the display and drive ``flow`` (sync or async driver)."""
        self.open()
        try:
            result = drive(flow)
        except BaseException as exc:
            self._abandon(exc)
            raise
        if inspect.isawaitable(result):
            return self._await(result)
        return result

    async def _await(self, pending: Awaitable[Any]) -> Any:
        try:
            return await pending
        except BaseException as exc:
            self._abandon(exc)
            raise

    # -- display --------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """What the display shows now."""
        with self._lock:
            return Snapshot(
                describe(self.latest),
                self.outcome or "running",
                self._clock() - self._started,
                self._billing,
                self._note,
            )

    def open(self) -> None:
        """Show the display and start ticking the elapsed time."""
        with self._lock:
            self.view.open(self.snapshot())
            self._opened = True
        # The ticker runs in a copy of this context, so kernel output routing (which
        # follows the executing cell through context variables) stays on this cell.
        context = contextvars.copy_context()
        threading.Thread(
            target=context.run, args=(self._ticking,), name="rdskit-progress", daemon=True
        ).start()

    def update(self, obj: Any) -> None:
        """Show a freshly polled state."""
        with self._lock:
            self.latest = obj
            if self._opened and self.outcome is None:
                self.view.show(self.snapshot())

    def finish(
        self, outcome: State, *, billing: list[BillingLine] | None = None, note: str | None = None
    ) -> None:
        """Show the end state (once)."""
        with self._lock:
            if self.outcome is not None:
                return
            self.outcome = outcome
            self._billing = tuple(billing or ())
            self._note = note
            self._stopped.set()
            if self._opened:
                self.view.close(self.snapshot())

    def _ticking(self) -> None:
        while not self._stopped.wait(self._tick):
            with self._lock:
                if self.outcome is None:
                    self.view.show(self.snapshot())

    def _abandon(self, exc: BaseException) -> None:
        if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
            self.finish("interrupted", note="stopped waiting; the run goes on on the service")
        else:
            self.finish("error", note=f"{type(exc).__name__}: {exc}")

    # -- billing flows --------------------------------------------------------------------
    def _newest_usage_id(self, core: HTTPCore) -> Flow[int | None]:
        if charge_terms(self.latest) is None:
            return None
        try:
            page = yield from core.call_page(_usage_rows(1))
        except (APIError, APIConnectionError):
            return None
        return page.data[0].id if page.data else 0

    def _bill(
        self, core: HTTPCore, obj: Any, mark: int | None, *, failed: bool
    ) -> Flow[list[BillingLine]]:
        terms = charge_terms(obj)
        if terms is None:
            return []
        prices: Prices | None = None
        rows: list[UsageRow] | None = None
        truncated = False
        try:
            if terms.kind is not None and terms.quantity is not None:
                prices = yield from core.owner._prices.get(core.owner)
            if mark is not None:
                page = yield from core.call_page(_usage_rows(USAGE_ROWS_READ))
                rows = [row for row in page.data if row.id > mark]
                truncated = len(rows) == USAGE_ROWS_READ
        except (APIError, APIConnectionError):
            pass  # billing_lines says which figure is unknown
        return billing_lines(terms, failed=failed, prices=prices, rows=rows, truncated=truncated)


def _usage_rows(limit: int) -> APIRequest[UsageRow]:
    return APIRequest(
        "GET", "/v1/me/usage_history", params={"limit": limit}, cast=UsageRow.model_validate
    )
