"""The sandbox assistant's answer sections: one writer per intent, over already-narrowed posts.

Each writer gets a :class:`Writer` (markdown lines, one table, the figures it quotes) and a
:class:`Case` (the question, the posts it is about, the themes worth reporting) and writes
the body of the reply. Figures follow the rules of :mod:`rdskit.sandbox.assistant.posts`;
shares are percentages of the posts named in the same sentence, with one decimal.
Posts are cited with ``[label](post:source:id)`` links; ``Writer.finish`` rewrites them to
``[N]`` markers by the spec's rule.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from rdskit.references import rewrite_post_links
from rdskit.sandbox.assistant.intents import Intent, Slots
from rdskit.sandbox.assistant.posts import (
    SENTIMENTS,
    VIEW_BASED,
    Mention,
    author_of,
    best_sentence,
    cite,
    engagement,
    estimated_views_note,
    has_theme,
    key,
    metric,
    period_of,
    periods_between,
    post_text,
    questions_of,
    quote,
    ranked,
    sentence_label,
    sentiment_label,
    share,
)

__all__ = ["TITLES", "WRITERS", "Case", "Related", "Scope", "Stats", "Writer", "posts_phrase"]

TITLES = {
    "complaints": "Complaints",
    "praise": "Praise",
    "topics": "What people say",
    "sentiment": "Sentiment split",
    "top": "Top posts",
    "compare": "Comparison",
    "trend": "Changes over time",
    "authors": "Top authors",
    "questions": "Questions people ask",
    "hooks": "Hooks",
    "ctas": "Calls to action",
    "brands": "Brands",
    "overview": "Overview",
    "help": "Getting started",
    "patterns": "Patterns",
    "audience": "Audience",
    "parameters": "Custom parameters",
    "previews": "Research previews",
    "posts": "Posts",
    "count": "Count",
    "ads": "Ads and advertisers",
    "comments": "What commenters say",
    "emotions": "Emotions",
    "languages": "Languages",
    "countries": "Countries",
    "engagement": "Engagement",
    "recommendations": "Recommendations",
    "report": "Report",
}
"""A short title per intent (chat names, tables)."""

_THEMES_LISTED = 5
_EXAMPLES = 2
_STEADY_PERIOD = 5  # posts a period needs before its sentiment share is compared
_DEFAULT_LIMIT = 5
_METRIC_NAMES = {
    "engagement": "engagement",
    "views": "views",
    "likes": "likes",
    "comments": "comments",
    "shares": "shares",
    "engagement_rate": "engagement rate",
}


@dataclass(frozen=True)
class Scope:
    """A dataset the assistant may read: id, display name and the texts it was searched
    with (their words are what every post shares, so they are never themes)."""

    id: str
    name: str
    searches: tuple[str, ...] = ()


@dataclass(frozen=True)
class Related:
    """Work linked to the datasets in scope: a pattern, an audience dataset, ...

    ``type`` is a spec entity-reference type; ``topic`` is the intent it answers
    (``patterns``, ``audience``, ``parameters``, ``previews``); ``details`` are markdown
    lines shown under it (they may hold post links).
    """

    type: str
    id: str
    label: str
    topic: str
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stats:
    """Counts over a group of posts: volume, sentiment labels, views and engagement."""

    posts: int
    positive: int
    neutral: int
    negative: int
    views: int
    engagement: int

    @classmethod
    def of(
        cls, posts: Sequence[Mention], label: Callable[[Mention], str] = sentiment_label
    ) -> Stats:
        """Stats of ``posts``; ``label`` gives a post's sentiment."""
        labels = Counter(map(label, posts))
        return cls(
            posts=len(posts),
            positive=labels["positive"],
            neutral=labels["neutral"],
            negative=labels["negative"],
            views=sum(int(post.get("num_views") or 0) for post in posts),
            engagement=sum(map(engagement, posts)),
        )

    @property
    def average_engagement(self) -> float:
        """Mean engagement per post (0 for no posts)."""
        return self.engagement / self.posts if self.posts else 0.0

    def share(self, label: str) -> str:
        """``label``'s share of the posts, e.g. ``"37.5%"``."""
        return share(getattr(self, label), self.posts)


