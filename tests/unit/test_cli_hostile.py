"""The ``rdskit`` command against a hostile service on loopback (real HTTP, a subprocess):
what the service names (a dataset, a run state, an error's detail) never drives the
terminal, and what it sends as text never breaks a CSV row or becomes a live formula."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.unit.hostile_server import HOSTILE, TERMINAL_CONTROLS, HostileServer
from tests.unit.samples import DATASET_READ, ISO, ME

QUERY = {"type": "prompt", "sources": ["reddit"], "search_query": "oat"}
DATASET = {**DATASET_READ, "id": "ds_h", "name": HOSTILE, "mentions_count": 60}
RUN = {
    "id": "dsr_h",
    "dataset_id": "ds_h",
    "status": {"type": "completed"},
    "params": {"search_query": QUERY, "count": 10},
    "count": 10,
    "requested_count": 10,
    "mentions_count": 60,
    "created_at": ISO,
}
# Texts a hostile server sends: lone CRs (no quote, comma or newline), formulas after a
# line break, every formula prefix, CRLF, tabs.
TEXTS = [
    "a\rb",
    "x'\r@SUM(1+1)*cmd|' /C calc'!A0",
    "=1+1",
    "+1",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=2",
    'ok\r\n=HYPERLINK("http://x")',
    "line\n+cmd",
    "plain",
    "\n\n-",
]


def mention(i: int) -> dict[str, Any]:
    text = TEXTS[i % len(TEXTS)]
    return {"source": "reddit", "id": f"t3_{i}", "title": text, "text": text + f" #{i}",
            "author_name": text, "num_likes": i, "created_at": 0}  # fmt: skip


def pages(asked: dict[str, Any]) -> dict[str, Any]:
    start = int(asked.get("cursor") or 0)
    stop = min(start + 25, 60)
    following = str(stop) if stop < 60 else None
    return {"status": "success", "data": [mention(i) for i in range(start, stop)],
            "has_next": following is not None, "cursor": following}  # fmt: skip


def envelope(data: Any) -> dict[str, Any]:
    return {"status": "success", "data": data}


ROUTES: dict[tuple[str, str], tuple[int, Any]] = {
    ("GET", "/v1/me"): (200, envelope(ME)),
    ("GET", "/v1/datasets/ds_h"): (200, envelope(DATASET)),
    ("GET", "/v1/datasets"): (200, {**envelope([DATASET]), "has_next": False, "cursor": None}),
    ("GET", "/v1/datasets/ds_h/runs"): (200, {**envelope([RUN]), "has_next": False}),
    ("GET", "/v1/datasets/ds_h/runs/dsr_h"): (200, envelope(RUN)),
    ("POST", "/v1/mentions"): (200, pages),
}


def rdskit(server: HostileServer, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
           "RDSKIT_API_KEY": "bz_test_" + "0" * 32, "RDSKIT_BASE_URL": server.url,
           "RDSKIT_CACHE_DIR": str(cwd / "cache")}  # fmt: skip
    return subprocess.run([sys.executable, "-m", "rdskit", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def assert_inert(done: subprocess.CompletedProcess[str]) -> None:
    for stream in (done.stdout, done.stderr):
        assert not any(c in stream for c in TERMINAL_CONTROLS), ascii(stream)
    assert "\nrdskit: fake second line" not in done.stdout + done.stderr


def test_collect_prints_a_hostile_name_and_state_inert(tmp_path: Path) -> None:
    hostile_state = {**RUN, "status": {"type": "completed\r\x1b[2Kpaid 0"}}
    routes = {**ROUTES, ("GET", "/v1/datasets/ds_h/runs/dsr_h"): (200, envelope(hostile_state))}
    with HostileServer(routes) as server:
        done = rdskit(server, "collect", "ds_h", "--query", "oat", "--sources", "reddit",
                      "--count", "10", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, (done.stderr, server.missed)
    assert "Oat]52;c;ZXZpbA== run finished" in done.stdout  # the text shown, inert
    assert_inert(done)


@pytest.mark.parametrize(
    "args",
    [
        ("collect", "ds_gone", "--query", "oat", "--sources", "reddit"),
        ("collect", "A name", "--query", "oat", "--sources", "reddit"),
        ("export", "ds_gone", "--out", "gone"),
        ("export", "ds_gone", "--format", "csv", "--out", "gone2", "--resume"),
    ],
)
def test_a_hostile_error_detail_is_one_inert_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    with HostileServer({("GET", "/v1/me"): (200, envelope(ME))}) as server:
        done = rdskit(server, *args, cwd=tmp_path)
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert_inert(done)


def cells_of(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.reader(handle))


LIVE = re.compile(r"^[=+\-@\t\r]")


@pytest.mark.parametrize("excel_safe", [True, False])
def test_export_csv_keeps_one_row_per_mention(tmp_path: Path, excel_safe: bool) -> None:
    flag = "--excel-safe" if excel_safe else "--no-excel-safe"
    with HostileServer(ROUTES) as server:
        done = rdskit(server, "export", "ds_h", "--format", "csv", "--out", "out", flag,
                      "--batch-rows", "25", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, (done.stderr, server.missed)
    rows = [row for part in sorted((tmp_path / "out").glob("part-*.csv"))
            for row in cells_of(part)[1:]]  # fmt: skip
    assert len(rows) == 60  # every CSV reader: one row per mention
    header = cells_of(tmp_path / "out" / "part-00000.csv")[0]
    texts = [row[header.index("text")] for row in rows]
    if excel_safe:
        cells = [cell for row in rows for cell in row]
        assert not [cell for cell in cells if LIVE.match(cell)]
        raw = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out").glob("*.csv"))
        lines = re.split(r"\r\n|\r|\n", raw)
        assert not [line for line in lines if LIVE.match(line.lstrip('"'))]
        assert texts[0] == "a\nb #0" and texts[2] == "'=1+1 #2"
    else:
        assert texts == [mention(i)["text"] for i in range(60)]  # exactly as sent


def test_export_csv_help_states_the_default(tmp_path: Path) -> None:
    with HostileServer({}) as server:
        done = rdskit(server, "export", "--help", cwd=tmp_path)
    said = " ".join(done.stdout.split())
    assert "--excel-safe, --no-excel-safe" in said and "on by default" in said
