"""``df.rds.plot``: matplotlib charts of the ``df.rds`` analyses.

Each method draws on ``ax`` (a new figure when omitted) and returns the Axes, with
labelled axes and a title; the plotted numbers are exactly the analysis method's output.
matplotlib is imported on first use (the ``jupyter`` extra installs it).

Our rules, in every chart: sentiment labels always have the same colours
(:data:`rdskit.frames.columns.SENTIMENT_COLORS`, colour-blind safe); legends sit outside
the plotted data (right of the axes); a chart of shares per period shows how many posts
each share is of, and leaves out periods with fewer than ``min_n`` (saying so in the
legend); bars of sources that estimate views are hatched and labelled, and comparing them
warns (:class:`~rdskit.errors.EstimatedViewsWarning`); under the title, every chart states
its n (the posts its figures are of), whether ads are in or out, and whether the frame is a
subset of the posts loaded (:func:`rdskit.frames.methods.scope_of`).

Example:
    >>> ax = df.rds.plot.volume("weekly")  # doctest: +SKIP
    >>> ax.figure.savefig("volume.png")  # doctest: +SKIP
"""

from __future__ import annotations

import textwrap
import warnings
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from rdskit.errors import EstimatedViewsWarning
from rdskit.frames._checks import VIEW_BASED, legend_outside
from rdskit.frames.columns import SENTIMENT_COLORS, SENTIMENT_LABELS
from rdskit.frames.compare import corrected_shares, plot_comparison
from rdskit.frames.methods import scope_line
from rdskit.frames.periods import parse_period
from rdskit.frames.provenance import add_step

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.patches import Rectangle

    from rdskit.frames.accessor import RdsAccessor
    from rdskit.validation import Validity

__all__ = ["MIN_N", "SENTIMENT_COLORS", "RdsPlots", "legend_outside"]

MIN_N = 10
"""Shares per period computed from fewer posts than this are not drawn (``min_n=``)."""


def _axes(ax: Axes | None, title: str, xlabel: str, ylabel: str) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt

        # Constrained layout makes room for a legend outside the axes.
        _, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


SCOPE_GID = "rdskit-scope"
"""The ``gid`` of the scope line under each chart's title (n, ads, subset)."""


def _scope(ax: Axes, frame: pd.DataFrame, n: int, what: str = "posts", drawn: Any = None) -> Axes:
    """Write the chart's scope line (its n, ads in or out, subset or not; see
    :func:`rdskit.frames.accessor.scope_line`) between the axes and the title, which
    moves up to make room."""
    return _scope_line(ax, scope_line(frame, n, what, drawn))


def _scope_line(ax: Axes, line: str) -> Axes:
    """Write ``line`` as the chart's scope line (see :func:`_scope`)."""
    ax.set_title(ax.get_title(), pad=18)
    ax.annotate(
        line,
        xy=(0.5, 1.0),
        xycoords="axes fraction",
        xytext=(0, 4),
        textcoords="offset points",
        ha="center",
        va="bottom",
        fontsize="small",
        color="#444444",
        gid=SCOPE_GID,
    )
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
    floats: np.ndarray[Any, np.dtype[np.float64]] = values.to_numpy(
        dtype="float64", na_value=np.nan
    )
    return floats