@dataclass
class Case:
    """What a section writer needs: the question and the posts it is about.

    ``aspects`` and ``brands`` are the themes worth reporting (the question's own terms and
    the datasets' search words left out). ``related`` is work linked to the datasets.
    """

    intent: Intent
    posts: list[Mention]
    datasets: list[Scope]
    aspects: tuple[str, ...] = ()
    brands: tuple[str, ...] = ()
    related: Sequence[Related] = ()
    universe: Sequence[Mention] = ()
    _labels: dict[tuple[str, str], str] = field(default_factory=dict)
    _texts: dict[tuple[str, str], str] = field(default_factory=dict)
    _covers: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    _pool: list[tuple[tuple[str, str], str, str]] = field(default_factory=list)

    def _pool_texts(self, pool: Sequence[Mention]) -> list[tuple[tuple[str, str], str, str]]:
        """(key, text, lowered text) of the pool's posts, built once (shared per reply)."""
        if len(self._pool) != len(pool):
            self._pool[:] = [(key(p), self.text(p), self.text(p).lower()) for p in pool]
        return self._pool

    def covered(self, theme: str) -> set[tuple[str, str]]:
        """The (source, id) of the posts naming ``theme``, found once per reply: the memo
        (shared by the sections of one reply) covers ``universe``, else ``posts``."""
        found = self._covers.get(theme)
        if found is None:
            pool = self.universe or self.posts
            texts = self._pool_texts(pool)
            found = self._covers[theme] = {
                ident for ident, text, lowered in texts if has_theme(text, theme, lowered)
            }
        return found

    def label(self, post: Mention) -> str:
        """The post's sentiment, scored once per post."""
        found = self._labels.get(key(post))
        if found is None:
            found = self._labels[key(post)] = sentiment_label(post)
        return found

    def text(self, post: Mention) -> str:
        """The post's title and text, joined once per post."""
        found = self._texts.get(key(post))
        if found is None:
            found = self._texts[key(post)] = post_text(post)
        return found

    def stats(self, posts: Sequence[Mention]) -> Stats:
        return Stats.of(posts, self.label)

    def with_label(self, posts: Iterable[Mention], label: str) -> list[Mention]:
        return [post for post in posts if self.label(post) == label]

    def limit(self, default: int = _DEFAULT_LIMIT) -> int:
        return self.slots.limit or default

    @property
    def slots(self) -> Slots:
        """The slots of the intent being answered."""
        return self.intent.slots

    def themes(
        self, posts: Sequence[Mention], names: Iterable[str], floor: int = 2
    ) -> list[tuple[str, list[Mention]]]:
        """Themes among ``names`` covered by ``posts``, most posts first (name breaks ties).

        A theme needs ``floor`` posts (one when there are fewer than four posts). A theme
        whose posts are exactly those of a longer theme containing it ("service" inside
        "customer service") is left out.
        """
        floor = floor if len(posts) >= 4 else 1
        keys = [(post, key(post)) for post in posts]
        found = {}
        for name in names:
            covered = self.covered(name)
            found[name] = [post for post, ident in keys if ident in covered]
        kept = {name: members for name, members in found.items() if len(members) >= floor}
        for name in list(kept):
            if any(
                name != other and name.lower() in other.lower() and kept[name] == kept[other]
                for other in kept
            ):
                del kept[name]
        return sorted(kept.items(), key=lambda item: (-len(item[1]), item[0]))

    def estimated_note(self) -> str | None:
        """A note when some sentiments were estimated from text (no sentiment analysis)."""
        estimated = sum(1 for post in self.posts if not post.get("sentiment"))
        if not estimated:
            return None
        return (
            f"_Sentiment analysis did not run on {posts_phrase(estimated)}; their sentiment "
            f"is scored from the text with the same lexicon._"
        )


class Writer:
    """Accumulates markdown lines, one render table and the figures the text quotes."""

    def __init__(self, intent: str) -> None:
        self.intent = intent
        self.lines: list[str] = []
        self.tables: list[dict[str, Any]] = []
        self.figures: dict[str, Any] = {}

    def line(self, text: str = "") -> None:
        self.lines.append(text)

    def add_table(self, title: str, columns: list[str], rows: list[list[Any]]) -> None:
        """Write a markdown table and keep it as the reply's ``render: true`` block."""
        self.tables.append({"title": title, "columns": columns, "rows": rows})
        self.line(f"**{title}**")
        self.line()
        self.line("| " + " | ".join(columns) + " |")
        self.line("|" + "---|" * len(columns))
        for row in rows:
            self.line("| " + " | ".join(_cell(value) for value in row) + " |")
        self.line()

    def finish(self) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
        """The rewritten text, its post references and the render blocks."""
        text, references = rewrite_post_links("\n".join(self.lines).strip() + "\n")
        blocks: list[dict[str, Any]] = [{"block_id": "b1", "type": "markdown", "render": False}]
        for number, table in enumerate(self.tables, start=2):
            blocks.append({"block_id": f"b{number}", "type": "table", "render": True, **table})
        return text, references, blocks


def posts_phrase(count: int, *, bold: bool = False, noun: str = "post") -> str:
    """``"1 post"`` / ``"1,234 posts"``, the number in bold when ``bold``."""
    number = f"**{count:,}**" if bold else f"{count:,}"
    return f"{number} {noun}" if count == 1 else f"{number} {noun}s"


def _is(count: int) -> str:
    """The verb agreeing with ``count`` posts."""
    return "is" if count == 1 else "are"


def _cell(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value).replace("|", "\\|")


def _example(post: Mention, theme: str | None = None, mood: str | None = None) -> str:
    """A quoted sentence of the post (the one showing ``theme`` in ``mood``) and its link."""
    return f"{quote(best_sentence(post, theme, mood))} {cite(post)}"


