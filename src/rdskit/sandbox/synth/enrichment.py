"""Real, lightweight content analysis of a mention (no model downloads, deterministic).

:func:`enrich` adds the analysis fields a dataset run asked for in
``content_analysis_actions``; a run without actions gets none of them.

- ``sentiment`` -> ``sentiment`` {negative, neutral, positive}, ``sentiment_score``,
  ``emotions`` (7 keys), ``tone_of_voice`` {text, evidence} and ``vibe``.
- ``hook`` -> ``hooks`` [{type, text}] read from the opening line and
  ``narrative_structure`` {text, evidence}.
- ``cta`` -> ``cta`` {text, evidence} (``None`` when the post asks nothing of its reader).
- any action (also unknown ones) -> ``summary``, ``content_topics``, ``questions``,
  ``mentioned_brands``, ``entities``, ``category`` and ``content_intention``.

Heuristics:

- Sentiment is VADER (lexicon bundled with ``vaderSentiment``), one call per post on title
  + text, for English; Spanish, French, German and Portuguese text is scored the same way
  with that language's lexicon (:mod:`rdskit.sandbox.synth.lexicons`). The language is read
  from the text (:func:`~rdskit.sandbox.synth.lexicons.detect_language`; the post's
  ``language`` field breaks ties): an English ad shown to a Spanish audience is English.
  The compound score ``c`` is the ``sentiment_score`` (three decimals, -1..1); the
  class shares are a softmax of ``3c`` (positive), ``-3c`` (negative) and ``3(0.1 - |c|)``
  (neutral), so the dominant class flips exactly at VADER's usual +-0.05 thresholds.
- Emotions count hits of a small emotion lexicon (words and emoji) plus the VADER polarity
  (positive feeds joy; negative feeds sadness, anger and disgust) against a neutral
  baseline of 1, normalised to shares. Shares are strings with three decimals.
- Evidence sentences are ranked with the language's word valences (dictionary lookups, no
  second analyser call).
- Hooks, narrative structure, CTAs, tone and intention are ordered cue-phrase rules (the
  first rule that fires wins; a hook may carry several types). Topics are the category
  aspects a post names, then content-word pairs or words it repeats. Brands are every corpus
  brand the text or its hashtags name (:func:`~rdskit.sandbox.synth.corpus.brands_in`: as
  written for plain-word brands like "On", in any case otherwise), an ad's advertiser when
  the text names it, plus capitalised words after comparison cues ("switched to X", "X vs Y").

Example:
    >>> post = {"title": "", "text": "I love this oat milk, the foam is amazing! Link in bio."}
    >>> out = enrich(post, ["sentiment", "cta"])
    >>> dominant(out["sentiment"]), out["cta"]["text"]
    ('positive', 'Link in bio')
    >>> "hooks" in out, "summary" in out
    (False, True)
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache, partial
from itertools import pairwise
from typing import Any

from rdskit.models import vocab
from rdskit.models.vocab import CONTENT_ANALYSIS_ACTIONS
from rdskit.sandbox.synth import lexicons
from rdskit.sandbox.synth.corpus import (
    CATEGORIES,
    GENERIC,
    Gazetteer,
    Tokens,
    brands_in,
    brands_tagged,
    category_of,
)

__all__ = [
    "ACTIONS",
    "EMOTIONS",
    "SENTIMENTS",
    "SPEECH_TEMPOS",
    "dominant",
    "enrich",
    "score_text",
    "speech_tempo",
]

ACTIONS = CONTENT_ANALYSIS_ACTIONS
"""Actions with their own fields; any other action still triggers the general analysis."""

EMOTIONS = vocab.EMOTIONS
"""Emotion keys in tie-break order (a tie resolves to the earlier key): the wire order."""

SENTIMENTS = ("neutral", *(label for label in reversed(vocab.SENTIMENTS) if label != "neutral"))
"""Sentiment keys in tie-break order: neutral, then positive, then negative."""


@cache
def _analyzer() -> Any:
    """VADER's analyser, created once (it reads its lexicon file)."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _alternatives(words: str) -> list[str]:
    """Top-level ``|``-separated parts of a pattern (groups like ``(?:now|today)`` kept)."""
    parts, depth, current = [], 0, ""
    for ch in words:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current] if words else []


