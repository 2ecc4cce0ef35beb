"""A hermetic suite: every file the tests make lands in one temporary folder of this run.

Loaded by pytest before any test module (it sits at the repository root, above ``tests/``
and ``notebooks/``), so everything the suite starts inherits it: the sandbox, the ledger
and parquet cache of ``reuse=True`` and ``to_frame(cache=True)``, Jupyter servers and
kernels (nbval's and nbclient's included), matplotlib, IPython, Hypothesis and Chromium.

- ``HOME`` and the XDG folders point into a fresh ``rdskit-suite-*`` folder made with
  :func:`tempfile.mkdtemp` (a unique name: two copies of the suite on one machine never
  share a file), and so do ``RDSKIT_CACHE_DIR``, ``MPLCONFIGDIR``, ``IPYTHONDIR`` and the
  Jupyter data, config and runtime folders. The folder is removed when the run ends.
- The user's real folders that the product writes to (:data:`WATCHED`) are fingerprinted
  when the run starts and compared when it ends: a run that changed one fails, naming it
  (``RDSKIT_HOME_GUARD=warn`` only warns; ``tests/test_hermetic.py`` checks the redirection
  itself).

Under pytest-xdist every worker process imports this file too and gets a folder of its
own; only the controller compares the fingerprints. How tests are grouped across the
workers: :func:`suite_scope`.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

REAL_HOME = Path(os.environ.get("HOME") or os.path.expanduser("~"))
"""The home folder the suite was started with; nothing below it may change."""

WATCHED = (
    ".cache/rdskit",
    ".local/share/jupyter",
    ".jupyter",
    ".ipython",
    ".config/matplotlib",
    ".cache/matplotlib",
    ".config/chromium",
)
"""The folders below the real home that rdskit, Jupyter, IPython, matplotlib and Chromium
write to by default."""

GUARD_ENV = "RDSKIT_HOME_GUARD"
"""``warn`` turns the guard's failure into a warning, for a machine where other programs
(a notebook server, an IDE) write below the home folder while the suite runs."""

SUITE_ROOT = Path(tempfile.mkdtemp(prefix="rdskit-suite-"))
"""This process's private folder for everything the tests write."""

SUITE_ENV = {
    "HOME": "home",
    "XDG_CACHE_HOME": "xdg/cache",
    "XDG_DATA_HOME": "xdg/data",
    "XDG_CONFIG_HOME": "xdg/config",
    "XDG_STATE_HOME": "xdg/state",
    "RDSKIT_CACHE_DIR": "rdskit-cache",
    "MPLCONFIGDIR": "matplotlib",
    "IPYTHONDIR": "ipython",
    "JUPYTER_CONFIG_DIR": "jupyter/config",
    "JUPYTER_DATA_DIR": "jupyter/data",
    "JUPYTER_RUNTIME_DIR": "jupyter/runtime",
    "HYPOTHESIS_STORAGE_DIRECTORY": "hypothesis",
    "MYPY_CACHE_DIR": "mypy-cache",
    "RUFF_CACHE_DIR": "ruff-cache",
}
"""Environment variable -> folder below :data:`SUITE_ROOT`."""


def _fingerprint(home: Path) -> dict[str, tuple[int, int]]:
    """Every file below the watched folders of ``home``: path -> (size, mtime in ns)."""
    found: dict[str, tuple[int, int]] = {}
    for name in WATCHED:
        top = home / name
        if not top.exists():
            continue
        for path in [top, *top.rglob("*")]:
            try:
                info = path.lstat()
            except OSError:  # removed while we looked: the next fingerprint says so
                continue
            found[str(path)] = (info.st_size, info.st_mtime_ns)
    return found


def _redirect() -> None:
    for variable, relative in SUITE_ENV.items():
        folder = SUITE_ROOT / relative
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[variable] = str(folder)
    atexit.register(shutil.rmtree, SUITE_ROOT, ignore_errors=True)


BEFORE = _fingerprint(REAL_HOME)
_redirect()

