"""The assistant's one front end: what a question is before any reader looks at it.

Every question is read through :func:`front` once, and both readers (the figure reader,
:mod:`.reader`, and the intent planner, :mod:`.intents`) take its :class:`Question`:

1. **normalise**: at most :data:`MAX_QUESTION_CHARS` characters, no control characters or
   lone surrogates, NFKC, typographic apostrophes straightened, single spaces;
2. **language**: English, French, Spanish, German or Portuguese (:func:`.lexicon.detect_language`);
3. **translate**: one translator, one phrase table per language (the intent cues of
   :data:`.lexicon.TRANSLATIONS` and the analysis and topic vocabulary of
   :data:`.words.BILINGUAL`, longest phrase first), then the language's negations moved
   where the English reader looks for them (:data:`.words.NEGATIONS`);
4. **slips**: one-letter slips a context settles ("more then 10k views": "than"), a sum
   written with "+" read as "plus", and the part a sum says it leaves out ("likes plus
   comments (no shares)") kept out of the filters;
5. **tokens with spans**: each word of the question as written, with its span in the
   original text, so a word named as not understood is named as the asker wrote it.

Spelling, numbers and dates depend on the scope's data and are read after this step.

Example:
    >>> question = front("Combien de publications ne mentionnent pas le prix ?")
    >>> question.language, question.english
    ('fr', 'how many posts mention not price ?')
    >>> question.tokens[0], question.said[slice(*question.tokens[-1].span)]
    (Token(word='combien', start=0, end=7), 'prix')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from rdskit.sandbox.assistant.lexicon import TRANSLATIONS, detect_language
from rdskit.sandbox.assistant.words import BILINGUAL, NEGATIONS

__all__ = [
    "MAX_QUESTION_CHARS",
    "PHRASES",
    "Question",
    "Token",
    "clean",
    "distance",
    "front",
    "to_english",
]

MAX_QUESTION_CHARS = 2_000
"""The characters of a question that are read (the rest is ignored, in bounded time)."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_THEN = re.compile(
    r"\b(more|less|fewer|greater|higher|lower|bigger|smaller|larger|rather|other|older|newer"
    r"|better|worse|earlier|later)\s+then\b"
)
"""A comparative before "then" is a slip for "than" ("more then 10k views")."""
_PLUS = re.compile(r"(?<=[^\W\d_])\s*\+\s*(?=[^\W\d_])")
"""A sum of metrics written with "+" ("likes+comments"): read as "plus"."""
_PARTS_LEFT_OUT = re.compile(
    r"\b((likes|comments|shares) plus (likes|comments|shares))"
    r"((?: (?!posts?\b|ones\b|those\b|that\b|which\b|with\b)\w+){0,4}?),? \(?(?:no"
    r"|without|excluding|not counting|but not) (?!\2\b|\3\b)(?:likes|comments|shares)\)?"
)
"""A sum that says which part it leaves out ("likes plus comments (no shares)", "comments
plus shares on YouTube, without likes"): the measure's own words, never a filter on the
posts (which "... on posts without shares" stays)."""
_ELISION = re.compile(r"(?<![\w-])(d|l|j|qu)'(?=[^\W\d_])")
_ELIDED = {"d": "de", "l": "le", "j": "je", "qu": "que"}
_WORD = re.compile(r"[#@]?[^\W_]+(?:['’-][^\W_]+)*")

PHRASES: Mapping[str, Mapping[str, str]] = {
    language: {**TRANSLATIONS.get(language, {}), **BILINGUAL.get(language, {})}
    for language in {*TRANSLATIONS, *BILINGUAL}
}
"""The one phrase table per language (no phrase of one table is another's with a
different meaning: a test keeps it so)."""
_TRANSLATORS = {
    language: re.compile(
        r"(?<![\w-])("
        + "|".join(re.escape(phrase) for phrase in sorted(table, key=len, reverse=True))
        + r")(?![\w-])"
    )
    for language, table in PHRASES.items()
}


@dataclass(frozen=True)
class Token:
    """One word of a question as written (lower-cased, NFKC) and its span in it."""

    word: str
    start: int
    end: int

    @property
    def span(self) -> tuple[int, int]:
        """``(start, end)`` in the original question."""
        return self.start, self.end


@dataclass(frozen=True)
class Question:
    """A question after the front end: as said, cleaned, its language, its English
    reading (lower-cased, translated) and its words with their spans in ``said``."""

    said: str
    text: str
    language: str
    english: str
    tokens: tuple[Token, ...]

    def written(self, word: str) -> str:
        """``word`` (as a reader names it, lower-cased, maybe translated) as the asker
        wrote it, when the question has it; else ``word``.

        >>> front("How many ZQRTVX posts?").written("zqrtvx")
        'ZQRTVX'
        """
        parts = word.split()
        words = [token.word for token in self.tokens]
        for i in range(len(words) - len(parts) + 1):
            if words[i : i + len(parts)] == parts:
                return self.said[self.tokens[i].start : self.tokens[i + len(parts) - 1].end]
        return word


def clean(question: str) -> str:
    """The question as the readers read it: NFKC, no lone surrogates or control
    characters, at most :data:`MAX_QUESTION_CHARS` characters, single spaces.

    Example:
        >>> clean("  Top\\x00 posts?\\ud800 ")
        'Top posts?'
    """
    text = _CONTROL.sub(" ", question[:MAX_QUESTION_CHARS])
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    return " ".join(text.split())


def to_english(text: str, language: str) -> str:
    """``text`` (lower-cased) with the phrases of ``language`` in English, and its
    negations where the English reader looks for them.

    Example:
        >>> to_english("combien de publications parlent du prix ?", "fr")
        'how many posts mention price ?'
        >>> to_english("wie viele beiträge erwähnen den preis nicht?", "de")
        'how many posts not mention price?'
        >>> to_english("de quoi se plaignent les gens ?", "fr")
        'de quoi complain les people ?'
        >>> to_english("combien d'interactions au total ?", "fr")
        'how many de interactions au total ?'
    """
    rule = _TRANSLATORS.get(language)
    if rule is None:
        return text
    table = PHRASES[language]
    out = rule.sub(lambda match: table[match[1]], f" {text} ")
    if language == "fr":  # an elision no phrase took: "d'interactions" is "de interactions"
        out = _ELISION.sub(lambda match: _ELIDED[match[1]] + " ", out)
    for pattern, english in NEGATIONS.get(language, ()):
        out = re.sub(pattern, english, out)
    out = re.sub(r"^[\s¿¡]+", "", out)
    return " ".join(out.split())


def distance(a: str, b: str, limit: int) -> int:
    """The one edit distance of the spellers: optimal string alignment (a swap of two
    neighbours is one edit), cut at ``limit + 1``.

    >>> distance("sentimnet", "sentiment", 2), distance("instgram", "instagram", 1)
    (1, 1)
    """
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], previous2[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        previous2, previous = previous, row
    return previous[-1]


@lru_cache(maxsize=1024)
def front(question: str) -> Question:
    """``question`` through the front end (cached: the chat history's turns are read
    again on every turn, each through here once per process)."""
    said = question[:MAX_QUESTION_CHARS]
    text = clean(said)
    language = detect_language(text)
    tokens = tuple(
        Token(unicodedata.normalize("NFKC", found[0]).lower().replace("’", "'"), *found.span())
        for found in _WORD.finditer(said)
    )
    english = _THEN.sub(r"\1 than", to_english(text.lower(), language))
    english = _PARTS_LEFT_OUT.sub(r"\1\4", _PLUS.sub(" plus ", english))
    return Question(said, text, language, english, tokens)
