"""The sandbox assistant: a deterministic analytic engine that answers Ask questions.

No language model runs here. :func:`answer` detects the kind of question from keywords,
narrows the posts (datasets named in the question, ``post_refs`` focus, topic terms),
computes the figures from the mention dicts and writes a markdown reply. Posts are cited
as ``[label](post:source:id)`` links, then rewritten to ``[N]`` markers by the spec's rule
(:func:`rdskit.references.rewrite_post_links`), so the reply carries exact
``references[]``. Everything here is a pure function of its inputs; the database adapter
is ``compose_reply`` in ``routes/chats.py``.

Kinds of question (first match wins, in this order):

- ``compare``: "compare", "versus", "vs", "difference" -> per source or per dataset;
- ``trend``: "over time", "changed", "trend", "month", "week" -> volume and sentiment by period;
- ``top``: "top", "most", "best", "popular", "engagement", "views" -> ranked posts;
- ``sentiment``: "sentiment", "feel", "positive", "negative" -> counts and shares;
- ``themes`` (default): what people say -> themes with quoted posts.

Topic terms are the question's words minus stop words, intent vocabulary and the words of
dataset and source names. A post matches when its title or text has a word starting with
any term (a trailing plural ``s`` is dropped from terms longer than three letters). A
follow-up without terms keeps the topic of the previous question that had some.

Figures: a post's sentiment is the largest of its enrichment scores (ties resolve to
neutral), computed with the enrichment scorer when the post has none; engagement is
likes + comments + shares; shares of a total are percentages with one decimal.

Example:
    >>> posts = [{"source": "reddit", "id": "1", "text": "Love the oat latte",
    ...           "sentiment": {"positive": "0.9", "neutral": "0.1", "negative": "0.0"},
    ...           "datasets": [{"id": "ds_1", "name": "Oat"}], "created_at": 1767225600}]
    >>> reply = answer("How does sentiment split?", posts, [Scope("ds_1", "Oat")])
    >>> reply.intent, reply.references[0]["citation"], "**1** positive (100.0%)" in reply.text
    ('sentiment', 1, True)
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from rdskit.references import rewrite_post_links
from rdskit.sandbox import enrichment

__all__ = [
    "ASSISTANT_USD_PER_TOKEN",
    "INTENTS",
    "Related",
    "Reply",
    "Scope",
    "Stats",
    "answer",
    "chat_name",
    "count_tokens",
    "detect_intent",
    "engagement",
    "focus_terms",
    "inference_cost",
    "matches_terms",
    "period_of",
    "sentiment_label",
]

Mention = Mapping[str, Any]

ASSISTANT_USD_PER_TOKEN = Decimal("0.00001")
"""Inference price: USD per token of question, context and answer (10 USD per million)."""

INTENTS = ("compare", "trend", "top", "sentiment", "themes")
SOURCES = ("reddit", "tiktok", "youtube", "instagram", "linkedin")
SENTIMENTS = ("positive", "neutral", "negative")

_INTENT_WORDS: dict[str, tuple[str, ...]] = {
    "compare": ("compare", "comparison", "versus", "vs", "difference", "differ"),
    "trend": ("over time", "changed", "change", "trend", "evolve", "month", "week", "timeline"),
    "top": ("top", "most", "best", "popular", "engagement", "views", "viral", "liked"),
    "sentiment": ("sentiment", "feel", "positive", "negative", "mood", "split"),
}
_INTENT_TITLES = {
    "compare": "Comparison",
    "trend": "Changes over time",
    "top": "Top posts",
    "sentiment": "Sentiment split",
    "themes": "What people say",
}
# Metrics a "top posts" question can rank by; the first word found in the question wins.
_METRICS = (
    ("view", "num_views"),
    ("like", "num_likes"),
    ("comment", "num_comments"),
    ("share", "num_shares"),
)

_STOP_TEXT = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further get got had has have having he her here hers him his how i if in into is it its
itself just me more my no nor not now of off on once only or other our ours out over own
same she should so some such than that the their theirs them then there these they this
those through to too under until up very was we were what when where which while who whom
why will with would you your yours tell show give please list find see look people say
saying said talk talking think thinks thought opinion opinions discuss discussing theme
themes topic topics mention mentions mentioned post posts content data dataset datasets
across among per overall main key kind kinds things thing what's whats how's sentiment
split feel feeling feelings positive negative neutral mood moods share shares top most best
popular engagement engaging views viewed view viral liked likes like comments commented
shared highest biggest performing performed perform compare comparison versus vs difference
differences differ changed change changes trend trends evolve evolved time timeline month
months monthly week weeks weekly daily day days year years recent recently lately source
sources platform platforms channel channels breakdown volume number count counts many much
amount activity buzz going happening doing really honestly actually better good great love
loved just still much even every make makes made using used tried trying worth since always
never anyone someone something everything nothing https http www com
"""
_STOP_WORDS = frozenset(_STOP_TEXT.split())

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_SMALL_NUMBER = re.compile(r"\b(\d{1,2})\b")
_LABEL_SAFE = str.maketrans({"[": "(", "]": ")", "\\": "/"})  # a link label stays one label


