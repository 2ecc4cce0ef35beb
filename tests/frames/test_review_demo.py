"""The demo's charts and its answer agree on ads and carry n: read from the PNGs it saved
(their metadata holds the line printed under each title), the answer it saved and the
frame it saved, each count worked out here from the frame."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from rdskit.demo import CHARTS, run_demo
from rdskit.frames import read_parquet


def test_the_demo_charts_and_answer_agree_on_ads_and_carry_n(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("RDSKIT_API_KEY", "RDSKIT_BASE_URL", "RDSKIT_GATEWAY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "demo"
    story = io.StringIO()
    assert run_demo(out, speed=200, count=40, stream=story) == 0
    frame = read_parquet(out / "mentions.parquet")
    ads = int((frame["content_type"] == "ad").sum())
    organic = frame[frame["content_type"] != "ad"]
    answer = (out / "answer.md").read_text(encoding="utf-8")
    # The answer's "read as" lines name the posts it counted and the ads it left out.
    counted = {int(n) for n in re.findall(r"of (\d+) posts in dataset", answer)}
    assert counted == {len(organic)}
    if ads:
        assert f"({ads} ad{'s' if ads > 1 else ''} left out)" in answer
    expected_n = {
        "volume.png": f"n = {len(organic)} dated posts",
        "sentiment.png": f"n = {int(organic['sentiment'].notna().sum())} analysed posts",
        "sources.png": f"n = {len(organic)} posts",
        "engagement.png": f"n = {int(organic['engagement_rate'].notna().sum())} posts with an",
    }
    for name in CHARTS:
        scope = Image.open(out / name).text["Description"]
        assert scope.endswith(f"ads left out ({ads})"), (name, scope)
        assert "subset" not in scope
        if name in expected_n:
            assert scope.startswith(expected_n[name]), (name, scope)
        else:
            assert re.match(r"n = \d+ ", scope), (name, scope)
