"""More answer sections of the sandbox assistant: counts, post listings, ads, comments,
emotions, languages, countries, engagement statistics, sentiment by group, volume spikes,
brand co-mentions, recommendations and a composed report.

Same contract as :mod:`~rdskit.sandbox.assistant.sections`: a writer gets a ``Writer`` and
a ``Case`` (posts already narrowed by the intent's slots) and writes markdown that cites
posts as ``[label](post:source:id)`` links. The rules behind each figure:

- a count is the number of posts left after the plan's narrowing;
- ads are posts whose ``content_type`` is ``ad``; advertisers come from ``ad_meta``;
- comments are the ``comments[]`` bodies of the posts, each quoted with the post it answers;
  a comment's sentiment is the enrichment scorer's verdict on its body;
- a post's emotion is the largest share of its ``emotions`` (ties resolve in the
  enrichment's key order); posts without emotion analysis are left out and counted;
- languages and countries are the posts' ``language`` and ``country_code`` fields;
- engagement rate is the post's ``engagement_rate``; mean and median are printed as
  percentages with two decimals;
- a spike is a period with at least twice the median posts per period (and 3 posts).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from rdskit.sandbox.assistant.posts import (
    SENTIMENTS,
    Mention,
    author_of,
    best_sentence,
    cite,
    engagement_rate,
    estimated_views_note,
    has_theme,
    key,
    period_of,
    periods_between,
    questions_of,
    quote,
    ranked,
    sentence_label,
    share,
)
from rdskit.sandbox.assistant.sections import (
    Case,
    Writer,
    _example,
    _groups,
    _listing,
    _unit,
    posts_phrase,
)
from rdskit.sandbox.synth import enrichment

__all__ = ["WRITERS", "is_ad", "spikes"]

_LISTED = 5
_SPIKE_FACTOR = 2.0
_SPIKE_FLOOR = 3


def is_ad(post: Mention) -> bool:
    """Whether the post is an ad (``content_type`` ``ad``)."""
    return post.get("content_type") == "ad"


def unknown_type_note(posts: Sequence[Mention]) -> str:
    """What the read-as line says when posts have no ``content_type``: they are not known
    ads, so "organic" / "ads left out" keeps them, and the answer says so.

    >>> unknown_type_note([{"content_type": None}, {"content_type": "organic"}])
    '; 1 post has no content type (unknown), counted as not an ad'
    >>> unknown_type_note([{"content_type": "organic"}])
    ''
    """
    unknown = sum(1 for post in posts if not post.get("content_type"))
    if not unknown:
        return ""
    has = "post has" if unknown == 1 else "posts have"
    return f"; {unknown:,} {has} no content type (unknown), counted as not an ad"


def _order(counter: Counter[str]) -> list[tuple[str, int]]:
    """Most common first, name breaking ties (deterministic)."""
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))


# --- counts and listings ----------


def _write_count(out: Writer, case: Case) -> None:
    count, total = len(case.posts), len(case.universe)
    out.figures = {"count": count, "of": total}
    verb = "matches" if count == 1 else "match"
    out.line(
        f"{posts_phrase(count, bold=True)} {verb} ({share(count, total)} of the "
        f"{posts_phrase(total)} in scope)."
    )
    by_source = Counter(post["source"] for post in case.posts)
    if len(by_source) > 1:
        out.line(f"By source: {_listing(_order(by_source))}.")
    examples = ranked(case.posts)[:3]
    if examples:
        out.line()
        out.line("The most engaging of them:")
        out.lines.extend(f"- {_example(post)}" for post in examples)


def _write_posts(out: Writer, case: Case) -> None:
    by = case.slots.metric or "engagement"
    chosen = ranked(case.posts, by)[: case.limit()]
    order = "most engaging" if by == "engagement" else f"highest {by.replace('_', ' ')}"
    if case.slots.order == "newest":
        chosen = sorted(case.posts, key=lambda p: (-float(p.get("created_at") or 0), *key(p)))
        chosen, order = chosen[: case.limit()], "most recent"
    out.figures = {"count": len(case.posts), "listed": [key(post) for post in chosen]}
    out.line(f"{posts_phrase(len(case.posts), bold=True)} match; the {len(chosen)} {order}:")
    out.line()
    for rank, post in enumerate(chosen, start=1):
        label = case.label(post)
        out.line(
            f"{rank}. {_example(post, _first(case.slots.terms))} ({post['source']}, {label}, "
            f"{period_of(float(post.get('created_at') or 0), 'day')})"
        )


def _first(terms: Sequence[str]) -> str | None:
    return terms[0] if terms else None


# --- ads ----------


def _write_ads(out: Writer, case: Case) -> None:
    ads = [post for post in case.posts if is_ad(post)]
    total = len(case.posts)
    out.figures = {"ads": len(ads), "of": total}
    if not ads:
        out.line(f"None of the {posts_phrase(total)} is an ad (`content_type` ad).")
        return
    advertisers: dict[str, list[Mention]] = defaultdict(list)
    for post in ads:
        name = str((post.get("ad_meta") or {}).get("advertiser_name") or author_of(post))
        advertisers[name].append(post)
    order = sorted(advertisers.items(), key=lambda item: (-len(item[1]), item[0]))
    out.figures["advertisers"] = {name: len(posts) for name, posts in order}
    out.line(
        f"{posts_phrase(len(ads), bold=True, noun='ad')} among the {posts_phrase(total)} "
        f"({share(len(ads), total)}), run by "
        f"{posts_phrase(len(advertisers), bold=True, noun='advertiser')}: "
        f"{_listing([(name, len(posts)) for name, posts in order[:_LISTED]], noun='ad')}."
    )
    out.line()
    rows = []
    for name, posts in order:
        metas = [post.get("ad_meta") or {} for post in posts]
        platforms = sorted({p for meta in metas for p in meta.get("publisher_platforms") or ()})
        ctas = Counter(str(meta.get("cta_text")) for meta in metas if meta.get("cta_text"))
        active = sum(1 for meta in metas if meta.get("is_active"))
        verified = any(meta.get("advertiser_verified") for meta in metas)
        rows.append(
            [
                name,
                len(posts),
                active,
                ", ".join(platforms) or "-",
                _order(ctas)[0][0] if ctas else "-",
                "yes" if verified else "no",
            ]
        )
        out.line(
            f"- **{name}**: {posts_phrase(len(posts), bold=True, noun='ad')} ({active:,} active)"
            f" on {', '.join(platforms) or 'unknown platforms'}; e.g. "
            f"{_example(ranked(posts)[0])}"
        )
    out.line()
    out.add_table(
        "Advertisers", ["advertiser", "ads", "active", "platforms", "top CTA", "verified"], rows
    )


# --- comments ----------


def _write_comments(out: Writer, case: Case) -> None:
    pairs = [
        (post, comment)
        for post in case.posts
        for comment in post.get("comments") or ()
        if str(comment.get("body") or "").strip()
    ]
    commented = {key(post) for post, _ in pairs}
    out.figures = {"comments": len(pairs), "posts": len(commented)}
    if not pairs:
        out.line(
            f"None of the {posts_phrase(len(case.posts))} carries comment bodies. Collect "
            "with `num_comments_per_post` above 0 to read what commenters say."
        )
        return
    labels = Counter(sentence_label(str(comment["body"])) for _, comment in pairs)
    out.figures["sentiment"] = dict(labels)
    out.line(
        f"{posts_phrase(len(pairs), bold=True, noun='comment')} on "
        f"{posts_phrase(len(commented), bold=True)}: "
        + ", ".join(f"**{labels[s]:,}** {s} ({share(labels[s], len(pairs))})" for s in SENTIMENTS)
        + "."
    )
    about = [
        (name, sum(1 for _, c in pairs if has_theme(str(c["body"]), name))) for name in case.aspects
    ]
    about = sorted((item for item in about if item[1]), key=lambda item: (-item[1], item[0]))
    if about:
        out.line(f"Commenters talk most about {_listing(about[:3], noun='comment')}.")
    out.line()
    by_body: dict[str, list[tuple[Mention, Any]]] = defaultdict(list)
    for post, comment in pairs:
        by_body[" ".join(str(comment["body"]).split())].append((post, comment))
    common = sorted(by_body.items(), key=lambda item: (-len(item[1]), item[0]))[: case.limit()]
    out.line("Most common comments:")
    out.line()
    rows = []
    for body, found in common:
        post = ranked([p for p, _ in found])[0]
        rows.append([body, len(found), sentence_label(body)])
        out.line(
            f"- {quote(body)}: {posts_phrase(len(found), bold=True, noun='comment')}, e.g. "
            f"under {quote(_headline(post), 80)} {cite(post)}"
        )
    liked = sorted(
        pairs,
        key=lambda pair: (
            -int(pair[1].get("num_likes") or 0),
            *key(pair[0]),
            str(pair[1].get("id")),
        ),
    )[:3]
    out.line()
    out.line("Most liked comments:")
    for post, comment in liked:
        out.line(
            f"- {quote(str(comment['body']))} by {comment.get('author_name') or 'a commenter'} "
            f"({int(comment.get('num_likes') or 0):,} likes), answering {cite(post)}"
        )
    out.line()
    out.add_table("Common comments", ["comment", "count", "sentiment"], rows)


def _headline(post: Mention) -> str:
    return best_sentence(post)


# --- emotions, languages, countries ----------


def dominant_emotion(post: Mention) -> str | None:
    """The post's strongest emotion (``None`` without emotion analysis)."""
    emotions = post.get("emotions")
    return enrichment.dominant(emotions) if emotions else None


