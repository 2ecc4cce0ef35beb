"""``%%ask`` and the panel's ask box in a real JupyterLab and Debian's Chromium (one
server for the file):

- a notebook reads ``{n}`` and a frame into ``%%ask``, shows ``-f json`` and ``-f refs``,
  saves; the saved file's answers come back with :func:`answers_from_notebook`, and the
  same file opened untrusted (as a clone would be) still shows where each answer came
  from; ``%ask log --to`` writes the chat with its citations;
- the panel: a compact status item whose popover holds the detail, the ask box (dataset,
  question, answer, a citation card with a working link, "Send to notebook" putting the
  ``%%ask`` cell in the notebook, focused so Shift+Enter runs it once), the snippets run
  in any order in a fresh kernel, the icon themed in light and dark, every status item of
  JupyterLab inside a 700 px window (screenshots in ``ARTIFACTS``);
- a notebook paging its own sandbox at the rate limit: the panel keeps its last view,
  marked stale with the reason, and the status item keeps its figures;
- the ask box's answer rendered as markdown by JupyterLab's sanitised renderer (heading,
  bold, list, table; ``[N]`` markers as card buttons, not inside code), and hostile
  answers (as the server makes them inert, and raw, as if it had not) with nothing run,
  loaded or left clickable but http(s) links opening a new tab, bidi controls dropped;
- the launcher card "rdskit starter" opening the starter notebook, run to its answers.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect
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
from test_lab_extension import BUILT  # noqa: F401  (puts this checkout's build first)
from test_notebook_use import _open, _theme, _write

from rdskit._safe import safe_markdown
from rdskit.frames import answers_from_notebook

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "tests" / "browser" / "artifacts"

SETUP = (
    "import rdskit\nclient = rdskit.Client()  # the server's gateway (its shared sandbox)\n"
    "ds = client.datasets.get_or_create('Panel oat milk')\n"
    "query = {'type': 'prompt', 'sources': ['reddit', 'tiktok'], 'search_query': 'oat milk'}\n"
    "if not client.datasets.runs.list(ds.id).data:\n"
    "    client.datasets.runs.create(ds.id, search_query=query, count=30).wait()\n"
    "print(ds.id)"
)


def _page(browser: Browser, width: int = 1400) -> Page:  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.set_default_timeout(UI_MS)
    return page


def _out(page: Page, index: int) -> str:
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
    return cells.nth(index).locator(".jp-OutputArea-output").last.inner_text().strip()


def test_braces_formats_and_provenance_survive_save_and_untrusted_reload(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    sources = [
        SETUP,
        "%load_ext rdskit\nn = 2\ntop = client.mentions.to_frame(dataset_ids=[ds.id]).head(3)",
        "%%ask --new -d {ds.id}\nWhich {n} posts got the most views? {{really}}",
        "%%ask -f json\nWhy do {top} do well?",
        "%%ask -f refs\nAnd which of them is the most negative?",
        "%ask log --to chat.md",
    ]
    _write(lab.notebook_dir / "ask-formats.ipynb", sources)
    page = _page(browser)
    try:
        cells = _open(page, lab, "ask-formats.ipynb")
        for index in range(len(sources)):
            _run_cell(page, cells.nth(index))
            assert not _errors_of(cells.nth(index)), _errors_of(cells.nth(index))
        dataset_id = _out(page, 0)
        asked = cells.nth(2).locator(".jp-OutputArea-output").first
        expect(asked).to_contain_text("Asking: Which 2 posts got the most views? {really}")
        expect(cells.nth(2).locator(".rds-answer .rds-marker").first).to_be_visible()
        expect(cells.nth(3).locator(".jp-RenderedJSON, .jp-JSONEditor, pre").first).to_be_visible()
        expect(cells.nth(4).locator("table").first).to_be_visible()
        expect(cells.nth(5)).to_contain_text("Wrote chat ch_")
        page.keyboard.press("Control+s")
        page.wait_for_timeout(1500)
    finally:
        page.close()

    saved = lab.notebook_dir / "ask-formats.ipynb"
    frame = answers_from_notebook(saved)
    assert list(frame["question"]) == [
        "Which 2 posts got the most views? {really}",
        "Why do these 3 posts do well?",
        "And which of them is the most negative?",
    ]
    assert frame["datasets"][0] == [dataset_id] and frame["posts_in_scope"][1] == 3
    assert frame["chat_id"].nunique() == 1 and frame["citations"].map(len).min() > 0
    log = (lab.notebook_dir / "chat.md").read_text()
    assert "Why do these 3 posts do well?" in log and frame["citations"][0][0]["url"] in log

    # a clone elsewhere: the same file, no longer signed by this server -> untrusted
    notebook = json.loads(saved.read_text())
    notebook["metadata"]["cloned"] = True
    (lab.notebook_dir / "ask-clone.ipynb").write_text(json.dumps(notebook))
    page = _page(browser)
    try:
        cells = _open(page, lab, "ask-clone.ipynb")
        provenance = cells.nth(2).locator(".rds-provenance")
        expect(provenance).to_be_visible()
        provenance.locator("summary").click()
        expect(provenance).to_contain_text("Which 2 posts got the most views? {really}")
        expect(provenance).to_contain_text(frame["chat_id"][0])
        expect(provenance).to_contain_text(re.compile(r"charged: [\d.,]+ credits"))
        assert page.locator(".rds-answer style").count() == 0  # untrusted: sanitized
        refs = cells.nth(4).locator(".rds-provenance")
        expect(refs).to_contain_text("And which of them is the most negative?")
    finally:
        page.close()


_OUTSIDE = """width => [...document.querySelectorAll('#jp-main-statusbar .jp-StatusBar-Item')]
    .filter(i => !i.classList.contains('rds-lab-status'))
    .map(i => [i.textContent, i.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.right > width + 1).map(([t]) => t)"""


def _check_statusbar(page: Page, width: int) -> None:
    """Every JupyterLab status item is inside the window (JupyterLab 4.6
    alone pushes its notification bell off a 700 px window; below 960 px the extension
    lets an item that does not fit shorten instead), and the same with and without ours;
    ours is one compact line, only its dot when narrow."""
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(300)
    outside = page.evaluate(_OUTSIDE, width)
    assert outside == [], outside
    ours = page.locator(".rds-lab-status")
    box = ours.bounding_box()
    assert box is not None and box["height"] <= 24 and box["width"] <= 16 * 14, box
    if width <= 960:  # only the dot: the popover holds the rest
        assert box["width"] <= 24, box
    ours.evaluate("n => (n.style.display = 'none')")
    page.wait_for_timeout(100)
    alone = page.evaluate(_OUTSIDE, width)
    ours.evaluate("n => (n.style.display = '')")
    assert outside == alone, (outside, alone)


def test_panel_ask_box_snippets_icon_and_narrow_window(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    _write(lab.notebook_dir / "panel-ask.ipynb", [SETUP])
    page = _page(browser)
    try:
        cells = _open(page, lab, "panel-ask.ipynb")
        _run_cell(page, cells.nth(0))
        dataset_id = _out(page, 0)

        # the status item: a dot and the credits; its popover holds the detail
        status = page.locator(".rds-lab-status")
        expect(status).to_contain_text(re.compile(r"rdskit · [\d,.]+ credits"), timeout=CELL_MS)
        expect(status.locator(".rds-lab-dot")).to_have_attribute("data-state", "up")
        status.click()
        popover = page.locator(".rds-lab-popover")
        expect(popover).to_contain_text("this server's shared sandbox")
        expect(popover.locator(".rds-lab-popover-line", has_text="Credits left")).to_have_text(
            re.compile(r"^Credits left: [\d,.]+$")
        )
        expect(popover).to_contain_text(re.compile(r"\d+ runs? in flight"))
        popover.locator(".rds-lab-popover-open").click()
        panel = page.locator("#rdskit-panel")
        expect(panel).to_be_visible()
        expect(panel.locator(".rds-lab-title")).to_have_text("Research Data Service")
        expect(panel.locator(".rds-lab-updated")).to_contain_text("Last updated")
        assert "credits credits" not in panel.inner_text()

        # the ask box answers, with citation cards
        panel.locator(".rds-lab-ask-dataset").select_option(dataset_id)
        panel.locator(".rds-lab-ask-question").fill("What do people say about {price}?")
        panel.locator(".rds-lab-ask-send").click()
        answer = panel.locator(".rds-lab-answer")
        expect(answer).to_be_visible(timeout=CELL_MS)
        marker = answer.locator(".rds-lab-cite").first
        marker.click()
        card = answer.locator(".rds-lab-card")
        expect(card).to_be_visible()
        href = card.locator(".rds-lab-card-link").get_attribute("href") or ""
        assert href.startswith("http"), href
        assert card.locator(".rds-lab-card-link").get_attribute("rel") == "noopener noreferrer"
        page.screenshot(path=str(ARTIFACTS / "panel-ask-light-1400.png"))

        # "Send to notebook": the equivalent cell, focused; Shift+Enter runs it once
        count = cells.count()
        answer.locator(".rds-lab-ask-to-notebook").click()
        expect(cells).to_have_count(count + 1)
        inserted = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell.jp-mod-active")
        expect(inserted.locator(".jp-InputArea-editor")).to_contain_text(
            f"%%ask --dataset {dataset_id}"
        )
        assert page.locator(".jp-NotebookPanel .jp-Cell.jp-mod-selected").count() <= 1
        assert page.evaluate("!!document.activeElement.closest('.jp-Notebook')")
        page.keyboard.press("Shift+Enter")
        inserted = cells.filter(has_text=f"%%ask --dataset {dataset_id}")
        expect(inserted).to_have_count(1)
        expect(inserted.locator(".jp-InputArea-prompt")).to_have_text(
            re.compile(r"\[\d+\]:"), timeout=CELL_MS
        )
        assert not _errors_of(inserted), _errors_of(inserted)
        expect(inserted.locator(".rds-answer")).to_be_visible()
        sources = cells.locator(".jp-InputArea-editor").all_inner_texts()
        assert sum("%%ask --dataset" in text for text in sources) == 1, sources

        # icons: one SVG for the side tab and the launcher, themed light and dark
        tab = page.locator(".jp-SideBar [data-id='rdskit-panel'] svg")
        expect(tab).to_be_visible()
        fills = []
        for dark in (False, True):
            _theme(page, dark)
            fills.append(tab.locator(".jp-icon3").first.evaluate("n => getComputedStyle(n).fill"))
            for width in (1400, 700):
                _check_statusbar(page, width)
                page.screenshot(
                    path=str(ARTIFACTS / f"panel-{'dark' if dark else 'light'}-{width}.png")
                )
        assert fills[0] != fills[1], fills
        page.set_viewport_size({"width": 1400, "height": 1000})
        _theme(page, False)
        page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^New Launcher$")).click()
        expect(page.locator(".jp-Launcher").first).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "launcher-light-1400.png"))
        launcher = page.locator(".jp-LauncherCard", has_text="rdskit starter")
        expect(launcher.locator("svg")).to_be_visible()
        assert launcher.locator(".jp-LauncherCard-noKernelIcon").count() == 0
        assert launcher.locator("svg .jp-icon3").count() == 1
    finally:
        page.close()


def test_snippets_run_in_any_order_in_a_fresh_kernel(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    _write(lab.notebook_dir / "snippets.ipynb", [SETUP])
    page = _page(browser)
    try:
        cells = _open(page, lab, "snippets.ipynb")
        _run_cell(page, cells.nth(0))
        dataset_id = _out(page, 0)
        page.locator(".rds-lab-status").click()
        page.locator(".rds-lab-popover-open").click()
        item = page.locator(f"#rdskit-panel .rds-lab-dataset[data-id='{dataset_id}']")
        expect(item).to_be_visible(timeout=CELL_MS)
        # restart: a fresh kernel where nothing was loaded or bound
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Restart Kernel…$")).click()
        page.locator(".jp-Dialog-button.jp-mod-accept").click()
        idle = page.locator(".jp-StatusBar-Widget").get_by_text(re.compile(r"Idle"))
        expect(idle).to_be_visible(timeout=CELL_MS)

        def palette(label: str) -> None:
            page.keyboard.press("Escape")
            page.keyboard.press("Control+Shift+c")
            page.locator(".lm-CommandPalette-input").fill(label)
            page.locator(".lm-CommandPalette-item", has_text=label).first.click()

        steps = [
            lambda: item.locator(".rds-lab-insert-ask").click(),
            lambda: item.locator(".rds-lab-insert-loader").click(),
            lambda: palette("Connect to the sandbox (inserts the cell)"),
            lambda: item.locator(".rds-lab-insert-loader").click(),
            lambda: palette("Set a budget"),
        ]
        for number, step in enumerate(steps, start=1):
            count = cells.count()
            step()
            if number == 5:
                page.locator(".jp-Dialog-button.jp-mod-accept").click()
            expect(cells).to_have_count(count + 1)
            active = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell.jp-mod-active")
            index = active.evaluate("c => [...c.parentElement.children].indexOf(c)")
            assert page.evaluate("!!document.activeElement.closest('.jp-Notebook')"), number
            page.keyboard.press("Shift+Enter")  # runs the new cell, never inserts another
            expect(cells.nth(index).locator(".jp-InputArea-prompt")).to_have_text(
                re.compile(r"\[\d+\]:"), timeout=CELL_MS
            )
            errors = [_errors_of(cells.nth(i)) for i in range(cells.count())]
            assert not any("NameError" in e or "UsageError" in e for e in errors), errors
        text = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").inner_text()
        assert "`client` is this connection" in text and "Budget" in text
    finally:
        page.close()


def test_the_panel_stays_readable_while_a_notebook_pages_at_the_rate_limit(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    sources = [
        "import rdskit, threading, time, httpx\nsb = rdskit.Client.sandbox()\nprint(sb.me().email)",
        # the notebook pages its own sandbox flat out for 40 s, on the same key the panel reads
        "url, key = sb.base_url, sb._core.api_key.reveal()\nstatuses = []\n"
        "def page_hard():\n"
        "    with httpx.Client() as http:\n"
        "        end = time.monotonic() + 40\n"
        "        while time.monotonic() < end:\n"
        "            statuses.append(http.get(f'{url}/v1/datasets', headers={'x-api-key': key})"
        ".status_code)\n"
        "threading.Thread(target=page_hard, daemon=True).start()",
    ]
    _write(lab.notebook_dir / "paging.ipynb", sources)
    page = _page(browser)
    try:
        cells = _open(page, lab, "paging.ipynb")
        _run_cell(page, cells.nth(0))
        status = page.locator(".rds-lab-status")
        expect(status).to_contain_text(re.compile(r"rdskit · [\d,.]+ credits"), timeout=CELL_MS)
        status.click()
        page.locator(".rds-lab-popover-open").click()
        panel = page.locator("#rdskit-panel")
        # The panel follows the notebook once its kernel has announced its sandbox (its
        # next read: seconds on a loaded machine; expect's own default is 5 s).
        viewing = panel.locator(".rds-lab-viewing")
        expect(viewing).to_have_text("this notebook: embedded sandbox", timeout=UI_MS)
        _run_cell(page, cells.nth(1))
        stale = panel.locator(".rds-lab-stale")
        expect(stale).to_contain_text("too many requests", timeout=60_000)
        expect(stale).to_contain_text("Fix: ")
        # the last good view stays, and so do the status item's figures
        expect(panel.locator(".rds-lab-credits")).to_contain_text("Credits left:")
        expect(status).to_contain_text(re.compile(r"rdskit · [\d,.]+ credits"))
        expect(status.locator(".rds-lab-dot")).to_have_attribute("data-state", "stale")
        assert "not reachable" not in status.inner_text()
        page.screenshot(path=str(ARTIFACTS / "panel-stale-429.png"))
        # once the notebook stops, the panel is fresh again
        expect(stale).to_have_count(0, timeout=90_000)
    finally:
        page.close()


def _answer(text: str, markdown: str) -> dict[str, object]:
    """A panel answer as ``POST /rdskit/lab/ask`` returns it (rdskit.jupyter.panel_ask)."""
    cards = [
        {
            "citation": n,
            "source": "reddit",
            "id": f"p{n}",
            "url": f"https://r.example/p{n}",
            "author": "u",
            "title": None,
            "excerpt": f"post {n}",
        }
        for n in (1, 2)
    ]
    return {
        "chat_id": "ch_md",
        "message_id": "msg_md",
        "status": "completed",
        "text": text,
        "markdown": markdown,
        "citations": cards,
        "asked_in": "server",
        "cell": "%%ask\nWhy?",
        "new_chat_cell": "%%ask\nWhy?",
    }


MARKDOWN = (
    "## What people say\n\nMost posts are **negative** about *price* [1].\n\n"
    "- foam [2]\n- taste\n\n| source | posts |\n|---|---|\n| reddit | 12 |\n\n"
    "`not a marker [1]`"
)
HOSTILE = (
    "file \u202egnp.exe and &#x202e;txt.exe [1]\n\n"
    '<script>window.__rdsPwned = 1</script><img src=x onerror="window.__rdsPwned = 2">\n\n'
    '[click](javascript:window.__rdsPwned=3) <a href="javascript:window.__rdsPwned=4">raw</a>'
    ' <a href="https://evil.example/go" target="_self" onclick="window.__rdsPwned=5">go</a>'
    '\n\n![beacon](https://evil.example/pixel.png) <iframe src="https://evil.example/f">'
    '</iframe><svg onload="window.__rdsPwned=6"></svg>'
    '<details open ontoggle="window.__rdsPwned=7">x</details>'
    '<style>body{display:none}</style><form action="https://evil.example/f"><input></form>'
    '\n\n<h1 id="rdskit-panel">big</h1>'
)
_INERT = """host => {
    const bad = [...host.querySelectorAll('*')].flatMap(n => [...n.attributes]
        .filter(a => /^on/i.test(a.name) || a.name === 'style' || a.name === 'id')
        .map(a => `${n.tagName} ${a.name}`));
    const tags = [...host.querySelectorAll(
        'script, img, iframe, svg, style, form, input, object, embed, link, meta, video')]
        .map(n => n.tagName);
    const links = [...host.querySelectorAll('a')].map(a =>
        [a.getAttribute('href'), a.target, a.rel]);
    return {bad, tags, links, text: host.textContent, pwned: window.__rdsPwned ?? null};
}"""


def test_the_ask_box_renders_markdown_and_keeps_hostile_answers_inert(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    page = _page(browser)
    requests: list[str] = []
    dialogs: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    answers: list[dict[str, object]] = [
        _answer(MARKDOWN, safe_markdown(MARKDOWN)),
        _answer(HOSTILE, safe_markdown(HOSTILE)),  # as the server sends it
        _answer(HOSTILE, HOSTILE),  # as if the server had not made it inert
    ]

    def fulfil(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answers[0]))

    page.route(lambda url: urlsplit(url).path.endswith("/rdskit/lab/ask"), fulfil)
    try:
        page.goto(f"{lab.url}/lab?reset&token={lab.token}")
        page.locator(".jp-SideBar [data-id='rdskit-panel']").click()
        panel = page.locator("#rdskit-panel")
        expect(panel.locator(".rds-lab-ask-question")).to_be_visible(timeout=CELL_MS)

        def ask() -> Any:
            panel.locator(".rds-lab-ask-question").fill("What do people say?")
            panel.locator(".rds-lab-ask-send").click()
            text = panel.locator(".rds-lab-answer-text")
            expect(text).to_be_visible(timeout=UI_MS)
            return text

        text = ask()
        expect(text.locator("h2")).to_have_text("What people say")
        expect(text.locator("strong")).to_have_text("negative")
        expect(text.locator("em")).to_have_text("price")
        expect(text.locator("li")).to_have_count(2)
        expect(text.locator("table td").first).to_have_text("reddit")
        expect(text.locator("code")).to_have_text("not a marker [1]")
        markers = text.locator(".rds-lab-cite")
        expect(markers).to_have_count(2)
        text.locator(".rds-lab-cite[data-ref='2']").click()
        card = panel.locator(".rds-lab-card")
        expect(card).to_contain_text("[2] reddit")
        expect(card.locator("a")).to_have_attribute("href", "https://r.example/p2")
        page.screenshot(path=str(ARTIFACTS / "panel-ask-markdown.png"))

        for hostile in answers[1:]:
            answers[0] = hostile
            panel.locator(".rds-lab-ask-new").click()
            text = ask()
            expect(text).to_contain_text("file")
            page.wait_for_timeout(500)  # anything that would run, load or toggle has done so
            found = text.evaluate(_INERT)
            assert found["pwned"] is None and found["bad"] == [] and found["tags"] == [], found
            for href, target, rel in found["links"]:
                assert href.startswith(("https://", "http://")), found["links"]
                assert target == "_blank" and "noopener" in rel and "noreferrer" in rel
            assert not re.search("[\u202a-\u202e\u2066-\u2069]", found["text"]), found["text"]
            expect(text.locator(".rds-lab-cite[data-ref='1']")).to_have_count(1)
            assert page.locator("#rdskit-panel").count() == 1  # no id taken over
            assert page.evaluate("getComputedStyle(document.body).display") != "none"
            expect(panel.locator(".rds-lab-title")).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "panel-ask-hostile.png"))
        assert dialogs == []
        assert not [url for url in requests if "evil.example" in url], requests
    finally:
        page.close()


def test_the_launcher_card_opens_the_starter_notebook_which_runs_to_its_answers(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    page = _page(browser)
    try:
        page.goto(f"{lab.url}/lab?reset&token={lab.token}")  # the launcher opens with it
        page.locator(".jp-LauncherCard", has_text="rdskit starter").first.click()
        notebook = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        idle = page.locator(".jp-StatusBar-Widget").get_by_text(re.compile(r"\| Idle"))
        expect(idle).to_be_visible(timeout=CELL_MS)
        cells = notebook.locator(".jp-Notebook .jp-Cell")
        expect(cells).to_have_count(11)
        expect(cells.first.locator("h1")).to_contain_text("A first look with rdskit")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        last = cells.nth(10)
        expect(last.locator(".jp-InputArea-prompt")).to_have_text(
            re.compile(r"\[\d+\]:"), timeout=2 * CELL_MS
        )
        for index in range(11):
            assert not _errors_of(cells.nth(index)), (index, _errors_of(cells.nth(index)))
        first_ask = cells.nth(6)
        expect(first_ask.locator(".rds-answer .rds-marker").first).to_be_visible()
        expect(cells.nth(8).locator(".rds-answer")).to_be_visible()
        expect(last.locator("table").first).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "starter-notebook.png"))
    finally:
        page.close()