try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # the floors check's venv may run a subset without it
    pass
else:
    # No per-example time limit: Hypothesis's default 200 ms deadline turns a loaded machine
    # (xdist workers on 2 cores) into a failing property; the properties are about values.
    _hypothesis_settings.register_profile("rdskit-suite", deadline=None)
    _hypothesis_settings.load_profile("rdskit-suite")


@dataclass(frozen=True)
class SuiteFolders:
    """What :func:`suite_folders` gives a test: the folders and the guard's fingerprint."""

    root: Path
    real_home: Path
    env: dict[str, str]
    fingerprint: Callable[[Path], dict[str, tuple[int, int]]]


@pytest.fixture(scope="session")
def suite_folders() -> SuiteFolders:
    """This process's suite folder, the real home and the guard (for tests/test_hermetic.py)."""
    return SuiteFolders(SUITE_ROOT, REAL_HOME, dict(SUITE_ENV), _fingerprint)


RERUNS = re.compile(r"^tests/test_notebook_reruns\.py::.*\[(?:.*-)?(\d\d-[^\]]+?\.ipynb)")
"""A re-run test's node id, and the notebook it runs."""


def suite_scope(nodeid: str) -> str:
    """What must run in one process under pytest-xdist: a test's file, or its notebook.

    Every test stays with the others of its file (their module and session fixtures are
    built once, as without xdist; a notebook's cells run in order in one kernel), except the
    notebook re-run tests, which are grouped by notebook: each notebook's jobs run once, and
    the notebooks spread over the workers instead of queueing in one.

    >>> suite_scope("tests/unit/test_models.py::test_x[a::b]")
    'tests/unit/test_models.py'
    >>> suite_scope("tests/test_notebook_reruns.py::test_plans[Trial-01-quickstart.ipynb]")
    'reruns 01-quickstart.ipynb'
    """
    rerun = RERUNS.match(nodeid)
    return f"reruns {rerun.group(1)}" if rerun else nodeid.partition("::")[0]


FIRST = (
    "tests/test_min_versions.py",
    "tests/setups/test_every_lesson.py",
    "tests/setups/test_from_source.py",
    "tests/test_course_on_trial.py",
    "tests/browser/test_tutorials_untrusted.py",
)
"""Scopes handed out before any other, longest first (CI's last run: 1,014 s, then about
660 s, 400 s, 200 s and 180 s on the loaded 2-core machine): the floors check (a nested test
run in its own environment), every lesson's first cells in the two documented set-ups,
setup.md's from-source install (a new virtual environment), the course on one Trial wallet
(ten lessons one after the other) and the untrusted tutorials in a browser. xdist orders
scopes by their number of tests, so these few-test scopes would otherwise come last and
lengthen the run by their whole duration; first, the other workers' tests overlap them."""


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist's: fine without it (-p no:xdist)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """xdist's scope scheduler, with :func:`suite_scope` as the scope (``--dist loadscope``;
    pytest 9 ignores the node-id suffix that xdist's ``loadgroup`` relies on)."""
    from xdist.scheduler import LoadScopeScheduling

    class SuiteScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return suite_scope(nodeid)

        def _assign_work_unit(self, node: object) -> None:
            for scope in reversed(FIRST):  # the longest tests first, so the rest overlap them
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return SuiteScheduling(config, log)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when it changed a watched folder of the real home (controller only)."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller checks
        return
    after = _fingerprint(REAL_HOME)
    changed = sorted(
        path for path in BEFORE.keys() | after.keys() if BEFORE.get(path) != after.get(path)
    )
    if changed:
        listing = "\n  ".join(changed[:20])
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = f"the suite wrote outside its temporary folders, below {REAL_HOME}:\n  {listing}"
        if os.environ.get(GUARD_ENV) == "warn":  # another program of the user's may write there
            if reporter is not None:
                reporter.write_line(f"WARNING: {message}", yellow=True)
            return
        if reporter is not None:
            reporter.write_line(f"ERROR: {message} ({GUARD_ENV}=warn: warn only)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
