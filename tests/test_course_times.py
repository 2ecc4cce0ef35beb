"""Lesson times come from one stated model (``scripts/lesson_times.py``), and every place that
states them agrees with it: the lesson cards, the course map and the instructor notes.

The model reads the notebook (prose words, code lines, outputs, challenges, the hand-coding
section) and the execution times measured by ``scripts/lesson_times.py --measure``
(``notebooks/lesson-times.json``). It is a model, not an observation of learners; docs/teaching.md
says so and how to report real timings.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(path.name for path in NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lesson_times", ROOT / "scripts/lesson_times.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lesson_times"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


lesson_times = _script()


def _load(name: str) -> dict[str, Any]:
    notebook: dict[str, Any] = json.loads((NOTEBOOKS_DIR / name).read_text(encoding="utf-8"))
    return notebook


def test_every_lesson_has_a_measured_execution_time() -> None:
    measured = lesson_times.measured_seconds()
    assert sorted(measured) == NOTEBOOKS
    assert all(0 < seconds < 1200 for seconds in measured.values()), measured


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_lesson_card_states_the_modelled_time(name: str) -> None:
    minutes = lesson_times.lesson_times()[name]
    card = "".join(_load(name)["cells"][0]["source"])
    assert lesson_times.card_time(minutes) in card, (
        f"{name}: the card's time is not the model's ({lesson_times.card_time(minutes)}); "
        "run python scripts/lesson_times.py --write"
    )


def test_the_course_map_and_the_instructor_notes_state_the_modelled_times() -> None:
    times = lesson_times.lesson_times()
    course_map = (NOTEBOOKS_DIR / "README.md").read_text(encoding="utf-8")
    notes = (NOTEBOOKS_DIR / "instructors.md").read_text(encoding="utf-8")
    rows = {m["number"]: m[0] for m in lesson_times.MAP_ROW.finditer(course_map)}
    timings = {m["number"]: m[0] for m in lesson_times.NOTES_TIME.finditer(notes)}
    assert sorted(rows) == sorted(timings) == [name[:2] for name in NOTEBOOKS]
    for name, minutes in times.items():
        assert f"| {minutes.total} min |" in rows[name[:2]], (name, rows[name[:2]])
        assert lesson_times.notes_time(minutes) in timings[name[:2]], name
    other = re.findall(r"\b\d+ min(?:utes)?\b", lesson_times.NOTES_TIME.sub("", notes))
    assert not other, f"instructors.md states times the model does not make: {other}"


def _cell(kind: str, source: str, outputs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        cell["outputs"] = outputs or []
    return cell


def test_the_model_adds_what_it_says() -> None:
    """A hand-computed lesson: 240 words of prose, one 6-line cell printing 15 lines, 90 s of
    execution; a challenge of 120 words with a 4-line solution and a checkpoint; a hand-coding
    section printing 10 posts."""
    words = " ".join(["word"] * 240)
    printed = [{"output_type": "stream", "name": "stdout", "text": "x\n" * 15}]
    ten = "post\n" * 10
    notebook = {
        "cells": [
            _cell("markdown", f"# 01 · T\n\n{words}"),
            _cell("code", "\n".join(["a = 1"] * 6), printed),
            _cell("markdown", "## Challenge 1: a\n\n" + " ".join(["w"] * 60)),
            _cell("code", "# Your answer here"),
            _cell(
                "markdown",
                "<details><summary>Solution</summary>\n\n```python\n"
                + "b = 2\n" * 4
                + 'checkpoint(\n    b == 2,\n    "two",\n)\n```\n\n'
                + " ".join(["w"] * 52)
                + "\n</details>",
            ),
            _cell("markdown", "## Your turn: code\n\n" + " ".join(["w"] * 120)),
            _cell("code", "for t in texts: print(t)", [{"output_type": "stream", "text": ten}]),
        ]
    }
    # teaching: (240 + "01", "T") / 120 = 2.02, cell 0.5 + 6/6, output 15/15, 90 s = 1.5
    #   -> 6.02 -> 10
    # exercises: challenge 63 words / 120 = 0.53, solution 57 words ("details", "summary",
    #   "Solution", "summary", 52, "details") / 120 = 0.48, writing max(5, 4 x 1.5) = 6 (the
    #   checkpoint left out); your turn 5 + 123/120 + 0.5 + 1/6 + 10 posts x 1 = 16.69
    #   -> 23.69 -> 25
    result = lesson_times.model(notebook, execution_seconds=90)
    assert (result.teaching, result.exercises, result.total) == (10, 25, 35)
    fewer = {"cells": notebook["cells"][:2]}
    assert lesson_times.model(fewer, execution_seconds=90) == lesson_times.LessonTime(10, 0)
    slower = lesson_times.model(fewer, execution_seconds=600)
    assert slower.teaching == 15  # 4.5 + 10 minutes of execution
