"""Static checks, run by the suite (so the README's test command and .ci/run run them too):

- ``mypy`` strict on every package of ``src/rdskit`` (options in ``pyproject.toml``);
- the README's asyncio example type-checks against ``rdskit.AsyncClient``, whose types are
  generated (``rdskit/_async.pyi``), and the generated stub is up to date;
- ``ruff check`` passes on the project.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from rdskit._stubgen import render

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
STUB = ROOT / "src" / "rdskit" / "_async.pyi"


def _run(*command: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_mypy_strict_on_every_package() -> None:
    done = _run(sys.executable, "-m", "mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_async_stub_is_generated_from_the_resources() -> None:
    assert STUB.read_text(encoding="utf-8") == render(), (
        "src/rdskit/_async.pyi is stale: run `python -m rdskit._stubgen > src/rdskit/_async.pyi`"
    )


def _async_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    (example,) = [block for block in blocks if "AsyncClient" in block]
    return "import rdskit\n" + example


def _mypy_strict(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    sample = tmp_path / "sample.py"
    sample.write_text(source, encoding="utf-8")
    config = str(ROOT / "pyproject.toml")
    return _run(sys.executable, "-m", "mypy", "--strict", "--config-file", config, str(sample))


def test_the_readme_async_example_type_checks(tmp_path: Path) -> None:
    done = _mypy_strict(_async_example(), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_misuse_of_the_async_client_fails_the_type_check(tmp_path: Path) -> None:
    # The check must be able to fail: forgetting ``await`` is a type error on AsyncClient.
    done = _mypy_strict(
        "import rdskit\n\n\n"
        "async def main() -> str:\n"
        "    async with rdskit.AsyncClient.sandbox() as aclient:\n"
        "        dataset = aclient.datasets.get('ds_1')\n"
        "        return dataset.name\n",
        tmp_path,
    )
    assert done.returncode == 1 and 'Awaitable[Dataset]" has no attribute "name"' in done.stdout


def test_ruff_check() -> None:
    done = _run(sys.executable, "-m", "ruff", "check", ".")
    assert done.returncode == 0, done.stdout + done.stderr
