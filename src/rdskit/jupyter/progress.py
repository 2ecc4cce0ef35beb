"""Live progress of ``wait()``, shown: a widget in a notebook, one updating line in a terminal.

``client.wait(obj, progress=None)`` (and ``obj.wait(...)``, and the waits of ``%%ask``)
asks this module (through the ``jupyter.progress`` hook, :func:`reporter`) for a
:class:`~rdskit.progress.Reporter` drawing on one of the views here. What a run's progress
*is* (steps, counters, share done, the billing figures) lives in the core,
:mod:`rdskit.progress` and the run-kind registry :mod:`rdskit.runs`; this module only
draws it. What is shown, by ``progress``:

- ``None`` (default, "auto"): in a Jupyter kernel an ipywidgets display (an HTML display
  updated in place when ipywidgets is missing); whenever stderr is a terminal (IPython,
  the Python REPL or a ``python script.py`` run by hand) one line on stderr rewritten in
  place; otherwise (output to a file or a pipe: tests, servers, cron) nothing, and this
  module is not even loaded;
- ``True``: the same, but a script or a pipe gets the text line too (one line per change
  when stderr is not a terminal);
- ``False``: nothing.

The display shows the run's status and the elapsed time (ticking every second), its
pipeline steps with their timestamps, its counters (mentions so far, done/total, profiles
vs target) and, once it is over, the credits reserved, charged and refunded. Every
display bundle carries a ``text/plain`` line, so front ends without widgets (nbconvert,
nbval) show the final state as text.

Example:
    >>> run = client.datasets.runs.create(ds.id, search_query=query, count=40)  # doctest: +SKIP
    >>> run.wait(progress=True)  # doctest: +SKIP
    Dataset run dsr_1: completed in 3.4s | mentions 40 of 40 | reserved 40 credits ...
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from datetime import datetime
from typing import IO, Any, Literal

from rdskit._safe import one_line
from rdskit.jupyter._html import DASH, esc
from rdskit.progress import (
    BillingLine,
    Reporter,
    Snapshot,
    State,
    View,
    billing_lines,
)
from rdskit.runs import ChargeTerms, RunView, Step, charge_terms, describe

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
    "State",
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
    "timing",
    "view_parts",
]

Mode = Literal["widget", "html", "text"]

# One layout for the live widget and the final output: blocks and CSS grids, no tables
# (JupyterLab's rendered-HTML styles right-align and stripe tables, the widget's do not).
PROGRESS_CSS = (
    ".rds-progress{box-sizing:border-box;font-size:13px;line-height:1.45;max-width:52em;"
    "margin:0;padding:.45em .8em;text-align:left;"
    "border-left:3px solid var(--jp-brand-color1,#1976d2);"
    "background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222)}"
    ".rds-progress[data-state=completed]{border-left-color:var(--jp-success-color1,#2e7d32)}"
    ".rds-progress[data-state=failed],.rds-progress[data-state=error]"
    "{border-left-color:var(--jp-error-color1,#d32f2f)}"
    ".rds-progress[data-state='timed out'],.rds-progress[data-state=interrupted]"
    "{border-left-color:var(--jp-warn-color1,#ef6c00)}"
    ".rds-progress .rds-progress-head{display:flex;flex-wrap:wrap;gap:0 .8em;"
    "align-items:baseline}"
    ".rds-progress .rds-progress-time{color:var(--jp-ui-font-color2,#555);"
    "font-variant-numeric:tabular-nums}"
    ".rds-progress .rds-progress-bar{height:6px;margin:.35em 0;border-radius:3px;"
    "overflow:hidden;background:var(--jp-layout-color3,#ddd)}"
    ".rds-progress .rds-progress-bar>span{display:block;height:6px;"
    "background:var(--jp-brand-color1,#1976d2);transition:width .4s ease-out}"
    ".rds-progress[data-state=completed] .rds-progress-bar>span"
    "{background:var(--jp-success-color1,#2e7d32)}"
    ".rds-progress .rds-progress-grid{display:grid;grid-template-columns:repeat(4,max-content);"
    "gap:0 1.2em;margin:.25em 0}"
    ".rds-progress .rds-progress-grid.rds-progress-billing{grid-template-columns:"
    "max-content max-content minmax(0,1fr)}"
    ".rds-progress .rds-progress-grid.rds-progress-stages{grid-template-columns:"
    "repeat(2,max-content)}"
    ".rds-progress .rds-progress-grid>span{white-space:nowrap}"
    ".rds-progress .rds-progress-grid>.rds-progress-label,.rds-progress .rds-progress-note"
    "{color:var(--jp-ui-font-color2,#555)}"
    ".rds-progress .rds-progress-grid>.rds-progress-note{white-space:normal}"
    ".rds-progress .rds-step-completed{color:var(--jp-success-color1,#2e7d32)}"
    ".rds-progress .rds-step-working{font-weight:600}"
    ".rds-progress .rds-step-failed{color:var(--jp-error-color1,#d32f2f)}"
)


# -- renderings ------------------------------------------------------------------------
def _seconds(value: float) -> str:
    return f"{value:.1f}s" if value < 60 else f"{int(value // 60)}m{int(value % 60):02d}s"


def _rough(value: float) -> str:
    """A time-left estimate: whole seconds, then minutes (no false precision)."""
    return f"{max(1, round(value))}s" if value < 60 else f"{round(value / 60)} min"


def _clock(value: datetime | None) -> str:
    return value.strftime("%H:%M:%S") if value is not None else DASH


def timing(snap: Snapshot) -> str:
    """How long it has taken, and (while running) how long it may still take.

    Example:
        >>> view = RunView("Dataset run dsr_1", "completed")
        >>> timing(Snapshot(view, "completed", 4.8))
        'completed in 4.8s'
        >>> timing(Snapshot(RunView("Run", "working"), "running", 3.0, left=7.2))
        'working · 3.0s elapsed · about 7s left'
    """
    view, took = snap.view, _seconds(snap.elapsed)
    if snap.state == "running":
        left = "" if snap.left is None else f" · about {_rough(snap.left)} left"
        return f"{view.status} · {took} elapsed{left}"
    if snap.state == "completed":
        return f"{view.status} in {took}"
    if view.status in (snap.state, DASH):
        return f"{snap.state} after {took}"
    return f"{view.status}, {snap.state} after {took}"


def _step_class(status: str) -> str:
    return f"rds-step-{status}" if status in ("completed", "working", "failed") else ""


def progress_html(snap: Snapshot) -> str:
    """The HTML of a snapshot: ``<div class="rds-progress" data-state=...>``; the live
    and the final display share it, so nothing moves when the run ends.

    Example:
        >>> snap = Snapshot(RunView("Dataset run dsr_1", "working"), "running", 2.0)
        >>> progress_html(snap).count('class="rds-progress"')
        1
    """
    view = snap.view
    fraction = view.fraction or 0.0
    parts = [
        f'<div class="rds-progress" data-state="{esc(snap.state)}">',
        f"<style>{PROGRESS_CSS}</style>",
        f'<div class="rds-progress-head"><b>{esc(view.title)}</b>'
        f'<span class="rds-progress-time">{esc(timing(snap))}</span></div>',
        f'<div class="rds-progress-bar"><span style="width:{fraction * 100:.1f}%"></span></div>',
    ]
    if view.steps:
        cells = "".join(
            f'<span class="rds-progress-label">{esc(step.name)}</span>'
            f'<span class="{_step_class(step.status)}">{esc(step.status)}</span>'
            f"<span>{_clock(step.started)}</span><span>{_clock(step.finished)}</span>"
            for step in view.steps
        )
        timed = any(step.started or step.finished for step in view.steps)
        head = (
            '<span class="rds-progress-label">step</span><span class="rds-progress-label">'
            'status</span><span class="rds-progress-label">started (UTC)</span>'
            '<span class="rds-progress-label">finished</span>'
        )
        if not timed:  # Ask stages: words only, no clock columns
            cells = "".join(
                f'<span class="rds-progress-label">{esc(step.name)}</span>'
                f'<span class="{_step_class(step.status)}">{esc(step.status)}</span>'
                for step in view.steps
            )
            parts.append(f'<div class="rds-progress-grid rds-progress-stages">{cells}</div>')
        else:
            parts.append(f'<div class="rds-progress-grid rds-progress-steps">{head}{cells}</div>')
    if view.counters:
        cells = " · ".join(f"{esc(label)} <b>{esc(value)}</b>" for label, value in view.counters)
        parts.append(f'<div class="rds-progress-counters">{cells}</div>')
    if snap.billing:
        cells = "".join(
            f'<span class="rds-progress-label">{esc(line.label)}</span>'
            f"<span><b>{esc(line.figure)}</b></span>"
            f'<span class="rds-progress-note">{esc(line.detail)}</span>'
            for line in snap.billing
        )
        parts.append(f'<div class="rds-progress-grid rds-progress-billing">{cells}</div>')
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
        Dataset run dsr_1: working · 3.0s elapsed
        mentions 12 of 40
        scraping completed, enrichment working
    """
    head = f"{snap.view.title}: {timing(snap)}"
    parts = [head, *view_parts(snap.view)]
    parts += [f"{line.label} {line.figure}" for line in snap.billing]
    if snap.note:
        parts.append(snap.note)
    return " | ".join(parts)


