"""Every benchmark reports a miss in its exit status (the rule in the common brief): its
``main`` returns an ``int`` status and the script exits with it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_the_exit_status_says_whether_the_target_was_met(path: Path) -> None:
    tree = ast.parse(path.read_text())
    main = next(
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "main"
    )
    assert ast.unparse(main.returns or ast.Constant(None)) == "int", "main() must return a status"
    returns = [node for node in ast.walk(main) if isinstance(node, ast.Return)]
    assert returns and all(node.value is not None for node in returns)
    guard = tree.body[-1]
    assert isinstance(guard, ast.If) and "__main__" in ast.unparse(guard.test)
    assert ast.unparse(guard.body[-1]).startswith("sys.exit(main("), "exit with main()'s status"


def test_every_benchmark_is_checked() -> None:
    assert len(BENCHMARKS) >= 10
