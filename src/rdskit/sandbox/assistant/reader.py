"""The compositional reader: a question -> typed queries over the Mention model.

A :class:`Query` is the plan of one figure: *filters* (:class:`Cond`, AND-ed; the values of
one condition OR-ed; ``negate`` for NOT) on every dimension of
:mod:`~rdskit.sandbox.assistant.catalogue` plus ``keyword`` (title/text), ``comment``
(comment bodies) and ``days``/``year``/``month`` (time); a *measure* (``count``, ``share``
with its numerator ``part`` over the denominator ``where``, ``sum``/``mean``/``median``/
``min``/``max`` of a metric, ``authors``); a *grouping* by a dimension or a period with an
optional top/bottom ``k``. Every word of the question is accounted for: a content word
it cannot map goes to ``unknown`` and the answer names it.

:func:`read` returns a :class:`Reading`: the queries (one per part of a multi-part
question, follow-ups completed from the previous turn's queries), or a refusal, or data
that is not collected, or ``None`` queries when the question is not a figure (themes,
rankings and quotes are answered by the intent planner, with these filters applied).

Example:
    >>> from rdskit.sandbox.assistant.catalogue import Table
    >>> table = Table([{"source": "reddit", "id": "1", "language": "es"}])
    >>> got = read("How many Spanish posts on Reddit?", table)
    >>> [(c.dim, c.values) for c in got.queries[0].where]
    [('language', ('es',)), ('source', ('reddit',))]
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from rdskit.models import vocab
from rdskit.sandbox.assistant.catalogue import DIMENSIONS, HASHTAG, METRICS, Table
from rdskit.sandbox.assistant.dates import MONTHS, TIME_DIMS, Period, periods
from rdskit.sandbox.assistant.frontend import distance, front
from rdskit.sandbox.assistant.lexicon import (
    CONCEPTS,
    CONTINUES,
    FUNCTION_WORDS,
    INSTRUCTION_WORDS,
    NUMBER_WORDS,
    SHORTHAND,
    STOP_WORDS,
)
from rdskit.sandbox.assistant.words import (
    NOT_COLLECTED,
    OTHER_SOURCES,
    VALUE_NAMES,
    Refusal,
    refusal_for,
)
from rdskit.sandbox.synth.extractor import stem

__all__ = [
    "COMMENT_DIMS",
    "NOT_AN_AD",
    "PERIODS",
    "Cond",
    "Query",
    "Reading",
    "askable",
    "read",
    "without_thresholds",
]

PERIODS = ("day", "week", "month", "year")
"""Periods a query can group by."""

STATS = ("sum", "mean", "median", "min", "max")


@dataclass(frozen=True)
class Cond:
    """One filter: ``dim`` has one of ``values`` (all of them when ``every``); NOT when
    ``negate``. ``dim`` is a dimension, ``keyword``, ``comment``, ``days``, ``year``,
    ``month``, ``since`` or ``until`` (ISO dates, inclusive)."""

    dim: str
    values: tuple[str, ...]
    negate: bool = False
    every: bool = False


NOT_AN_AD = Cond("content_type", ("ad",), negate=True)
"""Organic posts, ads left out: every post not known to be an ad (a post without a
``content_type`` is kept, and the answer says how many have none), as the intent
planner's analyses count them."""


@dataclass(frozen=True)
class Query:
    """The plan of one figure (see the module docstring); ``rank`` lists the ``top`` posts
    by ``metric``. A count's ``unit`` is ``posts``, or ``comments`` when the question
    counts comments ("how many comments ask how much it costs?"): then the comments that
    pass every ``comment`` / ``asking`` condition are counted, on the posts that pass the
    others."""

    measure: str = "count"
    metric: str | None = None
    where: tuple[Cond, ...] = ()
    part: tuple[Cond, ...] = ()
    group: str | None = None
    top: int | None = None
    order: str = "desc"
    unknown: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    unit: str = "posts"
    min_posts: int = 1
    """Of ``authors``: only those with at least this many matching posts ("how many
    authors posted more than once": 2)."""
    nth: int | None = None
    """Of a grouping: the rank asked for ("the second most": 2); the answer names that
    group and lists the ones before it."""
    sides: tuple[tuple[Cond, ...], ...] = ()
    """The sides a question compares that no grouping holds ("October versus September",
    "the last 30 days against the 30 before", "with a call to action versus without"):
    :func:`read` gives one query per side, each with ``where`` and that side's filters."""
    per: tuple[str, int] | None = None
    """Of a ``ratio``: the metric ``metric`` is divided by and the scale ("likes per 1,000
    views": ``("views", 1000)``): the posts' total ``metric`` over their total ``per``."""


@dataclass(frozen=True)
class Reading:
    """What a question asks: figure queries, a refusal, or data not collected."""

    queries: tuple[Query, ...] = ()
    refusal: Refusal | None = None
    not_collected: str | None = None
    conditions: tuple[Cond, ...] = ()
    unknown: tuple[str, ...] = ()
    follow_up: bool = False
    language: str = "en"
    notes: tuple[str, ...] = field(default=())
    comment_only: tuple[Cond, ...] = ()
    """Conditions a count of comments asks of the comments that only posts carry: the
    question cannot be answered as asked (and no figure that drops them is given)."""
    edited: Query | None = None
    """Of a follow-up: the previous turn's query its first query edits (the read-as line
    says what changed)."""


# --- words ----------------------------------------------------------------------------

_TOKEN = re.compile(r"-?\d+(?:\.\d+)+|-\d+\b|@?[\w'%&-]+|[?;,.]")  # "-0.5": one number
_FILLER = frozenset(
    [
        "utc",
        "gmt",
        "see",
        "sees",
        "saw",
        "receive",
        "receives",
        "received",
        "attract",
        "attracts",
        "attracted",
        "viewed",
        "liked",
        "commented",
        "shared",
        "typical",
        "dominates",
        "dominate",
        "dominating",
        "prevails",
        "predominant",
        "prevalent",
        "there",
        "exist",
        "exists",
        "get",
        "got",
        "gets",
        "did",
        "went",
        "go",
        "goes",
        "written",
        "write",
        "wrote",
        "published",
        "publish",
        "appear",
        "appears",
        "contain",
        "contains",
        "containing",
        "include",
        "includes",
        "use",
        "uses",
        "using",
        "express",
        "expresses",
        "show",
        "shows",
        "ask",
        "asks",
        "asking",
        "posted",
        "post",
        "posts",
        "dataset",
        "datasets",
        "number",
        "numbers",
        "many",
        "much",
        "how",
        "what",
        "which",
        "whats",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "having",
        "do",
        "does",
        "any",
        "all",
        "total",
        "overall",
        "altogether",
        "each",
        "every",
        "per",
        "by",
        "vs",
        "versus",
        "or",
        "and",
        "of",
        "the",
        "a",
        "an",
        "in",
        "on",
        "at",
        "from",
        "with",
        "without",
        "for",
        "to",
        "among",
        "amongst",
        "other",
        "than",
        "those",
        "them",
        "these",
        "their",
        "they",
        "it",
        "its",
        "of",
        "them",
        "only",
        "just",
        "both",
        "either",
        "neither",
        "nor",
        "also",
        "same",
        "about",
        "regarding",
        "plus",
        "class",
        "my",
        "course",
        "exercise",
        "tell",
        "please",
        "could",
        "would",
        "kindly",
        "like",
        "know",
        "i'd",
        "i'm",
        "split",
        "broken",
        "break",
        "down",
        "breakdown",
        "most",
        "least",
        "more",
        "fewer",
        "fewest",
        "highest",
        "lowest",
        "largest",
        "smallest",
        "common",
        "often",
        "frequently",
        "mentioned",
        "received",
        "receive",
        "got",
        "any",
        "single",
        "one",
        "wrote",
        "people",
        "person",
        "someone",
        "get",
        "gets",
        "getting",
        "posters",
        "authors",
        "different",
        "distinct",
        "unique",
        "type",
        "types",
        "level",
        "levels",
        "value",
        "values",
        "percent",
        "percentage",
        "share",
        "proportion",
        "fraction",
        "ratio",
        "%",
        "average",
        "avg",
        "mean",
        "median",
        "total",
        "sum",
        "maximum",
        "minimum",
        "max",
        "min",
        "count",
        "counts",
        "counted",
        "instead",
        "say",
        "says",
        "saying",
        "said",
        "talk",
        "talks",
        "talking",
        "discuss",
        "discusses",
        "discussing",
        "mention",
        "mentions",
        "mentioning",
        "something",
        "anything",
        "things",
        "thing",
        "ok",
        "okay",
        "so",
        "now",
        "then",
        "too",
        "well",
        "out",
        "tagged",
        "tag",
        "as",
        "whose",
        "mostly",
        "tone",
        "voice",
        "hook",
        "hooks",
        "topic",
        "topics",
        "call",
        "action",
        "actions",
        "cta",
        "ctas",
        "dominant",
        "emotion",
        "emotions",
        "sentiment",
        "sentiments",
        "content",
        "intention",
        "intentions",
        "language",
        "languages",
        "country",
        "countries",
        "source",
        "sources",
        "platform",
        "platforms",
        "brand",
        "brands",
        "written",
        "month",
        "months",
        "week",
        "weeks",
        "year",
        "years",
        "day",
        "days",
        "last",
        "past",
        "previous",
        "recent",
        "recently",
        "time",
        "period",
        "periods",
        "example",
        "examples",
        "quote",
        "quotes",
        "some",
        "open",
        "opens",
        "start",
        "starts",
        "begin",
        "begins",
    ]
)
_MEASURE_WORDS = [
    "how",
    "many",
    "number",
    "count",
    "average",
    "mean",
    "median",
    "total",
    "sum",
    "highest",
    "lowest",
    "maximum",
    "minimum",
    "share",
    "percentage",
    "proportion",
    "fraction",
    "views",
    "likes",
    "comments",
    "shares",
    "engagement",
    "negative",
    "positive",
    "neutral",
    "distinct",
    "unique",
    "different",
    "authors",
]
_SHARE = re.compile(r"\b(share|percentage|percent|proportion|fraction|ratio)\b(?! count)|%")
_AUTHORS = re.compile(
    r"\b(different|distinct|unique)\s+(authors|people|creators|posters|accounts|users)\b"
    r"|\bhow many (authors|creators|posters)\b"
)
_COMMENTERS = re.compile(
    r"\b(?:different|distinct|unique|separate) (?:people|users|accounts|persons|authors)"
    r" (?:have |has |had )?(?:commented|left (?:a )?comments?|wrote (?:the )?comments"
    r"|posted (?:the )?comments)\b"
    r"|\b(?:how many|number of|count of)(?: the)? (?:different |distinct |unique )?"
    r"(?:commenters|comment authors|people commented|people who commented)\b"
    r"|\b(?:different|distinct|unique) (?:commenters|comment authors)\b"
)
"""Distinct authors of the comments ("how many different people commented"), not of the
posts: each comment's ``author_username`` (its ``author_name`` without one)."""
_REPEATED = re.compile(
    r"\b(?:(?P<twice>more than once|at least twice|twice or more|(?:two|2) or more times"
    r"|multiple times|several times|repeatedly|more than one post|several posts"
    r"|multiple posts)|(?:more than|over) (?P<over>\d+) (?:times|posts)"
    r"|(?P<least>\d+) or more (?:times|posts)|at least (?P<least2>\d+) (?:times|posts))\b"
)
"""How often an author must have posted to be counted ("posted more than once")."""
_MEAN = re.compile(r"\b(average|mean|on average)\b")
_MEDIAN = re.compile(r"\bmedian\b")
_SUM = re.compile(r"\b(total|sum|in total|altogether|overall|combined|in all)\b")
_MAX = re.compile(r"\b(highest|maximum|max|largest|most)\b")
_MIN = re.compile(r"\b(lowest|minimum|min|smallest|fewest|least)\b")
_COUNT = re.compile(r"\b(how many|number of|count|counts|tally)\b")
_RANK_POSTS = re.compile(
    r"\b(top \w+ (\w+ )?posts|which (\d+ |\w+ )?posts|what are the (\w+ )*most \w+"
    r"|most (liked|shared|commented|viewed)|posts (with|have) the (highest|lowest|most|fewest)"
    r"|\b(highest|lowest|top|best|worst) [\w ]{0,24}\bposts\b"
    r"|top \d+\b(?! (\w+ )?(countries|sources|topics|brands|languages|tones|hooks)))"
)
_LIST = re.compile(
    r"^(show|quote|list|give me examples|examples|find|give me|can you show|please show)\b"
    r"|\bexamples of\b"
)
_FOLLOW = re.compile(
    rf"{CONTINUES.pattern}|^make it\b|\binstead\b|\b(of them|of those|those|these|them|their)\b"
)
"""A turn that continues the chat's last figure: the planner's openings (one list), an
edit ("make it the top 5", "the median instead") or a word pointing back."""
_RESIZED = re.compile(r"\b(?:top|first|best|bottom|last) (\d+)\b|\b(\d+) instead\b")
_NARROW = re.compile(r"\b(of them|of those|which of those|those|these|their|them)\b")
_SPLIT_PARTS = re.compile(
    r"[?;]+|\.\s+|,?\s+(?:and|also)\s+(?=(?:how many|what|which|count|also count|the)\b)"
)
_COMMENT = re.compile(
    # "comments on tiktok posts mention sugar": the posts' words are left to the others
    r"\bcomments?(?P<on> (?:on|under) (?:\S+ ){0,4}?(?:posts?|videos?|reels?))?"
    r" (?:(?:that|which) )?(?P<neg>(?:do|does|did) not |never )?(?P<verb>"
    r"(?P<ask>(?:that |which )?(?:are |were )?asking|(?:that |which )?(?:asks?|asked))"
    r"|(?:(?:that|which) )?(?:(?:are|is|were|was) )?(?:saying|says?|said|with|about"
    r"|mention(?:s|ed|ing)?|contain(?:s|ed|ing)?|includ(?:e|es|ed|ing)|discuss(?:es|ed|ing)?"
    r"|(?:talk|complain)(?:s|ed|ing)? about|refer(?:s|red|ring)? to))"
    r" (?:that )?(?:the (?:words?|phrase) )?(?P<phrase>.+?)(?:\?|$|,| and | on | in | per | by )"
)
COMMENT_OWN = {"likes": "comment_likes", **{dim: f"comment_{dim}" for dim in TIME_DIMS}}
"""What a comment carries itself, asked of the comments ("comments with more than 10
likes", "comments written in the last 30 days"): the post's condition -> the comment's."""
COMMENT_DIMS = ("comment", "asking", "comment_sentiment", "comment_replies", *COMMENT_OWN.values())
"""Conditions a comment passes (the others are passed by a post)."""
_REPLIES = re.compile(
    rf"\b(?:(?P<op>{'|'.join(('at least', 'more than', 'over', 'fewer than', 'less than'))})"
    r" (?P<n>\d+|one|a)|(?P<any>an?|any|one or more)|(?P<none>no|zero|0|without(?: any)?))"
    r" (?:repl(?:y|ies)|answers?)\b"
)
"""A count of comments by their own replies ("at least one reply", "no replies")."""
_COMMENTS_COUNTED = re.compile(
    r"\b(?:how many|number of|count(?: of)?(?: the)?|total(?: number)? of"
    r"|(?:share|percentage|percent|proportion|fraction) of(?: the)?) comments\b"
)
_COMMENTS_ARE = re.compile(
    _COMMENTS_COUNTED.pattern + r" (?:(?:that|which) )?(?P<verb>are|were|is|was|have|has|had"
    r"|got|get|gets|received|receive|receives|written|posted|left|made)\b(?! there\b)"
)
"""A count of comments whose own words say what the comments are ("how many comments are
negative"): the conditions said after the verb are asked of the comments."""
_COMMENTS_DESCRIBED = re.compile(
    r"\b(?:how many|number of|count of|total(?: number)? of"
    r"|(?:share|percentage|percent|proportion|fraction) of)(?: the)? (?P<said>(?:(?!(?:posts?"
    r"|videos?|reels?|have|has|had|with|got|gets?|received|do|does|did|are|were|is|was)\b)"
    r"\S+ ){1,3}?)comments\b"
)
"""A count of comments described before the noun ("how many negative comments")."""
COMMENT_CARRIES = "its text, author, likes, replies and date"
"""What a collected comment carries (the Mention's ``comments`` of the spec)."""


