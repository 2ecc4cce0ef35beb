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

A second notebook makes its own embedded sandbox (``rdskit.Client.sandbox()``), a
dataset, a tracking agent with an alert and a two-turn ``%%ask`` chat; with it active:

- the panel and status item show THAT sandbox's account ("this notebook: embedded
  sandbox"), its dataset, the agent with its unread alerts (marked read by a click), the
  chat (title as the service named it, its dataset, last activity; "Continue with
  %%ask" inserts ``%%ask --chat <id>``) and the usage history by day;
- hostile dataset, agent and chat names render as inert text;
- in light and dark themes, at 700 and 1400 px, nothing in the panel overflows it and its
  text contrasts with its background; switching back to the first notebook shows the
  server gateway's view again.

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
from playwright.sync_api import Browser, Locator, Page, expect
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
from test_notebook_use import _open, _theme, _write

from rdskit._safe import clean

pytestmark = pytest.mark.browser

NAME = "lab-extension.ipynb"
# Markup, and bidi controls: a right-to-left override in the middle of the name, isolates
# and marks; the panel shows it as rdskit._safe.clean does (every control dropped).
HOSTILE = '<img src=x onerror="window.__rdsPwned=1">Oat "mi\u202elk" \u2066<b>&amp;</b>\u2069\u200f'
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
BUILT = ROOT / "src" / "rdskit" / "labextension"
INSTALLED = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-rdskit"

if (BUILT / "package.json").exists():
    # The checkout's build (the source under test) is shown to the server through
    # JUPYTER_PATH, which comes before the environment's share/jupyter: a worktree's
    # build wins over the one an editable install of another checkout put there.
    _path = Path(tempfile.mkdtemp(prefix="rdskit-labext-"))
    (_path / "labextensions").mkdir()
    (_path / "labextensions" / "jupyterlab-rdskit").symlink_to(BUILT)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        part for part in (str(_path), os.environ.get("JUPYTER_PATH", "")) if part
    )

CELLS = [
    "import rdskit\nclient = rdskit.Client()  # the server's gateway (its shared sandbox)\n"
    "rdskit.set_budget(1000)  # the kernel's budget: the run below is counted against it\n"
    "from IPython.display import HTML\nfrom rdskit.jupyter.render import PostCard, message_html\n"
    "from rdskit.models import PostReference\n"
    "refs = [PostReference(source='reddit', id='p1', citation=1, start_index=0, end_index=3)]\n"
    "cards = {1: PostCard(1, 'reddit', 'p1', excerpt='a post', url='https://r.example/p1')}\n"
    "HTML(message_html('Pricey [1].', refs, cards))",
    f"ds = client.datasets.create({HOSTILE!r})\n"
    "query = {'type': 'prompt', 'sources': ['reddit', 'tiktok'], 'search_query': 'oat milk'}\n"
    "run = client.datasets.runs.create(ds.id, search_query=query, count=200)\nprint(ds.id)",
]


def _run_notebook(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
    name: str,
    sources: list[str],
) -> tuple[Page, Locator]:
    """A new page with notebook ``name`` (made of ``sources``) open, every cell run without
    an error; the caller closes the page."""
    _write(lab.notebook_dir / name, sources)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(UI_MS)
    cells = _open(page, lab, name)
    for index in range(len(sources)):
        _run_cell(page, cells.nth(index))
        assert not _errors_of(cells.nth(index)), _errors_of(cells.nth(index))
    return page, cells


def test_status_item_panel_live_runs_and_insert_code(lab: Lab, browser: Browser) -> None:  # noqa: F811
    assert INSTALLED.exists() or (BUILT / "package.json").exists(), (
        "the JupyterLab extension is not built: pip install -e . builds it (needs node)"
    )
    page, cells = _run_notebook(lab, browser, NAME, CELLS)
    try:
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
        expect(status).to_contain_text(re.compile(r"rdskit · [\d,.]+ credits"))
        expect(status).to_have_attribute("title", re.compile("this server's shared sandbox"))
        # the kernel's budget, spent by the run the notebook started (its estimate)
        expect(status).to_contain_text(
            re.compile(r" · budget (?!1,000 )[\d,.]+ of 1,000 left"), timeout=CELL_MS
        )
        status.click()
        page.locator(".rds-lab-popover-open").click()
        panel = page.locator("#rdskit-panel")
        expect(panel).to_be_visible()
        expect(panel.locator(".rds-lab-credits")).to_have_text(
            re.compile(r"^Credits left: [\d,.]+$")
        )
        expect(panel.locator(".rds-lab-budget")).to_contain_text(
            re.compile(r"^Kernel budget: [\d,.]+ of 1,000 credits left \([\d,.]+ committed")
        )
        item = panel.locator(f".rds-lab-dataset[data-id='{dataset_id}']")
        expect(item).to_be_visible(timeout=CELL_MS)

        # hostile service data is inert text
        assert item.locator(".rds-lab-dataset-name").text_content() == clean(HOSTILE)
        assert "Oat" in clean(HOSTILE) and not BIDI.search(panel.inner_text())
        options = panel.locator(".rds-lab-ask-dataset option").all_text_contents()
        assert clean(HOSTILE) in options and not any(BIDI.search(o) for o in options)
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
        expect(status).to_have_attribute("title", re.compile("0 runs in flight"), timeout=UI_MS)

        # insert code: the loader goes below the active cell, and runs (it names its client)
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


