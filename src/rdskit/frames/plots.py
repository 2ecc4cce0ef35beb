"""``df.rds.plot``: matplotlib charts of the ``df.rds`` analyses.

Each method draws on ``ax`` (a new figure when omitted) and returns the Axes, with
labelled axes and a title; the plotted numbers are exactly the analysis method's output.
matplotlib is imported on first use (the ``jupyter`` extra installs it).

Example:
    >>> ax = df.rds.plot.volume("weekly")  # doctest: +SKIP
    >>> ax.figure.savefig("volume.png")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rdskit.frames.columns import SENTIMENT_LABELS
from rdskit.frames.periods import parse_period

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


def _dates(ax: Axes) -> Axes:
    """Concise date ticks (``Jan``, ``Feb``... with the year once) instead of crowded ones."""
    import matplotlib.dates as mdates

    locator = mdates.AutoDateLocator(minticks=3, maxticks=8)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    return ax


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0, decimals=0)


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
        """Mentions per period (``"daily"``, ``"weekly"``, ``"monthly"``... or a pandas
        alias): one line, or one per value of ``by``.

        Example:
            >>> df.rds.plot.volume("weekly", by="source")  # doctest: +SKIP
        """
        period = parse_period(freq)
        counts = self._rds.volume(period.alias, by)
        ax = _axes(ax, f"Mentions per {period.words}", "date", "mentions")
        series = {"mentions": counts} if by is None else {str(k): counts[k] for k in counts}
        for label, values in series.items():
            ax.plot(counts.index, _floats(values), marker=".", label=label)
        if by is not None:
            ax.legend(title=by)
        return _dates(ax)

    def sentiment(self, freq: str = "W", ax: Axes | None = None) -> Axes:
        """Share of negative, neutral and positive posts per period (three lines).

        Example:
            >>> df.rds.plot.sentiment("monthly")  # doctest: +SKIP
        """
        period = parse_period(freq)
        table = self._rds.sentiment_over_time(period.alias)
        title = f"Sentiment per {period.words}"
        ax = _axes(ax, title, "date", "share of analysed posts")
        for label in SENTIMENT_LABELS:
            ax.plot(
                table.index,
                _floats(table[label]),
                marker=".",
                label=label,
                color=SENTIMENT_COLORS[label],
            )
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(_percent())
        ax.legend()
        return _dates(ax)

    def sources(self, ax: Axes | None = None) -> Axes:
        """Each source's share of the mentions (bars, in percent), largest first."""
        shares = self._rds.share_of_voice("source")["share"]
        ax = _bars(_axes(ax, "Share of voice by source", "source", "share of mentions"), shares)
        ax.yaxis.set_major_formatter(_percent())
        return ax

    def emotions(self, ax: Axes | None = None) -> Axes:
        """Mean score of each emotion (bars)."""
        means = self._rds.emotions()["mean"]
        return _bars(_axes(ax, "Emotions", "emotion", "mean score"), means)

    def engagement(self, by: str = "source", ax: Axes | None = None) -> Axes:
        """Mean engagement rate per value of ``by`` (bars), highest first."""
        ax = _axes(ax, f"Mean engagement rate by {by}", by, "mean engagement rate")
        return _bars(ax, self._rds.engagement(by))

    def compare(
        self, by: str = "dataset", what: str = "sentiment", ax: Axes | None = None, **options: Any
    ) -> Axes:
        """``df.rds.compare(by)`` drawn with its intervals: ``what`` is ``"sentiment"``,
        ``"volume"`` or ``"engagement"`` (``metric=`` picks the engagement column).

        Example:
            >>> df.rds.plot.compare(by="dataset", what="sentiment")  # doctest: +SKIP
        """
        from rdskit.frames.compare import plot_comparison

        metric = options.pop("metric", "engagement_rate")
        return plot_comparison(self._rds.compare(by, **options), what, metric, ax)