_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}


def _tokens(text: str) -> list[str]:
    """The words of ``text``, a negation written out ("don't" is "do not": a filter it
    negates must not be read as the filter itself).

    >>> _tokens("posts that don't mention price, can't")
    ['posts', 'that', 'do', 'not', 'mention', 'price', ',', 'can', 'not']
    """
    out: list[str] = []
    for token in _TOKEN.findall(text):
        token = token.strip("'")
        if token.endswith("n't") and len(token) > 3:
            verb = token[:-3]
            out += [_CONTRACTED.get(verb, verb), "not"]
        elif token:
            out.extend(SHORTHAND.get(token, token).split())
    return out


# --- the phrase table of a scope -------------------------------------------------------


@dataclass(frozen=True)
class _Phrase:
    words: tuple[str, ...]
    dim: str
    value: str


def _forms(label: str) -> set[str]:
    base = label.lower().replace("_", " ")
    forms = {base}
    if not base.endswith("s"):
        forms.add(base + "s")
    if base.endswith("y"):
        forms.add(base[:-1] + "ies")
    return forms


_THEME_INTENTIONS = frozenset({"question", "complaint", "recommendation", "comparison"})


def _phrases(table: Table) -> list[_Phrase]:
    """Every phrase that names a value in this scope, longest first."""
    return list(table.derived("phrases", lambda: _find_phrases(table)))


def _find_phrases(table: Table) -> list[_Phrase]:
    found: dict[tuple[str, ...], _Phrase] = {}

    def add(text: str, dim: str, value: str) -> None:
        words = tuple(_tokens(text.lower()))
        if words and words not in found:
            found[words] = _Phrase(words, dim, value)

    for source in vocab.SOURCES:
        add(source, "source", source)
        add(f"{source}s", "source", source)  # "tiktoks"
    for dim, names in VALUE_NAMES.items():
        for said, value in names.items():
            add(said, dim, value)
    # A dataset's name before a label spelt alike: "posted in Garden tools" is the dataset,
    # not the posts of the brand's own account "Garden tools" (the first phrase added wins)
    for lowered, value in table.labels("dataset").items():
        for form in _name_forms(lowered):
            add(form, "dataset", value)
    for dim in ("brand", "author", "tone", "intention", "emotion", "sentiment"):
        for lowered, value in table.labels(dim).items():
            if dim == "emotion" and lowered == "neutral":
                continue  # "neutral" is the sentiment label; the emotion is said in full
            if dim == "intention" and lowered in _THEME_INTENTIONS:
                continue  # "questions", "complaints": themes; said as "... posts" below
            for form in _forms(lowered):
                if dim == "intention" and form == lowered.replace("_", " "):
                    add(f"{form} posts", dim, value)  # "a product review" is no filter
                    continue
                add(form, dim, value)
    for lowered in _THEME_INTENTIONS:
        if lowered in table.labels("intention"):
            add(f"{lowered} posts", "intention", table.labels("intention")[lowered])
    for name in OTHER_SOURCES:
        add(name, "other_source", name)
    for lowered, value in table.labels("weekday").items():
        for form in _forms(lowered):
            add(form, "weekday", value)
    for form in ("weekend", "weekends"):
        add(form, "weekday", _WEEKEND)
    return sorted(found.values(), key=lambda p: -len(p.words))


_WEEKEND = "Saturday|Sunday"
"""The weekend, as the values of the weekday dimension (UTC)."""


def _name_forms(name: str) -> set[str]:
    """A dataset's name as a question says it: as written, its last word singular or
    plural ("the student loan posts" of "Student loans", "home gyms" of "Home gym")."""
    words = name.replace("_", " ").split()
    if not words:
        return set()
    last = words[-1]
    forms = {" ".join([*words[:-1], form]) for form in _forms(last)}
    if len(last) > 3 and last.endswith("s") and not last.endswith("ss"):
        forms.add(" ".join([*words[:-1], last[:-1]]))
    return forms


def _context_phrases(table: Table, dim: str) -> list[_Phrase]:
    """Values only read in their context (hooks near "hook", CTAs near "call to action")."""

    def find() -> list[_Phrase]:
        out = [
            _Phrase(tuple(_tokens(form)), dim, value)
            for lowered, value in table.labels(dim).items()
            for form in _forms(lowered)
        ]
        return sorted(out, key=lambda p: -len(p.words))

    return list(table.derived(("context", dim), find))


# --- reading one part --------------------------------------------------------------------


