"""The set-up recipes of the docs, followed as a new user does, in a real JupyterLab and
Debian's Chromium (the same recipes tests/setups/ runs through the kernel protocol; read
from the Markdown by tests/setups/recipes.py, so a doc edit changes what runs here).

- **One user** (notebooks/setup.md, "On your own computer"): the section's ``RDSKIT_…``
  settings in the environment that starts ``jupyter lab`` in a copy of ``notebooks/``,
  ``HOME`` a fresh folder and nothing else of the suite's (Jupyter's folders below that
  home). The rdskit panel, opened from the side bar, shows the server's shared sandbox
  (not 502/401); a notebook made from the launcher gets lesson 01's first cells, then
  ``%load_ext rdskit`` and a ``%%ask``, typed and run with Shift+Enter; their outputs have
  no traceback, the run collected its 200 posts, the answer shows its ``[N]`` markers and
  references, and the panel follows the notebook to its sandbox and dataset. With that
  kernel shut down (the doc: one kernel at a time on the file), a second notebook made from
  File > New finds the dataset again (the persistent database).
- **A class on JupyterHub** (setup.md's and docs/teaching.md's ``c.Spawner.environment``,
  the image's ``/home/jovyan`` moved to each student's home): two students, each a
  JupyterLab server with that environment and a home of their own, each in a browser
  context of their own, type the same cells at the same time; each sees only their own
  dataset (in the notebook and in the panel), and the plan the recipe leaves (Pro) runs
  the lesson's core: its pinned date window and a 200-post collection.
- **The gateway with a real key** (docs/jupyter.md, its ```bash and ```python blocks as
  written, a started sandbox playing the service): the panel shows the server's connection
  to the service with its credits; a notebook typed by keyboard runs setup.md's "With a real
  key" (a budget first, lesson 01's first cells with ``rdskit.Client()``) and a ``%%ask``
  through the gateway, the kernel holding no key; the dataset is on the service's account.
- **A key revoked on the sandbox** (on purpose, in the user's notebook): the next cell's
  error says what happened and the one fix, the panel keeps its last view marked stale
  with the same words (not the gateway's key file), and after that fix (a new
  ``rdskit.Client.sandbox()``) the cell and the panel work again.

The three servers of the first recipes start once for the module (the gateway's, with its
own home and service, in its test). Cells are typed by keyboard (CodeMirror's
automatic indentation is taken back before each line's own); the saved notebook must hold
exactly the lesson's cells, so a typing slip fails the test rather than running other
code. Screenshots and server logs go to ``tests/browser/artifacts/setup-*``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from lab_server import Lab, LabSpec, chromium, running_labs, write_settings
from playwright.sync_api import Browser, Locator, Page, expect
from test_answer_view import ARTIFACTS, CELL_MS, KERNEL_READY_MS, ROOT, UI_MS, _errors_of
from test_lab_extension import BUILT  # noqa: F401  (puts this checkout's build first)

sys.path.insert(0, str(ROOT / "tests" / "setups"))
from recipes import (  # tests/setups, put on the path just above
    ASK,
    JUPYTER,
    SETUP,
    TEACHING,
    env_settings,
    fenced,
    lesson_cells,
    section,
    spawner_environment,
)

import rdskit
from rdskit.sandbox import start

pytestmark = pytest.mark.browser

SUITE_ONLY = re.compile(
    r"^(XDG_\w+|JUPYTER_(CONFIG|DATA|RUNTIME)_DIR|JUPYTERLAB_\w+|IPYTHONDIR|MPLCONFIGDIR|RDSKIT_\w+)$"
)
"""What the suite (or the developer's shell) sets that a new user's shell does not: their
Jupyter, IPython and rdskit folders come from ``HOME``, and no rdskit setting but the
recipe's is there."""

CLASS = [
    ("alice", SETUP, "A class on JupyterHub"),
    ("bob", TEACHING, "A sandbox per student on JupyterHub"),
]
LESSON = lesson_cells()
TYPED = [*LESSON, "%load_ext rdskit", ASK]
OWN_DATA = "print(sorted((d.id, d.name) for d in client.datasets.list()))"
CELLS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell"


def _new_user(home: Path, settings: dict[str, str]) -> dict[str, str]:
    """The environment of a new user's terminal (``HOME``) with ``settings`` exported."""
    env = {name: value for name, value in os.environ.items() if not SUITE_ONLY.match(name)}
    write_settings(home / ".jupyter" / "lab" / "user-settings")  # no news toasts, no windowing
    return env | {"HOME": str(home)} | settings


def _spec(home: Path, settings: dict[str, str], name: str) -> LabSpec:
    """``cd notebooks`` and ``jupyter lab`` in ``home``, as setup.md says."""
    notebooks = home / "notebooks"
    shutil.copytree(ROOT / "notebooks", notebooks)
    runtime = home / ".local" / "share" / "jupyter" / "runtime"
    return LabSpec(notebooks, _new_user(home, settings), runtime, ARTIFACTS / f"setup-{name}.log")


@pytest.fixture(scope="module")
def labs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Lab]]:
    """One user's server (setup.md's settings) and two students' (the spawner's)."""
    specs = {}
    home = tmp_path_factory.mktemp("single") / "home"
    home.mkdir()
    specs["single"] = _spec(home, env_settings(SETUP, "On your own computer", home), "single")
    for user, doc, heading in CLASS:
        home = tmp_path_factory.mktemp(user) / "home"
        home.mkdir()
        specs[user] = _spec(home, spawner_environment(doc, heading, home), user)
    with running_labs(list(specs.values())) as started:
        yield dict(zip(specs, started, strict=True))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


