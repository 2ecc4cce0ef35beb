"""One budget for the whole process: the paid calls of every rdskit client count against it.

:func:`set_budget` caps every :class:`~rdskit.Client` and :class:`~rdskit.AsyncClient` of
this process (a notebook's kernel), made before or after it, ``Client.sandbox()`` included,
on top of any client's own ``budget_credits``. In a notebook ``%rds budget N`` sets it and
``%rds status`` shows it.

- A paid call (dataset, audience and custom parameter runs, pattern detections, research
  previews, tracking triggers) is estimated and its estimate reserved, checked and counted
  at once under a lock, before it is sent (:class:`Reservation`): a call whose estimate
  does not fit what remains is refused, so threads or tasks sharing a budget cannot
  overshoot it together. When the service accepts the call, the reservation is settled
  to what its answer says it reserved (a dataset run's accepted ``count``, a custom
  parameter run's ``mentions_total``); a refund of the unused part does not give it back.
  A refusal by the service (an HTTP error status) or a request that never left releases
  it; an unknown outcome keeps it.
- A custom parameter run or a pattern detection is priced from the dataset's size when the
  service receives it, and a dataset run in flight grows that size: its estimate counts
  the dataset's mentions plus the ``count`` of every run of the dataset still in flight,
  and this process never sends a call that grows a dataset while one sized from it is
  between its estimate and its answer (:func:`gated`). A run another process starts on the
  same dataset in that moment is not seen: the settlement then counts what the service
  reserved, more than the estimate.
- A tracking agent charges every cycle on its own schedule, outside any budget: creating
  one, resuming one or growing an active one's ``count``/datasets is refused when a single
  cycle (``count`` x datasets) does not fit what remains (an agent without ``count`` has no
  estimate, so it is refused too); nothing is committed, since the service charges later.
- Ask has no estimate (the service charges inference after the reply): it is refused once
  nothing remains, and each one holds an allowance (:data:`ASK_ALLOWANCE`, 1 credit by
  default; ``set_budget(N, ask_allowance=...)``) from the moment it is sent until its
  reply's ``ai_assistant`` usage rows are committed (when the reply is seen complete:
  ``client.wait``, ``%%ask``; or at the latest before the next paid call). A reply the
  service says is free (``charged_tokens`` 0: a refusal, data not collected, a failed
  reply) gives its allowance back as soon as it is seen final. So asks sent at
  the same moment cannot overshoot the budget by more than one allowance, as long as one
  ask costs no more than its allowance. Asks of several clients of one account running at
  the same time may have their rows counted against the first client's own budget (never
  fewer credits overall).
- Setting it again never forgets silently: the same cap keeps what was committed (re-running
  a notebook cell is harmless), another cap keeps it too, ``reset=True`` starts from zero,
  ``set_budget(None)`` lifts the cap and forgets the commitments.

Example:
    >>> import rdskit
    >>> rdskit.set_budget(100)
    Budget(total=Decimal('100'), spent=Decimal('0'), scope='process-wide')
    >>> print(rdskit.get_budget())
    100 of 100 credits left (0 committed)
    >>> rdskit.set_budget(None)
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from rdskit._base_client import Amount, APIRequest
from rdskit._flow import Sleep
from rdskit._format import credits_text
from rdskit._gateway_auth import announce_to_gateway
from rdskit.errors import (
    APIConnectionError,
    APIError,
    BudgetExceeded,
    InvalidParameter,
    OutcomeUnknown,
)
from rdskit.models import ChatMessage, UsageRow
from rdskit.resources.chats import get_chat_message

if TYPE_CHECKING:
    from collections.abc import Iterable

    from rdskit._base_client import APIRequest, Flow, HTTPCore
    from rdskit.billing import Estimate

T = TypeVar("T")

__all__ = [
    "ASK_ALLOWANCE",
    "GROWS",
    "PROCESS_SCOPE",
    "SIZED",
    "Budget",
    "Reservation",
    "active_budgets",
    "change_note",
    "charged_nothing",
    "counted_reply",
    "gated",
    "get_budget",
    "guarded_ask",
    "left_text",
    "set_budget",
    "settle_asks",
]

log = logging.getLogger("rdskit")

PROCESS_SCOPE: Final = "process-wide"
"""The ``scope`` of the budget :func:`set_budget` makes (named in its refusals)."""

ASK_CATEGORY: Final = "ai_assistant"
"""The usage category Ask's inference is charged in."""

