"""Live progress of ``wait()``, shown: a widget in a notebook, one updating line in a terminal.

``client.wait(obj, progress=None)`` (and ``obj.wait(...)``, and the waits of ``%%ask``)
asks this module (through the ``_hooks.progress`` hook, :func:`reporter`) for a
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
    "INLINE_STYLES",
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

# Inline styles only: JupyterLab strips <style> from untrusted outputs (every freshly
# cloned notebook) and GitHub-like renderers strip all styles, so the markup is a column
# of short lines that reads as text without any style ("scraping: completed, 14:02:01 to
# 14:02:05 UTC"), and these properties (ones JupyterLab's sanitizer keeps; no CSS
# variables) only add the frame, the bar and the colours. The colours are mid-tones that
# read on the light and the dark theme.
_STATE_COLOURS = {
    "running": "#1976d2",
    "completed": "#2e7d32",
    "failed": "#d32f2f",
    "error": "#d32f2f",
    "timed out": "#ef6c00",
    "interrupted": "#ef6c00",
}
_PANEL_INLINE = (
    "box-sizing:border-box;max-width:52em;margin:0;padding:.45em .8em;font-size:13px;"
    "line-height:1.45;text-align:left;overflow-wrap:anywhere;border-left:3px solid {colour}"
)
_LINE_INLINE = "display:block;margin:0"
_MUTED_INLINE = "opacity:.75"
_BAR_INLINE = (
    "display:block;height:6px;margin:.35em 0;border-radius:3px;overflow-x:hidden;"
    "overflow-y:hidden;background-color:rgba(128,128,128,.3)"
)
_FILL_INLINE = "width:{share:.1f}%;display:block;height:6px;background-color:{colour}"
_STEP_INLINE = {
    "completed": "color:#2e7d32",
    "working": "font-weight:600",
    "failed": "color:#d32f2f",
}
INLINE_STYLES = (
    *(_PANEL_INLINE.format(colour=colour) for colour in sorted(set(_STATE_COLOURS.values()))),
    _LINE_INLINE,
    _MUTED_INLINE,
    _BAR_INLINE,
    *_STEP_INLINE.values(),
)
"""Every inline ``style`` the progress panel writes, besides the bar's ``width:...``
(the security tests allow exactly these)."""


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
        >>> timing(Snapshot(RunView("Run", "working"), "running", 3.0))
        'working · 3.0s elapsed · time left unknown'
    """
    view, took = snap.view, _seconds(snap.elapsed)
    if snap.state == "running":
        left = "time left unknown" if snap.left is None else f"about {_rough(snap.left)} left"
        return f"{view.status} · {took} elapsed · {left}"
    if snap.state == "completed":
        return f"{view.status} in {took}"
    if view.status in (snap.state, DASH):
        return f"{snap.state} after {took}"
    return f"{view.status}, {snap.state} after {took}"


def _status_html(status: str) -> str:
    style = _STEP_INLINE.get(status)
    shown = esc(status)
    return f'<span class="rds-step-{shown}" style="{style}">{shown}</span>' if style else shown


def _step_html(step: Step) -> str:
    """One line per step: ``scraping: completed, 14:02:01 to 14:02:05 UTC``."""
    times = ""
    if step.started and step.finished:
        times = f", {_clock(step.started)} to {_clock(step.finished)} UTC"
    elif step.started or step.finished:
        times = f", {'started' if step.started else 'finished'} "
        times += f"{_clock(step.started or step.finished)} UTC"
    return (
        f'<div class="rds-progress-step" style="{_LINE_INLINE}">{esc(step.name)}: '
        f"{_status_html(step.status)}{esc(times)}</div>"
    )


def progress_html(snap: Snapshot) -> str:
    """The HTML of a snapshot: ``<div class="rds-progress" data-state=...>``; the live
    and the final display share it, so nothing moves when the run ends. Inline styles
    only (see :data:`INLINE_STYLES`): it reads the same in an untrusted notebook, and as
    lines of text where styles are stripped.

    Example:
        >>> snap = Snapshot(RunView("Dataset run dsr_1", "working"), "running", 2.0)
        >>> progress_html(snap).count('class="rds-progress"')
        1
    """
    view = snap.view
    fraction = view.fraction or 0.0
    colour = _STATE_COLOURS[snap.state]
    line = f'style="{_LINE_INLINE}"'
    parts = [
        f'<div class="rds-progress" data-state="{esc(snap.state)}" '
        f'style="{_PANEL_INLINE.format(colour=colour)}">',
        f'<div class="rds-progress-head" {line}><b>{esc(view.title)}</b> · '
        f'<span class="rds-progress-time" style="{_MUTED_INLINE}">{esc(timing(snap))}</span>'
        "</div>",
        f'<div class="rds-progress-bar" style="{_BAR_INLINE}"><span style="'
        f'{_FILL_INLINE.format(share=fraction * 100, colour=colour)}"></span></div>',
    ]
    if view.steps and any(step.started or step.finished for step in view.steps):
        steps = "".join(_step_html(step) for step in view.steps)
        parts.append(f'<div class="rds-progress-steps" {line}>{steps}</div>')
    elif view.steps:  # Ask stages: words only, on one line
        stages = " · ".join(f"{esc(step.name)}: {_status_html(step.status)}" for step in view.steps)
        parts.append(f'<div class="rds-progress-stages" {line}>{stages}</div>')
    if view.counters:
        cells = " · ".join(f"{esc(label)} <b>{esc(value)}</b>" for label, value in view.counters)
        parts.append(f'<div class="rds-progress-counters" {line}>{cells}</div>')
    if snap.billing:
        rows = "".join(
            f"<div {line}>{esc(item.label)}: <b>{esc(item.figure)}</b>"
            + (f' <span style="{_MUTED_INLINE}">— {esc(item.detail)}</span>' if item.detail else "")
            + "</div>"
            for item in snap.billing
        )
        parts.append(f'<div class="rds-progress-billing" {line}>{rows}</div>')
    if snap.note:
        parts.append(
            f'<div class="rds-progress-note" {line}><span style="{_MUTED_INLINE}">'
            f"{esc(snap.note)}</span></div>"
        )
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
        Dataset run dsr_1: working · 3.0s elapsed · time left unknown
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
            shown = line if snap.state != "running" else _fit(line, width)
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


def _fit(line: str, width: int) -> str:
    """``line`` cut to ``width`` characters, ending with ``…`` where it was cut and never
    with half a separator (``" | "``).

    Example:
        >>> _fit("Run: working · 3.0s elapsed · time left unknown | mentions 3 of 9", 50)
        'Run: working · 3.0s elapsed · time left unknown…'
        >>> _fit("Run: working", 50)
        'Run: working'
    """
    if len(line) <= width:
        return line
    cut = line[: max(width - 1, 0)].rstrip()
    if cut.endswith(" |"):
        cut = cut[:-2].rstrip()
    return cut + "…"


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
    ``_hooks.progress`` hook of :mod:`rdskit.waiting`).

    Example:
        >>> reporter(object(), False) is None
        True
    """
    mode = choose_mode(progress)
    return None if mode is None else Reporter(obj, _VIEWS[mode]())
