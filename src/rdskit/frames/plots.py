"""``df.rds.plot``: matplotlib charts of the ``df.rds`` analyses.

Each method draws on ``ax`` (a new figure when omitted) and returns the Axes, with
labelled axes and a title; the plotted numbers are exactly the analysis method's output.
matplotlib is imported on first use (the ``jupyter`` extra installs it).

Example:
    >>> ax = df.rds.plot.volume("W")  # doctest: +SKIP
    >>> ax.figure.savefig("volume.png")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rdskit.frames.columns import SENTIMENT_LABELS

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from rdskit.frames.accessor import RdsAccessor

__all__ = ["SENTIMENT_COLORS", "RdsPlots"]

SENTIMENT_COLORS = {"negative": "#d62728", "neutral": "#7f7f7f", "positive": "#2ca02c"}


def _axes(ax: Axes | None, title: str, xlabel: str, ylabel: str) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4))
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


def _floats(values: pd.Series) -> np.ndarray[Any, np.dtype[np.float64]]:
    return values.to_numpy(dtype="float64", na_value=np.nan)


def _bars(ax: Axes, values: pd.Series) -> Axes:
    ax.bar([str(label) for label in values.index], _floats(values))
    ax.tick_params(axis="x", labelrotation=30)
    return ax


class RdsPlots:
    """The charts of one frame (``df.rds.plot``)."""

    def __init__(self, rds: RdsAccessor) -> None:
        self._rds = rds

    def volume(self, freq: str = "D", by: str | None = None, ax: Axes | None = None) -> Axes:
        """Mentions per period: one line, or one per value of ``by``.

        Example:
            >>> df.rds.plot.volume("W", by="source")  # doctest: +SKIP
        """
        counts = self._rds.volume(freq, by)
        ax = _axes(ax, f"Mentions per period ({freq})", "date", "mentions")
        series = {"mentions": counts} if by is None else {str(k): counts[k] for k in counts}
        for label, values in series.items():
            ax.plot(counts.index, _floats(values), marker=".", label=label)
        if by is not None:
            ax.legend(title=by)
        return ax

    def sentiment(self, freq: str = "W", ax: Axes | None = None) -> Axes:
        """Share of negative, neutral and positive posts per period (three lines)."""
        table = self._rds.sentiment_over_time(freq)
        ax = _axes(ax, f"Sentiment over time ({freq})", "date", "share of analysed posts")
        for label in SENTIMENT_LABELS:
            ax.plot(
                table.index,
                _floats(table[label]),
                marker=".",
                label=label,
                color=SENTIMENT_COLORS[label],
            )
        ax.set_ylim(0, 1)
        ax.legend()
        return ax

    def sources(self, ax: Axes | None = None) -> Axes:
        """Mentions per source (bars), largest first."""
        counts = self._rds.share_of_voice("source")["mentions"]
        return _bars(_axes(ax, "Share of voice by source", "source", "mentions"), counts)

    def emotions(self, ax: Axes | None = None) -> Axes:
        """Mean score of each emotion (bars)."""
        means = self._rds.emotions()["mean"]
        return _bars(_axes(ax, "Emotions", "emotion", "mean score"), means)

    def engagement(self, by: str = "source", ax: Axes | None = None) -> Axes:
        """Mean engagement rate per value of ``by`` (bars), highest first."""
        ax = _axes(ax, f"Mean engagement rate by {by}", by, "mean engagement rate")
        return _bars(ax, self._rds.engagement(by))
