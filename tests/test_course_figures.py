"""Every figure in the lessons has a text alternative: the markdown cell right after a cell
that draws a chart describes it in words and says where its numbers are, for readers who
cannot see the image (screen readers read no pixels, and nbval compares none)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9][0-9]-*.ipynb"))
DRAWS = re.compile(r"\.rds\.plot\.|plt\.subplots|\.plot\(")
ALT = "*Figure (text alternative).*"


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_has_a_text_alternative(notebook: Path) -> None:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        image = any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))
        if not (image or DRAWS.search(_source(cell))):
            continue
        after = cells[i + 1] if i + 1 < len(cells) else {"cell_type": "none"}
        text = _source(after)
        assert after["cell_type"] == "markdown" and text.startswith(ALT), (
            f"{notebook.name}, cell {i} draws a figure: the next cell must start with {ALT!r}"
        )
        assert len(text.split()) >= 25, f"{notebook.name}, cell {i + 1}: describe the figure"
