"""How long each lesson takes a learner, modelled from the notebook itself.

    python scripts/lesson_times.py            # print each lesson's modelled minutes
    python scripts/lesson_times.py --measure  # re-execute every lesson (default speed, fixed
                                              # date, empty ledger) and store its run time
    python scripts/lesson_times.py --write    # put the times on the lesson cards, the course
                                              # map and the instructor notes

The times on the lesson cards and in the course map (``notebooks/README.md``) are this
model's output (``tests/test_course_times.py`` checks that they agree). They are **modelled,
not observed with learners**: docs/teaching.md says how to report real timings.

The model (every figure below is an assumption, stated so that it can be argued with):

- **Teaching** = reading the lesson's prose at :data:`PROSE_WPM` words a minute, plus per
  code cell :data:`CELL_MINUTES` (run it, look at what it did) and its code read at
  :data:`CODE_LINES_PER_MINUTE`, plus its text output read at
  :data:`OUTPUT_LINES_PER_MINUTE` and :data:`FIGURE_MINUTES` per chart, plus the lesson's
  measured execution time (``notebooks/lesson-times.json``, from ``--measure``).
- **Exercises** = per challenge: reading its statement and its solution's prose, and
  writing the solution's code at :data:`SOLUTION_MINUTES_PER_LINE` per line (its
  checkpoints, which check the stated answer for the tests, left out), at least
  :data:`MIN_CHALLENGE_MINUTES`; per "Your turn" section (hand coding): its prose, plus
  :data:`CODE_ONE_POST_MINUTES` for every post it prints to code, plus
  :data:`DISCUSS_MINUTES` to compare codes with a partner.
- Each part is rounded up to a multiple of 5 minutes; the total is their sum.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS_DIR = ROOT / "notebooks"
MEASURED = NOTEBOOKS_DIR / "lesson-times.json"

PROSE_WPM = 120
"""Careful reading of instructional prose: about half the 238 words a minute adults read
non-fiction silently (Brysbaert 2019, J. Memory and Language 109), since learners reread
and relate the text to the code."""
CELL_MINUTES = 0.5
CODE_LINES_PER_MINUTE = 6
OUTPUT_LINES_PER_MINUTE = 15
FIGURE_MINUTES = 0.5
SOLUTION_MINUTES_PER_LINE = 1.5
"""Writing, running and fixing a line of pandas as a learner, the solution's length being
the measure of the work."""
MIN_CHALLENGE_MINUTES = 5
CODE_ONE_POST_MINUTES = 1.0
DISCUSS_MINUTES = 5
ROUND_TO = 5

_CHALLENGE = re.compile(r"^## Challenge \d+:", re.M)
_YOUR_TURN = re.compile(r"^## Your turn", re.M)
_SECTION = re.compile(r"^## ", re.M)
_FENCED = re.compile(r"```.*?```", re.S)
_WORD = re.compile(r"[A-Za-z0-9À-ÿ'’-]+")


@dataclass(frozen=True)
class LessonTime:
    """A lesson's modelled minutes: teaching and exercises (each rounded up to 5)."""

    teaching: int
    exercises: int

    @property
    def total(self) -> int:
        return self.teaching + self.exercises


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _words(markdown: str) -> int:
    return len(_WORD.findall(_FENCED.sub(" ", markdown)))


def _code_lines(code: str) -> int:
    return sum(1 for line in code.splitlines() if line.strip() and line.strip() != "#")


def _without_checkpoints(code: str) -> str:
    """``code`` without its ``checkpoint(...)`` calls: they check a solution's stated answer
    for the tests; a learner does not write them."""
    kept, depth = [], 0
    for line in code.splitlines():
        if depth == 0 and line.lstrip().startswith("checkpoint("):
            depth = line.count("(") - line.count(")")
            continue
        if depth > 0:
            depth += line.count("(") - line.count(")")
            continue
        kept.append(line)
    return "\n".join(kept)


def _output_minutes(cell: dict[str, Any]) -> float:
    minutes = 0.0
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/png" in data:
            minutes += FIGURE_MINUTES
            continue
        text = output.get("text") or data.get("text/plain") or ""
        lines = len(("".join(text) if isinstance(text, list) else text).splitlines())
        minutes += lines / OUTPUT_LINES_PER_MINUTE
    return minutes


def _round_up(minutes: float) -> int:
    return ROUND_TO * math.ceil(minutes / ROUND_TO)


