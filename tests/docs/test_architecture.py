"""docs/architecture.md is drawn from the code as it is: every folder and top-level module
of the sandbox is named in its map, and every path it names in the sandbox exists; its
module map (every other module, with the first sentence of its docstring) is rendered from
the tree (``python tests/docs/test_architecture.py`` prints it)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "rdskit"
SANDBOX = PACKAGE / "sandbox"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_every_sandbox_folder_and_module_is_in_the_map() -> None:
    named = set(re.findall(r"`sandbox/([\w/.*]+)`", DOC))
    missing = []
    for path in sorted(SANDBOX.iterdir()):
        if path.name.startswith(("_", ".")) and path.name != "__init__.py":
            continue
        if path.is_dir() and (path / "__init__.py").exists():
            entry = f"{path.name}/"
        elif path.suffix == ".py":
            entry = path.name
        else:
            continue
        if entry not in named and not (entry.startswith("assistant") and "assistant*.py" in named):
            missing.append(entry)
    assert missing == [], f"docs/architecture.md does not map sandbox/{missing}"


def test_every_sandbox_path_the_map_names_exists() -> None:
    named = set(re.findall(r"`sandbox/([\w/.]+)`", DOC))
    assert named, "the map names no sandbox path"
    assert sorted(n for n in named if not (SANDBOX / n).exists()) == []


def test_the_core_paragraph_names_every_hard_dependency() -> None:
    # The docs once said the core needs httpx, pydantic and platformdirs only while
    # pyproject made numpy, pandas, pyarrow and mistune hard dependencies too.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0] for spec in project["dependencies"]}
    core = DOC[DOC.index("**Core**") : DOC.index("**Frames**")]
    assert sorted(name for name in names if not re.search(rf"\b{name}\b", core)) == []


MAP_START = "<!-- module map: rendered by tests/docs/test_architecture.py -->"
MAP_END = "<!-- end of the module map -->"


def _summary(path: Path) -> str:
    """The first sentence of a module's docstring, as markdown."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    end = first.find(". ")
    first = (first[: end + 1] if end > 0 else first).rstrip(".:")
    first = re.sub(r":(?:mod|func|class|meth|data|attr):`~?([^`]+)`", r"`\1`", first)
    return first.replace("``", "`").replace("|", "/")


def module_map() -> str:
    """Every module outside the sandbox (package ``__init__`` files aside), one row each."""
    rows = [
        f"| `{path.relative_to(PACKAGE).as_posix()}` | {_summary(path)} |"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__init__.py" and SANDBOX not in path.parents
    ]
    return "\n".join(["| module | holds |", "|---|---|", *rows])


def test_the_module_map_is_the_tree() -> None:
    # A module added, moved or removed (or its docstring's first sentence changed) shows here.
    start, end = DOC.index(MAP_START) + len(MAP_START), DOC.index(MAP_END)
    assert DOC[start:end].strip() == module_map()


if __name__ == "__main__":
    print(MAP_START, module_map(), MAP_END, sep="\n")
