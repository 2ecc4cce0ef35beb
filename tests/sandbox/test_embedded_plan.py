"""``RDSKIT_SANDBOX_PLAN`` gives the embedded sandbox's ready account another plan, and
that plan's wallet (Trial: 1,000 credits), kept across restarts on one sandbox file.

The embedded sandbox is one per process, so each case runs in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import rdskit
client = rdskit.Client.sandbox()
me = client.me()
print(me.plan.name, client.has_feature("custom_date_filter"), me.plan.allows_tracking_agents)
"""


WALLET = """
import rdskit
client = rdskit.Client.sandbox()
ds = client.datasets.get_or_create("Spend")
query = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}
if SPEND:
    client.datasets.runs.create(ds.id, search_query=query, count=SPEND).wait(progress=False)
usage = client.me().usage
print(usage.credits_total, usage.credits_used)
"""


def _run(plan: str, probe: str = PROBE, db: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RDSKIT_SANDBOX_PLAN": plan}
    env.pop("RDSKIT_SANDBOX_DB", None)
    if db is not None:
        env["RDSKIT_SANDBOX_DB"] = str(db)
    return subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("plan", "expected"),
    [
        ("Trial", "Trial False False"),
        ("starter", "Starter False True"),  # any case
        (" Business ", "Business True True"),
    ],
)
def test_the_plan_comes_from_the_environment(plan: str, expected: str) -> None:
    done = _run(plan)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == expected


def test_an_unknown_plan_is_refused_naming_the_variable_and_the_choices() -> None:
    done = _run("Platinum")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "ConfigurationError" in last and "RDSKIT_SANDBOX_PLAN='Platinum'" in last
    assert "Trial" in last and "Business" in last


@pytest.mark.parametrize(
    ("plan", "credits"), [("Trial", "1000"), ("Starter", "5000"), ("Business", "60000")]
)
def test_the_wallet_is_one_allotment_of_the_plan_and_a_restart_keeps_what_was_spent(
    tmp_path: Path, plan: str, credits: str
) -> None:
    db = tmp_path / "sandbox.db"
    first = _run(plan, WALLET.replace("SPEND", "40"), db)
    assert first.returncode == 0, first.stderr
    total, used = first.stdout.split()
    assert float(total) == float(credits) and 0 < float(used) <= 40
    again = _run(plan, WALLET.replace("SPEND", "0"), db)  # a new kernel on the same file
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == [total, used], "a restart must not refill the wallet"
