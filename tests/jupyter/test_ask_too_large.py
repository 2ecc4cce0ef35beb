"""A question too large for a request is refused before it is sent (issue 34, h34-more
item 3), by ``%%ask`` and by the client, on the sandbox over real HTTP: a clear error naming
the question and the bound, at once, and nothing charged."""

from __future__ import annotations

import time

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from jupyter_support import Seeded, run_cell

import rdskit
from rdskit._bodies import MAX_REQUEST_BYTES
from rdskit.errors import RequestTooLarge
from rdskit.jupyter import current_session
from rdskit.sandbox import SandboxHandle

BOUND = f"over the {MAX_REQUEST_BYTES:,} bytes a request may carry; nothing was sent"
FIFTY_MB = "What do people say about this? " * 1_700_000  # 52.7 MB


def _charged(client: rdskit.Client) -> tuple[object, int]:
    """What the account was charged so far, and its usage rows."""
    return client.me().usage.credits_used, len(list(client.usage_history()))


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "body",
    [
        pytest.param(FIFTY_MB, id="50-MB"),
        # braces make the magic read the question first (then it checks what it made)
        pytest.param("{{" + "x" * (MAX_REQUEST_BYTES + 10) + "}} {n}", id="braces"),
    ],
)
def test_a_huge_ask_cell_is_refused_at_once_and_costs_nothing(
    shell: InteractiveShell, seeded: Seeded, body: str
) -> None:
    client = current_session().client
    assert client is not None
    before = _charged(client)
    shell.user_ns["n"] = 3
    started = time.perf_counter()
    ran = run_cell(shell, f"%%ask --dataset {seeded.dataset_id}\n{body}")
    took = time.perf_counter() - started
    assert not ran.result.success
    error = ran.result.error_in_exec
    assert isinstance(error, UsageError), error
    assert str(error).startswith("the question below %%ask: the request body would be at least")
    assert BOUND in str(error)
    assert took < 10, took  # IPython's own transforms of 50 MB took 35 s before
    assert _charged(client) == before


@pytest.mark.timeout(120)
def test_the_client_refuses_a_50_mb_question_on_the_sandbox(sandbox: SandboxHandle) -> None:
    with rdskit.Client(sandbox.api_key, base_url=sandbox.url) as client:
        before = _charged(client)
        started = time.perf_counter()
        with pytest.raises(RequestTooLarge) as refused:
            client.ask(FIFTY_MB)
        assert time.perf_counter() - started < 1
        assert (refused.value.field, refused.value.limit) == ("message", MAX_REQUEST_BYTES)
        assert BOUND in str(refused.value)
        assert _charged(client) == before
