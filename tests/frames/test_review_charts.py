"""An independent check of the charts' honesty: every chart states its n and whether ads
are in or out (and whether the frame is a subset of what was loaded), the comparison chart
its confidence level and each group's n, and only a chart of views or engagement rates
warns that estimated views are compared."""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest
from matplotlib.axes import Axes

import rdskit  # noqa: F401  (registers df.rds)
import rdskit.frames as frames
from rdskit.errors import EstimatedViewsWarning
from rdskit.frames.plots import SCOPE_GID
from rdskit.frames.provenance import attach


def _frame() -> pd.DataFrame:
    """12 posts: tiktok 6 (counted views, one ad), reddit 6 (estimated views)."""
    rows: list[dict[str, Any]] = []
    for source in ("tiktok", "reddit"):
        for i in range(6):
            rows.append(
                {
                    "source": source,
                    "id": f"{source}{i}",
                    "created_at": 1767225600 + 86400 * 7 * i,
                    "content_type": "ad" if (source, i) == ("tiktok", 0) else "organic",
                    "text": "oat milk foam",
                    "num_views": 100 + i,
                    "num_likes": i,
                    "engagement_rate": str(0.01 * (i + 1)),
                    "are_views_estimated": source == "reddit",
                    "sentiment": {
                        "negative": "0.1",
                        "neutral": "0.1",
                        "positive": "0.8" if i % 2 else "0.1",
                        **({} if i % 2 else {"negative": "0.8"}),
                    },
                    "emotions": {"joy": "0.5", "neutral": "0.5"} if i < 4 else None,
                }
            )
    df = frames.mentions_frame(rows)
    fetch = {"resource": "mentions", "query": {}, "fetched_at": "2026-11-20T12:00:00Z"}
    return attach(df, [{**fetch, "rows": len(df)}], kind="mentions")


def scope(ax: Axes) -> str:
    (line,) = [t.get_text() for t in ax.texts if t.get_gid() == SCOPE_GID]
    return line


CHARTS = {
    "volume": (lambda df: df.rds.plot.volume("weekly"), "dated posts"),
    "sentiment": (lambda df: df.rds.plot.sentiment("monthly"), "analysed posts"),
    "sources": (lambda df: df.rds.plot.sources(), "posts"),
    "emotions": (lambda df: df.rds.plot.emotions(), "posts with emotions analysed"),
    "engagement": (lambda df: df.rds.plot.engagement(), "posts with an engagement rate"),
    "compare": (lambda df: df.rds.plot.compare(by="source", resamples=20), "posts"),
}


@pytest.mark.parametrize("name", list(CHARTS))
def test_every_chart_states_its_n_and_ads(name: str) -> None:
    draw, what = CHARTS[name]
    df = _frame()
    n = {"emotions": 8}.get(name, 12)  # 4 of each source's 6 posts have emotions
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EstimatedViewsWarning)
        assert scope(draw(df)) == f"n = {n} {what}; 1 ad included"
        organic = df.rds.organic()
        n_out = n - 1  # the ad (tiktok0) has a date, sentiment, emotions and a rate
        assert scope(draw(organic)) == f"n = {n_out} {what}; ads left out (1)"
        part = organic[organic["id"] != "reddit5"]  # a selection made in pandas
        n_part = n_out - (0 if name == "emotions" else 1)
        assert scope(draw(part)) == (
            f"n = {n_part} {what}; ads left out (1); a subset of the 12 posts loaded"
        )


def test_the_comparison_chart_shows_its_level_and_each_groups_n() -> None:
    df = _frame()
    ax = df.rds.plot.compare(by="source", what="sentiment", confidence=0.9, resamples=20)
    assert "90% Wilson intervals" in ax.get_title() and "95%" not in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["reddit\nn=6", "tiktok\nn=6"]


@pytest.mark.parametrize(
    ("what", "options", "warns"),
    [
        ("sentiment", {}, False),
        ("volume", {}, False),
        ("engagement", {"metric": "num_likes"}, False),
        ("engagement", {"metric": "engagement_rate"}, True),
        ("engagement", {"metric": "num_views"}, True),
    ],
)
def test_only_a_chart_of_views_warns_about_estimated_views(
    what: str, options: dict[str, Any], warns: bool
) -> None:
    df = _frame()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df.rds.plot.compare(by="source", what=what, resamples=20, **options)
    views = [w for w in caught if issubclass(w.category, EstimatedViewsWarning)]
    assert bool(views) is warns
    # compare() itself still warns: its table holds the view medians.
    with pytest.warns(EstimatedViewsWarning):
        df.rds.compare(by="source", resamples=20)


def test_a_chart_of_a_filtered_read_says_so() -> None:
    df = _frame()
    read = {"resource": "mentions", "query": {"sources": ["tiktok"]}, "fetched_at": "2026-11-20"}
    tiktok = attach(df[df["source"] == "tiktok"].copy(), [{**read, "rows": 6}])
    tiktok.attrs["rdskit"]["fetches"] = [{**read, "rows": 6}]  # this read only
    line = scope(tiktok.rds.plot.sources())
    assert line == "n = 6 posts; 1 ad included; read with sources tiktok"


def test_posts_of_unknown_type_are_not_said_to_be_without_ads() -> None:
    df = _frame()
    df["content_type"] = None
    assert scope(df.rds.plot.sources()).endswith("; ads: not known")
    kept = df.rds.organic()  # removes nothing: no post is known to be an ad
    assert scope(kept.rds.plot.sources()).endswith("; ads: not known")
    mixed = _frame()
    mixed.loc[mixed["source"] == "reddit", "content_type"] = None
    line = scope(mixed.rds.organic().rds.plot.sources())
    assert line.endswith("; ads left out (1), 6 of unknown type")
