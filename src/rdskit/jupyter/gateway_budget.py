"""The gateway's hold on a kernel's budget: what that kernel's tokens may still spend.

A kernel announces its process-wide budget (``%rds budget N``, :func:`rdskit.set_budget`)
to the gateway (``POST /rdskit/kernel``, :mod:`rdskit.jupyter.lab_api`). From then on the
gateway keeps its own count of the paid calls it forwarded for that kernel's tokens (a
token minted from the discovery file and the kernel's connection file by another
process of the same user included) and refuses, before forwarding, a paid call whose
estimate does not fit what remains of the announced total: HTTP 402 with ``error_code``
``kernel_budget_exceeded`` (a client raises :class:`~rdskit.errors.InsufficientCredits`
with that code), nothing sent.

- The estimate is the client's own (:mod:`rdskit.billing`, the same flow, driven here with
  the gateway's key and shared bucket): a dataset run's ``count``, an audience run's
  profiles, a custom parameter run's or pattern detection's dataset size with its runs in
  flight, a preview's sources, a tracking trigger's cycle. A call it cannot estimate is
  refused, as a client budget refuses it. An Ask (charged after the reply) is refused once
  nothing remains.
- The count is the gateway's, not the kernel's word: a call refused by the service (an
  error status) gives its estimate back; any other answer keeps it counted.
- What the kernel announces sets the cap: a new total applies; an announced commitment
  lower than the one before (``%rds budget N --reset``) starts the count again from zero;
  ``None`` (the budget lifted) lifts the cap. A kernel that stops or restarts takes its
  count with it.

Example:
    >>> from decimal import Decimal
    >>> holds = KernelBudgets()
    >>> holds.announce("k1", 101, Decimal(1), Decimal(0))
    >>> holds.reserve("k1", "dataset_run", Decimal(100))
    Traceback (most recent call last):
    ...
    rdskit.jupyter.gateway_budget.OverBudget: dataset_run refused by the kernel's budget: ...
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from rdskit._format import credits_text

__all__ = ["KernelBudgets", "OverBudget", "paid_call"]

ASK = "ask"
"""The kind of ``POST /v1/ask`` (no estimate: refused once nothing remains)."""

# POST paths of the paid calls, with the part of the path the estimate needs.
_PAID = (
    (re.compile(r"v1/datasets/(?P<id>[^/]+)/runs"), "dataset_run"),
    (re.compile(r"v1/audience_datasets/(?P<id>[^/]+)/runs"), "audience_run"),
    (re.compile(r"v1/custom_parameters/(?P<id>[^/]+)/runs"), "custom_parameter_run"),
    (re.compile(r"v1/pattern_detections"), "pattern_detection"),
    (re.compile(r"v1/research_previews"), "research_preview"),
    (re.compile(r"v1/tracking_agents/(?P<id>[^/]+)/trigger"), "tracking_trigger"),
    (re.compile(r"v1/ask"), ASK),
)


class OverBudget(Exception):
    """A paid call that does not fit what remains of its kernel's budget."""


def paid_call(method: str, path: str, body: bytes) -> tuple[str, dict[str, Any]] | None:
    """The estimate kind and parameters of a paid call (``path`` as
    :func:`~rdskit.jupyter.gateway.upstream_path` returned it), or None for a free one.
    A body that is not a JSON object gives no parameters (its estimate is then unknown).

    Example:
        >>> paid_call("POST", "v1/datasets/ds_1/runs", b'{"count": 100}')
        ('dataset_run', {'count': 100, 'dataset_id': 'ds_1'})
        >>> paid_call("GET", "v1/datasets/ds_1/runs", b"") is None
        True
    """
    if method != "POST":
        return None
    for pattern, kind in _PAID:
        found = pattern.fullmatch(path)
        if found is not None:
            return kind, _params(kind, found.groupdict().get("id"), body)
    return None


def _params(kind: str, path_id: str | None, raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw or b"{}")
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return {"unreadable": True}
    if kind == "dataset_run":
        return {"count": body.get("count"), "dataset_id": path_id}
    if kind == "audience_run":
        return {"total_profile_count": body.get("total_profile_count")}
    if kind == "custom_parameter_run":
        scope = body.get("scope")
        return {"dataset_id": scope.get("id") if isinstance(scope, dict) else None}
    if kind == "pattern_detection":
        return {"dataset_id": body.get("dataset_id")}
    if kind == "research_preview":
        return {"sources": body.get("sources"), "source_urls": body.get("source_urls")}
    if kind == "tracking_trigger":
        return {"agent_id": path_id}
    return {}


@dataclass
class _Hold:
    total: Decimal
    announced: Decimal  # what the kernel last said it committed (a drop is a reset)
    process: int | None
    spent: Decimal = Decimal(0)  # estimates of the paid calls forwarded for its tokens


class KernelBudgets:
    """The gateway's count of what each kernel's tokens spent against its budget."""

    def __init__(self) -> None:
        self._by_kernel: dict[str, _Hold] = {}
        self._lock = threading.Lock()

    def announce(
        self, kernel_id: str, process: int | None, total: Decimal | None, committed: Decimal
    ) -> None:
        """What the kernel said of its budget (``total`` None: it has none)."""
        with self._lock:
            hold = self._by_kernel.get(kernel_id)
            if total is None:
                self._by_kernel.pop(kernel_id, None)
            elif hold is None or hold.process != process or committed < hold.announced:
                self._by_kernel[kernel_id] = _Hold(total, committed, process)
            else:
                hold.total, hold.announced = total, committed

    def capped(self, kernel_id: str | None, process: int | None) -> bool:
        """Whether ``kernel_id`` (this process of it) announced a budget."""
        with self._lock:
            hold = None if kernel_id is None else self._by_kernel.get(kernel_id)
            if hold is not None and hold.process != process:  # restarted: its budget went
                del self._by_kernel[kernel_id]  # type: ignore[arg-type]
                hold = None
            return hold is not None

    def reserve(
        self, kernel_id: str, kind: str, credits: Decimal | None, why: str | None = None
    ) -> Decimal:
        """Count ``credits`` against the kernel's budget (returned, to give back on a
        refusal), or raise :class:`OverBudget`; an Ask (no estimate) only needs something
        left."""
        with self._lock:
            hold = self._by_kernel.get(kernel_id)
            if hold is None:
                return Decimal(0)
            left = hold.total - hold.spent
            if kind == ASK:
                if left <= 0:
                    raise OverBudget(_refusal(kind, None, left, "nothing remains of it"))
                return Decimal(0)
            if credits is None:
                raise OverBudget(_refusal(kind, None, left, why or "no estimate"))
            if credits > left:
                raise OverBudget(
                    _refusal(kind, credits, left, "the estimate is more than what remains")
                )
            hold.spent += credits
            return credits

    def release(self, kernel_id: str, credits: Decimal) -> None:
        """Give back what a call the service refused had reserved."""
        with self._lock:
            hold = self._by_kernel.get(kernel_id)
            if hold is not None:
                hold.spent -= credits


def _refusal(kind: str, estimate: Decimal | None, left: Decimal, why: str) -> str:
    shown = "unknown" if estimate is None else f"{credits_text(estimate)} credits"
    return (
        f"{kind} refused by the kernel's budget: estimate {shown}, {credits_text(left)} "
        f"credits remaining for this kernel's gateway tokens ({why}); the notebook's "
        "%rds budget sets it"
    )
