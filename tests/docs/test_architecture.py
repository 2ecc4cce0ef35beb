"""docs/architecture.md is drawn from the code as it is: every folder and top-level module
of the sandbox is named in its map, and every path it names in the sandbox exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SANDBOX = ROOT / "src" / "rdskit" / "sandbox"
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
