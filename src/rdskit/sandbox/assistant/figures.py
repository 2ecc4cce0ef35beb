"""Figures: a :class:`~rdskit.sandbox.assistant.reader.Query` run over a scope's table,
and the answer that states it with its "Read as" line.

The table holds the posts exactly as ``POST /v1/mentions`` returns them (the per-dataset
cache of ``backend/ask_cache.py`` builds them with the same mention query code), and each
filter follows the wire filter of the same name: labels compare case-insensitively,
``sentiment`` / ``emotion`` are the dominant label (ties: neutral), a keyword is a word
of title + text starting with it (a phrase for several words, as ``q`` reads them),
``days`` counts back from the newest post of the scope.

Every answer starts with one line saying how the question was read: filters, the
denominator, the window (relative to the newest post, with its date), ads in or out. A
word the reader could not map is named before any figure, and the figure of the wider
scope is offered only under a "Without 'viral'" label, never as the answer.

Example:
    >>> from rdskit.sandbox.assistant.catalogue import Table
    >>> from rdskit.sandbox.assistant.reader import Cond, Query
    >>> posts = [{"source": "reddit", "id": str(i), "num_views": i, "created_at": 0}
    ...          for i in range(1, 4)]
    >>> run(Query("median", "views"), Table(posts)).value
    2.0
    >>> run(Query(where=(Cond("source", ("tiktok",)),)), Table(posts)).value
    0
"""

from __future__ import annotations

import operator
import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, cast

from rdskit.sandbox.assistant.catalogue import DIMENSIONS, METRICS, Table
from rdskit.sandbox.assistant.dates import TIME_DIMS, window_start
from rdskit.sandbox.assistant.posts import (
    VIEW_BASED,
    author_of,
    best_sentence,
    cite,
    estimated_views_note,
    period_of,
    periods_between,
    post_text,
    quote,
    sentence_label,
)
from rdskit.sandbox.assistant.posts import key as key_of
from rdskit.sandbox.assistant.reader import COMMENT_DIMS, PERIODS, Cond, Query
from rdskit.sandbox.assistant.sections import Writer

__all__ = ["Result", "describe", "describe_conds", "matcher", "run", "select", "write"]

_DAY = 86_400
MAX_FILLED = 5_000
"""The most periods a count per day, week or month lists with the empty ones as 0."""
_NONE = "(none)"
_EXAMPLES = 3


@lru_cache(maxsize=512)
def _word_pattern(term: str) -> re.Pattern[str]:
    words = re.findall(r"\w+", term.lower())
    if len(words) > 1:
        return re.compile(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b")
    return re.compile(r"\b" + re.escape(words[0] if words else term.lower()))


_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "=": operator.eq,
}
_COMPARE_SAID = {">": "more than", ">=": "at least", "<": "fewer than", "<=": "at most", "=": ""}


def matcher(cond: Cond, table: Table) -> Callable[[int], bool]:
    """A test of row ``i`` of ``table`` for ``cond`` (NOT applied)."""
    test = _positive(cond, table)
    if cond.negate:
        return lambda i: not test(i)
    return test


def _positive(cond: Cond, table: Table) -> Callable[[int], bool]:
    values = [v.lower() for v in cond.values]
    if cond.dim == "hashtag" and values == ["any"]:  # "posts that use a hashtag"
        return lambda i: bool(table.rows[i]["hashtag"])
    if cond.dim == "hashtag":  # "#budget": a tag starting so, as a keyword is a word's start
        tags = [re.compile(rf"(?<![\w#])#{re.escape(v.lstrip('#'))}") for v in values]
        return lambda i: any(tag.search(table.texts[i]) for tag in tags)
    if cond.dim == "keyword":
        patterns = [_word_pattern(v) for v in values]
        texts = table.texts
        if cond.every:
            return lambda i: all(p.search(texts[i]) for p in patterns)
        return lambda i: any(p.search(texts[i]) for p in patterns)
    if cond.dim in COMMENT_DIMS:  # a post with a comment that passes it
        passes = _comment_test(cond, table)
        return lambda i: any(passes(i, j) for j in range(len(table.comments[i])))
    if cond.dim in TIME_DIMS:
        dated = _dated_test(cond, table)
        return lambda i: dated(float(table.posts[i].get("created_at") or 0))
    rows = table.rows
    name = cond.dim
    if name in METRICS:  # (operator, number) pairs, any of which holds; a post without
        # the metric fails ("fewer than 10 likes or more than 10000 likes": two pairs)
        bounds = [
            (_COMPARE[op], float(number))
            for op, number in zip(cond.values[::2], cond.values[1::2], strict=True)
        ]
        return lambda i: (
            rows[i].get(name) is not None
            and any(compare(float(rows[i][name]), bound) for compare, bound in bounds)
        )
    if values == ["any"]:
        return lambda i: bool(rows[i].get(name))
    if values == ["none"] and name != "media":
        return lambda i: not rows[i].get(name)
    wanted = set(values)
    return lambda i: any(v.lower() in wanted for v in rows[i].get(name, ()))