class _Cue:
    """A cue rule: ``words`` are ``|``-separated phrases matched as whole words in any case,
    ``raw`` adds regex alternatives (``^``/``$`` anchor at sentence edges, see :class:`_Text`).

    A regex only runs when it can match: the first word of one of its phrases occurs in the
    text (a set lookup), or one of ``hints`` does for the raw part (``None``: always run it). Most
    rules miss most posts, so this skips most regex scans. The ``\\b(?:a|b)\\b``
    factoring also matters: Python's ``re`` runs it ~6x faster than ``\\ba\\b|\\bb\\b``.
    """

    _HEAD = re.compile(r"[a-z']+")

    def __init__(self, words: str, raw: str = "", hints: Sequence[str] | None = None) -> None:
        parts = [rf"\b(?:{words})\b"] if words else []
        self.pattern = re.compile("|".join([*parts, raw] if raw else parts), re.I | re.M)
        self.heads: set[str] = set()
        self.prefixes: list[str] = []
        self.always = bool(raw) and hints is None
        self.hints = tuple(hints or ())
        for alternative in _alternatives(words):
            head = self._HEAD.match(alternative)
            rest = alternative[head.end() :] if head else ""
            if head is None:
                self.always = True
            elif rest.startswith("?"):  # "links?": the head minus its optional last letter
                self.prefixes.append(head.group(0)[:-1])
            elif rest.startswith("\\w"):  # "compar\\w*": a word prefix
                self.prefixes.append(head.group(0))
            else:
                self.heads.add(head.group(0))

    def possible(self, text: _Text) -> bool:
        """Whether the pattern can match ``text`` at all (cheap checks only)."""
        return (
            self.always
            or not self.heads.isdisjoint(text.wordset)
            or any(prefix in text.lower for prefix in self.prefixes)
            or any(hint in text.lower for hint in self.hints)
        )


# --- the analysed text -------------------------------------------------------------------

_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_URL = re.compile(r"https?://\S+")
_HASHTAG_LINE = re.compile(r"^(?:#\w+\s*)+$")
_WORD = re.compile(r"[a-z][a-z'’]*")


class _Text:
    """A post's title + text split into sentences, searchable one regex at a time.

    Sentences are joined by newlines, so a cue pattern runs once per post (not once per
    sentence) and ``^``/``$`` with ``re.M`` still mean "start/end of a sentence".
    """

    def __init__(self, title: str, body: str) -> None:
        self.raw = f"{title}\n{body}" if title else body
        self.sentences = [
            s.strip()
            for s in _SPLIT.split(_URL.sub(" ", self.raw))
            if s.strip() and not _HASHTAG_LINE.match(s.strip()) and any(c.isalpha() for c in s)
        ]
        self.joined = "\n".join(self.sentences)
        self.lower = self.joined.lower()
        self.tokens = Tokens(self.joined)
        self.starts: list[int] = []
        offset = 0
        for sentence in self.sentences:
            self.starts.append(offset)
            offset += len(sentence) + 1
        self.words = _WORD.findall(self.lower)
        self.wordset = set(self.words)
        self.opening = self.sentences[0] if self.sentences else ""

    def sentence_at(self, position: int) -> str:
        """The sentence holding character ``position`` of ``joined``."""
        return self.sentences[bisect_right(self.starts, position) - 1]

    def find(self, cue: _Cue) -> str | None:
        """The first sentence where ``cue`` matches."""
        match = cue.pattern.search(self.joined) if cue.possible(self) else None
        return None if match is None else self.sentence_at(match.start())

    def questions(self) -> list[str]:
        return [s for s in self.sentences if s.endswith("?")]


def _compound(text: str, language: str) -> float:
    """The compound polarity (-1..1) of ``text`` in ``language`` (VADER for English)."""
    lexicon = lexicons.LEXICONS.get(language)
    if lexicon is None:
        return float(_analyzer().polarity_scores(text)["compound"])
    return lexicons.compound(text, lexicon)


def _valence(sentence: str, language: str = "en") -> float:
    """Sum of the language's word valences (cheap per-sentence polarity)."""
    lexicon = lexicons.LEXICONS.get(language)
    if lexicon is None:
        vader = _analyzer().lexicon
        return float(sum(vader.get(word, 0.0) for word in _WORD.findall(sentence.lower())))
    return lexicons.total_valence(sentence, lexicon)


