"""Every committed tutorial, opened UNTRUSTED in JupyterLab (as a fresh clone is), reads
right: its outputs lost every ``<style>`` (the sanitizer's doing), yet no progress panel or
repr overflows its output area, every panel's lines are separate lines, and every progress
bar is visible (a completed one full).

The notebooks are copied as committed (with their outputs) into the ``lab`` server of
``test_answer_view.py``, which never signed them. ``RDSKIT_TUTORIALS_DIR`` points the test
at another folder of the same notebooks (e.g. re-executed copies, before committing them).
Checked at 700 px and 1400 px wide; screenshots of failures go to ``artifacts/``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from test_answer_view import (  # noqa: F401  (fixtures are used by name)
    ARTIFACTS,
    KERNEL_READY_MS,
    ROOT,
    UI_MS,
    Lab,
    browser,
    lab,
)

pytestmark = pytest.mark.browser

SOURCE = Path(os.environ.get("RDSKIT_TUTORIALS_DIR") or ROOT / "notebooks")
TUTORIALS = sorted(path.name for path in SOURCE.glob("[0-9][0-9]-*.ipynb"))
WIDTHS = (700, 1400)

# Measures every rdskit output of the open notebook in the page.
MEASURE_JS = """
() => {
  const notebook = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const box = (el) => { const r = el.getBoundingClientRect();
                        return {x: r.x, y: r.y, w: r.width, h: r.height}; };
  const outputs = [...notebook.querySelectorAll('.jp-OutputArea-output')];
  const found = [];
  for (const el of notebook.querySelectorAll('.rds-progress, .rds-repr')) {
    const area = el.closest('.jp-OutputArea-output');
    const item = {kind: el.classList.contains('rds-progress') ? 'progress' : 'repr',
                  state: el.getAttribute('data-state'), box: box(el), area: box(area),
                  scroll: [el.scrollWidth, el.clientWidth],
                  text: el.innerText};
    const bar = el.querySelector(':scope > .rds-progress-bar');
    if (bar) {
      const fill = bar.querySelector('span');
      item.bar = box(bar);
      item.fill = box(fill);
      item.fillColour = getComputedStyle(fill).backgroundColor;
      item.styled = fill.getAttribute('style') || '';
    }
    found.push(item);
  }
  return {found, styles: outputs.filter((o) => o.querySelector('style')).length};
}
"""


def _open(page: Page, server: Lab, name: str) -> None:
    page.goto(f"{server.url}/lab/tree/tutorials/{name}?reset&token={server.token}")
    idle = page.locator(".jp-StatusBar-Widget").get_by_text(re.compile(r"\(ipykernel\) \| Idle"))
    expect(idle).to_be_visible(timeout=KERNEL_READY_MS)
    expect(page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first).to_be_visible(
        timeout=UI_MS
    )


def _problems(item: dict[str, Any]) -> list[str]:
    box, area = item["box"], item["area"]
    problems = []
    if box["x"] + box["w"] > area["x"] + area["w"] + 1:
        problems.append(f"leaves its output area ({box} in {area})")
    if item["scroll"][0] > item["scroll"][1] + 1 and item["kind"] == "progress":
        problems.append(f"content wider than the panel ({item['scroll']})")
    if item["kind"] != "progress":
        return problems
    bar, fill = item["bar"], item["fill"]
    if bar["h"] < 4 or bar["w"] < 40:
        problems.append(f"bar not visible ({bar})")
    share = float(re.match(r"width:([\d.]+)%", item["styled"])[1]) / 100  # type: ignore[index]
    if share > 0 and (fill["w"] < 1 or fill["h"] < 4):
        problems.append(f"bar fill not visible at {share:.0%} ({fill})")
    if abs(fill["w"] - share * bar["w"]) > 2:
        problems.append(f"bar fill {fill['w']:.0f}px for {share:.0%} of {bar['w']:.0f}px")
    if item["fillColour"] in ("rgba(0, 0, 0, 0)", "transparent"):
        problems.append("bar fill has no colour")
    if item["state"] == "completed" and share < 0.999:
        problems.append(f"a completed run's bar at {share:.0%}")
    lines = [line for line in item["text"].splitlines() if line.strip()]
    if len(lines) < 2 or re.search(r"[a-z]status[a-z]|\(UTC\)[a-z]", item["text"]):
        problems.append(f"reads run together: {item['text'][:120]!r}")
    return problems


def _at_width(page: Page, width: int) -> None:
    """Resize the window and wait until Lumino has laid the notebook out at the new size."""
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_function(
        """(width) => {
          const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
          return panel && panel.getBoundingClientRect().right <= width;
        }""",
        arg=width,
        timeout=UI_MS,
    )
    page.wait_for_timeout(200)  # the outputs reflow after the panel's resize message


def test_every_tutorial_reads_right_untrusted(
    lab: Lab,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    """Each tutorial is opened once and measured at every width (the window resized), so
    the page loads and kernel starts are not paid once per width."""
    assert TUTORIALS, f"no tutorials in {SOURCE}"
    folder = lab.notebook_dir / "tutorials"
    folder.mkdir(exist_ok=True)
    for name in TUTORIALS:
        shutil.copyfile(SOURCE / name, folder / name)  # as committed: never signed here
    page = browser.new_page(viewport={"width": max(WIDTHS), "height": 900})
    page.set_default_timeout(UI_MS)
    failures: list[str] = []
    panels = dict.fromkeys(WIDTHS, 0)
    try:
        for name in TUTORIALS:
            page.set_viewport_size({"width": max(WIDTHS), "height": 900})
            _open(page, lab, name)
            for width in sorted(WIDTHS, reverse=True):
                _at_width(page, width)
                before = len(failures)
                measured = page.evaluate(MEASURE_JS)
                assert measured["styles"] == 0, f"{name} is trusted: its outputs keep <style>"
                for index, item in enumerate(measured["found"]):
                    panels[width] += item["kind"] == "progress"
                    for problem in _problems(item):
                        failures.append(f"{name} {item['kind']} #{index} at {width}px: {problem}")
                if len(failures) > before:
                    page.screenshot(
                        path=str(ARTIFACTS / f"untrusted-{width}-{name}.png"), full_page=True
                    )
    finally:
        page.close()
    for width, count in panels.items():
        assert count >= len(TUTORIALS) // 2, f"only {count} progress panels at {width}px"
    assert not failures, "\n".join(failures)
