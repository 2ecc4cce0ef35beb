"""The tutorial notebooks as committed: executed, structured as lessons, keyless, linked.

``pytest --nbval`` (on by default, see pyproject.toml) re-runs every notebook and compares
its outputs; these checks cover what that cannot see: that outputs were committed at all
(a notebook without outputs passes nbval vacuously), the lesson structure every notebook
shares (questions, objectives, prerequisites, teaching and exercise time, what the sandbox
cannot teach, checkpoints, challenges with solutions, key points), statistics taught right
(no "overlapping intervals" rule), short outputs, how to leave the sandbox, no API key
anywhere in the file, the kernelspec nbval falls back to, and the course's pages.
``tests/test_notebook_reruns.py`` runs each notebook twice and on every plan, challenge
solutions included; ``tests/test_course_on_trial.py`` runs the course in order on Trial.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
EXPECTED = [
    "01-quickstart.ipynb",
    "02-ask-and-references.ipynb",
    "03-audiences.ipynb",
    "04-custom-parameters-and-patterns.ipynb",
    "05-tracking-agents.ipynb",
    "06-credits-and-usage.ipynb",
    "07-research-workflow.ipynb",
    "08-designing-a-collection.ipynb",
    "09-validating-labels.ipynb",
    "10-ethics-and-law.ipynb",
]
# Labs only an emulator allows: run by nbval like the lessons and held to the same checks
# of outputs, checkpoints, keys and key points, but no lesson card, challenges, re-runs or
# Trial wallet (each lab starts its own sandboxes).
LABS = ["lab-coverage.ipynb"]
NOTEBOOKS = EXPECTED + LABS
KEY = re.compile(r"bz_(live|test)_[0-9a-fA-F]{32}")
MARKER = re.compile(r"NBVAL_\w+")
CHALLENGE = re.compile(r"## Challenge (\d+): \S")
MAX_LINES = 25
MAX_ROWS = 10
LINK = re.compile(r"\]\((?P<target>[^)#\s]+\.(ipynb|md))(#[^)]*)?\)")
TIME = re.compile(
    r"\*\*Time\.\*\* about (?P<total>\d+) minutes "
    r"\((?P<teaching>\d+) teaching, (?P<exercises>\d+) exercises\)"
)
OVERLAP_RULE = re.compile(
    r"(overlap\w*|closer than their margins)[^.]{0,80}"
    r"\b(no|not)\b[^.]{0,40}(differen|separat|evidence)"
)


def _load(name: str) -> dict[str, Any]:
    notebook: dict[str, Any] = json.loads((NOTEBOOKS_DIR / name).read_text(encoding="utf-8"))
    return notebook


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _text_of(cell: dict[str, Any]) -> str:
    """What a code cell printed or displayed as text."""
    texts = []
    for output in cell.get("outputs", []):
        text = output.get("text") or output.get("data", {}).get("text/plain") or ""
        texts.append("".join(text) if isinstance(text, list) else text)
    return "\n".join(texts)


def _code_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_the_tutorials_are_there() -> None:
    assert sorted(p.name for p in NOTEBOOKS_DIR.glob("*.ipynb")) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_executed_in_order_with_outputs_and_no_errors(name: str) -> None:
    cells = _code_cells(_load(name))
    assert cells, f"{name} has no code cell"
    counts = [cell.get("execution_count") for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{name}: execution counts {counts}; execute it top to bottom in a fresh kernel "
        "(jupyter nbconvert --to notebook --execute --inplace)"
    )
    outputs = [output for cell in cells for output in cell.get("outputs", [])]
    assert outputs, f"{name} was committed without outputs"
    errors = [o.get("ename") for o in outputs if o.get("output_type") == "error"]
    assert not errors, f"{name} has error outputs: {errors}"
    stderr = [o.get("text") for o in outputs if o.get("name") == "stderr"]
    assert not stderr, f"{name} writes to stderr (warnings?): {stderr}"


@pytest.mark.parametrize("name", EXPECTED)
def test_first_cell_is_a_lesson_card(name: str) -> None:
    first = _load(name)["cells"][0]
    text = _source(first)
    assert first["cell_type"] == "markdown"
    assert text.startswith(f"# {name[:2]} · "), f"{name}: the title is '# {name[:2]} · Title'"
    heads = ("**Questions.**", "**Objectives.**", "**Prerequisites.**", "**Time.**")
    parts = [text.find(part) for part in heads]
    assert -1 not in parts and parts == sorted(parts), (
        f"{name}: the first cell needs Questions, Objectives, Prerequisites and Time, in order"
    )
    questions = [line for line in text[parts[0] : parts[1]].splitlines() if line.startswith("- ")]
    assert 1 <= len(questions) <= 3 and all(q.endswith("?") for q in questions), (
        f"{name}: 1 to 3 questions, each ending with '?'"
    )
    objectives = text[parts[1] : parts[2]]
    bullets = [line for line in objectives.splitlines() if line.lstrip().startswith("- ")]
    assert 2 <= len(bullets) <= 4, f"{name}: {len(bullets)} objectives (2 to 4)"
    time = TIME.search(text)
    assert time, f"{name}: '**Time.** about N minutes (T teaching, E exercises)'"
    assert int(time["total"]) == int(time["teaching"]) + int(time["exercises"]), name
    caveat = text.partition("**About the sandbox.**")[2].split("\n\n")[0]
    assert len(caveat) > 80, f"{name}: say what the sandbox emulates and what it cannot teach"
    assert "README.md#using-a-real-key" in text, f"{name}: link to the course map's real-key part"
    for jargon in ("RDSKIT_BASE_URL", "gateway", "server extension"):
        assert jargon not in text, f"{name}: {jargon!r} belongs in the course map, not here"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_checkpoints_are_there_and_on_track(name: str) -> None:
    checkpoints = [c for c in _code_cells(_load(name)) if "checkpoint(" in _source(c)]
    assert len(checkpoints) >= 2, f"{name}: {len(checkpoints)} checkpoint cells (at least 2)"
    for cell in checkpoints:
        said = _text_of(cell)
        assert "✓ On track" in said, f"{name}: a checkpoint printed no verdict: {said[:200]!r}"
        assert "✗ Not yet" not in said, f"{name}: a committed checkpoint is off track: {said!r}"


@pytest.mark.parametrize("name", EXPECTED)
def test_two_or_three_challenges_each_with_a_collapsed_solution(name: str) -> None:
    cells = _load(name)["cells"]
    starts = [i for i, c in enumerate(cells) if CHALLENGE.match(_source(c))]
    assert 2 <= len(starts) <= 3, f"{name}: {len(starts)} challenges (2 or 3)"
    numbers = [int(CHALLENGE.match(_source(cells[i])).group(1)) for i in starts]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(starts) + 1)), f"{name}: challenges numbered {numbers}"
    for i in starts:
        answer, solution = cells[i + 1], cells[i + 2]
        assert answer["cell_type"] == "code" and _source(answer).strip() == "# Your answer here"
        assert solution["cell_type"] == "markdown", f"{name}: challenge at cell {i}"
        text = _source(solution)
        assert text.startswith("<details><summary>Solution</summary>"), f"{name}: cell {i + 2}"
        assert "```python" in text and text.rstrip().endswith("</details>"), f"{name}: {i + 2}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_ends_with_key_points(name: str) -> None:
    markdown = [c for c in _load(name)["cells"] if c["cell_type"] == "markdown"]
    closing = [c for c in markdown[-3:] if _source(c).startswith("## Key points")]
    assert closing, f"{name}: one of the last markdown cells is '## Key points'"
    bullets = [line for line in _source(closing[0]).splitlines() if line.startswith("- ")]
    assert 3 <= len(bullets) <= 5, f"{name}: {len(bullets)} key points (3 to 5)"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_outputs_are_short(name: str) -> None:
    for number, cell in enumerate(_code_cells(_load(name)), start=1):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            text = output.get("text") or data.get("text/plain") or ""
            text = "".join(text) if isinstance(text, list) else text
            # an %%ask answer's provenance trailer (asked, scope, chat, charge, when, cited)
            # is the record of the answer, not what the lesson prints: not counted
            lines = len(text.split("\n\nasked: ", 1)[0].splitlines())
            assert lines <= MAX_LINES, f"{name}: code cell {number} prints {lines} lines"
            html = data.get("text/html", "")
            body = ("".join(html) if isinstance(html, list) else html).partition("<tbody")[2]
            rows = body.count("<tr")
            assert rows <= MAX_ROWS, f"{name}: code cell {number} shows a table of {rows} rows"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_api_key_anywhere(name: str) -> None:
    raw = (NOTEBOOKS_DIR / name).read_text(encoding="utf-8")
    found = KEY.search(raw)
    assert found is None, f"{name} contains an API key at offset {found.start() if found else 0}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_kernelspec_is_python3(name: str) -> None:
    kernelspec = _load(name)["metadata"].get("kernelspec", {})
    assert kernelspec.get("name") == "python3"
    assert kernelspec.get("language") == "python"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_ignored_outputs_are_marked_so_nbval_sees_it_and_say_why(name: str) -> None:
    """nbval only honours a marker alone on its comment line (anything after it turns the
    marker into a plain comment, silently); the next line must say why."""
    for cell in _code_cells(_load(name)):
        lines = _source(cell).splitlines()
        for number, line in enumerate(lines):
            if not MARKER.search(line):
                continue
            assert line.strip() == "# NBVAL_IGNORE_OUTPUT", (
                f"{name}: {line.strip()!r} is not a marker nbval reads; only "
                "'# NBVAL_IGNORE_OUTPUT' alone on its line is used in these notebooks"
            )
            reason = lines[number + 1].strip() if number + 1 < len(lines) else ""
            assert reason.startswith("#") and len(reason) > 20, (
                f"{name}: the line after NBVAL_IGNORE_OUTPUT must be a comment saying why"
            )


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_links_to_other_notebooks_resolve(name: str) -> None:
    for cell in _load(name)["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for match in LINK.finditer(_source(cell)):
            target = match.group("target")
            assert (NOTEBOOKS_DIR / target).is_file(), f"{name} links to missing {target}"


COURSE_ROW = re.compile(
    r"^\| (?P<number>\d\d) \| \[(?P<title>[^\]]+)\]\((?P<file>[^)]+)\) \|"
    r"[^|]+\| (?P<minutes>\d+) min \| (?P<credits>\d+) \|$",
    re.M,
)


def test_the_course_map_lists_every_lesson_as_it_is() -> None:
    """notebooks/README.md (the learners' course map): one row per lesson, whose title and
    time are the lesson's own, in order."""
    rows = list(COURSE_ROW.finditer((NOTEBOOKS_DIR / "README.md").read_text(encoding="utf-8")))
    assert [row["file"] for row in rows] == EXPECTED
    for row in rows:
        card = _source(_load(row["file"])["cells"][0])
        assert card.splitlines()[0] == f"# {row['number']} · {row['title']}", row["file"]
        assert f"**Time.** about {row['minutes']} minutes" in card, row["file"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_overlapping_intervals_rule(name: str) -> None:
    """Overlapping intervals are not a test: comparisons are read from the difference and its
    interval. No lesson may teach the overlap rule, in prose, a solution or a comment."""
    for cell in _load(name)["cells"]:
        text = " ".join(_source(cell).split()).lower()
        found = OVERLAP_RULE.search(text)
        allowed = found and "do not show" in text[found.start() : found.end() + 40]
        assert not found or allowed, f"{name}: teaches the overlap rule: {found and found[0]!r}"


def test_the_course_pages_are_there() -> None:
    """The lesson standard beyond the notebooks: setup, glossary, instructor notes per lesson,
    a final project with a rubric, learner profiles and a content licence."""
    readme = (NOTEBOOKS_DIR / "README.md").read_text(encoding="utf-8")
    for heading in ("## Who this course is for", "## Licence", "## The lessons"):
        assert heading in readme, heading
    assert "CC BY 4.0" in readme
    for page, headings in {
        "setup.md": ("## On your own computer", "## A class on JupyterHub", "## With a real key"),
        "glossary.md": ("**kappa**", "**pseudonymisation**", "**share of voice**"),
        "final-project.md": ("## Rubric", "## What to hand in"),
        "instructors.md": tuple(f"## {n[:2]} · " for n in EXPECTED),
    }.items():
        text = (NOTEBOOKS_DIR / page).read_text(encoding="utf-8")
        for heading in headings:
            assert heading in text, f"{page}: {heading}"
    notes = (NOTEBOOKS_DIR / "instructors.md").read_text(encoding="utf-8")
    for section in notes.split("\n## ")[1:]:
        assert "Misconceptions" in section and "Timing" in section, section[:40]
