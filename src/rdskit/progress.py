"""What a run's progress is, with no display code: the figures every progress view shows.

``client.wait(obj, progress=...)`` follows a run through a :class:`Reporter`: the waiting
flow calls its hooks on each poll, it reads the usage history before and after the wait
(the API calls live here, never in a view) and hands each :class:`Snapshot` (the run's
:class:`~rdskit.runs.RunView`, the outcome, the elapsed time and the billing figures) to a
:class:`View`. The views (a notebook widget, an HTML display, a terminal line) live in
the Jupyter layer, :mod:`rdskit.jupyter.progress`, loaded only where something is shown.

Billing figures come from the spec's pricing rules (:class:`~rdskit.runs.ChargeTerms`
of the run's kind) and the usage rows written since the wait began; a figure the service
does not make knowable says so instead of being guessed.

Example:
    >>> terms = ChargeTerms(("mention",), "dataset_run", 40)
    >>> prices = Prices.model_validate({"prices_credits": {"mention": "1.000000"},
    ...     "prices": {"mention": 0.02}})
    >>> [line.figure for line in billing_lines(terms, failed=True, prices=prices, rows=[])]
    ['40 credits (0.80 USD)', 'nothing expected', '40 credits (0.80 USD)']
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Literal, Protocol

from rdskit._base_client import APIRequest, Flow, HTTPCore
from rdskit._format import money
from rdskit._text import number
from rdskit.billing import Estimate
from rdskit.errors import APIConnectionError, APIError, RunFailed, WaitTimeout
from rdskit.models import Prices, UsageRow
from rdskit.runs import ChargeTerms, RunView, charge_terms, describe, kind_of

__all__ = [
    "TICK",
    "USAGE_ROWS_READ",
    "BillingLine",
    "Reporter",
    "Snapshot",
    "State",
    "View",
    "billing_lines",
    "may_show",
    "time_left",
]

TICK = 1.0
"""Seconds between refreshes of the elapsed time."""
USAGE_ROWS_READ = 100
"""Usage rows read after a wait to find its charge (the newest ones)."""


def may_show(progress: bool | None) -> bool:
    """Whether a wait with ``progress`` might show anything in this process.

    ``False`` never does; ``None`` (auto) in IPython, an interactive session or when
    stderr is a terminal (a script run by hand shows one updating line), so a script whose
    output goes to a file or a pipe does not even load the display layer.

    Example:
        >>> may_show(False), may_show(True)
        (False, True)
    """
    if progress is not None:
        return progress
    interactive = "IPython" in sys.modules or hasattr(sys, "ps1") or bool(sys.flags.interactive)
    return interactive or sys.stderr.isatty()


@dataclass(frozen=True)
class BillingLine:
    """One billing figure: ``label`` (reserved, charged, refunded), ``figure``, ``detail``."""

    label: str
    figure: str
    detail: str = ""


def _money(credits: Decimal | None, usd: Decimal | None) -> str:
    return money(credits, usd)  # for people: "0.2 credits (0.0049 USD)"


def reused_lines(
    terms: ChargeTerms,
    rows: list[UsageRow] | None,
    truncated: bool = False,
    *,
    units: int | None = None,
    prices: Prices | None = None,
) -> list[BillingLine]:
    """The bill of a reused run: this call charged nothing; what the run cost when it
    ran: the one charge booked while it ran (``rows``; None: unreadable), else, when
    several were (other work at the same time), its ``units`` at the current ``prices``.

    Example:
        >>> rows = [UsageRow.model_validate({"id": 3, "category": "mention", "quantity": 2,
        ...     "created_at": 0, "quantity_credits": "100.000000"})]
        >>> for line in reused_lines(ChargeTerms(("mention",)), rows):
        ...     print(line.label, line.figure, "|", line.detail)
        charged 0 credits (0 USD) | this call reused the run: nothing was charged
        run cost 100 credits (2.00 USD) | charged when it ran
    """
    nothing = BillingLine(
        "charged", _money(Decimal(0), Decimal(0)), "this call reused the run: nothing was charged"
    )
    charged = None if rows is None else [row for row in rows if row.category in terms.categories]
    if charged is not None and len(charged) == 1:
        detail = "charged when it ran" + (
            f" (among the newest {USAGE_ROWS_READ} usage rows)" if truncated else ""
        )
        cost = BillingLine(
            "run cost", _money(charged[0].quantity_credits, charged[0].quantity), detail
        )
        return [nothing, cost]
    estimate = (
        Estimate.from_prices(terms.kind, units, prices)
        if terms.kind is not None and units is not None and prices is not None
        else None
    )
    if estimate is not None and (estimate.credits is not None or estimate.usd is not None):
        detail = (
            f"{number(units)} x the {estimate.category} price today (its charge is not told "
            "apart from other work's in the usage history)"
        )
        return [nothing, BillingLine("run cost", _money(estimate.credits, estimate.usd), detail)]
    why = "the usage history could not be read" if rows is None else "its charge was not found"
    return [nothing, BillingLine("run cost", "unknown", why)]


def billing_lines(
    terms: ChargeTerms,
    *,
    failed: bool,
    prices: Prices | None,
    rows: list[UsageRow] | None,
    truncated: bool = False,
) -> list[BillingLine]:
    """Reserved, charged and refunded, from the pricing rules and new usage ``rows``.

    ``rows`` are the usage rows booked for this run: since the wait began or the run was
    created, and not after it ended (None: unreadable).

    Example:
        >>> terms = ChargeTerms(("mention",), "dataset_run", 40)
        >>> prices = Prices.model_validate({"prices_credits": {"mention": "1.000000"},
        ...     "prices": {"mention": 0.02}})
        >>> rows = [UsageRow.model_validate({"id": 3, "category": "mention", "quantity": 0.6,
        ...     "created_at": 0, "quantity_credits": "30.000000"})]
        >>> for line in billing_lines(terms, failed=False, prices=prices, rows=rows):
        ...     print(line.label, line.figure)
        reserved 40 credits (0.80 USD)
        charged 30 credits (0.60 USD)
        refunded 10 credits (0.20 USD)
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
    if terms.free is not None:
        return [*lines, BillingLine("charged", _money(Decimal(0), Decimal(0)), terms.free)]
    if rows is None:
        return [*lines, BillingLine("charged", "unknown", "the usage history could not be read")]
    charged = [row for row in rows if row.category in terms.categories]
    if failed and terms.reserves:
        lines.append(BillingLine("charged", "nothing expected", "a failed run is not charged"))
        if reserved is not None and terms.kind is not None:
            lines.append(BillingLine("refunded", lines[0].figure, "the whole reservation"))
        return lines
    if not charged:
        detail = f"no {wanted} charge booked yet (or nothing to charge)"
        return [*lines, BillingLine("charged", "not recorded", detail)]
    credits = _sum([row.quantity_credits for row in charged])
    usd = _sum([row.quantity for row in charged])
    work = "this run" if terms.reserves else "this answer"
    source = f"for {work}" + (f", in {len(charged)} charges" if len(charged) > 1 else "")
    if truncated:
        source += f" (among the newest {USAGE_ROWS_READ} usage rows)"
    lines.append(BillingLine("charged", _money(credits, usd), source))
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
    known = [value for value in values if value is not None]
    return None if len(known) < len(values) else sum(known, Decimal(0))


