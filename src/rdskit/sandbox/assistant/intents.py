"""The sandbox assistant's question planner: question text (plus the chat's earlier turns)
-> a typed :class:`Plan` of one or more :class:`Intent` with :class:`Slots`.

How a question is planned (deterministic: the same question and data give the same plan):

1. The question comes through the one front end (:func:`~.frontend.front`: cleaned, its
   language guessed, French, Spanish, German or Portuguese mapped onto English by the one
   translator); misspelt cue words within one edit are corrected.
2. It is split into clauses: at sentence ends, then at "and" / "also" / commas when both
   sides ask for something. Each clause gets the intent of the first rule that fires.
3. Slots are read per clause: sources, sentiment, content type (ads/organic), a time window
   (relative to the newest post: "last three months"; absolute: "in March", "since
   2026-05-01", "in 2025"), metric, N, grouping, and the content terms.
4. A clause without an intent, or repeating the previous clause's intent, adds its slots
   to the previous intent ("How many are negative? Give the exact count." is one count).
5. A question that asks for nothing of its own, or opens like a follow-up ("and on
   TikTok?"), takes the previous turn's intents and the slots it does not set itself.
6. Nothing understood: the plan is an overview (``understood`` is false).

Keyword terms come only from content: quoted phrases, hashtags, brands and authors found in
the data, and words of the dataset's own vocabulary (:class:`Vocabulary`) - words in a topic
position ("about X", "mentioning X") with any document frequency, other words only with a
document frequency of at least two posts and at most 80% of them (and four letters).
Function, instruction and cue words of every supported language are never terms; the
dataset's name and search words (shared by every post) neither. A word in topic position
that no post contains, or a quoted phrase no post contains, is a ``missing`` term: the
answer says it found nothing.
Words are compared by the sandbox stemmer (:func:`rdskit.sandbox.synth.extractor.stem`) on
both sides.

Example:
    >>> vocab = Vocabulary.of([{"source": "reddit", "id": "1", "text": "The foam is flat"},
    ...                        {"source": "reddit", "id": "2", "text": "Foam again, and price"}])
    >>> p = plan("How many posts mention foam? Give the exact count.", vocab)
    >>> [i.name for i in p.intents], p.intents[0].slots.terms
    (['count'], ('foam',))
    >>> [i.name for i in plan("And on TikTok?", vocab, [p]).intents]
    ['count']
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, date, datetime
from functools import lru_cache
from typing import Any

from rdskit.models.vocab import SOURCES
from rdskit.sandbox.assistant.dates import MONTHS, periods, span, unsaid
from rdskit.sandbox.assistant.frontend import distance, front
from rdskit.sandbox.assistant.lexicon import (
    CONTINUES,
    FUNCTION_WORDS,
    INTENT_RULES,
    INTENTS,
    METRIC_RULES,
    NUMBER_WORDS,
    SHORTHAND,
    SOURCE_NAMES,
    STOP_WORDS,
    TOPIC_CUES,
)
from rdskit.sandbox.synth.corpus import BRANDS
from rdskit.sandbox.synth.extractor import stem

__all__ = ["INTENTS", "Intent", "Plan", "Slots", "Vocabulary", "plan"]

"""The planner reads at most this many characters of a question (the rest is ignored)."""

_DAY = 86_400
_MAX_DF_SHARE = 0.8  # a word in more posts than this says nothing about a topic
_COMPILED = tuple((name, re.compile(rule)) for name, rule in INTENT_RULES)
_METRICS = tuple((name, re.compile(rule)) for name, rule in METRIC_RULES)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SOURCE = re.compile(
    r"(?<!\w)("
    + "|".join(re.escape(s) for s in sorted(SOURCE_NAMES, key=len, reverse=True))
    + r")s?(?!\w)"  # "tiktoks"
)
_NUMBER = "|".join(re.escape(w) for w in sorted(NUMBER_WORDS, key=len, reverse=True))
_LIMIT = re.compile(rf"(?<![\w-])(\d{{1,3}}|{_NUMBER})(?![\w-])")
_QUOTED = re.compile(r"[\"“”«»„]([^\"“”«»„]{1,80})[\"“”«»„]|(?<!\w)'([^']{2,60})'(?!\w)")
_HASHTAG = re.compile(r"#(\w{2,50})")
_CLAUSE_END = re.compile(r"(?<=[?!;¿¡])\s*|(?<=[.])\s+(?=\S)|\n+")
_JOINERS = re.compile(
    r",?\s+(?:and also|and then|and|also|plus|as well as|then|et|y|und|e)\s+|,\s+|\s+&\s+"
)
_GROUPS = (
    (
        "source",
        re.compile(
            r"\b(?:by|per|each|across|between|every|for each|split by|broken"
            r" down by) (?:source|platform|network|channel|site)s?\b"
            r"|\b(?:sources|platforms|networks|channels) compared\b"
        ),
    ),
    ("language", re.compile(r"\b(?:by|per|each) language\b")),
    ("country", re.compile(r"\b(?:by|per|each) country\b")),
    ("dataset", re.compile(r"\b(?:by|per|each|across) datasets?\b")),
    ("week", re.compile(r"\b(?:busiest|quietest|biggest|peak|which) weeks?\b")),
    ("month", re.compile(r"\b(?:busiest|quietest|biggest|peak|which) months?\b")),
    (
        "day",
        re.compile(
            r"\b(?:by|per|each|a) day\b|\bdaily\b|\bday by day\b|\bbusiest day\b"
            r"|\bwhich days?\b"
        ),
    ),
    ("week", re.compile(r"\b(?:by|per|each|a) week\b|\bweekly\b|\bweek (?:over|by|on) week\b")),
    ("month", re.compile(r"\b(?:by|per|each|a) month\b|\bmonthly\b|\bmonth (?:over|by) month\b")),
    (
        "time",
        re.compile(
            r"\bover time\b|\btrend|\bchang(?:e|ed|es|ing)\b|\bevolv|\btimeline\b"
            r"|\bgrow|\bshift|\bimproving\b|\bworsening\b|\bgetting (?:better|worse)\b"
        ),
    ),
)
_SENTIMENT = (
    (
        "negative",
        re.compile(
            r"\bnegative|\bangry\b|\bunhappy\b|\bcritical\b|\bbad (?:posts|ones"
            r"|reviews)\b"
        ),
    ),
    (
        "positive",
        re.compile(
            r"\bpositive|\bhappy (?:posts|ones)\b|\bgood (?:posts|ones"
            r"|reviews)\b|\bfavou?rable\b"
        ),
    ),
    ("neutral", re.compile(r"\bneutral\b")),
)
_ADS = re.compile(r"\bads?\b|\badvert|\bsponsor|\bpromoted\b|\bpaid (?:posts|content)\b")
_ORGANIC = re.compile(
    r"\borganic\b|\b(?:no|without|excluding|exclude|except|not) (?:the )?"
    r"(?:ads|sponsored|adverts)\b|\bnon[- ]?(?:sponsored|ad)\b"
)
_LOWEST = re.compile(r"\b(?:lowest|least|worst[- ]performing|fewest|bottom)\b")
_NEWEST = re.compile(r"\b(?:most recent|latest|newest|last few)\b")
_EITHER_SOURCE = re.compile(rf"\b(?:or|than|and) (?:on )?(?:{'|'.join(SOURCES)})\b")
_ARTICLES = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "its",
        "their",
        "our",
        "my",
        "your",
        "le",
        "la",
        "les",
        "l",
        "un",
        "une",
        "des",
        "el",
        "los",
        "las",
        "lo",
        "o",
        "os",
        "as",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "ein",
        "eine",
    ]
)
_VAGUE = frozenset({"", "top", "overview", "sentiment", "engagement", "topics"})
"""Intents that become a comparison when the clause weighs two sources against each other."""
_TERM_SLOTS = ("terms", "missing", "brands", "authors", "hashtags")


@dataclass(frozen=True)
class Slots:
    """What narrows or shapes one intent's answer (``None`` / empty: not asked).

    ``window_days`` counts back from the newest post; ``since``/``until`` are inclusive
    UTC days. ``metric`` is views, likes, comments, shares, engagement (likes + comments +
    shares) or engagement_rate; ``order`` is ``lowest`` for "least viewed";
    ``group_by`` is source, language, country, dataset, day, week, month or time (a unit
    chosen from the data).
    """

    sources: tuple[str, ...] = ()
    sentiment: str | None = None
    content_type: str | None = None
    window_days: int | None = None
    since: date | None = None
    until: date | None = None
    terms: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    brands: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    hashtags: tuple[str, ...] = ()
    metric: str | None = None
    order: str | None = None
    limit: int | None = None
    group_by: str | None = None

    def merged(self, other: Slots) -> Slots:
        """These slots, with what they leave unset taken from ``other``."""
        return Slots(
            **{f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self)}
        )

    def asked(self) -> dict[str, Any]:
        """The slots that are set, by name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}


