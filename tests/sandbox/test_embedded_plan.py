"""``RDSKIT_SANDBOX_PLAN`` gives the embedded sandbox's ready account another plan.

The embedded sandbox is one per process, so each case runs in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import rdskit
client = rdskit.Client.sandbox()
me = client.me()
print(me.plan.name, client.has_feature("custom_date_filter"), me.plan.allows_tracking_agents)
"""


def _run(plan: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RDSKIT_SANDBOX_PLAN": plan}
    env.pop("RDSKIT_SANDBOX_DB", None)
    return subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
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
