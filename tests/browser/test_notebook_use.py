"""The notebook under real use, in a real browser (JupyterLab + Debian Chromium).

The JupyterLab server and Chromium are those of ``test_answer_view.py`` (its ``lab`` and
``browser`` fixtures and cell helpers, reused by import: one server for this module). A
notebook written for this module runs, through the UI:

- a dataset run whose progress bar is watched while it runs: its width must grow in
  steps before the end (``.rds-progress-bar > span``);
- an ``%%ask`` whose answer cards, for the first and the last marker, must lie fully
  inside the viewport and the output area at 700 px and 1400 px, in the light and the
  dark theme;
- the same answer saved into a second, unsigned notebook, opened UNTRUSTED (JupyterLab
  sanitizes it: no ``<style>``, no ``tabindex``): a click pins a card, Tab reaches a
  marker and shows a visible focus ring, Enter pins its card;
- ``%rds budget`` then ``rdskit.Client()`` (through the server's gateway): a paid call
  beyond the budget is refused before it is sent.

Screenshots go to a temporary directory whose path is printed (CI keeps it as artifacts).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from test_answer_view import (  # noqa: F401  (fixtures are used by name)
    CELL_MS,
    KERNEL_READY_MS,
    UI_MS,
    Lab,
    _errors_of,
    _run_cell,
    browser,
    lab,
)

pytestmark = pytest.mark.browser

NOTEBOOK = "notebook-use.ipynb"
UNTRUSTED = "untrusted-answer.ipynb"
WIDTHS = (700, 1400)

CELLS = [
    "%load_ext rdskit\n%rds connect --sandbox",
    # a run long enough to be watched (the embedded sandbox runs at real speed)
    """import rdskit
client = rdskit.jupyter.current_session().client
ds = client.datasets.create("Oat milk")
query = {"type": "prompt", "sources": ["reddit", "tiktok", "youtube", "instagram"],
         "search_query": "oat milk"}
run = client.datasets.runs.create(ds.id, search_query=query, count=200)
run = run.wait()""",
    "%%ask --dataset {ds.id} --out answer\nWhat do people complain about?",
    # the answer in a notebook this session never signed: JupyterLab opens it untrusted
    f"""import nbformat
from rdskit.jupyter.render import answer_bundle
_nb = nbformat.v4.new_notebook(metadata={{"kernelspec": {{"name": "python3",
    "display_name": "Python 3", "language": "python"}}}})
_nb.cells.append(nbformat.v4.new_code_cell("answer", outputs=[
    nbformat.v4.new_output("display_data", data=answer_bundle(answer))]))
nbformat.write(_nb, {UNTRUSTED!r})
print("written")""",
    # the kernel-wide budget covers a client made in the notebook (through the gateway)
    """%rds budget 5
fresh = rdskit.Client()
target = fresh.datasets.create("Budget check")
try:
    fresh.datasets.runs.create(target.id, search_query=query, count=500)
except rdskit.errors.BudgetExceeded as exc:
    print("REFUSED:", exc)
else:
    print("NOT REFUSED")""",
]

# Records the width of the progress bar at every change of the cell's output.
WATCH_BAR_JS = """
(cell) => {
  window.__rdsBar = [];
  const look = () => {
    const bar = cell.querySelector('.rds-progress-bar > span');
    if (bar) {
      const state = bar.closest('.rds-progress').getAttribute('data-state');
      window.__rdsBar.push([bar.getBoundingClientRect().width,
                            bar.parentElement.getBoundingClientRect().width, state]);
    }
  };
  new MutationObserver(look).observe(cell, {subtree: true, childList: true,
                                            attributes: true, characterData: true});
}
"""


@pytest.fixture(scope="module")
def shots() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="rdskit-browser-"))
    print(f"\nscreenshots: {path}")
    yield path


def _write(path: Path, sources: list[str]) -> None:
    cells = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s}
        for s in sources
    ]
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")


def _open(page: Page, server: Lab, name: str) -> Locator:
    page.goto(f"{server.url}/lab/tree/{name}?reset&token={server.token}")
    idle = page.locator(".jp-StatusBar-Widget").get_by_text(re.compile(r"\(ipykernel\) \| Idle"))
    expect(idle).to_be_visible(timeout=KERNEL_READY_MS)
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")


def _theme(page: Page, dark: bool) -> None:
    """Switch JupyterLab's theme through the Settings menu, as a person does."""
    theme = "JupyterLab Dark" if dark else "JupyterLab Light"
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Theme$")).hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(rf"^{theme}$")).click()
    expect(page.locator("body")).to_have_attribute(
        "data-jp-theme-light", "false" if dark else "true", timeout=UI_MS
    )


