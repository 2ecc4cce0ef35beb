"""The starter notebook the launcher card opens (``rdskit/jupyter/starter.ipynb``, served
as ``GET /rdskit/lab/starter``): a title, a sentence before every code cell, and a first
``%%ask`` that answers, executed headless by nbclient against the sandbox, twice (a second
run in a new kernel reuses the dataset and its posts: nothing collected again)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.resources import files
from itertools import pairwise

import nbformat
import pytest
from nbclient import NotebookClient

import rdskit
from rdskit.jupyter.lab_api import STARTER
from rdskit.sandbox import SandboxHandle, start


@pytest.fixture
def fresh_sandbox() -> Iterator[SandboxHandle]:
    with start(speed=200) as handle:
        yield handle


def _starter() -> nbformat.NotebookNode:
    return nbformat.reads(files("rdskit.jupyter").joinpath(STARTER).read_text(), as_version=4)


def test_the_starter_has_a_title_and_a_sentence_before_every_code_cell() -> None:
    notebook = _starter()
    nbformat.validate(notebook)
    cells = notebook.cells
    assert cells[0].cell_type == "markdown" and cells[0].source.startswith("# ")
    for before, cell in pairwise(cells):
        if cell.cell_type == "code":
            assert before.cell_type == "markdown" and before.source.strip().endswith("."), before
            assert not cell.outputs and cell.execution_count is None
    asks = [cell for cell in cells if cell.source.startswith("%%ask")]
    assert len(asks) == 2 and "--dataset" in asks[0].source and "--" not in asks[1].source


def test_the_starter_runs_on_the_sandbox_and_its_first_ask_answers(
    fresh_sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", fresh_sandbox.api_key)  # the kernel inherits them
    monkeypatch.setenv("RDSKIT_BASE_URL", fresh_sandbox.url)
    monkeypatch.delenv("RDSKIT_GATEWAY", raising=False)
    runs = []
    for _ in range(2):
        notebook = _starter()
        NotebookClient(notebook, timeout=240, kernel_name="python3").execute()  # raises on error
        code = [cell for cell in notebook.cells if cell.cell_type == "code"]
        outputs = [output for cell in code for output in cell.outputs]
        assert not [output for output in outputs if output.output_type == "error"]
        first, follow_up = (
            next(o for o in cell.outputs if o.output_type == "execute_result")
            for cell in code
            if cell.source.startswith("%%ask")
        )
        assert 'class="rds-marker" data-ref="1"' in first.data["text/html"]
        asked = first.metadata["rdskit"]
        assert asked["question"] == "What do people complain about most?"
        dataset_id = asked["datasets"][0]
        assert follow_up.metadata["rdskit"]["chat_id"] == asked["chat_id"]
        assert "frame.head()" in code[-1].source and code[-1].outputs
        runs.append(dataset_id)
        assert fresh_sandbox.api_key not in json.dumps(nbformat.writes(notebook))
    assert runs[0] == runs[1]  # the second run found the starter's dataset
    with rdskit.Client(fresh_sandbox.api_key, base_url=fresh_sandbox.url) as client:
        assert len(client.datasets.runs.list(runs[0]).data) == 1  # collected once