@dataclass(frozen=True)
class Scope:
    """A dataset the assistant may read: its id and display name."""

    id: str
    name: str


@dataclass(frozen=True)
class Related:
    """An entity linked to a dataset in scope (a pattern, an audience dataset, ...).

    ``type`` is a spec entity-reference type; the answer cites it when the question
    contains ``topic`` ("pattern", "audience", "parameter", "preview").
    """

    type: str
    id: str
    label: str
    topic: str


@dataclass
class Reply:
    """The assistant's reply: rewritten markdown, typed references and render blocks.

    ``posts`` lists the analysed posts as (source, id); ``figures`` holds the numbers the
    text quotes, keyed per intent (handy for checks and the MCP render tool).
    """

    text: str
    references: list[dict[str, Any]]
    blocks: list[dict[str, Any]]
    intent: str
    posts: list[tuple[str, str]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)


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
    def of(cls, posts: Sequence[Mention], label: Callable[[Mention], str] | None = None) -> Stats:
        """Stats of ``posts``; ``label`` gives a post's sentiment (:func:`sentiment_label`)."""
        labels = Counter(map(label or sentiment_label, posts))
        return cls(
            posts=len(posts),
            positive=labels["positive"],
            neutral=labels["neutral"],
            negative=labels["negative"],
            views=sum(int(post.get("num_views") or 0) for post in posts),
            engagement=sum(engagement(post) for post in posts),
        )

    @property
    def average_engagement(self) -> float:
        """Mean engagement per post (0 for no posts)."""
        return self.engagement / self.posts if self.posts else 0.0

    def share(self, label: str) -> str:
        """``label``'s share of the posts, e.g. ``"37.5%"``."""
        return _share(getattr(self, label), self.posts)


# --- small public helpers (shared with the routes, the MCP server and tests) -------------


def detect_intent(question: str) -> str:
    """The kind of question, from keywords (see the module docstring).

    Example:
        >>> detect_intent("Top posts by views?"), detect_intent("What do people say?")
        ('top', 'themes')
    """
    lowered = question.lower()
    words = set(_WORD.findall(lowered))
    for intent in INTENTS[:-1]:
        for keyword in _INTENT_WORDS[intent]:
            if (" " in keyword and keyword in lowered) or keyword in words:
                return intent
    return "themes"


def focus_terms(question: str, names: Iterable[str] = ()) -> list[str]:
    """Topic terms of a question: content words minus stop words and the given names' words.

    Example:
        >>> focus_terms("What do people say about battery prices on reddit?", ["reddit"])
        ['battery', 'price']
    """
    excluded = set(_STOP_WORDS)
    for name in names:
        excluded.update(_WORD.findall(name.lower()))
    terms: list[str] = []
    for word in _WORD.findall(question.lower()):
        if word in excluded or word.isdigit() or len(word) < 3:
            continue
        plural = len(word) > 3 and word.endswith("s") and not word.endswith("ss")
        term = word[:-1] if plural else word
        if term not in terms:
            terms.append(term)
    return terms


def matches_terms(mention: Mention, terms: Sequence[str]) -> bool:
    """True when the post's title or text has a word starting with one of ``terms``."""
    if not terms:
        return True
    words = _WORD.findall(_post_text(mention).lower())
    return any(word.startswith(term) for word in words for term in terms)


def sentiment_label(mention: Mention) -> str:
    """``positive``, ``neutral`` or ``negative``: the dominant class of the post's sentiment.

    A post without enrichment is scored by the enrichment's own scorer (VADER), so figures
    agree with what a ``sentiment`` run would have stored. Ties go to neutral.

    Example:
        >>> sentiment_label({"sentiment": {"positive": "0.7", "neutral": "0.2", "negative": "0.1"}})
        'positive'
        >>> sentiment_label({"text": "This is terrible, I want a refund."})
        'negative'
    """
    return enrichment.dominant(
        mention.get("sentiment") or enrichment.score_text(_post_text(mention))
    )


