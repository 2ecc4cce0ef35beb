"""notebooks/setup.md, "On your own computer", followed to the letter: the optional
settings it lists are put in the environment that starts Jupyter (``HOME`` a fresh
folder), the JupyterLab panel reads the server's gateway (which starts its shared
sandbox), and a kernel runs lesson 01's first cells and a ``%%ask``; a second kernel
finds the dataset again (the persistent database), and so does plain Python.

The gateway's sandbox must never open the kernels' database: it used to, revoking the
sandbox's default key, so every ``rdskit.Client.sandbox()`` got 401 for good."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from recipes import ASK, ASKED, SETUP, env_settings, lesson_cells
from test_gateway import jupyter_server, run_in  # the real-server harness

HEADING = "On your own computer"


@pytest.mark.timeout(600)  # real servers and kernels; ~1-2 min on a quiet machine
def test_the_single_user_recipe_runs_lesson_01_and_ask_with_the_panel_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), **env_settings(SETUP, HEADING, home)}
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    kernel_db = Path(env["RDSKIT_SANDBOX_DB"])
    assert kernel_db.parent == home  # the recipe's file, in the user's home
    with jupyter_server(tmp_path, env) as server:
        auth = {"Authorization": f"token {server.token}"}
        # JupyterLab's panel reads the gateway first: it starts the shared sandbox.
        panel = httpx.get(
            f"http://127.0.0.1:{server.port}/rdskit/lab/summary", headers=auth, timeout=120
        )
        assert panel.status_code == 200, panel.text
        assert panel.json()["connected"]["mode"] == "sandbox"
        assert f"shared sandbox with database {kernel_db}" not in server.log.read_text()

        _, kernel = server.kernel()
        try:
            for cell in lesson_cells():
                run_in(kernel, cell)
            run_in(kernel, "%load_ext rdskit")
            run_in(kernel, ASK)
            asked = run_in(kernel, ASKED)
        finally:
            kernel.stop_channels()
        assert "['user', 'assistant'] True" in json.loads(asked[-1])["text"], asked

        _, again = server.kernel()  # a restarted notebook, same database
        try:
            found = run_in(
                again,
                "import rdskit\nclient = rdskit.Client.sandbox()\n"
                "print([d.name for d in client.datasets.list()])",
            )
        finally:
            again.stop_channels()
        assert "01 oat milk" in json.loads(found[0])["text"]
    # plain Python on the same file, once Jupyter is gone
    plain = subprocess.run(
        [sys.executable, "-c", "import rdskit; print(rdskit.Client.sandbox().me().plan.name)"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.strip() == env.get("RDSKIT_SANDBOX_PLAN", "Pro")