@dataclass
class _Part:
    text: str
    tokens: list[str]
    used: list[bool]
    conds: list[tuple[int, Cond]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    cased: frozenset[str] = frozenset()  # words capitalised inside a sentence ("On")
    comment_only: list[Cond] = field(default_factory=list)  # see _asked_of_comments

    def take(self, start: int, length: int) -> None:
        for i in range(start, min(start + length, len(self.used))):
            self.used[i] = True

    def find(self, words: Sequence[str], start: int = 0) -> int:
        n = len(words)
        for i in range(start, len(self.tokens) - n + 1):
            if not any(self.used[i : i + n]) and tuple(self.tokens[i : i + n]) == tuple(words):
                return i
        return -1


_NEGATORS = {"not", "non", "no", "without", "excluding", "except", "nor", "never"}


_LINKS = frozenset(
    {
        "from",
        "in",
        "on",
        "by",
        "mention",
        "about",
        "written",
        "posted",
        "published",
        "come",
        "comes",
        "came",
        "coming",
        "originate",
        "originating",
        "appear",
        "appearing",
        "made",
        "are",
        "is",
        "were",
        "was",
    }
)
"""Words between a negator and what it negates ("not written in English")."""


_EXCEPT = frozenset({"besides", "excluding", "except", "apart", "aside", "after"})
_SETTING_ASIDE = frozenset(
    {"but", "other", "than", "from", "leaving", "leave", "setting", "putting", "out"}
)
"""Words that leave a value out of a ranking ("after Germany, which country...", "apart
from Reddit", "besides TikTok"): the value is excluded, the ranking runs on the rest."""


_ARTICLES = frozenset(
    {
        "the",
        "a",
        "from",
        "for",
        "den",
        "dem",
        "der",
        "die",
        "das",
        "le",
        "la",
        "les",
        "l",
        "el",
        "los",
        "las",
        "il",
        "lo",
        "gli",
        "i",
        "o",
        "os",
        "as",
    }
)
"""Words between an exclusion and its value ("apart from the US", "abgesehen von den USA")."""
_LIST_JOINS = frozenset({"and", "or", "nor", "et", "ou", "ni", "y", "und", "oder", "e", "né"})


def _negated(part: _Part, at: int) -> bool:
    window = part.tokens[max(0, at - 3) : at]
    if "other" in window and "than" in window:
        return True
    before = [t for t in part.tokens[max(0, at - 3) : at] if t not in _ARTICLES]
    if before and before[-1] in _EXCEPT and (before[-1] != "after" or _ranks(part.text)):
        return True
    if before[-2:] in (["leaving", "out"], ["leave", "out"]):  # "leaving out the US"
        return True
    if at >= 1 and part.tokens[at - 1] in _NEGATORS | {"neither"}:
        return True
    k = at - 1  # "not from the US", "neither in English": links and articles between
    while k >= 0 and at - k <= 4 and part.tokens[k] in _LINKS | {"the", "a", "an"}:
        k -= 1
    return k >= 0 and k < at - 1 and part.tokens[k] in {"not", "but", "nor", "neither", "never"}


def _listed_after_a_negated(part: _Part, at: int, dim: str) -> bool:
    """A value listed after a negated one of its dimension ("apart from the US and the
    UK", "excluding TikTok or YouTube", "not in English or French"): negated too.

    >>> part = _Part("", "apart from us and the uk".split(), [True] * 3 + [False] * 3)
    >>> part.conds = [(2, Cond("country", ("US",), negate=True))]
    >>> _listed_after_a_negated(part, 5, "country")
    True
    """
    k = at - 1
    while k >= 0 and part.tokens[k] in _ARTICLES | {"an", ","}:
        k -= 1
    if k < 1 or part.tokens[k] not in _LIST_JOINS:
        return False
    return any(c.dim == dim and c.negate and k - 4 <= p < k for p, c in part.conds)


_OWN = frozenset({"account", "accounts", "posts", "post", "channel", "profile", "page"})
_POSSESSIVES = frozenset({"its", "their", "his", "her"})


def _own(part: _Part, table: Table) -> None:
    """ "Peloton's own account / posts": the posts that author wrote (an author filter),
    not the posts that mention the name."""
    authors = table.labels("author")
    for i, token in enumerate(part.tokens):
        if token != "own" or i == 0 or part.used[i]:
            continue
        for size in (2, 1):  # "mei fernandez's own", "peloton's own"
            words = part.tokens[max(0, i - size) : i]
            if len(words) < size or not words[-1].endswith("'s"):
                continue
            name = " ".join([*words[:-1], words[-1][:-2]])
            if name in authors:
                end = i + 1 + (part.tokens[i + 1 : i + 2] != [] and part.tokens[i + 1] in _OWN)
                part.take(i - size, end - (i - size))
                _add(part, i - size, Cond("author", (authors[name],)))
                break


def _own_brand(part: _Part, table: Table) -> None:
    """ "Peloton ... from its own account": the brand named is the author."""
    at = next(
        (
            i
            for i in range(1, len(part.tokens))
            if part.tokens[i] == "own" and not part.used[i] and part.tokens[i - 1] in _POSSESSIVES
        ),
        None,
    )
    authors = table.labels("author")
    if at is None:
        return
    for k, (where, cond) in enumerate(part.conds):
        if cond.dim == "brand" and not cond.negate and cond.values[0].lower() in authors:
            part.conds[k] = (where, Cond("author", (authors[cond.values[0].lower()],)))
            more = part.tokens[at + 1 : at + 2] != [] and part.tokens[at + 1] in _OWN
            part.take(at - 1, 2 + more)
            return


_SIGNED = re.compile(
    r"\b(most|more|least|less) (negative|positive)\b(?= (?:\w+ ){0,2}(sentiment|score|tone))"
)


def _signed_order(part: _Part) -> bool | None:
    """ "The most negative average sentiment score": the lowest score, not a filter on
    negative posts (the words taken); ``True`` for the lowest, ``False`` for the highest,
    ``None`` when not said."""
    found = _SIGNED.search(part.text)
    if found is None:
        return None
    part.take(len(part.text[: found.start()].split()), 2)
    return (found[1] in ("most", "more")) == (found[2] == "negative")


_WROTE = (
    "write",
    "wrote",
    "written",
    "post",
    "posted",
    "publish",
    "published",
    "author",
    "authored",
    "create",
    "created",
    "share",
    "shared",
)


def _authored(part: _Part, table: Table) -> None:
    """ "How many posts did Northwind write", "Northwind posted", "written by Northwind":
    a brand that is also an author, said with a verb of writing, is the author filter
    (the brand's own posts), not the posts that mention it."""
    authors = table.labels("author")
    for k, (at, cond) in enumerate(part.conds):
        if cond.dim != "brand" or cond.negate or cond.values[0].lower() not in authors:
            continue
        name = cond.values[0].lower().split()
        end = at + len(name)
        near = set(part.tokens[max(0, at - 2) : at]) | set(part.tokens[end : end + 2])
        if near & set(_WROTE):
            part.conds[k] = (at, Cond("author", (authors[cond.values[0].lower()],)))
            for i in range(max(0, at - 2), min(len(part.tokens), end + 2)):
                if part.tokens[i] in _WROTE or part.tokens[i] == "by":
                    part.take(i, 1)


def _cue_before(part: _Part, at: int) -> bool:
    """Whether a topic cue comes right before ``at`` ("posts that mention home gym")."""
    before = [t for t in part.tokens[max(0, at - 3) : at] if t not in ("the", "a", "an")]
    return bool(before) and before[-1] in _TOPIC_CUES - {"about"}


def _add(part: _Part, at: int, cond: Cond) -> None:
    part.conds.append((at, cond))


def _take_negators(part: _Part, at: int) -> None:
    """The words that negate the value at ``at`` ("excluding", "other than", "apart
    from") are read: never named as not understood."""
    for k in range(max(0, at - 3), at):
        if part.tokens[k] in _NEGATORS | _EXCEPT | _SETTING_ASIDE:
            part.take(k, 1)


def _match_phrases(part: _Part, phrases: Sequence[_Phrase], window: set[int] | None = None) -> None:
    present = set(part.tokens)
    for phrase in phrases:
        if not present.issuperset(phrase.words):
            continue  # most phrases of the scope are not in the question: skip them cheaply
        if (
            phrase.dim in ("brand", "author")
            and FUNCTION_WORDS.issuperset(phrase.words)
            and not part.cased.issuperset(phrase.words)
        ):
            continue  # the brand "On" is said "On", never "on tiktok"
        start = 0
        while (at := part.find(phrase.words, start)) >= 0:
            start = at + 1
            if window is not None and at not in window:
                continue
            if phrase.dim == "media" and phrase.value != "none":
                before = part.tokens[max(0, at - 2) : at]
                if not {"have", "has", "with", "contain", "contains", "include"} & set(before):
                    continue  # "TikTok videos" are posts, "posts with a video" have media
            part.take(at, len(phrase.words))
            if phrase.dim == "other_source":
                part.notes.append(
                    f"{phrase.value.title()} is not a source the service collects from"
                    f" (sources: {', '.join(vocab.SOURCES)})"
                )
                _add(part, at, Cond("source", (phrase.value,)))
                continue
            negate = _negated(part, at)
            if negate:
                _take_negators(part, at)
            if at >= 1 and part.tokens[at - 1] == "non":
                part.take(at - 1, 1)
            if phrase.dim == "content_type" and (phrase.value == "ad") == negate:
                _add(part, at, NOT_AN_AD)  # "organic", "not ads": not known to be an ad
            elif phrase.dim == "content_type":
                _add(part, at, Cond("content_type", ("ad",)))  # "ads", "not organic"
            elif phrase.dim == "dataset" and _cue_before(part, at):
                part.used[at : at + len(phrase.words)] = [False] * len(phrase.words)
            else:
                _add(part, at, Cond(phrase.dim, tuple(phrase.value.split("|")), negate))
    for index, (at, cond) in sorted(enumerate(part.conds), key=lambda item: item[1][0]):
        if not cond.negate and _listed_after_a_negated(part, at, cond.dim):
            part.conds[index] = (at, replace(cond, negate=True))


def _split_hyphens(tokens: list[str]) -> list[str]:
    out = []
    for token in tokens:
        if token.startswith("non-") and len(token) > 4:
            out += ["non", token[4:]]
        else:
            out.append(token)
    return out


_TOPIC_CUES = frozenset(
    [
        "mention",
        "mentions",
        "mentioning",
        "mentioned",
        "about",
        "discuss",
        "discussing",
        "regarding",
        "containing",
        "contain",
        "word",
        "words",
        "talk",
        "talking",
        "talks",
    ]
)


def _keywords(part: _Part, table: Table, names: Sequence[str]) -> None:
    """Words after a topic cue ("mention", "about", "talk about"...) and the data's topic
    words anywhere: keyword conditions. The dataset's own name or search words name the
    scope ("posts in Oat milk"), except as the words a post is asked to say: "how many
    posts mention oat milk" counts the posts that say it, which not every post collected
    for the search does."""
    name_words = {tuple(_tokens(n.lower())) for n in names if n}
    for name in sorted(name_words, key=len, reverse=True):
        start = 0
        while (at := part.find(name, start)) >= 0:
            start = at + 1
            before = [t for t in part.tokens[max(0, at - 2) : at] if t not in ("the", "a")]
            if not (before and before[-1] in _TOPIC_CUES - {"about"}):
                part.take(at, len(name))
    topics = {tuple(_tokens(t.replace("_", " "))) for t in table.labels("topic")}
    tokens = part.tokens
    cues = _TOPIC_CUES
    terms: list[tuple[int, str]] = []
    joiners: list[str] = []
    for i, token in enumerate(tokens):
        if token not in cues or part.used[i]:
            continue
        j = i + 1
        while j < len(tokens) and tokens[j] in {"the", "a", "an", "about", "of", "it", "its"}:
            j += 1
        words: list[str] = []
        while j < len(tokens) and not part.used[j] and tokens[j] not in STOP_WORDS - {"milk"}:
            if tokens[j] in _FILLER or not re.match(r"^[\w'-]+$", tokens[j]):
                break
            words.append(tokens[j])
            j += 1
        if words:
            terms.append((i + 1, " ".join(words)))
            part.take(i + 1, j - i - 1)
            # "X or Y", "X and Y", "X but not Y": each further term keeps its own sign
            while j + 1 < len(tokens) and tokens[j] in {"or", "and", "but"}:
                k = j + 1
                if tokens[k] == "not":
                    k += 1
                elif tokens[j] == "but":
                    break
                said_at = k  # right after "not": the term is negated (_negated)
                if k < len(tokens) and tokens[k] in {"the", "a"}:
                    k += 1
                extra = []
                while k < len(tokens) and not part.used[k] and tokens[k] not in STOP_WORDS:
                    if tokens[k] in _FILLER:
                        break
                    extra.append(tokens[k])
                    k += 1
                if not extra:
                    break
                joiners.append(tokens[j])
                terms.append((said_at, " ".join(extra)))
                part.take(j, k - j)
                j = k
        part.take(i, 1)
    for topic_words in sorted(topics, key=len, reverse=True):
        start = 0
        while (at := part.find(topic_words, start)) >= 0:
            start = at + 1
            if "topic" in tokens or "topics" in tokens:
                part.take(at, len(topic_words))
                _add(part, at, Cond("topic", (table.labels("topic")[" ".join(topic_words)],)))
            elif tokens[at - 1 : at] != ["per"] and not _QUESTION_WORDS.issuperset(topic_words):
                part.take(at, len(topic_words))
                terms.append((at, " ".join(topic_words)))
    if not terms:
        return
    every = "and" in joiners or "both" in tokens
    # Each term keeps its own sign: "comfort but not price" is comfort AND NOT price.
    signs = [_negated(part, at) for at, _ in terms]
    negate = signs[0]
    if negate and not all(signs):  # "not about X or Y" negates the whole list
        signs = [True] * len(terms)
    for sign in dict.fromkeys(signs):
        kept = [(at, term) for (at, term), s in zip(terms, signs, strict=True) if s == sign]
        values = tuple(dict.fromkeys(_singular(term) for _, term in kept))
        _add(part, kept[0][0], Cond("keyword", values, sign, every and len(values) > 1))


_QUESTION_WORDS = frozenset(_MEASURE_WORDS) | _FILLER | FUNCTION_WORDS | INSTRUCTION_WORDS
"""Words a question is made of: a content topic with only these ("share") is
matched after a topic cue ("mention share"), never anywhere."""


def _singular(term: str) -> str:
    words = term.split()
    last = words[-1]
    if len(last) > 4 and last.endswith("s") and not last.endswith("ss"):
        words[-1] = last[:-1]
    return " ".join(words)


_HAS = re.compile(
    r"\b(have|has|had|having|with|without|use|uses|used|using|include|includes|included"
    r"|contain|contains|carry|carries|feature|features|no)\s+(a |an |any |the )?$"
)


_LACKS = re.compile(r"\b(no|without|not have|lack|lacks)\b(\s+\w+){0,2}\s*$")


def _near(tokens: Sequence[str], anchors: set[str], before: int, after: int) -> set[int]:
    """Token positions within ``before``/``after`` tokens of an anchor word."""
    out: set[int] = set()
    for i, token in enumerate(tokens):
        if token in anchors:
            out.update(range(max(0, i - before), min(len(tokens), i + after + 1)))
    return out


_LISTING = frozenset({"list", "show", "give", "name", "rank"})
"""Verbs a question opens with that are also a label's name (the hook type "list")."""


def _context_values(part: _Part, table: Table) -> None:
    """Values only read next to their dimension's word: hooks ("a question hook"), content
    topics ("the topic price"), calls to action ("a Save call to action", "ask people to
    save"); a bare "shares" is a metric, not the CTA "Share"."""
    tokens = part.tokens
    text = " ".join(tokens)
    hooks = _near(tokens, {"hook", "hooks"}, 4, 3)
    if tokens and tokens[0] in _LISTING:  # "list the top 3 hook types": the verb, not "list"
        hooks.discard(0)
    _match_phrases(part, _context_phrases(table, "hook"), hooks)
    after_cue = {
        i
        for i in range(1, len(tokens))
        if tokens[i - 1] in _TOPIC_CUES
        or (i >= 2 and tokens[i - 1] in {"the", "a"} and tokens[i - 2] in _TOPIC_CUES)
    }
    near_topic = _near(tokens, {"topic", "topics"}, 5, 4) - after_cue  # "mention price"
    _match_phrases(part, _context_phrases(table, "topic"), near_topic)
    cta = re.search(r"\b(call to action|calls to action|cta|ctas)\b", text)
    window = _near(tokens, {"cta", "ctas"}, 4, 2)
    if cta:
        at = len(text[: cta.start()].split())
        end = at + len(cta[0].split())
        window |= set(range(max(0, at - 4), at))
        if tokens[end : end + 1] in (["is"], ["like"], ["of"]):
            window |= set(range(end + 1, end + 4))
    asks = re.search(r"\bask(s)? (people|viewers|readers|users|you) to\b", text)
    if asks:
        at = len(text[: asks.start()].split())
        window |= set(range(at + 3, at + 8))
    if window:
        _match_phrases(part, _context_phrases(table, "cta"), window)
    if cta:
        before = text[: cta.start()]
        if not any(c.dim == "cta" for _, c in part.conds) and _HAS.search(before):
            at = len(before.split())
            none = bool(_LACKS.search(before))
            part.take(at, len(cta[0].split()))
            _add(part, at, Cond("cta", ("none",) if none else ("any",)))
    if "media" in tokens:
        at = tokens.index("media")
        if at and tokens[at - 1] in {"no", "without"}:
            part.take(at - 1, 2)
            _add(part, at, Cond("media", ("none",)))


def _time(part: _Part, newest: float) -> None:
    """The periods the question names, read by the one date reader
    (:func:`~rdskit.sandbox.assistant.dates.periods`, anchored on the newest post): a
    period whose words an earlier reading took (a quoted phrase, a comment) is left alone."""
    text = " ".join(part.tokens)
    anchor = datetime.fromtimestamp(newest, UTC).date()
    spans: dict[tuple[int, int], list[Period]] = {}
    for period in periods(text, anchor):  # "between A and B": one span, two periods
        spans.setdefault((period.start, period.end), []).append(period)
    for (start, end), said in spans.items():
        at, words = len(text[:start].split()), text[start:end].split()
        if any(part.used[at : at + len(words)]):
            continue
        part.take(at, len(words))
        for period in said:  # each bound at its own day: "between" keeps both
            where = at + (words.index(period.value) if period.value in words else 0)
            _add(part, where, Cond(period.dim, (period.value,)))


def _hashtags(part: _Part, text: str) -> None:
    """A hashtag is searched as written in the text ("#budgeting", not every post that says
    "budgeting"); a tag no post uses matches none, which the answer says."""
    tagged = False
    for found in HASHTAG.finditer(text):
        at = part.find([found[1].lower()])
        if at >= 0:
            part.take(at, 1)
            negate = _negated(part, at)  # "apart from #fyp, which hashtag ...": left out
            if negate:
                _take_negators(part, at)
            _add(part, at, Cond("hashtag", (found[1].lower(),), negate))
            _take_text(part, ["hashtag"])
            _take_text(part, ["hashtags"])
            tagged = True
    words = " ".join(part.tokens)
    said = re.search(r"\bhashtags?\b", words)
    before = words[: said.start()] if said else ""
    some = re.search(r"\b(?:at least one|one or more) $", before)  # "at least one hashtag"
    core = before[: some.start()] if some else before
    if not tagged and said and _HAS.search(core) and not re.search(r"\bmost used $", before):
        # "posts that use a hashtag", "posts without hashtags": any tag at all, or none
        at = len(before.split())
        first = len(core.split())
        part.take(first, at + 1 - first)
        _add(part, at, Cond("hashtag", ("any",), bool(_LACKS.search(core))))


def _quoted(part: _Part, text: str) -> None:
    """A phrase in quotes is searched as written ("flat white art")."""
    for found in re.finditer(r"[\"“”]([^\"“”]{2,60})[\"“”]", text):
        words = _tokens(found[1].lower())
        at = part.find(words)
        if words and at >= 0:
            part.take(at, len(words))
            _add(part, at, Cond("keyword", (" ".join(words),)))


_OPERATORS = {
    "more than": ">",
    "over": ">",
    "above": ">",
    "greater than": ">",
    "higher than": ">",
    "at least": ">=",
    "no less than": ">=",
    "no fewer than": ">=",
    "minimum of": ">=",
    "fewer than": "<",
    "less than": "<",
    "under": "<",
    "below": "<",
    "lower than": "<",
    "at most": "<=",
    "no more than": "<=",
    "maximum of": "<=",
    "up to": "<=",
    "exactly": "=",
}
_OP = "|".join(sorted(map(re.escape, _OPERATORS), key=len, reverse=True))


def _metric_words() -> str:
    said = {s for m in METRICS.values() if not m.comments for s in m.said}
    return "|".join(sorted(map(re.escape, said), key=len, reverse=True))


_THRESHOLD = re.compile(
    rf"\b(?:(?P<op>{_OP}) (?P<n>-?\d+(?:\.\d+)?)(?P<pct>%)?|(?P<zero>no|zero|0|without(?: any)?"
    r"|(?:do|does|did) not (?:have|has|get|got|receive) any)) "
    rf"(?P<m>{_metric_words()})\b"
    rf"|\b(?P<m2>{_metric_words()}) (?:(?:is|are|of|count) )?(?P<op2>{_OP})"
    r" (?P<n2>-?\d+(?:\.\d+)?)(?:(?P<pct2>%)|\b)"
)


_THRESHOLD_ANY_CASE = re.compile(_THRESHOLD.pattern, re.IGNORECASE)


def without_thresholds(text: str) -> str:
    """``text`` without its metric thresholds: what the intent planner reads, so that "no
    comments" narrows the posts instead of asking about comments.

    >>> without_thresholds("Which emotions show up in posts with no comments?")
    'Which emotions show up in posts with  ?'
    """
    return _THRESHOLD_ANY_CASE.sub(" ", _numbers(text))


def _numbers(text: str) -> str:
    """Numbers as the reader compares them: "10,000" -> "10000", "1.5k" -> "1500",
    "2m" -> "2000000", "1000+" -> "at least 1000".

    >>> _numbers("posts with 1.5k+ views and over 10,000 likes")
    'posts with at least 1500 views and over 10000 likes'
    >>> _numbers("más de 20.000 visualizaciones, plus de 1 000 vues")
    'más de 20000 visualizaciones, plus de 1000 vues'
    """
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    # Thousands written as in French, Spanish, German, Portuguese or Italian: "20.000",
    # "1 000" (a dot or space before every group of three digits)
    text = re.sub(
        r"\b\d{1,3}(?:[. ]\d{3})+\b(?![.,]\d)",
        lambda found: re.sub(r"[. ]", "", found[0]),
        text,
    )

    def scale(found: re.Match[str]) -> str:
        value = float(found[1]) * {"k": 1e3, "m": 1e6}[found[2]]
        return f"{value:.0f}"

    text = re.sub(r"\b(\d+(?:\.\d+)?)\s?(k|m)\b", scale, text)
    return re.sub(r"\b(\d+(?:\.\d+)?)\+", r"at least \1", text)


_BETWEEN = re.compile(
    rf"\b(?:(?P<m>{_metric_words()}) (?:(?:is|are|of|count) )?)?between (?P<low>\d+(?:\.\d+)?)"
    rf" and (?P<high>\d+(?:\.\d+)?)(?: (?P<m2>{_metric_words()}))?\b"
)


def _thresholds(part: _Part) -> None:
    """A metric compared with a number ("more than 1000 views", "likes over 500", "no
    comments", "at least 10000 views"): the condition ``Cond(metric, (op, number))``; a
    range ("likes between 100 and 500", both ends in) is two of them."""
    text = " ".join(part.tokens)
    said = {s: m.name for m in METRICS.values() if not m.comments for s in m.said}
    for found in _BETWEEN.finditer(text):
        if not (found["m"] or found["m2"]):
            continue  # "between March and May": dates, read by the date reader
        at = len(text[: found.start()].split())
        metric = said[found["m"] or found["m2"]]
        part.take(at, len(found[0].split()))
        _add(part, at, Cond(metric, (">=", found["low"])))
        _add(part, at, Cond(metric, ("<=", found["high"])))
        part.text = part.text.replace(found[0], " ")
    last: tuple[int, int, Cond] | None = None  # the threshold read before: start, end
    for found in _THRESHOLD.finditer(text):
        at = len(text[: found.start()].split())
        if any(part.used[at : at + len(found[0].split())]):
            continue
        metric = said[found["m"] or found["m2"]]
        if found["zero"]:
            op, number = "=", "0"
        else:
            op = _OPERATORS[found["op"] or found["op2"]]
            number = found["n"] or found["n2"]
            if found["pct"] or found["pct2"]:  # "under 1% engagement rate": a rate of 0.01
                if not metric.endswith("_rate"):
                    continue  # "1% of likes" is not a number of likes
                number = repr(float(number) / 100)
        part.take(at, len(found[0].split()))
        cond, end = Cond(metric, (op, number)), at + len(found[0].split())
        if last is not None and last[2].dim == metric and part.tokens[last[1] : at] == ["or"]:
            # "fewer than 10 likes or more than 10000 likes": either bound, one condition
            part.take(last[1], 1)
            part.conds.remove((last[0], last[2]))
            cond, at = Cond(metric, last[2].values + cond.values), last[0]
        _add(part, at, cond)
        last = (at, end, cond)
        part.text = part.text.replace(found[0], " ")  # the metric is a filter, not a measure


_AGAINST = re.compile(
    rf"\b(?P<op>more|fewer|less|higher|lower) (?P<m>{_metric_words()}) than (?:the )?"
    r"(?P<stat>average|mean|median)\b"
    r"|\b(?P<op2>above|below)[ -](?:the )?(?P<stat2>average|mean|median)"
    rf"(?: (?P<m2>{_metric_words()}))?\b"
    rf"|\b(?P<m3>{_metric_words()}) (?:(?:is|are) )?(?P<op3>above|below|over|under) (?:the )?"
    r"(?P<stat3>average|mean|median)\b"
)
_ABOVE = {"more", "higher", "above", "over"}


def _against_statistic(part: _Part, table: Table) -> None:
    """A metric compared with its own average or median ("more likes than average",
    "above-average views"): a threshold at that figure of the scope's posts, which the
    answer states in a note."""
    text = " ".join(part.tokens)
    said = {s: m.name for m in METRICS.values() if not m.comments for s in m.said}
    for found in _AGAINST.finditer(text):
        at = len(text[: found.start()].split())
        named = found["m"] or found["m2"] or found["m3"]
        if named is None or any(part.used[at : at + len(found[0].split())]):
            continue
        metric, stat = said[named], found["stat"] or found["stat2"] or found["stat3"]
        values = [float(r[metric]) for r in table.rows if r.get(metric) is not None]
        if not values:
            continue
        figure = statistics.median(values) if stat == "median" else statistics.fmean(values)
        op = ">" if (found["op"] or found["op2"] or found["op3"]) in _ABOVE else "<"
        part.take(at, len(found[0].split()))
        _add(part, at, Cond(metric, (op, repr(figure) if figure % 1 else f"{figure:.0f}")))
        part.notes.append(
            f"the {'median' if stat == 'median' else 'average'} {named} of the"
            f" {len(values):,} posts in scope is {figure:,.2f}"
        )
        part.text = part.text.replace(found[0], " ")  # a filter, not the measure


def _comment(part: _Part) -> None:
    text = " ".join(part.tokens)
    found = _COMMENT.search(text + " ?")
    if found:
        start = found.start("neg") if found["neg"] else found.start("verb")
        at = len(text[:start].split())
        phrase = found["phrase"].strip()
        part.take(len(text[: found.start()].split()), 1)  # "comments"
        # The words after the phrase ("in 2025", "by source") are left to the others.
        part.take(at, len(text[start : found.end("phrase")].split()))
        negate = found["neg"] is not None  # "comments that don't mention the price"
        if found["ask"] is None:  # "comments saying it is too sweet": the words as written
            said = phrase.split()
            while len(said) > 1 and said[0] in FUNCTION_WORDS:  # "about the price"
                said.pop(0)
            _add(part, at, Cond("comment", (" ".join(said),), negate))
        else:
            _add(part, at, Cond("asking", _asked_about(phrase), negate))


def _asked_about(phrase: str) -> tuple[str, ...]:
    """What a comment asking ``phrase`` mentions: the words of a subject people write
    (:data:`CONCEPTS`: "how much it cost" is asked as "How much did you pay?"), else the
    phrase's content words; none (any question) for "asking questions".

    >>> _asked_about("how much it cost")[:4], _asked_about("about the foam")
    (('price', 'pricing', 'cost', 'pay'), ('foam',))
    >>> _asked_about("questions")
    ()
    """
    for words in CONCEPTS.values():
        stems = {stem(word) for word in words}
        if any(w in phrase for w in words if " " in w) or stems & {stem(w) for w in phrase.split()}:
            return words
    content = [w for w in phrase.split() if w not in STOP_WORDS and not w.startswith("question")]
    return tuple(content)


def _group(part: _Part) -> tuple[str | None, int | None, str]:
    text = " ".join(part.tokens)
    said = sorted(
        [(s, d.name) for d in DIMENSIONS.values() for s in d.said] + [("media", "media")],
        key=lambda p: -len(p[0]),
    )
    alternatives = "|".join(re.escape(s) for s, _ in said) + "|" + "|".join(PERIODS)
    plural = r"(?:s|es|ies)?"
    which = re.search(
        rf"\b(?:which|what)(?: is| was)?(?: the)? (?:(\w+) )?({alternatives}){plural}\b"
        r"(?: \w+){0,6}? (?:has|have|had|is|are|gets?|got|was|were)? ?(?:the )?"
        r"(most|highest|largest|biggest|fewest|least|lowest|smallest)?",
        text,
    )
    popular = re.search(  # "the most popular platform", "the least used language"
        rf"\b(?:the )?(?:(\w+) )?(?:most|least) (?:popular|common|frequent|used|active)"
        rf" ({alternatives}){plural}\b",
        text,
    ) or re.search(  # "the 3 hashtags most used", "which hashtags appear most often"
        rf"\b(?:the |which |what )?(?:(\w+) )?({alternatives}){plural}"
        rf" (?:(?:are|is|were|was|get|gets|got|appear|appears) )?(?:the )?(?:most|least)"
        rf" (?:popular|common|frequent|often|frequently|used|active)\b",
        text,
    )
    top_k = re.search(rf"\btop (?:(\w+) )?({alternatives}){plural}\b", text) or popular
    busiest = re.search(r"\b(busiest|peak|quietest|slowest) (day|week|month|year)\b", text)
    if busiest:  # "what was the busiest week": the period with the most posts
        _take_text(part, busiest[0].split())
        return busiest[2], 1, "desc" if busiest[1] in ("busiest", "peak") else "asc"
    by = re.search(
        rf"\b(?:per|by|each|every|across|split of|split by|broken down by|down by|breakdown"
        rf" by|for each|in each|by each) (?:the |their |content |dominant )?({alternatives})"
        rf"{plural}\b",
        text,
    )
    many = re.search(rf"\bhow many (?:different |distinct )?({alternatives}){plural}\b", text)
    if many and many[1] in dict(said) and dict(said)[many[1]] not in ("source", "author"):
        _take_text(part, [many[1]])
        return dict(said)[many[1]], None, "desc"
    if re.search(r"\b(ads|ad) (vs|versus|or) organic\b|\bads and organic\b", text):
        return "content_type", None, "desc"
    if re.search(r"\bsentiment split\b|\bsplit (of )?sentiment\b", text):
        return "sentiment", None, "desc"
    lookup = dict(said) | {p: p for p in PERIODS}
    for found, k_group in ((top_k, 2), (which, 2)):
        if found and found[k_group] in lookup and (found is top_k or _ranks(text)):
            name = lookup[found[k_group]]
            words = found[1] or ""
            k = int(words) if words.isdigit() else NUMBER_WORDS.get(words, 1)
            order = "asc" if re.search(r"\b(fewest|least|lowest|smallest)\b", text) else "desc"
            # "which burit source": a word before the dimension that is not its k is left
            # to the other readers (or named as not understood), never taken with "which"
            counted = not words or words.isdigit() or words in NUMBER_WORDS
            taken = found[0].split()
            if found is popular:
                taken = taken if counted else taken[taken.index(words) + 1 :]
            else:
                taken = taken[: 2 if counted else 1]
            _take_text(part, taken)
            return name, k, order
    if by and by[1] in lookup:
        _take_text(part, [by[1]])
        # "average likes by hashtag, top 3": the k said apart from the grouping
        k_said = re.search(r"\b(top|bottom) (\d+|" + "|".join(NUMBER_WORDS) + r")\b", text)
        if k_said and not re.search(r"\bposts?\b", text[k_said.end() :]):
            _take_text(part, k_said[0].split())
            k = int(k_said[2]) if k_said[2].isdigit() else NUMBER_WORDS[k_said[2]]
            return lookup[by[1]], k, "asc" if k_said[1] == "bottom" else "desc"
        return lookup[by[1]], None, "desc"
    versus = re.search(r"\b(?:vs|versus|compared (?:to|with)|against)\b", text)
    if versus:
        # "views on YouTube vs TikTok": a figure per value compared, not one of them pooled
        named: dict[str, set[str]] = {}
        for _, cond in part.conds:
            if not cond.negate and cond.dim in DIMENSIONS:
                named.setdefault(cond.dim, set()).update(cond.values)
        compared = [dim for dim, values in named.items() if len(values) > 1]
        if compared:
            _take_text(part, versus[0].split())
            return compared[0], None, "desc"
    return None, None, "desc"


_ORDINALS = {
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
    "5th": 5,
}
_COMPARED = frozenset(
    {
        "compare",
        "compared",
        "comparison",
        "each",
        "both",
        "which",
        "vs",
        "versus",
        "between",
        "respectively",
        "dataset",
        "datasets",
        "data",
        "set",
        "sets",
        "two",
        "three",
        "2",
        "3",
        "higher",
        "lower",
        "more",
        "fewer",
        "less",
        "larger",
        "bigger",
        "smaller",
        "greater",
        "most",
        "highest",
        "lowest",
        "fewest",
        "least",
        "or",
        "and",
        "per",
        "across",
        "one",
    }
)
"""Words that ask for a figure per dataset ("which of my two datasets has more...")."""


def _ordinal(part: _Part) -> int | None:
    """The rank a grouping asks for: "the second most", "third highest" (an ordinal
    before a ranking word), "ranks third" (a place), its words taken."""
    placed = _PLACED.search(part.text)
    if placed:
        part.take(len(part.text[: placed.start()].split()), len(placed[0].split()))
        return _ORDINALS[placed[1]]
    for i, token in enumerate(part.tokens[:-1]):
        if token in _ORDINALS and re.match(
            r"(most|highest|largest|biggest|fewest|least|lowest|smallest|busiest|common)",
            part.tokens[i + 1],
        ):
            part.take(i, 1)
            return _ORDINALS[token]
    nth = _NTH_GROUP.search(part.text)
    if nth is not None:  # "the second country by number of posts"
        part.take(len(part.text[: nth.start()].split()), 1)
        return _ORDINALS[nth[1]]
    return None


def _by_dataset(part: _Part, table: Table) -> tuple[str, int | None, str] | None:
    """A figure per dataset when the scope holds several and the question compares
    them: two datasets named ("Home gym vs Yoga mats", "A or B"), or the datasets
    themselves said ("which of my two datasets", "in each dataset"). Never pooled."""
    if len(table.labels("dataset")) < 2:
        return None
    named = {v for _, c in part.conds if c.dim == "dataset" and not c.negate for v in c.values}
    said = re.search(r"\b(datasets?|data sets?)\b", part.text)
    if len(named) < 2 and not said:
        return None
    if said and len(named) < 2 and not set(part.tokens) & (_COMPARED - {"dataset", "datasets"}):
        return None
    if len(named) < 2 and re.search(
        r"\b(in total|altogether|all together|combined|in all)\b", part.text
    ):
        return None  # "across all my datasets, how many posts in total": one figure asked
    for i, token in enumerate(part.tokens):
        if token in _COMPARED and not part.used[i]:
            part.take(i, 1)
    fewer = re.search(r"\b(fewer|fewest|less|least|lower|lowest|smaller)\b", part.text)
    return "dataset", None, "asc" if fewer else "desc"


_PLACED = re.compile(
    r"\b(?:ranks?|ranked|comes?|came|places?|placed|sits?|finishes|finished) (?:in )?(?:the )?"
    r"(second|third|fourth|fifth|2nd|3rd|4th|5th)\b"
)
"""A rank said as a place ("which platform ranks second by views", "comes third")."""


def _ranks(text: str) -> bool:
    return bool(
        re.search(r"\b(most|highest|largest|biggest|fewest|least|lowest|smallest|common)\b", text)
        or _PLACED.search(text)
        or _NTH_GROUP.search(text)
    )


_NTH_GROUP = re.compile(
    r"\b(second|third|fourth|fifth|2nd|3rd|4th|5th) (?!(?:day|week|month|year|quarter|half"
    r"|time|page|part)s?\b)[^\W\d_]+ (?:\w+ ){0,2}?(?:by|per|with|for|in) (?:the )?"
    r"(?:number|most|count|amount|highest|largest|fewest|lowest|total)\b"
)
"""An ordinal before what is ranked and how ("the second country by number of posts",
"la segunda fuente con más publicaciones", "il secondo paese per numero di post")."""


def _take_text(part: _Part, words: Sequence[str]) -> None:
    at = part.find(list(words))
    if at >= 0:
        part.take(at, len(words))


_RANKED = {"liked": "likes", "shared": "shares", "commented": "comments", "viewed": "views"}


def _metric(text: str) -> str | None:
    ranked = re.search(r"\b(?:most|least) (liked|shared|commented|viewed)\b(?! comments?\b)", text)
    if ranked:
        return _RANKED[ranked[1]]
    said = sorted(((s, m.name) for m in METRICS.values() for s in m.said), key=lambda p: -len(p[0]))
    for phrase, name in said:
        if re.search(rf"\b{re.escape(phrase)}\b", text):
            if name == "comments" and _COMMENT.search(text + " ?"):
                continue
            return name
    return None


def _measure(text: str, group: str | None, counts: bool) -> tuple[str | None, str | None]:
    """(measure, metric) said by a part; (None, None) when it asks no figure."""
    metric = _metric(text)
    ranks_posts = _RANK_POSTS.search(text) and not (metric and METRICS[metric].comments)
    if group is None and ranks_posts:  # "the most liked comment" is a comment's, not a post's
        return ("rank", metric) if metric else (None, None)
    if group is None and _LIST.search(text) and not _COUNT.search(text):
        return "list", None
    if _SHARE.search(text) and not re.search(r"\b(total|most|average) shares\b", text):
        return "share", None
    if _COMMENTERS.search(text):
        return "commenters", None
    if _AUTHORS.search(text):
        return "authors", None
    if metric is not None:
        if _MEDIAN.search(text):
            return "median", metric
        if _MEAN.search(text):
            return "mean", metric
        said = "|".join(map(re.escape, METRICS[metric].said))
        if _SUM.search(text) or re.search(rf"\bhow many ({said})\b", text):
            return "sum", metric
        if group is None and _MAX.search(text) and not ranks_posts:
            return "max", metric
        if group is None and _MIN.search(text) and not ranks_posts:
            return "min", metric
        if group is not None and re.search(r"\b(most|highest)\b", text):
            return "mean", metric
        if group is None and re.search(rf"\bnumber of ({said})\b", text):
            return "sum", metric  # "the number of comments on tiktok": all of them
        if group is not None and counts:  # "top 3 authors by views": their total views
            return "sum", metric
        if re.search(r"_(rate|score)$", metric) and re.search(r"\bwhat(?:'s| is| was)\b", text):
            return "mean", metric  # "what is the engagement rate": a rate's figure is its mean
    if counts:  # a follow-up or a later part: "what about the median?" keeps the metric
        for pattern, name in ((_MEDIAN, "median"), (_MEAN, "mean"), (_SUM, "sum")):
            if pattern.search(text):
                return name, None
        if re.search(r"\b(the )?(maximum|max|highest)\b", text):
            return "max", None
        if re.search(r"\b(the )?(minimum|min|lowest)\b", text):
            return "min", None
    # A grouping counts posts when it says so ("posts per month"); "sentiment by source"
    # alone is the sentiment analysis of the intent planner.
    often = re.search(
        r"\b(more|most|less|least) (often|frequent|frequently|common|commonly)\b", text
    )
    if _COUNT.search(text) or (
        group is not None and (counts or often or re.search(r"\bposts?\b", text))
    ):
        return "count", None
    return None, None


_CATALOGUE_WORDS = frozenset(
    word
    for said in [
        *(s for m in METRICS.values() for s in m.said),
        *(s for d in DIMENSIONS.values() for s in d.said),
    ]
    for word in said.split()
) | frozenset(
    word + "s"
    for said in [*(s for d in DIMENSIONS.values() for s in d.said)]
    for word in said.split()
)


_SAID = sorted(
    {s for m in METRICS.values() for s in m.said}
    | {s for d in DIMENSIONS.values() for s in d.said},
    key=len,
    reverse=True,
)
_SAID_PHRASE = re.compile(rf"\b({'|'.join(map(re.escape, _SAID))})(?:s|es)?\b")
_SINGLE_SAID = frozenset(s for s in _SAID if " " not in s) | {
    s + "s" for s in _SAID if " " not in s
}


def _unknown(part: _Part, names: Sequence[str]) -> list[str]:
    # A word of the catalogue is known when a whole phrase of it was said ("engagement
    # rate"), not alone ("verified" of "ad advertiser verified").
    catalogue = _SINGLE_SAID | {
        word for found in _SAID_PHRASE.finditer(part.text) for word in found[1].split()
    }
    name_words = {w for n in names for w in _tokens(n.lower())} | catalogue
    out: list[str] = []
    run: list[str] = []
    for token, used in zip(part.tokens, part.used, strict=True):
        content = (
            not used
            and re.match(r"^[^\W\d_][\w'-]*$|^@?\w*\d[\w.-]*$|^@\w+$", token)
            and token not in FUNCTION_WORDS
            and token not in INSTRUCTION_WORDS
            and token not in _FILLER
            and token not in name_words
            and token not in _MEASURE_WORDS
            and (len(token) > 2 or any(ch.isdigit() for ch in token))
        )
        if content:
            run.append(token)
        elif run and not used and re.match(r"^[^\W\d_]{1,2}$", token):
            run.append(token)  # "gen z"
        elif run:
            out.append(" ".join(run))
            run = []
    if run:
        out.append(" ".join(run))
    return out


def _cased(text: str) -> frozenset[str]:
    """Words written with a capital inside a sentence (lower-cased): "On" in "posts
    about On shoes", not "On" in "On TikTok, how many...".

    >>> sorted(_cased("On TikTok, how many posts mention On?"))
    ['on', 'tiktok']
    """
    words = re.findall(r"(?<![.?!:]\s)(?<!^)\b([A-Z][\w'-]*)", text.strip())
    return frozenset(word.lower() for word in words)


def _read_part(
    text: str,
    table: Table,
    names: Sequence[str],
    counts: bool = False,
    cased: frozenset[str] = frozenset(),
) -> tuple[Query | None, _Part]:
    """One part of a question; ``counts``: a grouping alone is a count (a follow-up, a
    later part, a top-k of groups); ``cased``: the question's capitalised words."""
    tokens = _split_hyphens(_tokens(text))
    part = _Part(" ".join(tokens), tokens, [False] * len(tokens), cased=cased)
    _quoted(part, text)
    _hashtags(part, text)
    _comment(part)
    counted = _COMMENTS_COUNTED.search(part.text) or _COMMENTS_DESCRIBED.search(part.text)
    if counted:  # "how many comments ...": the unit counted, not a label ("Comment" CTA)
        part.take(len(part.text[: counted.end()].split()) - 1, 1)
    _time(part, table.newest())
    _thresholds(part)
    _replies(part)
    _against_statistic(part, table)
    if "neither positive nor negative" in part.text:
        at = tokens.index("neither")
        part.take(at, 4)
        _add(part, at, Cond("sentiment", ("neutral",)))
    _own(part, table)
    lowest = _signed_order(part)
    _match_phrases(part, _phrases(table))
    _own_brand(part, table)
    _authored(part, table)
    _context_values(part, table)
    _keywords(part, table, names)
    group, top, order = _by_dataset(part, table) or _group(part)
    nth = _ordinal(part) if group else None
    if nth is not None:
        top = max(top or 1, nth)
    measure, metric = _measure(part.text, group, counts or top is not None)
    if measure == "commenters" and (commenters := _COMMENTERS.search(part.text)):
        for word in commenters[0].split():  # each word: some are already read
            _take_text(part, [word])
    if measure is None and _RATIO.search(part.text):
        measure = "mean"  # a ratio asks a figure: named below as not computed, not analysed
    changed = _CHANGED.search(part.text) or _MORE_OR.search(part.text)
    if measure is None and changed and len(_periods_said(part.conds)) >= 2:
        measure = "count"  # "did posts grow in October compared with September": each count
        _take_text(part, changed[0].split())
    if measure is None:
        return None, part
    if lowest is not None and metric == "sentiment_score":
        order = "asc" if lowest else "desc"
        if measure in ("max", "min"):
            measure = "min" if lowest else "max"
    if measure == "rank":
        top, order = _rank_size(part.text)
    if measure in ("rank", "list"):
        sizes = [i for i, t in enumerate(tokens) if t.isdigit() and not part.used[i]]
        part.take(sizes[0] if sizes else len(tokens), 1)  # "top 5 posts", "show 3 posts"
    ordered = sorted(part.conds, key=lambda item: item[0])
    for (a_at, a), (b_at, b) in itertools.pairwise(ordered):
        if a.dim != b.dim and "or" in part.tokens[a_at:b_at]:
            # Filters on different dimensions are combined with "and" only: say so rather
            # than answer "likes under 10 or views over 10000" as if it had been read.
            part.notes.append(
                f"'or' between {a.dim.replace('_', ' ')} and {b.dim.replace('_', ' ')} is read"
                " as 'and' (filters on different fields are combined with 'and' only); ask"
                " each in turn for either"
            )
    conds = [cond for _, cond in ordered]
    both = {(c.dim, c.values) for c in conds if c.negate} & {
        (c.dim, c.values) for c in conds if not c.negate and c.dim == group
    }
    # "ads vs organic" groups by content type: a value and its negation are the groups
    conds = [c for c in conds if (c.dim, c.values) not in both]
    every = set(table.labels("dataset").values())
    # A dataset named in another form ("student loan posts") is the scope, not a keyword;
    # when it names every dataset of the scope it filters nothing and is not repeated.
    conds = [
        c for c in conds if not (c.dim == "dataset" and not c.negate and set(c.values) >= every)
    ]
    of_comments = _asked_of_comments(part)
    # What a comment carries itself (its likes, replies and date) is asked of each comment
    own = {
        c: Cond(COMMENT_OWN[c.dim], c.values, c.negate) for c in of_comments if c.dim in COMMENT_OWN
    }
    part.conds = [(at, own.get(c, c)) for at, c in part.conds]
    ordered = [(at, own.get(c, c)) for at, c in ordered]
    conds = [own.get(c, c) for c in conds]
    of_comments = [own.get(c, c) for c in of_comments]
    # "how many comments are negative": a comment's own text is scored as the comments
    # analysis scores it; what else only posts carry cannot be asked of a comment.
    conds = [
        Cond("comment_sentiment", c.values, c.negate)
        if c.dim == "sentiment" and c in of_comments
        else c
        for c in conds
    ]
    part.comment_only = [c for c in of_comments if c.dim not in ("sentiment", *COMMENT_DIMS)]
    sides, compared = _sides(part, [(at, c) for at, c in ordered if c in conds])
    conds = [c for c in conds if c not in compared]
    share_part: tuple[Cond, ...] = ()
    where = _merge(conds)
    # "how many comments mention ...", "what share of comments ask ...": the comments that
    # pass the comment conditions are counted, and the answer gives their share of those
    # collected (a share of comments has no other denominator that could be read).
    comments_counted = (
        (measure in ("count", "share") or (measure, metric) == ("sum", "comments"))
        and (_COMMENTS_COUNTED.search(part.text) or _COMMENTS_DESCRIBED.search(part.text))
        is not None
        and any(c.dim in COMMENT_DIMS for c in where)
    )
    if measure == "share" and not comments_counted:
        where, share_part = _share_split(part, group)
    min_posts = 1
    repeated = _REPEATED.search(" ".join(tokens))
    if repeated is not None and measure != "authors":
        # "posts that mention price more than once": how often a post says a word is not
        # read; named, not dropped in silence (its words are all stop words).
        part.notes.append(
            f"'{repeated[0]}' is not read here: a post counts once however often it says a word"
        )
        repeated = None
    if repeated is not None:  # "how many authors posted more than once"
        _take_text(part, repeated[0].split())
        least = repeated["least"] or repeated["least2"]
        min_posts = 2 if repeated["twice"] else int(least) if least else int(repeated["over"]) + 1
    unknown = tuple(_unknown(part, names)) + _unheld(part, measure, group, conds, sides)
    ratio = _RATIO.search(part.text)
    per = _PER.search(part.text)
    if per is not None and not (metric and METRICS[metric].comments) and group != "comment":
        # "likes per 1,000 views": total likes over total views, times 1,000
        measure, ratio = "ratio", None
        metric = "engagement" if per[1] == "interactions" else per[1]
        scale = per["n"] or "1"
        per_said = (
            per["per"] if per["per"].endswith("s") else f"{per['per']}s",
            int(scale) if scale.isdigit() else _SCALE_WORDS[scale],
        )
        _take_text(part, per[0].split())
        unknown = tuple(w for w in unknown if w not in per[0].split())
    else:
        per_said = None
    if ratio is not None and metric and METRICS[metric].comments:
        # "likes per comment": what each collected comment got (the wire's comment
        # likes), said so, since the posts' likes over their comments is another figure
        part.notes.append(
            f"'{ratio[0]}' is read as the {METRICS[metric].described} each collected comment"
            " got, not the posts' totals divided by their number of comments"
        )
    elif ratio is not None:
        unknown += (ratio[0],)
    asked = _metric(part.text)
    if (
        asked is not None
        and measure in ("count", "share", "authors", "commenters")
        and not comments_counted
    ):
        # The metric is neither measured nor compared ("how many posts have 500 likes").
        unknown += tuple(s for s in METRICS[asked].said if re.search(rf"\b{s}\b", part.text))[:1]
    if measure == "list" and set(tokens) & _ANALYSES:
        return None, part  # "give me an overview", "list the themes": an analysis
    if measure == "list" and [c.dim for _, c in part.conds] == ["content_type"]:
        return None, part  # "show me the sponsored content": the ads analysis
    if set(" ".join(unknown).split()) & _ANALYSES:
        return None, part  # "... and summarize the comments": the intent planner's analyses
    if measure == "list" and unknown:
        return None, part  # "list the complaints about foam": an analysis, not a listing
    unit = "posts"
    if comments_counted:
        measure, metric, unit = "count", None, "comments"  # the comments, not their posts
    query = Query(
        measure,
        metric,
        where,
        share_part,
        group,
        top,
        order,
        unknown,
        tuple(part.notes),
        unit,
        min_posts,
        nth,
        sides,
        per_said,
    )
    return query, part


_VERSUS = re.compile(r"\b(vs|versus|compared (?:to|with)|against|relative to|compare|comparing)\b")
_CHANGED = re.compile(
    r"\b(grow|grew|grown|rise|rose|risen|increase|increased|drop|dropped|fall|fell|fallen"
    r"|decline|declined|change|changed|go up|went up|go down|went down)\b"
)
"""A change between two periods asked ("did posts grow in October compared with
September"): the count of each period, which shows it."""
_MORE_OR = re.compile(
    r"\b(?:more|fewer|less|busier|quieter|higher|lower|bigger|larger|most|fewest)\b.*\bor\b"
)
"""Two things set against each other by "or" ("were there more posts in July or in
August"): a figure each, never one for both pooled (which "posts in July or August" is)."""
_PER = re.compile(
    r"\b(likes|views|shares|comments|engagement|interactions) (?:per|for every|every)"
    r" (?:(?P<n>\d+|a thousand|thousand|one thousand|a hundred|hundred) )?"
    r"(?P<per>views?|likes?|shares?)\b"
)
"""A ratio of two post metrics the reader computes ("likes per 1,000 views", "shares per
like"): the posts' total of one over their total of the other, times the number said."""
_SCALE_WORDS = {"a thousand": 1000, "thousand": 1000, "one thousand": 1000}
_SCALE_WORDS |= {"a hundred": 100, "hundred": 100}
_RATIO = re.compile(
    r"\b(?:likes|views|shares|comments|engagement|interactions) per"
    r" (?:\d+ )?(?:comments?|views?|likes?|shares?|followers?)\b"
)
"""A ratio of two metrics ("likes per comment", "engagement per 1000 views"): not a
measure the reader computes, so named, never answered with one of its parts."""
_PRIOR = re.compile(
    r"\b(?:the |that )?(?:(\d+) )?(?:(day|week|month|quarter|year)s? )?"
    r"(?:before|prior|earlier|preceding)(?: that| it| this| then| them)?\b"
)
_WITHOUT = re.compile(
    r"\b(?:vs|versus|compared (?:to|with)|against|or|and) (?:those |posts |ones )?"
    r"(without|with no)(?: (?:one|it|them|any|a|an|that))?\b"
)
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "quarter": 90, "year": 365}


