"""The tutorial notebooks as committed: executed, explained, keyless, linked.

``pytest --nbval`` (on by default, see pyproject.toml) re-runs every notebook and compares
its outputs; these checks cover what that cannot see: that outputs were committed at all
(a notebook without outputs passes nbval vacuously), how to leave the sandbox, no API key
anywhere in the file, and the kernelspec nbval falls back to.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
EXPECTED = [
    "01-quickstart.ipynb",
    "02-ask-and-references.ipynb",
    "03-audiences.ipynb",
    "04-custom-parameters-and-patterns.ipynb",
    "05-tracking-agents.ipynb",
    "06-credits-and-usage.ipynb",
    "07-research-workflow.ipynb",
]
KEY = re.compile(r"bz_(live|test)_[0-9a-fA-F]{32}")
MARKER = re.compile(r"NBVAL_\w+")
LINK = re.compile(r"\]\((?P<target>[^)#\s]+\.ipynb)(#[^)]*)?\)")


def _load(name: str) -> dict[str, Any]:
    notebook: dict[str, Any] = json.loads((NOTEBOOKS_DIR / name).read_text(encoding="utf-8"))
    return notebook


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _code_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def test_the_tutorials_are_there() -> None:
    assert sorted(p.name for p in NOTEBOOKS_DIR.glob("*.ipynb")) == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_executed_in_order_with_outputs_and_no_errors(name: str) -> None:
    cells = _code_cells(_load(name))
    assert cells, f"{name} has no code cell"
    counts = [cell.get("execution_count") for cell in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{name}: execution counts {counts}; execute it top to bottom in a fresh kernel "
        "(jupyter nbconvert --to notebook --execute --inplace)"
    )
    outputs = [output for cell in cells for output in cell.get("outputs", [])]
    assert outputs, f"{name} was committed without outputs"
    errors = [o.get("ename") for o in outputs if o.get("output_type") == "error"]
    assert not errors, f"{name} has error outputs: {errors}"
    stderr = [o.get("text") for o in outputs if o.get("name") == "stderr"]
    assert not stderr, f"{name} writes to stderr (warnings?): {stderr}"


@pytest.mark.parametrize("name", EXPECTED)
def test_first_cell_tells_how_to_use_a_real_key(name: str) -> None:
    first = _load(name)["cells"][0]
    text = _source(first)
    assert first["cell_type"] == "markdown"
    for needed in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "rdskit.Client()", "%rds connect"):
        assert needed in text, f"{name}: the first cell does not mention {needed}"


@pytest.mark.parametrize("name", EXPECTED)
def test_no_api_key_anywhere(name: str) -> None:
    raw = (NOTEBOOKS_DIR / name).read_text(encoding="utf-8")
    found = KEY.search(raw)
    assert found is None, f"{name} contains an API key at offset {found.start() if found else 0}"


@pytest.mark.parametrize("name", EXPECTED)
def test_kernelspec_is_python3(name: str) -> None:
    kernelspec = _load(name)["metadata"].get("kernelspec", {})
    assert kernelspec.get("name") == "python3"
    assert kernelspec.get("language") == "python"


@pytest.mark.parametrize("name", EXPECTED)
def test_ignored_outputs_are_marked_so_nbval_sees_it_and_say_why(name: str) -> None:
    """nbval only honours a marker alone on its comment line (anything after it turns the
    marker into a plain comment, silently); the next line must say why."""
    for cell in _code_cells(_load(name)):
        lines = _source(cell).splitlines()
        for number, line in enumerate(lines):
            if not MARKER.search(line):
                continue
            assert line.strip() == "# NBVAL_IGNORE_OUTPUT", (
                f"{name}: {line.strip()!r} is not a marker nbval reads; only "
                "'# NBVAL_IGNORE_OUTPUT' alone on its line is used in these notebooks"
            )
            reason = lines[number + 1].strip() if number + 1 < len(lines) else ""
            assert reason.startswith("#") and len(reason) > 20, (
                f"{name}: the line after NBVAL_IGNORE_OUTPUT must be a comment saying why"
            )


@pytest.mark.parametrize("name", EXPECTED)
def test_links_to_other_notebooks_resolve(name: str) -> None:
    for cell in _load(name)["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        for match in LINK.finditer(_source(cell)):
            target = match.group("target")
            assert (NOTEBOOKS_DIR / target).is_file(), f"{name} links to missing {target}"