def _examples(
    posts: Sequence[Mention], theme: str | None, mood: str, count: int, *, strict: bool = False
) -> list[str]:
    """Up to ``count`` quoted examples, most engaging first: posts whose quoted sentence
    itself reads as ``mood`` (a praising post may quote a plain question); the others only
    when none does and ``strict`` is off."""
    fitting: list[str] = []
    others: list[str] = []
    for post in ranked(posts):
        sentence = best_sentence(post, theme, mood)
        (fitting if sentence_label(sentence) == mood else others).append(
            f"{quote(sentence)} {cite(post)}"
        )
        if len(fitting) == count:
            break
    return fitting or ([] if strict else others[:count])


def _listing(items: Sequence[tuple[str, int]], noun: str = "post") -> str:
    """``**a** (3 posts), **b** (2 posts) and **c** (1 post)``."""
    parts = [f"**{name}** ({posts_phrase(count, noun=noun)})" for name, count in items]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"


# --- what people say, complain about, praise ------------------------------------------------


def _write_themes(out: Writer, case: Case) -> None:
    total = len(case.posts)
    themes = case.themes(case.posts, case.aspects)[:_THEMES_LISTED]
    out.figures = {"total": total, "themes": {name: len(members) for name, members in themes}}
    if not themes:
        out.line(
            f"No product aspect comes up more than once in these {posts_phrase(total)}. "
            "The most engaging ones:"
        )
        out.lines.extend(f"- {_example(post)}" for post in ranked(case.posts)[:3])
        _brand_line(out, case, case.posts, "Brands named in them")
        return
    out.line(f"People talk most about {_listing([(n, len(m)) for n, m in themes[:3]])}.")
    out.line()
    rows = []
    for name, members in themes:
        stats = case.stats(members)
        rows.append([name, stats.posts, share(stats.posts, total), stats.positive, stats.negative])
        out.line(
            f"- **{name}**: {posts_phrase(stats.posts, bold=True)} ({share(stats.posts, total)}),"
            f" {stats.positive:,} positive and {stats.negative:,} negative"
        )
        for mood in ("positive", "negative"):
            examples = _examples(case.with_label(members, mood), name, mood, 1, strict=True)
            out.lines.extend(f"  - {mood}: {example}" for example in examples)
    out.line()
    _brand_line(out, case, case.posts, "Brands named alongside")
    out.add_table("Themes", ["theme", "posts", "share", "positive", "negative"], rows)
    note = case.estimated_note()
    if note:
        out.line(note)


def _write_complaints(out: Writer, case: Case) -> None:
    _write_mood_themes(out, case, "negative")


def _write_praise(out: Writer, case: Case) -> None:
    _write_mood_themes(out, case, "positive")


def _write_mood_themes(out: Writer, case: Case, mood: str) -> None:
    """Complaints (negative posts) or praise (positive posts), grouped by theme."""
    noun = "complaint" if mood == "negative" else "praising post"
    total = len(case.posts)
    chosen = ranked(case.with_label(case.posts, mood))
    out.figures = {"total": total, mood: len(chosen)}
    if not chosen:
        stats = case.stats(case.posts)
        out.line(
            f"**0** of the {posts_phrase(total)} (0.0%) reads as {mood}, so there is no {noun} "
            f"to report. Sentiment: {stats.positive:,} positive, {stats.neutral:,} neutral and "
            f"{stats.negative:,} negative. The most engaging of these posts:"
        )
        out.lines.extend(f"- {_example(post)}" for post in ranked(case.posts)[:3])
        return
    kind = "complaints" if mood == "negative" else "praise"
    one = "a complaint" if mood == "negative" else "praise"
    out.line(
        f"**{len(chosen):,}** of the {posts_phrase(total)} ({share(len(chosen), total)}) "
        f"{_is(len(chosen))} {one if len(chosen) == 1 else kind} ({mood} sentiment)."
    )
    out.line()
    themes = case.themes(chosen, case.aspects)[:_THEMES_LISTED]
    out.figures["themes"] = {name: len(members) for name, members in themes}
    if themes:
        out.line("What they complain about:" if mood == "negative" else "What they praise:")
        out.line()
    rows = []
    for name, members in themes:
        covered = case.covered(name)
        about = sum(1 for post in case.posts if key(post) in covered)
        rows.append(
            [
                name,
                len(members),
                share(len(members), len(chosen)),
                about,
                share(len(members), about),
            ]
        )
        out.line(
            f"- **{name}**: {posts_phrase(len(members), bold=True, noun=noun)} "
            f"({share(len(members), len(chosen))} of {kind}); {len(members):,} of the "
            f"{posts_phrase(about)} about {name} {_is(len(members))} {mood}"
        )
        out.lines.extend(f"  - {example}" for example in _examples(members, name, mood, _EXAMPLES))
    if not themes:
        out.line(f"They name no recurring product aspect. The most engaging {kind}:")
        out.lines.extend(f"- {example}" for example in _examples(chosen, None, mood, 3))
    out.line()
    _brand_line(out, case, chosen, f"Brands named in {kind}")
    if themes:
        columns = ["theme", kind, f"share of {kind}", "posts about it", f"{mood} rate"]
        out.add_table(kind.capitalize(), columns, rows)
    out.line(f"The most engaging {noun}: {_example(chosen[0], mood=mood)}")
    note = case.estimated_note()
    if note:
        out.line()
        out.line(note)