def _periods_said(ordered: Sequence[tuple[int, Cond]]) -> list[list[Cond]]:
    """The periods a part names, in order, each as its filters ("in Q3" is a start and an
    end: one period)."""
    said: list[list[Cond]] = []
    for _, cond in sorted(ordered, key=lambda item: item[0]):
        if cond.dim not in TIME_DIMS or cond.negate:
            continue
        if cond.dim == "until" and said and said[-1][-1].dim == "since":
            said[-1].append(cond)  # "between A and B", "in Q3": one period
        else:
            said.append([cond])
    return said


def _before(first: Sequence[Cond], days: Cond) -> Cond:
    """The period a "last ..." window means when it is compared with ``first``: the
    calendar month or year before a calendar one, else the window of its length that ends
    where ``first`` starts (a window of days: its length back)."""
    (said,) = first if len(first) == 1 else (None,)
    if said is not None and said.dim == "month":
        year, month = map(int, said.values[0].split("-"))
        return Cond("month", (f"{year - (month == 1)}-{(month - 2) % 12 + 1:02d}",))
    if said is not None and said.dim == "year":
        return Cond("year", (str(int(said.values[0]) - 1),))
    if said is not None and said.dim == "days":
        return Cond("days", (days.values[0], said.values[0]))
    return days


