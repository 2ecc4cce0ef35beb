"""Interrupting ``wait()``: one line (the run, that it goes on, the exact call to resume),
no traceback from inside the library, and the call it prints picks the run up again."""

from __future__ import annotations

import asyncio
import time

import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import QUERY, run_cell

import rdskit
from rdskit.sandbox import SandboxHandle, start
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


# -- AsyncClient ---------------------------------------------------------------------------
@pytest.mark.parametrize("stop", [asyncio.CancelledError, KeyboardInterrupt])
def test_an_async_wait_in_a_cell_shows_one_line_and_resumes(
    shell: InteractiveShell, sandbox: SandboxHandle, stop: type[BaseException]
) -> None:
    """``await run.wait()`` in a notebook cell, stopped: the kernel cancels the cell's task
    (a ``CancelledError`` lands in the wait's sleep) or a ``KeyboardInterrupt`` lands
    there. One line names the run, says it goes on and gives the exact ``await`` call,
    which picks it up again in the next cell. A cancellation stays a ``CancelledError``."""
    shell.user_ns["url"], shell.user_ns["key"] = sandbox.url, sandbox.api_key
    ran = run_cell(
        shell,
        "import rdskit\nclient = rdskit.AsyncClient(key, base_url=url)\n"
        "ds = await client.datasets.create('interrupted async wait')\n"
        f"run = await client.datasets.runs.create(ds.id, search_query={QUERY!r}, count=20)",
    )
    assert ran.result.success, ran.result.error_in_exec
    client, run = shell.user_ns["client"], shell.user_ns["run"]
    real = client._sleep

    async def sleep(seconds: float) -> None:
        client._sleep = real
        raise stop

    client._sleep = sleep
    ran = run_cell(shell, "done = await run.wait(progress=False)")
    error = ran.result.error_in_exec
    wanted = WaitInterrupted if stop is KeyboardInterrupt else asyncio.CancelledError
    assert type(error) is wanted, error
    shown = ran.stdout + ran.stderr
    lines = [line for line in shown.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in shown, shown
    resume = (
        f"run = await client.wait(await client.datasets.runs.get({run.dataset_id!r}, {run.id!r}))"
    )
    assert lines[0] == (
        f"Stopped waiting: dataset run {run.id} continues on the service. Resume with: {resume}"
    )
    if stop is asyncio.CancelledError:
        assert lines[0] in error.__notes__  # a script's traceback shows it too
    ran = run_cell(shell, resume)  # the exact call, as printed
    assert ran.result.success, ran.result.error_in_exec
    assert shell.user_ns["run"].id == run.id and shell.user_ns["run"].status.type == "completed"
    run_cell(shell, "await client.close()")


def test_a_cancelled_async_wait_still_times_out_as_asyncio_says(sandbox: SandboxHandle) -> None:
    """The line rides on asyncio's own CancelledError: ``asyncio.timeout`` around a wait
    still ends in ``TimeoutError`` (Python 3.11 checks the exception's exact type)."""

    async def main() -> BaseException:
        async with rdskit.AsyncClient(sandbox.api_key, base_url=sandbox.url) as client:
            dataset = await client.datasets.create("timed out async wait")
            run = await client.datasets.runs.create(dataset.id, search_query=QUERY, count=20)
            real = client._sleep

            async def sleep(seconds: float) -> None:
                await real(60)  # held here until the timeout cancels it

            client._sleep = sleep
            try:
                async with asyncio.timeout(0.2):
                    await client.wait(run, progress=False)
            except BaseException as exc:
                return exc
            raise AssertionError("the wait was not cancelled")

    error = asyncio.run(main())
    assert type(error) is TimeoutError, error
    cause = error.__cause__
    assert isinstance(cause, asyncio.CancelledError)
    assert any("continues on the service" in note for note in cause.__notes__)


ASYNC_CELL = """
import rdskit
client = rdskit.AsyncClient({key!r}, base_url={url!r})
ds = await client.datasets.create('stopped in a kernel')
run = await client.datasets.runs.create(ds.id, search_query={query!r}, count=20)
print('waiting on', run.id, flush=True)
await run.wait(progress=False)
"""


def test_the_stop_button_on_an_await_cell_of_a_real_kernel() -> None:
    """The notebook's stop button (an interrupt of a real ipykernel) on ``await
    run.wait()``: the kernel cancels the cell's task; the cell's error is the one line,
    and the run goes on (the printed call, run in the next cell, finds it)."""
    from jupyter_client.manager import start_new_kernel

    with start(speed=1) as slow:  # a run of 20 takes seconds: the stop lands mid-wait
        manager, kernel = start_new_kernel(kernel_name="python3")
        try:
            cell = ASYNC_CELL.format(key=slow.api_key, url=slow.url, query=QUERY)
            msg_id = kernel.execute(cell)
            outputs = []
            while True:
                msg = kernel.get_iopub_msg(timeout=120)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                outputs.append(msg)
                if msg["msg_type"] == "stream" and "waiting on" in msg["content"]["text"]:
                    time.sleep(0.5)
                    manager.interrupt_kernel()
                if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    break
            errors = [m["content"] for m in outputs if m["msg_type"] == "error"]
            assert len(errors) == 1, outputs
            assert errors[0]["ename"] == "CancelledError"
            (line,) = errors[0]["traceback"]
            assert line.startswith("Stopped waiting: dataset run dsr_"), line
            resume = line.split("Resume with: ", 1)[1]
            assert resume.startswith("run = await client.wait(await client.datasets.runs.get(")
            printed: list[str] = []

            def hook(msg: dict) -> None:
                if msg["msg_type"] == "stream":
                    printed.append(msg["content"]["text"])

            code = resume + "\nprint(run.id, run.status.type)"
            reply = kernel.execute_interactive(code, timeout=120, output_hook=hook)
            assert reply["content"]["status"] == "ok"
            assert "".join(printed).split() == [line.split()[4], "completed"], printed
        finally:
            kernel.stop_channels()
            manager.shutdown_kernel(now=True)
