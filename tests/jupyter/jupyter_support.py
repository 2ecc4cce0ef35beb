"""Helpers shared by the Jupyter-layer tests (imported by name; fixtures live in conftest).

- ``run_cell(shell, source)``: runs a cell and returns a :class:`Ran` with the result,
  stdout, stderr and every display bundle (rich outputs), for assertions on what a
  notebook would show;
- ``assert_no_secret(secret, *things)``: the key appears in none of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

QUERY = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}


@dataclass
class Seeded:
    """A dataset with one completed run, and its mentions."""

    dataset_id: str
    frame: pd.DataFrame = field(repr=False)


@dataclass
class Ran:
    """What one cell produced."""

    result: Any
    stdout: str
    stderr: str
    bundles: list[dict[str, Any]]

    @property
    def everything(self) -> str:
        """All text and bundles, for "never shown" assertions."""
        return self.stdout + self.stderr + json.dumps(self.bundles, default=str)


def run_cell(shell: InteractiveShell, source: str) -> Ran:
    """Run ``source`` as a cell and capture everything it shows."""
    with capture_output() as captured:
        result = shell.run_cell(source, store_history=True)
    bundles = [output.data for output in captured.outputs]
    return Ran(result, captured.stdout, captured.stderr, bundles)


def assert_no_secret(secret: str, *things: Any) -> None:
    """``secret`` appears in none of ``things`` (strings, or anything JSON/str-able)."""
    for thing in things:
        text = thing if isinstance(thing, str) else json.dumps(thing, default=str)
        assert secret not in text