# -- what a user does -------------------------------------------------------------------------
def _home_page(browser: Browser, lab: Lab) -> Page:
    """A browser context of its own (a student's own browser) on JupyterLab's launcher."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(UI_MS)
    page.goto(f"{lab.url}/lab?reset&token={lab.token}")
    return page


def _open_panel(page: Page) -> Locator:
    """The rdskit panel, opened by its side bar tab."""
    page.locator(".jp-SideBar .lm-TabBar-tab[data-id='rdskit-panel']").click()
    panel = page.locator("#rdskit-panel")
    expect(panel).to_be_visible()
    return panel


def _connected(panel: Locator, viewing: str | re.Pattern[str]) -> None:
    """The panel shows an account (``viewing``) with its credits, nothing stale or failed."""
    expect(panel.locator(".rds-lab-viewing")).to_have_text(viewing, timeout=CELL_MS)
    expect(panel.locator(".rds-lab-credits")).to_have_text(re.compile(r"^Credits left: [\d,.]+"))
    # a throttle while a notebook polls is shown as stale and read again after Retry-After
    # (the CI machine met one): the view must come back fresh, never fail
    expect(panel.locator(".rds-lab-error")).to_have_count(0)
    expect(panel.locator(".rds-lab-stale")).to_have_count(0, timeout=CELL_MS)
    text = panel.inner_text()
    assert "502" not in text and "401" not in text, text


def _wait_kernel(page: Page) -> None:
    idle = page.locator(".jp-StatusBar-Widget").get_by_text(re.compile(r"\(ipykernel\) \| Idle"))
    expect(idle).to_be_visible(timeout=KERNEL_READY_MS)


def _type(page: Page, source: str) -> None:
    """Type ``source`` into the focused cell editor, line by line: after each Enter the
    editor indents by itself; Shift+Home selects that indentation, so the line's own
    (typed, spaces) replaces it."""
    for number, line in enumerate(source.split("\n")):
        if number:
            page.keyboard.press("Enter")
            page.keyboard.press("Shift+Home")
        if line:
            page.keyboard.type(line)


def _type_and_run(page: Page, sources: list[str]) -> None:
    """Type each source into the active cell and Shift+Enter it (which adds the next
    cell, in edit mode), without waiting for its result: the kernel queues them."""
    for source in sources:
        _type(page, source)
        page.keyboard.press("Shift+Enter")


def _finished(page: Page, index: int) -> Locator:
    """Cell ``index`` of the open notebook, once it has run (its prompt numbered)."""
    cell = page.locator(CELLS).nth(index)
    expect(cell.locator(".jp-InputArea-prompt")).to_have_text(
        re.compile(r"\[\d+\]:"), timeout=CELL_MS
    )
    return cell


def _new_notebook_runs(page: Page, sources: list[str]) -> None:
    """A notebook made from the launcher's card, its kernel awaited, ``sources`` typed into
    its first cells and run by keyboard."""
    page.locator(".jp-LauncherCard[data-category='Notebook']").first.click()
    _wait_kernel(page)
    page.locator(f"{CELLS} .cm-content").first.click()
    _type_and_run(page, sources)


def _results(page: Page, first: int, count: int) -> list[str]:
    """Wait for cells ``first`` .. ``first + count - 1`` to finish; their output texts.
    A traceback or anything on stderr fails the test, naming the cell."""
    texts = []
    for index in range(first, first + count):
        cell = _finished(page, index)
        errors = _errors_of(cell)
        assert not errors, f"cell {index} failed:\n{errors}"
        texts.append(cell.locator(".jp-OutputArea").inner_text())
    return texts


def _saved_sources(page: Page, lab: Lab, name: str) -> list[str]:
    """Save the notebook (Ctrl+S; JupyterLab asks for a name on an untitled notebook's
    first save: ``name``) and read the file back: its non-empty cells' sources."""
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    field = page.locator(".jp-Dialog").get_by_role("textbox", name="File name")
    field.fill(name)
    page.keyboard.press("Enter")
    path = lab.notebook_dir / name
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
    expect(tab).to_contain_text(name)
    expect(tab).not_to_have_class(re.compile(r"\bjp-mod-dirty\b"))
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [source for cell in notebook["cells"] if (source := "".join(cell["source"]))]