def _dated_test(cond: Cond, table: Table) -> Callable[[float], bool]:
    """A test of a Unix time for a period condition (``days``, ``since``, ``until``,
    ``year``, ``month``); ``days`` count back from the newest post of the scope."""
    if cond.dim == "days":  # (length, days back it ends: the window before another)
        length, back = int(cond.values[0]), int(cond.values[1]) if len(cond.values) > 1 else 0
        end = table.newest() - back * _DAY
        since = end - length * _DAY
        return lambda stamp: since < stamp <= end
    if cond.dim in ("since", "until"):
        day = datetime.fromisoformat(cond.values[0]).replace(tzinfo=UTC).timestamp()
        if cond.dim == "since":
            return lambda stamp: stamp >= day
        return lambda stamp: stamp < day + _DAY
    unit = "%Y" if cond.dim == "year" else "%Y-%m"
    return lambda stamp: datetime.fromtimestamp(stamp, UTC).strftime(unit) in cond.values


def _comment_stamps(table: Table) -> list[list[float | None]]:
    """Each comment's ``created_at`` (the spec's ISO 8601 string) as a Unix time, None when
    it has none or it does not parse (read once per table)."""

    def stamp(value: Any) -> float | None:
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            return None
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()

    return table.derived(
        "comment stamps",
        lambda: [
            [stamp(c.get("created_at")) if c.get("created_at") else None for c in cs]
            for cs in table.comments
        ],
    )


def _comment_test(cond: Cond, table: Table) -> Callable[[int, int], bool]:
    """A test of comment ``j`` of post ``i`` for a ``comment`` condition (its body says one
    of the words), an ``asking`` one (it asks, with a "?", mentioning one of them, or
    anything when there are none) or a ``comment_sentiment`` one (its body's sentiment, by
    the scorer of the comments analysis, is one of the labels); NOT not applied."""
    if cond.dim == "comment_sentiment":
        labels = _comment_labels(table)
        wanted = {v.lower() for v in cond.values}
        return lambda i, j: labels[i][j] in wanted
    if cond.dim in ("comment_likes", "comment_replies"):  # the comment's own number
        field_ = METRICS[cond.dim].path[-1]
        bounds = [
            (_COMPARE[op], float(number))
            for op, number in zip(cond.values[::2], cond.values[1::2], strict=True)
        ]
        return lambda i, j: any(
            compare(float(table.comments[i][j].get(field_) or 0), bound)
            for compare, bound in bounds
        )
    if cond.dim.removeprefix("comment_") in TIME_DIMS:  # the comment's own date
        dated = _dated_test(replace(cond, dim=cond.dim.removeprefix("comment_")), table)
        stamps = _comment_stamps(table)
        return lambda i, j: stamps[i][j] is not None and dated(cast(float, stamps[i][j]))
    bodies = _bodies(table)
    patterns = [_word_pattern(v.lower()) for v in cond.values]
    if cond.dim == "comment":
        return lambda i, j: any(p.search(bodies[i][j]) for p in patterns)
    return lambda i, j: (
        "?" in bodies[i][j] and (not patterns or any(p.search(bodies[i][j]) for p in patterns))
    )


def _comment_labels(table: Table) -> list[list[str | None]]:
    """Each comment's sentiment label as the comments analysis gives it (None for an
    empty body, which the analysis leaves out too); read once per table."""
    return table.derived(
        "comment sentiment",
        lambda: [
            [
                sentence_label(body) if (body := str(c.get("body") or "")).strip() else None
                for c in cs
            ]
            for cs in table.comments
        ],
    )


def _bodies(table: Table) -> list[list[str]]:
    """Each post's comment bodies, lower-cased (read once per table)."""
    return table.derived(
        "comment bodies",
        lambda: [[str(c.get("body") or "").lower() for c in cs] for cs in table.comments],
    )


def _post_conds(conds: Sequence[Cond]) -> list[Cond]:
    """The conditions a post passes itself (not through its comments)."""
    return [c for c in conds if c.dim not in COMMENT_DIMS]


def _comments_counted(query: Query, table: Table, rows: Sequence[int]) -> tuple[int, list[int]]:
    """(comments of ``rows`` that pass every comment condition of ``query``, the rows
    holding one): what a count of comments counts."""
    tests = [(_comment_test(c, table), c.negate) for c in query.where if c.dim in COMMENT_DIMS]
    counted, holding = 0, []
    for i in rows:
        found = sum(
            1 for j in range(len(table.comments[i])) if all(t(i, j) != no for t, no in tests)
        )
        counted += found
        if found:
            holding.append(i)
    return counted, holding


def select(conds: Sequence[Cond], table: Table, within: Sequence[int] | None = None) -> list[int]:
    """Row indices passing every condition."""
    chosen = list(range(len(table.rows))) if within is None else list(within)
    for cond in conds:
        test = matcher(cond, table)
        chosen = [i for i in chosen if test(i)]
    return chosen