ASK_ALLOWANCE: Final = Decimal(1)
"""Credits an Ask holds against a budget until its charge is known (the default; an ask of
the sandbox's assistant costs well under one credit)."""

ROW_GRACE = 120.0
"""Seconds a finished reply waits for its usage row before it is no longer looked for
(a failed reply is not charged; the service may book a charge a little after the reply)."""

_USAGE_ROWS = 100  # the newest usage rows read to find a reply's charge (one page)

GROWS: Final = "grows"
"""The gate role of a call that may add mentions to datasets (a dataset run, a tracking
trigger): see :func:`gated`."""
SIZED: Final = "sized"
"""The gate role of a call the service prices from a dataset's size (a custom parameter run,
a pattern detection)."""
ANY_DATASET: Final = "*"
"""Grown by a tracking trigger, whose datasets the call does not name."""
GATE_POLL = 0.005
"""Seconds a call waits before looking at its dataset's gate again."""
Role = Literal["grows", "sized"]

_lock = threading.Lock()
_process: Budget | None = None


@dataclass
class _PendingAsk:
    """An Ask sent under a budget whose charge is not counted yet."""

    account: tuple[str, str]  # (base URL, key digest): whose usage history shows it
    chat_id: str
    message_id: str
    after_row: int  # the newest usage row id before it was sent (-1: none)
    budgets: tuple[Budget, ...]
    holds: tuple[Decimal, ...]  # the allowance each budget holds for it
    finished_at: float | None = None


_pending: list[_PendingAsk] = []
_counted: set[tuple[tuple[str, str], int]] = set()  # usage rows already committed


class Budget:
    """Credits paid calls may still commit (thread-safe): a client's own
    (``budget_credits=``) or the process-wide one (:func:`set_budget`).

    Example:
        >>> from rdskit.billing import Estimate
        >>> budget = Budget(100)
        >>> budget.reserve(Estimate("dataset_run", "mention", 60, None, Decimal(60)))
        >>> budget.remaining
        Decimal('40')
        >>> print(budget)
        40 of 100 credits left (60 committed)
    """

    def __init__(
        self,
        credits: Amount,
        *,
        scope: str = "client",
        field: str = "budget_credits",
        ask_allowance: Amount = ASK_ALLOWANCE,
    ) -> None:
        self.total = _credits(credits, field)
        self.scope = scope  # named in refusals: "client" or "process-wide"
        self.spent = Decimal(0)
        self.held = Decimal(0)  # allowances of Asks whose charge is not known yet
        self.ask_allowance = _credits(ask_allowance, "ask_allowance")
        self._lock = threading.Lock()

    @property
    def remaining(self) -> Decimal:
        """Credits neither committed nor held for Asks in flight."""
        return self.total - self.spent - self.held

    def reserve(self, estimate: Estimate) -> None:
        """Count ``estimate`` as spent, or raise :class:`BudgetExceeded` without counting."""
        with self._lock:
            if estimate.credits is None:
                raise BudgetExceeded(
                    estimate.kind,
                    None,
                    self.remaining,
                    f"a budget needs a known estimate: {estimate.reason or 'no price'}",
                    scope=self.scope,
                )
            if estimate.credits > self.remaining:
                raise BudgetExceeded(
                    estimate.kind,
                    estimate.credits,
                    self.remaining,
                    "the estimate is more than what remains",
                    scope=self.scope,
                )
            self.spent += estimate.credits
        self._changed()

    def check_fits(self, estimate: Estimate, why: str) -> None:
        """Raise :class:`BudgetExceeded` (saying ``why``) unless ``estimate`` fits what
        remains; nothing is counted (for work the service charges later, on its own)."""
        with self._lock:
            if estimate.credits is None or estimate.credits > self.remaining:
                reason = (estimate.reason or why) if estimate.credits is None else why
                raise BudgetExceeded(
                    estimate.kind, estimate.credits, self.remaining, reason, scope=self.scope
                )

    def release(self, estimate: Estimate) -> None:
        """Give back a reservation whose call was refused (nothing started)."""
        with self._lock:
            self.spent -= estimate.credits or 0
        self._changed()

    def settle(self, reserved: Decimal, actual: Decimal) -> None:
        """Count ``actual`` in place of the ``reserved`` estimate of an accepted call (what
        the service's answer says it reserved: less, or more when the estimate was short)."""
        with self._lock:
            self.spent += actual - reserved
        self._changed()

    def charge(self, credits: Decimal) -> None:
        """Commit a charge known only after the fact (an Ask's inference)."""
        with self._lock:
            self.spent += credits
        self._changed()

    def hold_ask(self) -> Decimal:
        """Hold the Ask allowance (returned), or raise :class:`BudgetExceeded` when nothing
        remains; checked and held at once, so concurrent asks see each other's holds."""
        with self._lock:
            if self.remaining <= 0:
                raise BudgetExceeded(
                    "ask", None, self.remaining, "nothing remains of it", scope=self.scope
                )
            held = self.ask_allowance
            self.held += held
        self._changed()
        return held

    def release_hold(self, amount: Decimal) -> None:
        """Give back an Ask's allowance (its charge is committed, or it was never sent)."""
        with self._lock:
            self.held -= amount
        self._changed()

    def check_open(self, kind: str) -> None:
        """Raise :class:`BudgetExceeded` when nothing remains (a call with no estimate)."""
        with self._lock:
            if self.remaining <= 0:
                raise BudgetExceeded(
                    kind, None, self.remaining, "nothing remains of it", scope=self.scope
                )

    def resize(self, credits: Amount, field: str = "credits") -> None:
        """Change the cap, keeping what was committed."""
        total = _credits(credits, field)
        with self._lock:
            self.total = total
        self._changed()

    def state(self) -> tuple[Decimal, Decimal, Decimal]:
        """The cap, what was committed and what Asks in flight hold, read together."""
        with self._lock:
            return self.total, self.spent, self.held

    def _changed(self) -> None:
        # The process-wide budget is the kernel's: its JupyterLab status item shows it.
        if self is _process:
            announce_to_gateway()

    def __str__(self) -> str:
        return left_text(*self.state())

    def __repr__(self) -> str:
        return f"Budget(total={self.total!r}, spent={self.spent!r}, scope={self.scope!r})"


