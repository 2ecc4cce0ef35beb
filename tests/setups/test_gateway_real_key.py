"""docs/jupyter.md, "The gateway with a real key", run as written: the ```bash block puts
a key in ``~/.rdskit/api-key`` (the key typed on its standard input, as a user pastes it),
the ```python block is the server's ``~/.jupyter/jupyter_server_config.py``, with a started
sandbox playing the real service (its URL in place of ``https://api.example.com``, one of
its keys pasted). A kernel then runs lesson 01's first cells with ``rdskit.Client()`` in
place of ``rdskit.Client.sandbox()`` and a budget first, as notebooks/setup.md's "With a
real key" says, and a ``%%ask``; the kernel never sees the key. And README's plain
Python with the key in the environment, without Jupyter."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from recipes import ASK, ASKED, JUPYTER, ROOT, SETUP, fenced, lesson_cells, section
from test_gateway import jupyter_server, run_in  # the real-server harness

import rdskit
from rdskit.sandbox import start

HEADING = "The gateway with a real key"
README = ROOT / "README.md"
SERVICE = "https://api.example.com"


@pytest.mark.timeout(900)  # a real server, kernel and sandbox; ~2 min on a quiet machine
def test_the_real_key_recipe_runs_lesson_01_and_ask_through_the_gateway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (shell,) = fenced(JUPYTER, HEADING, "bash")
    (config,) = fenced(JUPYTER, HEADING, "python")
    assert SERVICE in config
    # setup.md's steps that the kernel follows (a renamed step is noticed here)
    steps = section(SETUP, "With a real key")
    assert "replace `rdskit.Client.sandbox()` with `rdskit.Client()`" in steps
    assert "`%load_ext rdskit` then `%rds budget 300`" in steps
    home = tmp_path / "home"
    home.mkdir()
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY", "RDSKIT_SANDBOX_DB"):
        monkeypatch.delenv(name, raising=False)
    with start(speed=50) as service:
        env = {"HOME": str(home), "JUPYTER_CONFIG_DIR": str(home / ".jupyter")}
        subprocess.run(
            ["bash", "-c", shell],
            input=service.api_key + "\n",  # pasted, then Enter (and Ctrl-D: end of input)
            text=True,
            env={**os.environ, **env},
            timeout=60,
            check=True,
        )
        key_file = home / ".rdskit" / "api-key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        (home / ".jupyter").mkdir()
        (home / ".jupyter" / "jupyter_server_config.py").write_text(
            config.replace(SERVICE, service.url), encoding="utf-8"
        )
        with jupyter_server(tmp_path, env) as server:
            _, kernel = server.kernel()
            try:
                run_in(kernel, "%load_ext rdskit")
                run_in(kernel, "%rds budget 300")
                for cell in lesson_cells():
                    run_in(kernel, cell.replace("rdskit.Client.sandbox()", "rdskit.Client()"))
                run_in(kernel, ASK)
                asked = run_in(kernel, ASKED)
                seen = run_in(
                    kernel,
                    "import json, os\nprint(json.dumps({'mode': client._core.api_key.mode,"
                    " 'env': dict(os.environ)}))",
                )
            finally:
                kernel.stop_channels()
        assert "['user', 'assistant'] True" in json.loads(asked[-1])["text"], asked
        said = json.loads(json.loads(seen[-1])["text"])
        assert said["mode"] == "service"  # through the gateway, to the service
        assert service.api_key not in json.dumps(said["env"])  # the kernel never had the key
        # What the kernel did happened on the service's account: its dataset is there.
        with rdskit.Client(service.api_key, base_url=service.url) as owner:
            assert "01 oat milk" in [d.name for d in owner.datasets.list()]


@pytest.mark.timeout(600)
def test_plain_python_with_a_key_in_the_environment_runs_lesson_01(tmp_path: Path) -> None:
    """README's client section: "for the real service use ``rdskit.Client()`` with
    ``RDSKIT_API_KEY`` and ``RDSKIT_BASE_URL`` set", in a plain Python process (no
    Jupyter), a sandbox playing the service: lesson 01's first cells as one script, then
    the section's ``client.ask`` block as written (its ``client`` and ``ds`` are the
    lesson's)."""
    readme = README.read_text(encoding="utf-8")
    assert "use `rdskit.Client()` with `RDSKIT_API_KEY` and `RDSKIT_BASE_URL` set" in readme
    blocks = fenced(README, "The client", "python")
    (ask,) = [block for block in blocks if block.startswith("answer = client.ask(")]
    script = "\n\n".join(
        [cell.replace("rdskit.Client.sandbox()", "rdskit.Client()") for cell in lesson_cells()]
        + [ask]
    )
    with start(speed=50) as service:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RDSKIT_")}
        env.update(
            RDSKIT_API_KEY=service.api_key,
            RDSKIT_BASE_URL=service.url,
            RDSKIT_CACHE_DIR=os.environ["RDSKIT_CACHE_DIR"],
            HOME=str(tmp_path),
        )
        ran = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=500,
            cwd=ROOT / "notebooks",
        )
        assert ran.returncode == 0, ran.stderr[-3000:]
        assert "✓ On track" in ran.stdout and "✗" not in ran.stdout, ran.stdout
        assert "completed: 200 posts in '01 oat milk'" in ran.stdout
        answer = ran.stdout.split("completed: 200 posts in '01 oat milk'", 1)[1]
        assert re.search(r"\[1\]", answer) and "citation" in answer, answer  # text, posts
        assert service.api_key not in ran.stdout + ran.stderr
        with rdskit.Client(service.api_key, base_url=service.url) as owner:
            assert "01 oat milk" in [d.name for d in owner.datasets.list()]