@dataclass(frozen=True)
class Intent:
    """One thing the question asks for: an intent name, its slots and its clause."""

    name: str
    slots: Slots = field(default_factory=Slots)
    clause: str = ""


@dataclass(frozen=True)
class Plan:
    """The plan of a question: its intents in the order asked.

    ``understood`` is false when nothing was recognised (the plan is then an overview);
    ``follow_up`` when earlier turns filled it in; ``refers_back`` when the question is
    about "these posts" (the previous turn's selection or the latest alert).
    """

    question: str
    intents: tuple[Intent, ...]
    language: str = "en"
    understood: bool = True
    follow_up: bool = False
    refers_back: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """The intent names, in order."""
        return tuple(intent.name for intent in self.intents)


@dataclass(frozen=True)
class Vocabulary:
    """What the data lets a question search for: document frequency by word stem, brands
    and authors as written, hashtags, and the newest post's date.

    ``names`` (dataset names and search texts) are shared by every post and never terms.
    """

    posts: int = 0
    df: Mapping[str, int] = field(default_factory=dict)
    texts: tuple[str, ...] = ()
    brands: Mapping[str, str] = field(default_factory=dict)
    authors: Mapping[str, str] = field(default_factory=dict)
    hashtags: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    newest: float | None = None
    today: date | None = None
    """The sandbox clock's date (for a month named without a year when there is no post)."""

    @classmethod
    def of(
        cls,
        posts: Sequence[Mapping[str, Any]],
        names: Iterable[str] = (),
        today: date | None = None,
    ) -> Vocabulary:
        """The vocabulary of ``posts`` (Mention dicts); remembered per set of posts."""
        signature = tuple((p.get("source"), p.get("id")) for p in posts)
        return replace(_vocabulary(signature, tuple(names), _Posts(posts)), today=today)

    def found(self, word: str) -> int:
        """How many posts contain a word with ``word``'s stem."""
        return self.df.get(stem(word), 0)

    def has_phrase(self, phrase: str) -> bool:
        """Whether some post contains ``phrase`` (case-insensitive, whole words)."""
        return self.phrase_posts(phrase, 1) >= 1

    def phrase_posts(self, phrase: str, enough: int = 2) -> int:
        """How many posts contain ``phrase`` (counting stops at ``enough``)."""
        lowered = phrase.lower()
        pattern = re.compile(rf"(?<!\w){re.escape(lowered)}(?!\w)")
        count = 0
        for text in self.texts:
            if lowered in text and pattern.search(text):
                count += 1
                if count >= enough:
                    break
        return count


