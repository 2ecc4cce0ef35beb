"""Every benchmark reports a miss in its exit status (the rule in the common brief): its
``main`` returns an ``int`` status and the script exits with it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

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


def _unfixed_clocks(tree: ast.Module) -> list[str]:
    """Where a benchmark collects or serves posts without a fixed time: ``corpus.collect``
    without ``now=``, ``start(...)`` without ``today=``, an ``rdskit.cli sandbox`` command
    without ``--today`` (the corpus's window ends at the collection time, so on another day
    the same script would measure other posts)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            keywords = {k.arg for k in node.keywords}
            if name == "corpus.collect" and "now" not in keywords:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
            if name == "start" and "today" not in keywords:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.FunctionDef):
            texts = {n.value for n in ast.walk(node) if isinstance(n, ast.Constant)}
            if {"rdskit.cli", "sandbox"} <= texts and "--today" not in texts:
                found.append(f"line {node.lineno}: {node.name}() runs rdskit sandbox")
    return sorted(found, key=lambda line: int(line.split(":")[0].split()[1]))


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_every_benchmark_collects_at_a_fixed_time(path: Path) -> None:
    assert _unfixed_clocks(ast.parse(path.read_text())) == []


def test_the_clock_check_finds_each_kind_of_unfixed_clock() -> None:
    source = """
def a():
    corpus.collect(7, query, 10)
    corpus.collect(7, query, 10, now=NOW)
def b():
    with start(speed=10) as s, start(today=TODAY) as t:
        pass
def c():
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--port", "0"]
def d():
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--today", TODAY]
"""
    found = _unfixed_clocks(ast.parse(source))
    assert [line.split(":")[0] for line in found] == ["line 3", "line 6", "line 8"]


def _run_all() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("run_all", BENCHMARKS[0].parent / "run_all.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("run_all", module)  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_script_is_in_the_table_and_the_readme_is_its_rendering() -> None:
    """``run_all.BENCHMARKS`` describes every script (and no other), and the README's table
    is what ``run_all.py --render`` writes from it and ``results.json``: a script added
    without its row, or a hand-edited table, fails here."""
    import json

    run_all: Any = _run_all()
    assert sorted(run_all.BENCHMARKS) == [path.stem for path in BENCHMARKS]
    results = json.loads(run_all.RESULTS.read_text()) if run_all.RESULTS.exists() else {}
    readme = run_all.README.read_text()
    table = readme.split(run_all.START, 1)[1].split(run_all.END, 1)[0].strip()
    assert table == run_all.render(results)
    for path in BENCHMARKS:
        assert f"`{path.name}`" in table


def test_the_table_says_when_a_figure_missed_its_target() -> None:
    run_all: Any = _run_all()
    missed = {"figures": ["x: 3.1x (target <= 2x: NOT met)"], "exit": 1, "date": "2026-01-02",
              "machine": "cpu, 2 cores", "load": "1.0 before, 1.2 after"}  # fmt: skip
    rendered = run_all.render({"bench_research": missed})
    row = next(line for line in rendered.splitlines() if "bench_research.py" in line)
    assert "MISSED (exit 1)" in row and "NOT met" in row and "load 1.0 before" in row
    assert "not run yet" in next(line for line in rendered.splitlines() if "bench_abuse" in line)


def test_every_benchmark_imports() -> None:
    """Each script's imports resolve (one name moved or renamed in another script or in
    rdskit broke a benchmark once, and no test runs the benchmarks themselves)."""
    code = (
        "import importlib.util, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "for path in sys.argv[2:]:\n"
        "    spec = importlib.util.spec_from_file_location(path.rsplit('/', 1)[-1][:-3], path)\n"
        "    module = importlib.util.module_from_spec(spec)\n"
        "    sys.modules[spec.name] = module\n"
        "    spec.loader.exec_module(module)\n"
    )
    import subprocess

    folder = str(BENCHMARKS[0].parent)
    done = subprocess.run(
        [sys.executable, "-c", code, folder, *map(str, BENCHMARKS)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
