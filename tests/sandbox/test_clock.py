"""The sandbox's one clock (issue 21.2): no wall-clock read outside ``sandbox/runtime/clock.py``, a
fixed date (``--today``, ``start(today=)``, ``RDSKIT_SANDBOX_TODAY``) that every entry point
honours, and results that stay the same when the real clock moves a year ahead."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

import rdskit
from rdskit.errors import ConfigurationError
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.backend.tables import open_store
from rdskit.sandbox.runtime import clock

SANDBOX = Path(__file__).resolve().parents[2] / "src" / "rdskit" / "sandbox"
CLOCK_MODULE = SANDBOX / "runtime" / "clock.py"
YEAR = 365 * 86_400
NOON = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()


def assert_created_on_the_fixed_day(created_at: datetime) -> None:
    """The account is made once the clock has started at noon of the fixed day: on a loaded
    machine the start can take a second or more, so the check is the day and that it is just
    after noon, not the exact second."""
    started = datetime.fromtimestamp(NOON, UTC)
    assert started <= created_at < started + timedelta(minutes=2), created_at


# time.monotonic / perf_counter / thread_time / process_time measure durations: allowed.
_TIME_READS = {"time", "time_ns", "localtime", "gmtime", "ctime", "asctime", "strftime"}
_DATE_READS = {"now", "utcnow", "today"}


def wall_clock_reads(source: str, filename: str = "<source>") -> list[str]:
    """``file:line: code`` of every direct read of the wall clock in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        hit = False
        if isinstance(node, ast.Attribute):
            base = ast.unparse(node.value)
            hit = (node.attr in _TIME_READS and base == "time") or (
                node.attr in _DATE_READS and base.split(".")[-1] in ("datetime", "date")
            )
        elif isinstance(node, ast.ImportFrom) and node.module == "time":
            hit = any(alias.name in _TIME_READS for alias in node.names)
        if hit:
            found.append(f"{filename}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_scan_finds_every_kind_of_wall_clock_read() -> None:
    source = "\n".join([
        "import time, datetime as dt",
        "from time import time as now",
        "a = time.time()",
        "b = datetime.now(UTC)",
        "c = dt.datetime.utcnow()",
        "d = date.today()",
        "e = time.strftime('%Y')",
        "f = time.monotonic() + time.perf_counter() + store.clock.now()",
        "g = clock.today() + vocab.today",
    ])  # fmt: skip
    assert [line.split(":")[1] for line in wall_clock_reads(source)] == list("234567")


def test_no_wall_clock_read_outside_the_clock_module() -> None:
    reads = []
    for path in sorted(SANDBOX.rglob("*.py")):
        if path != CLOCK_MODULE:
            reads += wall_clock_reads(path.read_text(encoding="utf-8"), str(path))
    assert reads == [], "read the sandbox clock (store.clock) instead:\n" + "\n".join(reads)
    assert wall_clock_reads(CLOCK_MODULE.read_text(encoding="utf-8")) != []  # it is the one


# -- a fixed date -------------------------------------------------------------------------


def test_a_fixed_date_starts_at_its_noon_and_moves_with_the_real_clock() -> None:
    fixed = clock.Clock(today=date(2026, 11, 20))
    first = fixed.now()
    assert NOON <= first < NOON + 5 and fixed.today() == date(2026, 11, 20)
    time.sleep(0.05)
    assert fixed.now() - first >= 0.05  # time still moves (progress, waits, schedules)
    fixed.advance(86_400)
    assert fixed.today() == date(2026, 11, 21)
    assert abs(clock.Clock().now() - time.time()) < 5  # without a date: the real clock


def test_a_reopened_fixed_date_database_goes_on_never_back(tmp_path: Path) -> None:
    # Kernels sharing one sandbox file (a course on one account) each open it anew: time
    # must go on from where the file's clock started, not restart at noon each time.
    path, day = tmp_path / "sandbox.db", date(2026, 11, 20)
    first = open_store(path, today=day)
    written = first.clock.now()
    first.close()
    time.sleep(0.2)
    again = open_store(path, today=day)
    assert again.clock.now() >= written + 0.2
    assert again.clock.today() == day
    again.close()
    fresh = open_store(tmp_path / "other.db", today=day)  # a new file starts at that noon
    assert NOON <= fresh.clock.now() < NOON + 5
    fresh.close()


def test_the_date_is_parsed_or_refused_naming_the_format(monkeypatch: pytest.MonkeyPatch) -> None:
    assert clock.parse_today(" 2026-11-20 ") == date(2026, 11, 20)
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        clock.parse_today("20/11/2026")
    monkeypatch.setenv(clock.ENV_TODAY, "tomorrow")
    with pytest.raises(ConfigurationError, match="RDSKIT_SANDBOX_TODAY='tomorrow'"):
        clock.today_from_env()
    monkeypatch.setenv(clock.ENV_TODAY, "")
    assert clock.today_from_env() is None


def _data(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()["data"]


def _until(http: httpx.Client, path: str, done: Any) -> Any:
    deadline = time.monotonic() + 60
    while True:
        body = _data(http.get(path))
        if done(body):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.02)


def _collect(http: httpx.Client, name: str, search: dict[str, Any], count: int) -> str:
    dataset = _data(http.post("/v1/datasets", json={"name": name}))["id"]
    body = {"search_query": search, "count": count, "content_analysis_actions": ["sentiment"]}
    run = _data(http.post(f"/v1/datasets/{dataset}/runs", json=body))
    path = f"/v1/datasets/{dataset}/runs/{run['id']}"
    _until(http, path, lambda r: r["status"]["type"] == "completed")
    return str(dataset)


def _answer(http: httpx.Client, message: str, dataset_ids: list[str]) -> str:
    body = {"message": message, "context": {"dataset_ids": dataset_ids}}
    accepted = _data(http.post("/v1/ask", json=body), 202)
    path = f"/v1/chats/{accepted['chat_id']}/messages/{accepted['message_id']}"
    return str(_until(http, path, lambda m: m["status"] != "working")["text"])


def _what_the_sandbox_says(handle: SandboxHandle) -> dict[str, Any]:
    """Everything that reads "now": windows of runs without a date range, a url search,
    a relative preview, a tracking schedule, the assistant, created_at of the account."""
    with httpx.Client(
        base_url=handle.url, headers={"x-api-key": handle.api_key}, timeout=30
    ) as http:
        prompt = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}
        url = {"type": "url", "source_urls": ["https://www.tiktok.com/@maya.chen"]}
        recent = _collect(http, "recent", prompt, 40)
        profile = _collect(http, "profile", url, 6)
        mentions = [
            {k: m.get(k) for k in ("source", "id", "created_at", "text", "sentiment")}
            for dataset in (recent, profile)
            for m in _data(http.post("/v1/mentions", json={"dataset_ids": [dataset]}))
        ]
        week = {"type": "prompt", "search_query": "matcha", "sources": ["reddit"]}
        week["time_filter"] = "past_week"
        preview = _data(http.post("/v1/research_previews", json=week))
        schedule = {"frequency": "weekly", "time": "09:00", "day": "monday"}
        watch = {"name": "watch", "instructions": "", "dataset_ids": [recent], "count": 5}
        agent = _data(http.post("/v1/tracking_agents", json=watch | {"schedule": schedule}))
        me = _data(http.get("/v1/me"))
        return {
            "mentions": mentions,
            "preview": preview["posts"],
            "estimate": preview["estimated_number_of_results"],
            "next_run_at": agent.get("next_run_at"),
            "account": (me["created_at"] // 60, me["usage"]["renews_at"] // 60),
            "march": _answer(http, "What did people say in March?", [recent]),
        }


@contextmanager
def _real_clock_ahead(monkeypatch: pytest.MonkeyPatch, seconds: float) -> Iterator[None]:
    real = clock.wall_time
    with monkeypatch.context() as patched:
        patched.setattr(clock, "wall_time", lambda: real() + seconds)
        yield


def test_a_fixed_date_gives_the_same_results_with_the_real_clock_a_year_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with start(speed=500, rate_limit=10_000, today="2026-11-20") as handle:
        today = _what_the_sandbox_says(handle)
    with (
        _real_clock_ahead(monkeypatch, YEAR),
        start(speed=500, rate_limit=10_000, today="2026-11-20") as handle,
    ):
        ahead = _what_the_sandbox_says(handle)
    assert ahead == today
    newest = max(m["created_at"] for m in today["mentions"])
    assert NOON - 86_400 < newest <= NOON  # the window ended at the fixed date's noon
    assert today["account"][0] == NOON // 60 and "2026-03-01" in today["march"]
    # The check can fail: on the real clock, a year ahead moves every window a year.
    with _real_clock_ahead(monkeypatch, YEAR), start(speed=500, rate_limit=10_000) as handle:
        real = _what_the_sandbox_says(handle)
    assert max(m["created_at"] for m in real["mentions"]) > newest + YEAR / 2
    assert real["next_run_at"] != today["next_run_at"]


def test_the_assistant_places_a_month_by_the_sandbox_date_when_there_is_no_post() -> None:
    from rdskit.sandbox.assistant.intents import Vocabulary, plan

    def window(vocab: Vocabulary) -> tuple[date | None, date | None]:
        slots = plan("What did people say in December?", vocab).intents[0].slots
        return slots.since, slots.until

    assert window(Vocabulary(today=date(2026, 11, 20))) == (date(2025, 12, 1), date(2025, 12, 31))
    assert window(Vocabulary(today=date(2027, 1, 5))) == (date(2026, 12, 1), date(2026, 12, 31))
    assert window(Vocabulary()) == (None, None)  # no post, no date: not placed, not guessed


# -- every entry point honours RDSKIT_SANDBOX_TODAY -----------------------------------------


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RDSKIT_")}
    return env | extra


def test_client_sandbox_reads_the_date_from_the_environment() -> None:
    code = (
        "import rdskit; c = rdskit.Client.sandbox(); "
        "print(c.me().created_at.isoformat(timespec='minutes'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=_env(RDSKIT_SANDBOX_TODAY="2026-11-20"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2026-11-20T12:00+00:00"


def test_the_cli_takes_today_and_refuses_a_bad_one() -> None:
    command = [sys.executable, "-m", "rdskit.cli", "sandbox", "--port", "0"]
    bad = subprocess.run(
        [*command, "--today", "2026-13-01"], env=_env(), capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "YYYY-MM-DD" in bad.stderr
    with subprocess.Popen(
        [*command, "--today", "2026-11-20"], env=_env(), stdout=subprocess.PIPE, text=True
    ) as server:
        assert server.stdout is not None
        try:
            lines = [server.stdout.readline() for _ in range(7)]
            assert any("today" in line and "2026-11-20" in line for line in lines), lines
            url = lines[0].rsplit(" ", 1)[1].strip()
            key = next(line.split(":", 1)[1].split()[0] for line in lines if "API key" in line)
            with rdskit.Client(key, base_url=url) as client:
                assert_created_on_the_fixed_day(client.me().created_at)
        finally:
            server.terminate()
            server.wait(30)


def test_the_jupyter_gateway_sandbox_reads_the_date_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("jupyter_server")
    from rdskit.jupyter.gateway import RdsGateway

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("RDSKIT_SANDBOX_DB", raising=False)
    monkeypatch.setenv(clock.ENV_TODAY, "2026-11-20")
    app = RdsGateway(sandbox_speed=200)
    url, key = app._start_sandbox()
    try:
        with rdskit.Client(key, base_url=url) as client:
            assert_created_on_the_fixed_day(client.me().created_at)
    finally:
        assert app._stop_sandbox is not None
        app._stop_sandbox()
