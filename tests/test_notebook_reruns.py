"""Every tutorial re-run by a student costs nothing, and runs on every plan.

Students re-run cells and whole notebooks, in the same kernel or after a restart, and hold
whatever plan their key has. For each notebook (code cells, then every challenge solution):

- **Re-runs** (Business plan, a superset of the default Pro): one kernel runs it twice, a
  second kernel on the same sandbox database runs it once more. The second and third passes
  must leave the sandbox's footprint (rows of every resource and charge table, see
  ``tests/notebook_runs.py``) exactly as the first left it: no duplicate dataset, parameter,
  agent, chat or account, no charge, no reservation.
- **Plans**: a kernel on Starter (no custom date filter, one agent) runs it once; the Pro
  run is nbval's (``pytest --nbval``) and the Trial run (no custom date filter, no tracking
  agents, counts capped at 100) ``tests/test_course_on_trial.py``'s, every lesson in order
  on one Trial wallet.

No pass may raise, no checkpoint (challenge solutions' included: they check the answers the
solutions state) may be off track, and no output may carry ``date_filter_unavailable`` or
``tracking_agent_limit_reached`` (a notebook that catches them and prints them has not
fallen back).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from notebook_runs import NOTEBOOKS_DIR, Job, PassResult, run_all

NOTEBOOKS = sorted(path.name for path in NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))
RERUN_PLAN = "Business"
OTHER_PLANS = ("Starter",)
"""Plans each notebook also runs on, alone. Trial is tests/test_course_on_trial.py's: every
lesson in order on one Trial wallet (a stricter run), so a notebook is not executed a fifth
time for it here."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, Job]]:
    """The jobs of one notebook, run on first request (its three jobs side by side)."""
    root = tmp_path_factory.mktemp("notebook-runs")
    done: dict[str, dict[str, Job]] = {}

    def of(name: str) -> dict[str, Job]:
        if name not in done:
            stem = Path(name).stem
            jobs = {RERUN_PLAN: Job(name, RERUN_PLAN, (2, 1), root / f"{stem}-rerun")}
            jobs |= {plan: Job(name, plan, (1,), root / f"{stem}-{plan}") for plan in OTHER_PLANS}
            run_all(list(jobs.values()))
            done[name] = jobs
        return done[name]

    return of


def _clean(results: list[PassResult]) -> None:
    for result in results:
        assert result.error is None, f"{result.label} failed at {result.error}"
        assert result.refused == [], f"{result.label} met {result.refused}"
        off = [text[:300] for text in result.outputs if "✗ Not yet" in text]
        assert not off, f"{result.label}: a checkpoint (or a solution's) is off track: {off}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_rerunning_a_notebook_creates_and_charges_nothing(
    runs: Callable[[str], dict[str, Job]], name: str
) -> None:
    results = runs(name)[RERUN_PLAN].results
    _clean(results)
    assert [r.label.rpartition("] ")[2] for r in results] == [
        "kernel 1 pass 1",
        "kernel 1 pass 2",
        "kernel 2 pass 1",
    ]
    first, again, restarted = (r.footprint for r in results)
    assert first.get("datasets", 0) > 0 and first.get("usage_rows", 0) > 0, (
        f"{name}: the first pass created or charged nothing, so this check would prove nothing"
    )
    assert again == first, f"{name}: re-run in the same kernel changed {_diff(first, again)}"
    assert restarted == first, f"{name}: re-run in a new kernel changed {_diff(first, restarted)}"


@pytest.mark.parametrize("plan", OTHER_PLANS)
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_runs_on_every_plan(
    runs: Callable[[str], dict[str, Job]], name: str, plan: str
) -> None:
    results = runs(name)[plan].results
    assert len(results) == 1
    _clean(results)


def _diff(before: dict[str, int], after: dict[str, int]) -> dict[str, str]:
    return {
        table: f"{before.get(table, 0)} -> {after.get(table, 0)}"
        for table in sorted(before.keys() | after.keys())
        if before.get(table) != after.get(table)
    }