def _shares(weights: Mapping[str, float], keys: Sequence[str]) -> dict[str, str]:
    """Normalised shares as three-decimal strings; the first key absorbs rounding."""
    total = sum(weights[k] for k in keys)
    rounded = {k: round(weights[k] / total, 3) for k in keys}
    rounded[keys[0]] = round(1.0 - sum(rounded[k] for k in keys[1:]), 3)
    return {k: f"{rounded[k]:.3f}" for k in keys}


def dominant(scores: Mapping[str, Any]) -> str:
    """The key with the largest share; ties resolve to neutral (then joy, sadness, ...).

    Works for ``sentiment`` and ``emotions`` dicts (string or number values).

    Example:
        >>> dominant({"negative": "0.1", "neutral": "0.3", "positive": "0.6"})
        'positive'
    """
    order = EMOTIONS if "joy" in scores else SENTIMENTS
    present = [k for k in order if k in scores]
    return max(present, key=lambda k: (float(scores[k]), -order.index(k)))


# --- sentiment, emotions, tone, vibe -----------------------------------------------------


def _sentiment(compound: float) -> dict[str, str]:
    weights = {
        "neutral": math.exp(3 * (0.1 - abs(compound))),
        "positive": math.exp(3 * compound),
        "negative": math.exp(-3 * compound),
    }
    shares = _shares(weights, SENTIMENTS)
    return {k: shares[k] for k in ("negative", "neutral", "positive")}


def score_text(text: str, language: str | None = None) -> dict[str, str]:
    """Sentiment shares of a text: ``{negative, neutral, positive}`` three-decimal strings.

    ``language`` is a hint (ISO 639-1); the text's own words decide (see the module doc).

    Example:
        >>> dominant(score_text("This is terrible, I want a refund."))
        'negative'
        >>> dominant(score_text("Sinceramente me decepcionó, demasiado caro."))
        'negative'
    """
    return _sentiment(_compound(text, lexicons.detect_language(text, language)))


_EMOTION_WORDS: dict[str, tuple[str, ...]] = {
    "joy": _words(
        "love loved loving happy glad amazing awesome obsessed delicious perfect fun enjoy "
        "enjoyed excited grateful wonderful favourite favorite hooked delighted yay 😍 😊 ❤️ 🥰 🙌"
    ),
    "sadness": _words(
        "sad disappointed disappointing miss missed regret unfortunately sorry lonely cry "
        "crying heartbroken 😢 😭 💔"
    ),
    "anger": _words(
        "angry furious annoyed annoying ridiculous hate hated outraged scam ignored done "
        "worst rude unacceptable 😡 🤬 😤"
    ),
    "surprise": _words(
        "surprised surprising wow unexpected shocked shocking suddenly unbelievable caught 😮 😲 🤯"
    ),
    "fear": _words(
        "afraid scared worried worry nervous risk risky anxious dangerous warning unsafe "
        "concerned 😨 😱"
    ),
    "disgust": _words("gross disgusting awful nasty vile yuck terrible mess 🤢 🤮"),
}
_EMOTION_OF = {w: e for e, words in _EMOTION_WORDS.items() for w in words}
_EMOJI = re.compile("|".join(re.escape(w) for w in _EMOTION_OF if not w.isascii()))


def _emotions(text: _Text, compound: float) -> dict[str, str]:
    hits = Counter(_EMOTION_OF[w] for w in text.words if w in _EMOTION_OF)
    hits.update(_EMOTION_OF[m] for m in _EMOJI.findall(text.raw))
    negative = 1.5 * max(-compound, 0.0)
    weights = {
        "neutral": 1.0,
        "joy": hits["joy"] + 1.5 * max(compound, 0.0),
        "sadness": hits["sadness"] + 0.4 * negative,
        "anger": hits["anger"] + 0.4 * negative,
        "surprise": float(hits["surprise"]),
        "fear": float(hits["fear"]),
        "disgust": hits["disgust"] + 0.2 * negative,
    }
    return _shares(weights, EMOTIONS)


