"""``%%ask`` after ``rdskit.Client.sandbox()`` in a kernel of a real Jupyter server with
the rdskit gateway (``RDSKIT_GATEWAY`` set, as in JupyterLab): it answers about THAT
sandbox's data, by dataset name, and says in one line which client it used; it never
goes to the gateway's shared sandbox, even when the extension was loaded first."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_gateway import clean_env, jupyter_server, run_in  # noqa: F401

from rdskit.sandbox import SandboxHandle


def test_ask_after_client_sandbox_answers_about_that_sandbox(
    sandbox: SandboxHandle,
    tmp_path: Any,
    clean_env: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    env = {"RDSKIT_API_KEY": sandbox.api_key, "RDSKIT_BASE_URL": sandbox.url}
    with jupyter_server(tmp_path, env) as server:
        _, kernel = server.kernel()
        try:
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
        finally:
            kernel.stop_channels()
    text = "".join(json.loads(line).get("text", "") for line in printed)
    assert "rdskit: using `client`, connected to the embedded sandbox" in text, text
    assert "no datasets yet" not in text and "create one" not in text, text
    shown = json.loads(json.loads(facts[0])["text"])
    # the chat lives in the notebook's sandbox and asked about its dataset
    assert shown["roles"] == ["user", "assistant"] and shown["ids"] == [shown["ds"]]
    assert shown["origin"].startswith("the embedded sandbox")
