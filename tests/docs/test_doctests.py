"""Docstring examples of every rdskit module run and hold.

Examples that need a live service are marked ``+SKIP`` in the docstrings; everything else
runs here, so an example that drifts from the code fails this test.
"""

from __future__ import annotations

import builtins
import doctest
import importlib
import pkgutil

import pytest

import rdskit

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(rdskit.__path__, "rdskit.")
    if not info.name.endswith("__main__")
)


@pytest.fixture(autouse=True)
def _no_leaked_underscore():
    """doctest runs examples through ``sys.__displayhook__``, which sets ``builtins._``;
    IPython then stops binding ``_`` to the last result in every later shell test."""
    had = "_" in builtins.__dict__
    yield
    if not had:
        builtins.__dict__.pop("_", None)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"


def test_examples_exist() -> None:
    finder = doctest.DocTestFinder()
    runnable = sum(
        len(test.examples)
        for name in MODULES
        for test in finder.find(importlib.import_module(name))
    )
    assert runnable > 200