def _brand_line(out: Writer, case: Case, posts: Sequence[Mention], lead: str) -> None:
    brands = case.themes(posts, case.brands, floor=1)[:_THEMES_LISTED]
    if brands:
        out.figures["brands"] = {name: len(members) for name, members in brands}
        out.line(f"{lead}: {_listing([(name, len(members)) for name, members in brands])}.")
        out.line()


def _write_brands(out: Writer, case: Case) -> None:
    total = len(case.posts)
    brands = case.themes(case.posts, case.brands, floor=1)[: case.limit(_THEMES_LISTED)]
    out.figures = {"total": total, "brands": {name: len(members) for name, members in brands}}
    if not brands:
        out.line(f"No other brand is named in these {posts_phrase(total)}.")
        return
    out.line(f"Brands named in these {posts_phrase(total, bold=True)}:")
    out.line()
    rows = []
    for name, members in brands:
        stats = case.stats(members)
        rows.append([name, stats.posts, share(stats.posts, total), stats.positive, stats.negative])
        out.line(
            f"- **{name}**: {posts_phrase(stats.posts, bold=True)} ({share(stats.posts, total)}),"
            f" {stats.positive:,} positive and {stats.negative:,} negative;"
            f" e.g. {_example(ranked(members)[0], name)}"
        )
    out.line()
    out.add_table("Brands", ["brand", "posts", "share", "positive", "negative"], rows)


# --- sentiment, top posts, comparison, time -------------------------------------------------


def _write_sentiment(out: Writer, case: Case) -> None:
    stats = case.stats(case.posts)
    out.figures = {label: getattr(stats, label) for label in SENTIMENTS} | {"total": stats.posts}
    split = ", ".join(
        f"**{getattr(stats, label):,}** {label} ({stats.share(label)})" for label in SENTIMENTS
    )
    out.line(f"Sentiment splits {split} out of {posts_phrase(stats.posts, bold=True)}.")
    by_source = _groups(case.posts, lambda post: post["source"])
    if len(by_source) >= 2:
        groups = {name: case.stats(members) for name, members in by_source.items()}
        happiest = _leaders(groups, lambda g: g.positive / g.posts)
        gloomiest = _leaders(groups, lambda g: g.negative / g.posts)
        positive = groups[happiest[0]].share("positive")
        negative = groups[gloomiest[0]].share("negative")
        if happiest == gloomiest:  # few neutral posts make one source lead both ways
            out.line(
                f"By source, {_names(happiest)} has both the highest positive share "
                f"({positive}) and the highest negative share ({negative})."
            )
        else:
            out.line(
                f"By source, {_names(happiest)} is the most positive ({positive} positive) and "
                f"{_names(gloomiest)} the most negative ({negative} negative)."
            )
    out.line()
    rows = [[label, getattr(stats, label), stats.share(label)] for label in SENTIMENTS]
    out.add_table("Sentiment split", ["sentiment", "posts", "share"], rows)
    for label in ("positive", "negative"):
        examples = _examples(case.with_label(case.posts, label), None, label, _EXAMPLES)
        if examples:
            out.line(f"Most engaging {label} posts:")
            out.lines.extend(f"- {example}" for example in examples)
            out.line()
    note = case.estimated_note()
    if note:
        out.line(note)


def _write_top(out: Writer, case: Case) -> None:
    by = case.slots.metric or "engagement"
    name = _METRIC_NAMES[by]
    top = ranked(case.posts, by)[: case.limit()]
    if case.slots.order == "lowest":
        top = sorted(case.posts, key=lambda post: (metric(post, by), *key(post)))[: case.limit()]
    out.figures = {"metric": by, "ranking": [(key(post), metric(post, by)) for post in top]}
    explained = " (likes + comments + shares)" if by == "engagement" else ""
    which = "Lowest" if case.slots.order == "lowest" else "Top"
    out.line(f"{which} {len(top)} posts by {name}{explained}:")
    out.line()
    for rank, post in enumerate(top, start=1):
        counts = ", ".join(
            f"{metric(post, field_):,} {label}"
            for field_, label in _METRIC_NAMES.items()
            if field_ not in ("engagement", "engagement_rate")
        )
        out.line(
            f"{rank}. {quote(best_sentence(post))} by {quote(author_of(post))[1:-1]} on "
            f"{post['source']}: **{_figure(metric(post, by), by)}** {name} ({counts}) {cite(post)}"
        )
    out.line()
    rows = [
        [rank, p["source"], p["id"], _figure(metric(p, by), by)] for rank, p in enumerate(top, 1)
    ]
    out.add_table(f"Top posts by {name}", ["rank", "source", "id", name], rows)
    if by in VIEW_BASED and (note := estimated_views_note(case.posts)):
        out.line(note)