def _sides(
    part: _Part, ordered: Sequence[tuple[int, Cond]]
) -> tuple[tuple[tuple[Cond, ...], ...], list[Cond]]:
    """The sides compared by a part ("in October versus September", "the last 90 days
    against the 90 days before", "with a call to action versus without one"), their words
    taken, and the filters they replace; nothing when it compares none. Two periods said
    with a comparison word are two figures, never one pooled window: each is its own side;
    a window "before" another is the window of the same length that ends where the other
    starts."""
    text = " ".join(part.tokens)
    periods_said = _periods_said(ordered)
    compared = _VERSUS.search(text)
    if compared is None and len(periods_said) >= 2 and _MORE_OR.search(text):
        compared = re.search(r"\bor\b", text)  # "more posts in July or in August"
    if len(periods_said) >= 2 and compared:
        part.take(len(text[: compared.start()].split()), len(compared[0].split()))
        first = periods_said[0]
        out = [tuple(first)]
        for said in periods_said[1:]:
            if len(said) == 1 and said[0].dim == "days":
                # "the last week compared with the previous week": the week before it;
                # "this month vs last month": the calendar month before it
                said = [_before(first, said[0])]
            out.append(tuple(said))
        return tuple(out), [c for said in periods_said for c in said]
    prior = _PRIOR.search(text)
    if len(periods_said) == 1 and prior and len(periods_said[0]) == 1:
        (cond,) = periods_said[0]
        if cond.dim == "days":
            at = len(text[: prior.start()].split())
            part.take(at, len(prior[0].split()))
            if compared:
                part.take(len(text[: compared.start()].split()), len(compared[0].split()))
            return ((cond,), (Cond("days", (_length(prior, cond), cond.values[0])),)), [cond]
    without = _WITHOUT.search(text)
    if without:
        at = len(text[: without.start()].split())
        kept = [(i, c) for i, c in ordered if i < at and not c.negate and c.dim not in TIME_DIMS]
        if kept:
            cond = kept[-1][1]
            part.take(at, len(without[0].split()))
            return ((cond,), (replace(cond, negate=True),)), [cond]
    return (), []


