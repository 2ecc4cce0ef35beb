"""rdskit errors in IPython: a short message (what failed, which field, where, what to do),
the full traceback under ``%xmode Verbose`` and one click away in the error's card."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import Seeded, assert_no_secret, run_cell

import rdskit
from rdskit.errors import InvalidParameter, NotFound
from rdskit.jupyter.errors import VERBOSE_HINT, short_traceback
from rdskit.sandbox import SandboxHandle

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def shown(text: str) -> str:
    return ANSI.sub("", text)


@pytest.fixture(autouse=True)
def _rdskit_imported(shell: InteractiveShell) -> None:
    shell.user_ns["rdskit"] = rdskit  # as after `import rdskit` in an earlier cell


@pytest.fixture
def context_mode(shell: InteractiveShell) -> Iterator[InteractiveShell]:
    yield shell
    run_cell(shell, "%xmode Context")


def test_a_client_error_is_short_and_names_field_place_and_next_step(
    shell: InteractiveShell,
) -> None:
    ran = run_cell(
        shell,
        "import rdskit\nclient = rdskit.jupyter.current_session().client\n"
        "page = client.datasets.list(limit=500)",
    )
    assert isinstance(ran.result.error_in_exec, InvalidParameter)
    text = shown(ran.stdout)
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines[0] == "InvalidParameter: limit: must be between 1 and 100, got 500"
    assert "at cell line 3: page = client.datasets.list(limit=500)" in text
    assert "What to do: fix the argument limit" in text
    assert VERBOSE_HINT in text
    assert len(lines) == 4
    assert "_base_client.py" not in text and "Traceback" not in text


def test_a_service_error_says_what_to_do_and_keeps_the_key_out(
    shell: InteractiveShell, sandbox: SandboxHandle
) -> None:
    ran = run_cell(shell, "rdskit.jupyter.current_session().client.datasets.get('ds_nope')")
    assert isinstance(ran.result.error_in_exec, NotFound)
    text = shown(ran.stdout)
    assert text.startswith("DatasetNotFound: dataset_not_found (HTTP 404) on GET /v1/datasets/")
    assert "What to do: check the id" in text
    assert len(text.strip().splitlines()) <= 4
    assert_no_secret(sandbox.api_key, ran.everything)


def test_the_card_has_the_full_traceback_one_click_away(shell: InteractiveShell) -> None:
    ran = run_cell(shell, "rdskit.jupyter.current_session().client.datasets.list(limit=0)")
    (card,) = [bundle["text/html"] for bundle in ran.bundles if "text/html" in bundle]
    assert '<details class="rds-traceback"><summary>Full traceback</summary>' in card
    assert "Traceback (most recent call last)" in card and "_resource.py" in card


def test_xmode_verbose_shows_the_whole_traceback(context_mode: InteractiveShell) -> None:
    run_cell(context_mode, "%xmode Verbose")
    ran = run_cell(context_mode, "rdskit.jupyter.current_session().client.datasets.list(limit=0)")
    text = shown(ran.stdout)
    assert "_resource.py" in text and VERBOSE_HINT not in text
    run_cell(context_mode, "%xmode Context")
    ran = run_cell(context_mode, "rdskit.jupyter.current_session().client.datasets.list(limit=0)")
    assert "_resource.py" not in shown(ran.stdout)


def test_a_frames_error_and_a_budget_refusal_are_short(
    shell: InteractiveShell, seeded: Seeded
) -> None:
    shell.user_ns["posts"] = seeded.frame[["id", "source"]]
    ran = run_cell(shell, "posts.rds.volume('W')")
    text = shown(ran.stdout)
    assert text.startswith("MissingColumnsError: df.rds.volume() needs the column 'created_at'")
    assert "at cell line 1: posts.rds.volume('W')" in text
    rdskit.set_budget(1)
    shell.user_ns["ds_id"] = seeded.dataset_id
    ran = run_cell(
        shell,
        "rdskit.jupyter.current_session().client.datasets.runs.create(ds_id, search_query="
        "{'type': 'prompt', 'sources': ['reddit'], 'search_query': 'oat'}, count=5)",
    )
    text = shown(ran.stdout)
    assert "BudgetExceeded: dataset_run refused by the process-wide budget: estimate 5" in text
    assert "What to do: raise it with %rds budget N" in text


def test_the_short_form_needs_no_extension() -> None:
    # The method lives on every rdskit error; the package root wires it to this layer.
    client = rdskit.Client("bz_test_" + "0" * 32, base_url="http://127.0.0.1:9")
    with pytest.raises(InvalidParameter) as raised:
        client.datasets.list(limit=101)
    lines = [shown(line) for line in raised.value._render_traceback_()]
    assert lines == [shown(line) for line in short_traceback(raised.value)]
    assert lines[0] == "InvalidParameter: limit: must be between 1 and 100, got 101"
    assert lines[1].startswith("  at test_errors_display.py:")


def test_in_a_real_kernel_without_the_extension(
    sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("RDSKIT_API_KEY", sandbox.api_key)  # the kernel inherits them
    monkeypatch.setenv("RDSKIT_BASE_URL", sandbox.url)
    monkeypatch.delenv("RDSKIT_GATEWAY", raising=False)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell("import rdskit\nclient = rdskit.Client()"),
        nbformat.v4.new_code_cell("client.datasets.get('ds_nope')"),
        nbformat.v4.new_code_cell("%xmode Verbose\nclient.datasets.get('ds_nope')"),
    ]
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True).execute()
    short = notebook.cells[1].outputs[0]
    assert short.output_type == "error" and short.ename == "DatasetNotFound"
    lines = [shown(line) for line in short.traceback]
    assert lines[0].startswith("DatasetNotFound: dataset_not_found (HTTP 404)")
    assert lines[1] == "  at cell line 1: client.datasets.get('ds_nope')"
    assert len(lines) == 4 and VERBOSE_HINT in lines[-1]
    verbose = next(o for o in notebook.cells[2].outputs if o.output_type == "error")
    full = shown("\n".join(verbose.traceback))
    assert "_base_client.py" in full and VERBOSE_HINT not in full
    assert_no_secret(sandbox.api_key, full, lines)
