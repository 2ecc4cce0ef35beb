"""Keys and ids no other sandbox user can break (issue 34).

- A notebook's embedded sandbox holds a key of its own process, minted in its database:
  revoking the seed's default key (as an older Jupyter gateway did on a shared file)
  leaves it working, and a key of its own revoked on purpose is replaced by the next
  ``rdskit.Client.sandbox()``.
- A refused key says what happened (missing, revoked, unknown) and the one fix, and the
  notebook's hint does not send a sandbox user to ``RDSKIT_API_KEY``.
- Ids carry the database's instance: three fresh sandboxes never give their first
  dataset the same id, and ids keep the spec's form (type prefix, opaque hex).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

import rdskit
from rdskit.errors import Unauthorized
from rdskit.jupyter.errors import what_to_do
from rdskit.sandbox import start
from rdskit.sandbox.store.accounts import default_api_key

FIX = "a new rdskit.Client.sandbox() (%rds connect --sandbox) gets a working key."

REVOKE_THEN_CONNECT = """
import contextlib, httpx, rdskit
from rdskit.sandbox import embedded
from rdskit.sandbox.store.accounts import default_api_key
handle = embedded()
with contextlib.suppress(httpx.HTTPStatusError):  # 404 once revoked (the second run)
    handle.admin.revoke_key(default_api_key(0))  # what a shared file's other user did
client = rdskit.Client.sandbox()
print(client.me().plan.name, client._core.api_key.reveal() != default_api_key(0))
handle.admin.revoke_key(client._core.api_key.reveal())  # revoked on purpose
try:
    client.me()
except rdskit.errors.Unauthorized as exc:
    print(exc.message)
print(rdskit.Client.sandbox().me().plan.name)
"""


def test_a_notebook_sandbox_survives_a_revoked_default_key_and_replaces_its_own(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "RDSKIT_SANDBOX_DB": str(tmp_path / "kernels.db")}
    for _ in range(2):  # a fresh file, then the same file in a restarted kernel
        done = subprocess.run(
            [sys.executable, "-c", REVOKE_THEN_CONNECT],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [
            "Pro True",
            "This API key was revoked in this sandbox's database (by its admin API, or "
            f"another program using the same file); {FIX}",
            "Pro",
        ]


def test_a_refused_key_says_what_happened_and_the_one_fix() -> None:
    with start(speed=100) as sb:
        said = {}
        for name, headers in {
            "missing": {},
            "unknown": {"x-api-key": "bz_test_" + "0" * 32},
        }.items():
            body = httpx.get(f"{sb.url}/v1/me", headers=headers).json()
            said[name] = body["error"]["message"] if "error" in body else body["detail"]
        sb.admin.revoke_key(sb.api_key)
        with rdskit.Client(sb.api_key, base_url=sb.url, max_retries=0) as client:
            try:
                client.datasets.list()
            except Unauthorized as exc:
                refused = exc
        # the MCP endpoint says the same
        mcp = httpx.post(f"{sb.url}/mcp/", headers={"x-api-key": sb.api_key}, json={})
    assert said["missing"] == "Missing API key (x-api-key header)."
    assert said["unknown"] == (
        f"This API key is not a key of this sandbox's database (made for another one?); {FIX}"
    )
    assert refused.message.startswith("This API key was revoked") and refused.message.endswith(FIX)
    assert what_to_do(refused) is None  # the message says it all: no RDSKIT_API_KEY hint
    assert mcp.status_code == 401 and FIX in mcp.text


def test_three_fresh_sandboxes_give_their_first_dataset_three_ids() -> None:
    ids, instances = [], []
    for _ in range(3):
        with start(speed=100) as sb, rdskit.Client(sb.api_key, base_url=sb.url) as client:
            first = client.datasets.create("Oat milk").id
            second = client.datasets.create("Oat milk 2").id
            ids.append(first)
            instances.append(sb.store.instance[:6])
            assert first != second and first[3:9] == second[3:9] == instances[-1]
            assert default_api_key(0) == sb.api_key  # the standalone sandbox's key is stable
    assert len(set(ids)) == 3 and len(set(instances)) == 3
    assert all(re.fullmatch(r"ds_[0-9a-f]{16}", dataset_id) for dataset_id in ids)
