"""An instructor tops up a learner's spent sandbox wallet (issue 34): a paid lesson cell
wrapped in ``rdskit.lesson.paid_step`` meets the 402 and prints one line with the command to run;
that command, run as printed (``rdskit sandbox --db FILE --top-up N``), lets the same
cell succeed in a restarted kernel. ``--plan``/``--reset-wallet`` set the plan and a fresh
allotment; a missing file or no ``--db`` is refused in one line, nothing created."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

TEACHING = Path(__file__).resolve().parents[2] / "docs" / "teaching.md"

CELL = """
import rdskit
from rdskit.lesson import paid_step
from rdskit.sandbox import embedded
client = rdskit.Client.sandbox()
if SPEND:  # the learner has spent all but 5 credits
    handle = embedded()
    wallet = handle.admin.account(handle.account_id)["wallet"]
    handle.admin.set_wallet(handle.account_id, used_usd=float(wallet["total_usd"]) - 0.005)
ds = client.datasets.get_or_create("Oat milk (lesson 08)")
query = {"type": "prompt", "sources": ["reddit"], "search_query": "oat milk"}
with paid_step("this collection", client):
    run = client.datasets.runs.create(ds.id, search_query=query, count=50).wait(progress=False)
    print(run.status.type, run.mentions_count)
"""


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180
    )


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rdskit", "sandbox", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_spent_wallet_prints_the_top_up_command_and_the_command_works(tmp_path: Path) -> None:
    db = tmp_path / ".rdskit-sandbox.db"
    env = {**os.environ, "RDSKIT_SANDBOX_DB": str(db), "RDSKIT_SANDBOX_PLAN": "Trial"}
    env["RDSKIT_SANDBOX_SPEED"] = "50"
    spent = _python(CELL.replace("SPEND", "True"), env)
    assert spent.returncode == 0, spent.stderr
    (line,) = spent.stdout.splitlines()
    assert line == (
        "✗ Out of credits: this collection needs 50 credits (0.05 USD), the wallet holds "
        "5 credits (0.005 USD); "
        "nothing was charged. "
        f"Your instructor tops up this sandbox (its kernels stopped): rdskit sandbox --db {db} "
        "--top-up 50"
    )
    command = shlex.split(line.split(": ", 2)[2])  # exactly what was printed
    assert command[:2] == ["rdskit", "sandbox"]
    topped = _cli(*command[2:])
    assert topped.returncode == 0, topped.stderr
    assert topped.stdout.strip() == "Trial plan; wallet: 1,050 credits, 995 used, 55 left"
    again = _python(CELL.replace("SPEND", "False"), env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "completed 50"


def test_plan_and_reset_and_refusals(tmp_path: Path) -> None:
    db = tmp_path / "alice.db"
    env = {**os.environ, "RDSKIT_SANDBOX_DB": str(db)}
    made = _python("import rdskit; rdskit.Client.sandbox().me()", env)
    assert made.returncode == 0, made.stderr
    reset = _cli("--db", str(db), "--plan", "starter", "--reset-wallet")
    assert reset.stdout.strip() == "Starter plan; wallet: 5,000 credits, 0 used, 5,000 left"
    shown = _python("import rdskit; print(rdskit.Client.sandbox().me().plan.name)", env)
    assert shown.stdout.strip() == "Starter"
    missing = _cli("--db", str(tmp_path / "typo.db"), "--top-up", "100")
    assert missing.returncode == 2 and not (tmp_path / "typo.db").exists()
    assert missing.stderr.strip() == (
        f"rdskit sandbox: cannot use --db {tmp_path / 'typo.db'} as the sandbox database: "
        "there is no such file"
    )
    no_db = _cli("--top-up", "100")
    assert no_db.returncode == 2
    assert (
        no_db.stderr.strip() == "rdskit sandbox: --plan, --top-up and --reset-wallet need --db FILE"
    )
    wrong = _cli("--db", str(db), "--plan", "Gold")
    assert wrong.returncode == 2 and "is not a sandbox plan" in wrong.stderr


def test_the_teaching_notes_commands_run_as_written(tmp_path: Path) -> None:
    """docs/teaching.md, "A learner out of credits": its bash block, the image's
    /home/jovyan moved to a fresh home holding a learner's sandbox file."""
    text = TEACHING.read_text(encoding="utf-8")
    section = text[text.index("## A learner out of credits") :]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None
    home = tmp_path / "jovyan"
    home.mkdir()
    env = {**os.environ, "RDSKIT_SANDBOX_DB": str(home / ".rdskit-sandbox.db")}
    assert _python("import rdskit; rdskit.Client.sandbox().me()", env).returncode == 0
    script = block.group(1).replace("/home/jovyan", str(home))
    bin_dir = str(Path(sys.executable).parent)
    done = subprocess.run(
        ["bash", "-e", "-c", script],
        env={**env, "PATH": f"{bin_dir}:{env['PATH']}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Pro plan; wallet: 121,000 credits, 0 used, 121,000 left",
        "Pro plan; wallet: 12,000 credits, 0 used, 12,000 left",  # as the notes say
    ]
    assert "12,000 credits, 0 used, 12,000 left" in section
