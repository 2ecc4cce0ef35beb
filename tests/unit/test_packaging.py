"""Packaging: every feature whose extra is missing names it in one line; the version has
one source; ``rdskit.mcp`` loads on first use; the package is typed (``py.typed``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rdskit
from rdskit._extras import MissingExtra

SRC = Path(rdskit.__file__).resolve().parent

# Runs ``code`` in a fresh interpreter where importing any of ``blocked`` fails as it does
# when the package is not installed (ModuleNotFoundError from the import system).
BLOCKER = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Block())
"""


def without(blocked: set[str], code: str) -> subprocess.CompletedProcess[str]:
    script = BLOCKER.format(blocked=blocked) + textwrap.dedent(code)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )


CASES = {
    "sandbox": (
        {"uvicorn"},
        "import rdskit\ntry:\n    rdskit.Client.sandbox()\nexcept rdskit.RdsError as e:\n"
        "    print(e)",
    ),
    "mcp": ({"mcp"}, "try:\n    import rdskit.mcp\nexcept ImportError as e:\n    print(e)"),
    "jupyter": (
        {"matplotlib"},
        "import rdskit.frames as f\ndf = f.mentions_frame([{'source': 'reddit', 'id': 'a',"
        " 'created_at': 0}])\ntry:\n    df.rds.plot.volume()\nexcept ImportError as e:\n"
        "    print(e)",
    ),
    "research": (
        {"openpyxl"},
        "import rdskit.frames as f\ndf = f.mentions_frame([{'source': 'reddit', 'id': 'a'}])\n"
        "try:\n    df.rds.to_excel('x.xlsx')\nexcept ImportError as e:\n    print(e)",
    ),
}


@pytest.mark.parametrize("extra", list(CASES))
def test_a_missing_extra_is_named_in_one_line(extra: str) -> None:
    blocked, code = CASES[extra]
    done = without(blocked, code)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip()
    assert "\n" not in line and line.endswith(f'pip install "rdskit[{extra}]"'), line
    assert next(iter(blocked)) in line


@pytest.mark.parametrize("command", [["sandbox", "--port", "0"], ["demo", "--out", "d"]])
def test_cli_without_the_sandbox_extra(command: list[str], tmp_path: Path) -> None:
    done = without(
        {"uvicorn"}, f"import sys\nfrom rdskit.cli import main\nsys.exit(main({command!r}))"
    )
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().endswith('pip install "rdskit[sandbox]"')


def test_missing_extra_is_an_rdskit_error_and_an_import_error() -> None:
    error = MissingExtra("x", "sandbox", "uvicorn")
    assert isinstance(error, rdskit.RdsError) and isinstance(error, ModuleNotFoundError)


def test_version_has_one_source() -> None:
    from importlib.metadata import version

    assert rdskit.__version__ == version("rdskit")  # the installed metadata reads it too
    pyproject = (SRC.parents[1] / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and 'path = "src/rdskit/_version.py"' in pyproject


def test_typed_and_licensed() -> None:
    assert (SRC / "py.typed").exists()
    assert (SRC.parents[1] / "LICENSE").read_text().startswith("MIT License")


def test_mcp_loads_without_an_explicit_import() -> None:
    done = without(set(), "import rdskit\nprint(rdskit.mcp.McpSession.__name__)")
    assert done.stdout.strip() == "McpSession", done.stderr
