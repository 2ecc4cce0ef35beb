"""The scopes the root conftest hands out first (``FIRST``) name test files that exist: a
renamed or deleted file would leave a stale entry that silently orders nothing."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def first_scopes(source: str) -> list[str]:
    """The strings of the module-level ``FIRST = (...)`` of a conftest's source."""
    tree = ast.parse(source)
    (value,) = (
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "FIRST"
    )
    return [str(scope) for scope in ast.literal_eval(value)]


def stale(scopes: list[str], root: Path) -> list[str]:
    """The scopes naming no file under ``root`` (reruns scopes name a notebook)."""
    missing = []
    for scope in scopes:
        if scope.startswith("reruns "):
            exists = (root / "notebooks" / scope.removeprefix("reruns ")).is_file()
        else:
            exists = (root / scope).is_file()
        if not exists:
            missing.append(scope)
    return missing


def test_every_first_scope_names_an_existing_test_file() -> None:
    scopes = first_scopes((ROOT / "conftest.py").read_text())
    assert scopes, "the conftest's FIRST is empty or gone"
    assert stale(scopes, ROOT) == []


def test_a_stale_scope_is_found(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_here.py").write_text("")
    source = 'FIRST = (\n    "tests/test_here.py",\n    "tests/test_gone.py",\n)\n'
    assert stale(first_scopes(source), tmp_path) == ["tests/test_gone.py"]


FUZZ = "tests/sandbox/test_openapi_fuzz.py"


def test_the_fuzzed_operations_each_have_a_node_id_of_their_own(
    request: pytest.FixtureRequest,
) -> None:
    # pytest-xdist sends tests to workers by node id: items sharing one (schemathesis's
    # operations did) collapse into one, and the others never run, with nothing failing.
    # In the whole suite every worker has collected the fuzz file: its items are read from
    # this session; run alone, the file is collected in a child pytest.
    ids = [item.nodeid for item in request.session.items if item.nodeid.startswith(FUZZ)]
    if not ids:
        ids = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0",
             "-p", "no:cacheprovider", FUZZ],
            cwd=ROOT, capture_output=True, text=True, timeout=240, check=True,
        ).stdout.splitlines()  # fmt: skip
    ids = [line for line in ids if "::test_no_server_error" in line]
    assert len(ids) > 40, ids[-5:]  # every /v1 operation
    assert len(set(ids)) == len(ids), sorted(i for i in ids if ids.count(i) > 1)[:3]
