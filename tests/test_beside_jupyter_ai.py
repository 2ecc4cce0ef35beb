"""rdskit installs beside jupyter-ai 3 (issue 34): ``pip install "rdskit[jupyter]"
"jupyter-ai==3.2.*"`` resolves. jupyter-ai pulls fastmcp, which pins ``mcp<2``; rdskit's
sandbox and jupyter extras used to pin ``mcp>=2.3,<3`` (ResolutionImpossible), and now
leave the MCP SDK to the ``mcp`` extra (the sandbox's /mcp/ endpoint names it when it is
missing: tests/sandbox/test_sandbox_without_mcp.py).

pip resolves rdskit's ``jupyter`` extra as pyproject.toml declares it (its self-references
expanded, so nothing is built) with jupyter-ai, from PyPI, and installs nothing
(``--dry-run``). It reads the index: a few minutes on a loaded machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def requirements(extra: str) -> list[str]:
    """The base dependencies and those of ``extra``, its ``rdskit[...]`` expanded."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras: dict[str, list[str]] = project["optional-dependencies"]
    wanted, seen, found = [extra], set(), list(project["dependencies"])
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        for requirement in extras[name]:
            if requirement.startswith("rdskit["):
                wanted.extend(requirement.removeprefix("rdskit[").rstrip("]").split(","))
            else:
                found.append(requirement)
    return found


@pytest.mark.timeout(900)
def test_the_jupyter_extra_resolves_beside_jupyter_ai_3(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
         "--only-binary", ":all:", "--quiet", "--report", str(report),
         *requirements("jupyter"), "jupyter-ai==3.2.*"],
        capture_output=True, text=True, timeout=880,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    chosen = {
        item["metadata"]["name"].lower().replace("_", "-"): item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    assert chosen["jupyter-ai"].startswith("3.2.")
    assert {"fastapi", "uvicorn", "jupyterlab", "ipywidgets"} <= chosen.keys()
    assert "mcp" not in requirements("jupyter") and "mcp" not in " ".join(requirements("sandbox"))