@dataclass
class Result:
    """A query's figure: ``value`` (count, share %, statistic or distinct authors) over
    ``rows`` (the posts it is about), ``base`` the denominator of a share, ``groups``
    [(key, value, n)] when grouped; ``tied`` the groups left out of a top / bottom k that
    have the same value as the last one shown."""

    value: Any
    rows: list[int]
    base: int | None = None
    groups: list[tuple[str, Any, int]] = field(default_factory=list)
    cited: list[int] = field(default_factory=list)
    tied: int = 0
    unfilled: bool = False
    """The periods without posts were not listed as 0 (more than :data:`MAX_FILLED`)."""


def _author(post: Any) -> str | None:
    author = post.get("author") or {}
    if not isinstance(author, dict):
        return str(author)
    found = author.get("title_url") or author.get("title")
    return None if found is None else str(found)


def _measure(query: Query, table: Table, rows: list[int]) -> tuple[Any, list[int], int | None]:
    """(value, rows cited, denominator) of the measure over ``rows``."""
    if query.measure == "count" and query.unit == "comments":
        counted, holding = _comments_counted(query, table, rows)
        return counted, holding, None
    if query.measure in ("count", "list"):
        return len(rows), rows, None
    if query.measure == "share":
        part = select(query.part, table, rows)
        return (round(100 * len(part) / len(rows), 1) if rows else None), part, len(rows)
    if query.measure == "commenters":
        names = {
            str(name).lower()
            for i in rows
            for comment in table.comments[i]
            if (name := comment.get("author_username") or comment.get("author_name"))
        }
        return len(names), rows, sum(len(table.comments[i]) for i in rows)
    if query.measure == "authors":
        posted = Counter(a for i in rows if (a := _author(table.posts[i])) is not None)
        if query.min_posts > 1:  # "authors who posted more than once": of all of them
            repeat = sum(1 for n in posted.values() if n >= query.min_posts)
            return repeat, rows, len(posted)
        return len(posted), rows, None
    metric = METRICS[query.metric or "views"]
    if query.measure == "ratio" and query.per is not None:  # total over total, posts with both
        other, scale = query.per
        both = [
            i
            for i in rows
            if table.rows[i][metric.name] is not None and table.rows[i][other] is not None
        ]
        below = sum(table.rows[i][other] for i in both)
        above = sum(table.rows[i][metric.name] for i in both)
        return (scale * above / below if below else None), both, None
    if metric.comments:
        values = [float(c.get(metric.path[-1]) or 0) for i in rows for c in table.comments[i]]
    else:
        values = [
            table.rows[i][metric.name] for i in rows if table.rows[i][metric.name] is not None
        ]
    if not values:
        return None, rows, None
    compute: dict[str, Callable[[list[float]], float]] = {
        "sum": sum,
        "mean": statistics.fmean,
        "median": statistics.median,
        "min": min,
        "max": max,
    }
    value = compute[query.measure](values)
    if query.measure in ("max", "min") and metric.comments:  # the posts the comment is on
        field_ = metric.path[-1]
        rows = [
            i for i in rows if any(float(c.get(field_) or 0) == value for c in table.comments[i])
        ]
    elif query.measure in ("max", "min"):
        rows = [i for i in rows if table.rows[i][metric.name] == value]
    return value, rows, None


def _keys(query: Query, table: Table, i: int) -> tuple[str, ...]:
    group = query.group or ""
    if group in PERIODS:
        stamp = float(table.posts[i].get("created_at") or 0)
        if group == "year":
            return (datetime.fromtimestamp(stamp, UTC).strftime("%Y"),)
        return (period_of(stamp, group),)
    labels = table.rows[i].get(group, ())
    if group == "dataset":  # only the datasets asked about, not others a post is also in
        named = {v for c in query.where if c.dim == "dataset" and not c.negate for v in c.values}
        labels = tuple(v for v in labels if not named or v in named)
    if not labels:
        dim = DIMENSIONS.get(group)
        return () if dim is not None and dim.multi else (_NONE,)
    return tuple(dict.fromkeys(labels))


def _ranked(query: Query, table: Table, rows: list[int]) -> list[int]:
    """The ``top`` rows by the metric (ties: source, id); posts without it left out."""
    name = METRICS[query.metric or "views"].name
    valued = [i for i in rows if table.rows[i].get(name) is not None]
    sign = 1 if query.order == "asc" else -1

    def rank_key(i: int) -> tuple[float, str, str]:
        post = table.posts[i]
        return (sign * table.rows[i][name], str(post["source"]), str(post["id"]))

    return sorted(valued, key=rank_key)[: query.top or 5]


