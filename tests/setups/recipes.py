"""The set-up recipes of the docs, read from the Markdown files themselves, and the
lesson cells every recipe runs: a doc edit changes what the set-up tests run.

- :func:`env_settings`: the backticked ``NAME=value`` settings of a section's list;
- :func:`python_blocks`: the ```python blocks of a section;
- :func:`spawner_environment`: ``c.Spawner.environment`` of a section's config block, by
  executing the block as JupyterHub would (``c`` a traitlets ``Config``);
- :func:`lesson_cells`: the code cells of a lesson up to its first collection (lesson
  01's first checkpoint, then its "01 oat milk" dataset); :func:`first_cells`: any
  lesson's (:data:`LESSONS`) up to its first paid step;
- :data:`ASK`: a ``%%ask`` cell about the lesson's dataset, :data:`ASKED` what it left.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from traitlets.config import Config

ROOT = Path(__file__).resolve().parents[2]
# The real-server harness (jupyter_server, run_in) lives with the gateway's tests.
sys.path.insert(0, str(ROOT / "tests" / "jupyter"))
SETUP = ROOT / "notebooks" / "setup.md"
JUPYTER = ROOT / "docs" / "jupyter.md"
TEACHING = ROOT / "docs" / "teaching.md"

ASK = '%%ask --dataset "01 oat milk" --out answer\nHow many posts are there per platform?'
"""A ``%%ask`` about the dataset lesson 01's first cells create (its answer in ``answer``)."""

ASKED = (
    "rows = client.chats.messages(answer.chat_id, order='asc').data\n"
    "print([row.role for row in rows], list(rows[0].context.dataset_ids) == [ds.id])"
)
"""Prints what the ``%%ask`` left in the sandbox: ``['user', 'assistant'] True``."""

_SETTING = re.compile(r"^\s*[-*] `(RDSKIT_[A-Z_]+)=([^`]+)`", re.MULTILINE)
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def section(path: Path, heading: str) -> str:
    """The text of ``path`` under the Markdown heading ``heading`` (to the next heading of
    the same or a higher level); fails when the heading is gone, so a renamed section is
    noticed instead of testing nothing."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    fenced_ = False  # a '# comment' in a code block is no heading
    start, level = None, 0
    for number, line in enumerate(lines):
        if line.startswith("```"):
            fenced_ = not fenced_
            continue
        found = None if fenced_ else re.match(r"^(#+) (.*?)\s*$", line)
        if found is None:
            continue
        if start is None and found.group(2) == heading:
            start, level = number + 1, len(found.group(1))
        elif start is not None and len(found.group(1)) <= level:
            return "".join(lines[start:number])
    assert start is not None, f"{path.name} has no heading {heading!r}"
    return "".join(lines[start:])


def env_settings(path: Path, heading: str, home: Path) -> dict[str, str]:
    """The ``NAME=value`` settings listed in the section, as a shell would expand them
    with ``HOME`` set to ``home``."""
    found = dict(_SETTING.findall(section(path, heading)))
    assert found, f"{path.name} § {heading} lists no RDSKIT_ setting"
    return {name: _expand(value, home) for name, value in found.items()}


def python_blocks(path: Path, heading: str) -> list[str]:
    """The ```python blocks of the section, in order."""
    return fenced(path, heading, "python")


def fenced(path: Path, heading: str, language: str) -> list[str]:
    """The fenced blocks of ``language`` (```bash, ```python) of the section, in order."""
    return [code for lang, code in _FENCE.findall(section(path, heading)) if lang == language]


def spawner_environment(path: Path, heading: str, home: Path) -> dict[str, str]:
    """``c.Spawner.environment`` as the section's ``jupyterhub_config.py`` block sets it,
    with the image's home (``/home/jovyan``) moved to ``home`` (each simulated user's)."""
    (block,) = [code for code in python_blocks(path, heading) if "c.Spawner" in code]
    c = Config()
    exec(block, {"c": c})  # the block as JupyterHub's config loader runs it
    environment = dict(c.Spawner.environment)
    assert environment, f"{path.name} § {heading} sets no spawner environment"
    return {
        name: str(value).replace("/home/jovyan", str(home)) for name, value in environment.items()
    }


def lesson_cells(
    name: str = "01-quickstart", *, through: str = "client.datasets.runs.create("
) -> list[str]:
    """The code cells of ``notebooks/<name>.ipynb`` up to and including the first one that
    contains ``through``."""
    notebook = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    cells: list[str] = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        cells.append("".join(cell["source"]))
        if through in cells[-1]:
            return cells
    raise AssertionError(f"{name} has no code cell with {through!r}")


LESSONS = sorted(path.stem for path in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
"""The course's lessons, 01 to 10, in order."""

PAID = re.compile(
    r"runs\.create\(|research_previews\.create\(|^pinned = preview|\.ask\(|%%ask|\.trigger\("
    r"|pattern_detections\.create\(|paid_step\(",
    re.MULTILINE,
)
"""A paid call in a lesson's cell (its first one ends a lesson's "first cells")."""


def first_cells(name: str) -> list[str]:
    """The code cells of lesson ``name`` up to and including its first paid step."""
    notebook = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    cells: list[str] = []
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cells.append("".join(cell["source"]))
            if PAID.search(cells[-1]):
                return cells
    raise AssertionError(f"{name} has no paid step")


def _expand(value: str, home: Path) -> str:
    """``$HOME`` (the only variable the recipes use) as the shell expands it."""
    return re.sub(r"\$HOME\b|\$\{HOME\}", str(home), value)
