"""df.rds.plot: the Axes carry the analysis numbers, with labels and titles."""

from __future__ import annotations

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_hex

from rdskit.errors import EstimatedViewsWarning
from rdskit.frames.columns import SENTIMENT_COLORS
from rdskit.frames.plots import SCOPE_GID


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
    ax = small.rds.plot.sentiment("W", min_n=1)
    lines = {line.get_label(): line for line in ax.lines}
    assert lines["positive"].get_ydata().tolist() == pytest.approx([1 / 3, 1.0])
    assert lines["negative"].get_ydata().tolist() == pytest.approx([1 / 3, 0.0])
    # The same colour per label in every chart, from the one definition.
    for label, colour in SENTIMENT_COLORS.items():
        assert to_hex(lines[label].get_color()) == colour.lower()
    # n per period: bars of analysed posts on the right axis.
    counts = next(a for a in ax.figure.axes if a is not ax)
    assert [p.get_height() for p in counts.patches] == [3, 1]
    assert labelled(ax)


def test_sentiment_masks_small_periods_and_says_so(small: pd.DataFrame) -> None:
    ax = small.rds.plot.sentiment("W", min_n=2)
    positive = next(line for line in ax.lines if line.get_label() == "positive")
    values = positive.get_ydata()
    assert values[0] == pytest.approx(1 / 3) and np.isnan(values[1])
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "periods under 2 posts not shown (1)" in texts
    assert "analysed posts (n)" in texts
    assert legend_outside_axes(ax)


def legend_outside_axes(ax: Axes) -> bool:
    """The legend's box lies right of the axes' box (never over the data)."""
    ax.figure.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    return bool(legend.x0 >= ax.get_window_extent().x1)


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
    labels = [t.get_text() for t in ax.texts if t.get_gid() != SCOPE_GID]
    assert labels == ["n=1", "n=1", "n=2"]


def test_engagement_marks_estimated_views(small: pd.DataFrame) -> None:
    df = small.assign(are_views_estimated=small["source"] == "reddit")
    with pytest.warns(EstimatedViewsWarning, match="reddit"):
        ax = df.rds.plot.engagement()
    hatched = [
        t.get_text() for t, p in zip(ax.get_xticklabels(), ax.patches, strict=True) if p.get_hatch()
    ]
    assert hatched == ["reddit"]
    assert ax.get_legend().get_texts()[0].get_text() == "views estimated: not comparable"
    assert legend_outside_axes(ax)


def test_comparison_bars_use_the_sentiment_colours(small: pd.DataFrame) -> None:
    ax = small.rds.plot.compare(by="source", what="sentiment", resamples=50)
    colours = {to_hex(p.get_facecolor()) for p in ax.patches}
    assert colours == {c.lower() for c in SENTIMENT_COLORS.values()}
    assert legend_outside_axes(ax)


def test_draws_on_a_given_axes(small: pd.DataFrame) -> None:
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    assert small.rds.plot.sources(ax=ax) is ax
