"""A pre-registered analysis plan and the deviations of a frame from it.

A study file's ``[plan]`` (:class:`Plan`, read by :mod:`rdskit.study`) fixes before the
data are seen the hypotheses and the analysis: which posts are analysed (ads left out or
not, the row filters allowed), which comparison is run (grouped by what, at which
confidence), how many posts at least, whether authors are pseudonymised.
``df.rds.methods(plan=...)`` states the plan and then each deviation the frame's provenance
shows, named by its kind (filter, test, sample size, pseudonymisation) with what was planned
and what was done; a plan followed says so. A deviation is not an error: it is reported.

Example:
    >>> plan = Plan.model_validate({"registered": "2026-11-01", "compare_by": "source",
    ...     "posts": 300, "hypotheses": [{"id": "H1", "statement": "Reddit is more negative."}]})
    >>> from rdskit.frames import mentions_frame
    >>> df = mentions_frame([{"source": "reddit", "id": "1", "content_type": "organic"}])
    >>> [d.kind for d in deviations(df, plan)]
    ['test', 'sample size']
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from rdskit.frames.methods import _plural, scope_of
from rdskit.frames.provenance import provenance_of

__all__ = ["Deviation", "Hypothesis", "Plan", "deviations", "plan_sentences"]


class Hypothesis(BaseModel):
    """One pre-registered hypothesis: an id to cite it by and its statement."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1, max_length=20)
    statement: str = Field(min_length=1)


class Plan(BaseModel):
    """The analysis plan, fixed on ``registered`` before the data were seen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    registered: date
    hypotheses: list[Hypothesis] = Field(min_length=1)
    exclude_ads: bool = True
    """Ads are left out (``df.rds.organic()``) before any figure."""
    filters: list[str] = []
    """Row filters planned besides ads, in words (e.g. "English posts only"); without any,
    every post loaded is analysed."""
    compare_by: str | None = None
    """The grouping compared (``df.rds.compare(by=...)``); None: no comparison planned."""
    confidence: float = Field(default=0.95, gt=0, lt=1)
    posts: int | None = Field(default=None, ge=1)
    """Posts analysed at least (the planned sample size)."""
    pseudonymise: bool = False
    """Authors are pseudonymised before analysis."""


@dataclass(frozen=True)
class Deviation:
    """What the analysis did other than planned: ``kind`` (filter, test, sample size,
    pseudonymisation), what was ``planned`` and what was ``done``."""

    kind: str
    planned: str
    done: str

    def sentence(self) -> str:
        """``(filter) planned: ads left out; done: 12 ads kept``."""
        return f"({self.kind}) planned: {self.planned}; done: {self.done}"


def _compares(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [dict(s.settings) for s in provenance_of(frame).steps if s.step == "compare"]


def deviations(frame: pd.DataFrame, plan: Plan) -> list[Deviation]:
    """Every deviation of ``frame`` (its rows and its recorded steps) from ``plan``."""
    scope = scope_of(frame)
    steps = {s.step for s in provenance_of(frame).steps}
    out = []
    if plan.exclude_ads and scope.ads:
        out.append(Deviation("filter", "ads left out", f"{_plural(scope.ads, 'ad')} kept"))
    if not plan.exclude_ads and scope.removed:
        out.append(Deviation("filter", "ads kept", f"{_plural(scope.removed, 'ad')} left out"))
    if scope.subset and not plan.filters:
        out.append(
            Deviation(
                "filter",
                "every post loaded analysed",
                f"a selection of {scope.posts:,} of the {scope.loaded:,} posts loaded",
            )
        )
    compares = _compares(frame)
    planned_test = (
        f"groups by {plan.compare_by} compared at {plan.confidence:.0%}"
        if plan.compare_by
        else "no comparison"
    )
    if plan.compare_by and not any(c.get("by") == plan.compare_by for c in compares):
        out.append(Deviation("test", planned_test, "not run"))
    for by in dict.fromkeys(str(c.get("by")) for c in compares):
        levels = {float(c.get("confidence", 0.95)) for c in compares if str(c.get("by")) == by}
        if by != plan.compare_by:
            out.append(Deviation("test", planned_test, f"groups by {by} compared (unplanned)"))
        elif levels != {plan.confidence}:
            done = ", ".join(f"{c:.0%}" for c in sorted(levels))
            out.append(Deviation("test", planned_test, f"compared at {done}"))
    if plan.posts is not None and len(frame) < plan.posts:
        out.append(
            Deviation("sample size", f"at least {plan.posts:,} posts", f"{len(frame):,} posts")
        )
    if plan.pseudonymise and "pseudonymise" not in steps:
        out.append(Deviation("pseudonymisation", "authors pseudonymised", "not pseudonymised"))
    return out


def plan_sentences(frame: pd.DataFrame, plan: Plan) -> list[str]:
    """What the methods paragraph says of ``plan``: the registration, the hypotheses, and
    the deviations (or that there were none)."""
    hypotheses = "; ".join(f"{h.id}: {h.statement.rstrip('.')}" for h in plan.hypotheses)
    found = deviations(frame, plan)
    first = (
        f"The hypotheses and analysis plan were registered on {plan.registered.isoformat()} "
        f"({hypotheses})."
    )
    if not found:
        return [first, "The analysis followed the plan (filters, test and sample size)."]
    listed = "; ".join(d.sentence() for d in found)
    return [first, f"Deviations from the plan ({len(found)}): {listed}."]
