"""The answer view in a real browser: JupyterLab on loopback, driven by headless Chromium.

One module-scoped JupyterLab server (its own token, port, runtime, settings and workspace
directories under pytest's tmp dir) serves an output-free copy of
``notebooks/02-ask-and-references.ipynb``. The test runs its cells in order through the
UI up to the first ``%%ask`` cell and checks, in the rendered page:

- a progress display (``.rds-progress``) appeared while the assistant was working, before
  the answer (watched by a MutationObserver, so a fast answer cannot hide it);
- the answer shows ``[N]`` markers (``.rds-marker[data-ref]``) matching its references list;
- hovering marker 1, and then focusing marker 2 by a click, shows that post's card
  (``.rds-card``), and the card shows the text of the post the reference points at, read
  independently in the same kernel through ``answer.resolve(ref)`` (``POST /v1/mentions``).

A screenshot of the page with a card open is saved as
``tests/browser/artifacts/answer-view.png`` (git-ignored), and the server log beside it.
Chromium is Debian's ``/usr/bin/chromium`` (``.ci/run`` installs it): Playwright never
downloads a browser here, and a missing browser fails the test.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jupyter_client import BlockingKernelClient
from lab_server import Lab, LabSpec, chromium, running_labs, write_settings
from playwright.sync_api import Browser, Locator, Page, expect

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "02-ask-and-references.ipynb"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

KERNEL_READY_MS = 120_000
CELL_MS = 180_000
"""One cell: the dataset run takes ~10 s on the sandbox; leave room for a loaded machine."""
UI_MS = 30_000

# Installed before the %%ask cell runs: records, per mutation, whether the cell showed a
# progress display and whether the answer (a marker) was already there.
WATCH_JS = """
(cell) => {
  window.__rdsSeen = [];
  const look = () => {
    const progress = cell.querySelector('.rds-progress');
    window.__rdsSeen.push({
      progress: progress !== null,
      state: progress ? (progress.getAttribute('data-state') || '') : '',
      answer: cell.querySelector('.rds-marker') !== null,
    });
  };
  new MutationObserver(look).observe(cell, {subtree: true, childList: true,
                                            attributes: true, characterData: true});
}
"""


def _without_outputs(source: Path, target: Path) -> dict[str, Any]:
    """Copy a notebook with its outputs cleared: whatever the page shows comes from this run."""
    notebook: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    target.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    return notebook


@pytest.fixture(scope="module")
def notebook_cells() -> list[dict[str, Any]]:
    notebook: dict[str, Any] = json.loads((ROOT / "notebooks" / NOTEBOOK).read_text("utf-8"))
    cells: list[dict[str, Any]] = notebook["cells"]
    return cells


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    base = tmp_path_factory.mktemp("lab")
    notebook_dir = base / "notebooks"
    notebook_dir.mkdir()
    _without_outputs(ROOT / "notebooks" / NOTEBOOK, notebook_dir / NOTEBOOK)
    settings_dir = base / "settings"
    write_settings(settings_dir)
    runtime_dir = base / "runtime"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL")  # the sandbox only, never a key
    }
    env |= {
        "JUPYTER_CONFIG_DIR": str(base / "config"),  # no user config
        "JUPYTER_DATA_DIR": str(base / "data"),  # no user kernelspecs
        "JUPYTER_RUNTIME_DIR": str(runtime_dir),  # kernel connection files, read below
        "JUPYTERLAB_SETTINGS_DIR": str(settings_dir),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),  # no restored layout
    }
    with running_labs([LabSpec(notebook_dir, env, runtime_dir, ARTIFACTS / "jupyterlab.log")]) as (
        server,
    ):
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


# -- helpers ----------------------------------------------------------------------------------
def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _first_ask(cells: list[dict[str, Any]]) -> tuple[int, str]:
    """Index of the first ``%%ask`` cell and the variable its ``--out`` stores the answer in."""
    for index, cell in enumerate(cells):
        text = _source(cell)
        if cell["cell_type"] == "code" and text.startswith("%%ask"):
            out = re.search(r"--out[ =](\w+)", text.splitlines()[0])
            assert out, f"the first %%ask cell of {NOTEBOOK} needs --out NAME for this test"
            return index, out.group(1)
    raise AssertionError(f"{NOTEBOOK} has no %%ask cell")


def _errors_of(cell: Locator) -> str:
    stderr = cell.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    return "\n".join(stderr.all_inner_texts())


def _run_cell(page: Page, cell: Locator) -> None:
    """Select a code cell by its prompt (command mode), Shift+Enter, wait for its number."""
    prompt = cell.locator(".jp-InputArea-prompt")
    prompt.click()
    page.keyboard.press("Shift+Enter")
    expect(prompt).to_have_text(re.compile(r"\[\d+\]:"), timeout=CELL_MS)


def _kernel_lookup(lab: Lab, code: str) -> dict[str, Any]:
    """Run ``code`` in the notebook's kernel on a second connection; its stdout as JSON."""
    sessions = httpx.get(f"{lab.url}/api/sessions", params={"token": lab.token}, timeout=10)
    sessions.raise_for_status()
    (session,) = [s for s in sessions.json() if s["path"].endswith(NOTEBOOK)]
    client = BlockingKernelClient()
    client.load_connection_file(lab.runtime_dir / f"kernel-{session['kernel']['id']}.json")
    client.start_channels(hb=False)  # a 1 s heartbeat misreads a loaded machine as a dead kernel
    chunks: list[str] = []

    def collect(message: dict[str, Any]) -> None:
        if message["msg_type"] == "stream" and message["content"]["name"] == "stdout":
            chunks.append(message["content"]["text"])
        if message["msg_type"] == "error":
            chunks.append("ERROR " + "\n".join(message["content"]["traceback"]))

    try:
        reply = client.execute_interactive(
            code, store_history=False, timeout=60, output_hook=collect
        )
    finally:
        client.stop_channels()
    text = "".join(chunks)
    assert reply["content"]["status"] == "ok", text
    result: dict[str, Any] = json.loads(text)
    return result


