"""Run a study, idempotently, and say where it stands.

:func:`study_status` reads (free) which datasets of a study exist, which of their runs match
the study file, and prices what is left with the service's prices
(``client.estimate``). :func:`run_study` collects what is left: each dataset is found by
name or created, each run is started with ``reuse=True`` (the service's run list is read
first, so a run started before an interruption, even a ``kill -9`` between the request and
its answer, is found and waited on, never paid again), custom parameters likewise. The
study's ``budget_credits`` bounds the whole study: what its matching runs may have charged
(their counts) plus the estimate of what is left must fit, or nothing starts.

Example:
    >>> status = study_status(load_study("study.toml"), client)  # doctest: +SKIP
    >>> print(status)  # doctest: +SKIP
    brand a: completed (50 posts, run dsr_…)
    brand b: not started (estimate 50 credits)
    to finish: 50 credits
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rdskit._format import money
from rdskit.errors import BudgetExceeded
from rdskit.models import DatasetRunCreate
from rdskit.resources.datasets import same_run

if TYPE_CHECKING:
    from rdskit.study.model import DatasetSpec, Study

__all__ = ["DatasetState", "StudyStatus", "run_study", "study_status"]


@dataclass(frozen=True)
class DatasetState:
    """Where one dataset of a study stands."""

    name: str
    dataset_id: str | None
    run_id: str | None
    status: str  # "not started", or the matching run's status.type
    mentions: int
    estimate_credits: Decimal | None  # to finish it (0 when a run exists); None: unknown
    committed_credits: Decimal  # what its matching run may have charged (its count)

    @property
    def done(self) -> bool:
        """Whether its run completed."""
        return self.status == "completed"


@dataclass(frozen=True)
class StudyStatus:
    """What is done and what finishing would cost."""

    title: str
    datasets: list[DatasetState]
    budget_credits: Decimal | None
    parameters_credits: Decimal | None = Decimal(0)  # the custom parameters, over the counts

    @property
    def done(self) -> bool:
        """Whether every dataset's run completed."""
        return all(d.done for d in self.datasets)

    @property
    def to_finish_credits(self) -> Decimal | None:
        """The service's estimate of what is left (None: some price is unknown)."""
        if self.parameters_credits is None:
            return None
        total = Decimal(0)
        for state in self.datasets:
            if state.estimate_credits is None:
                return None
            total += state.estimate_credits
        return total

    def __str__(self) -> str:
        lines = [f"study: {self.title}"]
        for d in self.datasets:
            if d.run_id is None:
                cost = "unknown" if d.estimate_credits is None else money(d.estimate_credits)
                lines.append(f"  {d.name}: not started (estimate {cost})")
            else:
                lines.append(f"  {d.name}: {d.status} ({d.mentions} posts, run {d.run_id})")
        left = self.to_finish_credits
        lines.append(f"to finish: {'unknown' if left is None else money(left)}")
        if self.budget_credits is not None:
            lines.append(f"budget: {money(self.budget_credits)}")
        return "\n".join(lines)


def _wanted(spec: DatasetSpec) -> dict[str, Any]:
    params = {k: v for k, v in spec.run_params().items() if v is not None}
    return DatasetRunCreate.model_validate(params).to_wire()


def _datasets_by_name(client: Any) -> dict[str, Any]:
    """The oldest dataset of each name (what ``get_or_create`` returns)."""
    found: dict[str, Any] = {}
    for dataset in sorted(client.datasets.list(limit=100), key=lambda d: d.created_at):
        found.setdefault(dataset.name, dataset)
    return found


def _state(client: Any, spec: DatasetSpec, dataset: Any | None, price: Any) -> DatasetState:
    run = None
    if dataset is not None:
        wanted = _wanted(spec)
        runs = [r for r in client.datasets.runs.list(dataset.id, limit=100)]
        run = next(
            (r for r in runs if r.status.type != "failed" and same_run(r, wanted)),
            None,
        )
    estimate = price(spec.count)
    if run is None or dataset is None:
        return DatasetState(
            spec.name, dataset.id if dataset else None, None, "not started", 0, estimate, Decimal(0)
        )
    return DatasetState(
        spec.name,
        dataset.id,
        run.id,
        run.status.type,
        run.mentions_count or 0,
        Decimal(0),
        estimate if estimate is not None else Decimal(0),
    )


def study_status(study: Study, client: Any) -> StudyStatus:
    """What is done (free reads) and what finishing would cost (the service's prices).

    Example:
        >>> study_status(study, client).to_finish_credits  # doctest: +SKIP
        Decimal('50.000000')
    """
    by_name = _datasets_by_name(client)

    def price(count: int) -> Decimal | None:
        credits: Decimal | None = client.estimate("dataset_run", count=count).credits
        return credits

    states = [_state(client, spec, by_name.get(spec.name), price) for spec in study.datasets]
    budget = None if study.budget_credits is None else Decimal(str(study.budget_credits))
    posts = [
        study.dataset(name).count
        for parameter in study.parameters
        for name in parameter.datasets or [d.name for d in study.datasets]
    ]
    parameters: Decimal | None = Decimal(0)
    for count in posts:
        cost = client.estimate("custom_parameter_run", posts=count).credits
        parameters = None if cost is None or parameters is None else parameters + cost
    return StudyStatus(study.title, states, budget, parameters)


def run_study(
    study: Study,
    client: Any,
    *,
    progress: bool = False,
    report: Callable[[str], None] | None = None,
    timeout: float = 3600.0,
) -> StudyStatus:
    """Collect what the study has not collected yet, within its budget; the new status.

    Safe to call again at any point (after an interruption too): nothing is paid twice.

    Example:
        >>> run_study(load_study("study.toml"), client).done  # doctest: +SKIP
        True
    """
    say = report or (lambda text: print(text, file=sys.stderr))
    before = study_status(study, client)
    _check_budget(before)
    for spec, state in zip(study.datasets, before.datasets, strict=True):
        dataset = client.datasets.get_or_create(spec.name)
        run = client.datasets.runs.create(dataset.id, **spec.run_params(), reuse=True)
        verb = "reused" if state.run_id == run.id else "started"
        say(f"{spec.name}: {verb} run {run.id} of {dataset.id}")
        run = run.wait(timeout=timeout, progress=progress)
        say(f"{spec.name}: {run.status.type}, {run.mentions_count} posts")
    for parameter in study.parameters:
        rule = client.custom_parameters.get_or_create(parameter.name, parameter.instructions)
        for name in parameter.datasets or [d.name for d in study.datasets]:
            dataset = client.datasets.get_or_create(name)
            job = client.custom_parameters.runs.create(rule.id, dataset_id=dataset.id, reuse=True)
            job.wait(timeout=timeout, progress=progress)
            say(f"parameter {parameter.name!r} over {name}: done")
    return study_status(study, client)


def _check_budget(status: StudyStatus) -> None:
    """Refuse before anything starts when the study may cost more than its budget (custom
    parameter runs are counted whole: reused ones were paid within the same budget)."""
    if status.budget_credits is None:
        return
    left = status.to_finish_credits
    committed = sum((d.committed_credits for d in status.datasets), Decimal(0))
    if left is None or committed + left > status.budget_credits:
        raise BudgetExceeded(
            "study run",
            left,
            max(status.budget_credits - committed, Decimal(0)),
            f"study.budget_credits is {money(status.budget_credits)}: lower the counts "
            "or raise the budget",
            scope="study",
        )
