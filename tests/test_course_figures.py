"""Every figure in the lessons has a text alternative: the markdown cell right after a cell
that draws a chart describes it in words and says where its numbers are, for readers who
cannot see the image (screen readers read no pixels, and nbval compares none); and every
image in the lessons' markdown and the course pages has alt text. The convention is
docs/notebooks.md's ("Figures and alt text")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted([*NOTEBOOKS_DIR.glob("[0-9][0-9]-*.ipynb"), *NOTEBOOKS_DIR.glob("lab-*.ipynb")])
DRAWS = re.compile(r"\.rds\.plot\.|plt\.subplots|\.plot\(")
ALT = "*Figure (text alternative).*"
PAGES = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.md"))
MD_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\([^)]*\)")
HTML_IMAGE = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
HTML_ALT = re.compile(r"""\balt\s*=\s*(["'])\s*\S[^"']*\1""", re.IGNORECASE)


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


def images_without_alt(markdown: str) -> list[str]:
    """The Markdown (``![alt](src)``) and HTML (``<img alt=...>``) images with no alt text."""
    bare = [m.group(0) for m in MD_IMAGE.finditer(markdown) if not m.group("alt").strip()]
    return bare + [
        m.group(0) for m in HTML_IMAGE.finditer(markdown) if not HTML_ALT.search(m.group(0))
    ]


def test_the_alt_text_check_finds_images_without_it() -> None:
    assert images_without_alt("![](chart.png) and <img src='a.png'> and <img alt='' src=b>") == [
        "![](chart.png)",
        "<img src='a.png'>",
        "<img alt='' src=b>",
    ]
    assert images_without_alt('![Weekly posts, n per week](c.png) <img alt="A chart" src=d>') == []


@pytest.mark.parametrize("page", NOTEBOOKS + PAGES, ids=lambda p: p.name)
def test_every_image_in_the_markdown_has_alt_text(page: Path) -> None:
    if page.suffix == ".ipynb":
        cells = json.loads(page.read_text(encoding="utf-8"))["cells"]
        texts = [_source(c) for c in cells if c["cell_type"] == "markdown"]
    else:
        texts = [page.read_text(encoding="utf-8")]
    missing = [image for text in texts for image in images_without_alt(text)]
    assert not missing, f"{page.name}: images without alt text: {missing}"
