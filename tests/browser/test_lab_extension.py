"""The JupyterLab extension (``labextension/``) in a real JupyterLab and Debian's Chromium.

A notebook makes a dataset with a hostile name through the server's gateway
(``rdskit.Client()``) and starts a run; then, through the UI:

- the status bar item names the shared sandbox, the credits left and the runs in flight,
  and a click on it opens the side panel;
- the panel lists the dataset, its name shown as text exactly as written (no element,
  no script ran), and the run's status moves (seen running, then completed) while the
  panel polls ``/rdskit/lab/summary``;
- a pinned citation card closes with Escape (focus back on its marker), and a card near
  the window's bottom edge opens above its marker;
- "Insert loader" puts ``client.mentions.to_frame(dataset_ids=[...])`` into the notebook,
  and that cell runs.

The extension is the one the Python build made (``src/rdskit/labextension``, shipped in
the wheel under ``share/jupyter/labextensions``); a source checkout's build is found
through ``JUPYTER_PATH`` when the package is installed in editable mode.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from test_answer_view import (  # noqa: F401  (fixtures are used by name)
    CELL_MS,
    ROOT,
    UI_MS,
    Lab,
    _errors_of,
    _run_cell,
    browser,
    lab,
)
from test_notebook_use import _open, _write

pytestmark = pytest.mark.browser

NAME = "lab-extension.ipynb"
HOSTILE = '<img src=x onerror="window.__rdsPwned=1">Oat "milk" <b>&amp;</b>'
BUILT = ROOT / "src" / "rdskit" / "labextension"
INSTALLED = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-rdskit"

if not INSTALLED.exists() and (BUILT / "package.json").exists():
    # An editable install's build output: shown to the server through JUPYTER_PATH.
    _path = Path(tempfile.mkdtemp(prefix="rdskit-labext-"))
    (_path / "labextensions").mkdir()
    (_path / "labextensions" / "jupyterlab-rdskit").symlink_to(BUILT)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        part for part in (str(_path), os.environ.get("JUPYTER_PATH", "")) if part
    )

CELLS = [
    "import rdskit\nclient = rdskit.Client()  # the server's gateway (its shared sandbox)\n"
    "from IPython.display import HTML\nfrom rdskit.jupyter.render import PostCard, message_html\n"
    "from rdskit.models import PostReference\n"
    "refs = [PostReference(source='reddit', id='p1', citation=1, start_index=0, end_index=3)]\n"
    "cards = {1: PostCard(1, 'reddit', 'p1', excerpt='a post', url='https://r.example/p1')}\n"
    "HTML(message_html('Pricey [1].', refs, cards))",
    f"ds = client.datasets.create({HOSTILE!r})\n"
    "query = {'type': 'prompt', 'sources': ['reddit', 'tiktok'], 'search_query': 'oat milk'}\n"
    "run = client.datasets.runs.create(ds.id, search_query=query, count=200)\nprint(ds.id)",
]


def test_status_item_panel_live_runs_and_insert_code(lab: Lab, browser: Browser) -> None:  # noqa: F811
    assert INSTALLED.exists() or (BUILT / "package.json").exists(), (
        "the JupyterLab extension is not built: pip install -e . builds it (needs node)"
    )
    _write(lab.notebook_dir / NAME, CELLS)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_MS)
    try:
        cells = _open(page, lab, NAME)
        for index in range(len(CELLS)):
            _run_cell(page, cells.nth(index))
            assert not _errors_of(cells.nth(index)), _errors_of(cells.nth(index))
        # a pinned citation card closes with Escape, focus back on its marker
        summary = cells.nth(0).locator(".rds-marker summary")
        summary.focus()
        page.keyboard.press("Enter")
        marker = cells.nth(0).locator(".rds-marker")
        expect(marker).to_have_attribute("open", "")
        page.keyboard.press("Tab")  # into the card: its link
        assert page.evaluate("document.activeElement.className") == "rds-card-link"
        page.keyboard.press("Escape")
        expect(marker).not_to_have_attribute("open", "")
        assert page.evaluate("document.activeElement.className") == "rds-marker-num"

        # near the window's bottom edge the card opens above its marker, inside the window
        line = summary.bounding_box()
        assert line is not None
        height = int(line["y"] + line["height"] + 40)  # the marker 40 px above the bottom
        page.set_viewport_size({"width": 1400, "height": height})
        page.mouse.move(0, 0)
        summary.hover()
        card = marker.locator(".rds-card")
        expect(card).to_be_visible()
        expect(marker).to_have_class(re.compile(r"\brds-card-up\b"))
        box = card.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
        page.mouse.move(0, 0)
        page.set_viewport_size({"width": 1400, "height": 1000})

        dataset_id = cells.nth(1).locator(".jp-OutputArea-output").last.inner_text().strip()
        assert dataset_id.startswith("ds_"), dataset_id

        status = page.locator(".rds-lab-status")
        expect(status).to_contain_text(re.compile(r"rdskit: sandbox · [\d,.]+ credits"))
        status.click()
        panel = page.locator("#rdskit-panel")
        expect(panel).to_be_visible()
        expect(panel.locator(".rds-lab-credits")).to_contain_text("credits")
        item = panel.locator(f".rds-lab-dataset[data-id='{dataset_id}']")
        expect(item).to_be_visible(timeout=CELL_MS)

        # hostile service data is inert text
        assert item.locator(".rds-lab-dataset-name").text_content() == HOSTILE
        assert panel.locator("img, b, script").count() == 0
        assert page.evaluate("window.__rdsPwned") is None

        # the run's status moves in the panel
        seen: list[str] = []
        run_line = item.locator(".rds-lab-run").first
        for _ in range(CELL_MS // 1000):
            if run_line.count():
                state = run_line.get_attribute("data-status") or ""
                if not seen or seen[-1] != state:
                    seen.append(state)
                if state == "completed":
                    break
            page.wait_for_timeout(1000)
        assert seen and seen[-1] == "completed" and len(seen) >= 2, seen
        expect(status).to_contain_text("0 runs in flight", timeout=UI_MS)

        # insert code: the loader goes below the active cell, and runs
        before = cells.count()  # Shift+Enter on the last cell added an empty one
        cells.nth(1).locator(".jp-InputArea-prompt").click()
        item.locator(".rds-lab-insert-loader").click()
        expect(cells).to_have_count(before + 1)
        inserted = cells.nth(2)
        expect(inserted.locator(".jp-InputArea-editor")).to_contain_text(
            f'client.mentions.to_frame(dataset_ids=["{dataset_id}"])'
        )
        _run_cell(page, inserted)
        assert not _errors_of(inserted), _errors_of(inserted)
        expect(inserted.locator(".jp-OutputArea-output table").first).to_be_visible()
    finally:
        page.close()