class _Posts:
    """Posts wrapped so a cache keyed by their identity can reach them (not hashed)."""

    def __init__(self, posts: Sequence[Mapping[str, Any]]) -> None:
        self.posts = posts

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Posts)


@lru_cache(maxsize=32)
def _vocabulary(signature: tuple[Any, ...], names: tuple[str, ...], wrapped: _Posts) -> Vocabulary:
    del signature  # the cache key: the same posts give the same vocabulary
    posts = wrapped.posts
    df: Counter[str] = Counter()
    texts: list[str] = []
    brands: dict[str, str] = {}
    authors: dict[str, str] = {}
    hashtags: set[str] = set()
    newest: float | None = None
    for post in posts:
        title, body = str(post.get("title") or ""), str(post.get("text") or "")
        text = f"{title}\n{body}".lower()
        texts.append(text)
        df.update({stem(word) for word in _WORD.findall(text)})
        hashtags.update(tag.lower() for tag in _HASHTAG.findall(text))
        for brand in post.get("mentioned_brands") or ():
            brands.setdefault(str(brand).lower(), str(brand))
        advertiser = (post.get("ad_meta") or {}).get("advertiser_name")
        if advertiser:
            brands.setdefault(str(advertiser).lower(), str(advertiser))
        author = (post.get("author") or {}).get("title")
        if author:
            authors.setdefault(str(author).lower(), str(author))
        created = post.get("created_at")
        if created is not None:
            newest = max(newest or float(created), float(created))
    joined = "\n".join(texts)
    for brand in BRANDS:  # the corpus gazetteer: brands written in posts without analysis
        if brand.lower() in joined:
            brands.setdefault(brand.lower(), brand)
    own = {word for name in names for word in _WORD.findall(name.lower())}
    for name in names:
        brands.pop(name.lower(), None)
    return Vocabulary(
        len(posts),
        dict(df),
        tuple(texts),
        brands,
        authors,
        frozenset(hashtags),
        frozenset(own | {stem(word) for word in own}),
        newest,
    )


