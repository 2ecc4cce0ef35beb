"""``rdskit collect`` and ``rdskit export`` against the sandbox over real HTTP: a dataset
collected from the shell, exported as parquet, jsonl and csv with every mention exactly
once, an export killed halfway and resumed with no duplicate or missing row, operator
errors in one line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import rdskit
from rdskit.frames import read_parquet
from rdskit.frames.stream_export import STATE_FILE, export_mentions
from rdskit.sandbox import SandboxHandle


def cli(*args: str, env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rdskit", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def account(sandbox: SandboxHandle) -> Iterator[tuple[rdskit.Client, dict[str, str]]]:
    created = sandbox.admin.create_account(plan="Business")
    env = {
        **os.environ,
        "RDSKIT_API_KEY": created.api_key,
        "RDSKIT_BASE_URL": sandbox.url,
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    with rdskit.Client(created.api_key, base_url=sandbox.url) as client:
        yield client, env


def collected(client: rdskit.Client, env: dict[str, str], count: int) -> str:
    done = cli(
        "collect",
        "Oat shell",
        "--query",
        "oat milk",
        "--sources",
        "reddit,tiktok,instagram",
        "--count",
        str(count),
        "--actions",
        "sentiment",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    dataset_id = done.stdout.split()[1]
    assert dataset_id.startswith("ds_")
    assert f"rdskit export {dataset_id}" in done.stdout and "completed" in done.stdout
    assert "Traceback" not in done.stderr and "progress" not in done.stderr.lower()
    return dataset_id


@pytest.fixture(scope="module")
def dataset(account: tuple[rdskit.Client, dict[str, str]]) -> str:
    """One dataset collected from the shell, shared by the export tests (3 pages)."""
    client, env = account
    return collected(client, env, 250)


def service_keys(client: rdskit.Client, dataset_id: str) -> list[tuple[str, str]]:
    return sorted((m.source, m.id) for m in client.mentions.list(dataset_ids=[dataset_id]))


def test_collect_then_export_every_format(
    account: tuple[rdskit.Client, dict[str, str]], dataset: str, tmp_path: Path
) -> None:
    client, env = account
    dataset_id = dataset
    expected = service_keys(client, dataset_id)
    assert len(expected) > 100  # more than one page
    # Collecting the same thing again reuses the run: nothing paid twice.
    again = cli(
        "collect", dataset_id, "--query", "oat milk", "--sources", "reddit,tiktok,instagram",
        "--count", "250", "--actions", "sentiment", env=env,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert f"run {collected_run(client, dataset_id)} completed" in again.stdout

    # The default CSV is for spreadsheets: an id such as "-HduGaVNcpG" is written "'-HduGaVNcpG".
    guarded = sorted((s, f"'{i}" if i[:1] in "=+-@" else i) for s, i in expected)
    for fmt, *options in [("parquet",), ("jsonl",), ("csv", "--no-excel-safe"), ("csv",)]:
        out = tmp_path / f"{fmt}{''.join(options)}"
        done = cli("export", dataset_id, "--format", fmt, "--out", str(out), "--batch-rows", "40",
                   *options, env=env)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"wrote {len(expected)} mentions" in done.stdout
        state = json.loads((out / STATE_FILE).read_text())
        assert state["complete"] and state["rows"] == len(expected)
        assert keys_in(out, fmt) == (guarded if fmt == "csv" and not options else expected)
    frame = read_parquet(tmp_path / "parquet")
    assert frame.rds.provenance() is not None and len(frame) == len(expected)
    plain = pd.read_parquet(tmp_path / "parquet")
    assert len(plain) == len(expected)


def collected_run(client: rdskit.Client, dataset_id: str) -> str:
    (run,) = list(client.datasets.runs.list(dataset_id))
    return run.id


def keys_in(out: Path, fmt: str) -> list[tuple[str, str]]:
    """Every (source, id) written under ``out``, repeats included, sorted."""
    keys: list[tuple[str, str]] = []
    for part in sorted(out.glob(f"part-*.{fmt}")):
        if fmt == "jsonl":
            rows = [json.loads(line) for line in part.read_text().splitlines()]
            keys += [(r["source"], r["id"]) for r in rows]
        elif fmt == "csv":
            table = pd.read_csv(part, dtype=str)
            keys += list(zip(table["source"], table["id"], strict=True))
        else:
            table = pd.read_parquet(part, columns=["source", "id"])
            keys += list(zip(table["source"].astype(str), table["id"], strict=True))
    return sorted(keys)


class Interrupted(Exception):
    pass


def test_interrupted_in_process_resumes_without_repeats(
    account: tuple[rdskit.Client, dict[str, str]], dataset: str, tmp_path: Path
) -> None:
    client, _ = account
    dataset_id = dataset
    expected = service_keys(client, dataset_id)
    out = tmp_path / "x"
    reads = {"pages": 0}
    original = rdskit.pagination.SyncPage._following  # how a walk fetches the next page

    def following(self: Any, walk: Any) -> Any:
        reads["pages"] += 1
        if reads["pages"] == 1:
            raise Interrupted  # killed while the second page was read
        return original(self, walk)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rdskit.pagination.SyncPage, "_following", following)
        with pytest.raises(Interrupted):
            export_mentions(client, dataset_id, out, "jsonl", batch_rows=10)
    # A part cut short by a kill: a temporary file and a part the state does not know.
    (out / ".part-00001.jsonl.tmp").write_text('{"partial": ')
    (out / "part-00009.jsonl").write_text('{"source": "reddit", "id": "dup"}\n')
    with pytest.raises(rdskit.InvalidParameter, match="--resume"):
        export_mentions(client, dataset_id, out, "jsonl")
    result = export_mentions(client, dataset_id, out, "jsonl", resume=True, batch_rows=10)
    assert result.resumed and result.rows == len(expected)
    assert keys_in(out, "jsonl") == expected
    assert not list(out.glob(".*.tmp"))


@pytest.mark.timeout(600)  # the 240 s bound below, then the resumed export
def test_export_killed_halfway_and_resumed(
    sandbox: SandboxHandle,
    account: tuple[rdskit.Client, dict[str, str]],
    dataset: str,
    tmp_path: Path,
) -> None:
    client, env = account
    dataset_id = dataset
    expected = service_keys(client, dataset_id)
    out = tmp_path / "killed"
    # Slow pages so the kill lands after the first part and before the last.
    sandbox.admin.chaos("fault", route="/v1/mentions", kind="latency", latency_ms=400)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "rdskit", "export", dataset_id, "--format", "parquet",
             "--out", str(out), "--batch-rows", "50"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        # The export must reach 100 rows (about three slow pages); 240 s bounds it on a loaded
        # 2-core machine, and running out fails here instead of killing it too early.
        deadline = time.monotonic() + 240
        state = out / STATE_FILE
        while not (state.exists() and json.loads(state.read_text())["rows"] >= 100):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                err = process.communicate(timeout=30)[1].decode(errors="replace")
                pytest.fail(f"the export did not reach 100 rows: {err[-2000:]}")
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        sandbox.admin.reset_chaos()
    halfway = json.loads((out / STATE_FILE).read_text())
    assert 100 <= halfway["rows"] < len(expected) and not halfway["complete"]
    done = cli("export", dataset_id, "--format", "parquet", "--out", str(out), "--resume", env=env)
    assert done.returncode == 0, done.stderr
    assert "(resumed)" in done.stdout
    assert keys_in(out, "parquet") == expected  # none twice, none missing
    back = read_parquet(out)
    assert len(back) == len(expected) and not back.duplicated(["source", "id"]).any()


def test_operator_errors_are_one_line(
    account: tuple[rdskit.Client, dict[str, str]], tmp_path: Path
) -> None:
    _, env = account
    missing = cli("export", "ds_nope", "--format", "csv", "--out", str(tmp_path / "n"), env=env)
    assert missing.returncode == 1
    assert missing.stderr.count("\n") == 1 and "ds_nope" in missing.stderr
    assert not (tmp_path / "n").exists()  # nothing written for a dataset that is not there
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    busy_dir = cli("export", "ds_x", "--out", str(tmp_path / "full"), env=env)
    assert busy_dir.returncode == 1 and busy_dir.stderr.count("\n") == 1
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = cli("sandbox", "--port", port, env=env, timeout=60)
    assert busy.returncode == 1
    assert busy.stderr.strip().splitlines() == [
        f"rdskit sandbox: port {port} on 127.0.0.1 is in use (another sandbox?): choose "
        "another with --port, or --port 0 for any free one"
    ]
    version = cli("--version", env=env)
    assert version.stdout.strip() == f"rdskit {rdskit.__version__}"
