"""A class on JupyterHub, simulated as the docs set it up: each student's single-user
Jupyter server runs on this machine with its own ``HOME`` and the environment
``c.Spawner.environment`` gives it, read from the ``jupyterhub_config.py`` blocks of
notebooks/setup.md ("A class on JupyterHub") and docs/teaching.md ("A sandbox per student
on JupyterHub"), the image's ``/home/jovyan`` moved to the student's home.

Student A (setup.md's block) opens JupyterLab (the panel starts the gateway's shared
sandbox), runs lesson 01's first cells and a ``%%ask``; student B (teaching.md's block),
on another server at the same time, sees none of A's datasets and runs the same cells.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from recipes import ASK, ASKED, SETUP, TEACHING, lesson_cells, spawner_environment
from test_gateway import Server, jupyter_server, run_in

CLASS = [
    ("alice", SETUP, "A class on JupyterHub"),
    ("bob", TEACHING, "A sandbox per student on JupyterHub"),
]


@pytest.fixture
def servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Server]]:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY", "RDSKIT_SANDBOX_DB"):
        monkeypatch.delenv(name, raising=False)
    with ExitStack() as stack:
        started = []
        for user, doc, heading in CLASS:
            home = tmp_path / user
            home.mkdir()
            env = {"HOME": str(home), **spawner_environment(doc, heading, home)}
            assert env["RDSKIT_SANDBOX_DB"].startswith(str(home))  # per student
            started.append(stack.enter_context(jupyter_server(home, env)))
        yield started


@pytest.mark.timeout(600)  # real servers and kernels; ~1-2 min on a quiet machine
def test_each_student_runs_lesson_01_and_ask_in_their_own_sandbox(servers: list[Server]) -> None:
    for server in servers:  # JupyterLab's panel reads each server's gateway first
        panel = httpx.get(
            f"http://127.0.0.1:{server.port}/rdskit/lab/summary",
            headers={"Authorization": f"token {server.token}"},
            timeout=120,
        )
        assert panel.status_code == 200, panel.text
    alice, bob = servers
    _, kernel = alice.kernel()
    try:
        for cell in lesson_cells():
            run_in(kernel, cell)
        run_in(kernel, "%load_ext rdskit")
        run_in(kernel, ASK)
        asked = run_in(kernel, ASKED)
    finally:
        kernel.stop_channels()
    assert "['user', 'assistant'] True" in json.loads(asked[-1])["text"], asked

    _, other = bob.kernel()
    try:
        seen = run_in(
            other,
            "import rdskit\nprint([d.name for d in rdskit.Client.sandbox().datasets.list()])",
        )
        for cell in lesson_cells(through="client.has_feature("):
            run_in(other, cell)
    finally:
        other.stop_channels()
    assert json.loads(seen[0])["text"].strip() == "[]"  # nothing of Alice's
