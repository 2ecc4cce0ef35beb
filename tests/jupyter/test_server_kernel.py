"""A kernel of a real Jupyter server with the rdskit gateway (``RDSKIT_GATEWAY`` set, as
in JupyterLab), driven over its channels, and what the JupyterLab extension reads.

- Its budget reaches the status item: with the gateway's client (``rdskit.Client()``),
  the summary the extension reads (``GET /rdskit/lab/summary?kernel=<id>``) shows the
  budget set, spent against, changed, lifted; a restarted kernel (same id, another
  process) takes its budget with it.
- ``%%ask`` after ``rdskit.Client.sandbox()`` answers about THAT sandbox's data, by
  dataset name, and says in one line which client it used; it never goes to the
  gateway's shared sandbox, even when the extension was loaded first."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from jupyter_client.blocking import BlockingKernelClient
from test_gateway import Server, clean_env, jupyter_server, run_in  # noqa: F401

from rdskit.sandbox import SandboxHandle

WAIT = 60.0  # seconds an announcement may take to arrive on a loaded machine

Served = tuple[Server, str, BlockingKernelClient]


@pytest.fixture
def served(
    sandbox: SandboxHandle,
    tmp_path: Any,
    clean_env: pytest.MonkeyPatch,  # noqa: F811
) -> Iterator[Served]:
    """A real Jupyter server whose gateway forwards to the test sandbox, and a kernel of
    it (its id and a client of its channels)."""
    env = {"RDSKIT_API_KEY": sandbox.api_key, "RDSKIT_BASE_URL": sandbox.url}
    with jupyter_server(tmp_path, env) as server:
        kernel_id, kernel = server.kernel()
        try:
            yield server, kernel_id, kernel
        finally:
            kernel.stop_channels()


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
    served: Served, sandbox: SandboxHandle
) -> None:
    server, kernel_id, kernel = served
    # a kernel that has told the gateway nothing: no budget, and said so
    first = _budget(server, kernel_id)
    assert first == {
        "set": False,
        "announced": False,
        "short": "no kernel budget",
        "text": "no kernel budget (this notebook has not used rdskit yet)",
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


def test_ask_after_client_sandbox_answers_about_that_sandbox(served: Served) -> None:
    _, _, kernel = served
    run_in(kernel, "%load_ext rdskit")  # first, as a lesson's first cell does
    run_in(
        kernel,
        "import os\nos.environ['RDSKIT_SANDBOX_SPEED'] = '20'\nimport rdskit\n"
        "client = rdskit.Client.sandbox()\n"
        "ds = client.datasets.create('Oat milk')\n"
        "query = {'type': 'prompt', 'sources': ['reddit'], 'search_query': 'oat milk'}\n"
        "client.datasets.runs.create(ds.id, search_query=query, count=20).wait()",
    )
    printed = run_in(
        kernel,
        '%%ask --dataset "Oat milk" --out answer\nWhat do people complain about most?',
    )
    facts = run_in(
        kernel,
        "import json\nfrom rdskit.jupyter.session import origin_of\n"
        "rows = client.chats.messages(answer.chat_id, order='asc').data\n"
        "print(json.dumps({'ids': list(rows[0].context.dataset_ids), 'ds': ds.id,"
        " 'roles': [row.role for row in rows], 'origin': origin_of(client)}))",
    )
    text = "".join(json.loads(line).get("text", "") for line in printed)
    assert "rdskit: using `client`, connected to the embedded sandbox" in text, text
    assert "no datasets yet" not in text and "create one" not in text, text
    shown = json.loads(json.loads(facts[0])["text"])
    # the chat lives in the notebook's sandbox and asked about its dataset
    assert shown["roles"] == ["user", "assistant"] and shown["ids"] == [shown["ds"]]
    assert shown["origin"].startswith("the embedded sandbox")