# --- cleaning and typo repair -------------------------------------------------------------


_CUE_WORDS = frozenset(
    word for _, rule in INTENT_RULES for word in re.findall(r"[a-z]{5,}", rule.replace(r"\b", " "))
) | frozenset(
    (
        "sentiment",
        "complaints",
        "complain",
        "summary",
        "overview",
        "topics",
        "themes",
        "comments",
        "commenters",
        "questions",
        "influencers",
        "creators",
        "competitors",
        "advertisers",
        "engagement",
        "languages",
        "countries",
        "emotions",
        "recommendations",
        "report",
        "people",
        "praise",
        "popular",
        "negative",
        "positive",
        "neutral",
        "average",
        "median",
        "compare",
        "sentiment",
        "reddit",
        "tiktok",
        "youtube",
        "instagram",
        "linkedin",
        "brands",
        "authors",
        "spikes",
        "volume",
    )
)


@lru_cache(maxsize=4096)
def _repair(word: str) -> str:
    """A misspelt cue word (one edit: a deletion, insertion, substitution or swap) ->
    the cue word; any other word unchanged."""
    if word in SHORTHAND:
        return SHORTHAND[word]
    if len(word) < 5 or word in _CUE_WORDS or word in STOP_WORDS:
        return word
    for cue in sorted(_CUE_WORDS):
        # A slip keeps the first letter, as in the figure reader's speller: "bares" is
        # not "cares"
        if cue[0] == word[0] and distance(word, cue, 1) <= 1:
            return cue
    return word


def _repaired(text: str, vocab: Vocabulary) -> str:
    """``text`` with misspelt cue words repaired, quoted phrases and data words untouched."""
    pieces = []
    start = 0
    for match in _QUOTED.finditer(text):
        pieces.append(_repair_words(text[start : match.start()], vocab))
        pieces.append(match[0])
        start = match.end()
    pieces.append(_repair_words(text[start:], vocab))
    return "".join(pieces)


def _repair_words(text: str, vocab: Vocabulary) -> str:
    def one(match: re.Match[str]) -> str:
        word = match[0]
        return word if vocab.found(word) else _repair(word)

    return re.sub(r"(?<![#@\w])[^\W\d_]+", one, text)  # a hashtag or handle as written


# --- planning --------------------------------------------------------------------------------


def plan(question: str, vocab: Vocabulary | None = None, history: Sequence[Plan] = ()) -> Plan:
    """Plan ``question`` over ``vocab`` (the data's words); ``history`` holds the plans of
    the chat's earlier turns, oldest first (see the module docstring)."""
    vocab = vocab or Vocabulary()
    read = front(question)
    text, language = read.text, read.language
    lowered = _repaired(read.english, vocab)
    lowered = lowered.replace("calls to action", "ctas").replace("call to action", "cta")
    intents: list[Intent] = []
    for sentence in _sentences(lowered):
        intents.extend(_sentence_intents(sentence, vocab))
    previous = history[-1] if history else None
    continues = bool(CONTINUES.search(lowered))
    refers_back = bool(_REFERS_BACK.search(lowered))
    named = [intent for intent in intents if intent.name != ""]
    if previous is not None and (not named or (continues and len(named) <= 1)):
        return _follow(text, intents, previous, language, refers_back)
    if not named:
        slots = _merge_all(intents)
        if slots.terms or slots.missing or slots.brands or slots.hashtags or slots.authors:
            return Plan(text, (Intent("topics", slots, text),), language, True, False, refers_back)
        if slots.asked():
            return Plan(
                text, (Intent("overview", slots, text),), language, True, False, refers_back
            )
        return Plan(text, (Intent("overview", Slots(), text),), language, False, False, refers_back)
    return Plan(text, tuple(_attach(intents)), language, True, False, refers_back)


