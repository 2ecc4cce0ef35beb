"""wait() in a plain script shows one updating line when stderr is a terminal, nothing when
it is a file or a pipe (issue 24)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from rdskit.jupyter.progress import choose_mode


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_display_is_the_text_line_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert choose_mode(None) == "text"
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert choose_mode(None) is None
    assert choose_mode(False) is None and choose_mode(True) == "text"


SCRIPT = """
import rdskit
client = rdskit.Client.sandbox()
ds = client.datasets.create("tty")
run = client.datasets.runs.create(ds.id, search_query={"type": "prompt",
    "sources": ["reddit"], "search_query": "oat milk"}, count=20)
run.wait()
print("done", run.id)
"""


def run_script(stderr: int) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "RDSKIT_SANDBOX_SPEED": "20", "PYTHONPATH": os.pathsep.join(sys.path)}
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, stderr=stderr, env=env,
        timeout=180,
    )  # fmt: skip


def test_a_script_on_a_terminal_shows_one_line_and_a_pipe_nothing() -> None:
    leader, follower = os.openpty()
    try:
        done = run_script(follower)
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0 and done.stdout.startswith(b"done")
    assert b"\r" in shown and b"completed" in shown  # one line rewritten in place
    piped = run_script(subprocess.PIPE)
    assert piped.returncode == 0 and piped.stderr == b""
