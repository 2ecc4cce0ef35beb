"""The generated evaluation (>= 3,000 cases from the grammar of ``generated_cases.py``) and
a property test of the plan engine.

The suite runs a seeded sample here (fast); ``python tests/sandbox/eval/run_generated.py``
runs every case and prints the score with the misses. Answers come from the same function
every Ask entry point calls (``compose_reply``: the per-dataset post cache, the reader, the
figures) over a real sandbox dataset; the truth is pandas over the posts read through
``POST /v1/mentions``.
"""

from __future__ import annotations

import random
from collections import Counter

import pandas as pd
import pytest
from generated_cases import generate, sample
from generated_support import Dataset, load, score
from handwritten_truth import measure, where
from hypothesis import given, settings
from hypothesis import strategies as st

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.assistant.catalogue import Table
from rdskit.sandbox.assistant.figures import run
from rdskit.sandbox.assistant.reader import Cond, Query

TARGET = 0.95
SAMPLE = 300


@pytest.fixture(scope="module")
def oat(sandbox: SandboxHandle) -> Dataset:
    return load(sandbox)


def test_the_grammar_is_big_and_covers_every_language_and_style(oat: Dataset) -> None:
    cases = generate(oat.df)
    assert len(cases) >= 3000
    assert set(Counter(c.lang for c in cases)) == {"en", "fr", "es", "de", "pt"}
    assert set(Counter(c.style for c in cases)) == {"plain", "terse", "polite", "imperative",
                                                    "typo"}  # fmt: skip
    measures = Counter(c.reading.measure for c in cases if c.reading.kind == "figure")
    for name in ("count", "share", "sum", "mean", "median", "min", "max", "authors"):
        assert measures[name] >= 20, name


def test_a_seeded_sample_of_the_generated_suite(oat: Dataset) -> None:
    cases = list(sample(generate(oat.df), SAMPLE))
    rate, misses = score(oat, cases)
    print(f"\ngenerated (sample): {rate:.1%} of {len(cases)} pass", *misses, sep="\n  ")
    assert rate >= TARGET, "\n".join(misses)


# --- property: random plans against pandas ------------------------------------------------

_KEYS = ("source", "sentiment", "language", "country", "content_type", "tone", "brand")
_MEASURES = ("count", "share", "sum", "mean", "median", "min", "max", "authors")
_METRICS = ("views", "likes", "comments", "shares", "engagement_rate", "sentiment_score")


def _values(df: pd.DataFrame, key: str) -> list[str]:
    column = df[key].dropna()
    flat = {v for vs in column for v in vs} if key == "brand" else set(column)
    return sorted(str(v) for v in flat)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_random_plans_match_pandas(oat: Dataset, seed: int) -> None:
    """A random plan (filters with AND / OR / NOT, any measure and metric) gives the figure
    pandas computes from the posts read through the client."""
    rng = random.Random(seed)
    conds, filters = [], {}
    for key in rng.sample(_KEYS, rng.randint(0, 3)):
        values = rng.sample(_values(oat.df, key), min(2, len(_values(oat.df, key))))
        negate = rng.random() < 0.25
        dim = "country" if key == "country" else key
        conds.append(Cond(dim, tuple(values), negate))
        filters[("not_" if negate else "") + key] = values
    name = rng.choice(_MEASURES)
    metric = rng.choice(_METRICS) if name in ("sum", "mean", "median", "min", "max") else None
    part = {"sentiment": ["negative"]} if name == "share" else {}
    query = Query(name, metric, tuple(conds), (Cond("sentiment", ("negative",)),) if part else ())
    got = run(query, _table(oat)).value
    want = measure(where(oat.df, filters), name, metric, part)
    if want is None or got is None:
        assert got is None and want is None, (query, got, want)
    else:
        assert abs(float(got) - float(want)) <= max(1e-9, abs(float(want)) * 1e-9), (query, got)


_TABLES: dict[int, Table] = {}


def _table(data: Dataset) -> Table:
    if id(data) not in _TABLES:
        _TABLES[id(data)] = Table(data.posts)
    return _TABLES[id(data)]