NAME2 = "lab-embedded.ipynb"
DS2 = '<img src=x onerror="window.__rdsPwned=2">'
AGENT = '<svg onload="window.__rdsPwned=3">wa\u202etch\u2067'
CELLS2 = [
    "import os\nos.environ['RDSKIT_SANDBOX_SPEED'] = '20'\nimport rdskit\n"
    "sb = rdskit.Client.sandbox()  # this notebook's own embedded sandbox\n"
    "print(sb.me().email)",
    f"ds = sb.datasets.create({DS2!r})\n"
    "query = {'type': 'prompt', 'sources': ['reddit'], 'search_query': 'oat milk'}\n"
    "sb.datasets.runs.create(ds.id, search_query=query, count=40).wait()\n"
    f"agent = sb.tracking_agents.create(name={AGENT!r}, instructions='complaints',\n"
    "    dataset_ids=[ds.id], schedule={'frequency': 'daily', 'time': '08:00'})\n"
    "sb.tracking_agents.trigger(agent.id).wait()\nprint(ds.id, agent.id)",
    "%load_ext rdskit",
    "%%ask --dataset {ds.id}\nTop posts?",
    "%%ask\nAnd the most negative ones?",
    "chat_id = rdskit.jupyter.current_session().chat_id\nprint(chat_id)\n"
    "print(sb.chats.get(chat_id).name)",
]


def _luminance(css: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"[\d.]+", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _check_layout(page: Page, panel: Locator) -> None:
    """Nothing in the panel sticks out of it sideways; its text contrasts with its
    background (WCAG ratio at least 4.5)."""
    out = panel.evaluate(
        """panel => {
            const box = panel.getBoundingClientRect();
            const bad = [];
            if (panel.scrollWidth > panel.clientWidth + 1) bad.push('panel scrolls sideways');
            for (const node of panel.querySelectorAll('*')) {
                const r = node.getBoundingClientRect();
                if (r.width && (r.right > box.right + 1 || r.left < box.left - 1))
                    bad.push(node.className + ': ' + r.left + '..' + r.right);
            }
            return bad;
        }"""
    )
    assert out == [], out
    colors = panel.evaluate("p => [getComputedStyle(p).color, getComputedStyle(p).backgroundColor]")
    light, dark = sorted((_luminance(c) for c in colors), reverse=True)
    assert (light + 0.05) / (dark + 0.05) >= 4.5, colors


def _check_status(page: Page, status: Locator) -> None:
    """The status item stays inside the window and the status bar, one line high; what
    does not fit is cut with an ellipsis (the whole text is its tooltip)."""
    box = status.bounding_box()
    bar = page.locator(".jp-StatusBar-Widget, #jp-main-statusbar").first.bounding_box()
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert box is not None and bar is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)
    assert box["y"] >= bar["y"] - 1 and box["y"] + box["height"] <= bar["y"] + bar["height"] + 1
    text = status.locator(".rds-lab-status-text")
    assert text.evaluate("n => getComputedStyle(n).textOverflow") == "ellipsis"
    title = status.get_attribute("title") or ""
    assert "Kernel budget: " in title, title


