"""Custom parameter extraction: a small, explainable rule engine (no ML).

A custom parameter is a natural-language instruction ("Which brand is mentioned? One of:
Oatly, Alpro, Minor Figures"). :func:`compile_rule` reads the instruction once and picks
the rule family it asks for; :meth:`Rule.apply` runs that rule on one post and returns
the value together with a one-line explanation of why. The free preview endpoint and
custom parameter runs share this code, so a preview predicts a run exactly.

Rule families, tried in this order:

- **choice** -- "One of: A, B, C", "Classify ... as A, B or C"; a set of
  positive/negative/neutral(/mixed) options becomes a **tone** rule (VADER lexicon).
- **yes/no** -- "... yes/no", "... yes or no", or any question with ``value_type`` boolean.
- **price** -- "price", "cost", "how much": currency amounts.
- **country** -- "country": a small gazetteer of names, demonyms, cities and flag emoji.
- **count** -- "count ...", "how many ...", "number of ...".
- **name** -- "which brand/company/product/person ...": proper nouns, @handles, #tags.
- **extract** (fallback) -- the post sentence sharing most words with the instruction.

Example:
    >>> rule = compile_rule("Which brand is mentioned? One of: Oatly, Alpro, Minor Figures")
    >>> rule.apply("Swapped to Alpro today", "honestly better than oatly? no, Alpro wins").value
    'Alpro'
    >>> complaint = compile_rule("Is the post a complaint? yes/no")
    >>> complaint.apply("", "So disappointed, it leaked").value
    'yes'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

__all__ = [
    "STOPWORDS",
    "VALUE_TYPES",
    "Extraction",
    "Rule",
    "UnprocessablePost",
    "compile_rule",
    "extract",
    "stem",
]

VALUE_TYPES = ("string", "number", "boolean")
"""Value types the engine can produce; ``string`` is the one the spec shows."""

Value = str | int | float | bool | None


class UnprocessablePost(ValueError):
    """The post has no analysable text (empty, or only links, tags and emoji)."""


@dataclass(frozen=True)
class Extraction:
    """The value extracted from one post and a human-readable reason for it."""

    value: Value
    explanation: str


# --- text helpers -------------------------------------------------------------------------

_URL = re.compile(r"https?://\S+|www\.\S+", re.I)
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.U)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


STOPWORDS = _wordset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers him his how i if in into is it its itself
    just me more most my no nor not now of off on once only or other our out over own same
    she should so some such than that the their them then there these they this those
    through to too under until up very was we were what when where which while who whom why
    will with would you your yours yes one also get got"""
)
# Words that describe the task rather than the thing to look for.
_META = _wordset(
    """post posts mention mentions mentioned mentioning text content author user caption
    comment comments extract classify classified categorize categorise label identify
    determine find return give tell say says said whether value answer question
    summarize summarise summary main primary overall specific kind type talk talks talking
    discuss discusses discussing
    refer refers referred contain contains containing include includes included"""
)


def _post_text(title: str | None, text: str | None) -> str:
    """Title and body as one text; a title repeated as the body's start is kept once."""
    title, text = (title or "").strip(), (text or "").strip()
    if title and not text.startswith(title):
        return f"{title}\n{text}" if text else title
    return text


_SUFFIXES = (
    "abilities",
    "ability",
    "ibility",
    "ations",
    "ation",
    "ments",
    "ment",
    "ness",
    "ings",
    "ing",
    "ities",
    "ity",
    "able",
    "ible",
    "ies",
    "ed",
    "es",
    "ly",
    "s",
)


def stem(word: str) -> str:
    """A crude suffix stripper: enough to match plurals and verb forms as prefixes.

    Example:
        >>> stem("leaking"), stem("sustainability"), stem("foam"), stem("prices")
        ('leak', 'sustain', 'foam', 'price')
    """
    word = word.lower().strip("'’-")
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
                continue  # "prices" is "price" + s, as "price" itself stems (boxes: box)
            return word[: -len(suffix)]
    return word


def _content_words(text: str) -> list[str]:
    """The instruction's words that name what to look for, in order, without repeats."""
    words = (raw.strip("'’-") for raw in _WORD.findall(text.lower()))
    kept = (w for w in words if len(w) > 2 and w not in STOPWORDS and w not in _META)
    return list(dict.fromkeys(kept))