def engagement(mention: Mention) -> int:
    """Likes + comments + shares of a post."""
    return sum(int(mention.get(key) or 0) for key in ("num_likes", "num_comments", "num_shares"))


def period_of(created_at: float, unit: str) -> str:
    """The month (``2026-03``) or ISO week (``2026-W09``) of a Unix timestamp, in UTC.

    Example:
        >>> period_of(1767225600, "month"), period_of(1767225600, "week")
        ('2026-01', '2026-W01')
    """
    moment = datetime.fromtimestamp(created_at, tz=UTC)
    if unit == "week":
        year, week, _ = moment.isocalendar()
        return f"{year}-W{week:02d}"
    return f"{moment.year}-{moment.month:02d}"


def count_tokens(*texts: str) -> int:
    """A simple tokenizer for billing: each word and each punctuation mark is one token.

    Example:
        >>> count_tokens("How many posts?", "12 posts.")
        7
    """
    return sum(len(_TOKEN.findall(text)) for text in texts)


def inference_cost(tokens: int) -> Decimal:
    """USD charged for ``tokens`` tokens of inference.

    Example:
        >>> inference_cost(1500)
        Decimal('0.01500')
    """
    return ASSISTANT_USD_PER_TOKEN * tokens


def chat_name(question: str) -> str:
    """A short chat name from a question's key terms (given once a chat has two turns).

    Example:
        >>> chat_name("What do people say about oat milk prices?"), chat_name("Top posts?")
        ('Oat milk price', 'Top posts')
    """
    terms = focus_terms(question)[:4]
    return " ".join(terms).capitalize() if terms else _INTENT_TITLES[detect_intent(question)]


# --- the engine ------------------------------------------------------------------------------


def answer(
    question: str,
    mentions: Sequence[Mention],
    scope: Sequence[Scope],
    *,
    post_refs: Sequence[Mapping[str, str]] = (),
    previous_questions: Sequence[str] = (),
    related: Sequence[Related] = (),
    unknown_dataset_ids: Sequence[str] = (),
) -> Reply:
    """Answer ``question`` over ``mentions`` (spec Mention dicts with ``datasets``).

    ``scope`` lists the datasets the answer may use (a dataset named in the question
    narrows it further). ``post_refs`` focuses the answer on those posts.
    ``previous_questions`` (oldest first) let a follow-up keep the earlier topic.
    ``related`` entities are cited when the question is about them.
    ``unknown_dataset_ids`` (requested but absent) are reported.
    """
    datasets = _named_datasets(question, scope) or list(scope)
    out = _Writer(detect_intent(question), datasets)
    if unknown_dataset_ids:
        missing = ", ".join(f"`{dataset_id}`" for dataset_id in unknown_dataset_ids)
        out.line(f"I couldn't find these datasets in your account: {missing}.")
    if not datasets:
        if not unknown_dataset_ids:
            out.line("This account has no datasets yet, so I have no posts to answer from.")
        return out.finish(question, related)

    wanted = {item.id for item in datasets}
    posts = [post for post in mentions if _dataset_ids(post) & wanted]
    focus = {(ref["source"], ref["id"]) for ref in post_refs}
    if focus:
        posts = [post for post in posts if _key(post) in focus]
    names = [*(item.name for item in scope), *SOURCES]
    terms = focus_terms(question, names)
    carried = not terms and not focus and bool(previous_questions)
    if carried:
        earlier = (focus_terms(text, names) for text in reversed(previous_questions))
        terms = next((found for found in earlier if found), [])
    where = _where(datasets)
    topic = ", ".join(f'"{term}"' for term in terms)
    matched = [post for post in posts if matches_terms(post, terms)]
    if not posts:
        subject = "the posts you selected" if focus else where
        out.line(f"There are no collected posts in {subject} yet, so I can't answer that.")
        return out.finish(question, related)
    if not matched:
        out.line(f"None of the {_posts(len(posts))} in {where} mention {topic}.")
        return out.finish(question, related)

    out.posts = [_key(post) for post in matched]
    basis = f"{_posts(len(matched))} in {where}"
    if terms:
        basis += f" mentioning {topic}" + (" (continuing the earlier topic)" if carried else "")
    if focus:
        basis += f", limited to the {len(focus)} posts you selected"
    out.line(f"_Based on {basis}._")
    out.line()
    _WRITERS[out.intent](out, _Question(question, matched, terms))
    return out.finish(question, related)