def _write_emotions(out: Writer, case: Case) -> None:
    analysed = [post for post in case.posts if post.get("emotions")]
    out.figures = {"analysed": len(analysed)}
    if not analysed:
        out.line(
            "Emotion analysis has not run on these posts. Start a dataset run with "
            '`content_analysis_actions` including `"sentiment"` and ask again.'
        )
        return
    groups = _groups(analysed, lambda post: dominant_emotion(post) or "neutral")
    order = sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))
    total = len(analysed)
    out.figures["emotions"] = {name: len(posts) for name, posts in order}
    feeling = [(name, posts) for name, posts in order if name != "neutral"]
    out.line(
        f"Strongest emotion of the {posts_phrase(total, bold=True)} with emotion analysis: "
        f"{_listing([(name, len(posts)) for name, posts in order[:4]])}."
    )
    if feeling:
        name, posts = feeling[0]
        out.line(f"Beyond neutral, **{name}** leads ({share(len(posts), total)} of posts).")
    out.line()
    rows = [[name, len(posts), share(len(posts), total)] for name, posts in order]
    out.add_table("Emotions", ["emotion", "posts", "share"], rows)
    out.line("Examples:")
    for name, posts in feeling[:3]:
        out.line(f"- {name}: {_example(ranked(posts)[0])}")


