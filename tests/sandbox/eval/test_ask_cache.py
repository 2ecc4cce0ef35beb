"""The per-dataset cache of the posts the assistant reads (issue 28 item 2): filled once,
reused while the dataset is unchanged, read again when a run completes, and equal to what
``POST /v1/mentions`` returns."""

from __future__ import annotations

import time

import httpx
from eval_support import collect, read_all

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.backend import ask_cache


def _run(http: httpx.Client, dataset_id: str, count: int) -> None:
    body = {
        "search_query": {
            "type": "prompt",
            "sources": ["reddit", "tiktok"],
            "search_query": "oat milk",
        },
        "count": count,
        "content_analysis_actions": ["sentiment"],
    }
    run = http.post(f"/v1/datasets/{dataset_id}/runs", json=body).json()["data"]
    path = f"/v1/datasets/{dataset_id}/runs/{run['id']}"
    deadline = time.monotonic() + 60
    while http.get(path).json()["data"]["status"]["type"] not in ("completed", "failed"):
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_the_cache_is_reused_until_a_run_completes(sandbox: SandboxHandle) -> None:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as http:
        dataset_id = collect(http, "oat milk", 40)
        with sandbox.store.read() as conn:
            before = ask_cache.stats(conn)
            first = ask_cache.scope_table(conn, created.account_id, [dataset_id])
            again = ask_cache.scope_table(conn, created.account_id, [dataset_id])
            after = ask_cache.stats(conn)
        assert again is first  # nothing changed: the same table, no re-read
        assert after["misses"] == before["misses"] + 1 and after["hits"] == before["hits"] + 1
        api = read_all(http, {"dataset_ids": [dataset_id]})
        by_key = {(p["source"], p["id"]): p for p in api}
        assert len(first.posts) == len(api)
        for post in first.posts:  # the cache holds what POST /v1/mentions returns
            wire = by_key[(post["source"], post["id"])]
            assert post["comments"] == wire["comments"] and post["sentiment"] == wire["sentiment"]
        _run(http, dataset_id, 60)  # a run completes: the dataset changed
        grown = len(read_all(http, {"dataset_ids": [dataset_id]}))
        with sandbox.store.read() as conn:
            fresh = ask_cache.scope_table(conn, created.account_id, [dataset_id])
        assert fresh is not first and len(fresh.posts) == grown > len(first.posts)
