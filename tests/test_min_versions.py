"""The declared floors are true: the lowest version ``pyproject.toml`` allows of every
dependency passes the tests of the code that calls those dependencies.

:func:`test_the_lowest_declared_versions_pass_the_floor_sensitive_tests` makes a new virtual
environment with uv (from PyPI, in the dev group), installs rdskit there (editable, with
every extra) under a constraints file that pins each dependency of the base and of every
extra to its floor (``httpx>=0.27`` -> ``httpx==0.27``; where an extra raises a base floor,
the highest floor is the lowest version all of them accept), checks that those exact
versions were installed, and runs :data:`TESTED` there. A floor that is too low fails it,
naming the failed tests and the pins. The test tools of the dev group come at their current
versions: they are not rdskit's dependencies.

:data:`TESTED` is not the whole suite a second time: it is the tests of the code that calls
the floor-sensitive libraries (the client on httpx and pydantic, the frames on pandas,
pyarrow, numpy, scipy, networkx and openpyxl, the validation statistics on krippendorff,
the sandbox's HTTP layer on FastAPI, uvicorn and pydantic, its MCP server on mcp, its
text tools on numpy and vaderSentiment). The sandbox's state, rules and assistant are
SQLite and plain Python whose tests would repeat at the floors what the main run already
proves; they are listed in :data:`NOT_TESTED` with
the reason, and a test below keeps the two lists covering every sandbox test file.

It is the longest single test of the suite, so the suite's scheduler (``conftest.py``)
starts it first and the other workers' tests overlap it. uv keeps its downloads in
``.cache/uv`` at the top of the repository (git-ignored): the first run downloads the wheels
once, later runs install from there in seconds; nothing is written below the real home. Run
it alone: ``bash scripts/test tests/test_min_versions.py -n 0``.
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
SANDBOX_TESTED = (
    "test_account.py",  # the routes: FastAPI + pydantic models, each way over HTTP
    "test_admin.py",
    "test_ask.py",
    "test_audiences.py",
    "test_custom_parameters.py",
    "test_datasets.py",
    "test_mentions.py",
    "test_patterns.py",
    "test_platforms.py",  # the emulator-only route opened by a key (FastAPI, pydantic)
    "test_previews.py",
    "test_tracking.py",
    "test_mention_wire.py",  # the wire shape of a mention (pydantic serialisation)
    "test_hardening.py",  # hostile input against FastAPI/pydantic validation and uvicorn
    "test_openapi_fuzz.py",  # the OpenAPI document FastAPI and pydantic generate
    "test_infra.py",  # uvicorn serving and stopping, the CLI
    "test_start_failures.py",  # start() failing part-way closes uvicorn's socket
    "test_mcp.py",  # the MCP SDK (the reason pydantic's floor is 2.12)
    "test_enrichment.py",  # vaderSentiment
    "test_determinism.py",  # numpy's clustering, the same on every BLAS
)
"""The sandbox test files that run at the floors: those of code that calls a dependency."""
NOT_TESTED = {
    "test_sandbox_keys.py": "a notebook sandbox's own key and the 401 wording: SQLite rules",
    "test_sandbox_without_mcp.py": "the sandbox without the MCP SDK: nothing at a floor",
    "test_wallet_admin.py": "the instructor's wallet command: SQLite and plain Python",
    "test_windows_in_time.py": "no post dated after its collection: plain Python",
    "test_mention_pages.py": "per-dataset sort keys and their pages: SQLite",
    "test_billing.py": "prices and ledger rules: SQLite and plain Python",
    "test_chaos.py": "fault injection rules (its routes are fuzzed by test_hardening.py)",
    "test_clock.py": "the simulated clock: plain Python",
    "test_corpus.py": "the generated corpus: plain Python",
    "test_corpus_teaching.py": "the course's corpus: plain Python",
    "test_corpus_unchanged.py": "the product corpus's bytes against main's: plain Python",
    "test_social_topics.py": "the corpus's social topics: plain Python (the sentiment "
    "scoring it reads runs at the floors in test_enrichment.py)",
    "test_embedded_plan.py": "plan tables: plain Python",
    "test_fidelity.py": "behaviour matching the contract, proven by the main run",
    "test_paid_once.py": "SQLite transactions: a paid request is stored once",
    "test_run_engine.py": "the run queue: SQLite and threads",
    "test_sandbox_layers.py": "an import-graph check of the source, not a run",
    "test_worker_fairness.py": "the worker pool's scheduling: threads",
    "test_worker_stopped.py": "a worker whose threads die fails its runs: threads and SQLite",
    "eval": "the assistant's planner and answers: plain Python rules over SQLite",
    "test_ask_this_period.py": "the assistant's date reading: plain Python rules",
    "test_ask_dates.py": "the assistant's one date reader: plain Python rules",
    "test_truth.py": "the generator's truth read back: plain Python (the correction it "
    "checks runs at the floors in tests/validation)",
}
"""The sandbox tests that do not run at the floors, each with why the floors cannot break it."""
TESTED = (
    "tests/unit",
    "tests/frames",  # it caught pyarrow 20's utf8_normalize (tests/frames/test_pseudonymise*)
    "tests/validation",  # krippendorff (0.6 uses np.float_, gone in numpy 2), scipy, numpy
    *(f"tests/sandbox/{name}" for name in SANDBOX_TESTED),
)
NOT_AT_FLOORS = (
    "tests/frames/test_export_bench.py",
    "tests/frames/test_export_cli.py",
    "tests/unit/test_cli_errors.py",
    "tests/unit/test_cli_hostile.py",
)
"""Left out of :data:`TESTED`'s folders: files that run, through a new process each time
(the ``rdskit`` command, the export benchmark's script), the same client, frames and export
code the in-process tests run at the floors (tests/frames/test_exports.py,
test_round_trips.py, tests/unit/test_client*.py...): at the floors only their process
start-ups differ (a third of the floors' test time), not what a dependency does."""
FUZZ_EXAMPLES = "5"
"""Cases per operation of the fuzz at the floors (the main run's: 25). What the floors can
break there is the OpenAPI document FastAPI and pydantic generate and how they validate and
serialise (every operation is still fuzzed, every check run); the handlers' rules are the
same code as in the main run, fuzzed there with five times the cases."""
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
    assert pins["pydantic"] == "2.12"  # the MCP SDK's need, declared by the base itself
    assert {"numpy", "pandas", "pyarrow", "fastapi", "scikit-learn"} <= pins.keys()
    with pytest.raises(ValueError, match=r"'six' in pyproject\.toml declares no floor"):
        floors({"dependencies": ["six"], "optional-dependencies": {}})


def test_every_sandbox_test_file_is_run_at_the_floors_or_says_why_not() -> None:
    sandbox = ROOT / "tests" / "sandbox"
    present = {p.name for p in sandbox.glob("test_*.py")} | {"eval"}
    listed = set(SANDBOX_TESTED) | NOT_TESTED.keys()
    assert not set(SANDBOX_TESTED) & NOT_TESTED.keys()
    assert present == listed, {"unlisted": present - listed, "gone": listed - present}
    assert [path for path in NOT_AT_FLOORS if not (ROOT / path).is_file()] == []


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
def test_the_lowest_declared_versions_pass_the_floor_sensitive_tests(
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
    env["RDSKIT_FUZZ_EXAMPLES"] = FUZZ_EXAMPLES
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
    inner += [f"--ignore={path}" for path in NOT_AT_FLOORS]
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
