"""The sandbox without a usable MCP SDK (issue 34): jupyter-ai 3 pins mcp 1, and rdskit's
MCP server is written for mcp 2, so ``rdskit[sandbox]``/``rdskit[jupyter]`` no longer
require it. REST and the worker run as ever (a collection completes), and ``/mcp/``
answers 503 ``mcp_unavailable`` naming the extra, instead of the sandbox dying at start
and leaving runs pending for ever. Nothing is said about MCP until an MCP request comes
(README's first command, ``rdskit demo``, printed the missing extra as its second line);
then it is logged once, and ``rdskit sandbox --help`` says which extra the endpoint needs.

Each case runs in a fresh interpreter where ``import mcp`` fails, as it does without the
SDK (or, for ``mcp.server.mcpserver``, with mcp 1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import json, sys
sys.modules["mcp"] = None  # import mcp -> ImportError, as without the SDK
import httpx, rdskit
from rdskit.sandbox import start
with start(speed=200) as sb, rdskit.Client(sb.api_key, base_url=sb.url) as client:
    ds = client.datasets.create("Oat milk")
    query = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}
    run = client.datasets.runs.create(ds.id, search_query=query, count=10).wait(timeout=120)
    print("-- the first MCP request --", file=sys.stderr, flush=True)
    for _ in range(2):
        mcp = httpx.post(f"{sb.url}/mcp/", headers={"x-api-key": sb.api_key}, json={}, timeout=60)
print(json.dumps({"run": run.status.type, "mentions": run.mentions_count,
                  "mcp": mcp.status_code, "body": mcp.json()}))
"""


def test_rest_and_runs_work_and_mcp_names_its_extra_without_the_sdk() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert (seen["run"], seen["mentions"], seen["mcp"]) == ("completed", 10, 503)
    body = seen["body"]
    assert body["error_code"] == "mcp_unavailable"
    assert body["detail"].startswith(
        'the sandbox\'s MCP endpoint needs the "mcp" extra (mcp>=2.3,<3; mcp '
    ) and body["detail"].endswith('pip install "rdskit[mcp]"; REST /v1 works without it')
    before, after = done.stderr.split("-- the first MCP request --")
    assert "MCP" not in before, before  # a REST user is not told about MCP
    assert after.count('MCP endpoint needs the "mcp" extra') == 1, after  # once, when asked


def test_sandbox_help_names_the_mcp_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rdskit", "sandbox", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert 'MCP /mcp/ with the "mcp" extra (pip install "rdskit[mcp]"' in " ".join(
        done.stdout.split()
    ), done.stdout