def _term_pattern(term: str) -> re.Pattern[str]:
    """A case-insensitive pattern for a term: symbols literally, words by stem prefix."""
    if not re.search(r"\w", term):
        return re.compile(re.escape(term))
    if " " in term or not term.isalpha():
        return re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.I)
    return re.compile(rf"(?<!\w){re.escape(stem(term))}\w*", re.I)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _check_processable(text: str) -> None:
    without_links = _URL.sub(" ", text)
    without_tags = re.sub(r"[#@]\w+", " ", without_links)
    if not re.search(r"[^\W\d_]{2,}", without_tags):
        raise UnprocessablePost("the post has no analysable text")


def _parse_number(raw: str) -> int | float:
    """'1,299.50' / '4,99' / '12' -> a number; a lone comma with two decimals is a decimal."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):
        raw = raw.replace(",", "")
    elif re.fullmatch(r"\d+,\d{1,2}", raw):
        raw = raw.replace(",", ".")
    number = float(raw.replace(",", ""))
    return int(number) if number.is_integer() and "." not in raw else number


# --- rules --------------------------------------------------------------------------------

Matcher = Callable[[str], tuple[Any, str]]
"""A rule body: post text -> (raw answer, explanation). ``None`` means "not found"."""


@dataclass(frozen=True)
class Rule:
    """A compiled instruction: its family, what it looks for, and how to read one post.

    Example:
        >>> compile_rule("Extract the price mentioned").apply("", "Only €3,49 at Lidl").value
        '€3,49'
    """

    kind: str
    description: str
    value_type: str
    _match: Matcher

    def apply(self, title: str | None, text: str | None) -> Extraction:
        """Extract the value from one post; raises :class:`UnprocessablePost`."""
        body = _post_text(title, text)
        _check_processable(body)
        raw, why = self._match(body)
        return Extraction(_coerce(raw, self.value_type), f"{self.kind}: {why}")


def _coerce(raw: Any, value_type: str) -> Value:
    """Convert a rule's raw answer to the parameter's value type (None stays None)."""
    if raw is None:
        return None
    if value_type == "boolean":
        if isinstance(raw, str):
            return raw.strip().lower() in {"yes", "true"}
        return bool(raw)
    if value_type == "number":
        if isinstance(raw, bool):
            return int(raw)
        if isinstance(raw, int | float):
            return raw
        found = _NUMBER.search(str(raw))
        return _parse_number(found.group()) if found else None
    if isinstance(raw, bool):
        return "yes" if raw else "no"
    return str(raw)


def _first_most_frequent(hits: dict[str, list[int]]) -> tuple[str, list[int]] | None:
    """The label with most occurrences; ties go to the one seen first in the post."""
    present = [(label, positions) for label, positions in hits.items() if positions]
    if not present:
        return None
    return max(present, key=lambda item: (len(item[1]), -min(item[1])))


def _positions(pattern: re.Pattern[str], text: str) -> list[int]:
    return [m.start() for m in pattern.finditer(text)]


# choice ----------------------------------------------------------------------------------

_OPTIONS_AFTER = re.compile(
    r"(?:\bone of|\boptions?|\bchoose from|\bpick from|\bamong|\bchoices?)\s*[:\-–]?\s*(.+)$",
    re.I | re.S,
)
_CLASSIFY_AS = re.compile(
    r"\b(?:classify|categori[sz]e|label|rate|tag)\b.*?\b(?:as|into)\b\s*[:\-–]?\s*(.+)$",
    re.I | re.S,
)
_TONE_LABELS = frozenset({"positive", "negative", "neutral", "mixed"})


def _split_options(raw: str) -> list[str]:
    raw = raw.strip().rstrip(".?!")
    parts = re.split(r"\s*(?:,|;|/|\||\bor\b|\band\b)\s*", raw)
    options = [p.strip(" '\"“”‘’()[]") for p in parts]
    return list(dict.fromkeys(o for o in options if o))


def _parse_options(instructions: str) -> list[str]:
    for pattern in (_OPTIONS_AFTER, _CLASSIFY_AS):
        found = pattern.search(instructions)
        if found:
            options = _split_options(found.group(1))
            if len(options) >= 2:
                return options
    return []


def _option_pattern(option: str) -> re.Pattern[str]:
    """Match an option as words, as a #tag/@handle without spaces, or by word stems."""
    words = option.split()
    glued = re.escape("".join(words))
    stems = r"[\s-]+".join(re.escape(stem(w)) + r"\w*" for w in words)
    return re.compile(rf"(?<!\w)(?:{stems}|[#@]{glued}\w*)", re.I)


