"""The README's Python examples run as written, in order, as a new user would run them."""

from __future__ import annotations

import re
from pathlib import Path

from page_recipes import run_recipe

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks() -> list[str]:
    return FENCE.findall(README.read_text(encoding="utf-8"))


def test_readme_has_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_section = text.split("\n## ", 2)[1]
    assert "rdskit demo" in first_section
    assert "```bash\nbash scripts/test\n```" in first_section
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.rstrip().splitlines()[-1] == "bash scripts/test"  # exactly the README's command
    script = (README.parent / "scripts" / "test").read_text(encoding="utf-8")
    # The script does the whole set-up: the dev install, Debian's chromium, then pytest.
    assert 'pip install --quiet -e ".[sandbox,jupyter,research,teaching,mcp]" --group dev' in script
    assert 'pip install --quiet --upgrade "pip>=25.1"' in script  # --group needs pip 25.1
    assert "apt-get install" in script and "chromium" in script
    assert "for tool in node npm" in script  # the editable install builds the extension
    # The floors check is a test of the suite, so the README's command (and CI) runs it.
    assert (README.parent / "tests" / "test_min_versions.py").exists()
    assert script.rstrip().splitlines()[-1] == 'exec python -m pytest "$@"'


def test_readme_examples_run(tmp_path: Path) -> None:
    blocks = python_blocks()
    assert len(blocks) >= 5, "the README lost its client examples"
    done = run_recipe("\n".join(blocks), tmp_path, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "completed 120" in out
    assert "dataset_not_found 404" in out
    assert "refused by the client budget" in out
    assert "Oat milk" in out  # the async client sees the dataset made by the sync one
    assert "True ['ids.csv', 'metrics.csv']" in out  # a study collected and packaged
    assert "True True\ninstructions differs for cp_" in out  # safe re-runs: found, reused
    assert "reused turn: True" in out  # the ledger finds the Ask again
    # The research example: the differences table, the methods paragraph it promises and
    # the warning its comment announces.
    assert "group_a group_b  difference" in out and "p_value  n_a  n_b" in out
    assert "Ads were left out before analysis (" in out and "Groups by source were compared" in out
    assert "EstimatedViewsWarning: compare(by='source')" in done.stderr
