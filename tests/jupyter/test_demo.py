"""``rdskit demo`` end to end through the CLI entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from rdskit.cli import build_parser, main
from rdskit.demo import CHARTS
from rdskit.frames import read_parquet

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_demo_writes_charts_frame_and_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)  # no key and no gateway: it needs neither
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--speed", "200", "--count", "40"]) == 0
    captured = capsys.readouterr()

    frame = read_parquet(out / "mentions.parquet")
    assert len(frame) == 40 and {"source", "id", "text", "sentiment"} <= set(frame.columns)
    for name in CHARTS:
        assert (out / name).read_bytes().startswith(PNG_MAGIC)
    answer = (out / "answer.md").read_text(encoding="utf-8")
    # answer.md is the safe markdown form; the terminal shows the plain form with footnotes.
    assert "\n**References**\n\n- [1] " in answer and "\nReferences\n[1] " in captured.out
    assert answer.splitlines()[0].split("[[1]]")[0].strip() in captured.out

    # The charts leave ads out wherever the answer does, and say how many.
    organic = frame.rds.organic()
    ads = len(frame) - len(organic)
    assert f"Charts: the {len(organic)} organic posts ({ads} ad" in captured.out
    if ads:
        assert f"({ads} ad{'s' if ads > 1 else ''} left out" in answer

    assert f"Saved into {out.resolve()}:" in captured.out
    assert "Loaded 40 posts into a DataFrame" in captured.out
    progress = captured.err.splitlines()
    assert any(": completed in " in line and "reserved 40 credits" in line for line in progress)
    assert any(line.startswith("Assistant reply: ") and "charged " in line for line in progress)


def test_demo_options_and_defaults() -> None:
    args = build_parser().parse_args(["demo"])
    assert (args.out, args.speed, args.count) == ("./rdskit-demo", 20.0, 120)
