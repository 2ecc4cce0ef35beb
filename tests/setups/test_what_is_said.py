"""What rdskit says is true for the client at hand, and said before it matters (issue 34,
"say what was changed"), against real sandboxes over real HTTP:

- a run's ``count`` above the plan's research depth is said before anything is charged
  (the warning comes before the POST: made an error, it leaves the wallet untouched), and
  the run's progress says the count was capped;
- an interrupted wait on the kernel's embedded sandbox does not say the run "continues on
  the service": on a temporary database it says it is lost when the kernel stops, and a
  fresh process finds nothing; with ``RDSKIT_SANDBOX_DB`` a restarted process runs the
  printed resume call and gets the completed run; ``%rds connect --sandbox`` says where
  the data is kept;
- a failed checkpoint in a real kernel is a marked Markdown output with the one line as
  plain text.

Each embedded sandbox is per process, so those run in a fresh Python process each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from decimal import Decimal
from pathlib import Path

import pytest
from recipes import ROOT

import rdskit
from rdskit.errors import DepthCapWarning
from rdskit.runs import describe
from rdskit.sandbox import start

QUERY = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}


def test_a_count_above_the_plans_depth_is_said_before_anything_is_charged() -> None:
    with start(speed=200) as sandbox, rdskit.Client(sandbox.api_key, base_url=sandbox.url) as c:
        depth = c.me().plan.limits.max_research_depth
        assert (c.me().plan.name, depth) == ("Pro", 1000)
        dataset = c.datasets.create("capped")
        used = c.me().usage.credits_used
        with warnings.catch_warnings():
            warnings.simplefilter("error", DepthCapWarning)  # stop at the warning
            with pytest.raises(DepthCapWarning) as said:
                c.datasets.runs.create(dataset.id, QUERY, count=2000)
        assert str(said.value) == (
            "count=2000 is above the research depth of the Pro plan (1,000 mentions a run): "
            "the service collects, and charges, at most 1,000. Pass count=1000 (or less) to "
            "ask for what the run will hold."
        )
        # Said before the POST: no run, nothing charged.
        assert list(c.datasets.runs.list(dataset.id)) == []
        assert c.me().usage.credits_used == used

        with pytest.warns(DepthCapWarning, match="at most 1,000"):
            run = c.datasets.runs.create(dataset.id, QUERY, count=2000)
        assert (run.count, run.requested_count) == (1000, 2000)
        done = c.wait(run, progress=False)
        mentions = dict(describe(done).counters)["mentions"]
        assert mentions == "1,000 of 1,000 (capped from 2,000 by the plan's research depth)"
        assert c.me().usage.credits_used - used == Decimal(1000)

        with warnings.catch_warnings():
            warnings.simplefilter("error", DepthCapWarning)  # within the depth: nothing said
            within = c.wait(c.datasets.runs.create(dataset.id, QUERY, count=1000))
        assert "capped" not in dict(describe(within).counters)["mentions"]


# -- where an interrupted run goes on ----------------------------------------------------
_INTERRUPTED = """
import rdskit
from rdskit.waiting import WaitInterrupted

client = rdskit.Client.sandbox()
ds = client.datasets.create("interrupted")
run = client.datasets.runs.create(ds.id, {query!r}, count=20)
real = client._sleep

def sleep(seconds):
    client._sleep = real
    raise KeyboardInterrupt

client._sleep = sleep
try:
    client.wait(run, progress=False)
except WaitInterrupted as stopped:
    print(stopped)
    print(stopped.resume)
"""

_RESUMED = """
import rdskit
client = rdskit.Client.sandbox()
try:
    {resume}
    print("resumed", run.id, run.status.type)
except rdskit.NotFound:
    print("not found")
"""


def _python(code: str, env: dict[str, str]) -> list[str]:
    ran = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    return ran.stdout.splitlines()


def _env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RDSKIT_")}
    env.update(RDSKIT_SANDBOX_SPEED="50", RDSKIT_CACHE_DIR=os.environ["RDSKIT_CACHE_DIR"])
    return {**env, **settings}


@pytest.mark.timeout(600)
def test_an_interrupted_wait_on_a_temporary_sandbox_says_it_ends_with_the_kernel() -> None:
    line, resume = _python(_INTERRUPTED.format(query=QUERY), _env())
    assert "continues on the service" not in line
    assert line.startswith("Stopped waiting: dataset run dsr_")
    assert (
        "goes on in this kernel's embedded sandbox, on a temporary database: it is lost "
        "when the kernel (this process) stops, so resume in this kernel." in line
    )
    assert line.endswith(f"Resume with: {resume}")
    # What it said: a restarted kernel (a fresh process) has another sandbox, no such run.
    assert _python(_RESUMED.format(resume=resume), _env()) == ["not found"]


@pytest.mark.timeout(600)
def test_an_interrupted_wait_on_a_persistent_sandbox_resumes_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "kept.db"
    env = _env(RDSKIT_SANDBOX_DB=str(db))
    line, resume = _python(_INTERRUPTED.format(query=QUERY), env)
    assert "continues on the service" not in line
    assert f"goes on in this kernel's embedded sandbox, kept in {db}: a kernel restarted " in line
    # What it said: a restarted kernel on the same file runs the printed call and waits.
    (resumed,) = _python(_RESUMED.format(resume=resume), env)
    assert resumed.startswith("resumed dsr_") and resumed.endswith(" completed")


@pytest.mark.timeout(300)
def test_the_connection_line_says_where_the_sandbox_keeps_its_data(tmp_path: Path) -> None:
    code = """
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    shell.run_cell("%load_ext rdskit")
    shell.run_cell("%rds connect --sandbox")
    """
    temporary = "\n".join(_python(code, _env()))
    assert "its data lasts until the kernel stops" in temporary
    db = tmp_path / "kept.db"
    kept = "\n".join(_python(code, _env(RDSKIT_SANDBOX_DB=str(db))))
    assert f"its data is kept in {db}" in kept and "until the kernel stops" not in kept


# -- a failed checkpoint -----------------------------------------------------------------
@pytest.mark.timeout(300)
def test_a_failed_checkpoint_in_a_kernel_is_marked_and_readable_as_text() -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(
            "from rdskit.lesson import checkpoint\n"
            "checkpoint(319 == 200, 'the frame holds the 200 posts of this run [x](http://e.vil)',"
            " hint='collect into a dataset of your own')"
        ),
        nbformat.v4.new_code_cell("checkpoint(True, 'the frame has rows')"),
    ]
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    (failed,) = notebook.cells[0].outputs
    assert failed.output_type == "display_data"
    markdown, plain = failed.data["text/markdown"], failed.data["text/plain"]
    assert markdown.startswith("#### ✗ Checkpoint failed\n\n**Expected:** the frame holds")
    assert "**What to do:** collect into a dataset of your own" in markdown
    assert "[x](http" not in markdown and "\\[x\\]" in markdown  # a pasted link stays text
    assert "<" not in markdown  # no HTML: nothing for an untrusted notebook to strip
    assert plain == (
        "✗ Not yet: the frame holds the 200 posts of this run [x](http://e.vil). "
        "Hint: collect into a dataset of your own"
    )
    (passed,) = notebook.cells[1].outputs  # on track: the one printed line, as before
    assert (passed.output_type, passed.text) == ("stream", "✓ On track: the frame has rows.\n")
    json.dumps(notebook)  # the saved notebook holds both forms