def taken(planned: Plan) -> frozenset[str]:
    """The stems of the words ``planned`` read: the words of the intent rules that fired
    in each clause and the content terms (found or not), brands, authors and hashtags.

    Example:
        >>> sorted(taken(plan("What do people complain about?")))
        ['complain']
    """
    said: list[str] = []
    for intent in planned.intents:
        slots = intent.slots
        said += [*slots.terms, *slots.missing, *slots.brands, *slots.authors, *slots.hashtags]
        for _, rule in _COMPILED:  # a rule's own words, not the words its gaps let through
            for match in rule.finditer(intent.clause):
                # the whole words the match is part of: "\\bcomplain" fires in "complaints"
                whole = _whole_words(intent.clause, match.start(), match.end())
                said += [w for w in _WORD.findall(whole) if w.startswith(_RULE_WORDS[rule])]
    return frozenset(stem(word) for text in said for word in _WORD.findall(text.lower()))


def _whole_words(text: str, start: int, end: int) -> str:
    """``text[start:end]`` widened to whole words.

    >>> _whole_words("the main complaints?", 9, 17)
    'complaints'
    """
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end]


_RULE_WORDS = {
    rule: tuple(set(re.findall(r"[^\W\d_]{3,}", rule.pattern.replace(r"\b", " "))))
    for _, rule in _COMPILED
}
"""The words each intent rule spells out (a prefix: "complain" of "complain\\w*")."""


_REFERS_BACK = re.compile(
    r"\b(?:these|those|the above|the selected|selected) (?:posts?|ones|mentions|videos)\b"
    r"|\b(?:this|the|last|latest) alert\b|\b(?:new|latest) (?:posts|mentions|ones)\b"
    r"|\bwhat(?:'s| is) new\b"
)


def _sentences(lowered: str) -> list[str]:
    return [part.strip(" ,") for part in _CLAUSE_END.split(lowered) if part.strip(" ,?.!;¿¡")]


def _intent_of(clause: str) -> str:
    """The intent whose rule fires first ("" when none does)."""
    for name, rule in _COMPILED:
        if rule.search(clause):
            return name
    return ""


def _sentence_intents(sentence: str, vocab: Vocabulary) -> list[Intent]:
    """The intents of one sentence: split at joiners when each side asks for something."""
    # Greedy left-to-right split: cut at a joiner when the text after it has its own intent
    # different from the text before it.
    parts = []
    start = 0
    for match in _JOINERS.finditer(sentence):
        before = sentence[start : match.start()]
        after = sentence[match.end() :]
        head = _intent_of(before)
        rest = _intent_of(_first_part(after))
        if head and rest and rest != head and not _QUOTE_OPEN.search(before):
            parts.append(before)
            start = match.end()
    parts.append(sentence[start:])
    found: list[Intent] = []
    carried = Slots()
    for part in parts:
        slots = _slots(part, vocab)
        # Sources, time and content type said once hold for the rest of the sentence.
        carried = Slots(
            sources=slots.sources or carried.sources,
            content_type=slots.content_type or carried.content_type,
            window_days=slots.window_days or carried.window_days,
            since=slots.since or carried.since,
            until=slots.until or carried.until,
        )
        name = _intent_of(part)
        if len(slots.sources) >= 2 and name in _VAGUE and _EITHER_SOURCE.search(part):
            name = "compare"  # "more popular on TikTok or Instagram?"
        found.append(Intent(name, slots.merged(carried), part))
    return found


_QUOTE_OPEN = re.compile(r"[\"“«„][^\"”»]*$")


def _first_part(text: str) -> str:
    """The text up to the next joiner (what a split would make the next clause)."""
    match = _JOINERS.search(text)
    return text[: match.start()] if match else text


def _attach(intents: list[Intent]) -> list[Intent]:
    """Clauses without an intent, or repeating the previous one, join the previous intent."""
    merged: list[Intent] = []
    pending = Slots()
    for intent in intents:
        if not intent.name or (merged and merged[-1].name == intent.name):
            if merged:
                last = merged[-1]
                merged[-1] = replace(last, slots=_combine(last.slots, intent.slots))
            else:
                pending = _combine(pending, intent.slots)
            continue
        merged.append(replace(intent, slots=_combine(intent.slots, pending)))
        pending = Slots()
    return merged


