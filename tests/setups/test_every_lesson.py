"""Every lesson's first cells (01 to 10, up to and including its first paid step) in the
set-ups the docs recommend, through the kernel protocol as JupyterLab runs them: one user
with setup.md's "On your own computer" settings (one persistent sandbox file for the whole
course, ``HOME`` a fresh folder) and a student of setup.md's "A class on JupyterHub"
(its ``c.Spawner.environment``). Each lesson in a kernel of its own, in course order, on
one account, on the day the test runs (no fixed date: a user's). A cell that fails, or
prints a traceback or an error the lesson did not plan, fails the test naming the lesson
and the cell. The Trial plan runs the whole course in order in tests/test_course_on_trial.py.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from recipes import LESSONS, ROOT, SETUP, env_settings, first_cells, spawner_environment
from test_gateway import jupyter_server, run_in  # the real-server harness

SETUPS = {
    "single user": lambda home: env_settings(SETUP, "On your own computer", home),
    "class": lambda home: spawner_environment(SETUP, "A class on JupyterHub", home),
}


@pytest.mark.timeout(1800)  # ten kernels and their first collections on a shared machine
@pytest.mark.parametrize("setup", list(SETUPS))
def test_every_lessons_first_cells_run_in_the_documented_setup(
    setup: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY", "RDSKIT_SANDBOX_TODAY"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), **SETUPS[setup](home)}
    assert env["RDSKIT_SANDBOX_DB"].startswith(str(home))  # one file for the whole course
    shutil.copytree(ROOT / "notebooks" / "data", tmp_path / "notebooks" / "data")
    took = {}
    with jupyter_server(tmp_path, env) as server:
        for lesson in LESSONS:
            started = time.monotonic()
            _, kernel = server.kernel("notebooks")  # as a notebook opened there
            try:
                for number, cell in enumerate(first_cells(lesson)):
                    try:
                        printed = run_in(kernel, cell)
                    except AssertionError as failed:
                        raise AssertionError(f"{lesson} cell {number}: {failed}") from None
                    said = "".join(json.loads(out).get("text", "") for out in printed)
                    assert "Traceback" not in said and "✗" not in said, (lesson, number, said)
            finally:
                kernel.shutdown()
                kernel.stop_channels()
            took[lesson] = round(time.monotonic() - started)
    print(setup, took)  # seconds per lesson, for the report (pytest -s)
