"""Ground truth of a reading, computed independently of the assistant: pandas over the
posts as ``POST /v1/mentions`` returns them (see ``handwritten_spec.py`` for the rules).

Used by the hand-written and the generated evaluation suites.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pandas as pd

from rdskit.models import vocab

DAY = 86_400
METRIC_COLUMNS = {
    "views": "num_views",
    "likes": "num_likes",
    "comments": "num_comments",
    "shares": "num_shares",
    "engagement_rate": "engagement_rate",
    "sentiment_score": "sentiment_score",
}


def _dominant(shares: Mapping[str, Any] | None, order: Sequence[str]) -> str | None:
    if not shares:
        return None
    present = [k for k in order if k in shares]
    return max(present, key=lambda k: (float(shares[k]), -order.index(k)))


def frame(posts: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per post with every column a reading filters, groups or measures on."""
    sentiment_order = ("neutral", "negative", "positive")
    rows = []
    for post in posts:
        author = post.get("author") or {}
        media = [m.get("type") for m in post.get("media") or []]
        rows.append(
            {
                "source": post["source"],
                "id": post["id"],
                "sentiment": _dominant(post.get("sentiment"), sentiment_order),
                "emotion": _dominant(post.get("emotions"), vocab.EMOTIONS),
                "language": post.get("language"),
                "country": post.get("country_code"),
                "content_type": post.get("content_type"),
                "media": sorted(set(media)) or ["none"],
                "hook": [h["type"] for h in post.get("hooks") or []],
                "cta": (post.get("cta") or {}).get("text"),
                "topic": [t["text"] for t in post.get("content_topics") or []],
                "intention": post.get("content_intention"),
                "tone": (post.get("tone_of_voice") or {}).get("text"),
                "brand": list(post.get("mentioned_brands") or []),
                "author": author.get("title"),
                "author_key": author.get("title_url") or author.get("title"),
                "text": f"{post.get('title') or ''}\n{post.get('text') or ''}".lower(),
                "comment_bodies": [str(c.get("body") or "").lower() for c in post["comments"]],
                "comment_likes": [float(c.get("num_likes") or 0) for c in post["comments"]],
                "created_at": float(post["created_at"]),
                **{
                    name: None if post.get(column) is None else float(post[column])
                    for name, column in METRIC_COLUMNS.items()
                },
            }
        )
    return pd.DataFrame(rows)