def _minus(a: Decimal | None, b: Decimal | None) -> Decimal | None:
    return None if a is None or b is None else max(a - b, Decimal(0))


# -- snapshots ---------------------------------------------------------------------------
State = Literal["running", "completed", "failed", "timed out", "interrupted", "error"]


@dataclass(frozen=True)
class Snapshot:
    """Everything one refresh of the display shows."""

    view: RunView
    state: State
    elapsed: float
    billing: tuple[BillingLine, ...] = ()
    note: str | None = None
    left: float | None = None  # estimated seconds left, once it can be estimated


STEADY = 2.0
"""How far the pace of the last two moves of the bar may differ (as a ratio) for a
time-left estimate to be shown: a bar that jumps by uneven steps gives none."""


def time_left(moves: Sequence[tuple[float, float]], elapsed: float) -> float | None:
    """Seconds left at the pace the bar has shown, or None when that pace does not say.

    ``moves``: (elapsed seconds, share done) at each move of the bar, the first move
    above zero first (a queue wait before it does not count). An estimate needs three
    moves (two paces), a share between 5 % and 100 %, two seconds of pace, and the last
    two paces within a factor :data:`STEADY` of each other. It is made at the last move
    and counts down from there: while the bar stands still it only falls, and once it
    is used up (the bar is slower than it was) the time left is unknown again.

    Example:
        >>> moves = [(1.0, 0.25), (3.0, 0.5), (5.0, 0.75)]
        >>> time_left(moves, 5.0), time_left(moves, 6.0)
        (2.0, 1.0)
        >>> time_left(moves, 8.0) is None  # used up: the bar is slower than it was
        True
        >>> time_left([(1.0, 0.2), (2.0, 0.8)], 2.0) is None  # one pace says nothing
        True
    """
    if len(moves) < 3:
        return None
    (start, first), (before, middle), (at, last) = moves[0], moves[-2], moves[-1]
    if not 0.05 <= last < 1.0 or at - start < 2.0 or middle <= first or last <= middle:
        return None
    paces = (
        (middle - moves[-3][1]) / max(before - moves[-3][0], 1e-9),
        (last - middle) / max(at - before, 1e-9),
    )
    if max(paces) > STEADY * min(paces):
        return None
    pace = (last - first) / (at - start)
    left = (1.0 - last) / pace - (elapsed - at)
    return left if left > 0 else None