@dataclass
class _Question:
    """What a section writer needs: the question, the matched posts and topic terms."""

    text: str
    posts: list[Mention]
    terms: list[str]
    _labels: dict[tuple[str, str], str] = field(default_factory=dict)

    def label(self, post: Mention) -> str:
        """The post's sentiment, scored once per post."""
        key = _key(post)
        if key not in self._labels:
            self._labels[key] = sentiment_label(post)
        return self._labels[key]

    def stats(self, posts: Sequence[Mention]) -> Stats:
        return Stats.of(posts, self.label)


class _Writer:
    """Accumulates markdown lines, a render block and figures; finish() rewrites links."""

    def __init__(self, intent: str, datasets: list[Scope]) -> None:
        self.intent = intent
        self.datasets = datasets
        self.lines: list[str] = []
        self.table: dict[str, Any] | None = None
        self.figures: dict[str, Any] = {}
        self.posts: list[tuple[str, str]] = []

    def line(self, text: str = "") -> None:
        self.lines.append(text)

    def add_table(self, title: str, columns: list[str], rows: list[list[Any]]) -> None:
        """Write a markdown table and keep it as the reply's ``render: true`` block."""
        self.table = {"title": title, "columns": columns, "rows": rows}
        self.line(f"**{title}**")
        self.line()
        self.line("| " + " | ".join(columns) + " |")
        self.line("|" + "---|" * len(columns))
        for row in rows:
            self.line("| " + " | ".join(_cell(value) for value in row) + " |")
        self.line()

    def finish(self, question: str, related: Sequence[Related]) -> Reply:
        """Cite related entities the question is about, rewrite links, build references."""
        about = [item for item in related if item.topic in question.lower()]
        if about:
            self.line()
            self.line("Related work on these datasets:")
            for item in about:
                self.line(f"- {item.label} (`{item.id}`)")
        text, post_references = rewrite_post_links("\n".join(self.lines).strip() + "\n")
        entities = [{"type": "dataset", "id": item.id} for item in self.datasets]
        entities += [{"type": item.type, "id": item.id} for item in about]
        blocks: list[dict[str, Any]] = [{"block_id": "b1", "type": "markdown", "render": False}]
        if self.table is not None:
            blocks.append({"block_id": "b2", "type": "table", "render": True, **self.table})
        return Reply(
            text, post_references + entities, blocks, self.intent, self.posts, self.figures
        )


def _write_sentiment(out: _Writer, ask: _Question) -> None:
    stats = ask.stats(ask.posts)
    out.figures = {label: getattr(stats, label) for label in SENTIMENTS} | {"total": stats.posts}
    split = ", ".join(
        f"**{getattr(stats, label):,}** {label} ({stats.share(label)})" for label in SENTIMENTS
    )
    out.line(f"Sentiment splits {split} out of {_posts(stats.posts, bold=True)}.")
    out.line()
    rows = [[label, getattr(stats, label), stats.share(label)] for label in SENTIMENTS]
    out.add_table("Sentiment split", ["sentiment", "posts", "share"], rows)
    for label in ("positive", "negative"):
        examples = _ranked(post for post in ask.posts if ask.label(post) == label)[:2]
        if examples:
            out.line(f"Most engaging {label} posts:")
            out.lines.extend(f"- {_quote(post)} {_cite(post)}" for post in examples)
            out.line()


def _write_top(out: _Writer, ask: _Question) -> None:
    lowered = ask.text.lower()
    metric = next((key for word, key in _METRICS if word in lowered), "engagement")
    name = metric.removeprefix("num_")
    wanted = next((int(n) for n in _SMALL_NUMBER.findall(lowered) if 0 < int(n) <= 20), 5)
    ranked = sorted(ask.posts, key=lambda post: (-_metric(post, metric), *_key(post)))[:wanted]
    out.figures = {"metric": metric, "ranking": [(_key(p), _metric(p, metric)) for p in ranked]}
    explained = " (likes + comments + shares)" if metric == "engagement" else ""
    out.line(f"Top {len(ranked)} posts by {name}{explained}:")
    out.line()
    for rank, post in enumerate(ranked, start=1):
        counts = ", ".join(
            f"{int(post.get(key) or 0):,} {key.removeprefix('num_')}" for _, key in _METRICS
        )
        out.line(
            f"{rank}. {_quote(post)} by {_escape(_author(post))} on {post['source']}: "
            f"**{_metric(post, metric):,}** {name} ({counts}) {_cite(post)}"
        )
    out.line()
    rows = [[rank, p["source"], p["id"], _metric(p, metric)] for rank, p in enumerate(ranked, 1)]
    out.add_table(f"Top posts by {name}", ["rank", "source", "id", name], rows)