def _write_field_split(out: Writer, case: Case, field: str, title: str, noun: str) -> None:
    counts = Counter(str(post.get(field) or "unknown") for post in case.posts)
    order = _order(counts)
    total = len(case.posts)
    out.figures = {noun: dict(order)}
    out.line(
        f"The {posts_phrase(total, bold=True)} come from **{len(order)}** {noun}"
        f"{'' if len(order) == 1 else 's'}: {_listing(order[:6])}."
    )
    out.line()
    rows = [[name, count, share(count, total)] for name, count in order]
    out.add_table(title, [noun, "posts", "share"], rows)
    groups = _groups(case.posts, lambda post: str(post.get(field) or "unknown"))
    out.line("Examples:")
    for name, _count in order[:4]:
        out.line(f"- {name}: {_example(ranked(groups[name])[0])}")


def _write_languages(out: Writer, case: Case) -> None:
    _write_field_split(out, case, "language", "Posts by language", "language")


def _write_countries(out: Writer, case: Case) -> None:
    _write_field_split(out, case, "country_code", "Posts by country", "country")


# --- engagement statistics ----------


def _rate_stats(posts: Sequence[Mention]) -> tuple[float, float]:
    rates = [engagement_rate(post) for post in posts]
    return statistics.fmean(rates), statistics.median(rates)


