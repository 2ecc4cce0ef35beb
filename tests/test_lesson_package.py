"""Lesson 08's shared package is re-collected by somebody else (issue 38, item 5): the
lesson runs in a kernel as a student runs it (its code cells and challenge solutions, on
the notebooks' fixed date), the ids-only package it writes is handed over, and another
user on a brand-new sandbox (another database, another HOME) re-collects it with the CLI,
as docs/studies.md says, after that sandbox's admin deleted some of its posts. The
attrition report's counts per source are the truth; nothing of the learner's names is in
the package."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from notebook_runs import Job, run_all
from rdskit.sandbox import start
from rdskit.sandbox.runtime.clock import NOTEBOOK_TODAY

HAND_OVER = """
import os, shutil
shutil.copytree(folder, os.environ["RDSKIT_TEST_PACKAGE"])
"""


@pytest.mark.timeout(900)  # a kernel runs the whole lesson, then a second sandbox starts
def test_lesson_08s_package_is_re_collected_on_a_brand_new_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed = tmp_path / "package"
    monkeypatch.setenv("RDSKIT_TEST_PACKAGE", str(handed))  # the kernel gets this environment
    job = Job("08-designing-a-collection.ipynb", "Pro", (1,), tmp_path / "learner")
    job.after = [HAND_OVER]
    run_all([job])
    assert job.results[0].error is None, job.results[0].error
    ids = pd.read_csv(handed / "data" / "ids.csv", dtype=str).drop_duplicates(["source", "id"])
    assert len(ids) > 0 and set(ids.columns) >= {"source", "id", "url"}
    gone = ids.groupby("source").head(1)  # one post of each source deleted

    home = tmp_path / "home-b"
    home.mkdir()
    today = date.fromisoformat(NOTEBOOK_TODAY)
    with start(db=tmp_path / "other.db", speed=500, rate_limit=10_000, today=today) as other:
        assert other.admin.change_posts(gone["url"].tolist(), deleted=True) == len(gone)
        user = other.admin.create_account(plan="Pro")
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("RDSKIT_")},
            "HOME": str(home),
            "RDSKIT_API_KEY": user.api_key,
            "RDSKIT_BASE_URL": other.url,
            "PYTHONPATH": os.pathsep.join(sys.path),
        }
        done = subprocess.run(
            [sys.executable, "-m", "rdskit", "study", "rehydrate", str(handed)],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr
    by_source = pd.read_csv(handed / "attrition" / "attrition-by-source.csv").set_index("source")
    expected = ids.groupby("source").size()
    assert by_source["posts"].to_dict() == expected.to_dict()
    assert by_source["missing"].to_dict() == {source: 1 for source in expected.index}
    assert by_source["found"].to_dict() == (expected - 1).to_dict()
    assert f"{len(ids) - len(gone)} ({(len(ids) - len(gone)) / len(ids):.1%})" in done.stdout
