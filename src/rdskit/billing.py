"""Credits in exact Decimal, cost estimates, and the client-side budget guard.

Credits are a presentation of the USD wallet: ``credits = usd / credit_rate_usd``, kept at
six decimal places. Estimates read ``GET /v1/prices`` (cached for a minute) and give the
upper bound the service reserves before a paid call starts:

=======================  ===================  ==========================================
kind                     category             quantity
=======================  ===================  ==========================================
``dataset_run``          mention              ``count``
``audience_run``         audience_profile     ``total_profile_count`` (default 300)
``custom_parameter_run`` post_processing      ``posts``, else the dataset's mentions_count
``pattern_detection``    post_processing      ``posts``, else the dataset's mentions_count
``research_preview``     preview_generation   ``len(sources)`` or ``len(source_urls)``
``tracking_trigger``     mention              the agent's ``count`` x its datasets
=======================  ===================  ==========================================

An amount the client cannot know (a null price, no ``count``) is ``None``, never zero.

``Client(budget_credits=...)`` reserves a paid call's estimate before sending it, and
refuses the call when it does not fit what remains of the budget (or cannot be computed);
the service's answer settles the reservation to what it reserved (a call whose outcome is
unknown keeps the estimate counted). A custom parameter run or pattern detection over a
dataset is estimated from its mentions plus the ``count`` of its runs still in flight
(they grow what the service will price).
:func:`rdskit.set_budget` does the same for every client of the process at once
(:mod:`rdskit.budget`); a paid call must fit both.

Example:
    >>> usd_to_credits("0.0196", "0.0196"), credits_to_usd(50, "0.0196")
    (Decimal('1.000000'), Decimal('0.980000'))
    >>> client = Client(budget_credits=500)  # doctest: +SKIP
    >>> client.estimate("dataset_run", count=200).credits  # doctest: +SKIP
    Decimal('200.000000')
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, cast

from rdskit._base_client import Amount, APIRequest, Flow, HTTPCore
from rdskit._format import money
from rdskit._safe import one_line
from rdskit._text import number
from rdskit.budget import (
    ANY_DATASET,
    GROWS,
    SIZED,
    Budget,
    Reservation,
    Role,
    active_budgets,
    charged_nothing,
    gated,
    guarded_ask,
    settle_asks,
)
from rdskit.errors import (
    APIConnectionError,
    APIError,
    DepthCapWarning,
    InvalidParameter,
    warn,
)
from rdskit.models import Account, Prices
from rdskit.models.vocab import CREDIT_PLACES, RUN_KIND_CATEGORIES
from rdskit.resources._resource import MAX_LIMIT
from rdskit.resources._reuse import every_item
from rdskit.resources.account import ME, PRICES
from rdskit.resources.audiences import DEFAULT_PROFILE_COUNT
from rdskit.resources.datasets import get_dataset, list_dataset_runs
from rdskit.resources.tracking import get_tracking_agent

__all__ = [
    "ESTIMATE_CATEGORIES",
    "BillingMixin",
    "Budget",
    "Estimate",
    "PriceCache",
    "TimedRead",
    "credits_to_usd",
    "estimate_flow",
    "usd_to_credits",
]

T = TypeVar("T")
R = TypeVar("R")

ESTIMATE_CATEGORIES: Final[dict[str, str]] = RUN_KIND_CATEGORIES
"""Estimate kind -> the price category it is charged in (the vocabulary's run kinds)."""

PRICES_TTL = 60.0
"""Seconds a ``GET /v1/prices`` answer is reused for estimates."""


def _dec(value: Amount) -> Decimal:
    # A float goes through its shortest repr, so 0.0196 stays 0.0196 (not 0.01959999...).
    return Decimal(repr(value) if isinstance(value, float) else value)


def usd_to_credits(usd: Amount, rate: Amount) -> Decimal:
    """USD -> credits at ``rate`` USD per credit, six decimal places.

    Example:
        >>> usd_to_credits("1.96", "0.0196")
        Decimal('100.000000')
    """
    return (_dec(usd) / _dec(rate)).quantize(CREDIT_PLACES, rounding=ROUND_HALF_EVEN)


def credits_to_usd(credits: Amount, rate: Amount) -> Decimal:
    """Credits -> USD at ``rate`` USD per credit, six decimal places.

    Example:
        >>> credits_to_usd("12000", "0.014833")
        Decimal('177.996000')
    """
    return (_dec(credits) * _dec(rate)).quantize(CREDIT_PLACES, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True)
class Estimate:
    """The upper-bound cost of a paid call; ``None`` means unknown (never zero).

    ``str()`` is for people (rounded); the fields stay exact.

    Example:
        >>> estimate = Estimate("dataset_run", "mention", 50, Decimal("0.98"), Decimal("50"))
        >>> estimate.credits, estimate.usd
        (Decimal('50'), Decimal('0.98'))
        >>> print(estimate)
        50 credits (0.98 USD)
    """

    kind: str
    category: str
    quantity: int | None
    usd: Decimal | None
    credits: Decimal | None
    reason: str | None = None  # why an amount is unknown

    @classmethod
    def from_prices(
        cls, kind: str, quantity: int | None, prices: Prices, reason: str | None = None
    ) -> Estimate:
        """Price ``quantity`` units of ``kind`` with a ``GET /v1/prices`` answer."""
        category = ESTIMATE_CATEGORIES[kind]
        if quantity is None:
            return cls(kind, category, None, None, None, reason)
        unit_credits = (prices.prices_credits or {}).get(category)
        unit_usd = (prices.prices or {}).get(category)
        credits = None if unit_credits is None else unit_credits * quantity
        usd = None if unit_usd is None else unit_usd * quantity
        rate = prices.billing.credit_rate_usd if prices.billing else None
        if rate:  # one side missing: derive it at the account's rate
            if credits is None and usd is not None:
                credits = usd_to_credits(usd, rate)
            if usd is None and credits is not None:
                usd = credits_to_usd(credits, rate)
        if credits is None:
            reason = reason or (
                f"the service shows no {category} price in credits, nor a USD price and "
                "credit rate to derive one"
            )
        return cls(kind, category, quantity, usd, credits, reason)

    def __str__(self) -> str:
        if self.credits is None and self.usd is None:
            return f"unknown ({self.reason})" if self.reason else "unknown"
        return money(self.credits, self.usd)


class TimedRead(Generic[R]):
    """The last answer of a free ``GET`` (``request``), reused for :data:`PRICES_TTL`
    seconds: the prices for estimates, the plan for its research depth."""

    def __init__(self, request: APIRequest[R], clock: Callable[[], float] = time.monotonic):
        self._request = request
        self._clock = clock
        self._value: R | None = None
        self._fetched_at = 0.0
        self._lock = threading.Lock()

    def get(self, client: Any) -> Flow[R]:
        """Flow: the cached answer, fetched through ``client`` when stale."""
        with self._lock:
            if self._value is not None and self._clock() - self._fetched_at < PRICES_TTL:
                return self._value
        value: R = yield from client._core.call(self._request)
        self.put(value)
        return value

    def put(self, value: R) -> None:
        """Remember a fresh answer."""
        with self._lock:
            self._value, self._fetched_at = value, self._clock()


class PriceCache(TimedRead[Prices]):
    """The last ``GET /v1/prices`` answer, reused for :data:`PRICES_TTL` seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(PRICES, clock)


class BillingMixin:
    """``client.estimate(...)`` and the budget guard around paid calls (both clients)."""

    _budget: Budget | None
    _prices: PriceCache
    _plan: TimedRead[Account]
    _core: HTTPCore
    if TYPE_CHECKING:

        def _run(self, flow: Flow[T]) -> T: ...

    def _setup_billing(self, budget_credits: Amount | None) -> None:
        self._budget = None if budget_credits is None else Budget(budget_credits)
        self._prices = PriceCache()
        self._plan = TimedRead(ME)

    @property
    def budget(self) -> Budget | None:
        """The client's budget (``budget_credits=``), or None when unlimited."""
        return self._budget

    def estimate(self, kind: str, **params: Any) -> Estimate:
        """The upper-bound cost of a paid call, in USD and credits (see the module table).

        Example:
            >>> client.estimate("audience_run", total_profile_count=500).credits  # doctest: +SKIP
            Decimal('1500.000000')
            >>> cost = client.estimate("pattern_detection", dataset_id="ds_1")  # doctest: +SKIP
            >>> cost.quantity  # the dataset's mentions_count  # doctest: +SKIP
            120
        """
        return self._run(estimate_flow(self, kind, params))

    def _guarded(
        self,
        kind: str,
        request: APIRequest[T],
        params: Mapping[str, Any],
        *,
        then: Callable[[T], Flow[R]] | None = None,
        units: Callable[[R], int | None] | None = None,
    ) -> Flow[R]:
        """Flow of a paid call under the client's budget and the process-wide one
        (:mod:`rdskit.budget`): its estimate reserved before it is sent (refused when it
        does not fit), ``then`` run on the service's answer (a read of the started run),
        and the reservation settled to ``units`` of the result (what the service says it
        reserved; None keeps the estimate)."""
        budgets = active_budgets(self._budget)
        reservation: Reservation | None = None
        if budgets:
            yield from settle_asks(self._core)  # Ask replies seen finished since
            role, datasets = _gate(kind, params)
            reserved = self._reserved(kind, request, params, budgets)
            if role is None:
                reservation, answer = yield from reserved
            else:
                reservation, answer = yield from gated(self._core, role, datasets, reserved)
        else:
            answer = yield from self._core.call(request)
        # Accepted: from here on an error keeps the whole estimate counted.
        result = cast("R", answer) if then is None else (yield from then(answer))
        quantity = None if reservation is None or units is None else units(result)
        if reservation is not None and quantity is not None:
            prices = yield from self._prices.get(self)
            reservation.settle(Estimate.from_prices(kind, quantity, prices))
        return result

    def _reserved(
        self, kind: str, request: APIRequest[T], params: Mapping[str, Any], budgets: list[Budget]
    ) -> Flow[tuple[Reservation, T]]:
        """Flow: reserve the estimate in ``budgets`` (or raise BudgetExceeded), then send;
        a call that provably started nothing gives its reservation back."""
        estimate = yield from estimate_flow(self, kind, params)
        reservation = Reservation.take(budgets, estimate)
        try:
            answer = yield from self._core.call(request)
        except BaseException as exc:
            if charged_nothing(exc):
                reservation.release()
            raise
        return reservation, answer

    def _within_depth(self, count: int | None, start: Flow[T]) -> Flow[T]:
        """Flow of a run's start that first says (:class:`~rdskit.errors.DepthCapWarning`)
        when ``count`` is above the plan's research depth, which caps what the service
        collects and charges: before anything is charged, so the count can be changed.

        The plan is read from ``GET /v1/me`` (free, cached for :data:`PRICES_TTL`); when it
        cannot be read, or shows no depth (``-1`` occurs, its meaning not shown), nothing is
        said here and the run's progress still shows the cap from the run's own counts."""
        if count is not None:
            try:
                account = yield from self._plan.get(self)
            except (APIError, APIConnectionError):
                account = None
            limits = account.plan.limits if account is not None and account.plan else None
            depth = limits.max_research_depth if limits is not None else None
            if depth is not None and 0 < depth < count:
                plan = account.plan.name if account is not None and account.plan else None
                warn(
                    f"count={count} is above the research depth of the "
                    f"{one_line(plan) + ' plan' if plan else 'plan'} ({number(depth)} "
                    f"mentions a run): the service collects, and charges, at most "
                    f"{number(depth)}. Pass count={depth} (or less) to ask for what "
                    "the run will hold.",
                    DepthCapWarning,
                )
        return (yield from start)

    def _budgeted(self) -> bool:
        """Whether any budget (the client's or the process-wide one) is active."""
        return bool(active_budgets(self._budget))

    def _scheduled(self, request: APIRequest[T], count: int | None, datasets: int) -> Flow[T]:
        """Flow of a call that lets a tracking agent charge on its own schedule (create,
        resume, a larger ``count``): refused before sending when one cycle (``count`` x
        ``datasets`` mentions) does not fit a budget. Nothing is committed: the service
        charges each cycle later, on the agent's schedule, outside this process's budget."""
        budgets = active_budgets(self._budget)
        if budgets:
            cycle = {"count": count, "datasets": datasets}
            estimate = yield from estimate_flow(self, "tracking_trigger", cycle)
            for budget in budgets:
                budget.check_fits(
                    estimate,
                    "each cycle of this agent may charge that much, on the agent's schedule, "
                    "outside any budget: lower its count, or raise the budget",
                )
        return (yield from self._core.call(request))

    def _asked(self, request: APIRequest[T]) -> Flow[Any]:
        """Flow of ``POST /v1/ask`` under the budgets (see :func:`rdskit.budget.guarded_ask`)."""
        return guarded_ask(self._core, self._budget, request)


# The unit parameters of the estimated calls and their bounds, as those calls check them
# (a run's count >= 1, an audience run's 1..2000 profiles...).
_UNIT_BOUNDS: dict[str, tuple[int, int | None]] = {
    "count": (1, None),
    "total_profile_count": (1, 2000),
    "posts": (0, None),
    "datasets": (1, None),
}


def _check_units(params: Mapping[str, Any]) -> None:
    """Refuse a unit parameter the estimated call would refuse, naming it."""
    for name, (low, high) in _UNIT_BOUNDS.items():
        value = params.get(name)
        if value is None:
            continue
        whole = isinstance(value, int) and not isinstance(value, bool)
        if not whole or value < low or (high is not None and value > high):
            bounds = f"{low} or more" if high is None else f"between {low} and {high}"
            raise InvalidParameter(name, f"must be a whole number {bounds}, got {value!r}")
    for name in ("sources", "source_urls"):
        value = params.get(name)
        if value is not None and (isinstance(value, str) or not isinstance(value, list | tuple)):
            raise InvalidParameter(name, f"must be a list, got {type(value).__name__}")


def estimate_flow(client: Any, kind: str, params: Mapping[str, Any]) -> Flow[Estimate]:
    """Flow: the estimate of a paid call of ``kind`` (``client.estimate`` runs it; the
    Jupyter gateway runs it for a kernel's budget). ``client`` gives ``_core`` (the HTTP
    core its reads go through) and ``_prices`` (a :class:`PriceCache`)."""
    if kind not in ESTIMATE_CATEGORIES:
        known = ", ".join(ESTIMATE_CATEGORIES)
        raise InvalidParameter("kind", f"must be one of {known}; got {kind!r}")
    _check_units(params)
    quantity, reason = yield from _quantity(client, kind, params)
    prices = yield from client._prices.get(client)
    return Estimate.from_prices(kind, quantity, prices, reason)


def _quantity(
    client: Any, kind: str, params: Mapping[str, Any]
) -> Flow[tuple[int | None, str | None]]:
    """How many units ``kind`` reserves, or (None, why it is unknown)."""
    if kind == "dataset_run":
        count = params.get("count")
        return (count, None) if count is not None else (None, "pass count= to bound the run")
    if kind == "audience_run":
        return params.get("total_profile_count") or DEFAULT_PROFILE_COUNT, None
    if kind == "research_preview":
        units = params.get("sources") or params.get("source_urls")
        return (len(units), None) if units else (None, "pass sources= or source_urls=")
    if kind == "tracking_trigger":
        if params.get("agent_id") is None and "datasets" in params:  # an agent to be
            count = params.get("count")
            if count is None:
                return None, "pass count= to bound each cycle"
            return count * params["datasets"], None
        if params.get("agent_id") is None:
            return None, "pass agent_id="
        agent = yield from client._core.call(get_tracking_agent(params["agent_id"]))
        if agent.count is None or not agent.dataset_ids:
            return None, "the agent shows no count or datasets"
        return agent.count * len(agent.dataset_ids), None
    # custom_parameter_run, pattern_detection: posts in the dataset
    if params.get("posts") is not None:
        return params["posts"], None
    if params.get("dataset_id") is None:
        return None, "pass posts= or dataset_id="
    return (yield from _dataset_size(client._core, params["dataset_id"]))


_FINAL_RUN_STATES = ("completed", "failed")


def _dataset_size(core: HTTPCore, dataset_id: str) -> Flow[tuple[int | None, str | None]]:
    """The most mentions the dataset may hold when the service receives a call: its
    ``mentions_count`` plus the ``count`` of each of its runs still in flight. The runs
    are read first: a run that finishes in between is then counted twice, never missed."""
    runs = yield from every_item(core, list_dataset_runs(dataset_id, limit=MAX_LIMIT))
    growing = 0
    for run in runs:
        if run.status.type in _FINAL_RUN_STATES:
            continue
        count = run.count if run.count is not None else run.requested_count
        if count is None:
            return None, f"run {run.id} of the dataset is in flight and shows no count"
        growing += count
    dataset = yield from core.call(get_dataset(dataset_id))
    if dataset.mentions_count is None:
        return None, "the dataset shows no mentions_count"
    return dataset.mentions_count + growing, None


def _gate(kind: str, params: Mapping[str, Any]) -> tuple[Role | None, tuple[str, ...]]:
    """The role of a paid call at its datasets' gates (:func:`rdskit.budget.gated`)."""
    dataset_id = params.get("dataset_id")
    if kind == "dataset_run" and dataset_id is not None:
        return GROWS, (dataset_id,)
    if kind == "tracking_trigger":
        return GROWS, (ANY_DATASET,)
    if kind in ("custom_parameter_run", "pattern_detection") and params.get("posts") is None:
        return (SIZED, (dataset_id,)) if dataset_id is not None else (None, ())
    return None, ()