def _inside(inner: dict[str, float], outer: dict[str, float], slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def _check_card(page: Page, marker: Locator, area: Locator, what: str, shot: Path) -> None:
    """Pin ``marker``'s card by a click; it must be visible, inside the viewport and the
    output area, and readable (not a sliver); unpin it afterwards."""
    marker.locator("summary").scroll_into_view_if_needed()
    marker.locator("summary").click()
    card = marker.locator(".rds-card")
    expect(card).to_be_visible(timeout=UI_MS)
    card.scroll_into_view_if_needed()
    box, output = card.bounding_box(), area.bounding_box()
    assert box is not None and output is not None
    viewport = page.viewport_size
    assert viewport is not None
    screen = {"x": 0, "y": 0, "width": viewport["width"], "height": viewport["height"]}
    page.screenshot(path=str(shot))
    assert _inside(box, screen), f"{what}: card {box} leaves the viewport {screen}"
    assert _inside(box, output), f"{what}: card {box} leaves the output area {output}"
    # readable: ~20 em at least (a card in a nested list item is as wide as the item)
    assert box["width"] >= min(240.0, output["width"] * 0.7), f"{what}: a sliver {box}"
    marker.locator("summary").click()  # unpin
    page.mouse.move(0, 0)  # hovering shows it too
    expect(card).to_be_hidden(timeout=UI_MS)


def test_the_notebook_under_real_use(lab: Lab, browser: Browser, shots: Path) -> None:  # noqa: F811
    _write(lab.notebook_dir / NOTEBOOK, CELLS)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_MS)
    try:
        cells = _open(page, lab, NOTEBOOK)
        expect(cells).to_have_count(len(CELLS))
        _run_cell(page, cells.nth(0))
        assert not _errors_of(cells.nth(0)), _errors_of(cells.nth(0))

        # -- progress that moves --------------------------------------------------------------
        cells.nth(1).evaluate(WATCH_BAR_JS)
        _run_cell(page, cells.nth(1))
        assert not _errors_of(cells.nth(1)), _errors_of(cells.nth(1))
        page.screenshot(path=str(shots / "progress-final-1400.png"))
        seen: list[list[Any]] = page.evaluate("window.__rdsBar")
        live = [width / total for width, total, state in seen if state == "running" and total]
        assert live, f"no live progress bar was seen: {seen[:10]}"
        assert live == sorted(live), f"the bar went back: {live}"
        moving = sorted({round(share, 3) for share in live if 0 < share < 0.999})
        assert len(moving) >= 2, f"the bar did not grow during the run: {live}"
        final = cells.nth(1).locator(".rds-progress")
        expect(final).to_have_attribute("data-state", "completed")
        assert "completed in" in final.inner_text()

        # -- the answer: cards that fit ------------------------------------------------------
        _run_cell(page, cells.nth(2))
        assert not _errors_of(cells.nth(2)), _errors_of(cells.nth(2))
        ask_text = cells.nth(2).locator(".rds-progress").inner_text()
        assert "question sent" in ask_text and "references resolved" in ask_text
        markers = cells.nth(2).locator(".rds-marker")
        expect(markers.first).to_be_visible(timeout=UI_MS)
        area = cells.nth(2).locator(".jp-OutputArea-output:has(.rds-answer)")
        for dark in (False, True):
            _theme(page, dark)
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                for which, marker in (("first", markers.first), ("last", markers.last)):
                    theme = "dark" if dark else "light"
                    _check_card(
                        page,
                        marker,
                        area,
                        f"{which} marker at {width}px ({theme})",
                        shots / f"card-{which}-{width}-{theme}.png",
                    )
        _theme(page, False)
        page.set_viewport_size({"width": 1400, "height": 1000})

        # -- the budget covers a client made in the notebook -------------------------------
        _run_cell(page, cells.nth(3))
        _run_cell(page, cells.nth(4))
        printed = cells.nth(4).locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']"
        )
        expect(printed).to_contain_text("REFUSED:", timeout=CELL_MS)
        assert "budget" in printed.inner_text().lower()
    finally:
        page.close()

    # -- the answer in an untrusted notebook -------------------------------------------------
    assert (lab.notebook_dir / UNTRUSTED).exists()
    page = browser.new_page(viewport={"width": 700, "height": 900})
    page.set_default_timeout(UI_MS)
    try:
        cells = _open(page, lab, UNTRUSTED)
        answer = cells.first.locator(".rds-answer")
        expect(answer).to_be_visible(timeout=UI_MS)
        # sanitized: the style sheet is gone, and nothing would carry tabindex or a role
        assert answer.locator("style").count() == 0, "this notebook should be untrusted"
        markers = answer.locator(".rds-marker")
        area = cells.first.locator(".jp-OutputArea-output:has(.rds-answer)")
        for which, marker in (("first", markers.first), ("last", markers.last)):
            _check_card(page, marker, area, f"untrusted {which}", shots / f"untrusted-{which}.png")
        # Tab reaches a marker; its focus ring is visible; Enter pins its card.
        first = markers.first.locator("summary")
        first.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.className")
        assert "rds-marker-num" in focused, f"Tab landed on {focused!r}"
        ring = first.evaluate(
            "el => { const s = getComputedStyle(el); return [s.outlineStyle, s.outlineWidth]; }"
        )
        assert ring[0] != "none" and float(ring[1].rstrip("px")) >= 1, f"no focus ring {ring}"
        page.screenshot(path=str(shots / "untrusted-focus.png"))
        page.keyboard.press("Enter")
        expect(markers.first.locator(".rds-card")).to_be_visible(timeout=UI_MS)
        page.screenshot(path=str(shots / "untrusted-pinned.png"))
    finally:
        page.close()