def run(query: Query, table: Table) -> Result:
    """The figure of ``query`` over ``table`` (see :class:`Result`)."""
    counts_comments = query.measure == "count" and query.unit == "comments"
    unfilled = False
    # A counted comment passes each comment condition, so its post has one that does; a
    # negated one ("comments that don't mention the price") says nothing of the post.
    # "Apart from Apple, which brand is mentioned most": of a label a post holds several
    # of, the value left out is a group left out, not the posts that also mention it.
    dim = DIMENSIONS.get(query.group or "")
    left_out = [
        c
        for c in query.where
        if dim is not None and dim.multi and c.dim == query.group and c.negate
    ]
    rows = select(
        [
            c
            for c in query.where
            if not (counts_comments and c.dim in COMMENT_DIMS and c.negate) and c not in left_out
        ],
        table,
    )
    if query.measure == "rank":
        return Result(len(rows), rows, cited=_ranked(query, table, rows))
    if not query.group:
        value, cited, base = _measure(query, table, rows)
        return Result(value, rows, base if base is not None else None, cited=cited)
    members: dict[str, list[int]] = {}
    out = {v.lower().lstrip("#") for c in left_out for v in c.values}  # "#tag" or "tag"
    for i in rows:
        for key in _keys(query, table, i):
            if key.lower().lstrip("#") not in out:
                members.setdefault(key, []).append(i)
    groups = []
    for key, inside in members.items():
        value, holding, _ = _measure(query, table, inside)
        groups.append((key, value, len(holding) if counts_comments else len(inside)))
    if query.group in ("day", "week", "month") and query.measure == "count" and rows:
        # A period without posts is a count of 0, not a period left out: "the quietest
        # month" may be one nobody posted in, and a table of counts skips no period. The
        # periods run over the scope's posts in the window asked ("price posts per month"
        # shows the months no post mentioned the price).
        spanned = select([c for c in query.where if c.dim in TIME_DIMS], table)
        stamps = [float(table.posts[i].get("created_at") or 0) for i in spanned]
        # Bounded: one post dated 1970 or 9999 beside the rest would ask for millions of
        # empty days; then only the periods with posts are listed, and the answer says so.
        days = (max(stamps) - min(stamps)) / _DAY
        if days / {"day": 1, "week": 7, "month": 28}[query.group] <= MAX_FILLED:
            groups += [
                (period, 0, 0)
                for period in periods_between(min(stamps), max(stamps), query.group)
                if period not in members
            ]
        else:
            unfilled = True
    if query.group in PERIODS and query.top is None:
        groups.sort(key=lambda g: g[0])
    else:
        sign = 1 if query.order == "asc" else -1
        groups.sort(key=lambda g: (g[1] is None, sign * (g[1] or 0), g[0]))
    tied = 0
    if query.top:
        # "the most common call to action": a value is ranked, never the posts without one
        groups = [g for g in groups if g[0] != _NONE]
        shown = groups[: query.top]
        tied = sum(1 for g in groups[query.top :] if shown and g[1] == shown[-1][1])
        groups = shown
    kept = {key for key, _, _ in groups}
    cited = [i for i in rows if set(_keys(query, table, i)) & kept]
    return Result(None, rows, None, groups, cited, tied, unfilled)


# --- the answer --------------------------------------------------------------------------

_DIM_SAID = {
    "source": "source",
    "content_type": "content type",
    "language": "language",
    "country": "country",
    "intention": "content intention",
    "tone": "tone of voice",
    "cta": "call to action",
    "hook": "hook type",
    "topic": "content topic",
    "brand": "mentioned brand",
    "emotion": "dominant emotion",
    "sentiment": "sentiment",
    "author": "author",
    "media": "media",
    "dataset": "dataset",
    "weekday": "day of the week (UTC)",
    "hour": "hour of the day (UTC)",
}


def _cond_text(cond: Cond, newest: float) -> str:
    values = " or ".join(cond.values)
    if cond.dim == "keyword":
        joined = (" and " if cond.every else " or ").join(f'"{v}"' for v in cond.values)
        text = f"title or text mentions {joined}"
    elif cond.dim == "hashtag" and cond.values == ("any",):
        text = "title or text has a hashtag"
    elif cond.dim == "hashtag":
        text = f"title or text has the hashtag {' or '.join(f'#{v}' for v in cond.values)}"
    elif cond.dim in COMMENT_DIMS:
        text = f"a comment {_comment_said(cond, newest=newest)}"
    elif cond.dim == "days" and len(cond.values) > 1:  # the window before another one
        length, back = int(cond.values[0]), int(cond.values[1])
        end = datetime.fromtimestamp(newest - back * 86400, UTC).date()
        since = window_start(newest - back * 86400, length)
        text = f"posted in the {length} days before the last {back} days ({since}, up to {end})"
    elif cond.dim == "days":
        newest_day = datetime.fromtimestamp(newest, UTC).date()
        since = window_start(newest, int(cond.values[0]))
        text = (
            f"posted in the last {cond.values[0]} days before the newest post"
            f" ({newest_day}; {since})"
        )
    elif cond.dim in ("year", "month"):
        text = f"posted in {values}"
    elif cond.dim in ("since", "until"):
        text = f"posted {'on or after' if cond.dim == 'since' else 'on or before'} {values}"
    elif cond.dim == "content_type" and cond.values == ("ad",) and cond.negate:
        return "content type is not ad (organic, or no content type)"
    elif cond.dim in METRICS:
        # A rate or a score is above or below a value; a count is more or fewer.
        said = _COMPARE_SAID | (
            {">": "above", "<": "below"} if cond.dim.endswith(("_rate", "_score")) else {}
        )
        text = " or ".join(
            f"{cond.dim.replace('_', ' ')} {said[op] or 'is'} {_number(float(number), cond.dim)}"
            for op, number in zip(cond.values[::2], cond.values[1::2], strict=True)
        )
    elif cond.dim == "cta" and cond.values in (("any",), ("none",)):
        text = "has a call to action" if cond.values == ("any",) else "has no call to action"
    elif cond.dim == "media":
        text = "has no media" if cond.values == ("none",) else f"has media of type {values}"
    else:
        text = f"{_DIM_SAID.get(cond.dim, cond.dim.replace('_', ' '))} is {values}"
    return f"NOT ({text})" if cond.negate else text


