"""A kernel's budget reaches the JupyterLab status item: a real Jupyter server with the
rdskit gateway, a real kernel using the gateway's client (``rdskit.Client()``), and the
summary the extension reads (``GET /rdskit/lab/summary?kernel=<id>``) over HTTP.

Set, spent against, changed, lifted: each is announced by the kernel and shown; a
restarted kernel (same id, another process) takes its budget with it."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from test_gateway import Server, clean_env, jupyter_server, run_in  # noqa: F401

from rdskit.sandbox import SandboxHandle

WAIT = 60.0  # seconds an announcement may take to arrive on a loaded machine


def _budget(server: Server, kernel_id: str) -> Any:
    answer = httpx.get(
        f"http://127.0.0.1:{server.port}/rdskit/lab/summary",
        params={"kernel": kernel_id},
        headers={"Authorization": f"token {server.token}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["kernel_budget"]


def _shows(server: Server, kernel_id: str, short: str) -> dict[str, Any]:
    """The kernel's budget once the summary says ``short`` (fails after WAIT seconds)."""
    deadline = time.monotonic() + WAIT
    seen = _budget(server, kernel_id)
    while seen["short"] != short:
        assert time.monotonic() < deadline, (short, seen, server.log.read_text()[-3000:])
        time.sleep(0.3)
        seen = _budget(server, kernel_id)
    return dict(seen)


def test_a_gateway_kernel_announces_its_budget_as_it_is_set_spent_changed_and_lifted(
    sandbox: SandboxHandle,
    tmp_path: Any,
    clean_env: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    env = {"RDSKIT_API_KEY": sandbox.api_key, "RDSKIT_BASE_URL": sandbox.url}
    with jupyter_server(tmp_path, env) as server:
        kernel_id, kernel = server.kernel()
        try:
            # a kernel that has told the gateway nothing: no budget, and said so
            first = _budget(server, kernel_id)
            assert first == {
                "set": False,
                "announced": False,
                "short": "no kernel budget",
                "text": "no kernel budget (this notebook's kernel has announced none: "
                "rdskit not imported?)",
            }
            run_in(kernel, "import rdskit\nclient = rdskit.Client()  # the gateway's client")
            lifted = _shows(server, kernel_id, "no kernel budget")
            deadline = time.monotonic() + WAIT
            while not lifted["announced"]:
                assert time.monotonic() < deadline, lifted
                lifted = _budget(server, kernel_id)
            assert lifted["text"] == "no kernel budget (%rds budget N sets one)"

            run_in(kernel, "%load_ext rdskit\n%rds budget 100")
            assert _shows(server, kernel_id, "budget 100 of 100 left")["text"] == (
                "100 of 100 credits left (0 committed)"
            )
            run_in(
                kernel,
                "ds = client.datasets.create('budget shown in the lab')\n"
                "query = {'type': 'prompt', 'sources': ['reddit'], 'search_query': 'oat'}\n"
                "client.datasets.runs.create(ds.id, search_query=query, count=20)",
            )
            spent = _shows(server, kernel_id, "budget 80 of 100 left")
            assert spent["committed"] == "20" and spent["total"] == "100"
            run_in(kernel, "%rds budget 50")
            assert _shows(server, kernel_id, "budget 30 of 50 left")["text"] == (
                "30 of 50 credits left (20 committed)"
            )
            run_in(kernel, "%rds budget off")
            assert _shows(server, kernel_id, "no kernel budget")["announced"] is True
            run_in(kernel, "%rds budget 10")
            _shows(server, kernel_id, "budget 10 of 10 left")
        finally:
            kernel.stop_channels()

        # a restart keeps the kernel id, not its process: the budget goes with it
        restarted = httpx.post(
            f"http://127.0.0.1:{server.port}/api/kernels/{kernel_id}/restart",
            headers={"Authorization": f"token {server.token}"},
            timeout=120,
        )
        assert restarted.status_code == 200, restarted.text
        after = _budget(server, kernel_id)
        assert after["set"] is False and after["announced"] is False, after
        assert sandbox.api_key not in server.log.read_text()