def _words(text: str) -> str:
    return " ".join(text.split())


def _assert_card_shows(card: Locator, post: dict[str, Any], citation: int) -> None:
    expect(card).to_be_visible(timeout=UI_MS)
    head = card.locator(".rds-card-head").inner_text()
    assert post["source"] in head.lower(), f"card [{citation}] head {head!r} names no source"
    excerpt = _words(card.locator(".rds-card-text").inner_text()).rstrip("…").rstrip()
    assert len(excerpt) >= 20, f"card [{citation}] shows too little text: {excerpt!r}"
    full = _words(post["text"] or "")
    assert full.startswith(excerpt), (
        f"card [{citation}] shows {excerpt!r}, but reference {citation} is "
        f"{post['source']}:{post['id']} whose text is {full[:200]!r}"
    )


# -- the test ---------------------------------------------------------------------------------
def test_answer_view_in_jupyterlab(
    lab: Lab, browser: Browser, notebook_cells: list[dict[str, Any]]
) -> None:
    ask_index, answer_name = _first_ask(notebook_cells)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_MS)
    try:
        page.goto(f"{lab.url}/lab/tree/{NOTEBOOK}?reset&token={lab.token}")
        # The toolbar's execution indicator says "idle" before any kernel is attached; the
        # status bar names the kernel once its session is connected and idle.
        kernel_idle = page.locator(".jp-StatusBar-Widget").get_by_text(
            re.compile(r"\(ipykernel\) \| Idle")
        )
        expect(kernel_idle).to_be_visible(timeout=KERNEL_READY_MS)
        cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
        expect(cells).to_have_count(len(notebook_cells))

        # Every code cell above the %%ask cell, in order, as a reader would run them.
        for index in range(ask_index):
            if notebook_cells[index]["cell_type"] == "code":
                _run_cell(page, cells.nth(index))
                errors = _errors_of(cells.nth(index))
                assert not errors, f"cell {index} failed before the %%ask cell:\n{errors}"

        ask_cell = cells.nth(ask_index)
        ask_cell.evaluate(WATCH_JS)
        _run_cell(page, ask_cell)

        # The progress display was there while the assistant worked, before the answer.
        seen: list[dict[str, Any]] = page.evaluate("window.__rdsSeen")
        waiting = [s for s in seen if s["progress"] and not s["answer"]]
        assert waiting, f"no progress display before the answer appeared: {seen[:20]}"
        assert ask_cell.locator(".rds-progress").count() >= 1

        # The answer: [N] markers, one per reference, numbered from 1.
        markers = ask_cell.locator(".rds-marker[data-ref]")
        expect(markers.first).to_be_visible(timeout=UI_MS)
        refs = sorted({int(m.get_attribute("data-ref") or 0) for m in markers.all()})
        listed = ask_cell.locator(".rds-references li[data-ref]")
        assert refs == list(range(1, len(refs) + 1)), f"marker numbers {refs}"
        assert listed.count() == len(refs), "the references list does not match the markers"
        assert len(refs) >= 2, "the %%ask cell's answer should cite at least two posts"
        first_text = markers.first.evaluate("el => el.firstChild.textContent")
        assert first_text.strip() == "[1]"

        # Independently: what each cited post says, read through answer.resolve(ref).
        posts = _kernel_lookup(
            lab,
            (
                "import json as _json\n"
                f"print(_json.dumps({{r.citation: "
                "dict(source=_p.source, id=_p.id, text=_p.text) "
                f"for r in {answer_name}.post_references[:2] "
                f"for _p in [{answer_name}.resolve(r)]}}))"
            ),
        )

        # Hover shows card 1 ...
        first = ask_cell.locator(".rds-marker[data-ref='1']").first
        card = first.locator(".rds-card")
        expect(card).to_be_hidden()
        first.hover()
        _assert_card_shows(card, posts["1"], 1)
        page.screenshot(path=str(ARTIFACTS / "answer-view.png"), full_page=True)

        # ... and a click (focus) shows card 2 once the pointer has left marker 1.
        page.mouse.move(0, 0)
        expect(card).to_be_hidden()
        second = ask_cell.locator(".rds-marker[data-ref='2']").first
        second.click()
        _assert_card_shows(second.locator(".rds-card"), posts["2"], 2)
    finally:
        page.close()
