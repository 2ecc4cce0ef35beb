"""The declared floors are true: the lowest version ``pyproject.toml`` allows of every
dependency passes the core, frames and sandbox tests.

:func:`test_the_lowest_declared_versions_pass_the_core_frames_and_sandbox_tests` makes a new
virtual environment with uv (from PyPI, in the dev group), installs rdskit there (editable,
with every extra) under a constraints file that pins each dependency of the base and of
every extra to its floor (``pydantic>=2.8`` -> ``pydantic==2.8``; where an extra raises a
base floor, the highest floor is the lowest version all of them accept), checks that those
exact versions were installed, and runs ``tests/unit tests/frames tests/sandbox`` there.
A floor that is too low fails it, naming the failed tests and the pins. The test tools of
the dev group come at their current versions: they are not rdskit's dependencies.

It is the longest single test of the suite (a few minutes), so the suite's scheduler
(``conftest.py``) starts it first and the other workers' tests overlap it. uv keeps its
downloads in ``.cache/uv`` at the top of the repository (git-ignored): the first run
downloads the wheels once, later runs install from there in seconds; nothing is written
below the real home. Run it alone: ``bash scripts/test tests/test_min_versions.py -n 0``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from uv import find_uv_bin

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
UV_CACHE = ROOT / ".cache" / "uv"
"""uv's downloads: inside the repository (git-ignored), never below the real home."""
TESTED = ("tests/unit", "tests/frames", "tests/sandbox")
WORKERS = 2
"""xdist workers of the inner run: its tests mostly compute (unlike the outer suite, which
mostly waits), so one per core."""


def floors(project: dict[str, Any]) -> dict[str, str]:
    """Each dependency of the base and of every extra -> its lowest declared version.

    A dependency without a ``>=`` floor is an error (its lowest version would be anything).

    >>> floors({"dependencies": ["a>=1.2,<2"], "optional-dependencies": {
    ...     "x": ["A>=1.10", "b>=3", "rdskit[x]"]}})
    {'a': '1.10', 'b': '3'}
    """
    found: dict[str, str] = {}
    extras = project.get("optional-dependencies", {})
    for text in [*project["dependencies"], *(r for group in extras.values() for r in group)]:
        requirement = Requirement(text)
        name = requirement.name.lower().replace("_", "-")
        if name == project.get("name", "rdskit"):
            continue  # an extra naming others of this package
        lows = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        if not lows:
            raise ValueError(f"{text!r} in pyproject.toml declares no floor (>=)")
        low = max(lows, key=Version)
        if name not in found or Version(low) > Version(found[name]):
            found[name] = low
    return found


def test_every_dependency_has_a_floor_and_the_highest_floor_wins() -> None:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    pins = floors(project)
    assert pins["pydantic"] == "2.12"  # the MCP SDK's need (sandbox, mcp) over the base 2.8
    assert {"numpy", "pandas", "pyarrow", "fastapi", "scikit-learn"} <= pins.keys()
    with pytest.raises(ValueError, match=r"'six' in pyproject\.toml declares no floor"):
        floors({"dependencies": ["six"], "optional-dependencies": {}})


def _run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, **kwargs)


def _failed(report: Path) -> list[str]:
    """The node ids that failed or errored in a JUnit XML report."""
    names = []
    for case in ET.parse(report).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            names.append(f"{case.get('classname')}::{case.get('name')}")
    return names


@pytest.mark.timeout(3600)  # minutes on an idle machine; a loaded one is far slower
def test_the_lowest_declared_versions_pass_the_core_frames_and_sandbox_tests(
    tmp_path: Path,
) -> None:
    uv = find_uv_bin()
    pins = floors(tomllib.loads(PYPROJECT.read_text())["project"])
    constraints = tmp_path / "floors.txt"
    constraints.write_text("".join(f"{name}=={low}\n" for name, low in pins.items()))
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    # SKIP_JUPYTER_BUILDER: the editable build would run npm and rewrite the extension
    # that the browser tests are serving meanwhile; these tests do not use it.
    env = {**os.environ, "UV_CACHE_DIR": str(UV_CACHE), "UV_LINK_MODE": "hardlink"}
    env["SKIP_JUPYTER_BUILDER"] = "1"
    for outer in ("VIRTUAL_ENV", "PYTHONPATH"):  # the new environment alone decides
        env.pop(outer, None)

    made = _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)], env=env)
    assert made.returncode == 0, made.stderr
    # Binary wheels only for the dependencies (a floor that needs a compiler is no floor a
    # user can install); rdskit itself is built from this tree.
    extras = ",".join(tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"])
    install = [uv, "pip", "install", "--quiet", "--python", str(python), "-c", str(constraints)]
    install += ["--only-binary", ":all:", "--no-binary", "rdskit", "-e", f".[{extras}]"]
    installed = _run([*install, "--group", "dev"], env=env, timeout=900)
    assert installed.returncode == 0, f"the floors did not install:\n{installed.stderr[-3000:]}"

    frozen = _run([uv, "pip", "freeze", "--python", str(python)], env=env)
    versions = dict(line.split("==", 1) for line in frozen.stdout.splitlines() if "==" in line)
    versions = {name.lower().replace("_", "-"): v for name, v in versions.items()}
    wrong = {
        name: versions.get(name, "nothing")
        for name, low in pins.items()
        if name not in versions or Version(versions[name]) != Version(low)
    }
    assert not wrong, f"installed instead of the floors: {wrong}"

    report = tmp_path / "junit.xml"
    inner = [str(python), "-m", "pytest", *TESTED, "-q", "-p", "no:cacheprovider"]
    inner += ["-o", "addopts=-ra --strict-markers", "-n", str(WORKERS), f"--junitxml={report}"]
    try:
        done = _run(inner, env=env, timeout=3000)  # before the mark's timeout: a clear message
    except subprocess.TimeoutExpired:
        pytest.fail(f"the tests on the floors did not finish in 3000 s: {' '.join(inner)}")
    pinned = " ".join(f"{name}=={low}" for name, low in pins.items())
    if done.returncode != 0:
        failed = _failed(report) if report.exists() else []
        listing = "\n  ".join(failed[:30]) or "(no report: see the output)"
        pytest.fail(
            f"the lowest declared versions ({pinned}) fail {len(failed)} test(s) of "
            f"{' '.join(TESTED)}:\n  {listing}\n--- output (end) ---\n{done.stdout[-4000:]}"
            f"{done.stderr[-2000:]}",
            pytrace=False,
        )
    assert " passed" in done.stdout.splitlines()[-1], done.stdout[-2000:]
