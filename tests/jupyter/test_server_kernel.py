"""A kernel of a real Jupyter server with the rdskit gateway (``RDSKIT_GATEWAY`` set, as
in JupyterLab), driven over its channels, and what the JupyterLab extension reads.

- Its budget reaches the status item: with the gateway's client (``rdskit.Client()``),
  the summary the extension reads (``GET /rdskit/lab/summary?kernel=<id>``) shows the
  budget set, spent against, changed, lifted; a restarted kernel (same id, another
  process) takes its budget with it.
- ``%%ask`` after ``rdskit.Client.sandbox()`` answers about THAT sandbox's data, by
  dataset name, and says in one line which client it used; it never goes to the
  gateway's shared sandbox, even when the extension was loaded first.
- The panel's ask box for a kernel with a budget: the server refuses it before sending
  anything (409 ``ask_in_kernel``) and the panel asks in the kernel, as the extension does
  (a silent execute whose ``user_expressions`` call ``ask_in_kernel``): the reply's charge
  is committed to that budget, and once nothing remains the ask is refused there with the
  text ``%%ask`` gets, nothing sent or charged."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from jupyter_client.blocking import BlockingKernelClient
from test_gateway import Server, clean_env, jupyter_server, run_in  # noqa: F401

import rdskit
from rdskit._format import credits_text
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


def _panel_ask(server: Server, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{server.port}/rdskit/lab/ask",
        json=body,
        headers={"Authorization": f"token {server.token}"},
        timeout=200,
    )


def _ask_in_kernel(kernel: BlockingKernelClient, body: dict[str, Any]) -> dict[str, Any]:
    """What the extension does after a 409 ``ask_in_kernel`` (labextension/src/index.ts,
    askInKernel): the request as hex digits, a silent execute, the answer read from the
    reply's ``user_expressions`` as JSON."""
    request = json.dumps(body).encode().hex()
    call = f"__import__('rdskit.jupyter.panel_ask', fromlist=['_']).ask_in_kernel('{request}')"
    msg_id = kernel.execute("", silent=True, store_history=False, user_expressions={"a": call})
    reply = kernel.get_shell_msg(timeout=200)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kernel.get_shell_msg(timeout=200)
    value = reply["content"]["user_expressions"]["a"]
    assert value["status"] == "ok", value
    return dict(value["data"]["application/json"])


def _ask_rows(sandbox: SandboxHandle) -> list[Any]:
    with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        rows = client.usage_history(limit=100).data
    return [row for row in rows if row.category == "ai_assistant"]


def test_a_panel_ask_for_a_kernel_with_a_budget_is_counted_and_refused_by_it(
    served: Served, sandbox: SandboxHandle
) -> None:
    server, kernel_id, kernel = served
    run_in(
        kernel,
        "import rdskit\nclient = rdskit.Client()  # the gateway's client\n"
        "%load_ext rdskit\n%rds budget 100\n"
        "ds = client.datasets.create('panel asks under a budget')\n"
        "query = {'type': 'prompt', 'sources': ['reddit'], 'search_query': 'oat'}\n"
        "client.datasets.runs.create(ds.id, search_query=query, count=20).wait()\n"
        "print(ds.id)",
    )
    _shows(server, kernel_id, "budget 80 of 100 left")
    dataset_id = json.loads(run_in(kernel, "print(ds.id)")[0])["text"].strip()
    body = {"question": "What do people complain about?", "datasets": [dataset_id]}
    rows_before = _ask_rows(sandbox)

    # the server sends nothing for a kernel with a budget: the panel asks there
    refused = _panel_ask(server, {**body, "kernel": kernel_id})
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "ask_in_kernel"
    assert "budget" in refused.json()["message"]
    assert _ask_rows(sandbox) == rows_before

    answer = _ask_in_kernel(kernel, body)
    assert answer["asked_in"] == "kernel" and answer["status"] == "completed", answer
    assert answer["citations"] and answer["cell"].startswith(f"%%ask --dataset {dataset_id}\n")
    charged = [row for row in _ask_rows(sandbox) if row not in rows_before]
    assert len(charged) == 1  # one ask sent, one charge
    cost = charged[0].quantity_credits
    assert cost is not None and cost > 0
    # the reply's charge is committed to the kernel's budget (the panel shows it)
    seen = _shows(server, kernel_id, f"budget {credits_text(80 - cost)} of 100 left")
    assert seen["committed"] == credits_text(20 + cost) and seen["held"] == "0"

    # once nothing remains: refused in the kernel before sending, %%ask's own words
    run_in(kernel, "%rds budget 20")
    _shows(server, kernel_id, f"budget {credits_text(-cost)} of 20 left")
    rows_before = _ask_rows(sandbox)
    stopped = _ask_in_kernel(kernel, {**body, "chat_id": answer["chat_id"]})
    printed = run_in(
        kernel,
        "try:\n    get_ipython().run_cell_magic('ask', '', 'What do people complain about?')\n"
        "except Exception as exc:\n    print(exc)",
    )
    said = json.loads(printed[-1])["text"].strip()
    assert stopped == {"status": 402, "message": said}, (stopped, said)
    assert said.startswith("ask refused by the process-wide budget: ")
    assert "nothing remains of it" in said
    assert _ask_rows(sandbox) == rows_before
    assert sandbox.api_key not in server.log.read_text()