def _unheld(
    part: _Part,
    measure: str,
    group: str | None,
    conds: Sequence[Cond],
    sides: Sequence[Sequence[Cond]],
) -> tuple[str, ...]:
    """A dimension said by name that the figure neither filters nor groups on ("how many
    posts had a call to action" when no call to action was read): named as not
    understood, never counted as if it had not been said. "dataset" names the scope; the
    words of a metric ("sentiment score") or of the measure ("distinct authors") are read."""
    held = {group, "dataset", *(c.dim for c in conds), *(c.dim for s in sides for c in s)}
    if measure == "authors":
        held.add("author")
    metric_words = {
        at + k
        for metric in METRICS.values()
        for said in metric.said
        for found in re.finditer(rf"\b{re.escape(said)}\b", part.text)
        for at in [len(part.text[: found.start()].split())]
        for k in range(len(said.split()))
    }
    out: list[str] = []
    for dim in DIMENSIONS.values():
        if dim.name in held:
            continue
        for said in sorted(dim.said, key=len, reverse=True):
            found = re.search(rf"\b{re.escape(said)}(?:s|es)?\b", part.text)
            at = len(part.text[: found.start()].split()) if found else 0
            span = range(at, at + len(found[0].split())) if found else range(0)
            if found and not any(part.used[k] or k in metric_words for k in span):
                part.take(at, len(found[0].split()))
                out.append(found[0])
                break
    return tuple(out)


