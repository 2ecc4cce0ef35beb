"""The gateway holds a kernel's tokens to the budget that kernel announced, over real HTTP
(tornado gateway in front of a real sandbox), against a token minted the way any process
of the same user can: from the discovery file's secret and the kernel's connection key."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import httpx
from tests.jupyter.test_gateway import serving

from rdskit._gateway_auth import TOKEN_HEADER, kernel_proof
from rdskit.jupyter.gateway import Gateway
from rdskit.jupyter.gateway_budget import paid_call
from rdskit.jupyter.lab_api import lab_handlers
from rdskit.sandbox import SandboxHandle

PROMPT = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}


def charged(http: httpx.Client, headers: dict[str, str], runs: str) -> Decimal:
    """What the account was charged once every run at ``runs`` is over: its usage history
    (free reads, through the gateway's shared bucket, so they never push the key past the
    sandbox's 5 requests a second)."""
    for run in http.get(f"/v1/{runs}", headers=headers).json()["data"]:
        while run["status"]["type"] not in ("completed", "failed"):
            run = http.get(f"/v1/{runs}/{run['id']}", headers=headers).json()["data"]
    answer = http.get("/v1/me/usage_history", params={"limit": 100}, headers=headers)
    assert answer.status_code == 200, answer.text
    return sum((Decimal(row["quantity_credits"]) for row in answer.json()["data"]), Decimal(0))


def test_a_token_cannot_spend_past_its_kernels_budget(sandbox: SandboxHandle) -> None:
    account = sandbox.admin.create_account(plan="Pro")
    kernels = {"k1": b"connection-key-of-k1"}
    gateway = Gateway((sandbox.url, account.api_key), mode="service", kernels=kernels.get)
    gateway.processes = {"k1": 4242}.get
    announce = [route for route in lab_handlers(gateway) if route[0].endswith("/kernel")]
    with serving(gateway, announce) as served, httpx.Client(base_url=served.url) as http:
        # Another process of the same user: the discovery secret and k1's connection key.
        proof = kernel_proof("k1", kernels["k1"], gateway.secret)
        token = http.post(
            "/token", json={"secret": gateway.secret, "kernel_id": "k1", "proof": proof}
        ).json()["token"]
        sent = {TOKEN_HEADER: token}

        def post(path: str, body: Any) -> httpx.Response:
            return http.post(f"/v1/{path}", json=body, headers=sent)

        made = post("datasets", {"name": "budgeted"})
        assert made.status_code == 200, (made.status_code, made.text)
        dataset = made.json()["data"]["id"]
        runs = f"datasets/{dataset}/runs"
        # No budget announced: the gateway does not cap this kernel.
        assert post(runs, {"search_query": PROMPT, "count": 2}).status_code == 200
        # The kernel announces 1 credit (%rds budget 1), as its session does.
        budget = {"total": "1", "committed": "0", "held": "0"}
        assert (
            http.post("/kernel", json={"kind": "gateway", "budget": budget}, headers=sent)
        ).status_code == 200
        before = charged(http, sent, runs)  # once the uncapped run is over
        big = post(runs, {"search_query": PROMPT, "count": 100})
        missing = post("datasets/ds_missing/runs", {"search_query": PROMPT, "count": 1})
        one = post(runs, {"search_query": PROMPT, "count": 1})  # the 404 gave its credit back
        again = post(runs, {"search_query": PROMPT, "count": 1})
        sized = post("pattern_detections", {"dataset_id": dataset, "name": "n",
                                            "research_question": "q"})  # fmt: skip
        asked = post("ask", {"message": "How many posts?", "context": {"dataset_ids": [dataset]}})
        garbled = http.post(f"/v1/{runs}", content=b"{not json", headers=sent)
        listed = http.get(f"/v1/{runs}", headers=sent)  # free reads pass
        # %rds budget 5 --reset: the kernel says it committed nothing: the count restarts.
        reset = {"total": "5", "committed": "0", "held": "0"}
        http.post("/kernel", json={"kind": "gateway", "budget": budget}, headers=sent)
        http.post("/kernel", json={"kind": "gateway", "budget": {**budget, "committed": "1"}},
                  headers=sent)  # fmt: skip
        http.post("/kernel", json={"kind": "gateway", "budget": reset}, headers=sent)
        after_reset = post(runs, {"search_query": PROMPT, "count": 5})
        spent = charged(http, sent, runs) - before
    for refused in (big, again, sized, asked, garbled):
        assert refused.status_code == 402, refused.text
        assert refused.json()["error_code"] == "kernel_budget_exceeded"
        assert "kernel's budget" in refused.json()["detail"]
    assert "estimate 100 credits, 1 credits remaining" in big.json()["detail"]
    assert missing.status_code == 404 and one.status_code == 200
    assert listed.status_code == 200 and len(listed.json()["data"]) == 2  # nothing more started
    assert after_reset.status_code == 200
    assert 0 < spent <= 1 + 5, spent  # the run of 1 credit, then the 5 after the reset


def test_paid_calls_are_recognised_by_their_route() -> None:
    assert paid_call("POST", "v1/custom_parameters/cp_1/runs", b'{"scope": {"id": "ds_1"}}') == (
        "custom_parameter_run",
        {"dataset_id": "ds_1"},
    )
    assert paid_call("POST", "v1/tracking_agents/ta_1/trigger", b"") == (
        "tracking_trigger",
        {"agent_id": "ta_1"},
    )
    assert paid_call("POST", "v1/datasets", b'{"name": "x"}') is None  # free writes pass
    assert paid_call("POST", "v1/research_previews", b"[1]") == (
        "research_preview",
        {"unreadable": True},
    )