_PROMO = _Cue(
    r"shop now|use code|code [a-z0-9]{4,}|link in (?:my )?bio|limited time|sponsored"
    r"|now available|get offer",
    r"#ad\b|\bsave \d+%",
    ("#ad", "%"),
)
_SARCASM = _Cue("yeah right|oh great|thanks a lot|sure, because", r"/s\b", ("/s",))
_HUMOUR = _Cue(r"lol|lmao|laughed|haha\w*", "😂|🤣", ("😂", "🤣"))
_PROFESSIONAL = _Cue(
    r"excited to share|our team|industry|insights?|lessons?|we're hiring|customers|grateful"
    r"|campaign"
)
_INFORMATIVE = _Cue(r"how to|step|tips?|data|reports?", r"^\d+\.", ("1.",))
_SERIOUS = ("professional", "informative", "critical")


def _tone(text: _Text, compound: float, is_ad: bool, language: str) -> dict[str, str]:
    """The tone of voice (first rule that fires) and the sentence that shows it."""
    sentences = text.sentences
    questions = text.questions()
    valence = partial(_valence, language=language)
    rules: list[tuple[str, str | None]] = [
        ("promotional", text.opening if is_ad else None),
        ("sarcastic", text.find(_SARCASM)),
        ("humorous", text.find(_HUMOUR)),
        ("critical", min(sentences, key=valence) if compound <= -0.3 and sentences else None),
        ("enthusiastic", max(sentences, key=valence) if compound >= 0.5 and sentences else None),
        ("professional", text.find(_PROFESSIONAL)),
        ("promotional", text.find(_PROMO)),
        ("inquisitive", questions[0] if len(questions) * 2 >= len(sentences) > 0 else None),
        ("informative", text.find(_INFORMATIVE)),
    ]
    label, evidence = next(((t, e) for t, e in rules if e), ("casual", text.opening))
    return {"text": label, "evidence": evidence}


def _vibe(text: _Text, compound: float, tone: str) -> dict[str, float]:
    """Five 0..1 axes (a post can be energetic and uplifting at once), two decimals."""
    exclaims = text.raw.count("!")
    caps = sum(1 for w in text.raw.split() if len(w) > 2 and w.isupper())
    emoji = sum(1 for ch in text.raw if ord(ch) > 0x2600)
    n = max(len(text.sentences), 1)

    def clip(x: float) -> float:
        return round(min(max(x, 0.0), 1.0), 2)

    return {
        "energetic": clip(0.2 + 0.15 * exclaims + 0.1 * caps + 0.05 * emoji),
        "calm": clip(0.7 - 0.15 * exclaims - 0.4 * abs(compound)),
        "humorous": clip(0.8 if tone in ("humorous", "sarcastic") else 0.05 * emoji),
        "serious": clip(0.3 + (0.4 if tone in _SERIOUS else 0.0) - 0.05 * exclaims / n),
        "uplifting": clip(0.5 + 0.5 * compound),
    }


# --- hooks and structure -----------------------------------------------------------------

_HOOKS = tuple(
    (name, _Cue(*rule))
    for name, rule in (
        ("controversy", ("unpopular opinion|hot take|overrated|i'm so done",)),
        ("warning", ("avoid|before you buy", r"^(?:stop|warning|don't)\b")),
        ("how_to", ("here's how|step by step|tutorial|guide", r"^how to\b")),
        ("list", (r"top \d+|\d+ (?:things|reasons|tips|mistakes|ways)", r"^\d+\s")),
        ("comparison", (r"vs|versus|compar\w*|switched from", r"\bor\b.+\?$")),
        (
            "story",
            (
                "last (?:week|month|year)|story time|so this happened|years ago"
                "|for the first time|yesterday",
            ),
        ),
        (
            "curiosity",
            (
                "nobody tells you|here's what happened|surprised|you won't believe|secret"
                "|i wish i knew",
            ),
        ),
        (
            "announcement",
            (
                "excited to share|just announced|introducing|is expanding|results are in"
                "|now available",
                r"^meet\b",
            ),
        ),
        ("statistic", ("new data|reports say", r"\d+(?:\.\d+)?%")),
        (
            "bold_claim",
            (
                "hands down|the best|the worst|game changer|obsessed|won me over"
                "|finally get the hype",
            ),
        ),
        ("question", ("", r"\?$|^(?:has anyone|is it|what|why|which|can we|does|did you)\b")),
    )
)