def _check_answer(cell: Locator) -> None:
    """The ``%%ask`` answer rendered: its table, ``[N]`` markers numbered from 1 and a
    references list with one item per marker."""
    answer = cell.locator(".rds-answer")
    expect(answer).to_be_visible()
    expect(answer.locator("table").first).to_contain_text("instagram")
    markers = answer.locator(".rds-marker[data-ref]")
    refs = sorted({int(m.get_attribute("data-ref") or 0) for m in markers.all()})
    assert refs and refs == list(range(1, len(refs) + 1)), refs
    expect(answer.locator(".rds-references li[data-ref]")).to_have_count(len(refs))


# -- the recipes ------------------------------------------------------------------------------
@pytest.mark.timeout(900)  # three servers and kernels on a loaded 2-core machine
def test_setup_md_single_user_in_jupyterlab(labs: dict[str, Lab], browser: Browser) -> None:
    lab = labs["single"]
    page = _home_page(browser, lab)
    try:
        panel = _open_panel(page)
        _connected(panel, re.compile(r"^this server's shared sandbox"))

        _new_notebook_runs(page, TYPED)
        outputs = _results(page, 0, len(TYPED))
        assert "completed: 200 posts in '01 oat milk'" in outputs[len(LESSON) - 1], outputs
        _check_answer(page.locator(CELLS).nth(len(TYPED) - 1))
        assert _saved_sources(page, lab, "lesson-01.ipynb") == TYPED
        page.screenshot(path=str(ARTIFACTS / "setup-single-user.png"))

        # the panel follows the notebook to the sandbox its kernel started
        _connected(panel, "this notebook: embedded sandbox")
        expect(panel.locator(".rds-lab-dataset-name", has_text="01 oat milk")).to_be_visible()

        # one kernel at a time on the file: this one is shut down, a new notebook made
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Shut Down Kernel$")).click()
        expect(
            page.locator(".jp-StatusBar-Widget").get_by_text(re.compile("No Kernel"))
        ).to_be_visible()
        page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^New$")).hover()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Notebook$")).click()
        page.locator(".jp-Dialog-button.jp-mod-accept").click()  # Select Kernel: Python 3
        _wait_kernel(page)
        page.locator(f"{CELLS} .cm-content").first.click()
        _type_and_run(page, [LESSON[0], OWN_DATA])
        (_, found) = _results(page, 0, 2)
        assert "'01 oat milk')]" in found, found
    finally:
        page.context.close()


