"""A JupyterLab server and Debian's Chromium for the browser tests, started with whatever
environment a test needs (the answer view's isolated folders, or a new user's ``HOME``
with a recipe's settings).

- :func:`running_labs`: ``jupyter lab`` servers (:class:`LabSpec`), each on a free loopback
  port with a token of its own, started at once, until the block ends;
- :func:`write_settings`: JupyterLab settings for a quiet, fully rendered notebook;
- :func:`chromium`: headless Debian Chromium (Playwright never downloads a browser here,
  and a missing browser fails the test).
"""

from __future__ import annotations

import json
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

SERVER_START_S = 120.0
"""JupyterLab's first start builds nothing, but a cold 2-core CI machine is slow."""

# JupyterLab settings for a quiet, fully rendered notebook: no news or update toasts over the
# page, and every cell in the DOM (windowing would drop cells outside the viewport).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab server."""

    url: str
    token: str
    notebook_dir: Path
    runtime_dir: Path
    log: Path


def write_settings(settings_dir: Path) -> None:
    """:data:`LAB_SETTINGS` as JupyterLab's user settings in ``settings_dir``."""
    for name, values in LAB_SETTINGS.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_ready(process: subprocess.Popen[bytes], url: str, token: str, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"jupyter lab exited with {process.returncode}:\n{log.read_text()}")
        try:
            response = httpx.get(f"{url}/api/status", params={"token": token}, timeout=5)
            if response.status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    pytest.fail(
        f"jupyter lab did not answer /api/status in {SERVER_START_S:g}s:\n{log.read_text()}"
    )


@dataclass(frozen=True)
class LabSpec:
    """How to start one server: ``jupyter lab`` in ``notebook_dir`` (its root) with exactly
    ``env``, its output in ``log``; ``runtime_dir`` is where that environment makes it write
    kernel connection files (for callers that read them)."""

    notebook_dir: Path
    env: Mapping[str, str]
    runtime_dir: Path
    log: Path


@contextmanager
def running_labs(specs: Sequence[LabSpec]) -> Iterator[list[Lab]]:
    """The servers of ``specs``, started at once (each start is mostly waiting), until the
    block ends (SIGTERM: a server shuts its kernels down).

    >>> with running_labs([LabSpec(folder, env, folder / "rt", log)]) as (lab,):  # doctest: +SKIP
    ...     httpx.get(f"{lab.url}/api/status", params={"token": lab.token})
    """
    started: list[tuple[subprocess.Popen[bytes], Lab]] = []
    try:
        for spec in specs:
            token = secrets.token_hex(24)
            port = _free_port()
            command = [
                str(Path(sys.executable).with_name("jupyter")),
                "lab",
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={token}",
                f"--ServerApp.root_dir={spec.notebook_dir}",
                "--ServerApp.allow_root=True",  # CI runs as root; loopback only
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ]
            spec.log.parent.mkdir(parents=True, exist_ok=True)
            with spec.log.open("wb") as sink:
                process = subprocess.Popen(
                    command,
                    cwd=spec.notebook_dir,
                    env=dict(spec.env),
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                )
            url = f"http://127.0.0.1:{port}"
            started.append(
                (process, Lab(url, token, spec.notebook_dir, spec.runtime_dir, spec.log))
            )
        for process, lab in started:
            _wait_ready(process, lab.url, lab.token, lab.log)
        yield [lab for _, lab in started]
    finally:
        for process, _ in started:
            process.terminate()
        for process, _ in started:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Debian Chromium, closed when the block ends."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; "
            ".ci/run does it). The browser test never downloads a browser."
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield cast(Browser, _Pages(launched))
        finally:
            launched.close()


class _Pages:
    """A browser whose new pages dismiss JupyterLab's "Directory not found" dialog.

    JupyterLab's URL router sometimes re-resolves the address of a notebook that was just
    renamed (``/lab/tree/Untitled.ipynb`` after a save as ``lesson-01.ipynb``), gets a 404 and
    opens that dialog over the page; under load it came up in two CI runs and blocked the next
    click. It is JupyterLab's own race, not rdskit's, and says nothing the test checks; any
    other dialog still blocks and fails the test.
    """

    def __init__(self, browser: Browser) -> None:
        self._browser = browser

    def new_page(self, **options: Any) -> Page:
        page = self._browser.new_page(**options)
        stray = page.locator(".jp-Dialog", has_text="Directory not found")
        page.add_locator_handler(stray, lambda dialog: dialog.get_by_role("button").last.click())
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)