_STRUCTURES = tuple(
    (name, _Cue(*rule))
    for name, rule in (
        ("listicle", ("", r"^\d+\.\s", ("1.",))),
        (
            "tutorial",
            ("how to|step by step|pro tip", r"^(?:first|then|finally)\b", ("first", "then")),
        ),
        ("comparison", (r"vs|versus|compar\w*|switched from|better than",)),
        ("story", ("story time|last week|years ago|so this happened",)),
        ("announcement", ("announced?|introducing|now available|excited to share",)),
        ("problem_solution", ("fixed it|solution|the answer|the takeaway",)),
        ("question_led", ("", r"\?$", ("?",))),
    )
)


def _hooks(opening: str) -> list[dict[str, str]]:
    """Hook types of the opening line (several may apply; ``statement`` when none does)."""
    types = [name for name, cue in _HOOKS if cue.pattern.search(opening)]
    return [{"type": t, "text": opening} for t in types or ["statement"]]


def _structure(text: _Text, compound: float) -> dict[str, str]:
    for name, cue in _STRUCTURES:
        evidence = text.find(cue)
        if evidence:
            return {"text": name, "evidence": evidence}
    return {"text": "review" if abs(compound) >= 0.4 else "opinion", "evidence": text.opening}


# --- calls to action ---------------------------------------------------------------------

_CTAS = tuple(
    (label, _Cue(*rule))
    for label, rule in (
        ("Shop now", ("shop now|buy now|order (?:now|today)|get offer",)),
        ("Use discount code", ("code [a-z0-9]{4,}", r"\bsave \d+%", ("%",))),
        ("Link in bio", ("links? in (?:my |the )?(?:bio|description)",)),
        ("Subscribe", ("subscribe",)),
        ("Follow", ("follow (?:me |us )?for|follow (?:me|us) on",)),
        ("Save", ("save (?:this|it)",)),
        ("Share", ("share (?:it|this)|tag (?:someone|a friend)",)),
        ("Comment", ("comment|in the comments|let me know|share your thoughts",)),
        ("Sign up", ("sign up|register|join (?:us|now)",)),
        ("Download", ("download|install",)),
        ("Apply", ("we're hiring|apply",)),
        ("Learn more", ("learn more|read more|check (?:it )?out",)),
    )
)


def _cta(text: _Text) -> dict[str, str] | None:
    """The strongest call to action (ordered rules) with its sentence; a bare link counts."""
    for label, cue in _CTAS:
        evidence = text.find(cue)
        if evidence:
            return {"text": label, "evidence": evidence}
    link = _URL.search(text.raw)
    return {"text": "Visit link", "evidence": link.group(0)} if link else None


# --- general analysis --------------------------------------------------------------------


_ASPECTS = Gazetteer(a for c in (*CATEGORIES, GENERIC) for a in c.aspects)
_BRAND_CUE = re.compile(
    r"\b(?:switched (?:to|from)|than|vs\.?|versus|over|instead of|compared to)\s+"
    r"([A-Z][\w&'-]*(?:\s[A-Z][\w&'-]*)?)"
)
_CAPITALISED = re.compile(r"\b[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*")
_DIGIT = re.compile(r"\d")
_HANDLE = re.compile(r"(?<!\w)@\w[\w.]*")
_QUESTION_LABEL = re.compile(r"^(?:genuine |quick )?question\s*:\s*", re.I)
_NOT_ENTITY = frozenset(
    _words(
        "I I'm I've I'd Honestly Okay Ok So But And Then First Finally Pro Edit Thanks Step Top "
        "Here Is Has Can Does Did What Why Which How Genuine Story Unpopular Warning Stop Lol "
        "Nah Same Great Underrated This That It My The A Totally Meet Tired Limited Why Get"
    )
)
_STOP = frozenset(
    _words(
        """a about after again all also am an and any are as at be been before being but by can
        could did do does doing don't for from get got had has have having he her here his how
        i i'm i've if in into is it it's its just me more most my no not now of off on once only
        or our out over own really same she should so some such than that that's the their them
        then there these they this those through to too up very was we were what when where
        which while who why will with would you your you're yours honestly actually still much
        one thing things way lot bit anyone everyone someone every finally first then next last
        week weeks month months year years day days time since ever even it'll let make makes
        made use used using want need know think see look going go went come came take good
        great better best bad worse worst new like love hate"""
    )
)