def _comment_said(
    cond: Cond, plural: bool = False, negate: bool = False, newest: float = 0.0
) -> str:
    """What a comment does to pass ``cond``: 'asks a question ...' ('ask' for ``plural``
    comments; 'do not ask' when ``negate``)."""
    if cond.dim == "comment_sentiment":
        return (
            f"{'are' if plural else 'is'} {'not ' if negate else ''}{' or '.join(cond.values)}"
            " (the sentiment of the comment's own text, scored as in the comments analysis)"
        )
    if negate:
        return f"do{'' if plural else 'es'} not {_comment_said(cond, True, newest=newest)}"
    if cond.dim in ("comment_likes", "comment_replies"):
        has = "have" if plural else "has"
        what = cond.dim.removeprefix("comment_")
        return " or ".join(
            f"{has} {_COMPARE_SAID[op] or 'exactly'} {_number(float(n), None)} {what}"
            for op, n in zip(cond.values[::2], cond.values[1::2], strict=True)
        )
    if cond.dim.removeprefix("comment_") in TIME_DIMS:
        own = replace(cond, dim=cond.dim.removeprefix("comment_"))
        said = _cond_text(own, newest).removeprefix("posted ")
        return f"{'were' if plural else 'was'} written (the comment's own date) {said}"
    if cond.dim == "comment":
        return f'say{"" if plural else "s"} "{" or ".join(cond.values)}"'
    words = ", ".join(f'"{v}"' for v in cond.values)
    return f"ask{'' if plural else 's'} a question{f' mentioning {words}' if words else ''}"


def _conds_text(conds: Sequence[Cond], newest: float) -> str:
    return " and ".join(_cond_text(c, newest) for c in conds)


def describe_conds(conds: Sequence[Cond], table: Table) -> list[str]:
    """Each condition as the read-as line says it."""
    return [_cond_text(c, table.newest()) for c in conds]


def _posts_where(conds: Sequence[Cond], newest: float) -> str:
    return f"posts where {_conds_text(conds, newest)}" if conds else "all posts"


def describe(query: Query, table: Table, where: str, ads: str) -> str:
    """The "Read as" line of a query."""
    newest = table.newest()
    scope = _posts_where(query.where, newest) + f" in {where}"
    if query.measure == "count" and query.unit == "comments":
        said = " and ".join(
            _comment_said(c, plural=True, negate=c.negate, newest=newest)
            for c in query.where
            if c.dim in COMMENT_DIMS
        )
        others = _post_conds(query.where)
        what = (
            f"count of the comments that {said}, among the comments collected with "
            f"{_posts_where(others, newest)} in {where}"
        )
    elif query.measure == "count":
        what = f"count of {scope}"
    elif query.measure == "share":
        what = (
            f"share of {_posts_where(query.part, newest)} (numerator) out of {scope} (denominator)"
        )
    elif query.measure == "authors":
        often = f" who wrote at least {query.min_posts}" if query.min_posts > 1 else ""
        what = f"distinct authors{often} of {scope}"
    elif query.measure == "commenters":
        what = f"distinct authors of the comments collected on {scope}"
    elif query.measure == "list":
        what = f"a listing of {scope}"
    elif query.measure == "rank":
        side = "lowest" if query.order == "asc" else "highest"
        metric = METRICS[query.metric or "views"].described
        what = f"the {query.top or 5} posts with the {side} {metric} among {scope}"
    elif query.measure == "ratio" and query.per is not None:
        metric = METRICS[query.metric or "views"].described
        other, scale = query.per
        what = (
            f"{metric} {_per_said(query.per)} (total {query.metric} / total {other}"
            f"{f' x {scale:,}' if scale != 1 else ''}) over {scope}"
        )
    else:
        metric = METRICS[query.metric or "views"].described
        what = f"{query.measure} of {metric} over {scope}"
    if query.group:
        said = _DIM_SAID.get(query.group, query.group.replace("_", " "))
        what += f", grouped by {said}"
        if query.top:
            what += f", the {'bottom' if query.order == 'asc' else 'top'} {query.top}"
    windows = [c for c in query.where if c.dim in TIME_DIMS]
    window = "" if windows else "; window: all dates"
    return f"_Read as: {what}{window}; {ads}._"


