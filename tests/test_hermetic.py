"""The suite is hermetic: what it writes lands in its own temporary folder (the root
``conftest.py``), never in the user's home, and the guard that says so can fail."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SCRIPT = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from jupyter_core.paths import jupyter_data_dir, jupyter_runtime_dir
import rdskit
from rdskit._files import cache_dir

client = rdskit.Client.sandbox()
ds = client.datasets.get_or_create("Hermetic")
run = client.datasets.runs.create(
    ds.id,
    search_query={"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"},
    count=5,
).wait()
frame = client.mentions.to_frame(dataset_ids=[ds.id], cache=True)
client.ask("How many posts are there?", dataset_ids=[ds.id], reuse=True).wait()
plt.plot([1, 2]); plt.savefig(cache_dir() / "figure.png")
print(cache_dir(), jupyter_data_dir(), jupyter_runtime_dir(), sep="\\n")
"""


def test_every_writable_folder_is_inside_the_suite_folder(suite_folders: Any) -> None:
    root = suite_folders.root.resolve()
    assert Path(tempfile.gettempdir()).resolve() in root.parents
    assert root.name.startswith("rdskit-suite-")
    for variable in suite_folders.env:
        folder = Path(os.environ[variable]).resolve()
        assert folder.is_relative_to(root), (variable, folder)


def test_paid_call_ledger_cache_and_jupyter_files_land_in_the_suite_folder(
    suite_folders: Any,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-2000:]
    folders = [Path(line).resolve() for line in done.stdout.split()]
    root = suite_folders.root.resolve()
    assert all(folder.is_relative_to(root) for folder in folders), folders
    cache = Path(os.environ["RDSKIT_CACHE_DIR"])
    written = {path.name for path in cache.rglob("*") if path.is_file()}
    assert "paid-calls.json" in written and "figure.png" in written, written
    assert any(name.endswith(".parquet") for name in written), written


def test_the_home_guard_sees_a_write(suite_folders: Any, tmp_path: Path) -> None:
    fingerprint = suite_folders.fingerprint
    (tmp_path / ".cache" / "rdskit").mkdir(parents=True)
    before = fingerprint(tmp_path)
    (tmp_path / ".cache" / "rdskit" / "paid-calls.json").write_text("{}")
    assert fingerprint(tmp_path) != before
    again = fingerprint(tmp_path)
    (tmp_path / ".local" / "share" / "jupyter" / "runtime").mkdir(parents=True)
    assert fingerprint(tmp_path) != again