def _bar_width(index: pd.Index) -> Any:
    """Bars as wide as 80 % of the spacing of a date index (one bar per period)."""
    if len(index) > 1:
        return (index[1:] - index[:-1]).min() * 0.8
    return pd.Timedelta(days=1)


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
            legend_outside(ax, title=by)
        frame = self._rds._df
        dated = frame["created_at"].notna()
        return _dates(_scope(ax, frame, int(dated.sum()), "dated posts", dated))

    def sentiment(
        self,
        freq: str = "W",
        ax: Axes | None = None,
        *,
        min_n: int = MIN_N,
        validation: Validity | None = None,
    ) -> Axes:
        """Share of negative, neutral and positive posts per period (three lines), with
        the number of analysed posts per period as grey bars (right axis); periods with
        fewer than ``min_n`` analysed posts are left out of the lines (the legend says
        so): a share of 4 posts says little. With ``validation``
        (:func:`rdskit.validation.validity` of the sentiment labels), each period's shares
        corrected for the labels' errors are drawn beside the raw ones (dashed, with
        their intervals over the validation sample as bands); the title, legend and axis
        label say which is which, and the frame's record notes the correction.

        Example:
            >>> df.rds.plot.sentiment("monthly")  # doctest: +SKIP
        """
        period = parse_period(freq)
        table = self._rds.sentiment_over_time(period.alias)
        title = f"Sentiment per {period.words}"
        if validation is not None:
            level = f"{validation.summary()['confidence'] or 0.95:.0%}".replace("%", " %")
            title += f", raw and corrected\n(bands: {level} intervals over the validation sample)"
        ax = _axes(ax, title, "date", "share of analysed posts")
        analysed = _floats(table["analysed"])
        shown = analysed >= max(min_n, 1)
        counts = ax.twinx()
        width = _bar_width(table.index)
        bars = counts.bar(
            table.index,
            analysed,
            width=width,
            color="#dddddd",
            zorder=0,
            label="analysed posts (n)",
        )
        counts.set_ylabel("analysed posts (n)")
        counts.set_ylim(0, max(analysed.max(initial=0), 1) * 3)  # bars stay low, under the lines
        ax.set_zorder(counts.get_zorder() + 1)
        ax.patch.set_visible(False)
        lines = []
        raw = " (raw)" if validation is not None else ""
        for label in SENTIMENT_LABELS:
            values = np.where(shown, _floats(table[label]), np.nan)
            (line,) = ax.plot(
                table.index, values, marker=".", label=label + raw, color=SENTIMENT_COLORS[label]
            )
            lines.append(line)
        if validation is not None:
            lines += self._corrected(ax, table, shown, validation, period)
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(_percent())
        hidden = int((~shown & (analysed > 0)).sum())
        note = f"periods under {min_n} posts not shown ({hidden})" if hidden else None
        handles: list[Artist | tuple[Artist, ...]] = [*lines, bars]
        labels = [str(line.get_label()) for line in lines] + ["analysed posts (n)"]
        if note:
            from matplotlib.patches import Patch

            handles.append(Patch(color="none"))
            labels.append(note)
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.12, 1.0), borderaxespad=0)
        frame = self._rds._df
        drawn = frame["sentiment"].notna() & frame["created_at"].notna()
        return _dates(_scope(ax, frame, int(analysed.sum()), "analysed posts", drawn))

    def _corrected(
        self, ax: Axes, table: pd.DataFrame, shown: np.ndarray, validation: Validity, period: Any
    ) -> list[Any]:
        """Each shown period's shares corrected by ``validation``: dashed lines with their
        intervals as bands; the axis label says what was corrected, the record notes it."""
        frame = self._rds._df
        dated = frame[frame["created_at"].notna()]
        grouped = dated.groupby(pd.Grouper(key="created_at", freq=period.alias))["sentiment"]
        periods = set(table.index[shown])
        labels = {start: values for start, values in grouped if start in periods}
        corrected, words, _, record = corrected_shares(labels, validation)
        lines = []
        for label in SENTIMENT_LABELS:
            part = corrected.xs(label, level="sentiment").reindex(table.index)
            values = np.where(shown, _floats(part["corrected"]), np.nan)
            (line,) = ax.plot(
                table.index,
                values,
                linestyle="--",
                marker="x",
                label=f"{label} (corrected)",
                color=SENTIMENT_COLORS[label],
            )
            ax.fill_between(
                table.index,
                np.where(shown, _floats(part["corrected_low"]), np.nan),
                np.where(shown, _floats(part["corrected_high"]), np.nan),
                color=SENTIMENT_COLORS[label],
                alpha=0.15,
                linewidth=0,
            )
            lines.append(line)
        note = f"Raw: the service's labels. Corrected: {words}."
        ax.set_xlabel("date\n" + textwrap.fill(note, 70))
        add_step(frame, "correct_shares", {"figure": f"plot.sentiment({period.alias!r})", **record})
        return lines

    def sources(self, ax: Axes | None = None) -> Axes:
        """Each source's share of the mentions (bars, in percent), largest first."""
        table = self._rds.share_of_voice("source")
        ax = _bars(
            _axes(ax, "Share of voice by source", "source", "share of mentions"), table["share"]
        )
        ax.yaxis.set_major_formatter(_percent())
        return _scope(ax, self._rds._df, int(table["mentions"].sum()))

    def emotions(self, ax: Axes | None = None) -> Axes:
        """Mean score of each emotion (bars)."""
        means = self._rds.emotions()["mean"]
        ax = _bars(_axes(ax, "Emotions", "emotion", "mean score"), means)
        frame = self._rds._df
        drawn = frame[[f"emotion_{e}" for e in means.index]].notna().any(axis=1)
        return _scope(ax, frame, int(drawn.sum()), "posts with emotions analysed", drawn)

    def engagement(self, by: str = "source", ax: Axes | None = None) -> Axes:
        """Mean engagement rate per value of ``by`` (bars), highest first, with the
        number of posts on each bar. Groups holding posts whose views are estimated are
        hatched and named in the legend, and the chart warns (as
        :meth:`~rdskit.frames.accessor.RdsAccessor.engagement` does): their rates are
        not comparable with counted ones."""
        means = self._rds.engagement(by)
        frame = self._rds._df
        ax = _axes(ax, f"Mean engagement rate by {by}", by, "mean engagement rate")
        ax = _bars(ax, means)
        # n_by follows the order of the means, as the bars do.
        for patch, count in zip(ax.patches, means.attrs["n_by"].values(), strict=True):
            bar = cast("Rectangle", patch)  # the axes hold only these bars
            ax.annotate(
                f"n={count:,}",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize="small",
            )
        if "are_views_estimated" in frame.columns:
            flag = frame["are_views_estimated"].astype("boolean").fillna(False)
            estimated = flag.groupby(frame[by], observed=True).any()
            marked = [g for g in means.index if bool(estimated.get(g, False))]
            if marked and len(marked) < len(means):
                for patch, group in zip(ax.patches, means.index, strict=True):
                    if group in marked:
                        patch.set_hatch("//")
                        patch.set_facecolor("white")
                        patch.set_edgecolor("#555555")
                        patch.set_label("views estimated: not comparable")
                legend_outside(ax, handles=[p for p in ax.patches if p.get_hatch()][:1])
        return _scope_line(ax, means.attrs["scope"])

    def compare(
        self, by: str = "dataset", what: str = "sentiment", ax: Axes | None = None, **options: Any
    ) -> Axes:
        """``df.rds.compare(by)`` drawn with its intervals: ``what`` is ``"sentiment"``,
        ``"volume"`` or ``"engagement"`` (``metric=`` picks the engagement column).

        Example:
            >>> df.rds.plot.compare(by="dataset", what="sentiment")  # doctest: +SKIP
        """
        metric = options.pop("metric", "engagement_rate")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            comparison = self._rds.compare(by, **options)
        for warning in caught:
            # compare() warns about its engagement medians; a chart of sentiment, volume
            # or likes does not show them, and a warning about it would be false.
            views = issubclass(warning.category, EstimatedViewsWarning)
            if not views or (what == "engagement" and metric in VIEW_BASED):
                warnings.warn_explicit(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
        ax = plot_comparison(comparison, what, metric, ax)
        return _scope_line(ax, comparison.scope)