def _groups(posts: Iterable[Mention], group: Callable[[Mention], str]) -> dict[str, list[Mention]]:
    found: dict[str, list[Mention]] = defaultdict(list)
    for post in posts:
        found[group(post)].append(post)
    return dict(sorted(found.items()))


def _write_compare(out: Writer, case: Case) -> None:
    question = case.slots
    lowered = case.intent.clause.lower()
    by_source = len(question.sources) >= 2 or "source" in lowered or "platform" in lowered
    if len(case.datasets) >= 2 and not by_source:
        kind = "dataset"
        groups = {
            item.name: [
                p for p in case.posts if item.id in {d["id"] for d in p.get("datasets") or []}
            ]
            for item in case.datasets
        }
    elif len(question.sources) == 1:
        kind, (named,) = "source", question.sources
        groups = _groups(
            case.posts, lambda p: p["source"] if p["source"] == named else "other sources"
        )
    else:
        kind = "source"
        groups = _groups(case.posts, lambda p: p["source"])
        if len(question.sources) >= 2:
            groups = {name: groups.get(name, []) for name in question.sources}
    groups = {name: members for name, members in groups.items() if members}
    if len(groups) < 2:
        only = next(iter(groups), "none")
        out.line(f"These posts all come from one {kind} ({only}), so there is nothing to compare.")
        return
    stats = {name: case.stats(members) for name, members in groups.items()}
    total = sum(group.posts for group in stats.values())
    out.figures = {"by": kind, "groups": stats}
    out.line(f"Comparison by {kind} over {posts_phrase(total, bold=True)}:")
    out.line()
    rows = []
    for name, group in stats.items():
        themes = case.themes(groups[name], case.aspects)
        theme = f"; most discussed: {themes[0][0]}" if themes else ""
        out.line(
            f"- **{name}**: {posts_phrase(group.posts, bold=True)} ({share(group.posts, total)}),"
            f" average engagement **{group.average_engagement:,.1f}**, **{group.views:,}** views,"
            f" {group.share('positive')} positive, {group.share('negative')} negative{theme}"
        )
        average = f"{group.average_engagement:,.1f}"
        rows.append(
            [
                name,
                group.posts,
                share(group.posts, total),
                average,
                group.views,
                group.share("positive"),
                group.share("negative"),
            ]
        )
    out.line()

    busiest = _leaders(stats, lambda g: g.posts)
    engaging = _leaders(stats, lambda g: g.average_engagement)
    positive = _leaders(stats, lambda g: g.positive / g.posts)
    negative = _leaders(stats, lambda g: g.negative / g.posts)
    out.line(
        f"Most posts: {_names(busiest)}; highest average engagement: {_names(engaging)}; "
        f"highest positive share: {_names(positive)} "
        f"({stats[positive[0]].share('positive')}); highest negative share: "
        f"{_names(negative)} ({stats[negative[0]].share('negative')})."
    )
    out.line()
    columns = [kind, "posts", "share", "avg engagement", "views", "positive", "negative"]
    out.add_table(f"By {kind}", columns, rows)
    if note := estimated_views_note(case.posts):  # the views column compares the groups
        out.line(note)
    out.line("Most engaging post of each:")
    for name in stats:
        out.line(f"- {name}: {_example(ranked(groups[name])[0])}")


def _leaders(groups: dict[str, Stats], score: Callable[[Stats], float]) -> list[str]:
    """The groups with the top score (several on a tie), in name order."""
    best = max(score(group) for group in groups.values())
    return [name for name, group in groups.items() if score(group) == best]


def _names(names: Sequence[str]) -> str:
    """``**a**``, ``**a** and **b**`` (a tie), ..."""
    bold = [f"**{name}**" for name in names]
    return bold[0] if len(bold) == 1 else ", ".join(bold[:-1]) + f" and {bold[-1]} (tied)"


def _figure(value: float, by: str) -> str:
    """A metric value as printed: counts with thousands separators, a rate as a percentage."""
    return f"{100 * value:.2f}%" if by == "engagement_rate" else f"{int(value):,}"


def _unit(case: Case) -> str:
    """The time unit asked for, else one chosen from the span of the data."""
    asked = case.slots.group_by
    return asked if asked in ("day", "week", "month") else _auto_unit(case.posts)


def _auto_unit(posts: Sequence[Mention]) -> str:
    """Months over four months of data, weeks over three weeks, else days."""
    dates = [float(post.get("created_at") or 0) for post in posts]
    span = (max(dates) - min(dates)) / 86_400
    return "month" if span > 120 else "week" if span > 21 else "day"


