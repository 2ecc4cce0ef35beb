"""Every lesson's "Next" link follows the suggested path of the course map, which ends with
the final project: no loop, no lesson left out, and the instructor notes teach the same
order."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PATH_LINE = re.compile(r"\*\*Suggested path\.\*\* ((?:\d\d → )+final project)")


def suggested_path() -> list[str]:
    found = PATH_LINE.search((NOTEBOOKS / "README.md").read_text(encoding="utf-8"))
    assert found, "notebooks/README.md states no **Suggested path.**"
    return found.group(1).split(" → ")


def next_target(notebook: Path) -> str:
    """The first link of the lesson's "Next:" line: a lesson's number or "final project"."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    text = "".join(cells[-1]["source"])
    line = next((x for x in text.splitlines() if x.startswith("Next:")), None)
    assert line, f"{notebook.name}: the last cell has no 'Next:' line"
    target = re.search(r"\]\(([^)#]+)", line)
    assert target, f"{notebook.name}: its 'Next:' line has no link"
    name = target.group(1)
    return "final project" if name == "final-project.md" else name[:2]


def test_the_path_visits_every_lesson_once_and_ends_with_the_project() -> None:
    path = suggested_path()
    lessons = sorted(p.name[:2] for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
    assert sorted(path[:-1]) == lessons and path[-1] == "final project"
    assert path.index("10") == path.index("02") + 1  # ethics right after the first lessons


def test_each_next_link_follows_the_path() -> None:
    path = suggested_path()
    for here, after in itertools.pairwise(path):
        notebook = next(NOTEBOOKS.glob(f"{here}-*.ipynb"))
        assert next_target(notebook) == after, f"{notebook.name} should lead to {after}"


def test_the_instructor_notes_teach_the_same_order() -> None:
    notes = (NOTEBOOKS / "instructors.md").read_text(encoding="utf-8")
    assert " → ".join(suggested_path()[:-1]) in notes


def test_the_lessons_that_teach_its_steps_link_the_social_topic_project() -> None:
    """01 (wordings), 07 (the comparison with the labels' errors), 08 (the study and its
    plan), 09 (the codebook and the truth as a coder) and 10 (special categories) link the
    final project's social-topic option, at an anchor its heading makes."""
    project = (NOTEBOOKS / "final-project.md").read_text(encoding="utf-8")
    heading = next(line for line in project.splitlines() if line.startswith("## Option: a social"))
    anchor = re.sub(r"[^\w\- ]", "", heading[3:].lower()).replace(" ", "-")  # GitHub's slug
    for number in ("01", "07", "08", "09", "10"):
        notebook = next(NOTEBOOKS.glob(f"{number}-*.ipynb"))
        assert f"(final-project.md#{anchor})" in notebook.read_text(encoding="utf-8"), number
