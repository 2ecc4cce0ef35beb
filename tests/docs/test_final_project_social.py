"""The final project's social-topic option runs as written on the sandbox: collect,
enrich, code against the emulator's truth, validate, compare, methods with the
pre-registered plan, the data-management note and the export (notebooks/final-project.md).

The recipe runs unchanged in a new Python process on its own embedded sandbox (real HTTP);
the checks below are appended after it, so they see its variables."""

from __future__ import annotations

import re
from pathlib import Path

from page_recipes import run_recipe

PROJECT = Path(__file__).resolve().parents[2] / "notebooks" / "final-project.md"
SECTION = "## Option: a social topic"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

CHECKS = """
# --- the test's checks, after the recipe as written ---
from pathlib import Path
import pandas as pd

texts = " ".join(posts["text"].astype(str))
assert not any(line in texts for line in ("The delivery is", "customer service", "packaging"))
assert "asthma" in texts or "chronic illness" in texts  # data concerning health
assert set(posts["true_stance"]) == {"support", "oppose", "none"}, set(posts["true_stance"])
assert posts["true_sentiment"].notna().all() and len(posts) >= 150
assert check.n >= 25 and comparison.sentiment["corrected"].notna().all()
stated = posts.rds.methods(plan=study.plan).text
assert "registered on 2026-11-01 (H1: Reddit's posts are more negative than TikTok's)" in stated
assert "The analysis followed the plan" in stated, stated
assert "Expected. A condition of Art. 9(2)" in note.text
assert "to complete" not in note.text, note.text
exported = pd.read_excel("flu-vaccine-side-effects.xlsx", sheet_name="posts")
assert len(exported) == len(posts)
# A deviation is named: an unplanned comparison, then fewer posts than planned.
posts.rds.compare(by="language")
fewer = posts.head(100)
stated = fewer.rds.methods(plan=study.plan).text
unplanned = "done: groups by language compared (unplanned)"
assert "(test) planned: groups by source compared at 95%; " + unplanned in stated, stated
assert "(sample size) planned: at least 150 posts; done: 100 posts" in stated, stated
assert "(filter) planned: every post loaded analysed" in stated, stated
print("CHECKS PASSED")
"""


def recipe() -> str:
    section = PROJECT.read_text(encoding="utf-8").split(SECTION, 1)[1]
    (block,) = FENCE.findall(section)
    return block


def test_the_social_topic_option_runs_end_to_end(tmp_path: Path) -> None:
    done = run_recipe(recipe() + CHECKS, tmp_path, timeout=600, RDSKIT_SANDBOX_TODAY="2026-11-20")
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.rstrip().endswith("CHECKS PASSED"), done.stdout[-2000:]
    assert "were corrected" in done.stdout  # the comparison's shares, with the validation