# -- where it is shown -----------------------------------------------------------------
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
        self._last: tuple[Any, ...] = ()

    def open(self, snap: Snapshot) -> None:
        self.show(snap)

    def show(self, snap: Snapshot) -> None:
        line = one_line(progress_line(snap))  # service text never drives the terminal
        if self._tty:
            width = shutil.get_terminal_size().columns - 1
            shown = line if snap.state != "running" else line[:width]
            self.stream.write("\r" + shown + "\x1b[K")
        elif _what(snap) != self._last or snap.state != "running":
            # Not a terminal: print only when the state changes, not every tick.
            self.stream.write(line + "\n")
        self._last = _what(snap)
        self.stream.flush()

    def close(self, snap: Snapshot) -> None:
        self.show(snap)
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()


def _what(snap: Snapshot) -> tuple[Any, ...]:
    """Its outcome and status: a text stream prints a line when they change (not on each
    tick or counter step, so a log stays short)."""
    return (snap.state, snap.view.status)


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
    # A terminal gets the one updating line, in a script too; a pipe or a file nothing.
    if progress is True or sys.stderr.isatty():
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
    """The reporter of one wait on ``obj``, or None when progress is off here (the
    ``jupyter.progress`` hook of :mod:`rdskit.waiting`).

    Example:
        >>> reporter(object(), False) is None
        True
    """
    mode = choose_mode(progress)
    return None if mode is None else Reporter(obj, _VIEWS[mode]())
