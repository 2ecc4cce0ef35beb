"""Small helpers for teaching notebooks: one-line checkpoints a student can trust.

A checkpoint cell tells a learner, in one line, whether the result they just produced is on
track, and if not, what to look at. It prints (never raises), so a class does not meet a
traceback for a result that is merely off, and a notebook test still notices the change:
the printed line differs from the committed one.

Example:
    >>> from rdskit.lesson import checkpoint
    >>> checkpoint(200 > 0, "the dataset holds posts")
    ✓ On track: the dataset holds posts.
    >>> checkpoint(0 > 0, "the dataset holds posts", hint="did the run complete? run.wait()")
    ✗ Not yet: the dataset holds posts. Hint: did the run complete? run.wait()
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from rdskit import _hooks
from rdskit._embedded import embedded_sandbox, kept_in
from rdskit._format import money
from rdskit._safe import one_line
from rdskit.client import Client
from rdskit.errors import APIConnectionError, APIError, InsufficientCredits

__all__ = ["checkpoint", "paid_step"]


def checkpoint(ok: object, expected: str, *, hint: str | None = None, run: Any = None) -> None:
    """Print one line saying whether ``expected`` holds (``ok`` truthy).

    ``expected`` states the result in words ("every source has posts"); ``hint`` is what to
    check when it does not hold. Both are printed on one line (newlines and control
    characters are flattened, and each is cut at :data:`LIMIT` characters), so a checkpoint
    never floods a cell. In a notebook a checkpoint that does not hold stands out: a
    "✗ Checkpoint failed" heading over what was expected and the hint, in Markdown
    (rendered in an untrusted notebook too), with the same one line as plain text
    (:mod:`rdskit.jupyter.checkpoints`). Nothing is returned, so a checkpoint as a cell's
    last line shows its sentence and no ``Out[]``.

    ``run``: the dataset run the result was read from. When the check fails and the run's
    dataset holds other runs too (a used account: an earlier attempt, another example
    that collected into the same name), re-running the lesson's cells cannot fix it, so
    the hint becomes what happened and the one fix: collect into a dataset of its own,
    under a name no dataset has yet (one free read of the dataset's runs, only then).

    Example:
        >>> from rdskit.lesson import checkpoint
        >>> shares = {"reddit": 0.4, "tiktok": 0.6}
        >>> checkpoint(abs(sum(shares.values()) - 1) < 1e-9, "the shares add up to 100 %")
        ✓ On track: the shares add up to 100 %.
    """
    said = _clipped(expected).rstrip(". ")
    if ok:
        print(f"✓ On track: {said}.")
        return
    if run is not None:
        hint = _other_runs(run) or hint
    advice = _clipped(hint) if hint else None
    line = f"✗ Not yet: {said}." + (f" Hint: {advice}" if advice else "")
    # In a notebook, the Jupyter layer shows it marked (a "Checkpoint failed" heading,
    # the same line as plain text); a script, or rdskit without the Jupyter extra, prints.
    shown = "IPython" in sys.modules and _hooks.checkpoint_failed.call(said, advice, line)
    if not shown:
        print(line)


@contextmanager
def paid_step(what: str, client: Any = None) -> Iterator[None]:
    """Run a paid call; a 402 (the wallet cannot fund it) prints one line of advice instead.

    A learner on a used account (a wallet spent by earlier lessons, a Trial plan) meets a
    line saying what ``what`` needed, what the wallet holds and the one fix for the client
    at hand (``client``, or the notebook's own sandbox): a notebook's sandbox has no billing
    page, so with ``RDSKIT_SANDBOX_DB`` the fix is the instructor's top-up command for that
    file, without it a restarted kernel (a fresh sandbox, a full wallet); the real service's
    top-up page otherwise. Nothing was charged: a 402 starts nothing, and the rest of the
    ``with`` block does not run. Other errors are raised as usual.

    Example:
        >>> from rdskit.errors import InsufficientCreditsDatasetRun
        >>> detail = {"required_credits": 200, "available_credits": 40}
        >>> with paid_step("the collection"):
        ...     raise InsufficientCreditsDatasetRun(402, "insufficient_credits_dataset_run", detail)
        ... # doctest: +ELLIPSIS
        ✗ Out of credits: the collection needs 200 credits, the wallet holds 40 credits; ...
    """
    try:
        yield
    except InsufficientCredits as exc:
        needed = money(exc.required_credits, exc.required)
        known = exc.available_credits is not None or exc.available is not None
        held = money(exc.available_credits, exc.available) if known else "less"
        print(
            f"✗ Out of credits: {_clipped(what)} needs {needed}, the wallet holds {held}; "
            f"nothing was charged. {_top_up(exc, client)}"
        )


def _other_runs(run: Any) -> str | None:
    """The one fix when ``run``'s dataset holds runs besides ``run`` (failed ones hold no
    posts), read through the client the run came from; None when it holds none, or when
    that cannot be read (the checkpoint's own hint is then given).

    The fix renames the used dataset (its posts are kept, under a name no dataset has),
    so the lesson's cells, run again as written, collect into a new dataset of the
    lesson's name: nothing in the lesson needs editing."""
    client, dataset_id = getattr(run, "_client", None), getattr(run, "dataset_id", None)
    if not isinstance(client, Client) or not dataset_id:
        return None
    try:
        runs = itertools.islice(client.datasets.runs.list(dataset_id), _RUNS_READ)
        others = [r for r in runs if r.id != run.id and r.status.type != "failed"]
        if not others:
            return None
        name = client.datasets.get(dataset_id).name or dataset_id
        taken = {d.name for d in itertools.islice(client.datasets.list(), _RUNS_READ)}
    except (APIError, APIConnectionError):
        return None
    kept = (f"{name} (earlier{'' if n == 1 else f' {n}'})" for n in itertools.count(1))
    free = next(candidate for candidate in kept if candidate not in taken)
    return (
        f"this dataset already holds other runs ({len(others)} besides {run.id}), so the "
        "frame holds their posts too. The fix: keep them under another name, "
        f"client.datasets.update({dataset_id!r}, name={free!r}), then run the collection "
        "cell and those after it again (they collect into a new dataset)."
    )


_RUNS_READ = 1000
"""Runs (and datasets) read at most to find other runs and a free name."""

LIMIT = 300
"""Characters kept of ``expected`` and of ``hint`` (one line, even for a pasted post)."""


def _clipped(text: object) -> str:
    flat = one_line(text)
    return flat if len(flat) <= LIMIT else flat[: LIMIT - 1] + "…"


def _top_up(exc: InsufficientCredits, client: Any) -> str:
    handle = embedded_sandbox(client)
    if handle is not None:
        db = kept_in(handle)
        if db:
            need = exc.required_credits or Decimal(1000)
            return (
                "Your instructor tops up this sandbox (its kernels stopped): rdskit sandbox "
                f"--db {db} --top-up {need.quantize(Decimal(1))}"
            )
        return "Restart the kernel: a fresh sandbox starts with a full wallet (or ask for less)."
    where = f"at {exc.top_up_url}" if exc.top_up_url else "in the service's web app"
    return f"Top up {where}, or ask for less."
