"""pytest --nbval for the tutorial notebooks: the kernels' sandbox, display updates, and the
sanitizer file path.

**The kernels' sandbox** runs sped up and on the fixed date the outputs were made under
(:data:`KERNEL_ENV`).

**Display updates.** rdskit's progress display (every ``wait()``, and ``%%ask``) is shown
once and then updated in place with an ``update_display_data`` message, as is usual in
Jupyter. JupyterLab and ``jupyter nbconvert --execute`` apply such updates, so a committed
notebook holds each display's *final* state. nbval 0.11 ignores them ("unhandled iopub msg")
and would compare the first state ("pending, 0.0s") with the final one, which can never
match. This plugin applies each update to the output it targets, as nbconvert does, before
nbval compares the cell: the final states ("completed ... | charged 60 credits") are then
checked like any other output, with the sanitizers of ``sanitize.cfg``.

nbval keeps no display ids, so the plugin notes, for every message nbval turns into an
output of the running cell, that output's position; an update then replaces the data of
the outputs shown under its display id. It relies on nbval appending one output per
``display_data``/``execute_result``/``stream``/``error`` message of the cell, in order (true
of nbval 0.9 to 0.11); if that changes, outputs stop matching and the notebooks fail loudly.

**Sanitizer path.** ``--nbval-sanitize-with=notebooks/sanitize.cfg`` (pyproject.toml) is
relative to the repository root; it is made absolute so that pytest also works when started
from another directory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbval.kernel import RunningKernel
from nbval.plugin import IPyNbCell, IPyNbFile

from rdskit.sandbox.runtime.clock import ENV_TODAY, NOTEBOOK_TODAY

KERNEL_ENV = {"RDSKIT_SANDBOX_SPEED": "50", ENV_TODAY: NOTEBOOK_TODAY}
"""The sandbox of the notebooks' kernels under test. Simulated time at 50x: what a lesson
prints does not depend on it (durations and clock times are sanitized), and the committed
outputs, made at the default speed a student runs, compare equal at both; it saves minutes
of waiting on runs. The fixed date :data:`~rdskit.sandbox.runtime.clock.NOTEBOOK_TODAY`
the committed outputs were made under (docs/notebooks.md), so a lesson prints the same
dates, windows and posts on any day. Set only in the kernels' environment (not this
process's, which other tests share); a variable already set explicitly still wins."""

_OUTPUT_MESSAGES = ("display_data", "execute_result", "stream", "error")
"""Kernel messages nbval turns into one output each."""

_kernel_init = RunningKernel.__init__
_execute = RunningKernel.execute_cell_input
_runtest = IPyNbCell.runtest
_get_message = IPyNbFile.get_kernel_message


def _start_kernel(self: RunningKernel, *args: Any, **kwargs: Any) -> None:
    """nbval's kernel start, with :data:`KERNEL_ENV` in the kernel's environment only, and
    a paid-calls ledger and cache of its own (``RDSKIT_CACHE_DIR``): on the fixed date every
    fresh sandbox repeats the last one's ids and account, so a ledger shared with another
    notebook's kernel would hand this one that notebook's results (the committed outputs are
    made with an empty ledger, docs/notebooks.md)."""
    # Below the suite's own cache folder (root conftest.py), so it goes with the run.
    cache = tempfile.mkdtemp(prefix="nbval-kernel-", dir=os.environ.get("RDSKIT_CACHE_DIR"))
    own = {**KERNEL_ENV, "RDSKIT_CACHE_DIR": cache}
    saved = {name: os.environ.get(name) for name in own}
    os.environ.update(
        {
            name: value
            for name, value in own.items()
            if name == "RDSKIT_CACHE_DIR" or not saved[name]
        }
    )
    try:
        _kernel_init(self, *args, **kwargs)
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def _execute_cell_input(self: RunningKernel, cell_input: str, allow_stdin: Any = None) -> str:
    """nbval's execute, remembering the request id its outputs will answer to."""
    msg_id: str = _execute(self, cell_input, allow_stdin=allow_stdin)
    self.rds_msg_id = msg_id  # type: ignore[attr-defined]
    return msg_id


def _run_cell(self: IPyNbCell) -> None:
    """nbval's cell test, with the cell reachable from its file while it runs."""
    self.parent.rds_cell = self
    self.rds_outputs = 0  # outputs nbval has appended so far (see _get_kernel_message)
    try:
        _runtest(self)
    finally:
        self.parent.rds_cell = None


def _get_kernel_message(
    self: IPyNbFile, timeout: float | None = None, stream: str = "iopub"
) -> Any:
    """The next kernel message for nbval; ``update_display_data`` is applied, not returned."""
    displays: dict[str, list[tuple[IPyNbCell, int]]] = self.__dict__.setdefault("rds_displays", {})
    while True:
        message = _get_message(self, timeout=timeout, stream=stream)
        cell: IPyNbCell | None = getattr(self, "rds_cell", None)
        if stream != "iopub" or cell is None:
            return message
        kind = message["msg_type"]
        content = message["content"]
        display_id = (content.get("transient") or {}).get("display_id")
        ours = message["parent_header"].get("msg_id") == getattr(self.kernel, "rds_msg_id", "")
        if kind in _OUTPUT_MESSAGES and ours:
            if kind == "display_data" and display_id:
                displays.setdefault(display_id, []).append((cell, cell.rds_outputs))
            cell.rds_outputs += 1
        if kind != "update_display_data":
            return message
        for shown_in, position in displays.get(display_id, []):
            outputs = getattr(shown_in, "test_outputs", [])
            if position < len(outputs):
                outputs[position]["data"] = nbformat.from_dict(content["data"])
                outputs[position]["metadata"] = nbformat.from_dict(content.get("metadata", {}))


RunningKernel.execute_cell_input = _execute_cell_input  # type: ignore[method-assign]
RunningKernel.__init__ = _start_kernel  # type: ignore[method-assign]
IPyNbCell.runtest = _run_cell  # type: ignore[method-assign]
IPyNbFile.get_kernel_message = _get_kernel_message  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    sanitize = getattr(config.option, "nbval_sanitize_with", None)
    if sanitize and not Path(sanitize).is_absolute() and not Path(sanitize).exists():
        config.option.nbval_sanitize_with = str(config.rootpath / sanitize)
