"""notebooks/setup.md, "From the source", run as written: its ```bash block, in a copy of
the repository's tracked files (what a clone or the source archive holds, without this
tree's built extension, caches or virtual environment), with a Python that is not the
project's (the project's venv is taken off ``PATH``). The block makes its own ``.venv``,
installs from the copy (pip builds the wheel and, with npm, the JupyterLab extension), then
its two check lines print the version on the sandbox's plan and the extension enabled.

Slow: a fresh build environment (JupyterLab, for the extension), an npm build and the
course's extras: 24 minutes on the shared 2-core machine at load 15, less with warm pip and
npm caches."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from recipes import ROOT, SETUP, fenced

import rdskit

HEADING = "From the source"


def _copy_tracked_files(target: Path) -> None:
    """The repository's tracked files as they are in this tree, nothing else."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the tree but not yet in the index is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.mark.timeout(2700)
def test_the_from_source_recipe_installs_rdskit_and_its_extension(tmp_path: Path) -> None:
    (block,) = fenced(SETUP, HEADING, "bash")
    copy = tmp_path / "rdskit"
    _copy_tracked_files(copy)
    assert (copy / "pyproject.toml").is_file() and not (copy / ".venv").exists()
    assert not (copy / "src" / "rdskit" / "labextension").exists()  # built by the recipe

    home = tmp_path / "home"
    home.mkdir()
    project_bin = str(Path(sys.executable).parent)
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("RDSKIT_", "VIRTUAL_ENV", "PYTHONPATH", "JUPYTER"))
    }
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != project_bin)
    env["HOME"] = str(home)  # the sandbox's files go to a fresh home, not the tester's
    # The download caches stay the machine's (a cold cache only makes the run slower).
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env.setdefault("npm_config_cache", str(Path.home() / ".npm"))
    # bash -x traces each line on stderr, so a failure names the step it stopped at.
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        code = subprocess.run(
            ["bash", "-e", "-x", "-o", "pipefail", "-c", block],
            cwd=copy,
            env=env,
            stdout=stdout,
            stderr=stderr,
            timeout=2400,
        ).returncode
    printed = out.read_text()
    trace = [line for line in err.read_text().splitlines() if line.startswith("+ ")]
    assert code == 0, (printed[-3000:], err.read_text()[-3000:])
    assert f"rdskit {rdskit.__version__} on Pro" in printed, (printed[-2000:], trace)
    extension = next(line for line in printed.splitlines() if "jupyterlab-rdskit" in line)
    assert "enabled" in extension and "OK" in extension, extension

    # The environment it made runs the installed copy, not this tree's sources.
    where = subprocess.run(
        [str(copy / ".venv" / "bin" / "python"), "-c", "import rdskit; print(rdskit.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(copy / ".venv")), where
