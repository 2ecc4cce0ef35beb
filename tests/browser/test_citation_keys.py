"""Citation cards by keyboard alone, in Debian's Chromium (no JupyterLab needed: the answer
view's HTML, trusted, i.e. with its style sheet, in a page of its own).

- Tab order: marker [1] -> the link of card [1] -> marker [2]; focus never falls to
  ``<body>``, and card [1] stays visible while its link has focus (``:has(:focus-visible)``,
  the keyboard's ``:focus-within``);
- Enter pins a card; its link is then the next Tab stop.

Escape (closing a pinned card) and the flip above the marker near the window's bottom edge
need script, which an output cannot carry: the JupyterLab extension adds them, and
``test_lab_extension.py`` checks them there.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect
from test_answer_view import UI_MS, browser  # noqa: F401  (fixture used by name)

from rdskit.jupyter.render import PostCard, message_html
from rdskit.models import PostReference

pytestmark = pytest.mark.browser


def _page_html() -> str:
    refs = [
        PostReference(source="reddit", id=f"p{n}", citation=n, start_index=0, end_index=3)
        for n in (1, 2)
    ]
    cards = {
        n: PostCard(
            n,
            "reddit",
            f"p{n}",
            author=f"author {n}",
            excerpt=f"the text of post {n}",
            url=f"https://reddit.example/p{n}",
        )
        for n in (1, 2)
    }
    answer = message_html("People say it is pricey [1] and thin [2].", refs, cards)
    return f"<!doctype html><meta charset=utf-8><body><button id=before>before</button>{answer}"


def test_tab_goes_marker_card_link_next_marker(browser: Browser) -> None:  # noqa: F811
    page = browser.new_page(viewport={"width": 900, "height": 700})
    page.set_default_timeout(UI_MS)
    try:
        page.set_content(_page_html())
        page.focus("#before")
        stops = []
        for _ in range(3):
            page.keyboard.press("Tab")
            stops.append(
                page.evaluate(
                    "() => { const a = document.activeElement;"
                    " return [a.tagName, a.className, a.closest('.rds-marker')"
                    " ? a.closest('.rds-marker').dataset.ref : null]; }"
                )
            )
            if stops[-1][0] == "A":
                card = page.locator(".rds-marker[data-ref='1'] .rds-card")
                expect(card).to_be_visible()  # the card stays while its link has focus
        assert stops == [
            ["SUMMARY", "rds-marker-num", "1"],
            ["A", "rds-card-link", "1"],
            ["SUMMARY", "rds-marker-num", "2"],
        ], stops
        # Enter pins card 2; Tab then reaches its link
        page.keyboard.press("Enter")
        expect(page.locator(".rds-marker[data-ref='2']")).to_have_attribute("open", "")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.className") == "rds-card-link"
    finally:
        page.close()
