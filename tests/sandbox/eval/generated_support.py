"""Running generated cases against a sandbox dataset (the test and the full-suite script)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
import pandas as pd
from eval_support import collect, read_all
from generated_cases import Generated
from handwritten_check import problems
from handwritten_truth import frame

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.backend.chats import compose_reply

NAME = "oat milk"


@dataclass
class Dataset:
    """The evaluation dataset: where it lives and its posts as the API returns them."""

    handle: SandboxHandle
    account_id: str
    dataset_id: str
    posts: list[dict[str, Any]]
    df: pd.DataFrame


def load(handle: SandboxHandle, count: int = 300) -> Dataset:
    """A fresh account with an analysed "oat milk" dataset of ``count`` posts."""
    created = handle.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=handle.url, headers=headers, timeout=30) as http:
        dataset_id = collect(http, NAME, count)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
    return Dataset(handle, created.account_id, dataset_id, posts, frame(posts))


def score(data: Dataset, cases: list[Generated]) -> tuple[float, list[str]]:
    """The share of cases answered right (through ``compose_reply``, the function every Ask
    entry point calls), and a line per miss."""
    misses = []
    context = {"dataset_ids": [data.dataset_id]}
    with data.handle.store.read() as conn:
        for case in cases:
            reply = compose_reply(conn, data.account_id, case.text, context)
            found = problems(data.df, (case.reading,), reply.text, reply.references)
            if found:
                misses.append(f"[{case.lang}/{case.style}] {case.text!r}: {found}")
    return 1 - len(misses) / len(cases), misses