def edit(before: Query, after: Query, table: Table) -> str:
    """What a follow-up changed in the previous figure, said for its read-as line
    ("median of likes instead of mean of sentiment score; the top 5 instead of 3").

    >>> table = Table([])
    >>> edit(Query("mean", "likes"), Query("median", "likes", (Cond("source", ("tiktok",)),)),
    ...      table)
    'median instead of mean; now also source is tiktok'
    """
    said: list[str] = []
    if (before.measure, before.metric) != (after.measure, after.metric):

        def measure(q: Query) -> str:
            return f"{q.measure} of {METRICS[q.metric].described}" if q.metric else q.measure

        if before.metric == after.metric:
            said.append(f"{after.measure} instead of {before.measure}")
        else:
            said.append(f"{measure(after)} instead of {measure(before)}")
    if before.group != after.group:
        said.append(f"grouped by {after.group}" if after.group else "no longer grouped")
    elif after.top != before.top and after.top is not None:
        said.append(f"the top {after.top} instead of {before.top or 'all'}")
    newest = table.newest()
    old = {c.dim: c for c in (*before.where, *before.part)}
    for cond in (*after.where, *after.part):
        was = old.get(cond.dim)
        if was == cond:
            continue
        text = _cond_text(cond, newest)
        said.append(f"{text} instead of {_cond_text(was, newest)}" if was else f"now also {text}")
    kept = {c.dim for c in (*after.where, *after.part)}
    said += [f"no longer {_cond_text(c, newest)}" for d, c in old.items() if d not in kept]
    return "; ".join(said)


def _number(value: Any, metric: str | None) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return f"{int(value):,}"
    if metric in ("engagement_rate", "sentiment_score") or abs(value) < 1:
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return f"{value:,.2f}"


def _listed(rows: Sequence[int], table: Table, size: int = 5) -> list[int]:
    return sorted(rows, key=lambda i: (-float(table.posts[i].get("num_likes") or 0), i))[:size]


def _extreme_comments(out: Writer, query: Query, table: Table, result: Result) -> None:
    """The comments that hold a maximum or minimum of a comment's own number ("which
    comment got the most likes"), quoted with their author and the post they answer."""
    field_ = METRICS[query.metric or "views"].path[-1]
    held = [
        (i, c)
        for i in result.cited
        for c in table.comments[i]
        if float(c.get(field_) or 0) == result.value
    ]
    for i, comment in held[:_EXAMPLES]:
        body = " ".join(str(comment.get("body") or "").split())
        author = comment.get("author_username") or comment.get("author_name") or "unknown"
        out.line(f'- "{body[:200]}" by {author}, on {cite(table.posts[i])}')
    if len(held) > _EXAMPLES:
        out.line(f"({len(held) - _EXAMPLES} more comments hold the same figure.)")


def _examples(out: Writer, table: Table, rows: Sequence[int]) -> None:
    links = [cite(table.posts[i]) for i in _listed(rows, table, _EXAMPLES)]
    if links:
        out.line(f"Examples: {', '.join(links)}.")


def without(words: Sequence[str]) -> str:
    """The label of a figure given without the words of a question that were not read.

    >>> without(["viral", "#fyp"])
    "Without 'viral' and '#fyp'"
    """
    return "Without " + " and ".join(f"'{word}'" for word in words)