def _check_looks(page: Page, panel: Locator, status: Locator) -> None:
    """The panel and the status item in light and dark themes, at 700 and 1400 px."""
    for dark in (False, True):
        _theme(page, dark)
        for width in (700, 1400):
            page.set_viewport_size({"width": width, "height": 1000})
            page.wait_for_timeout(300)
            _check_layout(page, panel)
            _check_status(page, status)
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_the_panel_follows_the_notebook_and_shows_its_own_sandbox(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    page, cells = _run_notebook(lab, browser, NAME2, CELLS2)
    try:
        output = cells.nth(1).locator(".jp-OutputArea-output").last.inner_text().split()
        dataset_id, agent_id = output[-2], output[-1]
        chat_id, chat_name = (
            cells.nth(5).locator(".jp-OutputArea-output").last.inner_text().strip().split("\n")
        )
        assert chat_id.startswith("ch_") and chat_name, (chat_id, chat_name)

        status = page.locator(".rds-lab-status")
        expect(status).to_have_attribute(
            "title", re.compile(r"^this notebook: embedded sandbox"), timeout=CELL_MS
        )
        # keyboard only: the status item is a button in the tab order; Enter opens the panel
        panel = page.locator("#rdskit-panel")
        page.locator(".jp-SideBar [data-id='filebrowser']").click()
        expect(panel).to_be_hidden()
        assert status.get_attribute("role") == "button"
        assert status.evaluate("n => n.tabIndex") == 0
        status.focus()
        page.keyboard.press("Enter")
        page.locator(".rds-lab-popover-open").click()
        expect(panel).to_be_visible()
        expect(panel.locator(".rds-lab-viewing")).to_have_text("this notebook: embedded sandbox")
        expect(status).to_have_attribute("title", re.compile("Kernel budget: no kernel budget"))
        item = panel.locator(f".rds-lab-dataset[data-id='{dataset_id}']")
        expect(item).to_be_visible(timeout=CELL_MS)
        assert item.locator(".rds-lab-dataset-name").text_content() == DS2

        agent = panel.locator(f".rds-lab-agent[data-id='{agent_id}']")
        expect(agent).to_be_visible(timeout=CELL_MS)
        assert agent.locator(".rds-lab-agent-name").text_content() == clean(AGENT)
        badge = agent.locator(".rds-lab-unread")
        expect(badge).not_to_have_attribute("data-count", "0")
        assert agent.locator(".rds-lab-alert").count() >= 1
        agent.locator(".rds-lab-mark-read").click()
        expect(badge).to_have_attribute("data-count", "0")
        page.wait_for_timeout(6000)  # a poll later, still read (kept in this browser)
        expect(panel.locator(f".rds-lab-agent[data-id='{agent_id}'] .rds-lab-unread")).to_have_text(
            "0 unread"
        )

        chat = panel.locator(f".rds-lab-chat[data-id='{chat_id}']")
        expect(chat).to_be_visible(timeout=CELL_MS)
        expect(chat.locator(".rds-lab-chat-title")).to_have_text(chat_name, timeout=CELL_MS)
        meta = chat.locator(".rds-lab-chat-meta").text_content() or ""
        assert meta.startswith(DS2 + " · last activity 20"), meta
        expect(panel.locator(".rds-lab-chats-source")).to_have_text(
            "Chats asked from this notebook (%%ask)"
        )
        usage = panel.locator(".rds-lab-usage-day")
        expect(usage.first).to_contain_text("credits")
        assert re.search(r"mention [\d,.]+", usage.first.inner_text()), usage.first.inner_text()

        # hostile service text is inert everywhere in the panel
        # (the one svg is the header's rdskit icon)
        assert panel.locator("img, svg:not(.rds-lab-header-icon svg), b, script").count() == 0
        assert not BIDI.search(panel.inner_text())
        assert not BIDI.search(status.get_attribute("title") or "")
        assert page.evaluate("window.__rdsPwned") is None

        _check_looks(page, panel, status)

        # continue the chat: the %%ask cell goes below the active cell
        before = cells.count()
        cells.nth(5).locator(".jp-InputArea-prompt").click()
        chat.locator(".rds-lab-insert-chat").click()
        expect(cells).to_have_count(before + 1)
        expect(cells.nth(6).locator(".jp-InputArea-editor")).to_contain_text(
            f"%%ask --chat {chat_id}"
        )

        # a notebook using the gateway's client shows the server gateway again, and the
        # status item follows its kernel's budget as a cell sets it and another changes it
        gateway_cells = [
            "import rdskit\nclient = rdskit.Client()",
            "%load_ext rdskit\n%rds budget 300",
            "%rds budget 250",
        ]
        _write(lab.notebook_dir / "lab-gateway.ipynb", gateway_cells)
        cells = _open(page, lab, "lab-gateway.ipynb")
        _run_cell(page, cells.nth(0))
        status = page.locator(".rds-lab-status")
        status.click()
        page.locator(".rds-lab-popover-open").click()
        expect(panel.locator(".rds-lab-viewing")).to_contain_text(
            "this server's shared sandbox", timeout=CELL_MS
        )
        expect(status).to_have_attribute(
            "title", re.compile("Kernel budget: no kernel budget"), timeout=CELL_MS
        )
        expect(panel.locator(".rds-lab-budget")).to_have_text(
            "Kernel budget: no kernel budget (%rds budget N sets one)", timeout=CELL_MS
        )
        for index, left in ((1, "300 of 300"), (2, "250 of 250")):
            _run_cell(page, cells.nth(index))
            expect(status).to_contain_text(f" · budget {left} left", timeout=CELL_MS)
            expect(panel.locator(".rds-lab-budget")).to_have_text(
                f"Kernel budget: {left} credits left (0 committed)", timeout=CELL_MS
            )
        _check_looks(page, panel, status)
    finally:
        page.close()