def _write_trend(out: Writer, case: Case) -> None:
    unit = _unit(case)
    buckets = _groups(case.posts, lambda post: period_of(float(post.get("created_at") or 0), unit))
    dates = [float(post.get("created_at") or 0) for post in case.posts]
    periods = {
        p: case.stats(buckets.get(p, [])) for p in periods_between(min(dates), max(dates), unit)
    }
    out.figures = {"unit": unit, "periods": periods}
    names = list(periods)
    first, last = names[0], names[-1]
    busiest = max(names, key=lambda period: (periods[period].posts, period))
    middle = (min(dates) + max(dates)) / 2
    early = sum(1 for date in dates if date < middle)
    late = len(dates) - early
    trend = "grew" if late > early else "shrank" if late < early else "held steady"
    out.line(
        f"Volume {trend}: **{late:,}** posts in the second half of the span against "
        f"**{early:,}** in the first (split at {period_of(middle, 'day')})."
    )
    out.line(
        f"Posts per {unit} from {first} to {last}: {posts_phrase(periods[first].posts, bold=True)}"
        f" in {first} and {posts_phrase(periods[last].posts, bold=True)} in {last}; the busiest "
        f"{unit} was {busiest} with {posts_phrase(periods[busiest].posts, bold=True)}."
    )
    if len(names) >= 2:
        steps = list(pairwise(names))
        before, after = max(
            steps, key=lambda s: (abs(periods[s[1]].posts - periods[s[0]].posts), s[1])
        )
        change = periods[after].posts - periods[before].posts
        out.line(
            f"The biggest change in volume was from {before} to {after}: "
            f"**{periods[before].posts:,}** → **{periods[after].posts:,}** posts ({change:+,})."
        )
        filled = [step for step in steps if min(periods[p].posts for p in step) >= _STEADY_PERIOD]
        if filled:

            def negative(period: str) -> float:  # the share as printed, so points add up
                return float(periods[period].share("negative")[:-1])

            before, after = max(filled, key=lambda s: (abs(negative(s[1]) - negative(s[0])), s[1]))
            out.line(
                f"The negative share moved most from {before} to {after}: "
                f"{periods[before].share('negative')} → {periods[after].share('negative')} "
                f"({negative(after) - negative(before):+.1f} points)."
            )
    out.line()
    rows = [[p, s.posts, s.share("positive"), s.share("negative")] for p, s in periods.items()]
    out.add_table(f"Posts and sentiment by {unit}", [unit, "posts", "positive", "negative"], rows)
    top = ranked(buckets[busiest])[0]
    out.line(f"The most engaging post of {busiest}: {_example(top)}")


# --- authors, questions, hooks, calls to action ---------------------------------------------


def _write_authors(out: Writer, case: Case) -> None:
    by = case.slots.metric if case.slots.metric not in (None, "engagement_rate") else "engagement"
    authors = _groups(case.posts, lambda post: f"{author_of(post)}\x1f{post['source']}")
    rank_by_metric = case.slots.metric not in (None, "engagement_rate")

    def order(item: tuple[str, list[Mention]]) -> tuple[Any, ...]:
        name, posts = item
        total = sum(metric(post, by) for post in posts)
        return (-total, -len(posts), name) if rank_by_metric else (-len(posts), -total, name)

    top = sorted(authors.items(), key=order)[: case.limit()]
    written = sum(len(posts) for _, posts in top)
    total = len(case.posts)
    name = _METRIC_NAMES[by]
    out.figures = {
        "authors": len(authors),
        "top": [(who.split("\x1f")[0], len(posts)) for who, posts in top],
    }
    ranking = f"by {name}" if rank_by_metric else "by number of posts"
    out.line(
        f"{posts_phrase(len(authors), bold=True, noun='author')} wrote these "
        f"{posts_phrase(total)}; the top {len(top)} ({ranking}) wrote {written:,} of them "
        f"({share(written, total)})."
    )
    out.line()
    rows = []
    for rank, (who, posts) in enumerate(top, start=1):
        author, source = who.split("\x1f")
        total_metric = int(sum(metric(post, by) for post in posts))
        rows.append([rank, author, source, len(posts), total_metric])
        out.line(
            f"{rank}. **{quote(author)[1:-1]}** on {source}: {posts_phrase(len(posts), bold=True)},"
            f" **{total_metric:,}** {name}; most engaging: {_example(ranked(posts)[0])}"
        )
    out.line()
    out.add_table("Top authors", ["rank", "author", "source", "posts", name], rows)


