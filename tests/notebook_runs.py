"""Run the tutorial notebooks the way students do: twice, in new kernels, on every plan.

Support for ``tests/test_notebook_reruns.py`` (not a test module itself). A *pass* executes
every code cell of a notebook and then every challenge solution (the ```python blocks inside
``<details>`` cells), in one kernel, stopping at the first error. Between passes the
sandbox's SQLite file (``RDSKIT_SANDBOX_DB``, shared by the kernels of one notebook) is read
directly: the number of rows of every table that holds a resource or a charge is its
*footprint*. A second pass that leaves the footprint as it was created nothing and charged
nothing.

Kernels run two at a time (the machine has two cores; a kernel mostly waits on the sandbox
or computes alone), each with the sandbox sped up (``RDSKIT_SANDBOX_SPEED``) and on the
notebooks' fixed date (``RDSKIT_SANDBOX_TODAY``, as under nbval): outputs are not compared
here (nbval does that for the default run), only errors and footprints.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from rdskit.sandbox.runtime.clock import ENV_TODAY, NOTEBOOK_TODAY

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"

# Not "api_keys": each process that opens a notebook's sandbox mints a key of its own (a
# key another process revoked cannot stop it, issue 34), so a new kernel adds one; a key
# creates nothing the learner owns and charges nothing.
FOOTPRINT_TABLES = (
    "accounts",
    "audience_datasets",
    "audience_runs",
    "chats",
    "chat_messages",
    "custom_parameters",
    "custom_parameter_runs",
    "datasets",
    "dataset_runs",
    "pattern_detection_runs",
    "research_previews",
    "tracking_agents",
    "tracking_runs",
    "tracking_messages",
    "reservations",
    "usage_rows",
)
"""Tables that gain a row when something is created or charged (reads add none)."""

REFUSED_CODES = ("date_filter_unavailable", "tracking_agent_limit_reached")
"""Error codes a notebook must never meet, not even caught and printed."""

_SOLUTION = re.compile(
    r"<details>\s*<summary>\s*Solution\s*</summary>(?P<body>.*?)</details>", re.S | re.I
)
_PYTHON_BLOCK = re.compile(r"```python\n(?P<code>.*?)```", re.S)


def source(cell: Mapping[str, Any]) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def solutions(notebook: Mapping[str, Any]) -> list[str]:
    """The code of every challenge solution, in notebook order."""
    found = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for details in _SOLUTION.finditer(source(cell)):
            found += [m.group("code") for m in _PYTHON_BLOCK.finditer(details.group("body"))]
    return found


def pass_cells(notebook: Mapping[str, Any]) -> list[str]:
    """What one pass executes: the code cells, then the solutions."""
    code = [source(cell) for cell in notebook["cells"] if cell["cell_type"] == "code"]
    return code + solutions(notebook)


def footprint(db: Path) -> dict[str, int]:
    """Rows per resource table of the sandbox database at ``db`` (read-only, WAL-safe)."""
    if not db.exists():  # the pass failed before it started a sandbox
        return {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        return {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in FOOTPRINT_TABLES
            if table in present
        }


def spent_usd(db: Path) -> Decimal:
    """USD the ready account has used so far (settled charges; 0 before a sandbox started)."""
    if not db.exists():
        return Decimal(0)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        row = conn.execute(
            "SELECT w.used_usd FROM wallets w JOIN meta m"
            " ON m.key = 'default_account' AND w.account_id = m.value"
        ).fetchone()
    return Decimal(row[0]) if row else Decimal(0)


@dataclass
class PassResult:
    """One pass: the first error (``None`` if none), what the outputs said, the footprint,
    and the USD the account had used when it ended."""

    label: str
    error: str | None = None
    refused: list[str] = field(default_factory=list)
    footprint: dict[str, int] = field(default_factory=dict)
    used_usd: Decimal = Decimal(0)
    outputs: list[str] = field(default_factory=list)


@dataclass
class Job:
    """The kernels of one notebook under one plan: ``kernels[i]`` is its number of passes;
    ``after``: code run at the end of each pass, in the same kernel (a test reading what the
    notebook left, e.g. a file it wrote)."""

    notebook: str
    plan: str
    kernels: Sequence[int]
    workdir: Path
    results: list[PassResult] = field(default_factory=list)
    after: Sequence[str] = ()


def _outputs_text(cell: Any) -> str:
    return json.dumps(cell.get("outputs", []), ensure_ascii=False)


async def _run_kernel(job: Job, kernel: int, passes: int, env: dict[str, str]) -> None:
    notebook = nbformat.read(NOTEBOOKS_DIR / job.notebook, as_version=4)
    cells = pass_cells(notebook) + list(job.after)
    runner = nbformat.v4.new_notebook(metadata=notebook.metadata)
    client = NotebookClient(
        runner,
        timeout=600,
        # Several kernels start at once on a 2-core CI machine: 60 s (the default) was
        # once not enough for one to answer; a kernel that never starts still fails.
        startup_timeout=240,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS_DIR)}},
    )
    db = Path(env["RDSKIT_SANDBOX_DB"])
    async with client.async_setup_kernel(env=env):
        for number in range(1, passes + 1):
            result = PassResult(f"{job.notebook} [{job.plan}] kernel {kernel} pass {number}")
            for code in cells:
                cell = nbformat.v4.new_code_cell(code)
                runner.cells.append(cell)
                try:
                    await client.async_execute_cell(cell, len(runner.cells) - 1)
                except CellExecutionError as exc:
                    first = code.strip().splitlines()[0] if code.strip() else ""
                    result.error = f"cell {first!r}: {exc.ename}: {exc.evalue}"
                    break
                finally:
                    text = _outputs_text(cell)
                    result.outputs.append(text)
                    result.refused += [name for name in REFUSED_CODES if name in text]
            result.footprint = footprint(db)
            result.used_usd = spent_usd(db)
            job.results.append(result)
            if result.error:
                break
    # nbclient registers an exit hook per client; ours has already shut its kernel down.
    atexit.unregister(client._cleanup_kernel)


def _env(plan: str, workdir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "RDSKIT_SANDBOX_DB": str(workdir / "sandbox.db"),
        "RDSKIT_SANDBOX_PLAN": plan,
        "RDSKIT_SANDBOX_SPEED": "50",
        ENV_TODAY: NOTEBOOK_TODAY,  # the date the committed outputs were made under
        "RDSKIT_CACHE_DIR": str(workdir / "cache"),
        "MPLBACKEND": "agg",
    }


async def _run_job(job: Job, slots: asyncio.Semaphore) -> None:
    job.workdir.mkdir(parents=True, exist_ok=True)
    env = _env(job.plan, job.workdir)
    for kernel, passes in enumerate(job.kernels, start=1):
        async with slots:
            await _run_kernel(job, kernel, passes, env)
        if job.results and job.results[-1].error:
            return


def run_all(jobs: Sequence[Job], parallel: int = 2) -> None:
    """Run every job's kernels, ``parallel`` kernels at a time."""

    async def main() -> None:
        slots = asyncio.Semaphore(parallel)
        await asyncio.gather(*(_run_job(job, slots) for job in jobs))

    asyncio.run(main())


def run_in_order(notebooks: Sequence[str], plan: str, workdir: Path) -> list[Job]:
    """Run ``notebooks`` one after the other, one kernel and one pass each, on one sandbox
    file and one ledger (a learner working through the course on one account); stops at
    the first notebook that fails. Each job's result carries the account's spend after it."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = _env(plan, workdir)
    jobs = []

    async def main() -> None:
        for name in notebooks:
            job = Job(name, plan, (1,), workdir)
            jobs.append(job)
            await _run_kernel(job, 1, 1, env)
            if job.results[-1].error:
                return

    asyncio.run(main())
    return jobs