@pytest.mark.timeout(900)
def test_a_class_on_jupyterhub_two_students_in_jupyterlab(
    labs: dict[str, Lab], browser: Browser
) -> None:
    students = [user for user, _, _ in CLASS]
    pages = {user: _home_page(browser, labs[user]) for user in students}
    try:
        for user in students:  # both start a notebook and type ahead: the kernels queue
            page = pages[user]
            _connected(_open_panel(page), re.compile(r"^this server's shared sandbox"))
            _new_notebook_runs(page, [*TYPED, "print(ds.id)\n" + OWN_DATA])
        own = {}
        for user in students:
            page = pages[user]
            outputs = _results(page, 0, len(TYPED) + 1)
            assert "window: {'from': '2025-10-01', 'to': '2025-12-31'}" in outputs[1], outputs[1]
            assert "completed: 200 posts in '01 oat milk'" in outputs[len(LESSON) - 1], outputs
            _check_answer(page.locator(CELLS).nth(len(TYPED) - 1))
            dataset_id, listed = outputs[-1].strip().split("\n")
            assert listed == repr([(dataset_id, "01 oat milk")]), (user, outputs[-1])
            own[user] = dataset_id
            page.screenshot(path=str(ARTIFACTS / f"setup-class-{user}.png"))
        assert own["alice"] != own["bob"], own
        for user in students:  # each panel shows that student's dataset, never the other's
            panel = pages[user].locator("#rdskit-panel")
            _connected(panel, "this notebook: embedded sandbox")
            expect(panel.locator(f".rds-lab-dataset[data-id='{own[user]}']")).to_be_visible()
            other = own["bob" if user == "alice" else "alice"]
            assert panel.locator(f".rds-lab-dataset[data-id='{other}']").count() == 0
    finally:
        for page in pages.values():
            page.context.close()


REVOKE = (
    "from rdskit.sandbox import embedded\n\n"
    "embedded().admin.revoke_key(client._core.api_key.reveal())  # on purpose"
)
KEY_FIX = "a new rdskit.Client.sandbox() (%rds connect --sandbox) gets a working key"


@pytest.mark.timeout(600)
def test_a_key_revoked_on_the_sandbox_says_what_happened_and_the_one_fix(
    labs: dict[str, Lab], browser: Browser
) -> None:
    page = _home_page(browser, labs["single"])
    try:
        panel = _open_panel(page)
        _new_notebook_runs(page, [LESSON[0] + "\nprint(client.me().plan.name)"])
        _results(page, 0, 1)
        _connected(panel, "this notebook: embedded sandbox")

        _type_and_run(page, [REVOKE, "client.datasets.list()"])
        _results(page, 1, 1)
        said = _errors_of(_finished(page, 2))
        assert "This API key was revoked in this sandbox's database" in said, said
        assert KEY_FIX in said and "RDSKIT_API_KEY" not in said, said
        stale = panel.locator(".rds-lab-stale")
        expect(stale.locator(".rds-lab-stale-reason")).to_contain_text(
            "this notebook's sandbox refused its key: This API key was revoked", timeout=CELL_MS
        )
        expect(stale.locator(".rds-lab-stale-fix")).to_have_text(f"Fix: {KEY_FIX}")
        page.screenshot(path=str(ARTIFACTS / "setup-revoked-key.png"))

        _type_and_run(page, [LESSON[0] + "\nprint(client.me().plan.name)"])  # the one fix
        (plan,) = _results(page, 3, 1)
        assert plan.strip() == "Pro", plan
        expect(stale).to_have_count(0, timeout=CELL_MS)
        _connected(panel, "this notebook: embedded sandbox")
    finally:
        page.context.close()