def _percent(value: float) -> str:
    return f"{100 * value:.2f}%"


def _write_engagement(out: Writer, case: Case) -> None:
    mean, median = _rate_stats(case.posts)
    total = len(case.posts)
    likes = sum(int(post.get("num_likes") or 0) for post in case.posts)
    out.figures = {"mean": mean, "median": median, "posts": total}
    out.line(
        f"Engagement rate over {posts_phrase(total, bold=True)}: mean **{_percent(mean)}**, "
        f"median **{_percent(median)}** (the posts' `engagement_rate`); "
        f"{likes / total:,.1f} likes per post on average."
    )
    groups = _groups(case.posts, lambda post: post["source"])
    stats = {name: _rate_stats(posts) for name, posts in groups.items()}
    out.figures["by_source"] = stats
    if len(groups) > 1:
        best = max(stats, key=lambda name: (stats[name][1], name))
        out.line(
            f"By source, **{best}** has the highest median engagement rate "
            f"({_percent(stats[best][1])})."
        )
    out.line()
    rows = [
        [name, len(groups[name]), _percent(mean), _percent(median)]
        for name, (mean, median) in stats.items()
    ]
    out.add_table("Engagement rate by source", ["source", "posts", "mean", "median"], rows)
    if note := estimated_views_note(case.posts):
        out.line(note)
    top = ranked(case.posts, "engagement_rate")[:3]
    out.line("Highest engagement rate:")
    out.lines.extend(f"- {_percent(engagement_rate(post))}: {_example(post)}" for post in top)


# --- sentiment by group, spikes, co-mentions ----------


def write_sentiment_groups(out: Writer, case: Case) -> None:
    """A sentiment table by source, language, country or time period (the intent's
    ``group_by``); nothing when the intent does not group."""
    group_by = case.slots.group_by
    if group_by is None or group_by == "dataset":
        return
    if group_by in ("source", "language", "country"):
        field = {"country": "country_code"}.get(group_by, group_by)
        name = group_by

        def grouping(post: Mention) -> str:
            return str(post.get(field) or "unknown")

        order = None
    else:
        name = _unit(case)

        def grouping(post: Mention) -> str:
            return period_of(float(post.get("created_at") or 0), name)

        dates = [float(post.get("created_at") or 0) for post in case.posts]
        order = periods_between(min(dates), max(dates), name)
    groups = _groups(case.posts, grouping)
    names = order or list(groups)
    rows: list[list[Any]] = []
    for group in names:
        stats = case.stats(groups.get(group, []))
        rows.append(
            [
                group,
                stats.posts,
                stats.positive,
                stats.neutral,
                stats.negative,
                stats.share("positive"),
                stats.share("negative"),
            ]
        )
    out.figures["by"] = {row[0]: row[1:5] for row in rows}
    filled = [row for row in rows if row[1]]
    if filled and group_by != "source":  # the split already names the sources' leaders
        best = max(filled, key=lambda row: (row[2] / row[1], row[0]))
        worst = max(filled, key=lambda row: (row[4] / row[1], row[0]))
        out.line(
            f"By {name}: **{best[0]}** is the most positive ({best[5]} positive) and "
            f"**{worst[0]}** the most negative ({worst[6]} negative)."
        )
        out.line()
    columns = [name, "posts", "positive", "neutral", "negative", "positive %", "negative %"]
    out.add_table(f"Sentiment by {name}", columns, rows)


def spikes(counts: dict[str, int]) -> list[str]:
    """Periods with at least twice the median count per period (and at least 3 posts).

    Example:
        >>> spikes({"d1": 2, "d2": 2, "d3": 9, "d4": 3})
        ['d3']
    """
    if len(counts) < 3:
        return []
    median = statistics.median(counts.values())
    floor = max(_SPIKE_FLOOR, _SPIKE_FACTOR * median)
    return [period for period, count in counts.items() if count >= floor]


