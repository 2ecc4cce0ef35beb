"""The blind evaluation stays usable: its truth code runs, set1's frozen result holds.

Re-asking the 111 questions takes ~7 minutes (score.py set1 --baseline results/set1.json);
this test checks the cheap parts: every truth expression of the six sets still computes
over a fresh sandbox's posts (sets 3 to 6 over their own worlds, world.DATASETS_SET3,
world.DATASETS_SET4, world.DATASETS_SET5 and world.DATASETS_SET6, one more sandbox of ~30 s
each), and the frozen set1 result is the one its questions, judge and hand verdicts give.
Nothing here asks the assistant a question (sets 5 and 6 are sealed).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import score  # noqa: E402
from judge import Alt, compute_truth  # noqa: E402
from world import DATASETS_SET3, DATASETS_SET4, DATASETS_SET5, DATASETS_SET6, World  # noqa: E402

FROZEN = HERE / "results" / "set1.json"


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    w = World()
    try:
        w.build()
        yield w
    finally:
        w.stop()


@pytest.fixture(scope="module", params=["set3", "set4", "set5", "set6"])
def own_world(request: pytest.FixtureRequest) -> Iterator[tuple[str, World]]:
    """A set with a world of its own (sets 3 to 6): its four datasets on two other topics."""
    w = World(score.datasets_of(request.param))
    try:
        w.build()
        yield request.param, w
    finally:
        w.stop()


def _complete(value: Any) -> bool:
    """A truth with every figure present (no None, no NaN), at any depth."""
    if isinstance(value, Alt):
        return all(_complete(v) for v in value.options)
    if isinstance(value, list):
        return bool(value) and all(_complete(v) for v in value)
    if isinstance(value, float):
        return not math.isnan(value)
    return value is not None


@pytest.mark.parametrize("set_name", ["set1", "set2"])
def test_every_truth_computes_over_a_fresh_sandbox(world: World, set_name: str) -> None:
    _every_truth_computes(world, set_name)


def test_every_truth_of_a_set_with_its_own_world_computes(own_world: tuple[str, World]) -> None:
    set_name, world = own_world
    assert score.datasets_of("set3") == DATASETS_SET3
    assert score.datasets_of("set4") == DATASETS_SET4
    assert score.datasets_of("set5") == DATASETS_SET5
    assert score.datasets_of("set6") == DATASETS_SET6
    assert score.datasets_of("set1") == score.datasets_of("set2")
    assert len({score.datasets_of(s) for s in ("set1", "set3", "set4", "set5", "set6")}) == 5
    _every_truth_computes(world, set_name)


def _every_truth_computes(world: World, set_name: str) -> None:
    questions = score.load(set_name)
    assert len(questions) >= 100
    assert len({q.id for q in questions}) == len(questions)
    for q in questions:
        truth = compute_truth(q, world.frames)
        if q.kind == "figure":
            assert _complete(truth), f"{q.id}: truth {truth!r} for {q.q!r}"
        else:
            assert truth is None, q.id


def test_set1_is_frozen_and_its_result_is_reproduced() -> None:
    frozen = json.loads(FROZEN.read_text())
    assert frozen["questions_sha256"] == score.questions_sha256("set1"), "set1.py changed"
    assert [r["id"] for r in frozen["rows"]] == [q.id for q in score.load("set1")]
    again = score.rejudge(FROZEN)
    assert [r["verdict"] for r in again["rows"]] == [r["verdict"] for r in frozen["rows"]]
    assert again["summary"] == frozen["summary"]
