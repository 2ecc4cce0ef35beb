"""Every panel and palette action of the JupyterLab extension in a row, keyboard only, in a
real JupyterLab and Debian's Chromium (issue 34, item 4).

A new user's server (a fresh ``HOME``, as tests/browser/test_setup_recipes.py starts one),
a notebook made from the launcher, the rdskit panel opened from the command palette; then,
in each of a few orders, by keyboard only (the palette by Ctrl+Shift+C, a panel button by
Enter on it): connect to the sandbox (the palette's "Connect to the sandbox", or
``%rds connect --sandbox`` typed), a typed cell collecting 1,000 posts, the panel's
"Insert loader" and "Insert %%ask cell", the palette's "Set a budget", a post opened from
the answer's ``[N]``, and the panel's Refresh while a typed cell pages the 1,000 mentions
four times at the service's rate limit. After each insertion:

- the new cell is the notebook's active cell and holds the keyboard focus: what is typed
  goes into it, and Shift+Enter runs it, once (no duplicate of the snippet);
- it runs after whatever ran before it: no traceback, nothing on stderr;

and while the notebook pages at the rate limit the panel stays readable: it keeps listing
the dataset, the status item never says "not reachable" or "not connected", and a
throttle is shown as stale with its reason and fix. Screenshots and the server log go to
``tests/browser/artifacts/actions-*``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import pytest
from lab_server import Lab, chromium, running_labs
from playwright.sync_api import Browser, Locator, Page, expect
from test_answer_view import ARTIFACTS, CELL_MS, UI_MS, _errors_of
from test_lab_extension import BUILT  # noqa: F401  (puts this checkout's build first)
from test_setup_recipes import CELLS, _spec, _type, _wait_kernel

pytestmark = pytest.mark.browser

QUERY = "{'type': 'prompt', 'sources': ['reddit', 'tiktok'], 'search_query': 'oat milk'}"
DATA = (  # `client`: the name the connection (palette or typed) says it binds
    "ds = client.datasets.create('Actions oat milk')\n"
    f"client.datasets.runs.create(ds.id, search_query={QUERY}, count=1000).wait()\n"
    "print(ds.id)"
)
PAGING = (
    "for _ in range(4):  # 4 x 1,000 mentions, at the rate limit of the key the panel reads\n"
    "    frame = client.mentions.to_frame(dataset_ids=[ds.id])\n"
    "print(len(frame))"
)
BUDGET = 50_000
"""Credits typed into "Set a budget": more than the 1,000-post collection costs."""

# What the panel and the status item show, recorded at every change while the notebook
# pages (a MutationObserver: a state shown for a moment between two checks is kept).
WATCH_JS = """
() => {
  window.__rdsSeen = [];
  const look = () => {
    const panel = document.querySelector('#rdskit-panel');
    const status = document.querySelector('.rds-lab-status');
    const stale = panel.querySelector('.rds-lab-stale');
    window.__rdsSeen.push({
      status: status.innerText,
      title: status.title,
      datasets: panel.querySelectorAll('.rds-lab-dataset').length,
      stale: stale ? stale.innerText : '',
      text: panel.innerText.slice(0, 400),
    });
  };
  look();
  const observer = new MutationObserver(look);
  for (const node of [document.querySelector('#rdskit-panel'),
                      document.querySelector('.rds-lab-status')]) {
    observer.observe(node, {subtree: true, childList: true, attributes: true,
                            characterData: true});
  }
}
"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """A new user's server; sandboxes 50 times faster than real time (a 1,000-post
    collection in seconds)."""
    home = tmp_path_factory.mktemp("actions") / "home"
    home.mkdir()
    spec = _spec(home, {"RDSKIT_SANDBOX_SPEED": "50"}, "actions")
    with running_labs([spec]) as (server,):
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


class Notebook:
    """The open notebook, driven by keyboard."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.cells = page.locator(CELLS)
        self.panel = page.locator("#rdskit-panel")
        self.dataset = ""

    # -- the keyboard's ways in --------------------------------------------------------------
    def palette(self, label: str) -> None:
        """Run a command from the palette: Ctrl+Shift+C, its label typed, Enter."""
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("Control+Shift+c")
        expect(self.page.locator(".lm-CommandPalette-input")).to_be_focused()
        self.page.keyboard.type(label)
        expect(self.page.locator(".lm-CommandPalette-item.lm-mod-active")).to_contain_text(label)
        self.page.keyboard.press("Enter")

    def press(self, button: Locator) -> None:
        """A button of the panel, reached by focus and pressed with Enter."""
        button.focus()
        self.page.keyboard.press("Enter")

    def typed(self, source: str) -> Locator:
        """A new cell below the active one (Escape, B, Enter), ``source`` typed into it and
        run with Shift+Enter; the cell, once it ran without an error."""
        count = self.cells.count()
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("b")
        expect(self.cells).to_have_count(count + 1)
        self.page.keyboard.press("Enter")
        _type(self.page, source)
        cell = self.active()
        self.page.keyboard.press("Shift+Enter")
        return self.ran(cell, source.split("\n")[-1])

    # -- what is checked -------------------------------------------------------------------
    def active(self) -> Locator:
        """The active cell (this one, even once another becomes active)."""
        active = self.page.locator(f"{CELLS}.jp-mod-active")
        return self.cells.nth(active.evaluate("c => [...c.parentElement.children].indexOf(c)"))

    def holding(self, text: str) -> Locator:
        """The cells whose source holds ``text``."""
        return self.cells.filter(has=self.page.locator(".jp-InputArea-editor", has_text=text))

    def ran(self, cell: Locator, text: str) -> Locator:
        """``cell`` once numbered; nothing on stderr; the only cell holding ``text``."""
        expect(cell.locator(".jp-InputArea-prompt")).to_have_text(
            re.compile(r"\[\d+\]:"), timeout=CELL_MS
        )
        errors = _errors_of(cell)
        assert not errors, f"{text!r} failed:\n{errors}"
        expect(self.holding(text)).to_have_count(1)
        return cell

    def inserted(self, text: str, append: str = "") -> Locator:
        """The cell an action just inserted: the active one, holding ``text``, with the
        keyboard's focus in the notebook; ``append`` typed at its end goes into it;
        Shift+Enter runs it once."""
        count = self.cells.count()
        cell = self.active()
        expect(cell.locator(".jp-InputArea-editor")).to_contain_text(text)
        expect(self.holding(text)).to_have_count(1)
        focused = "!!document.activeElement && !!document.activeElement.closest('.jp-Notebook')"
        assert self.page.evaluate(focused), self.page.evaluate("document.activeElement.outerHTML")
        if append:
            self.page.keyboard.press("Enter")  # edit mode, in this cell
            self.page.keyboard.press("Control+End")
            self.page.keyboard.type(append)
            expect(cell.locator(".jp-InputArea-editor")).to_contain_text(append)
        self.page.keyboard.press("Shift+Enter")
        self.ran(cell, text)
        assert self.cells.count() <= count + 1  # at most JupyterLab's own empty cell below
        return cell

    # -- the actions -------------------------------------------------------------------------
    def connect_palette(self) -> None:
        self.palette("Connect to the sandbox (inserts the cell)")
        out = self.inserted("%rds connect --sandbox")
        expect(out).to_contain_text("`client` is this connection")

    def connect_typed(self) -> None:
        out = self.typed("%load_ext rdskit\n%rds connect --sandbox")
        expect(out).to_contain_text("`client` is this connection")

    def data(self) -> None:
        out = self.typed(DATA)
        self.dataset = out.locator(".jp-OutputArea-output").last.inner_text().strip()
        assert self.dataset.startswith("ds_"), self.dataset
        expect(self.item()).to_be_visible(timeout=CELL_MS)

    def item(self) -> Locator:
        return self.panel.locator(f".rds-lab-dataset[data-id='{self.dataset}']")

    def loader(self) -> None:
        self.press(self.item().locator(".rds-lab-insert-loader"))
        cell = self.inserted(f'client.mentions.to_frame(dataset_ids=["{self.dataset}"])')
        expect(cell.locator(".jp-OutputArea-output table").first).to_be_visible()

    def ask(self) -> None:
        self.press(self.item().locator(".rds-lab-insert-ask"))
        cell = self.inserted(f"%%ask --dataset {self.dataset}", append=" Say it briefly.")
        expect(cell.locator(".rds-marker[data-ref]").first).to_be_visible(timeout=CELL_MS)

    def budget(self) -> None:
        self.palette("Set a budget")
        field = self.page.locator(".jp-Dialog input")
        expect(field).to_be_focused()
        self.page.keyboard.press("Control+a")
        self.page.keyboard.type(str(BUDGET))
        self.page.keyboard.press("Enter")
        expect(self.page.locator(".jp-Dialog")).to_have_count(0)
        out = self.inserted(f"%rds budget {BUDGET}")
        expect(out).to_contain_text(re.compile(rf"{BUDGET:,}|{BUDGET}"))

    def cite(self) -> None:
        """The answer's [1] opened by Enter; Tab reaches its post's link; Escape closes."""
        (cell,) = self.holding("%%ask --dataset").all()
        marker = cell.locator(".rds-marker[data-ref='1']").first
        marker.locator("summary").focus()
        self.page.keyboard.press("Enter")
        expect(marker).to_have_attribute("open", "")
        self.page.keyboard.press("Tab")
        link = self.page.locator(":focus")
        expect(link).to_have_class("rds-card-link")
        assert re.match(r"https?://", link.get_attribute("href") or ""), link.get_attribute("href")
        self.page.keyboard.press("Escape")
        expect(marker).not_to_have_attribute("open", "")


