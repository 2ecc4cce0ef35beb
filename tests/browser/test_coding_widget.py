"""The coding widget in a real JupyterLab and in Notebook 7 (Debian Chromium), coded by
keyboard only.

The ``lab`` and ``browser`` fixtures are test_answer_view.py's. A notebook written for this
module shows ``df.rds.code`` over 20 posts: the coder focuses the key box and types codes;
halfway the kernel is restarted (Kernel menu, Restart Kernel…; cells are run from their
prompt, as test_notebook_use.py does); the cell run again resumes at post
11 with nothing lost, and the last ten codes finish the sample. A second coder codes the
same posts, and an adjudicator settles their disagreements by keys. The files on disk are
the proof: every decision is there once, in order. Notebook 7 (its ``/notebooks/`` page, from
the same server) codes the 20 posts with a restart halfway the same way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from test_answer_view import (  # noqa: F401  (fixtures are used by name)
    CELL_MS,
    KERNEL_READY_MS,
    UI_MS,
    Lab,
    _errors_of,
    browser,
    lab,
)
from test_notebook_use import _open, _write

pytestmark = pytest.mark.browser

NOTEBOOK = "coding-widget.ipynb"
SETUP = """import pandas as pd
import rdskit
from rdskit.validation import Codebook
book = Codebook.of("sentiment", ["negative", "neutral", "positive"])
posts = pd.DataFrame({"source": ["reddit", "tiktok"] * 10, "id": [f"p{i}" for i in range(20)],
                      "text": [f"post number {i}" for i in range(20)]})"""
CELLS = [
    SETUP + '\nposts.rds.code(book, coder="ann", directory="codes")',
    'posts.rds.code(book, coder="bob", directory="codes")',
    'posts.rds.adjudicate(book, coders=["ann", "bob"], adjudicator="cy", directory="codes")',
]
ANN = "12312312313213213213"
BOB = "12312312313213213222"  # two differ: the last two (neutral for negative, positive)
NAMES = {"1": "negative", "2": "neutral", "3": "positive"}


PROMPT, EDITOR = ".jp-InputArea-prompt", ".jp-InputArea-editor"
STARTED_MS = 10_000
"""Notebook 7 drops a run asked for in the first seconds after its kernel indicator first
says idle (measured: Shift+Enter adds a cell below, the cell never runs; asked 4 s later,
it runs), as it may after a restart: a run not started within this is asked for again."""


def _run(page: Page, cell: Locator, select: str = PROMPT, *, again: bool = False) -> None:
    """Run a cell by keyboard: select it (Lab: its prompt, command mode; Notebook 7 runs
    Shift+Enter from the cell's editor only), Shift+Enter; with ``again``, press it once
    more when the run has not started (the prompt never showed ``[*]``) in
    :data:`STARTED_MS`. Re-running a coding widget's cell is harmless: it reads the file."""
    prompt = cell.locator(".jp-InputArea-prompt")
    cell.locator(select).click()
    page.keyboard.press("Shift+Enter")
    if again:
        try:
            expect(prompt).to_have_text("[*]:", timeout=STARTED_MS)
        except AssertionError:
            cell.locator(select).click()
            page.keyboard.press("Shift+Enter")
    expect(prompt).to_have_text(re.compile(r"\[\d+\]:"), timeout=CELL_MS)


def _type(page: Page, cell: Locator, keys: str) -> None:
    box = cell.locator(".rdskit-code-keys input")
    box.focus()  # the key box keeps the focus from here on
    for key in keys:
        page.keyboard.press(key)
        page.wait_for_timeout(120)


def _codes(path: Path) -> list[str]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    return [e["code"] for e in lines if e["event"] in ("code", "adjudicate")]


def _restart_kernel(page: Page, idle: Locator) -> None:
    """Restart the kernel from the Kernel menu, as a person does, confirm by keyboard, and
    wait until ``idle`` (the UI's own kernel-idle indicator) shows again."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…$")).click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_be_visible(timeout=UI_MS)
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden(timeout=UI_MS)
    expect(idle).to_be_visible(timeout=KERNEL_READY_MS)


def _code_with_a_restart(
    page: Page, cell: Locator, idle: Locator, codes: Path, select: str = PROMPT
) -> None:
    """Run ``cell`` (a coding widget over 20 posts), code ten posts by keyboard, restart
    the kernel, run it again: the new widget resumes at post 11 and the last ten finish
    the sample; ``codes`` (the coder's file) holds every decision once, in order."""
    again = select == EDITOR  # Notebook 7 (see STARTED_MS)
    _run(page, cell, select, again=again)
    assert not _errors_of(cell), _errors_of(cell)
    header = cell.locator(".rdskit-coding-progress")
    expect(header).to_contain_text("0 of 20 coded", timeout=UI_MS)
    _type(page, cell, ANN[:10])
    expect(header).to_contain_text("10 of 20 coded · post 11 of 20", timeout=UI_MS)
    before = header.element_handle()
    _restart_kernel(page, idle)
    _run(page, cell, select, again=again)
    # The widget on the page is the one the restarted kernel made, not the old one.
    page.wait_for_function("(old) => !old.isConnected", arg=before, timeout=UI_MS)
    expect(header).to_contain_text("10 of 20 coded · post 11 of 20", timeout=UI_MS)
    expect(cell.locator(".rdskit-coding-text")).to_contain_text("post number 10")
    _type(page, cell, ANN[10:])
    expect(header).to_contain_text("20 of 20 coded", timeout=UI_MS)
    expect(header).to_contain_text("all posts coded")
    assert _codes(codes) == [NAMES[k] for k in ANN]


def test_code_twenty_posts_by_keyboard_with_a_restart(lab: Lab, browser: Browser) -> None:  # noqa: F811
    _write(lab.notebook_dir / NOTEBOOK, CELLS)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_MS)
    try:
        cells = _open(page, lab, NOTEBOOK)
        idle = page.locator(".jp-StatusBar-Widget").get_by_text(
            re.compile(r"\(ipykernel\) \| Idle")
        )
        _code_with_a_restart(page, cells.nth(0), idle, lab.notebook_dir / "codes" / "ann.jsonl")

        # A second coder, then the adjudication of their two disagreements.
        second = cells.nth(1)
        _run(page, second)
        _type(page, second, BOB)
        expect(second.locator(".rdskit-coding-progress")).to_contain_text("20 of 20 coded")
        assert _codes(lab.notebook_dir / "codes" / "bob.jsonl") == [NAMES[k] for k in BOB]
        third = cells.nth(2)
        _run(page, third)
        judge = third.locator(".rdskit-coding-progress")
        expect(judge).to_contain_text("0 of 2 coded", timeout=UI_MS)
        expect(third.locator(".rdskit-coding-coders")).to_contain_text("ann")
        _type(page, third, "13")
        expect(judge).to_contain_text("2 of 2 coded", timeout=UI_MS)
        settled = lab.notebook_dir / "codes" / "cy.adjudication.jsonl"
        events = [json.loads(x) for x in settled.read_text(encoding="utf-8").splitlines()]
        assert [e["code"] for e in events] == ["negative", "positive"]
        assert events[0]["codes"] == {"ann": "negative", "bob": "neutral"}
    finally:
        page.close()


def test_code_in_notebook_7_by_keyboard_with_a_restart(lab: Lab, browser: Browser) -> None:  # noqa: F811
    """The same coding in Notebook 7's own UI (``/notebooks/...``, served by the same
    server: the ``notebook`` package of the dev group), with its menus and its kernel
    indicator."""
    name = "coding-widget-notebook7.ipynb"
    _write(lab.notebook_dir / name, [CELLS[0].replace('"codes"', '"codes-nb7"')])
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_MS)
    try:
        page.goto(f"{lab.url}/notebooks/{name}?token={lab.token}")
        # Notebook 7's page: its "open in JupyterLab" button, no Lab shell around it.
        expect(page.get_by_role("button", name="JupyterLab")).to_be_visible(timeout=UI_MS)
        assert page.locator(".jp-LabShell").count() == 0
        idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        expect(idle).to_be_visible(timeout=KERNEL_READY_MS)
        cell = page.locator(".jp-Notebook .jp-Cell").nth(0)
        codes = lab.notebook_dir / "codes-nb7" / "ann.jsonl"
        _code_with_a_restart(page, cell, idle, codes, select=EDITOR)
    finally:
        page.close()
