"""rdskit errors for people in IPython: a short message instead of a library traceback.

IPython shows an exception through its ``_render_traceback_()`` when it has one.
:class:`rdskit.errors.RdsError` has one that calls the ``_hooks.traceback`` hook, which is
:func:`short_traceback` here: what failed (the error's one-line message), which field,
where in your cell, and what to do. The full traceback stays one step away: ``%xmode
Verbose`` shows it in place of the short form, and with ``%load_ext rdskit`` the error's
card under the message has a "Full traceback" section (one click).

Example (a notebook cell and what it shows)::

    client.datasets.get("ds_missing")

    DatasetNotFound: dataset_not_found (HTTP 404) on GET /v1/datasets/ds_missing: ...
      at cell line 1: client.datasets.get("ds_missing")
      What to do: check the id; client.datasets.list() shows what exists.
      (%xmode Verbose shows the full traceback)
"""

from __future__ import annotations

import html
import linecache
import traceback
from pathlib import Path
from types import TracebackType
from typing import Any

from rdskit import errors as e

__all__ = ["VERBOSE_HINT", "full_traceback_html", "short_traceback", "what_to_do"]

VERBOSE_HINT = "(%xmode Verbose shows the full traceback)"

_PACKAGE = Path(__file__).resolve().parents[1]  # rdskit/
_RED, _BOLD, _RESET = "\x1b[31m", "\x1b[1m", "\x1b[0m"


def what_to_do(exc: BaseException) -> str | None:
    """The next step for ``exc``, in one sentence (None when its message says it all).

    Example:
        >>> what_to_do(e.InvalidParameter("limit", "must be between 1 and 100, got 500"))
        'fix the argument limit and run the cell again.'
    """
    if isinstance(exc, e.InvalidParameter):
        return f"fix the argument {exc.field} and run the cell again."
    if isinstance(exc, e.ValidationError):
        fields = [".".join(str(p) for p in issue.get("loc", ())) for issue in exc.errors]
        named = ", ".join(field for field in fields if field) or "the request"
        return f"the service rejected {named}; fix it and run the cell again."
    if isinstance(exc, e.BudgetExceeded):
        if exc.scope == "client":
            return "make a client with a larger budget_credits=, or ask for less."
        return "raise it with %rds budget N (rdskit.set_budget(N)), or ask for less."
    if isinstance(exc, e.InsufficientCredits):
        where = f"top up at {exc.top_up_url}" if exc.top_up_url else "top up the account"
        return f"{where}, or ask for less (client.estimate(...) shows a call's cost)."
    if isinstance(exc, e.Unauthorized):
        if "rdskit.Client.sandbox()" in exc.message:  # a sandbox's 401 names its own fix
            return None
        return "check the API key: %rds connect (or RDSKIT_API_KEY) sets it."
    if isinstance(exc, e.NotFound):
        return "check the id: its list call (e.g. %rds datasets) shows what exists."
    if isinstance(exc, e.RateLimited):
        after = f" {exc.retry_after:g}s" if exc.retry_after is not None else " a moment"
        return f"wait{after} and run the cell again."
    if isinstance(exc, e.Conflict):
        return "wait for the run in flight to finish (client.wait(run)), then try again."
    if isinstance(exc, e.OutcomeUnknown):
        return exc.hint
    if isinstance(exc, e.APIConnectionError):
        return "check the network and the service URL (%rds status), then run the cell again."
    if isinstance(exc, e.ServerError):
        return "the service failed; try again in a moment."
    if isinstance(exc, e.WaitTimeout):
        return "call client.wait(...) on it again to keep waiting (e.g. with a larger timeout=)."
    if isinstance(exc, e.RunFailed):
        return "look at the run's status (exc.obj.status) for the failed step."
    if isinstance(exc, e.ConfigurationError):
        return _configure_hint()
    return None


def _configure_hint() -> str:
    """What to do when ``rdskit.Client()`` finds nothing to connect to: never the
    ``%rds connect --sandbox`` the notebook may just have run."""
    from rdskit.client import latest_client

    if latest_client() is not None:
        return (
            "this kernel already has a client: client = rdskit.jupyter.current_session()"
            ".client uses it (rdskit.Client.sandbox() makes one of the offline sandbox)."
        )
    return "rdskit.Client.sandbox() works offline; see docs/jupyter.md for a real key."


def short_traceback(exc: BaseException) -> list[str]:
    """IPython's lines for ``exc``: the short form, or the full traceback under
    ``%xmode Verbose``.

    Example:
        >>> lines = short_traceback(e.InvalidParameter("limit", "must be <= 100"))  # doctest: +SKIP
        >>> lines[0]  # doctest: +SKIP
        '\x1b[31m\x1b[1mInvalidParameter\x1b[0m: limit: must be <= 100'
    """
    shell = _shell()
    if shell is not None and getattr(shell.InteractiveTB, "mode", "") == "Verbose":
        try:
            full: list[str] = shell.InteractiveTB.structured_traceback(
                type(exc), exc, exc.__traceback__
            )
        except Exception:  # IPython's formatter failed (e.g. a source file changed on disk)
            full = traceback.format_exception(type(exc), exc, exc.__traceback__)
        return full
    lines = [f"{_RED}{_BOLD}{type(exc).__name__}{_RESET}: {exc}"]
    where = _user_frame(exc.__traceback__)
    if where:
        lines.append(f"  at {where}")
    step = what_to_do(exc)
    if step:
        lines.append(f"  What to do: {step}")
    lines.append(f"  {VERBOSE_HINT}")
    return lines


def full_traceback_html(exc: BaseException) -> str:
    """A collapsed "Full traceback" section (one click opens it), plain text, escaped."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return (
        '<details class="rds-traceback"><summary>Full traceback</summary>'
        f'<pre style="white-space:pre-wrap;font-size:12px">{html.escape(text)}</pre></details>'
    )


def _user_frame(tb: TracebackType | None) -> str | None:
    """``cell line N: <source>`` of the innermost frame outside rdskit and the
    libraries (a notebook cell, or the user's own module)."""
    found = None
    for frame, lineno in traceback.walk_tb(tb):
        filename = frame.f_code.co_filename
        if _is_library(filename):
            continue
        found = (filename, lineno)
    if found is None:
        return None
    filename, lineno = found
    source = linecache.getline(filename, lineno).strip()
    place = f"cell line {lineno}" if _is_cell(filename) else f"{Path(filename).name}:{lineno}"
    return f"{place}: {source}" if source else place


def _is_library(filename: str) -> bool:
    if "site-packages" in filename or "dist-packages" in filename or filename.startswith("<frozen"):
        return True
    try:
        return Path(filename).resolve().is_relative_to(_PACKAGE)
    except (OSError, ValueError):
        return False


def _is_cell(filename: str) -> bool:
    return (
        filename.startswith("<ipython-input")
        or "ipykernel_" in filename
        or filename.startswith("<cell")
    )


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:  # called by IPython, so this is only for safety
        return None
    return get_ipython()