# -- where it is shown (implemented by the Jupyter layer) --------------------------------
class View(Protocol):
    """A place a reporter draws its snapshots."""

    def open(self, snap: Snapshot) -> None: ...

    def show(self, snap: Snapshot) -> None: ...

    def close(self, snap: Snapshot) -> None: ...


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
        self._first = obj  # the object the wait began with
        self.outcome: State | None = None  # None while the wait runs
        self._clock = clock
        self._tick = tick
        self._started = clock()
        self._billing: tuple[BillingLine, ...] = ()
        self._note: str | None = None
        self._goes_on = "continues on the service"  # set by run() for the client at hand
        self._lock = threading.RLock()
        self._stopped = threading.Event()
        self._opened = False
        self._moves: list[tuple[float, float]] = []  # (elapsed, share) at each move

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
        if "_bill" in getattr(type(result), "__private_attributes__", {}):
            result._bill = tuple(billing)  # an Answer keeps its bill (%%ask's record)
        self.latest = result
        self.finish("completed", billing=billing)
        return result

    def run(
        self,
        drive: Callable[[Flow[Any]], Any],
        flow: Flow[Any],
        *,
        goes_on: str = "continues on the service",
    ) -> Any:
        """Open the display and drive ``flow`` (sync or async driver); ``goes_on`` says
        where the run goes on if the wait is interrupted (see
        :func:`rdskit._embedded.run_goes_on`)."""
        self._goes_on = goes_on
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
            view = describe(self.latest)
            elapsed = self._clock() - self._started
            left = None
            if self.outcome is None:
                if view.fraction and (not self._moves or view.fraction > self._moves[-1][1]):
                    self._moves.append((elapsed, view.fraction))
                left = time_left(self._moves, elapsed)
            return Snapshot(
                view, self.outcome or "running", elapsed, self._billing, self._note, left
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
            self.finish("interrupted", note=f"stopped waiting; the run {self._goes_on}")
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
        reused = bool(getattr(self._first, "_reused", False))
        try:
            if terms.kind is not None and terms.quantity is not None:
                prices = yield from core.owner._prices.get(core.owner)
            if mark is not None:
                page = yield from core.call_page(_usage_rows(USAGE_ROWS_READ))
                # Since the wait began, or since the run was created: a fast run may have
                # been charged before the wait read its first mark. Never after the run
                # ended: later charges are other work (a reused run's later re-runs).
                created = getattr(obj, "created_at", None)
                since = created.replace(microsecond=0) if isinstance(created, datetime) else None
                ended = getattr(obj, "updated_at", None)
                until = ended + timedelta(seconds=1) if isinstance(ended, datetime) else None
                rows = [
                    row
                    for row in page.data
                    if (row.id > mark and not reused)
                    or (since is not None and row.created_at >= since)
                ]
                rows = [row for row in rows if until is None or row.created_at <= until]
                truncated = len(rows) == USAGE_ROWS_READ
        except (APIError, APIConnectionError):
            pass  # billing_lines says which figure is unknown
        if reused:
            counter = kind_of(obj)
            main = counter.done_of(obj) if counter is not None else None
            units = main[1] if main is not None else None
            return reused_lines(terms, rows, truncated, units=units, prices=prices)
        return billing_lines(terms, failed=failed, prices=prices, rows=rows, truncated=truncated)


def _usage_rows(limit: int) -> APIRequest[UsageRow]:
    return APIRequest(
        "GET", "/v1/me/usage_history", params={"limit": limit}, cast=UsageRow.model_validate
    )