def _write_compare(out: _Writer, ask: _Question) -> None:
    named_sources = [source for source in SOURCES if source in ask.text.lower()]
    groups: dict[str, list[Mention]] = defaultdict(list)
    if len(named_sources) >= 2 or len(out.datasets) < 2:
        kind = "source"
        for post in ask.posts:
            if not named_sources or post["source"] in named_sources:
                groups[post["source"]].append(post)
    else:
        kind = "dataset"
        for item in out.datasets:
            groups[item.name] = [post for post in ask.posts if item.id in _dataset_ids(post)]
    if len(groups) < 2:
        only = next(iter(groups), "none")
        out.line(f"These posts all come from one {kind} ({only}), so there is nothing to compare.")
        return
    stats = {name: ask.stats(members) for name, members in sorted(groups.items())}
    out.figures = {"by": kind, "groups": stats}
    out.line(f"Comparison by {kind}:")
    out.line()
    for name, group in stats.items():
        out.line(
            f"- **{name}**: {_posts(group.posts, bold=True)}, average engagement "
            f"**{group.average_engagement:,.1f}**, **{group.views:,}** views, "
            f"{group.share('positive')} positive, {group.share('negative')} negative"
        )
    out.line()
    rows = [
        [
            name,
            g.posts,
            f"{g.average_engagement:,.1f}",
            g.views,
            g.share("positive"),
            g.share("negative"),
        ]
        for name, g in stats.items()
    ]
    columns = [kind, "posts", "avg engagement", "views", "positive", "negative"]
    out.add_table(f"By {kind}", columns, rows)
    out.line("Most engaging post of each:")
    for name in stats:
        top = _ranked(groups[name])[0]
        out.line(f"- {name}: {_quote(top)} {_cite(top)}")


def _write_trend(out: _Writer, ask: _Question) -> None:
    unit = "week" if "week" in ask.text.lower() else "month"
    buckets: dict[str, list[Mention]] = defaultdict(list)
    for post in ask.posts:
        buckets[period_of(float(post.get("created_at") or 0), unit)].append(post)
    periods = {period: ask.stats(buckets[period]) for period in sorted(buckets)}
    out.figures = {"unit": unit, "periods": periods}
    first, last = min(periods), max(periods)
    busiest = max(periods, key=lambda period: (periods[period].posts, period))
    out.line(
        f"Volume by {unit}: from {_posts(periods[first].posts, bold=True)} in {first} to "
        f"**{periods[last].posts:,}** in {last}; the busiest {unit} was {busiest} with "
        f"{_posts(periods[busiest].posts, bold=True)}."
    )
    out.line(
        f"Positive share went from {periods[first].share('positive')} in {first} "
        f"to {periods[last].share('positive')} in {last}."
    )
    out.line()
    rows = [[p, s.posts, s.share("positive"), s.share("negative")] for p, s in periods.items()]
    out.add_table(f"Posts and sentiment by {unit}", [unit, "posts", "positive", "negative"], rows)
    top = _ranked(buckets[busiest])[0]
    out.line(f"The most engaging post of {busiest}: {_quote(top)} {_cite(top)}")


def _write_themes(out: _Writer, ask: _Question) -> None:
    named = [word for item in out.datasets for word in _WORD.findall(item.name.lower())]
    themes = _themes(ask.posts, [*ask.terms, *named])
    total = len(ask.posts)
    out.figures = {"total": total, "themes": {name: len(members) for name, members in themes}}
    if not themes:
        out.line(f"These {_posts(total)} share no recurring theme. The most engaging ones:")
        out.lines.extend(f"- {_quote(post)} {_cite(post)}" for post in _ranked(ask.posts)[:3])
        return
    out.line(f"Main themes across {_posts(total, bold=True)}:")
    out.line()
    for name, members in themes:
        out.line(f"- **{name}**: {_posts(len(members), bold=True)} ({_share(len(members), total)})")
        out.lines.extend(f"  - {_quote(post)} {_cite(post)}" for post in _ranked(members)[:2])
    out.line()
    rows = [[name, len(members), _share(len(members), total)] for name, members in themes]
    out.add_table("Themes", ["theme", "posts", "share"], rows)


