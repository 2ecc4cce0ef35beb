"""Fixtures of the Jupyter-layer tests.

- ``sandbox``: a fast sandbox for the whole module run (``speed=200``), with a dataset
  collected once (``seeded``: its id and mentions frame);
- ``shell``: the IPython shell with ``%load_ext rdskit``, its session connected to the
  sandbox, namespace and chat reset for each test;

Helpers (``run_cell``, ``assert_no_secret``, ``Seeded``) live in ``jupyter_support.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import QUERY, Seeded
from traitlets.config import Config

import rdskit
from rdskit.jupyter.magics import session_of
from rdskit.sandbox import SandboxHandle, start


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    with start(speed=200) as handle:
        yield handle


@pytest.fixture(scope="session")
def seeded(sandbox: SandboxHandle) -> Seeded:
    with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        dataset = client.datasets.create("Oat milk (jupyter tests)")
        client.datasets.runs.create(dataset.id, search_query=QUERY, count=30).wait()
        frame = client.mentions.to_frame(dataset_ids=[dataset.id])
    return Seeded(dataset.id, frame)


@pytest.fixture(scope="session")
def _loaded_shell() -> InteractiveShell:
    config = Config()
    config.HistoryManager.hist_file = ":memory:"  # never the user's IPython history
    shell = InteractiveShell.instance(config=config)
    shell.run_line_magic("load_ext", "rdskit")
    return shell


@pytest.fixture
def shell(
    _loaded_shell: InteractiveShell, sandbox: SandboxHandle, monkeypatch: pytest.MonkeyPatch
) -> Iterator[InteractiveShell]:
    """The loaded shell, connected to the sandbox, with no gateway or key in the env."""
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    session = session_of(_loaded_shell)
    session.connect(rdskit.Client(sandbox.api_key, base_url=sandbox.url), "the test sandbox")
    names = set(_loaded_shell.user_ns)
    yield _loaded_shell
    session.close()
    rdskit.set_budget(None)  # the budget is process-wide: no test leaves one behind
    for name in set(_loaded_shell.user_ns) - names:
        del _loaded_shell.user_ns[name]