def _write_questions(out: Writer, case: Case) -> None:
    asked = {key(post): questions_of(post) for post in case.posts}
    asking = [post for post in case.posts if asked[key(post)]]
    total = len(case.posts)
    out.figures = {"total": total, "asking": len(asking)}
    if not asking:
        out.line(f"None of these {posts_phrase(total)} asks a question.")
        return
    out.line(
        f"**{len(asking):,}** of the {posts_phrase(total)} ({share(len(asking), total)}) "
        f"{'asks' if len(asking) == 1 else 'ask'} something."
    )
    by_text: dict[str, list[Mention]] = defaultdict(list)
    wording: dict[str, str] = {}
    for post in asking:
        for text in dict.fromkeys(" ".join(q.split()) for q in asked[key(post)]):
            by_text[text.lower()].append(post)
            wording.setdefault(text.lower(), text)
    about = [
        (name, sum(1 for p in asking if any(has_theme(q, name) for q in asked[key(p)])))
        for name in case.aspects
    ]
    about = sorted((item for item in about if item[1]), key=lambda item: (-item[1], item[0]))
    if about:
        out.figures["aspects"] = dict(about[:_THEMES_LISTED])
        out.line(f"Their questions are mostly about {_listing(about[:3])}.")
    out.line()
    common = sorted(by_text.items(), key=lambda item: (-len(item[1]), item[0]))[: case.limit()]
    out.figures["questions"] = {wording[text]: len(posts) for text, posts in common}
    out.line("Most asked:")
    out.line()
    for rank, (text, posts) in enumerate(common, start=1):
        out.line(
            f"{rank}. {quote(wording[text])}: asked in {posts_phrase(len(posts), bold=True)} "
            f"{cite(ranked(posts)[0])}"
        )
    out.line()
    rows = [[wording[text], len(posts)] for text, posts in common]
    out.add_table("Questions people ask", ["question", "posts"], rows)


def _not_analysed(out: Writer, what: str, action: str) -> None:
    out.line(
        f"{what} analysis has not run on these posts. Start a dataset run with "
        f'`content_analysis_actions` including `"{action}"` and ask again.'
    )


def _write_hooks(out: Writer, case: Case) -> None:
    analysed = [post for post in case.posts if post.get("hooks")]
    if not analysed:
        _not_analysed(out, "Hook", "hook")
        return
    by_kind: dict[str, list[Mention]] = defaultdict(list)  # a post counts once per hook type
    for post in analysed:
        for kind in sorted({str(hook.get("type")) for hook in post["hooks"]}):
            by_kind[kind].append(post)
    order = sorted(by_kind.items(), key=lambda item: (-len(item[1]), item[0]))
    total = len(analysed)
    averages = {kind: sum(map(engagement, posts)) / len(posts) for kind, posts in order}
    out.figures = {"analysed": total, "hooks": {kind: len(posts) for kind, posts in order}}
    out.line(
        f"Hooks of {posts_phrase(total, bold=True)} with hook analysis: "
        f"{_listing([(kind, len(posts)) for kind, posts in order[:3]])}."
    )
    steady = [kind for kind, posts in order if len(posts) >= 2] or [order[0][0]]
    best = max(steady, key=lambda kind: (averages[kind], kind))
    out.line(
        f"**{best}** hooks engage best: **{averages[best]:,.1f}** average engagement over "
        f"{posts_phrase(len(by_kind[best]))}."
    )
    out.line()
    rows = [
        [kind, len(posts), share(len(posts), total), f"{averages[kind]:,.1f}"]
        for kind, posts in order
    ]
    out.add_table("Hooks", ["hook", "posts", "share", "avg engagement"], rows)
    out.line("Examples:")
    for kind, posts in order[:3]:
        post = ranked(posts)[0]
        text = next(str(h.get("text") or "") for h in post["hooks"] if h.get("type") == kind)
        out.line(f"- {kind}: {quote(text)} {cite(post)}")


def _write_ctas(out: Writer, case: Case) -> None:
    analysed = [post for post in case.posts if "cta" in post]
    if not analysed:
        _not_analysed(out, "Call-to-action", "cta")
        return
    labels = {
        key(post): str((post.get("cta") or {}).get("text") or "no call to action")
        for post in analysed
    }
    by_label = _groups(analysed, lambda post: labels[key(post)])
    order = sorted(by_label.items(), key=lambda item: (-len(item[1]), item[0]))
    total = len(analysed)
    with_cta = [post for post in analysed if labels[key(post)] != "no call to action"]
    without = [post for post in analysed if labels[key(post)] == "no call to action"]
    out.figures = {
        "analysed": total,
        "with_cta": len(with_cta),
        "ctas": {k: len(v) for k, v in order},
    }
    out.line(
        f"**{len(with_cta):,}** of the {posts_phrase(total)} with CTA analysis "
        f"({share(len(with_cta), total)}) {'asks' if len(with_cta) == 1 else 'ask'} the reader "
        "to do something."
    )
    if with_cta and without:
        out.line(
            f"Posts with a call to action average **{Stats.of(with_cta).average_engagement:,.1f}** "
            f"engagement, those without **{Stats.of(without).average_engagement:,.1f}**."
        )
    out.line()
    rows = [
        [label, len(posts), share(len(posts), total), f"{Stats.of(posts).average_engagement:,.1f}"]
        for label, posts in order
    ]
    out.add_table("Calls to action", ["cta", "posts", "share", "avg engagement"], rows)
    examples = [(label, posts) for label, posts in order if label != "no call to action"][:3]
    if examples:
        out.line("Examples:")
    for label, posts in examples:
        post = ranked(posts)[0]
        out.line(f"- {label}: {quote(str(post['cta'].get('evidence') or label))} {cite(post)}")


