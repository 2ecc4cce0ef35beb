"""Running a page's Python recipe as a new user would: in a new process, nothing of ours."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

UNSET = ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_SANDBOX_DB", "RDSKIT_SANDBOX_PLAN")
"""What a new user has not set: no key, no service, the sandbox's default file and plan."""


def run_recipe(
    code: str, folder: Path, *, timeout: float, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` as a script in ``folder``: the Agg backend for its charts, a fast
    sandbox (speed 50: runs take a second), rdskit's files (parquet cache, ledger of paid
    calls) in the folder, none of :data:`UNSET`; ``env`` adds variables."""
    script = folder / "recipe.py"
    script.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + code)
    environ = {
        **os.environ,
        "RDSKIT_SANDBOX_SPEED": "50",
        "RDSKIT_CACHE_DIR": str(folder / "c"),
        **env,
    }
    for name in UNSET:
        environ.pop(name, None)
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=folder,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
