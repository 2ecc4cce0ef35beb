"""Lesson 01 on a used account (issue 34, item 3): a persistent sandbox database
(``RDSKIT_SANDBOX_DB``) where an earlier attempt already collected into the lesson's
dataset. The lesson's cells, run as written in a real kernel over real HTTP, reach the
checkpoint with more posts than the run collected; the checkpoint says the dataset
already holds other runs and gives the one fix as code (keep them under another name);
that code, run as printed, then the collection cell and those after it as written, puts
the checkpoint on track."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from recipes import ROOT, lesson_cells

CHECK = "len(df) == run.mentions_count"
EARLIER = """
import rdskit
client = rdskit.Client.sandbox()
ds = client.datasets.get_or_create("01 oat milk")
query = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}
run = client.datasets.runs.create(ds.id, query, count=50).wait()
print(run.mentions_count)
"""


def _said(cell: Any) -> str:
    """What a cell showed: its streams and the plain text of its displays."""
    return "".join(
        out.get("text", "") if out.output_type == "stream" else out.data.get("text/plain", "")
        for out in cell.outputs
    )


@pytest.mark.timeout(900)  # a real kernel through lesson 01's first cells, twice in part
def test_a_dataset_that_holds_other_runs_is_said_with_the_one_fix(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RDSKIT_")}
    env.update(
        RDSKIT_SANDBOX_DB=str(tmp_path / "used.db"),
        RDSKIT_SANDBOX_SPEED="50",
        RDSKIT_CACHE_DIR=os.environ["RDSKIT_CACHE_DIR"],
    )
    earlier = subprocess.run(
        [sys.executable, "-c", EARLIER], env=env, capture_output=True, text=True, timeout=300
    )
    assert earlier.returncode == 0, earlier.stderr[-3000:]
    assert int(earlier.stdout) > 0  # the dataset holds an earlier attempt's posts

    cells = lesson_cells(through=CHECK)
    collection = next(i for i, code in enumerate(cells) if "client.datasets.runs.create(" in code)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in cells]
    client = NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": ROOT}}
    )
    with client.setup_kernel(env=env):
        for index, cell in enumerate(notebook.cells):
            client.execute_cell(cell, index)
        checkpoint = notebook.cells[-1]
        (shown,) = checkpoint.outputs
        markdown, plain = shown.data["text/markdown"], shown.data["text/plain"]
        assert markdown.startswith("#### ✗ Checkpoint failed")
        assert "this dataset already holds other runs (1 besides dsr_" in plain
        assert "did the run complete?" not in plain  # the hint that could not fix it
        (fix,) = re.findall(r"client\.datasets\.update\('ds_\w+', name='[^']+'\)", plain)
        assert fix.endswith(", name='01 oat milk (earlier)')")

        # The fix as printed, then the collection cell and those after it, as written.
        again = [nbformat.v4.new_code_cell(fix)] + [
            nbformat.v4.new_code_cell(code) for code in cells[collection:]
        ]
        start = len(notebook.cells)
        notebook.cells += again
        for offset, cell in enumerate(again):
            client.execute_cell(cell, start + offset)
    assert (
        _said(notebook.cells[-1]) == "✓ On track: the frame holds every post the run collected.\n"
    )