# --- overview and help -----------------------------------------------------------------------


def _write_overview(out: Writer, case: Case) -> None:
    # The chat's ads policy was applied before (its read-as line says which): every figure
    # below counts the same posts, ads in the sentiment included when the policy keeps them.
    ads = sum(1 for post in case.posts if post.get("content_type") == "ad")
    stats = case.stats(case.posts)
    sources = _groups(case.posts, lambda post: post["source"])
    order = sorted(sources.items(), key=lambda item: (-len(item[1]), item[0]))
    dates = sorted(float(post.get("created_at") or 0) for post in case.posts)
    out.figures = {
        "total": len(case.posts),
        "ads": ads,
        "sources": {name: len(p) for name, p in order},
    }
    out.line(
        f"{posts_phrase(len(case.posts), bold=True)} posted between "
        f"{period_of(dates[0], 'day')} and {period_of(dates[-1], 'day')}, "
        f"from {_listing([(n, len(p)) for n, p in order])}."
    )
    if ads:
        out.line(
            f"{posts_phrase(ads, bold=True, noun='ad')} among them, counted below too (ask"
            ' "without ads" to leave them out).'
        )
    out.line(
        f"Sentiment: **{stats.positive:,}** positive ({stats.share('positive')}), "
        f"**{stats.neutral:,}** neutral ({stats.share('neutral')}) and **{stats.negative:,}** "
        f"negative ({stats.share('negative')})."
    )
    themes = case.themes(case.posts, case.aspects)[:3]
    if themes:
        out.line(f"Most discussed: {_listing([(n, len(m)) for n, m in themes])}.")
    out.line(f"The most engaging post: {_example(ranked(case.posts)[0])}")
    out.line()
    rows = [[name, len(posts), share(len(posts), len(case.posts))] for name, posts in order]
    out.add_table("Posts by source", ["source", "posts", "share"], rows)


_EXAMPLE_QUESTIONS = (
    "What do people complain about most, and how does sentiment split by source?",
    "Why do people like it?",
    "How many posts are negative?",
    "What are the top 5 posts by views on TikTok?",
    "Compare reddit and tiktok.",
    "Were there spikes in volume? Posts per week?",
    "Who are the most influential creators?",
    "Are there any ads? Who runs them?",
    "What do commenters say?",
    "What's the median engagement rate by source?",
    "What should we do? / Write a short report.",
)


def _write_help(out: Writer, case: Case) -> None:
    if case.posts:
        names = ", ".join(f"**{item.name}**" for item in case.datasets)
        out.line(f"I can answer questions about the {posts_phrase(len(case.posts))} in {names}.")
    else:
        out.line("I answer questions about the posts collected in your datasets.")
    out.line("For example:")
    out.line()
    out.lines.extend(f"- {example}" for example in _EXAMPLE_QUESTIONS)
    out.line()
    out.line(
        'Narrow any question by source ("on tiktok"), topic ("about price"), sentiment '
        '("negative posts") or time ("in the last 30 days"); follow-ups keep the dataset and '
        "the narrowing of the previous question. Pass `context.post_refs` to ask about "
        "chosen posts."
    )


# --- work linked to the datasets -------------------------------------------------------------

_NO_RELATED = {
    "patterns": "No pattern detection has run on {where} yet. Start one with "
    "`POST /v1/pattern_detections` ({{dataset_id, name, research_question}}).",
    "audience": "No audience dataset has been built from {where} yet. Create one with "
    "`POST /v1/audience_datasets`, then start a run with this dataset as `source_dataset_id`.",
    "parameters": "No custom parameter has run on {where} yet. Create one with "
    "`POST /v1/custom_parameters` and run it on the dataset.",
    "previews": "This account has no research previews yet. Create one with "
    "`POST /v1/research_previews`.",
}


def write_related(out: Writer, case: Case, where: str) -> list[Related]:
    """The answer about linked work (patterns, audiences, parameters, previews); returns
    the items it cites."""
    topic = case.intent.name
    items = [item for item in case.related if item.topic == topic]
    if not items:
        out.line(_NO_RELATED[topic].format(where=where))
        return []
    out.line(f"{TITLES[topic]} linked to {where}:")
    out.line()
    for item in items:
        out.line(f"- {item.label} (`{item.id}`)")
        out.lines.extend(f"  - {detail}" for detail in item.details)
    return items


WRITERS: dict[str, Callable[[Writer, Case], None]] = {
    "topics": _write_themes,
    "complaints": _write_complaints,
    "praise": _write_praise,
    "brands": _write_brands,
    "sentiment": _write_sentiment,
    "top": _write_top,
    "compare": _write_compare,
    "trend": _write_trend,
    "authors": _write_authors,
    "questions": _write_questions,
    "hooks": _write_hooks,
    "ctas": _write_ctas,
    "overview": _write_overview,
    "help": _write_help,
}
"""Section writer per intent (linked-work intents use :func:`write_related`)."""
