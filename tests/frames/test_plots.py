"""df.rds.plot: the Axes carry the analysis numbers, with labels and titles."""

from __future__ import annotations

import matplotlib.dates as mdates
import pandas as pd
import pytest
from matplotlib.axes import Axes


def labelled(ax: Axes) -> bool:
    return bool(ax.get_title() and ax.get_xlabel() and ax.get_ylabel())


def bars(ax: Axes) -> dict[str, float]:
    labels = [t.get_text() for t in ax.get_xticklabels()]
    return dict(zip(labels, [p.get_height() for p in ax.patches], strict=True))


def test_volume(small: pd.DataFrame) -> None:
    ax = small.rds.plot.volume("D")
    assert labelled(ax) and len(ax.lines) == 1
    assert ax.lines[0].get_ydata().tolist() == [2, 1, 0, 0, 0, 0, 0, 0, 1, 1]
    first_x = mdates.num2date(ax.lines[0].get_xdata(orig=False)[0])
    assert first_x == pd.Timestamp("2026-01-05", tz="UTC")


def test_volume_by_source(small: pd.DataFrame) -> None:
    ax = small.rds.plot.volume("W", by="source")
    lines = {line.get_label(): line.get_ydata().tolist() for line in ax.lines}
    assert lines == {"instagram": [0, 1], "reddit": [2, 0], "tiktok": [1, 1]}
    assert ax.get_legend() is not None


def test_sentiment(small: pd.DataFrame) -> None:
    ax = small.rds.plot.sentiment("W")
    lines = {line.get_label(): line.get_ydata().tolist() for line in ax.lines}
    assert lines["positive"] == pytest.approx([1 / 3, 1.0])
    assert lines["negative"] == pytest.approx([1 / 3, 0.0])
    assert labelled(ax)


def test_sources(small: pd.DataFrame) -> None:
    ax = small.rds.plot.sources()  # a share-of-voice chart shows shares, not counts
    assert bars(ax) == pytest.approx({"reddit": 0.4, "tiktok": 0.4, "instagram": 0.2})
    assert labelled(ax) and ax.get_ylabel() == "share of mentions"


def test_emotions(small: pd.DataFrame) -> None:
    ax = small.rds.plot.emotions()
    heights = bars(ax)
    assert heights["neutral"] == pytest.approx(0.35) and heights["fear"] == 0.0
    assert list(heights) == ["neutral", "joy", "sadness", "anger", "surprise", "fear", "disgust"]
    assert labelled(ax)


def test_engagement(small: pd.DataFrame) -> None:
    ax = small.rds.plot.engagement()
    # Means per source: tiktok .20 (t2 has none), instagram .12, reddit (.10 + .08) / 2.
    assert bars(ax) == pytest.approx({"tiktok": 0.20, "instagram": 0.12, "reddit": 0.09})
    assert labelled(ax)


def test_draws_on_a_given_axes(small: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    assert small.rds.plot.sources(ax=ax) is ax