_INTENTS = tuple(
    (name, _Cue(*rule))
    for name, rule in (
        ("promotion", ("sponsored|use code|shop now|limited time", r"#ad\b", ("#ad",))),
        ("tutorial", ("how to|step by step|tutorial|guide", r"^first\b", ("first",))),
        ("comparison", (r"vs|versus|compar\w*|better than|switched from",)),
        ("complaint", (r"disappoint\w*|broke|regret|waste|ignored|refund",)),
        ("news", ("announced?|reports? say|analysts|new data|is expanding",)),
        ("personal_story", ("story time|last week|so this happened|years ago",)),
        ("recommendation", ("recommend|worth (?:every|it)|must[- ]have|go with",)),
    )
)


def _topics(text: _Text) -> list[dict[str, str]]:
    """Up to three topics: aspects the post names, then content-word pairs or words it repeats."""
    topics: dict[str, str] = {}
    for offset, aspect in _ASPECTS.matches(text.tokens):
        topics.setdefault(aspect, text.sentence_at(offset))
    content = [w for w in text.words if len(w) > 2 and w not in _STOP]
    pairs = Counter(f"{a} {b}" for a, b in pairwise(content))
    singles = Counter(w for w in content if len(w) > 3)
    for candidate, n in [*pairs.most_common(2), *singles.most_common(3)]:
        if len(topics) >= 3:
            break
        if n >= 2 and not any(candidate in t or t in candidate for t in topics):
            evidence = next((s for s in text.sentences if candidate in s.lower()), text.opening)
            topics[candidate] = evidence
    return [{"text": t, "evidence": e} for t, e in list(topics.items())[:3]]


def _brands(text: _Text, advertiser: str | None, known: Sequence[str] = ()) -> list[str]:
    found = brands_in(text.tokens)
    found += [b for b in known if re.search(rf"(?<!\w){re.escape(b)}(?!\w)", text.raw, re.I)]
    if "#" in text.raw:  # hashtag lines are no sentences: not in text.tokens
        found += brands_tagged(text.raw)
    if advertiser and advertiser.lower() in text.lower:  # an ad names its own brand
        found.append(advertiser)
    found += [b for b in _BRAND_CUE.findall(text.raw) if b.split()[0] not in _NOT_ENTITY]
    return list(dict.fromkeys(found))


def _entities(text: _Text, brands: Sequence[str]) -> list[str]:
    """Brands, @handles and capitalised spans that do more than open a sentence."""
    found = [*brands, *_HANDLE.findall(text.raw)]
    for sentence in text.sentences:
        for match in _CAPITALISED.finditer(sentence):
            span = match.group(0)
            if any(b in span for b in brands):
                continue
            words = span.split()
            opens_sentence = not sentence[: match.start()].strip(" ¿¡\"'(")
            if opens_sentence or words[0] in _NOT_ENTITY:
                words = words[1:]
            if words and not any(w in _NOT_ENTITY or _DIGIT.search(w) for w in words):
                found.append(" ".join(words))
    return list(dict.fromkeys(found))[:10]


def _summary(text: _Text) -> str:
    """The opening plus the sentence sharing most content words with the whole post."""
    if len(text.sentences) <= 2:
        return " ".join(text.sentences)[:280]
    weight = Counter(w for w in text.words if w not in _STOP)

    def centrality(sentence: str) -> float:
        return sum(weight[w] for w in set(_WORD.findall(sentence.lower()))) / (
            1 + len(sentence) / 80
        )

    return f"{text.opening} {max(text.sentences[1:], key=centrality)}"[:280]


def _questions(text: _Text) -> list[dict[str, str]]:
    out = []
    for sentence in text.questions():
        question = _QUESTION_LABEL.sub("", sentence)
        out.append({"text": question[:1].upper() + question[1:], "evidence": sentence})
    return out