def _choice_rule(options: Sequence[str]) -> Matcher:
    patterns = {option: _option_pattern(option) for option in options}

    def match(text: str) -> tuple[Any, str]:
        best = _first_most_frequent({o: _positions(p, text) for o, p in patterns.items()})
        if best is None:
            return None, f"none of {', '.join(options)} appears"
        option, where = best
        return option, f"'{option}' appears {len(where)}x, first at character {min(where)}"

    return match


@cache
def _vader() -> Any:
    """VADER's lexicon analyser, loaded once (it reads its lexicon file on creation)."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def _tone_rule(options: Sequence[str]) -> Matcher:
    by_label = {o.lower(): o for o in options}

    def match(text: str) -> tuple[Any, str]:
        scores = _vader().polarity_scores(text)
        compound = scores["compound"]
        if "mixed" in by_label and scores["pos"] >= 0.2 and scores["neg"] >= 0.2:
            label = "mixed"
        elif compound >= 0.05:
            label = "positive"
        elif compound <= -0.05:
            label = "negative"
        else:
            label = "neutral"
        why = f"VADER compound {compound:+.3f} (pos {scores['pos']}, neg {scores['neg']})"
        if label not in by_label:
            return None, f"{why} -> {label}, which is not an option"
        return by_label[label], f"{why} -> {label}"

    return match


# yes/no ----------------------------------------------------------------------------------

_YES_NO = re.compile(r"\byes\s*(?:/|or|\|)\s*no\b|\btrue\s*(?:/|or)\s*false\b", re.I)
# Cue words for predicates a short yes/no question cannot spell out itself.
_CONCEPTS: dict[str, tuple[str, ...]] = {
    name: tuple(cues.split("|"))
    for name, cues in {
        "complaint": "complain|disappoint|terrible|awful|worst|broken|refund|never again|"
        "horrible|waste of money|rip-off|ripoff|overpriced|not happy|unacceptable|leak|"
        "poor quality",
        "question": "?",
        "recommendation": "recommend|must try|must-try|you should|worth it|go for",
        "advert": "#ad|#sponsored|sponsored|paid partnership|promo code|discount code|"
        "use code|affiliate|link in bio",
        "giveaway": "giveaway|give away|win a|contest|enter to win",
        "purchase": "bought|buy|purchase|ordered|picked up|checkout",
        "praise": "love|amazing|great|best|delicious|perfect|obsessed",
        "price": "price|expensive|cheap|cost|overpriced|$|€|£",
    }.items()
}
_CONCEPT_ALIASES = {
    alias: concept
    for concept, aliases in {
        "complaint": "complain complaints",
        "question": "questions asking",
        "recommendation": "recommend recommending recommendations",
        "advert": "ad ads advertisement sponsored promotion promotional",
        "giveaway": "giveaways contest",
        "purchase": "buying bought purchased",
        "praise": "praising compliment",
        "price": "pricing prices",
    }.items()
    for alias in aliases.split()
}


def _cue_terms(words: Iterable[str]) -> list[str]:
    """Question words plus the cue words of any concept they name."""
    terms: dict[str, None] = {}
    for word in words:
        concept = word if word in _CONCEPTS else _CONCEPT_ALIASES.get(word)
        if concept:
            terms.update(dict.fromkeys(_CONCEPTS[concept]))
        terms.setdefault(word, None)
    return list(terms)


def _yes_no_rule(terms: Sequence[str]) -> Matcher:
    patterns = [(t, _term_pattern(t)) for t in terms]

    def match(text: str) -> tuple[Any, str]:
        for term, pattern in patterns:
            found = pattern.search(text)
            if found:
                return True, f"yes: found '{found.group()}' (cue '{term}')"
        listed = ", ".join(terms[:8]) + (", …" if len(terms) > 8 else "")
        return False, f"no: none of {listed} found"

    return match


# price -----------------------------------------------------------------------------------

_AMOUNT = r"\d{1,3}(?:[,.]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
_PRICE = re.compile(
    rf"(?P<sym>[$€£¥₹])\s?(?P<a1>{_AMOUNT})"
    rf"|(?P<a2>{_AMOUNT})\s?(?P<unit>[$€£¥₹]|usd|eur|gbp|sek|nok|dkk|chf|kr|"
    r"dollars?|euros?|pounds?|bucks)(?!\w)",
    re.I,
)


def _price_rule(value_type: str) -> Matcher:
    """The first amount as written, or its number for ``number`` parameters."""

    def match(text: str) -> tuple[Any, str]:
        found = list(_PRICE.finditer(text))
        if not found:
            return None, "no currency amount found"
        first = found[0]
        more = f" ({len(found)} amounts; the first is used)" if len(found) > 1 else ""
        if value_type == "number":
            return _parse_number(first.group("a1") or first.group("a2")), f"'{first.group()}'{more}"
        return first.group(), f"'{first.group()}'{more}"

    return match


# country ---------------------------------------------------------------------------------

# name -> (ISO 3166-1 alpha-2, "|"-separated aliases: short forms, demonyms, cities)
_COUNTRIES: dict[str, tuple[str, str]] = {
    "United States": (
        "US",
        "usa|u.s.|u.s.a.|united states|america|american|new york|nyc|los angeles|"
        "san francisco|chicago",
    ),
    "United Kingdom": (
        "GB",
        "uk|u.k.|united kingdom|britain|british|england|scotland|wales|london|manchester",
    ),
    "Canada": ("CA", "canada|canadian|toronto|vancouver|montreal"),
    "Australia": ("AU", "australia|australian|aussie|sydney|melbourne"),
    "Germany": ("DE", "germany|german|deutschland|berlin|munich|hamburg"),
    "France": ("FR", "france|french|paris|lyon"),
    "Spain": ("ES", "spain|spanish|españa|madrid|barcelona"),
    "Italy": ("IT", "italy|italian|rome|milan"),
    "Netherlands": ("NL", "netherlands|dutch|holland|amsterdam|rotterdam"),
    "Belgium": ("BE", "belgium|belgian|brussels|antwerp"),
    "Sweden": ("SE", "sweden|swedish|sverige|stockholm|gothenburg|malmö"),
    "Norway": ("NO", "norway|norwegian|oslo"),
    "Denmark": ("DK", "denmark|danish|copenhagen"),
    "Finland": ("FI", "finland|finnish|helsinki"),
    "Ireland": ("IE", "ireland|irish|dublin"),
    "Portugal": ("PT", "portugal|portuguese|lisbon|porto"),
    "Switzerland": ("CH", "switzerland|swiss|zurich|geneva"),
    "Austria": ("AT", "austria|austrian|vienna"),
    "Poland": ("PL", "poland|polish|warsaw"),
    "Brazil": ("BR", "brazil|brazilian|brasil|são paulo|sao paulo|rio"),
    "Mexico": ("MX", "mexico|mexican|méxico"),
    "Japan": ("JP", "japan|japanese|tokyo|osaka"),
    "China": ("CN", "china|chinese|beijing|shanghai"),
    "South Korea": ("KR", "south korea|korea|korean|seoul"),
    "India": ("IN", "india|indian|mumbai|delhi|bangalore"),
    "Singapore": ("SG", "singapore|singaporean"),
    "New Zealand": ("NZ", "new zealand|kiwi|auckland"),
    "South Africa": ("ZA", "south africa|south african|cape town|johannesburg"),
    "Nigeria": ("NG", "nigeria|nigerian|lagos"),
    "United Arab Emirates": ("AE", "uae|emirates|dubai|abu dhabi"),
}
_FLAG = re.compile("[\U0001f1e6-\U0001f1ff]{2}")


def _flag_code(flag: str) -> str:
    return "".join(chr(ord(c) - 0x1F1E6 + ord("A")) for c in flag)


@cache
def _country_patterns() -> dict[str, re.Pattern[str]]:
    return {
        name: re.compile(
            r"(?<!\w)(?:"
            + "|".join(re.escape(a) for a in sorted(aliases.split("|"), key=len, reverse=True))
            + r")(?!\w)",
            re.I,
        )
        for name, (_, aliases) in _COUNTRIES.items()
    }


def _country_rule(as_code: bool) -> Matcher:
    by_code = {code: name for name, (code, _) in _COUNTRIES.items()}

    def match(text: str) -> tuple[Any, str]:
        hits = {name: _positions(p, text) for name, p in _country_patterns().items()}
        for flag in _FLAG.finditer(text):
            name = by_code.get(_flag_code(flag.group()))
            if name:
                hits[name].append(flag.start())
        best = _first_most_frequent(hits)
        if best is None:
            return None, "no country name, demonym, city or flag found"
        name, where = best
        cue = text[min(where) : min(where) + 24].split("\n", 1)[0]
        value = _COUNTRIES[name][0] if as_code else name
        return value, f"{name} named {len(where)}x, first as '{cue.strip()}'"

    return match


# count -----------------------------------------------------------------------------------

_COUNT_TARGET = re.compile(
    r"(?:number of|how many|count(?: the)?(?: number of)?|count of)\s+(?:the\s+|distinct\s+)?"
    r"(.+?)(?:\s+(?:in|within|mentioned|used|that|which|does|do|are|is)\b|[?.!]|$)",
    re.I | re.S,
)
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf\U0001f000-\U0001f2ff]\ufe0f?", re.U)
_SPECIAL_COUNTS: dict[str, tuple[str, Callable[[str], int]]] = {
    "hashtag": ("#tags", lambda t: len(re.findall(r"#\w+", t))),
    "emoji": ("emoji", lambda t: len(_EMOJI.findall(t))),
    "question": ("question marks", lambda t: len(re.findall(r"\?+", t))),
    "exclamation": ("exclamation marks", lambda t: len(re.findall(r"!+", t))),
    "link": ("links", lambda t: len(_URL.findall(t))),
    "url": ("links", lambda t: len(_URL.findall(t))),
    "handle": ("@handles", lambda t: len(re.findall(r"@\w+", t))),
    "tag": ("@handles", lambda t: len(re.findall(r"@\w+", t))),
    "word": ("words", lambda t: len(_WORD.findall(_URL.sub(" ", t)))),
    "sentence": ("sentences", lambda t: len(_sentences(t))),
}


_COUNT_META = _wordset(
    "how many much count number times time occurrences occurrence instances instance often"
)


def _count_rule(instructions: str) -> tuple[Matcher, str]:
    found = _COUNT_TARGET.search(instructions)
    target = found.group(1) if found else instructions
    # "How many times is coffee mentioned": the target is after the counting words.
    words = [w for w in _content_words(target) if w not in _COUNT_META] or [
        w for w in _content_words(instructions) if w not in _COUNT_META
    ]
    for word in words:
        special = _SPECIAL_COUNTS.get(stem(word)) or _SPECIAL_COUNTS.get(word.rstrip("s"))
        if special:
            label, counter = special

            def count_special(
                text: str, label: str = label, counter: Callable[[str], int] = counter
            ) -> tuple[Any, str]:
                n = counter(text)
                return n, f"{n} {label}"

            return count_special, f"counts {label}"
    terms = _cue_terms(words)
    patterns = [_term_pattern(t) for t in terms]

    def count_terms(text: str) -> tuple[Any, str]:
        starts = sorted({m.start() for p in patterns for m in p.finditer(text)})
        return len(starts), f"{len(starts)} occurrences of {', '.join(terms[:6])}"

    return count_terms, f"counts {', '.join(terms[:6]) or 'nothing'}"


# name ------------------------------------------------------------------------------------

_NAME_QUESTION = re.compile(
    r"\b(?:which|what|who|name (?:the|of))\b.*?\b(brand|company|companies|product|"
    r"app|store|shop|restaurant|cafe|person|creator|influencer|celebrity|organi[sz]ation)s?\b"
    r"|^\s*who\b",
    re.I | re.S,
)
_PROPER = re.compile(r"(?<![\w'’])(?:[A-Z][\w'’&.-]*|[A-Z]{2,})(?:\s+(?:[A-Z][\w'’&-]*|&))*")


def _name_rule(text: str) -> tuple[Any, str]:
    candidates: dict[str, list[int]] = {}
    for sentence_match in re.finditer(r"[^.!?\n]+", text):
        sentence, offset = sentence_match.group(), sentence_match.start()
        for m in re.finditer(r"[#@]\w+", sentence):
            candidates.setdefault(m.group()[1:], []).append(offset + m.start())
        for m in _PROPER.finditer(sentence):
            name = m.group().strip(" .&")
            first = name.split()[0].lower()
            # A capital at sentence start is grammar, not a name, unless it is all caps.
            at_start = not sentence[: m.start()].strip()
            if first in STOPWORDS or (at_start and " " not in name and not name.isupper()):
                continue
            candidates.setdefault(name, []).append(offset + m.start())
    best = _first_most_frequent(candidates)
    if best is None:
        return None, "no proper name, @handle or #tag found"
    name, where = best
    return name, f"proper name '{name}' appears {len(where)}x"


# extract (fallback) ----------------------------------------------------------------------


def _extract_rule(terms: Sequence[str]) -> Matcher:
    patterns = {t: _term_pattern(t) for t in terms}

    def match(text: str) -> tuple[Any, str]:
        sentences = _sentences(text)
        if not patterns:
            return _clip(sentences[0]), "no search terms in the instruction; lead sentence"
        scored = [
            ([t for t, p in patterns.items() if p.search(s)], -i, s)
            for i, s in enumerate(sentences)
        ]
        hits, _, best = max(scored, key=lambda item: (len(item[0]), item[1]))
        if not hits:
            return None, f"no sentence mentions {', '.join(terms[:6])}"
        return _clip(best), f"sentence matching {', '.join(hits)}"

    return match


# compilation -----------------------------------------------------------------------------


def compile_rule(instructions: str, value_type: str = "string") -> Rule:
    """Read an instruction once and return the rule that carries it out.

    Unknown value types are treated as ``string`` (the spec lists only that one).

    Example:
        >>> compile_rule("Classify the tone as positive, negative or neutral").kind
        'tone'
        >>> compile_rule("Count the number of hashtags", "number").apply("", "#a #b hi").value
        2
    """
    value_type = value_type if value_type in VALUE_TYPES else "string"
    text = " ".join(instructions.split())
    lowered = text.lower()
    words = _content_words(text)

    options = _parse_options(text)
    if options and not _YES_NO.search(text):
        if {o.lower() for o in options} <= _TONE_LABELS:
            return Rule("tone", f"tone among {', '.join(options)}", value_type, _tone_rule(options))
        return Rule("choice", f"one of {', '.join(options)}", value_type, _choice_rule(options))
    asks_yes_no = _YES_NO.search(text) or (
        value_type == "boolean"
        and re.match(r"\s*(?:is|are|does|do|did|has|have|was|can)\b", lowered)
    )
    if asks_yes_no:
        terms = _cue_terms(w for w in words if w not in {"true", "false"})
        return Rule(
            "yes/no", f"yes if any of {', '.join(terms[:8])}", value_type, _yes_no_rule(terms)
        )
    if re.search(r"\b(?:price|prices|pricing|cost|costs|how much)\b", lowered):
        return Rule("price", "first currency amount", value_type, _price_rule(value_type))
    if re.search(r"\bcountr(?:y|ies)\b", lowered):
        as_code = bool(re.search(r"\b(?:code|iso|alpha-2)\b", lowered))
        return Rule("country", "most-named country", value_type, _country_rule(as_code))
    if re.search(r"\b(?:count|how many|number of)\b", lowered):
        matcher, description = _count_rule(text)
        return Rule("count", description, value_type, matcher)
    if _NAME_QUESTION.search(text):
        return Rule("name", "most frequent proper name", value_type, _name_rule)
    if value_type == "boolean":
        return Rule(
            "yes/no",
            f"yes if any of {', '.join(words[:8])}",
            value_type,
            _yes_no_rule(_cue_terms(words)),
        )
    return Rule(
        "extract",
        f"sentence about {', '.join(words[:6]) or 'anything'}",
        value_type,
        _extract_rule(words),
    )


def extract(instructions: str, value_type: str, title: str | None, text: str | None) -> Extraction:
    """One-shot helper: compile ``instructions`` and apply them to one post.

    Example:
        >>> extract("What country is the author in?", "string", None, "Greetings from Oslo!").value
        'Norway'
    """
    return compile_rule(instructions, value_type).apply(title, text)