class Reservation:
    """The estimate of one paid call, held in every budget it must fit from before it is
    sent until its answer settles it.

    Example:
        >>> from rdskit.billing import Estimate
        >>> budget = Budget(100)
        >>> held = Reservation.take([budget], Estimate("dataset_run", "mention", 60, None,
        ...                                            Decimal(60)))
        >>> held.settle(Estimate("dataset_run", "mention", 50, None, Decimal(50)))
        >>> budget.remaining
        Decimal('50')
        >>> Reservation.take([budget], Estimate("dataset_run", "mention", 60, None, Decimal(60)))
        Traceback (most recent call last):
        ...
        rdskit.errors.BudgetExceeded: dataset_run refused by the client budget: ...
    """

    def __init__(self, budgets: list[Budget], estimate: Estimate) -> None:
        self.budgets = budgets
        self.estimate = estimate

    @classmethod
    def take(cls, budgets: list[Budget], estimate: Estimate) -> Reservation:
        """Reserve ``estimate`` in every budget, or in none: :class:`BudgetExceeded` (of
        the first budget it does not fit) gives back what the others reserved."""
        taken: list[Budget] = []
        try:
            for budget in budgets:
                budget.reserve(estimate)
                taken.append(budget)
        except BudgetExceeded:
            for budget in taken:
                budget.release(estimate)
            raise
        return cls(taken, estimate)

    def settle(self, actual: Estimate) -> None:
        """Count what the service reserved (``actual``) in place of the estimate; an
        unknown amount keeps the estimate."""
        if actual.credits is None or self.estimate.credits is None:
            return
        if actual.credits > self.estimate.credits:
            log.warning(
                "%s: the service reserved %s credits, more than the %s estimated (a dataset "
                "grew between the estimate and the call)",
                actual.kind,
                actual.credits,
                self.estimate.credits,
            )
        for budget in self.budgets:
            budget.settle(self.estimate.credits, actual.credits)

    def release(self) -> None:
        """Give the estimate back (the call provably started nothing)."""
        for budget in self.budgets:
            budget.release(self.estimate)