N = TypeVar("N", bound="Notebook")


@contextmanager
def _notebook(lab: Lab, browser: Browser, kind: type[N]) -> Iterator[N]:
    """A new page with a notebook made from the launcher, the rdskit panel opened from the
    palette and the keyboard back in the notebook's (empty, first) cell; closed after."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(UI_MS)
    try:
        page.goto(f"{lab.url}/lab?reset&token={lab.token}")
        page.locator(".jp-LauncherCard[data-category='Notebook']").first.click()
        _wait_kernel(page)
        notebook = kind(page)
        notebook.palette("rdskit: Open the panel")
        expect(notebook.panel).to_be_visible()
        page.locator(f"{CELLS} .cm-content").first.focus()
        yield notebook
    finally:
        context.close()


ORDERS = {
    "palette-connect-first": ["connect_palette", "data", "loader", "ask", "cite", "budget"],
    "budget-first-typed-connect": ["budget", "connect_typed", "data", "ask", "cite", "loader"],
}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("order", list(ORDERS))
def test_panel_and_palette_actions_in_a_row(lab: Lab, browser: Browser, order: str) -> None:
    with _notebook(lab, browser, Notebook) as notebook:
        page = notebook.page
        for action in ORDERS[order]:
            getattr(notebook, action)()
        page.screenshot(path=str(ARTIFACTS / f"actions-{order}.png"))

        # the notebook pages at the rate limit; the panel is refreshed meanwhile
        page.evaluate(WATCH_JS)
        count = notebook.cells.count()
        page.keyboard.press("Escape")
        page.keyboard.press("b")
        expect(notebook.cells).to_have_count(count + 1)
        page.keyboard.press("Enter")
        _type(page, PAGING)
        cell = notebook.active()
        page.keyboard.press("Shift+Enter")
        prompt = cell.locator(".jp-InputArea-prompt")
        while not re.match(r"\[\d+\]:", prompt.inner_text()):
            notebook.press(notebook.panel.locator(".rds-lab-refresh"))
            page.wait_for_timeout(1500)
        notebook.ran(cell, PAGING.split("\n")[-1])
        expect(cell.locator(".jp-OutputArea-output").last).to_have_text("1000")
        seen = page.evaluate("window.__rdsSeen")
        page.screenshot(path=str(ARTIFACTS / f"actions-{order}-paging.png"))
        (ARTIFACTS / f"actions-{order}-paging.json").write_text(json.dumps(seen, indent=1))
        assert len(seen) > 1, seen
        for state in seen:
            words = state["status"] + state["title"] + state["text"]
            assert "not reachable" not in words and "not connected" not in words, state
            assert state["datasets"] >= 1, state  # the last good view stays
            if state["stale"]:
                assert "Fix: " in state["stale"], state
                assert "too many requests" in state["stale"], state  # the reason, said
        # the panel's reads and the paging share the key's 5 per second: a throttle was met
        assert any(state["stale"] for state in seen), seen
        # and once the notebook has stopped, Refresh (after the Retry-After) is fresh again
        stale = notebook.panel.locator(".rds-lab-stale")
        for _ in range(30):
            if not stale.count():
                break
            notebook.press(notebook.panel.locator(".rds-lab-refresh"))
            page.wait_for_timeout(2000)
        expect(stale).to_have_count(0)
        expect(notebook.item()).to_be_visible()


# Every ordered pair of the four snippets, each pair once, in four notebooks of one Lab:
# the rows of a Williams square (each action also comes first once, in a fresh kernel).
PAIRS = {
    "connect-loader-budget-ask": ["connect", "loader", "budget", "ask"],
    "loader-ask-connect-budget": ["loader", "ask", "connect", "budget"],
    "ask-budget-loader-connect": ["ask", "budget", "loader", "connect"],
    "budget-connect-ask-loader": ["budget", "connect", "ask", "loader"],
}
SCAFFOLD = (  # not an action: a dataset for the panel to list, binding no `client`
    "import rdskit.jupyter\n"
    "rds_data = rdskit.jupyter.current_client()\n"
    "ds = rds_data.datasets.create('Pairs oat milk')\n"
    f"rds_data.datasets.runs.create(ds.id, search_query={QUERY}, count=100).wait()\n"
    "print(ds.id)"
)


class Pairs(Notebook):
    """The four snippets (palette: connect and budget; panel: loader and ask), each after
    any other. The loader and the ask need a dataset the panel lists for the kernel's
    connection: made by :data:`SCAFFOLD` when there is none (at the start, and after a
    connection, which moves the kernel to its own sandbox)."""

    def connect(self) -> None:
        self.connect_palette()
        if self.dataset:  # the panel moved to the kernel's own sandbox: not listed there
            expect(self.item()).to_have_count(0, timeout=CELL_MS)
            self.dataset = ""

    def need_data(self) -> None:
        if not self.dataset:
            out = self.typed(SCAFFOLD)
            self.dataset = out.locator(".jp-OutputArea-output").last.inner_text().strip()
            assert self.dataset.startswith("ds_"), self.dataset
            expect(self.item()).to_be_visible(timeout=CELL_MS)

    def loader(self) -> None:
        self.need_data()
        super().loader()

    def ask(self) -> None:
        self.need_data()
        super().ask()


@pytest.mark.timeout(900)
@pytest.mark.parametrize("order", list(PAIRS))
def test_every_snippet_runs_after_any_other(lab: Lab, browser: Browser, order: str) -> None:
    """Palette "Connect to the sandbox", panel "Insert loader" and "Insert %%ask cell",
    palette "Set a budget": over the four orders every one follows every other once, each
    inserted cell active with the focus, run once by Shift+Enter, without an error."""
    with _notebook(lab, browser, Pairs) as notebook:
        page = notebook.page
        for action in PAIRS[order]:
            getattr(notebook, action)()
        page.screenshot(path=str(ARTIFACTS / f"pairs-{order}.png"))


# Every redraw of the panel: each poll replaces the panel's children (a MutationObserver on
# the panel itself, not its subtree).
DRAWS_JS = """
() => {
  window.__rdsDraws = 0;
  new MutationObserver(() => window.__rdsDraws++).observe(
    document.querySelector('#rdskit-panel'), {childList: true});
}
"""


def _redrawn(page: Page, times: int) -> None:
    """Wait for ``times`` more redraws of the panel (its polls, every 5 s or more)."""
    seen = page.evaluate("window.__rdsDraws")
    page.wait_for_function(f"window.__rdsDraws >= {seen + times}", timeout=CELL_MS)


@pytest.mark.timeout(600)
def test_panel_redraws_keep_the_keyboard_focus(lab: Lab, browser: Browser) -> None:
    """A keyboard user on a panel button keeps it while the panel redraws (issue 34, item 1
    of h34-more): Tab to "Insert loader", two polls, Enter inserts the loader once; and a
    notebook cell being edited keeps the focus through the panel's redraws."""
    with _notebook(lab, browser, Notebook) as notebook:
        page = notebook.page
        notebook.connect_typed()
        notebook.data()
        page.evaluate(DRAWS_JS)

        # Tab from the question box to the dataset's "Insert loader"
        notebook.panel.locator(".rds-lab-ask-question").focus()
        loader = "document.activeElement.matches('.rds-lab-insert-loader')"
        for _ in range(10):
            if page.evaluate(loader):
                break
            page.keyboard.press("Tab")
        assert page.evaluate(loader), page.evaluate("document.activeElement.outerHTML")
        _redrawn(page, 2)
        owner = "document.activeElement.closest('.rds-lab-dataset')?.dataset.id"
        assert page.evaluate(loader), page.evaluate("document.activeElement.outerHTML")
        assert page.evaluate(owner) == notebook.dataset
        count = notebook.cells.count()
        page.keyboard.press("Enter")
        text = f'client.mentions.to_frame(dataset_ids=["{notebook.dataset}"])'
        expect(notebook.holding(text)).to_have_count(1)
        _redrawn(page, 1)
        expect(notebook.holding(text)).to_have_count(1)  # once, not again at a redraw
        assert notebook.cells.count() == count + 1

        # a cell being edited keeps the focus while the panel redraws
        page.keyboard.press("Enter")  # edit mode in the inserted cell
        page.keyboard.press("Control+End")
        page.keyboard.type("  # a")
        editing = "!!document.activeElement.closest('.jp-Cell.jp-mod-active .cm-content')"
        assert page.evaluate(editing)
        _redrawn(page, 2)
        assert page.evaluate(editing), page.evaluate("document.activeElement.outerHTML")
        page.keyboard.type("bc")
        expect(notebook.active().locator(".jp-InputArea-editor")).to_contain_text("  # abc")