_WRITERS: dict[str, Callable[[_Writer, _Question], None]] = {
    "sentiment": _write_sentiment,
    "top": _write_top,
    "compare": _write_compare,
    "trend": _write_trend,
    "themes": _write_themes,
}


# --- internals -----------------------------------------------------------------------------


def _themes(
    posts: Sequence[Mention], known: Sequence[str], limit: int = 4
) -> list[tuple[str, list[Mention]]]:
    """Recurring themes: enrichment ``content_topics`` when present, else content words
    (longer than three letters, not stop words).

    A theme made only of ``known`` words (topic terms and dataset-name words, which the
    posts share by construction) says nothing and is left out. A theme needs two posts
    (one under four posts); ties break alphabetically so answers are deterministic.
    """
    prefixes = tuple(known)
    members: dict[str, list[Mention]] = defaultdict(list)
    for post in posts:
        topics = {str(item.get("text", "")).lower() for item in post.get("content_topics") or []}
        if not any(topic.strip() for topic in topics):
            words = _WORD.findall(_post_text(post).lower())
            topics = {word for word in words if len(word) > 3 and word not in _STOP_WORDS}
        names = {" ".join(words) for words in map(_WORD.findall, topics) if words}
        for name in names:
            if not (prefixes and all(word.startswith(prefixes) for word in name.split())):
                members[name].append(post)
    floor = 2 if len(posts) >= 4 else 1
    ranked = sorted(members.items(), key=lambda item: (-len(item[1]), item[0]))
    return [(name, group) for name, group in ranked if len(group) >= floor][:limit]


def _named_datasets(question: str, scope: Sequence[Scope]) -> list[Scope]:
    lowered = question.lower()
    return [item for item in scope if item.name and item.name.lower() in lowered]


def _dataset_ids(post: Mention) -> set[str]:
    return {item["id"] for item in post.get("datasets") or []}


def _where(datasets: Sequence[Scope]) -> str:
    names = [f"**{item.name}**" for item in datasets]
    if len(names) == 1:
        return f"dataset {names[0]}"
    return "datasets " + ", ".join(names[:-1]) + f" and {names[-1]}"


def _key(post: Mention) -> tuple[str, str]:
    return (post["source"], post["id"])


def _metric(post: Mention, metric: str) -> int:
    return engagement(post) if metric == "engagement" else int(post.get(metric) or 0)


def _ranked(posts: Iterable[Mention]) -> list[Mention]:
    """Most engaging first; (source, id) breaks ties so answers are deterministic."""
    return sorted(posts, key=lambda post: (-engagement(post), *_key(post)))


def _post_text(post: Mention) -> str:
    return " ".join(str(part) for part in (post.get("title"), post.get("text")) if part)


def _quote(post: Mention, width: int = 140) -> str:
    """The post's first words in quotes; brackets escaped so they never read as markers."""
    text = " ".join(_post_text(post).split()) or "(no text)"
    if len(text) > width:
        text = text[: width - 1].rsplit(" ", 1)[0] + "…"
    return f'"{_escape(text)}"'


def _author(post: Mention) -> str:
    author = post.get("author") or {}
    return str(author.get("title") or "an unnamed author")


def _escape(text: str) -> str:
    """Escape brackets of post text so it never reads as a marker or a link."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _cite(post: Mention) -> str:
    """The post link the rewrite turns into ``[N]``; the author's name is its label."""
    label = _author(post).translate(_LABEL_SAFE)
    return f"[{label}](post:{post['source']}:{post['id']})"


def _posts(count: int, *, bold: bool = False) -> str:
    """``"1 post"`` / ``"1,234 posts"``, the number in bold when ``bold``."""
    number = f"**{count:,}**" if bold else f"{count:,}"
    return f"{number} post" if count == 1 else f"{number} posts"


def _share(part: int, total: int) -> str:
    return f"{100 * part / total:.1f}%" if total else "0.0%"


def _cell(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value).replace("|", "\\|")