def _intention(text: _Text, compound: float, is_ad: bool, has_topics: bool) -> str:
    """Why the post was written: the first rule that fires, else ``discussion``."""
    if is_ad:
        return "promotion"
    fired = {name for name, cue in _INTENTS if text.find(cue) is not None}
    questions = len(text.questions())
    rules = (
        ("promotion", "promotion" in fired),
        ("tutorial", "tutorial" in fired),
        ("comparison", "comparison" in fired),
        ("question", text.opening.endswith("?") or questions * 2 > len(text.sentences)),
        ("complaint", compound <= -0.2 or (compound < 0.2 and "complaint" in fired)),
        ("news", "news" in fired),
        ("personal_story", "personal_story" in fired),
        ("recommendation", compound >= 0.4 and "recommendation" in fired),
        ("review", has_topics and abs(compound) >= 0.2),
    )
    return next((name for name, hit in rules if hit), "discussion")


# --- entry point -------------------------------------------------------------------------


def enrich(
    mention: Mapping[str, Any], actions: Iterable[str] | None, brands: Sequence[str] = ()
) -> dict[str, Any]:
    """A copy of ``mention`` with the analysis fields of ``actions`` added.

    Without actions the copy has no analysis fields at all (the spec: fields are filled
    only when the matching analyses ran). ``brands``: names besides the corpus's own that
    the collecting search was about (a query naming an unknown brand, "Acme", makes the
    corpus write posts about Acme), detected like the corpus's brands.

    Example:
        >>> out = enrich({"title": "Oatly vs Alpro?", "text": "Which one foams better?"}, ["hook"])
        >>> [h["type"] for h in out["hooks"]], out["mentioned_brands"]
        (['comparison', 'question'], ['Oatly', 'Alpro'])
    """
    wanted = set(actions or ())
    out = dict(mention)
    if not wanted:
        return out
    text = _Text(str(mention.get("title") or ""), str(mention.get("text") or ""))
    is_ad = mention.get("content_type") == "ad"
    language = lexicons.detect_language(text.raw, mention.get("language"))
    # The one polarity call; intention and structure use it even without "sentiment".
    compound = _compound(text.raw, language)
    if "sentiment" in wanted:
        tone = _tone(text, compound, is_ad, language)
        out["sentiment"] = _sentiment(compound)
        out["sentiment_score"] = f"{compound:.3f}"
        out["emotions"] = _emotions(text, compound)
        out["tone_of_voice"] = tone
        out["vibe"] = _vibe(text, compound, tone["text"])
    if "hook" in wanted:
        out["hooks"] = _hooks(text.opening)
        out["narrative_structure"] = _structure(text, compound)
    if "cta" in wanted:
        out["cta"] = _cta(text)
    topics = _topics(text)
    brands = _brands(text, (mention.get("ad_meta") or {}).get("advertiser_name"), brands)
    out["summary"] = _summary(text)
    out["content_topics"] = topics
    out["questions"] = _questions(text)
    out["mentioned_brands"] = brands
    out["entities"] = _entities(text, brands)
    out["category"] = category_of(text.tokens).name
    out["content_intention"] = _intention(text, compound, is_ad, bool(topics))
    return out


SPEECH_TEMPOS = ("slow", "moderate", "fast")
"""``speech_tempo`` values: words per minute below 130, 130..170, above 170."""


def speech_tempo(mention: Mapping[str, Any]) -> str | None:
    """The spoken pace of a post's video, from its transcript; ``None`` without a video.

    Only a run with ``enable_transcribing`` calls this (there is no speech to measure
    otherwise). The sandbox's "transcript" is the post text and the video's length is
    derived from the post id, so the value is stable across runs.

    Example:
        >>> video = [{"type": "video"}]
        >>> speech_tempo({"id": "v1", "text": "so today we try oat milk", "media": video})
        'moderate'
        >>> speech_tempo({"id": "p1", "text": "a photo", "media": [{"type": "image"}]}) is None
        True
    """
    if not any((m or {}).get("type") == "video" for m in mention.get("media") or []):
        return None
    words = sum(len(str(mention.get(key) or "").split()) for key in ("title", "text"))
    # A video of 15..74 s, spoken at 100..219 words per minute (the text is a sample of it).
    seed = sum(map(ord, str(mention.get("id") or ""))) + words
    per_minute = 100 + seed * 37 % 120
    return SPEECH_TEMPOS[0 if per_minute < 130 else 1 if per_minute <= 170 else 2]