def charged_nothing(error: BaseException) -> bool:
    """Whether a paid call that raised ``error`` provably started nothing: the service
    answered with an error status, or the request never left. A lost answer
    (:class:`~rdskit.errors.OutcomeUnknown`), a success whose body cannot be read, an
    interruption: it may have started, so its reservation is kept.

    Example:
        >>> from rdskit.errors import UnexpectedResponse
        >>> charged_nothing(APIError(402, "insufficient_credits", "no")), charged_nothing(
        ...     UnexpectedResponse(200, None, "not JSON"))
        (True, False)
    """
    if isinstance(error, APIConnectionError):  # a paid call is re-sent only when not sent
        return True
    return isinstance(error, APIError) and error.status_code >= 400


@dataclass
class _Door:
    """The calls of one account and dataset inside the gate, by role."""

    grows: int = 0
    sized: int = 0


_doors: dict[tuple[tuple[str, str], str], _Door] = {}


def gated(core: HTTPCore, role: Role, datasets: Iterable[str], flow: Flow[T]) -> Flow[T]:
    """Flow: ``flow`` run once no call of the other role is inside the gate of one of
    ``datasets`` (of ``core``'s account); calls of one role pass together.

    A call sized from a dataset is inside from before its estimate reads the dataset until
    the service answers it, a call that grows one while it is sent: so a run this process
    starts is either counted in flight by the estimate, or sent after the sized call was
    priced. Waiting is a :class:`~rdskit._flow.Sleep` step, so an ``AsyncClient`` never
    blocks its loop.
    """
    account = _account(core)
    names = tuple(dict.fromkeys(datasets))
    while not _enter(account, role, names):
        yield Sleep(GATE_POLL)
    try:
        return (yield from flow)
    finally:
        with _lock:
            for name in names:
                door = _doors[(account, name)]
                setattr(door, role, getattr(door, role) - 1)
                if not door.grows and not door.sized:
                    del _doors[(account, name)]


def _enter(account: tuple[str, str], role: Role, names: tuple[str, ...]) -> bool:
    """Count a call of ``role`` inside the gates of ``names`` unless the other role is."""
    with _lock:
        if role == GROWS:
            wild = ANY_DATASET in names
            blocked = any(
                door.sized and (wild or name in names)
                for (owner, name), door in _doors.items()
                if owner == account
            )
        else:
            blocked = any(
                _doors.get((account, name), _Door()).grows for name in (*names, ANY_DATASET)
            )
        if blocked:
            return False
        for name in names:
            door = _doors.setdefault((account, name), _Door())
            setattr(door, role, getattr(door, role) + 1)
        return True


def set_budget(
    credits: Amount | None, *, reset: bool = False, ask_allowance: Amount | None = None
) -> Budget | None:
    """Cap the paid calls of every rdskit client in this process at ``credits``.

    ``None`` lifts the cap. Setting the same cap again keeps what was committed (so a
    re-run notebook cell does not forget spending); a new cap keeps it too; ``reset=True``
    starts from zero. ``ask_allowance`` is what each Ask holds until its charge is known
    (default :data:`ASK_ALLOWANCE`). Returns the budget (None when lifted).

    Example:
        >>> rdskit.set_budget(500)  # doctest: +SKIP
        >>> client = rdskit.Client.sandbox()  # made after: capped too  # doctest: +SKIP
        >>> client.datasets.runs.create(ds_id, search_query=query, count=800)  # doctest: +SKIP
        Traceback (most recent call last):
        rdskit.errors.BudgetExceeded: dataset_run refused by the process-wide budget: ...
    """
    global _process
    allowance = ASK_ALLOWANCE if ask_allowance is None else ask_allowance
    fresh = (
        None
        if credits is None
        else Budget(credits, scope=PROCESS_SCOPE, field="credits", ask_allowance=allowance)
    )
    with _lock:
        if fresh is not None and _process is not None and not reset:
            # The same object keeps counting: Asks sent before still commit to it.
            _process.resize(fresh.total)
            if ask_allowance is not None:
                _process.ask_allowance = fresh.ask_allowance
            return _process
        _process = fresh
    announce_to_gateway()
    return fresh