def write(
    out: Writer, query: Query, table: Table, where: str, ads: str, base: Sequence[Cond] = ()
) -> dict[str, Any]:
    """Write the answer of one query (read-as line, unknown words, figure, examples);
    returns the figures it states. ``base``: the conditions of the posts the chat counts
    (its ads policy), the denominator a count's share is of."""
    out.line(describe(query, table, where, ads))
    for note in query.notes:
        out.line(f"_Note: {note}._")
    if query.unknown:
        # A word not read may change the question: no figure is given for what was read
        # instead (docs/assistant.md, "Never a dropped word"); the asker can ask that.
        words = " or ".join(f"'{word}'" for word in query.unknown)
        out.line(
            f"**I did not understand {words}** (not a filter I can apply to these posts), so"
            " I give no figure: the question as asked is not the one I could read (the"
            f" read-as line above). Ask it again {without(query.unknown).lower()} if that"
            " is what you mean."
        )
        return {
            "measure": query.measure,
            "metric": query.metric,
            "n": None,
            "unknown": list(query.unknown),
        }
    out.line()
    result = run(query, table)
    views_note = (
        estimated_views_note(table.posts[i] for i in result.rows)
        if (query.metric in VIEW_BASED or (query.per and query.per[0] in VIEW_BASED))
        and query.measure not in ("count", "list", "share", "authors")
        else None
    )
    total = len(select(base, table)) if base else len(table.rows)
    counted = f"{where}, {_conds_text(base, table.newest())}" if base else where
    figures: dict[str, Any] = {
        "measure": query.measure,
        "metric": query.metric,
        "n": len(result.rows),
        "unknown": list(query.unknown),
    }
    if query.group:
        said = _DIM_SAID.get(query.group, query.group.replace("_", " "))
        label = _measure_label(query)
        rows = [[key, _number(value, query.metric), n] for key, value, n in result.groups]
        columns = [said, label, "posts with one" if query.unit == "comments" else "posts"]
        if query.measure == "count" and query.unit == "posts":  # one column: the value is n
            rows, columns = [row[:2] for row in rows], columns[:2]
        if not rows:
            out.line(f"No posts match ({total:,} posts in {where}).")
        else:
            title = f"{label[0].upper()}{label[1:]} by {said}"
            if query.unknown:
                title += f" ({without(query.unknown).lower()})"
            out.add_table(title, columns, rows)
            if result.unfilled:
                out.line(
                    f"_Note: the posts span more than {MAX_FILLED:,} {said}s, so only the"
                    f" {said}s with posts are listed; those without any are not shown as 0._"
                )
            _picked(out, query, result, said)
            if result.tied:  # "the quietest day" is one of many with no post
                key, value, _ = result.groups[-1]
                out.line(
                    f"_Note: {result.tied:,} more {said}{'' if result.tied == 1 else 's'} tie"
                    f" with {key} at {_number(value, query.metric)}; the first in order is"
                    " shown._"
                )
            _partial_periods(out, query, table, result)
        if views_note and rows:
            out.line(views_note)
        if query.measure == "count" and query.unit == "comments":
            figures["unit"] = "comments"
            _uncollected(out, table, select(_post_conds(query.where), table))
        figures["groups"] = [[key, value, n] for key, value, n in result.groups]
        _examples(out, table, result.cited)
        return figures
    figures["value"] = result.value
    n = len(result.rows)
    if query.measure == "list" and not result.rows:
        sources = ", ".join(sorted({str(p["source"]) for p in table.posts}))
        out.line(
            f"No posts match. Overview of {where} instead: **{total:,}** posts from"
            f" {sources}; the most liked:"
        )
        _examples(out, table, list(range(total)))
        return figures
    if query.measure == "list":
        shown = _listed(result.rows, table)
        out.line(
            f"**{n:,}** {'post matches' if n == 1 else 'posts match'}; the {len(shown)} most liked:"
        )
        figures["listed"] = [list(key_of(table.posts[i])) for i in shown]
        for i in shown:
            post = table.posts[i]
            out.line(f"- {cite(post)} ({post['source']}): {quote(post_text(post))}")
        return figures
    if query.measure == "rank":
        metric = query.metric or "views"
        figures["ranking"] = [list(key_of(table.posts[i])) for i in result.cited]
        if not result.cited:
            out.line(f"No posts match ({total:,} posts in {where}).")
        for place, i in enumerate(result.cited, start=1):
            value = _number(table.rows[i][METRICS[metric].name], metric)
            post = table.posts[i]
            on = f"on {post['source']}" + (
                ", views estimated" if views_note and post.get("are_views_estimated") else ""
            )
            out.line(
                f"{place}. {quote(best_sentence(post))} by {quote(author_of(post))[1:-1]}:"
                f" **{value}** {metric.replace('_', ' ')} ({on}) {cite(post)}"
            )
        if views_note and result.cited:
            out.line(views_note)
        return figures
    if query.measure == "count" and query.unit == "comments":
        _comment_count(out, result, table, query, counted, figures)
    elif query.measure == "count":
        share = f"{100 * n / total:.1f}%" if total else "0.0%"
        out.line(
            f"**{n:,}** {'post matches' if n == 1 else 'posts match'}"
            f" ({share} of the {total:,} posts in {counted})."
        )
        if any(c.dim in COMMENT_DIMS for c in query.where):  # "posts with a comment ..."
            _uncollected(out, table, select(_post_conds(query.where), table))
    elif query.measure == "share":
        part = len(result.cited)
        figures["numerator"], figures["denominator"] = part, result.base
        if not result.base:
            out.line("No posts match the denominator, so there is no share to give.")
        else:
            out.line(f"**{result.value:.1f}%**: {part:,} of the {result.base:,} posts.")
    elif query.measure == "authors" and query.min_posts > 1:
        out.line(
            f"**{result.value:,}** of the {result.base:,} distinct authors wrote at least"
            f" {query.min_posts} of the {n:,} matching posts each."
        )
    elif query.measure == "authors":
        out.line(f"**{result.value:,}** distinct authors wrote the {n:,} matching posts.")
    elif query.measure == "commenters":
        out.line(
            f"**{result.value:,}** distinct people (by username) wrote the {result.base or 0:,}"
            f" comments collected on the {n:,} matching posts."
        )
        _uncollected(out, table, result.rows)
    elif result.value is None:
        out.line(f"No value to compute: {n:,} posts match and none has this metric.")
    elif query.measure == "ratio" and query.per is not None:
        other, scale = query.per
        value = f"{result.value:,.2f}" if result.value >= 1 else f"{result.value:.4f}"
        out.line(
            f"**{value}** {query.metric} {_per_said(query.per)} over the"
            f" {len(result.cited):,} of the {n:,} matching posts that have both (their total"
            f" {query.metric} divided by their total {other}"
            f"{f', times {scale:,}' if scale != 1 else ''})."
        )
        if views_note:
            out.line(views_note)
    else:
        metric = (query.metric or "").replace("_", " ")
        over = f"{n:,} posts"
        if query.metric in METRICS and METRICS[query.metric].comments:  # each comment a value
            collected = sum(len(table.comments[i]) for i in result.rows)
            over = f"the {collected:,} comments collected on {n:,} posts"
        out.line(
            f"The {query.measure} of {metric} is **{_number(result.value, query.metric)}**"
            f" over {over}."
        )
        if query.measure in ("max", "min") and METRICS[query.metric or "views"].comments:
            _extreme_comments(out, query, table, result)
        if views_note:
            out.line(views_note)
    _examples(out, table, result.cited)
    return figures


