"""Fixtures for the pandas layer: sample frames, a sandbox client, an isolated cache."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import matplotlib
import pandas as pd
import pytest
from frame_samples import PROFILES, SMALL
from research_sandbox import research  # noqa: F401  (the research tests' data)

import rdskit
import rdskit.frames as frames
from rdskit.sandbox import SandboxHandle, start

matplotlib.use("Agg")


@pytest.fixture
def small() -> pd.DataFrame:
    """The mentions frame of ``SMALL`` (``cp_1`` named ``brand``)."""
    return frames.mentions_frame(copy.deepcopy(SMALL), parameter_names={"cp_1": "brand"})


@pytest.fixture
def profiles() -> pd.DataFrame:
    """The profiles frame of ``PROFILES``."""
    return frames.profiles_frame(copy.deepcopy(PROFILES))


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    """A sandbox for the client tests (fast runs, no rate limit)."""
    with start(speed=500, rate_limit=10_000, seed=11) as handle:
        yield handle


@pytest.fixture
def client(sandbox: SandboxHandle) -> Iterator[rdskit.Client]:
    """A client on a fresh sandbox account (Business plan, funded)."""
    account = sandbox.admin.create_account(plan="Business")
    with rdskit.Client(account.api_key, base_url=sandbox.url) as c:
        yield c


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's parquet cache in its own temporary directory."""
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    import matplotlib.pyplot as plt

    yield
    plt.close("all")
