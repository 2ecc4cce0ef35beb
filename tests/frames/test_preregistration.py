"""A pre-registered plan in the study file, and methods() naming each deviation from it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest

from rdskit.frames import mentions_frame
from rdskit.frames.preregistration import Plan, deviations, plan_sentences
from rdskit.frames.provenance import add_step
from rdskit.study import Study, StudyFileError
from rdskit.study.model import dump_study, parse_study

PLAN = {
    "registered": "2026-11-01",
    "hypotheses": [{"id": "H1", "statement": "Reddit is more negative than TikTok."}],
    "compare_by": "source",
    "posts": 3,
    "pseudonymise": True,
}
STUDY = {
    "title": "T",
    "creators": [{"name": "A"}],
    "datasets": [{"name": "d", "query": "rent control", "sources": ["reddit"], "count": 5}],
    "plan": PLAN,
}


def _frame(n: int = 4, ads: int = 0) -> pd.DataFrame:
    rows = [
        {"source": "reddit" if i % 2 else "tiktok", "id": str(i), "created_at": 1767225600,
         "content_type": "ad" if i < ads else "organic", "language": "en" if i % 2 else "es"}
        for i in range(n)
    ]  # fmt: skip
    return mentions_frame(rows)


def test_the_plan_is_written_into_the_study_file_and_read_back() -> None:
    study = Study.model_validate(STUDY)
    text = dump_study(study)
    assert "[plan]" in text and 'registered = "2026-11-01"' in text
    assert parse_study(tomllib.loads(text)) == study
    assert study.plan is not None and study.plan.hypotheses[0].id == "H1"


def test_the_documented_plan_is_read() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "studies.md"
    section = docs.read_text(encoding="utf-8").split("## Pre-registration", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    head = dump_study(Study.model_validate({k: v for k, v in STUDY.items() if k != "plan"}))
    study = parse_study(tomllib.loads(head + "\n" + block))
    assert study.plan is not None and study.plan.posts == 300
    assert study.plan.compare_by == "source" and study.plan.pseudonymise


def test_a_typo_in_the_plan_is_one_error_naming_the_field() -> None:
    bad = {**STUDY, "plan": {**PLAN, "hypotheses": [{"id": "H1", "statment": "x"}]}}
    with pytest.raises(StudyFileError, match=r"plan\.hypotheses\[0\]"):
        parse_study(bad)


def test_a_plan_followed_says_so() -> None:
    frame = add_step(_frame(), "pseudonymise", {})
    frame.rds.compare(by="source")
    assert deviations(frame, Plan.model_validate(PLAN)) == []
    text = frame.rds.methods(plan=Plan.model_validate(PLAN)).text
    assert "registered on 2026-11-01 (H1: Reddit is more negative than TikTok)" in text
    assert "The analysis followed the plan (filters, test and sample size)." in text


def test_each_deviation_is_named_with_what_was_planned_and_done() -> None:
    frame = _frame(n=2, ads=1)
    frame.rds.compare(by="source", confidence=0.9)
    frame.rds.compare(by="language")
    found = [d.sentence() for d in deviations(frame, Plan.model_validate(PLAN))]
    assert found == [
        "(filter) planned: ads left out; done: 1 ad kept",
        "(test) planned: groups by source compared at 95%; done: compared at 90%",
        "(test) planned: groups by source compared at 95%; done: groups by language "
        "compared (unplanned)",
        "(sample size) planned: at least 3 posts; done: 2 posts",
        "(pseudonymisation) planned: authors pseudonymised; done: not pseudonymised",
    ]
    assert plan_sentences(frame, Plan.model_validate(PLAN))[1].startswith(
        "Deviations from the plan (5): (filter)"
    )


def test_ads_left_out_against_a_plan_that_kept_them_and_a_test_not_run() -> None:
    plan = Plan.model_validate({**PLAN, "exclude_ads": False, "posts": None})
    organic = add_step(_frame(ads=1).rds.organic(), "pseudonymise", {})
    found = [d.sentence() for d in deviations(organic, plan)]
    assert found == [
        "(filter) planned: ads kept; done: 1 ad left out",
        "(test) planned: groups by source compared at 95%; done: not run",
    ]
