"""Interrupting ``wait()``: one line (the run, that it goes on, the exact call to resume),
no traceback from inside the library, and the call it prints picks the run up again."""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import QUERY, run_cell

import rdskit
from rdskit.sandbox import SandboxHandle
from rdskit.waiting import WaitInterrupted


def _interrupting(client: rdskit.Client) -> None:
    """The client's next sleep between polls raises KeyboardInterrupt (Ctrl-C, or the
    notebook's stop button, lands there while a wait runs)."""
    real = client._sleep

    def sleep(seconds: float) -> None:
        client._sleep = real
        raise KeyboardInterrupt

    client._sleep = sleep


def test_the_line_names_the_run_and_resumes_it(sandbox: SandboxHandle) -> None:
    with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        dataset = client.datasets.create("interrupted wait")
        run = client.datasets.runs.create(dataset.id, search_query=QUERY, count=20)
        _interrupting(client)
        with pytest.raises(KeyboardInterrupt) as caught:  # a script still stops
            client.wait(run, progress=False)
        assert isinstance(caught.value, WaitInterrupted)
        line = str(caught.value)
        assert "\n" not in line and run.id in line and "continues on the service" in line
        resume = caught.value.resume
        assert resume == (
            f"run = client.wait(client.datasets.runs.get({dataset.id!r}, {run.id!r}))"
        )
        assert resume in line
        namespace = {"client": client}
        exec(resume, namespace)  # the exact call, as printed
        assert namespace["run"].id == run.id and namespace["run"].status.type == "completed"


def test_a_notebook_shows_one_line_and_no_traceback(
    shell: InteractiveShell, sandbox: SandboxHandle
) -> None:
    with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        shell.user_ns["client"] = client
        run_cell(shell, "ds = client.datasets.create('interrupted in a cell')")
        _interrupting(client)
        ran = run_cell(
            shell,
            f"run = client.datasets.runs.create(ds.id, search_query={QUERY!r}, count=20)"
            ".wait(progress=False)",
        )
        assert not ran.result.success and isinstance(ran.result.error_in_exec, WaitInterrupted)
        shown = ran.stdout + ran.stderr
        lines = [line for line in shown.splitlines() if line.strip()]
        assert len(lines) == 1, shown
        assert lines[0].startswith("Stopped waiting: dataset run dsr_") and "Traceback" not in shown
        assert "waiting.py" not in shown and "_base_client" not in shown
