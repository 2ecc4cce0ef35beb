"""The wheel built from this tree holds each file once, where an installer puts it.

Built with uv (as ``tests/test_min_versions.py`` does, sharing its download cache in
``.cache/uv``) and ``SKIP_JUPYTER_BUILDER=1``: the JupyterLab extension is the one the
editable install already built into ``src/rdskit/labextension`` (npm is not run again, and
the browser tests reading that folder meanwhile are not disturbed).
"""

from __future__ import annotations

import os
import subprocess
import zipfile
from collections import Counter
from pathlib import Path

from uv import find_uv_bin

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "src" / "rdskit" / "labextension"
SHARE = "rdskit-{version}.data/data/share/jupyter/labextensions/jupyterlab-rdskit/"


def test_the_wheel_holds_every_file_once_and_the_extension_under_share(tmp_path: Path) -> None:
    assert (BUILT / "package.json").exists(), "the editable install builds the extension first"
    env = {**os.environ, "UV_CACHE_DIR": str(ROOT / ".cache" / "uv"), "SKIP_JUPYTER_BUILDER": "1"}
    built = subprocess.run(
        [find_uv_bin(), "build", "--wheel", "--quiet", "--out-dir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = tmp_path.glob("rdskit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    twice = [name for name, seen in Counter(names).items() if seen > 1]
    assert not twice, twice

    version = wheel.name.split("-")[1]
    share = SHARE.format(version=version)
    extension = sorted(str(p.relative_to(BUILT)) for p in BUILT.rglob("*") if p.is_file())
    assert sorted(n.removeprefix(share) for n in names if n.startswith(share)) == extension
    # ... and nowhere else: not a second copy inside the package.
    assert not [n for n in names if "labextension" in n and not n.startswith(share)]

    sources = sorted(
        str(p.relative_to(ROOT / "src")) for p in (ROOT / "src" / "rdskit").rglob("*.py")
    )
    assert [n for n in sources if n not in names] == []
    assert "rdskit/py.typed" in names
    assert "rdskit/jupyter/starter.ipynb" in names  # the launcher card's starter notebook
    assert f"rdskit-{version}.dist-info/licenses/LICENSE" in names
    assert f"rdskit-{version}.data/data/etc/jupyter/jupyter_server_config.d/rdskit.json" in names