def write_spikes(out: Writer, case: Case) -> None:
    """The trend's spikes: periods well above the usual volume, with their top post."""
    periods = out.figures.get("periods") or {}
    unit = out.figures.get("unit", "day")
    found = spikes({name: stats.posts for name, stats in periods.items()})
    out.figures["spikes"] = found
    if not found:
        out.line(f"No {unit} stands out as a spike (none has twice the median volume).")
        return
    buckets = _groups(case.posts, lambda p: period_of(float(p.get("created_at") or 0), unit))
    out.line(f"Spikes ({unit}s with at least twice the median volume):")
    for period in found[:_LISTED]:
        top = ranked(buckets[period])[0]
        out.line(
            f"- {period}: {posts_phrase(periods[period].posts, bold=True)}; top post "
            f"{_example(top)}"
        )


def write_co_mentions(out: Writer, case: Case) -> None:
    """Brands named in the same posts as the brands the question names."""
    named = case.slots.brands
    if not named:
        return
    others = [b for b in case.brands if b.lower() not in {n.lower() for n in named}]
    found = case.themes(case.posts, others, floor=1)[:_LISTED]
    who = " and ".join(named)
    out.figures["co_mentions"] = {name: len(members) for name, members in found}
    if not found:
        out.line(f"No other brand is named in the posts that mention {who}.")
        return
    out.line(
        f"Named alongside {who} in its {posts_phrase(len(case.posts))}: "
        f"{_listing([(name, len(members)) for name, members in found])}."
    )
    for name, members in found[:3]:
        out.line(f"- {name}: {_example(ranked(members)[0], name)}")
    out.line()


# --- recommendations ----------


def _write_recommendations(out: Writer, case: Case) -> None:
    """Suggestions grounded in the data, each citing the posts behind it."""
    posts = case.posts
    tips: list[str] = []
    moods = (
        ("negative", "Fix {} first", "the most common complaint"),
        ("positive", "Lead with {}", "what people praise most"),
    )
    for mood, action, why in moods:
        voiced = case.with_label(posts, mood)
        leading = case.themes(voiced, case.aspects)[:1]
        if leading:
            name, members = leading[0]
            cited = " ".join(cite(p) for p in ranked(members)[:2])
            tips.append(
                f"**{action.format(name)}**: it is {why} "
                f"({posts_phrase(len(members))} of {len(voiced):,} {mood}). {cited}"
            )
    by_source = _groups(posts, lambda post: post["source"])
    if len(by_source) > 1:
        best = max(by_source, key=lambda s: (_rate_stats(by_source[s])[1], s))
        top = ranked(by_source[best], "engagement_rate")[0]
        tips.append(
            f"**Prioritise {best}**: it has the highest median engagement rate "
            f"({_percent(_rate_stats(by_source[best])[1])}); its best post: {cite(top)}"
        )
    asked: Counter[str] = Counter()
    asker: dict[str, Mention] = {}
    for post in ranked(posts):
        for text in questions_of(post):
            asked[text] += 1
            asker.setdefault(text, post)
    if asked:
        question, count = _order(asked)[0]
        tips.append(
            f"**Answer the most asked question** ({posts_phrase(count)}): {quote(question)} "
            f"{cite(asker[question])}"
        )
    if not tips:
        tips.append(f"**Engage the most visible post**: {_example(ranked(posts)[0])}")
    out.figures = {"recommendations": len(tips)}
    out.line(f"Based on {posts_phrase(len(posts), bold=True)}:")
    out.line()
    out.lines.extend(f"{n}. {tip}" for n, tip in enumerate(tips, start=1))


WRITERS: dict[str, Callable[[Writer, Case], None]] = {
    "count": _write_count,
    "posts": _write_posts,
    "ads": _write_ads,
    "comments": _write_comments,
    "emotions": _write_emotions,
    "languages": _write_languages,
    "countries": _write_countries,
    "engagement": _write_engagement,
    "recommendations": _write_recommendations,
}
"""Section writer per intent added by this module."""
