"""``rdskit export`` trusts nothing it finds in ``--out``: a planted symlink is not written
through, a damaged state is one line (no traceback), parts are counted against the state
before resuming, and a cursor reset to null is refused instead of writing rows twice.
Against a service on loopback (real HTTP)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.unit.hostile_server import HostileServer
from tests.unit.test_cli_hostile import ROUTES, mention
from tests.unit.test_cli_hostile import rdskit as run_cli

import rdskit
from rdskit.frames.stream_export import STATE_FILE, export_mentions


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with HostileServer(ROUTES) as served:
        yield served


@pytest.fixture
def client(server: HostileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(tmp_path / "cache"))
    with rdskit.Client("bz_test_" + "1" * 32, base_url=server.url, rate_limit=None) as made:
        yield made


def exported(client: Any, out: Path, fmt: str = "jsonl", **options: Any) -> Any:
    return export_mentions(client, "ds_h", out, fmt, batch_rows=25, **options)


def rows_in(out: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in out.glob("part-*.jsonl"))


def test_a_planted_symlink_is_not_written_through(client: Any, tmp_path: Path) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    victim.write_text("mine\n")
    out.mkdir()
    (out / f".{STATE_FILE}.tmp").symlink_to(victim)  # the old temporary name
    (out / ".part-00000.jsonl.tmp").symlink_to(victim)
    with pytest.raises(rdskit.InvalidParameter, match="not empty"):
        exported(client, out)
    for leftover in list(out.iterdir()):
        leftover.unlink()
    exported(client, out)
    (out / f".{STATE_FILE}.tmp").symlink_to(victim)
    os.unlink(out / STATE_FILE)
    os.symlink(victim, out / STATE_FILE)  # the state itself a symlink: refused
    with pytest.raises(rdskit.InvalidParameter, match="damaged"):
        exported(client, out, resume=True)
    assert victim.read_text() == "mine\n"


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: json.dumps(s)[:40],  # truncated
        lambda s: json.dumps({**s, "rows": "600"}),
        lambda s: json.dumps({**s, "parts": {"a": 1}}),
        lambda s: json.dumps({**s, "cursor": 5}),
        lambda s: json.dumps([s]),
        lambda s: "\xff\xfe not utf-8",
        lambda s: json.dumps({**s, "parts": ["../../etc/passwd"]}),
        lambda s: json.dumps({**s, "part_rows": [1, 2]}),
    ],
    ids=[
        "truncated",
        "rows-text",
        "parts-object",
        "cursor-int",
        "a-list",
        "bytes",
        "path",
        "counts",
    ],
)
def test_a_damaged_state_is_one_line(client: Any, tmp_path: Path, damage: Any) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        exported(client, out, progress=interrupt_after(1))
    state = json.loads((out / STATE_FILE).read_text())
    (out / STATE_FILE).write_bytes(damage(state).encode("utf-8", "surrogateescape"))
    with pytest.raises(rdskit.InvalidParameter, match="damaged") as caught:
        exported(client, out, resume=True)
    assert "\n" not in str(caught.value)


def interrupt_after(parts: int) -> Any:
    def progress(rows: int) -> None:
        if rows >= 25 * parts:
            raise KeyboardInterrupt

    return progress


def test_the_cli_says_a_damaged_state_in_one_line(server: HostileServer, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / STATE_FILE).write_text('{"dataset_id": "ds_h", "format": "jsonl", "rows": ')
    done = run_cli(server, "export", "ds_h", "--format", "jsonl", "--out", str(out), "--resume",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "damaged" in done.stderr


def test_a_reset_cursor_is_refused_not_written_twice(client: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        exported(client, out, progress=interrupt_after(1))
    state = json.loads((out / STATE_FILE).read_text())
    assert state["cursor"] and state["rows"] == 25
    (out / STATE_FILE).write_text(json.dumps({**state, "cursor": None}))
    with pytest.raises(rdskit.InvalidParameter, match="reset"):
        exported(client, out, resume=True)
    assert rows_in(out) == 25  # nothing written again


@pytest.mark.parametrize("change", ["missing", "shorter", "more rows in the state"])
def test_parts_are_checked_against_the_state(client: Any, tmp_path: Path, change: str) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        exported(client, out, progress=interrupt_after(2))
    part = out / "part-00000.jsonl"
    if change == "missing":
        part.unlink()
    elif change == "shorter":
        part.write_text("".join(part.read_text().splitlines(keepends=True)[:3]))
    else:
        state = json.loads((out / STATE_FILE).read_text())
        state.pop("part_rows")  # a state of an earlier version: the total is checked
        (out / STATE_FILE).write_text(json.dumps({**state, "rows": state["rows"] + 5}))
    with pytest.raises(rdskit.InvalidParameter, match="damaged"):
        exported(client, out, resume=True)


def test_a_sound_state_resumes_to_every_row_once(client: Any, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        exported(client, out, progress=interrupt_after(1))
    (out / ".part-00001.jsonl.0123.partial").write_text('{"cut": ')
    result = exported(client, out, resume=True)
    assert result.resumed and result.rows == 60 and rows_in(out) == 60
    ids = [json.loads(line)["id"] for p in sorted(out.glob("part-*")) for line in p.open()]
    assert sorted(ids) == sorted(f"t3_{i}" for i in range(60))
    assert sorted(p.name for p in out.iterdir()) == [STATE_FILE, *(f"part-0000{i}.jsonl"
                                                               for i in range(3))]  # fmt: skip


def endless(asked: dict[str, Any]) -> dict[str, Any]:
    """A hostile page: a new cursor every time, each one long."""
    n = int((asked.get("cursor") or "0").split(":")[0]) + 1
    return {"status": "success", "data": [mention(n)], "has_next": True,
            "cursor": f"{n}:" + "x" * 200_000}  # fmt: skip


def test_a_server_sending_new_cursors_forever_is_stopped_by_the_dataset_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(tmp_path / "cache"))
    routes = {**ROUTES, ("POST", "/v1/mentions"): (200, endless)}
    with (
        HostileServer(routes) as served,
        rdskit.Client("bz_test_" + "2" * 32, base_url=served.url, rate_limit=None) as client,
    ):
        started = time.monotonic()
        with pytest.raises(rdskit.errors.BeyondDeclaredSize) as caught:
            exported(client, tmp_path / "out")
        # 60 mentions declared, in pages of 100: 2 x 1 + 2 pages, not 100,000.
        assert caught.value.pages <= 4 and time.monotonic() - started < 30
        page = client.mentions.list(dataset_ids=["ds_h"], limit=1).expecting(10)
        with pytest.raises(rdskit.errors.BeyondDeclaredSize) as caught:
            list(page)
        assert caught.value.items <= 2 * 10 + 2 + 1  # items past twice the declared size


def full_pages(asked: dict[str, Any]) -> dict[str, Any]:
    """A hostile list: full pages of new posts, a new cursor every time."""
    n = int((asked.get("cursor") or "0").split(":")[0]) + 1
    limit = int(asked.get("limit") or 100)
    return {"status": "success", "data": [mention(n * 1000 + i) for i in range(limit)],
            "has_next": True, "cursor": f"{n}:" + "y" * 1000}  # fmt: skip


@pytest.mark.parametrize("pages", [endless, full_pages], ids=["one a page", "full pages"])
@pytest.mark.parametrize(
    "load",
    [
        lambda client, tmp: client.mentions.to_frame(dataset_ids=["ds_h"]),
        lambda client, tmp: client.mentions.to_frame(dataset_ids=["ds_h"], cache=True),
        lambda client, tmp: client.mentions.to_parquet(tmp / "m.parquet", dataset_ids=["ds_h"]),
    ],
    ids=["to_frame", "cache", "to_parquet"],
)
def test_frame_loaders_stop_a_server_paging_forever(
    load: Any, pages: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RDSKIT_CACHE_DIR", str(tmp_path / "cache"))
    routes = {**ROUTES, ("POST", "/v1/mentions"): (200, pages)}
    with (
        HostileServer(routes) as served,
        rdskit.Client("bz_test_" + "3" * 32, base_url=served.url, rate_limit=None) as client,
    ):
        started = time.monotonic()
        with pytest.raises(rdskit.errors.BeyondDeclaredSize) as caught:
            load(client, tmp_path)
    # The dataset declares 60 mentions in pages of 100: the walk stops at 2 x 1 + 2 pages,
    # or on the page that takes it past 2 x 60 items + 2 pages (not 100,000 pages).
    error = caught.value
    assert error.field == "mentions_count" and "(mentions_count)" in str(error)
    assert error.declared == 60 and error.pages <= 4 and error.items <= 2 * 60 + 3 * 100
    assert time.monotonic() - started < 30