def _length(prior: re.Match[str], days: Cond) -> str:
    """The days of a window said "before" another ("the 2 weeks before"; "the 90 before"
    and "the period before" are the other's length)."""
    if prior[2]:
        return str(int(prior[1] or 1) * _UNIT_DAYS[prior[2]])
    return prior[1] or days.values[0]


_INHERITED = frozenset({"source", "dataset", "content_type", *COMMENT_DIMS})
"""Conditions a comment passes through its post ("comments on TikTok", "on ads")."""


def _replies(part: _Part) -> None:
    """A count of comments by their replies ("how many comments got at least one reply"):
    ``comment_replies``, each comment's own ``num_replies``."""
    if not _COMMENTS_COUNTED.search(part.text):
        return
    found = _REPLIES.search(" ".join(part.tokens))
    if found is None:
        return
    at = len(" ".join(part.tokens)[: found.start()].split())
    part.take(at, len(found[0].split()))
    if found["none"]:
        bound = ("=", "0")
    elif found["any"]:
        bound = (">=", "1")
    else:
        number = {"one": "1", "a": "1"}.get(found["n"], found["n"])
        bound = (_OPERATORS[found["op"]], number)
    _add(part, at, Cond("comment_replies", bound))


def _asked_of_comments(part: _Part) -> list[Cond]:
    """The conditions a count of comments asks of the comments themselves ("how many
    comments are negative", "... have more than 10 likes", "... were written in 2025")
    that only a post can pass: a comment carries no sentiment, and is read by its text.
    What follows "on" / "under" is about the posts ("were left on negative posts").

    >>> part = _Part("", "how many comments are negative on tiktok".split(), [False] * 7)
    >>> part.conds = [(4, Cond("sentiment", ("negative",))), (6, Cond("source", ("tiktok",)))]
    >>> _asked_of_comments(part)
    [Cond(dim='sentiment', values=('negative',), negate=False, every=False)]
    """
    text = " ".join(part.tokens)
    spans: list[tuple[int, int]] = []  # [first, end) token spans that describe the comments
    before = _COMMENTS_DESCRIBED.search(text)
    if before is not None:  # "how many negative comments"
        first = len(text[: before.start("said")].split())
        spans.append((first, first + len(before["said"].split())))
    said = _COMMENTS_ARE.search(text)
    if said is not None:
        verb = len(text[: said.start("verb")].split())
        stop = next(
            (i for i in range(verb + 1, len(part.tokens)) if part.tokens[i] in ("on", "under")),
            len(part.tokens),
        )
        spans.append((verb + 1, stop))
    return [
        c
        for at, c in part.conds
        if c.dim not in _INHERITED and any(first <= at < end for first, end in spans)
    ]


def _rank_size(text: str) -> tuple[int, str]:
    """How many posts a ranking asks for (5 unless said) and its order."""
    size = 5
    for token in text.split():
        if token.isdigit() and 0 < int(token) <= 100:
            size = int(token)
            break
        if token in NUMBER_WORDS and token not in {"one", "a"}:
            size = NUMBER_WORDS[token]
            break
    order = "asc" if re.search(r"\b(fewest|least|lowest|smallest|worst)\b", text) else "desc"
    return size, order


def _merge(conds: Sequence[Cond]) -> tuple[Cond, ...]:
    """Conditions on one dimension with the same sign become one (their values OR-ed);
    each threshold on a metric stays a bound of its own ("over 100 likes and under 500
    likes": both apply, the second does not replace the first).

    >>> _merge([Cond("likes", (">", "100")), Cond("likes", ("<", "500"))])[1].values
    ('<', '500')
    """
    merged: dict[tuple[str, bool] | int, Cond] = {}
    for cond in conds:
        slot: tuple[str, bool] | int = (cond.dim, cond.negate)
        if cond.dim in METRICS:
            slot = len(merged)
        if slot in merged and cond.dim not in ("days", "keyword", "comment", "asking"):
            old = merged[slot]
            merged[slot] = replace(old, values=tuple(dict.fromkeys(old.values + cond.values)))
        else:
            merged[slot] = cond
    return tuple(merged.values())


_SPLIT_VERBS = frozenset(
    [
        "are",
        "is",
        "were",
        "was",
        "have",
        "has",
        "mention",
        "mentions",
        "come",
        "comes",
        "came",
        "express",
        "expresses",
        "use",
        "uses",
        "show",
        "shows",
        "talk",
        "talks",
        "get",
        "gets",
        "that",
        "which",
    ]
)


_COPULAS = frozenset({"are", "is", "were", "was"})


def _share_split(part: _Part, group: str | None) -> tuple[tuple[Cond, ...], tuple[Cond, ...]]:
    """(denominator, numerator) of a share: the posts named before the verb are the
    denominator ("of the posts about price"), the condition after it the numerator."""
    tokens = part.tokens
    share_at = next((i for i, t in enumerate(tokens) if _SHARE.search(t)), 0)

    def main_verb(i: int) -> bool:
        return tokens[i] in _SPLIT_VERBS and tokens[i - 1] not in {"that", "which", "who"}

    after = range(share_at + 1, len(tokens))
    verb = next((i for i in after if main_verb(i) and tokens[i] in _COPULAS), None)
    if verb is None:
        verb = next((i for i in after if main_verb(i)), len(tokens))
    among = next(
        (
            i
            for i in after
            if tokens[i] in {"among", "amongst", "within"} or tokens[i : i + 2] == ["out", "of"]
        ),
        None,
    )
    # A period scopes the share wherever it is said ("positive since June" is the share
    # of positive posts among those since June), never its numerator.
    conds = [(at, c) for at, c in part.conds if c.dim not in TIME_DIMS]
    periods_said = [c for _, c in part.conds if c.dim in TIME_DIMS]
    if among is not None:  # "the share of negative posts among reddit posts"
        among_den = [c for at, c in conds if at > among]
        among_num = [c for at, c in conds if at < among]
        return _merge([*among_den, *periods_said]), _merge(among_num)
    den = [(at, c) for at, c in conds if at < verb]
    num = [(at, c) for at, c in conds if at >= verb]
    if not num and den:  # "the share of positive posts": all posts are the denominator
        num = [(at, c) for at, c in conds if share_at < at]
        den = [(at, c) for at, c in conds if at < share_at]
    # "what share of posts are negative on TikTok", "the share of ads on Instagram": a
    # platform, country, language or dataset said with "on" / "in" / "from" next to
    # another condition is where the share is taken, not part of what it counts.
    scoped = [
        (at, c)
        for at, c in num
        if c.dim in ("source", "country", "language", "dataset")
        and tokens[at - 1 : at] in (["on"], ["in"], ["from"], ["across"], ["within"])
    ]
    if scoped and len(scoped) < len(num):
        num = [item for item in num if item not in scoped]
        den += scoped
        where = " and ".join(" ".join(tokens[at - 1 : at + 1]) for at, _ in scoped)
        part.notes.append(
            f"'{where}' is read as the posts the share is taken of; for the share of the"
            f' matching posts that are {where}, ask "what share of ... are {where}?"'
        )
    return _merge([*(c for _, c in den), *periods_said]), _merge([c for _, c in num])


