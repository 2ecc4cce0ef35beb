"""A notebook executed headless by nbclient (as nbconvert and nbval do): no widget front
end, yet every display carries text fallbacks that show the final state."""

from __future__ import annotations

import json

import nbformat
import pytest
from jupyter_support import Seeded
from nbclient import NotebookClient

from rdskit.sandbox import SandboxHandle


def test_magics_in_a_headless_kernel(
    sandbox: SandboxHandle, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_API_KEY", sandbox.api_key)  # the kernel inherits them
    monkeypatch.setenv("RDSKIT_BASE_URL", sandbox.url)
    monkeypatch.delenv("RDSKIT_GATEWAY", raising=False)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("%load_ext rdskit\n%rds connect"),
        nbformat.v4.new_code_cell(
            f"%%ask --dataset {seeded.dataset_id} --out answer\nHow does sentiment split?"
        ),
        nbformat.v4.new_code_cell("answer.posts()[['citation', 'source', 'id']]"),
        nbformat.v4.new_code_cell(
            "import rdskit\nrdskit.jupyter.current_session().client.datasets.get('nope')"
        ),
    ]
    NotebookClient(notebook, timeout=180, kernel_name="python3", allow_errors=True).execute()
    connect, ask, posts, error = (cell.outputs for cell in notebook.cells)

    assert connect[0].text.startswith(f"Connected to {sandbox.url} as owner@")
    progress, answer = ask
    assert progress.output_type == "display_data", ask  # on failure: the error the cell showed
    assert set(progress.data) == {"text/html", "text/plain"}  # the widget became static
    assert progress.data["text/plain"].startswith("Assistant reply: ")
    assert "answered in" in progress.data["text/plain"]  # updated to the end state
    assert 'data-state="completed"' in progress.data["text/html"]
    assert answer.output_type == "execute_result"
    assert 'class="rds-marker" data-ref="1"' in answer.data["text/html"]
    assert "References\n[1] " in answer.data["text/plain"]
    assert "citation" in posts[0].data["text/plain"]
    assert error[0].output_type == "error" and error[0].ename == "DatasetNotFound"
    assert "rds-error" in error[1].data["text/html"]  # the card under the traceback
    assert sandbox.api_key not in json.dumps([cell.outputs for cell in notebook.cells])