def _word(term: str) -> re.Pattern[str]:
    words = re.findall(r"\w+", term.lower())
    if len(words) > 1:
        return re.compile(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b")
    return re.compile(r"\b" + re.escape(words[0]))


_MONTHS = [datetime(2026, m, 1).strftime("%B").lower() for m in range(1, 13)]
_COMPARE = {">": "gt", ">=": "ge", "<": "lt", "<=": "le", "=": "eq"}


def _day(stamp: float) -> date:
    return datetime.fromtimestamp(stamp, UTC).date()


def _month_start(newest: date, month: int) -> date:
    """The first day of the latest ``month`` that starts on or before ``newest``."""
    year = newest.year if month <= newest.month else newest.year - 1
    return date(year, month, 1)


def _period(df: pd.DataFrame, key: str, value: Any) -> tuple[date | None, date | None]:
    """[first, last] days of a period said relative to the newest post of ``df``."""
    newest = _day(df["created_at"].max())
    if key == "since":
        return date.fromisoformat(value), None
    if key == "until":
        return None, date.fromisoformat(value)
    if key == "since_month":
        return _month_start(newest, _MONTHS.index(value) + 1), None
    if key == "before_month":
        return None, _month_start(newest, _MONTHS.index(value) + 1) - timedelta(days=1)
    if key == "in_month":
        first = _month_start(newest, _MONTHS.index(value) + 1)
        after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        return first, after - timedelta(days=1)
    if key in ("since_day", "until_day"):  # "MM-DD": the latest such day up to the newest
        month, day = map(int, value.split("-"))
        year = newest.year if (month, day) <= (newest.month, newest.day) else newest.year - 1
        placed = date(year, month, day)
        return (placed, None) if key == "since_day" else (None, placed)
    if key == "quarter":
        first = _month_start(newest, 3 * int(value) - 2)
        after = date(first.year + (first.month + 2) // 12, (first.month + 2) % 12 + 1, 1)
        return first, after - timedelta(days=1)
    if value == "week":
        return newest - timedelta(days=newest.weekday()), None
    if value == "month":
        return newest.replace(day=1), None
    return newest.replace(month=1, day=1), None  # this year


def _mask(df: pd.DataFrame, key: str, values: Any) -> pd.Series:
    if key[-1] in "<>=":  # a metric threshold: "views>" 1000
        metric, op = re.fullmatch(r"(\w+?)([<>]=?|=)", key).groups()  # type: ignore[union-attr]
        column = df[metric].astype(float)
        return getattr(column, _COMPARE[op])(float(values)) & column.notna()
    if key in (
        "since",
        "until",
        "since_month",
        "before_month",
        "in_month",
        "quarter",
        "this",
        "since_day",
        "until_day",
    ):
        first, last = _period(df, key, values)
        days = df["created_at"].map(_day)
        return (days >= first if first else True) & (days <= last if last else True)
    if key == "keyword":
        patterns = [_word(v) for v in values]
        return df["text"].map(lambda t: any(p.search(t) for p in patterns))
    if key == "keyword_all":
        patterns = [_word(v) for v in values]
        return df["text"].map(lambda t: all(p.search(t) for p in patterns))
    if key == "comment":
        patterns = [_word(v) for v in values]
        return df["comment_bodies"].map(lambda bs: any(p.search(b) for b in bs for p in patterns))
    if key == "asking":  # a comment that is a question, mentioning any of the words
        patterns = [_word(v) for v in values]
        return df["comment_bodies"].map(
            lambda bs: any("?" in b and (not patterns or any(p.search(b) for p in patterns))
                           for b in bs)
        )  # fmt: skip
    if key == "days":
        return df["created_at"] > df["created_at"].max() - int(values) * DAY
    if key == "year":
        years = df["created_at"].map(lambda s: datetime.fromtimestamp(s, UTC).year)
        return years == int(values)
    if key == "month":
        months = df["created_at"].map(lambda s: datetime.fromtimestamp(s, UTC).strftime("%Y-%m"))
        return months == values
    wanted = {str(v).lower() for v in values}
    column = df[key]
    if key == "cta" and wanted == {"any"}:
        return column.notna()
    if key == "cta" and wanted == {"none"}:
        return column.isna()
    return column.map(
        lambda v: bool(
            {str(x).lower() for x in v} & wanted
            if isinstance(v, list)
            else v is not None and str(v).lower() in wanted
        )
    )


def where(df: pd.DataFrame, filters: Mapping[str, Any]) -> pd.DataFrame:
    """The rows matching every filter (``not_<key>`` excludes)."""
    keep = pd.Series(True, index=df.index)
    for key, values in filters.items():
        if key.startswith("not_"):
            keep &= ~_mask(df, key[4:], values)
        else:
            keep &= _mask(df, key, values)
    return df[keep]


def measure(df: pd.DataFrame, name: str, metric: str | None, part: Mapping[str, Any]) -> Any:
    """The measure over the rows of ``df`` (None when it has no value)."""
    if name == "count":
        return len(df)
    if name == "share":
        return round(100 * len(where(df, part)) / len(df), 1) if len(df) else None
    if name == "authors":
        return int(df["author_key"].dropna().nunique())
    if metric == "comment_likes":
        series = pd.Series([x for xs in df["comment_likes"] for x in xs], dtype=float)
    else:
        series = df[metric or "views"].dropna().astype(float)
    if series.empty:
        return None
    return float(getattr(series, {"mean": "mean", "median": "median"}.get(name, name))())


def _keys(row: pd.Series, group: str) -> list[str]:
    if group in ("day", "week", "month", "year"):
        moment = datetime.fromtimestamp(row["created_at"], UTC)
        if group == "day":
            return [moment.strftime("%Y-%m-%d")]
        if group == "week":
            year, week, _ = moment.isocalendar()
            return [f"{year}-W{week:02d}"]
        return [moment.strftime("%Y-%m" if group == "month" else "%Y")]
    value = row[group]
    if isinstance(value, list):
        return list(dict.fromkeys(value))
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    return ["(none)" if missing else str(value)]


def grouped(
    df: pd.DataFrame,
    group: str,
    name: str,
    metric: str | None,
    part: Mapping[str, Any],
    top: int | None,
    order: str,
) -> list[tuple[str, Any]]:
    """[(key, value)]: ranked (largest first, ties by key) when ``top`` is set, else all."""
    members: dict[str, list[int]] = {}
    for index, row in df.iterrows():
        for key in _keys(row, group):
            members.setdefault(key, []).append(index)
    out = [(key, measure(df.loc[rows], name, metric, part)) for key, rows in members.items()]
    if top:
        sign = 1 if order == "asc" else -1
        out.sort(key=lambda kv: (kv[1] is None, sign * (kv[1] or 0), kv[0]))
        out = out[:top]
    return out


def ranking(df: pd.DataFrame, metric: str, order: str, top: int) -> list[tuple[str, str]]:
    """The first ``top`` posts by ``metric`` (ties: source, id)."""
    values = df[metric].astype(float)
    ranked = df.assign(_v=values if order == "asc" else -values)
    ranked = ranked.sort_values(["_v", "source", "id"])
    return list(zip(ranked["source"][:top], ranked["id"][:top], strict=True))