_EXCLUDING_END = re.compile(
    r"\b(?:apart from|aside from|excluding|except(?: for)?|besides|other than|leaving out"
    r"|after|not from|not in|not on) (?:the )?\S+$"
)
"""A part that ends in a value left out: the next "and the ..." continues its list ("apart
from the US and the UK, which country ..."), it is not a question of its own."""


_K_ALONE = re.compile(
    r"(?:(?:give|show|list|name|tell)(?: me| us)? )?(?:only |just )?(?:the )?(top|first|bottom)"
    rf" (\d+|{'|'.join(NUMBER_WORDS)})(?: please)?"
)
"""A part that only says how many groups ("Give the top 3."): the k of the part before."""


_VALUE_ASKED = re.compile(
    r"(?:and )?(?:what|how much|how many|how high) (?:is|was|are|were) (?:it|that|they|the"
    r" (?:value|figure|number))|(?:and )?(?:give|show|tell)(?: me| us)? (?:the|its|their)"
    r" (?:value|figure|number)s?"
)
"""A part that asks the value of the figure just asked ("..., and what is it?")."""


def _parts(text: str) -> list[str]:
    """The questions ``text`` asks, in order.

    >>> _parts("apart from the us and the uk, which country posts most?")
    ['apart from the us and the uk, which country posts most']
    """
    pieces: list[str] = []
    for piece in (p.strip(" ,") for p in _SPLIT_PARTS.split(text)):
        if pieces and piece.startswith("the ") and _EXCLUDING_END.search(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} and {piece}"
        else:
            pieces.append(piece)
    return [p for p in pieces if p and any(ch.isalpha() for ch in p)]


def _follow(query: Query, previous: Query, narrow: bool) -> Query:
    """``query`` completed from the previous one: its filters kept unless replaced
    ("and on TikTok?"), or added to ("of those, how many are negative?")."""
    where = list(previous.where)
    part = list(previous.part)
    asks_measure = query.measure != "count" or query.metric is not None
    measure = query.measure if asks_measure else previous.measure
    metric = query.metric or (previous.metric if measure in STATS else None)
    if query.measure == "share" and query.part:
        part = list(query.part)
        incoming = list(query.where)
    else:
        incoming = [*query.where, *query.part]
    for cond in incoming:
        target = part if any(c.dim == cond.dim for c in part) else where
        if not narrow or cond.dim in TIME_DIMS:
            target[:] = [c for c in target if c.dim != cond.dim]
        target.append(cond)
    return Query(
        measure,
        metric,
        tuple(where),
        tuple(part) if measure == "share" else (),
        # a new measure of a breakdown keeps it ("now the median likes instead"); of a
        # ranked group ("which source has the most") it asks the figure of all posts
        query.group or (previous.group if not asks_measure or not previous.top else None),
        query.top if query.group else previous.top,
        query.order,
        query.unknown,
        query.notes,
        # "And on TikTok?" after a count of comments counts comments again.
        query.unit if asks_measure or query.unit != "posts" else previous.unit,
        query.min_posts if asks_measure else previous.min_posts,  # "and on TikTok?" again
    )


_COMMON = frozenset(
    {
        "written",
        "distinct",
        "express",
        "without",
        "number",
        "total",
        "quarter",
        "first",
        "second",
        "third",
        "fourth",
        "compared",
        "comparing",
        "versus",
        "against",
        "previous",
        "preceding",
        "before",
        "earlier",
    }
)
_ANALYSES = frozenset(
    [
        "summarize",
        "summarise",
        "summary",
        "complain",
        "complaints",
        "praise",
        "themes",
        "theme",
        "advertisers",
        "runs",
        "recommendations",
        "recommend",
        "report",
        "explain",
        "why",
        "overview",
        "increasing",
        "decreasing",
        "growing",
        "rising",
        "falling",
        "improving",
        "worsening",
        "evolve",
        "evolving",
        "trend",
        "trending",
    ]
)
"""Words of an analysis the intent planner writes: a part with one is not a figure."""


def _spelling(table: Table) -> tuple[list[str], set[str], dict[str, str]]:
    """The words a misspelling may be repaired to, every known word, and the repairs made
    so far (a cache), for :func:`_repaired`."""
    context = [p for dim in ("hook", "topic", "cta") for p in _context_phrases(table, dim)]
    targets = {w for p in [*_phrases(table), *context] for w in p.words if len(w) >= 5}
    targets |= {
        w for w in _CATALOGUE_WORDS | set(_MEASURE_WORDS) | _TOPIC_CUES | _COMMON if len(w) >= 5
    }
    known = set(targets) | FUNCTION_WORDS | INSTRUCTION_WORDS | _FILLER | STOP_WORDS
    known |= set(MONTHS)  # "julio" is July, never a slip for a word of the data ("julia")
    # the words of a subject ("costs") are words, never a slip for a value ("costas")
    known |= {form for words in CONCEPTS.values() for w in words for form in (w, f"{w}s")}
    return sorted(targets), known, {}


def _repaired(text: str, table: Table) -> str:
    """Misspelt words of the catalogue and the data's values repaired ("negatve",
    "instgram", "medain"); a word already known is never changed."""
    targets, known, fixed = table.derived("spelling", lambda: _spelling(table))

    def fix(found: re.Match[str]) -> str:
        word = found[0]
        if len(word) < 5 or word in known:
            return word
        if word not in fixed:
            limit = 2 if len(word) >= 8 else 1
            # Ties: a longer word first (a dropped letter is the commonest slip), then A-Z.
            # A slip keeps the first letter: "managers" is not "angers".
            same_start = [t for t in targets if t[0] == word[0]] or [word]
            best = min(same_start, key=lambda t: (distance(word, t, limit), -len(t), t))
            fixed[word] = best if distance(word, best, limit) <= limit else word
        return fixed[word]

    pieces = re.split(r"([\"“”][^\"“”]*[\"“”])", text)
    # Whole words, accents in ("mentionnée" is not "mentionn" + "ée": no repair of a part)
    words = re.compile(r"[^\W\d_]+")
    return "".join(p if p[:1] in '"“”' else words.sub(fix, p) for p in pieces)


def read(
    question: str,
    table: Table,
    names: Sequence[str] = (),
    previous: Sequence[Query] = (),
) -> Reading:
    """Read ``question`` over the scope's ``table`` (``names``: dataset names and search
    words, which every post matches; ``previous``: the queries of the chat's last turn).
    """
    said = front(question)
    text, language = said.text, said.language
    lowered = _numbers(_repaired(said.english, table))
    refusal = refusal_for(lowered) or refusal_for(text.lower())
    if refusal is not None:
        return Reading(refusal=refusal, language=language)
    for pattern, topic in NOT_COLLECTED.items():
        if re.search(pattern, lowered) and not re.search(r"\bold(est)? posts?\b", lowered):
            return Reading(not_collected=topic, language=language)
    follow = bool(previous) and bool(_FOLLOW.search(lowered))
    cased = _cased(text)
    queries: list[Query] = []
    conditions: list[Cond] = []
    unknown: list[str] = []
    notes: list[str] = []
    pending: list[Cond] = []  # a part's filters said before the part that asks the figure
    other = False
    for index, piece in enumerate(_parts(lowered)):
        if _VALUE_ASKED.fullmatch(piece.rstrip(" .!")) and queries:
            continue  # "which source has the highest ..., and what is it?": the figure given
        k_only = _K_ALONE.fullmatch(piece.rstrip(" .!"))
        if k_only and queries and queries[-1].group is not None:
            # "Which hashtags appear most often? Give the top 3.": k of the figure before
            k = int(k_only[2]) if k_only[2].isdigit() else NUMBER_WORDS[k_only[2]]
            queries[-1] = replace(
                queries[-1], top=k, order="asc" if k_only[1] == "bottom" else queries[-1].order
            )
            continue
        query, part = _read_part(piece, table, names, bool(queries) or follow, cased)
        if part.comment_only:
            return Reading(language=language, comment_only=tuple(part.comment_only))
        conditions += [c for _, c in part.conds]
        notes += part.notes
        narrow = bool(_NARROW.search(piece))
        resized = _RESIZED.search(piece)
        if query is None and follow and previous and index == 0 and resized:
            base = previous[-1]  # "make it the top 5": the same figure, k changed
            if base.group is not None or base.measure == "rank":
                part.take(len(piece[: resized.start()].split()), len(resized[0].split()))
                queries.append(replace(base, top=int(resized[1] or resized[2])))
                continue
        if query is None:
            if follow and previous and index == 0 and part.conds:
                base = previous[-1]
                fake = Query("count", None, _merge([c for _, c in part.conds]))
                queries.append(_follow(fake, base, narrow))
            elif queries and part.conds:
                last = queries[-1]
                queries[-1] = replace(
                    last, where=_merge([*last.where, *(c for _, c in part.conds)])
                )
            else:
                unknown += _unknown(part, names)
                if _unknown(part, names) or not part.conds:
                    other = True  # "... and what do they complain about?": an analysis
                else:  # "Negative posts about the price on TikTok. How many?"
                    pending += [c for _, c in part.conds]
            continue
        if pending and not (index == 0 and follow):
            query = replace(query, where=_merge([*pending, *query.where]))
            pending = []
        if queries and (narrow or (not query.where and not query.part)):
            query = _follow(query, queries[-1], narrow)
        elif index == 0 and follow and previous:
            query = _follow(query, previous[-1], narrow)
        prior = _PRIOR.search(piece)
        days = [c for c in query.where if c.dim == "days" and len(c.values) == 1]
        if prior and queries and days and not any(c.dim in TIME_DIMS for _, c in part.conds):
            # "..., and how many in the 30 days before that?": the window before the last
            before = Cond("days", (_length(prior, days[0]), days[0].values[0]))
            query = replace(
                query,
                where=tuple(before if c is days[0] else c for c in query.where),
                unknown=tuple(w for w in query.unknown if w not in prior[0].split()),
            )
        asked = [
            replace(query, where=_merge([*query.where, *side]), sides=()) for side in query.sides
        ] or [query]
        queries += [q for q in asked if q not in queries]  # "... Give the counts." again
    if other:
        queries = []
    return Reading(
        tuple(queries),
        None,
        None,
        tuple(conditions),
        tuple(unknown),
        follow,
        language,
        tuple(dict.fromkeys(notes)),
        edited=previous[-1] if follow and previous else None,
    )


def askable() -> str:
    """The markdown of what can be asked, from the catalogue and the refusals (the
    "What can be asked" section of ``docs/assistant.md``; a test keeps the two equal).

    Example:
        >>> "| `views` |" in askable()
        True
    """
    from rdskit.sandbox.assistant.words import REFUSALS

    lines = [
        "| Filter or group by | Said as |",
        "|---|---|",
        *(
            f"| `{d.name}` | {', '.join(repr(s).strip(chr(39)) for s in d.said)} |"
            for d in sorted(DIMENSIONS.values(), key=lambda d: d.name)
        ),
        "| `media` | videos, images, no media |",
        '| `keyword` | mention X, about X, talk about X, "a quoted phrase" |',
        "| `comment` | a comment saying / mentioning / about X, comments that don't mention X |",
        "| `asking` | a comment asking X (a question; a price asked as price, cost, how much...) |",
        "| `comment_sentiment` | comments that are negative, negative comments (the comment's"
        " own text, scored as in the comments analysis) |",
        "| `days`, `since`, `until`, `month`, `year` | last N days/weeks/months, since"
        " 2026-01-01, in March, in 2026 |",
        "",
        "| Metric (sum, mean, median, min, max) | Said as |",
        "|---|---|",
        *(
            f"| `{m.name}` | {', '.join(m.said)} |"
            for m in sorted(METRICS.values(), key=lambda m: m.name)
        ),
        "",
        "Measures: "
        + ", ".join(f"`{m}`" for m in ("count", "share", *STATS, "authors"))
        + ' (those who wrote at least N of the posts: "more than once", "at least 3 posts",'
        " out of all authors); posts ranked by a metric (`rank`) or listed (`list`). Grouping:"
        " by any dimension above or by " + ", ".join(f"`{p}`" for p in PERIODS) + "; top /"
        ' bottom k; two values of one dimension compared ("YouTube vs TikTok", "compared to")'
        " give a figure each.",
        "",
        "| Refused | Answer names |",
        "|---|---|",
        *(f"| {r.topic} | {r.answer.split('. ', 1)[-1]} |" for r in REFUSALS),
    ]
    return "\n".join(lines) + "\n"