def _combine(first: Slots, second: Slots) -> Slots:
    """``first``'s slots, unset ones from ``second``; term lists are joined."""
    out = first.merged(second)
    joined: dict[str, Any] = {
        name: tuple(dict.fromkeys((*getattr(first, name), *getattr(second, name))))
        for name in _TERM_SLOTS
    }
    return replace(out, **joined)


def _merge_all(intents: Sequence[Intent]) -> Slots:
    slots = Slots()
    for intent in intents:
        slots = _combine(slots, intent.slots)
    return slots


def _follow(
    text: str, intents: list[Intent], previous: Plan, language: str, refers_back: bool
) -> Plan:
    """A follow-up: the previous intents, with the slots this question sets replacing theirs."""
    own = _merge_all(intents)
    names = [intent.name for intent in intents if intent.name]
    base = list(previous.intents)
    if names:  # "and the complaints there?": a new intent, the previous narrowing
        shared = Slots(
            sources=base[0].slots.sources,
            sentiment=None,
            content_type=base[0].slots.content_type,
            window_days=base[0].slots.window_days,
            since=base[0].slots.since,
            until=base[0].slots.until,
            terms=base[0].slots.terms,
            brands=base[0].slots.brands,
        )
        followed = [Intent(name, own.merged(shared), text) for name in dict.fromkeys(names)]
    else:
        followed = [Intent(intent.name, _followed(own, intent), text) for intent in base]
    return Plan(text, tuple(followed), language, True, True, refers_back or previous.refers_back)


def _followed(own: Slots, intent: Intent) -> Slots:
    """A follow-up's slots over an earlier intent's: a comparison adds the sources named."""
    merged = own.merged(intent.slots)
    if intent.name == "compare" and own.sources and intent.slots.sources:
        merged = replace(
            merged, sources=tuple(dict.fromkeys((*intent.slots.sources, *own.sources)))
        )
    return merged


# --- slots -------------------------------------------------------------------------------------


def _slots(clause: str, vocab: Vocabulary) -> Slots:
    window_days, since, until = _window(clause, vocab)
    plain = unsaid(clause)
    sources = tuple(dict.fromkeys(SOURCE_NAMES[name] for name in _SOURCE.findall(clause)))
    moods = [mood for mood, rule in _SENTIMENT if rule.search(plain)]
    content_type = "organic" if _ORGANIC.search(plain) else "ad" if _ADS.search(plain) else None
    terms, missing, brands, authors, hashtags = _terms(clause, vocab)
    return Slots(
        sources=sources,
        sentiment=moods[0] if len(moods) == 1 else None,
        content_type=content_type,
        window_days=window_days,
        since=since,
        until=until,
        terms=terms,
        missing=missing,
        brands=brands,
        authors=authors,
        hashtags=hashtags,
        metric=next((name for name, rule in _METRICS if rule.search(plain)), None),
        order="lowest" if _LOWEST.search(plain) else "newest" if _NEWEST.search(plain) else None,
        limit=_limit(plain),
        group_by=next((name for name, rule in _GROUPS if rule.search(plain)), None),
    )


def _limit(plain: str) -> int | None:
    without_dates = re.sub(r"\b\d{4}(?:-\d{2}(?:-\d{2})?)?\b|\$\d+(?:\.\d+)?", " ", plain)
    for found in _LIMIT.findall(without_dates):
        number = int(found) if found.isdigit() else NUMBER_WORDS[found]
        if 0 < number <= 50:
            return number
    return None


def _window(clause: str, vocab: Vocabulary) -> tuple[int | None, date | None, date | None]:
    """(days back from the newest post, first day, last day) the clause limits posts to,
    read by the one date reader (:mod:`~rdskit.sandbox.assistant.dates`) anchored on the
    newest post, or without posts on the sandbox's today (a period that needs an anchor
    is then not placed)."""
    anchor = datetime.fromtimestamp(vocab.newest, UTC).date() if vocab.newest else vocab.today
    found = periods(clause, anchor or date(2000, 1, 1))
    if anchor is None:
        found = tuple(
            p for p in found if p.dim == "days" or re.search(r"\d{4}", clause[p.start : p.end])
        )
    window_days: int | None = None
    since = until = None
    for days, first, last in map(span, found):  # several periods: all of them hold
        if days is not None:
            window_days = days if window_days is None else min(window_days, days)
        if first is not None:
            since = first if since is None else max(since, first)
        if last is not None:
            until = last if until is None else min(until, last)
    return window_days, since, until


