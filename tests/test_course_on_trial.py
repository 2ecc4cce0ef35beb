"""The whole course, in order, on one Trial account: it fits the Trial wallet, every lesson
costs at most what the course map says, and every checkpoint, challenge solutions included,
is on track.

A learner on the Trial plan (1 USD, 1,000 credits, counts capped at 100, no custom date
filter, no tracking agents) runs lessons 01 to 10 one after the other on one sandbox file and
one local ledger, as ``docs/teaching.md`` recommends (``RDSKIT_SANDBOX_DB``). Each lesson runs
in a new kernel: its code cells, then its challenge solutions (``tests/notebook_runs.py``).
What the account spent after each lesson is read from the sandbox's wallet.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from notebook_runs import NOTEBOOKS_DIR, Job, run_in_order

NOTEBOOKS = sorted(path.name for path in NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))
TRIAL_CREDITS = 1_000
TRIAL_USD_PER_CREDIT = Decimal("0.001")  # 1 USD for 1,000 credits (spec, Limits)
COST = re.compile(
    r"^\| (?P<number>\d\d) \| \[[^\]]+\]\((?P<file>[^)]+)\) \|.*\| (?P<credits>\d+) \|$", re.M
)


def _stated_costs() -> dict[str, int]:
    """Each lesson's cost on Trial, as the course map states it."""
    readme = (NOTEBOOKS_DIR / "README.md").read_text(encoding="utf-8")
    return {row["file"]: int(row["credits"]) for row in COST.finditer(readme)}


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> list[Job]:
    return run_in_order(NOTEBOOKS, "Trial", Path(tmp_path_factory.mktemp("trial-course")))


def test_the_course_map_states_a_cost_for_every_lesson_within_one_trial_wallet() -> None:
    stated = _stated_costs()
    assert sorted(stated) == NOTEBOOKS
    assert sum(stated.values()) <= TRIAL_CREDITS


def test_the_lessons_run_in_order_on_one_trial_wallet(course: list[Job]) -> None:
    assert [job.notebook for job in course] == NOTEBOOKS, "stopped early"
    for job in course:
        (result,) = job.results
        assert result.error is None, f"{result.label} failed at {result.error}"
        assert result.refused == [], f"{result.label} met {result.refused}"
    spent = course[-1].results[0].used_usd / TRIAL_USD_PER_CREDIT
    assert 0 < spent <= TRIAL_CREDITS


def test_each_lesson_costs_at_most_what_the_course_map_says(course: list[Job]) -> None:
    stated = _stated_costs()
    before = Decimal(0)
    for job in course:
        after = job.results[0].used_usd
        credits = (after - before) / TRIAL_USD_PER_CREDIT
        assert credits <= stated[job.notebook], (
            f"{job.notebook} spent {credits} credits on Trial; "
            f"the course map says {stated[job.notebook]}"
        )
        before = after


def test_every_checkpoint_and_solution_is_on_track(course: list[Job]) -> None:
    """Checkpoints in the lessons and in the challenge solutions check the answers the
    solutions state (e.g. 06's 444 posts per brand): none may be off track, on Trial too."""
    for job in course:
        outputs = job.results[0].outputs
        off = [text[:300] for text in outputs if "✗ Not yet" in text]
        assert not off, f"{job.notebook}: {off}"
        assert any("✓ On track" in text for text in outputs), job.notebook
