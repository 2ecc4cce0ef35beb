"""Every challenge solution checks the answer its question asks for.

The re-run tests (tests/test_notebook_reruns.py) and the course on one Trial wallet
(tests/test_course_on_trial.py) run each solution after its lesson and fail on a checkpoint
off track; this file makes sure there is a checkpoint to run, and that the solutions the
course review found answering another question (issue 39) check their own one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from notebook_runs import solutions, source

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

# Solutions whose answer is a printed figure or paragraph no property can check without
# quoting it (each says why); every other solution holds a checkpoint.
UNCHECKED = {
    ("05", 1): "the semester's price is the estimate times the cycles: arithmetic on one call",
    ("07", 3): "the answer is the paragraph itself, read against the unfiltered one",
}


def challenges(number: str) -> list[tuple[str, str]]:
    """(question, solution) of each challenge of lesson ``number``, in order."""
    (path,) = NOTEBOOKS.glob(f"{number}-*.ipynb")
    notebook = json.loads(path.read_text(encoding="utf-8"))
    texts = [source(cell) for cell in notebook["cells"]]
    questions = [text for text in texts if text.startswith("## Challenge")]
    answers = solutions(notebook)
    assert len(questions) == len(answers), path.name
    return list(zip(questions, answers, strict=True))


LESSONS = sorted(p.name[:2] for p in NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


@pytest.mark.parametrize("number", LESSONS)
def test_every_solution_checks_its_answer(number: str) -> None:
    for index, (question, answer) in enumerate(challenges(number), start=1):
        if (number, index) in UNCHECKED:
            assert "checkpoint(" not in answer, f"{number} challenge {index} is checked now"
            continue
        assert "checkpoint(" in answer, f"{number} challenge {index}: {question.splitlines()[0]}"


def test_the_solutions_the_review_named_answer_their_own_question() -> None:
    # 03 challenge 3 asks for the difference and its interval, which the solution computes.
    question, answer = challenges("03")[2]
    assert "difference" in question and "interval" in question and "mean and n" in question
    assert "low < diff < high" in answer
    # 04 challenge 1 asks for a list built from the open values: the solution reads them.
    question, answer = challenges("04")[0]
    assert "open values" in question and 'df["brand_open"]' in answer
    assert "first_missed <= set(brands)" in answer
    # 04 names organic negative posts for what they are, not complaints.
    assert not re.search(r"^complaints\s*=", _code("04"), re.MULTILINE)


def _code(number: str) -> str:
    (path,) = NOTEBOOKS.glob(f"{number}-*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join(source(c) for c in cells if c["cell_type"] == "code")


def test_02_says_its_all_complaints_is_circular_and_08_estimates_recall() -> None:
    assert 'most_liked["sentiment"].eq("negative")' in _code("02")
    assert "restates how the posts were chosen" in _code("02")
    assert "relative_recall" in _code("08")


def test_10s_paraphrase_check_fails_on_kept_wording() -> None:
    """Lesson 10, challenge 2: the check compares the paraphrase with the original (the
    lesson's own collection cannot show a quote is safe), and it can fail: with the
    original's words in place of the paraphrase, or four of them in a row kept, its
    checkpoint is off track; with the solution's paraphrase it holds."""
    import textwrap
    from urllib.parse import quote_plus

    import pandas as pd

    question, answer = challenges("10")[1]
    asked = " ".join(question.split())
    assert "four consecutive words" in asked and "What can this check not tell you?" in asked
    assert 'df["text"]' not in answer  # not a search of the lesson's own posts
    original = "Honestly the oat milk from the corner shop curdled in my coffee again today."
    organic = pd.DataFrame({"sentiment": ["positive", "negative"], "text": ["Great!", original]})
    fixed = re.search(r'^paraphrase = "(.*)"$', answer, re.MULTILINE)
    assert fixed, "the solution states its paraphrase on one line"

    def verdicts(paraphrase: str) -> list[bool]:
        said: list[bool] = []
        code = answer.replace(fixed.group(1), paraphrase)
        namespace = {"organic": organic, "re": re, "textwrap": textwrap, "quote_plus": quote_plus}
        namespace["checkpoint"] = lambda condition, *args, **kwargs: said.append(bool(condition))
        exec(code, namespace)  # the lesson's own solution, on a planted frame
        return said

    assert verdicts(fixed.group(1)) == [True]
    assert verdicts(original) == [False]
    assert verdicts("Someone said the oat milk from the corner shop went off.") == [False]
    assert verdicts("A customer found the drink spoiled when added to a hot cup.") == [True]