GATEWAY = "The gateway with a real key"
SERVICE = "https://api.example.com"
THROUGH_GATEWAY = (
    "import os\n"
    "print(client._core.api_key.mode, sorted(k for k in os.environ if k.startswith('RDSKIT_')))"
)


@pytest.mark.timeout(900)
def test_the_gateway_with_a_real_key_in_jupyterlab(
    tmp_path: Path, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/jupyter.md's recipe as written (its ```bash block with the key typed on its
    standard input, its ```python block as ``~/.jupyter/jupyter_server_config.py``), a
    started sandbox playing the service (its URL for ``https://api.example.com``); then
    setup.md's "With a real key" in a notebook typed by keyboard: a budget first, lesson
    01's first cells with ``rdskit.Client()``, and a ``%%ask``. The panel shows the
    server's connection to the service with its credits, then the notebook's dataset; the
    kernel went through the gateway and never had the key in its environment."""
    (shell,) = fenced(JUPYTER, GATEWAY, "bash")
    (config,) = fenced(JUPYTER, GATEWAY, "python")
    assert SERVICE in config
    steps = section(SETUP, "With a real key")
    assert "replace `rdskit.Client.sandbox()` with `rdskit.Client()`" in steps
    assert "`%load_ext rdskit` then `%rds budget 300`" in steps
    typed = [
        "%load_ext rdskit\n%rds budget 300",
        *(cell.replace("rdskit.Client.sandbox()", "rdskit.Client()") for cell in LESSON),
        ASK,
        THROUGH_GATEWAY,
    ]
    home = tmp_path / "home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith("RDSKIT_"):  # the sandbox below is this process's, not the user's
            monkeypatch.delenv(name)
    with start(speed=50) as service:
        env = _new_user(home, {})
        subprocess.run(
            ["bash", "-c", shell],
            input=service.api_key + "\n",  # pasted, then Enter (and Ctrl-D: end of input)
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
        (home / ".jupyter" / "jupyter_server_config.py").write_text(
            config.replace(SERVICE, service.url), encoding="utf-8"
        )
        with running_labs([_spec(home, {}, "gateway")]) as (lab,):
            page = _home_page(browser, lab)
            try:
                panel = _open_panel(page)
                _connected(panel, re.compile(r"^this server's connection to "))

                _new_notebook_runs(page, typed)
                outputs = _results(page, 0, len(typed))
                assert "completed: 200 posts in '01 oat milk'" in outputs[len(LESSON)], outputs
                _check_answer(page.locator(CELLS).nth(len(typed) - 2))
                # through the gateway: the kernel holds its address, no key and no URL
                assert outputs[-1].strip() == "service ['RDSKIT_GATEWAY']", outputs[-1]
                assert _saved_sources(page, lab, "lesson-01.ipynb") == typed
                page.screenshot(path=str(ARTIFACTS / "setup-gateway.png"))
                expect(
                    panel.locator(".rds-lab-dataset-name", has_text="01 oat milk")
                ).to_be_visible(timeout=CELL_MS)
                _connected(panel, re.compile(r"connection to|service"))
            finally:
                page.context.close()
        # What the notebook did happened on the service's account.
        with rdskit.Client(service.api_key, base_url=service.url) as owner:
            assert "01 oat milk" in [d.name for d in owner.datasets.list()]
        assert service.api_key not in (lab.notebook_dir / "lesson-01.ipynb").read_text()