def model(notebook: dict[str, Any], execution_seconds: float) -> LessonTime:
    """The modelled teaching and exercise minutes of ``notebook`` (see the module doc)."""
    teaching = execution_seconds / 60
    exercises = 0.0
    part = "teaching"
    for cell in notebook["cells"]:
        text = _source(cell)
        section = _SECTION.search(text) if cell["cell_type"] == "markdown" else None
        if section:  # a cell counts with the section its heading opens
            heading = text[section.start() :]
            if _CHALLENGE.match(heading):
                part = "challenge"
            elif _YOUR_TURN.match(heading):
                part = "your turn"
                exercises += DISCUSS_MINUTES
            else:
                part = "teaching"
        if cell["cell_type"] == "markdown":
            reading = _words(text) / PROSE_WPM
            if part == "teaching":
                teaching += reading
                continue
            exercises += reading
            if part == "challenge" and "<summary>Solution</summary>" in text:
                code = "".join(_FENCED.findall(text))
                code = _without_checkpoints(code.replace("```python", "").replace("```", ""))
                writing = _code_lines(code)
                exercises += max(MIN_CHALLENGE_MINUTES, writing * SOLUTION_MINUTES_PER_LINE)
            continue
        if _source(cell).strip() == "# Your answer here":
            continue
        running = CELL_MINUTES + _code_lines(text) / CODE_LINES_PER_MINUTE
        if part == "your turn":
            exercises += running
            if "checkpoint(" not in text:  # the cell that prints the posts to code
                printed = sum(
                    len("".join(o.get("text", "")).splitlines()) for o in cell.get("outputs", [])
                )
                exercises += printed * CODE_ONE_POST_MINUTES
            continue
        teaching += running + _output_minutes(cell)
    return LessonTime(_round_up(teaching), _round_up(exercises))


def measured_seconds() -> dict[str, float]:
    """Each lesson's stored execution time (seconds), from ``--measure``."""
    data: dict[str, Any] = json.loads(MEASURED.read_text(encoding="utf-8"))
    return {name: float(seconds) for name, seconds in data["execution_seconds"].items()}


def lesson_times() -> dict[str, LessonTime]:
    """Every lesson's modelled time, by notebook file name."""
    seconds = measured_seconds()
    return {
        path.name: model(json.loads(path.read_text(encoding="utf-8")), seconds[path.name])
        for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"))
    }


def measure() -> dict[str, float]:
    """Execute every lesson as a learner's kernel would (default speed, the notebooks' fixed
    date, an empty ledger each) and return the seconds its cells took to run."""
    import nbformat
    from nbclient import NotebookClient

    from rdskit.sandbox.runtime.clock import ENV_TODAY, NOTEBOOK_TODAY

    found = {}
    for path in sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        env = {
            **os.environ,
            ENV_TODAY: NOTEBOOK_TODAY,
            "RDSKIT_CACHE_DIR": tempfile.mkdtemp(),
            "MPLBACKEND": "agg",
        }
        env.pop("RDSKIT_SANDBOX_SPEED", None)
        client = NotebookClient(
            notebook,
            timeout=1200,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
        )
        with client.setup_kernel(env=env):
            started = time.perf_counter()
            for index, cell in enumerate(notebook.cells):
                client.execute_cell(cell, index)
            found[path.name] = round(time.perf_counter() - started, 1)
        print(f"{path.name}: {found[path.name]} s", file=sys.stderr)
    return found


CARD_TIME = re.compile(r"\*\*Time\.\*\* about \d+ minutes \(\d+ teaching, \d+ exercises\)")
MAP_ROW = re.compile(r"^(\| (?P<number>\d\d) \| [^\n]*?\| )\d+( min \| \d+ \|)$", re.M)
NOTES_TIME = re.compile(
    r"^(## (?P<number>\d\d) · [^\n]*\n\n)\*\*Timing\.\*\* about \d+ minutes: "
    r"\d+ teaching, \d+ exercises",
    re.M,
)


def card_time(minutes: LessonTime) -> str:
    return (
        f"**Time.** about {minutes.total} minutes "
        f"({minutes.teaching} teaching, {minutes.exercises} exercises)"
    )


def notes_time(minutes: LessonTime) -> str:
    return (
        f"**Timing.** about {minutes.total} minutes: "
        f"{minutes.teaching} teaching, {minutes.exercises} exercises"
    )


def write(times: dict[str, LessonTime]) -> None:
    """Put the modelled times on every lesson card, the course map and the instructor notes."""
    import nbformat

    by_number = {name[:2]: minutes for name, minutes in times.items()}
    for name, minutes in times.items():
        notebook = nbformat.read(NOTEBOOKS_DIR / name, as_version=4)
        card = notebook.cells[0]
        card.source = CARD_TIME.sub(card_time(minutes), card.source)
        nbformat.write(notebook, NOTEBOOKS_DIR / name)
    course_map = NOTEBOOKS_DIR / "README.md"
    course_map.write_text(
        MAP_ROW.sub(
            lambda m: f"{m[1]}{by_number[m['number']].total}{m[3]}",
            course_map.read_text(encoding="utf-8"),
        ),
        encoding="utf-8",
    )
    notes = NOTEBOOKS_DIR / "instructors.md"
    notes.write_text(
        NOTES_TIME.sub(
            lambda m: m[1] + notes_time(by_number[m["number"]]),
            notes.read_text(encoding="utf-8"),
        ),
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help="re-execute and store run times")
    parser.add_argument(
        "--write", action="store_true", help="put the times on the cards, map and notes"
    )
    args = parser.parse_args(argv)
    if args.measure:
        record = {
            "what": "seconds each lesson's code cells took to execute, in order, in a fresh "
            "kernel at the sandbox's default speed (scripts/lesson_times.py --measure)",
            "measured_at": time.strftime("%Y-%m-%d", time.gmtime()),
            "execution_seconds": measure(),
        }
        MEASURED.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    times = lesson_times()
    if args.write:
        write(times)
    for name, minutes in times.items():
        print(f"{name}: {card_time(minutes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
