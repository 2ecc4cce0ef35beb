"""The scopes the root conftest hands out first (``FIRST``) name test files that exist: a
renamed or deleted file would leave a stale entry that silently orders nothing."""

from __future__ import annotations

import ast
from pathlib import Path

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