def left_text(total: Decimal, spent: Decimal, held: Decimal) -> str:
    """What remains of a budget, in words (``str(budget)``, the JupyterLab panel).

    Example:
        >>> left_text(Decimal(100), Decimal(60), Decimal(1))
        '39 of 100 credits left (60 committed, 1 held for asks in flight)'
    """
    held_text = f", {credits_text(held)} held for asks in flight" if held else ""
    return (
        f"{credits_text(total - spent - held)} of {credits_text(total)} credits left "
        f"({credits_text(spent)} committed{held_text})"
    )


def get_budget() -> Budget | None:
    """The process-wide budget, or None when there is none.

    Example:
        >>> budget = rdskit.get_budget()  # doctest: +SKIP
        >>> budget.total, budget.spent, budget.remaining  # doctest: +SKIP
        (Decimal('500'), Decimal('120.000000'), Decimal('380.000000'))
    """
    return _process


def change_note(
    before: tuple[Decimal, Decimal] | None, after: Budget | None, *, reset: bool = False
) -> str:
    """One line saying what :func:`set_budget` did; ``before`` is the (total, committed)
    of the budget it replaced. ``%rds budget`` prints it.

    Example:
        >>> change_note((Decimal(100), Decimal(40)), None)
        'Budget lifted: paid calls are no longer capped (40 credits were committed under it).'
    """
    if after is None:
        if before is None:
            return "No budget: paid calls are not capped."
        return (
            "Budget lifted: paid calls are no longer capped "
            f"({credits_text(before[1])} credits were committed under it)."
        )
    if before is None or reset:
        return (
            f"Budget: {credits_text(after.total)} credits for the paid calls of every rdskit "
            "client in this kernel, starting from zero."
        )
    if before[0] == after.total:
        return (
            f"Budget unchanged: {after}. Re-running keeps what was committed "
            "(%rds budget N --reset starts again from zero)."
        )
    return f"Budget changed to {credits_text(after.total)} credits: {after}."


def active_budgets(own: Budget | None) -> list[Budget]:
    """The budgets a client's paid call must fit: its own and the process-wide one."""
    process = _process
    return [budget for budget in (own, process) if budget is not None]


def guarded_ask(core: HTTPCore, own: Budget | None, request: APIRequest[Any]) -> Flow[Any]:
    """Flow of ``POST /v1/ask`` under the budgets: refused once one of them is spent, and
    remembered so the reply's charge is committed when it is seen."""
    budgets = active_budgets(own)
    if not budgets:
        return (yield from core.call(request))
    yield from settle_asks(core)
    holds: list[Decimal] = []
    try:
        for budget in budgets:
            holds.append(budget.hold_ask())
        newest = yield from core.call_page(_usage_rows(1))
        after_row = newest.data[0].id if newest.data else -1
        accepted = yield from core.call(request)
    except BaseException as exc:
        if not isinstance(exc, OutcomeUnknown):  # it may have been asked: keep the hold
            for budget, amount in zip(budgets, holds, strict=False):
                budget.release_hold(amount)
        raise
    with _lock:
        _pending.append(
            _PendingAsk(
                _account(core),
                accepted.chat_id,
                accepted.message_id,
                after_row,
                tuple(budgets),
                tuple(holds),
            )
        )
    return accepted


def counted_reply(core: HTTPCore, chat_id: str, message_id: str) -> Flow[ChatMessage]:
    """Flow: read a reply (``client.wait`` polls with it) and, once it is over, commit the
    charges of the finished Asks of its account."""
    message = yield from core.call(get_chat_message(chat_id, message_id))
    if message.status in ("completed", "failed") and _pending:
        yield from settle_asks(core, {(chat_id, message_id): message})
    return message