def _terms(
    clause: str, vocab: Vocabulary
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(terms, missing terms, brands, authors, hashtags) of the clause."""
    terms: list[str] = []
    missing: list[str] = []
    rest = clause
    for match in _QUOTED.finditer(clause):
        phrase = " ".join((match[1] or match[2]).lower().split())
        if phrase:
            (terms if vocab.has_phrase(phrase) else missing).append(phrase)
    rest = _QUOTED.sub(" ", rest)
    hashtags = [tag.lower() for tag in _HASHTAG.findall(rest)]
    rest = _HASHTAG.sub(" ", rest)
    brands = [vocab.brands[b] for b in _phrases_in(rest, vocab.brands)]
    for brand in brands:
        rest = re.sub(rf"(?<!\w){re.escape(brand.lower())}(?!\w)", " ", rest)
    authors = [vocab.authors[a] for a in _phrases_in(rest, vocab.authors) if " " in a]
    for author in authors:
        rest = re.sub(rf"(?<!\w){re.escape(author.lower())}(?!\w)", " ", rest)
    rest = _SOURCE.sub(" ", rest)
    rest = unsaid(rest)
    words = list(_WORD.finditer(rest))
    skip = False
    topical_before = False
    for index, match in enumerate(words):
        word = match[0].strip("'")
        if not _content_like(word, vocab):
            topical_before = False
            continue
        # A topic cue covers the run of content words after it ("about oat milk prices").
        topical = _topic_position(rest, words, index) or (
            topical_before and index > 0 and words[index - 1].end() + 1 == match.start()
        )
        topical_before = topical
        found = vocab.found(word)
        if skip:
            skip = False
            continue
        following = words[index + 1][0].lower() if index + 1 < len(words) else ""
        if len(following) >= 3 and following not in FUNCTION_WORDS:
            pair = f"{word.lower()} {following}"
            if vocab.phrase_posts(pair) >= 2:
                skip = True
                if pair not in terms:
                    terms.append(pair)
                continue
        if not vocab.posts:  # no data to look words up in: every content word is a topic
            if _surface(word.lower()) not in missing:
                missing.append(_surface(word.lower()))
            continue
        if topical and not found:
            if _surface(word) not in missing:
                missing.append(_surface(word))
            continue
        share = found / vocab.posts if vocab.posts else 0.0
        # Outside a topic position a word needs 4 letters and 2 posts ("got" is no topic).
        common = len(word) >= 4 and found >= 2 and share <= _MAX_DF_SHARE
        if found and (topical or common):
            term = _surface(word)
            if term not in terms:
                terms.append(term)
    return (
        tuple(terms),
        tuple(missing),
        tuple(dict.fromkeys(brands)),
        tuple(dict.fromkeys(authors)),
        tuple(dict.fromkeys(hashtags)),
    )


def _surface(word: str) -> str:
    """A term as searched: the word, a plain plural ``s`` dropped."""
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _content_like(word: str, vocab: Vocabulary) -> bool:
    lowered = word.lower()
    if len(lowered) < 3 or lowered.isdigit() or lowered in STOP_WORDS:
        return False
    if lowered in vocab.names or stem(lowered) in vocab.names or lowered in MONTHS:
        return False
    return not any(ch.isdigit() for ch in lowered)


def _topic_position(text: str, words: Sequence[re.Match[str]], index: int) -> bool:
    """Whether the word follows a topic cue ("about", "mentioning"...), articles and
    adjectives of the cue's phrase skipped."""
    start = words[index].start()
    back = index - 1
    while back >= 0 and words[back][0] in _ARTICLES:
        back -= 1
    cut = words[back + 1].start() if back + 1 < index else start
    return bool(TOPIC_CUES.search(text[:cut]))


def _phrases_in(text: str, known: Mapping[str, str]) -> list[str]:
    """The known names (lowercase keys) the text contains as whole words, longest first."""
    found: list[str] = []
    for name in sorted(known, key=len, reverse=True):
        if (
            len(name) >= 3
            and name in text
            and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
            and not any(name in longer for longer in found)
        ):
            found.append(name)
    return found
