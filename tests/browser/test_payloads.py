"""The payload matrix in a real browser: a trusted JupyterLab notebook shows every view of
hostile service data, and nothing runs or leaves the page.

The JupyterLab server and Chromium are those of ``test_answer_view.py`` (its ``lab`` and
``browser`` fixtures and cell helpers, reused by import). A notebook written next to its
notebook runs one cell that displays, for every payload of
``tests/jupyter/security_payloads.py``: every model repr, the answer view, the alert view,
the ``%rds status`` view, the error cards, the progress panel of each run kind, and the
answer's ``text/markdown`` form (rendered by JupyterLab's own markdown renderer, which in
a trusted notebook passes raw HTML). Outputs produced in the session are trusted, so
JupyterLab sanitises none of them: rdskit's escaping is all that stands in the way.

Checked: no dialog opened (every script payload calls ``alert``), no request went to a
host other than the Jupyter server (``page.on('request')``: the beacon payloads point at
``evil.example``), and the DOM of the outputs holds no script, image, frame, event
handler attribute or payload-made class, even after hovering every citation marker.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect
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

NOTEBOOK = "payloads.ipynb"
PAYLOAD_HELPERS = Path(__file__).resolve().parents[1] / "jupyter"

CELL = f"""
import sys
sys.path.insert(0, {str(PAYLOAD_HELPERS)!r})
from IPython.display import HTML, display
from rdskit.jupyter.render import answer_bundle
from security_payloads import PAYLOADS, answer_of, renders

RUN_KINDS = ("DatasetRun", "AudienceRun", "CustomParameterRun", "PatternDetectionRun",
             "TrackingRun")
views = 0
for payload in PAYLOADS:  # one HTML output per payload: JupyterLab folds more than 50 outputs
    parts = []
    for label, html in renders(payload):
        if label.startswith("progress") and not (
            label.endswith("running") and label.split()[1] in RUN_KINDS
        ):
            continue  # one state per run kind keeps the page light; all are parsed elsewhere
        parts.append(html)
    display(HTML("".join(parts)))
    display({{"text/markdown": answer_bundle(answer_of(payload))["text/markdown"]}}, raw=True)
    views += len(parts) + 1
print("shown", len(PAYLOADS), views)
"""

# What the page must not hold inside the notebook's outputs.
FORBIDDEN = (
    "script, img, iframe, frame, object, embed, svg, video, audio, link, meta, base, form, "
    "[onerror], [onload], [onmouseover], [onclick], [onfocus], [src], [class*=PWN], "
    "[data-pwn3], [data-pwn4], a[href^='javascript' i], a[href^='data' i]"
)


def _write_notebook(path: Path) -> None:
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": CELL.strip(),
            }
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook), encoding="utf-8")


def test_hostile_service_data_renders_inert_in_a_trusted_notebook(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    _write_notebook(lab.notebook_dir / NOTEBOOK)
    own = urlsplit(lab.url).netloc
    requests: list[str] = []
    dialogs: list[str] = []
    page: Page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_MS)
    page.on("request", lambda request: requests.append(request.url))

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        page.goto(f"{lab.url}/lab/tree/{NOTEBOOK}?reset&token={lab.token}")
        kernel_idle = page.locator(".jp-StatusBar-Widget").get_by_text(
            re.compile(r"\(ipykernel\) \| Idle")
        )
        expect(kernel_idle).to_be_visible(timeout=KERNEL_READY_MS)
        cell = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").first
        _run_cell(page, cell)
        assert not _errors_of(cell), _errors_of(cell)
        printed = cell.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']"
        )
        expect(printed).to_contain_text("shown ", timeout=CELL_MS)
        payloads, views = map(int, printed.inner_text().split()[-2:])
        outputs = cell.locator(".jp-OutputArea-output")
        expect(outputs).to_have_count(2 * payloads + 1, timeout=CELL_MS)  # + the printed line
        assert cell.locator(".rds-answer").count() >= 18  # the answer views did render
        # Hover every citation marker of the first answers: cards open (handlers would run).
        markers = cell.locator(".rds-marker")
        for index in range(min(markers.count(), 12)):
            markers.nth(index).hover()
        page.mouse.move(0, 0)
        page.wait_for_timeout(1500)  # time for any stray load or timer to fire
        forbidden = cell.locator(".jp-OutputArea-output").locator(FORBIDDEN)
        found = forbidden.evaluate_all("els => els.map(e => e.outerHTML.slice(0, 200))")
    finally:
        page.close()
    foreign = [
        url
        for url in requests
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).netloc != own
    ]
    assert dialogs == [], dialogs
    assert foreign == [], foreign[:10]
    assert found == [], found[:10]
    assert payloads == 18 and views > payloads * 20