def settle_asks(
    core: HTTPCore, known: Mapping[tuple[str, str], ChatMessage] | None = None
) -> Flow[None]:
    """Flow: commit the ``ai_assistant`` charges of the finished Asks of ``core``'s account
    (read from its usage history). ``known`` holds replies already read. A reply the
    service says is free (``charged_tokens`` 0) is settled at once, with nothing to commit."""
    account = _account(core)
    with _lock:
        mine = [ask for ask in _pending if ask.account == account]
    if not mine:
        return
    now = time.monotonic()
    free: list[_PendingAsk] = []
    for ask in mine:
        if ask.finished_at is not None:
            continue
        reply = (known or {}).get((ask.chat_id, ask.message_id))
        if reply is None:
            reply = yield from core.call(get_chat_message(ask.chat_id, ask.message_id))
        if reply.status in ("completed", "failed"):
            ask.finished_at = now
            if reply.charged_tokens == 0:
                free.append(ask)
    if free:
        _settle(free)
        mine = [ask for ask in mine if all(ask is not f for f in free)]
    finished = sorted((ask for ask in mine if ask.finished_at is not None), key=_sent_order)
    if not finished:
        return
    page = yield from core.call_page(_usage_rows(_USAGE_ROWS))
    floor = min(ask.after_row for ask in finished)
    with _lock:
        rows = [
            row
            for row in page.data
            if row.category == ASK_CATEGORY and row.id > floor and (account, row.id) not in _counted
        ]
        _counted.update((account, row.id) for row in rows)
        charge = sum((_row_credits(row) for row in rows), Decimal(0))
        charged: set[int] = set()
        for ask in finished:
            for budget in ask.budgets:
                if id(budget) not in charged:  # each budget once, even for several asks
                    charged.add(id(budget))
                    budget.charge(charge)
        # One row per reply: the oldest finished asks are settled by the rows found; the
        # rest wait for theirs until ROW_GRACE has passed.
        settled = finished[: len(rows)]
        settled += [ask for ask in finished if now - (ask.finished_at or now) > ROW_GRACE]
        _release(settled)
    if rows:
        log.info("committed %s credits of %d ai_assistant usage row(s)", charge, len(rows))


def _settle(asks: list[_PendingAsk]) -> None:
    """Settle ``asks`` with nothing to commit (replies the service says are free)."""
    with _lock:
        _release(asks)
    log.info("%d free ask(s) settled: their allowance is released", len(asks))


def _release(settled: list[_PendingAsk]) -> None:
    """Drop ``settled`` from the pending asks and give back their allowances (called
    with ``_lock`` held): their charge is committed, or there is none. An ask another
    thread settled meanwhile is no longer pending: its allowance is not given back twice."""
    released = [ask for ask in _pending if any(ask is s for s in settled)]
    _pending[:] = [ask for ask in _pending if all(ask is not s for s in settled)]
    for ask in released:
        for budget, amount in zip(ask.budgets, ask.holds, strict=True):
            budget.release_hold(amount)


def _credits(value: Amount, field: str) -> Decimal:
    """``value`` as credits, or InvalidParameter naming ``field``."""
    try:
        credits = Decimal(repr(value) if isinstance(value, float) else value)
    except (InvalidOperation, TypeError, ValueError):
        credits = Decimal("NaN")
    if isinstance(value, bool):  # True is an int to Python, not a number of credits
        credits = Decimal("NaN")
    if not credits.is_finite() or credits < 0:
        raise InvalidParameter(
            field, f"must be a finite number of credits, 0 or more; got {value!r}"
        )
    return credits


def _sent_order(ask: _PendingAsk) -> int:
    return next((i for i, pending in enumerate(_pending) if pending is ask), len(_pending))


def _account(core: HTTPCore) -> tuple[str, str]:
    return core.base_url, core.api_key.digest


def _usage_rows(limit: int) -> APIRequest[UsageRow]:
    return APIRequest(
        "GET", "/v1/me/usage_history", params={"limit": limit}, cast=UsageRow.model_validate
    )


def _row_credits(row: UsageRow) -> Decimal:
    """A row's charge in credits: ``quantity_credits``, else USD at the row's rate."""
    if row.quantity_credits is not None:
        return row.quantity_credits
    if row.credit_rate_usd:
        return row.quantity / row.credit_rate_usd
    # No credit figure at all: count nothing rather than guess, and say so in the log.
    log.warning("usage row %s has no credit amount; not counted against the budget", row.id)
    return Decimal(0)