def _picked(out: Writer, query: Query, result: Result, said: str) -> None:
    """The group a ranking or a comparison of datasets asks for, named in words: "the
    second: **GB** (41)", "highest: **Home gym** (74.7); lowest: **Yoga mats** (70.5)"."""
    groups = [g for g in result.groups if g[1] is not None]
    if query.nth and len(groups) >= query.nth:
        key, value, _ = groups[query.nth - 1]
        place = {2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(query.nth, f"#{query.nth}")
        side = "fewest" if query.order == "asc" else "most"
        out.line(f"The {place} {side}: **{key}** ({_number(value, query.metric)}).")
    elif query.group == "dataset" and len(groups) >= 2:
        ranked = sorted(groups, key=lambda g: -float(g[1]))
        (high, top, _), (low, bottom, _) = ranked[0], ranked[-1]
        label = _measure_label(query)
        most, least = (
            ("most", "fewest") if label in ("posts", "comments") else ("highest", "lowest")
        )
        # two compared: by how much, absolute and relative, so no one subtracts by hand
        apart = ""
        if len(groups) == 2 and top is not None and bottom is not None:
            gap = float(top) - float(bottom)
            ratio = f", {100 * gap / float(bottom):.1f}% more" if float(bottom) else ""
            apart = f" The difference is **{_number(gap, query.metric)}**{ratio}."
        out.line(
            f"{most.capitalize()} {label}: **{high}** ({_number(top, query.metric)});"
            f" {least}: **{low}** ({_number(bottom, query.metric)}); one figure per {said},"
            f" never pooled.{apart}"
        )


def _partial_periods(out: Writer, query: Query, table: Table, result: Result) -> None:
    """Say when a top / bottom period is the first or last of the posts: the collection
    may start or stop part-way through it, so its figure may cover part of it only."""
    if query.group not in PERIODS or not query.top or not result.rows:
        return
    order = sorted(result.rows, key=lambda i: float(table.posts[i].get("created_at") or 0))
    ends = {"first": _keys(query, table, order[0])[0], "last": _keys(query, table, order[-1])[0]}
    for key, _, _ in result.groups:
        for which, period in ends.items():
            if key == period:
                out.line(
                    f"_Note: {key} is the {which} {query.group} of these posts: the collection"
                    f" may {'start' if which == 'first' else 'stop'} part-way through it, so"
                    " its figure may cover part of it only._"
                )


def _comment_count(
    out: Writer, result: Result, table: Table, query: Query, where: str, figures: dict[str, Any]
) -> None:
    """The figure line of a count of comments: how many, on how many posts, out of the
    comments collected (a post carries a sample of its comments: the rest cannot be read)."""
    others = _post_conds(query.where)
    posts = select(others, table)
    collected = sum(len(table.comments[i]) for i in posts)
    value, holding = result.value, len(result.cited)
    figures.update(unit="comments", posts=holding, collected=collected)
    share = f"{100 * value / collected:.1f}%" if collected else "0.0%"
    which = f" where {_conds_text(others, table.newest())}" if others else ""
    out.line(
        f"**{value:,}** {'comment matches' if value == 1 else 'comments match'}, on "
        f"{holding:,} {'post' if holding == 1 else 'posts'} ({share} of the {collected:,} "
        f"comments collected with the {len(posts):,} posts{which} in {where})."
    )
    _uncollected(out, table, posts)


def _uncollected(out: Writer, table: Table, posts: Sequence[int]) -> None:
    """Say that a count of comments reads only the comments collected with ``posts``,
    when their comment counts say there are more."""
    collected = sum(len(table.comments[i]) for i in posts)
    total = sum(int(table.rows[i].get("comments") or 0) for i in posts)
    if total > collected:
        out.line(
            f"Only collected comments can be read: these posts count {total:,} comments in "
            f"all, so comments like these among the other {total - collected:,} are not counted."
        )


def _per_said(per: tuple[str, int]) -> str:
    """ "per 1,000 views", "per like"."""
    other, scale = per
    return f"per {scale:,} {other}" if scale != 1 else f"per {other.removesuffix('s')}"


def _measure_label(query: Query) -> str:
    if query.measure == "count" and query.unit == "comments":
        return "comments"
    if query.measure == "count":
        return "posts"
    if query.measure == "share":
        return "share %"
    if query.measure == "commenters":
        return "distinct commenters"
    if query.measure == "authors":
        many = query.min_posts > 1
        return f"authors with {query.min_posts}+ posts" if many else "distinct authors"
    if query.measure == "ratio" and query.per is not None:
        return f"{query.metric} {_per_said(query.per)}"
    return f"{query.measure} {(query.metric or '').replace('_', ' ')}"
