"""Sentiment lexicons for the sandbox's non-English posts (es, fr, de, pt) and a language guess.

English text is scored by VADER (:mod:`rdskit.sandbox.synth.enrichment`); VADER's word list
is English only, so "Sinceramente oat milk me decepcionó" came out neutral. Each
:class:`Lexicon` here carries what VADER's scorer uses, per language: word valences
(VADER's -4..4 scale), negations, intensifiers and dampeners, and the contrast word
("but"). :func:`compound` scores a text the way VADER does (negation flips and damps a
word, an intensifier scales it, words after "but" weigh 1.5x and before it 0.5x,
exclamation marks add emphasis, ``s / sqrt(s^2 + 15)`` normalises), so a Spanish and an
English sentence of the same strength get similar scores.

:func:`detect_language` picks the language of a text from its function words and
letters (``ñ``, ``ß``, ``ã``...): the corpus labels a post with its author's locale, but an
ad or a comment under a Spanish post may be written in English, and the text decides.

Entries ending in ``*`` are stems: they match every word they start (``decepcion*`` covers
decepcionó, decepcionante, decepcionado).

Example:
    >>> compound("Sinceramente me decepcionó, demasiado caro.", LEXICONS["es"]) < -0.3
    True
    >>> compound("No es malo.", LEXICONS["es"]) > 0
    True
    >>> detect_language("Ehrlich gesagt hat mich das enttäuscht.")
    'de'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache

__all__ = [
    "EMOJI_VALENCE",
    "LANGUAGES",
    "LEXICONS",
    "Lexicon",
    "compound",
    "detect_language",
    "total_valence",
    "word_valence",
]

# VADER's constants (vaderSentiment.vaderSentiment): same scale, same behaviour.
_BOOST = 0.293  # an intensifier's effect on the next sentiment word
_NEGATE = -0.74  # a negated word's valence is multiplied by this
_ALPHA = 15.0  # normalisation: compound = s / sqrt(s^2 + alpha)
_EXCLAIM = 0.292  # per "!" (at most 4), in the direction of the sum
_WINDOW = 3  # negations and intensifiers act on the next three words

_TOKEN = re.compile(r"[^\W\d_]+|[\U0001F300-\U0001FAFF\u2600-\u27BF]")

EMOJI_VALENCE: Mapping[str, float] = {
    "😍": 3.0,
    "🥰": 3.0,
    "❤": 2.8,
    "😊": 2.0,
    "🙌": 2.0,
    "👍": 1.6,
    "🔥": 1.5,
    "😂": 1.2,
    "😡": -3.0,
    "🤬": -3.2,
    "😤": -2.0,
    "😢": -2.2,
    "😭": -2.2,
    "💔": -2.6,
    "👎": -1.8,
    "🤢": -2.8,
    "🤮": -3.0,
    "😒": -1.8,
}
"""Emoji valences, shared by every language (VADER reads emoji through English names)."""


def _entries(text: str) -> dict[str, float]:
    """``"word value word value ..."`` -> ``{word: value}`` (values on VADER's scale)."""
    items = text.split()
    return {word: float(value) for word, value in zip(items[::2], items[1::2], strict=True)}


@dataclass(frozen=True)
class Lexicon:
    """One language's sentiment vocabulary: what VADER's scorer needs, for that language."""

    language: str
    valence: Mapping[str, float]
    negations: frozenset[str]
    boosters: Mapping[str, float]
    contrast: str
    markers: frozenset[str]
    """Function words that identify the language (:func:`detect_language`)."""
    letters: str = ""
    """Letters only this language (of the five) writes."""
    negation_after: bool = False
    """German puts ``nicht`` after the verb ("ich empfehle es nicht"): look ahead too."""
    stems: Mapping[str, float] = field(init=False)
    words: Mapping[str, float] = field(init=False)

    def __post_init__(self) -> None:
        stems = {w[:-1]: v for w, v in self.valence.items() if w.endswith("*")}
        words = {w: v for w, v in self.valence.items() if not w.endswith("*")}
        object.__setattr__(self, "stems", stems)
        object.__setattr__(self, "words", words)


def _lexicon(
    language: str,
    *,
    positive: str,
    negative: str,
    negations: str,
    boosters: str,
    dampeners: str,
    contrast: str,
    markers: str,
    letters: str = "",
    negation_after: bool = False,
) -> Lexicon:
    valence = _entries(positive) | {w: -v for w, v in _entries(negative).items()}
    scale = {w: _BOOST for w in boosters.split()} | {w: -_BOOST for w in dampeners.split()}
    return Lexicon(
        language,
        valence,
        frozenset(negations.split()),
        scale,
        contrast,
        frozenset(markers.split()),
        letters,
        negation_after,
    )


LEXICONS: Mapping[str, Lexicon] = {
    "es": _lexicon(
        "es",
        positive="""encanta 3.0 encantó 3.0 encantad* 2.6 increíble 2.6 genial 2.6 bueno 1.9
        buena 1.9 buenísim* 2.8 excelente 3.0 perfect* 2.7 mejor 2.0 recomiendo 2.2
        recomendable 2.0 delicios* 2.7 rico 1.8 rica 1.8 feliz 2.4 fantástic* 2.8
        maravill* 2.8 gusta 1.8 gustó 1.8 amo 2.8 favorit* 2.0 brutal 2.0 satisfech* 1.8""",
        negative="""decepcion* 2.5 decepción 2.5 malo 2.5 mala 2.5 malísim* 3.0 pésim* 3.0
        horrible 3.0 terrible 3.0 caro 1.3 odio 3.0 asco 3.0 asqueros* 3.0 fatal 2.5 peor 2.5
        arrepient* 2.0 arrepentid* 2.0 estafa 3.0 basura 3.0 desastre 3.0 rot* 1.5
        defectuos* 2.5 triste 2.0 lástima 1.5 aburrid* 1.5 insípid* 1.5 queja* 1.5
        problema* 1.5 timo 3.0 horror 2.8""",
        negations="no nunca jamás ni tampoco sin nada ningún ninguna ninguno",
        boosters="""muy demasiado tan súper realmente totalmente increíblemente mucho
        muchísimo extremadamente absolutamente sumamente bastante""",
        dampeners="poco apenas algo",
        contrast="pero",
        markers="""el la los las de del que y es en un una por con para me mi lo muy pero más
        está son alguien también este esta qué cómo yo se al ha sido hoy ya os vez dónde donde
        he cuando porque""",
        letters="ñ¿¡",
    ),
    "fr": _lexicon(
        "fr",
        positive="""adore 3.0 adoré 3.0 aime 2.0 aimé 2.0 génial* 2.8 incroyable 2.6
        excellent* 3.0 parfait* 2.7 meilleur* 2.0 délicieu* 2.7 recommande 2.2 bon 1.9
        bonne 1.9 bien 1.2 heureu* 2.4 ravi* 2.5 magnifique 3.0 satisfait* 1.8 efficace 1.5
        top 1.6 super 2.2 formidable 2.8""",
        negative="""déçu* 2.5 décevant* 2.5 déception 2.5 nul 2.8 nulle 2.8 mauvais* 2.5
        horrible 3.0 affreu* 3.0 cher 1.3 chère 1.3 arnaque 3.0 déteste 3.0 pire 2.5
        regrette 2.0 dommage 1.5 problème* 1.5 cassé* 1.5 fade 1.5 dégoûtant* 3.0
        catastroph* 3.0 inutile 2.0 ennuyeu* 1.5 honte 2.2 médiocre 2.2""",
        negations="ne n pas jamais rien aucun aucune sans ni",
        boosters="""très trop vraiment tellement extrêmement absolument totalement beaucoup
        complètement carrément hyper vachement""",
        dampeners="peu guère",
        contrast="mais",
        markers="""le la les de des du et est un une que qui en pour avec je j c ça ce pas très
        mais il elle déjà quelqu vaut coup ou préfère suis mon ma où vous nous aujourd hui""",
        letters="çœèêàù",
    ),
    "de": _lexicon(
        "de",
        positive="""liebe 3.0 super 2.5 toll 2.5 großartig* 3.0 genial 2.8 gut 1.9 gute 1.9
        guter 1.9 gutes 1.9 besser 1.5 beste* 2.5 empfehle* 2.2 empfehlenswert 2.0 lecker 2.5
        perfekt* 2.7 hervorragend* 3.0 begeistert 2.8 zufrieden 1.8 wunderbar* 3.0 schön* 2.0
        klasse 2.5 prima 2.3 fantastisch* 2.8 glücklich* 2.4""",
        negative="""enttäusch* 2.5 schlecht* 2.5 schrecklich* 3.0 furchtbar* 3.0 teuer 1.3
        schlimm* 2.5 hasse 3.0 ärger* 2.0 mies* 2.5 katastroph* 3.0 nervig* 2.0 kaputt* 2.0
        betrug 3.0 abzocke 3.0 schade 1.5 bereue 2.0 langweilig* 1.5 eklig* 3.0 widerlich* 3.0
        mangelhaft* 2.5 problem* 1.5 leider 1.2 unzufrieden 2.0 geldverschwendung 2.8""",
        negations="nicht kein keine keinen keiner keines nie niemals nichts ohne weder",
        boosters="""sehr so total wirklich extrem äußerst absolut zu viel richtig echt
        unglaublich besonders ziemlich""",
        dampeners="etwas kaum bisschen wenig",
        contrast="aber",
        markers="""der die das und ist ich nicht ein eine es mit zu auf für hat mich sich schon
        jemand oder bei bleibe gesagt ehrlich viel auch den dem von sehr wir heute zum mal wo
        man seit""",
        letters="ßäöü",
        negation_after=True,
    ),
    "pt": _lexicon(
        "pt",
        positive="""amei 3.0 amo 3.0 adoro 3.0 adorei 3.0 incrível 2.6 ótim* 2.8 excelente 3.0
        perfeit* 2.7 bom 1.9 boa 1.9 melhor 2.0 recomendo 2.2 delicios* 2.7 gostei 2.0
        maravilhos* 2.8 feliz 2.4 sensacional 2.8 top 1.6 lindo 2.0 linda 2.0 satisfeit* 1.8""",
        negative="""decepcion* 2.5 decepção 2.5 ruim 2.5 péssim* 3.0 horrível 3.0 terrível 3.0
        caro 1.3 cara 1.3 odeio 3.0 pior 2.5 arrependi* 2.0 nojent* 3.0 lixo 3.0 golpe 2.5
        problema* 1.5 quebrou 2.0 quebrad* 2.0 triste 2.0 chato 1.5 fraco 1.5 desperdício 2.5
        droga 2.0 decepcionante 2.5""",
        negations="não nunca jamais nem sem nada nenhum nenhuma tampouco",
        boosters="""muito demais super bem tão realmente totalmente extremamente absolutamente
        bastante mega""",
        dampeners="pouco meio quase",
        contrast="mas",
        markers="""o os as de do da que e é em um uma com não para por muito já alguém vale
        pena ou fico me mas eu isso você onde hoje ontem depois há""",
        letters="ãõ",
    ),
}
"""The sentiment lexicons, by ISO 639-1 code (English is VADER's)."""

LANGUAGES = ("en", *LEXICONS)
"""Languages :func:`detect_language` tells apart."""

_ENGLISH = """the and is it i this to of my for you with was that not have so just are in on be
they what has anyone worth me or but a an at as if all can do does how why about your we our
its from by will would than more got been too after really has had it's i'm don't"""
_MARKER_OF: dict[str, tuple[str, ...]] = {}
for _code, _markers in (("en", _ENGLISH.split()), *((c, x.markers) for c, x in LEXICONS.items())):
    for _marker in _markers:
        _MARKER_OF[_marker] = (*_MARKER_OF.get(_marker, ()), _code)
_LETTER_OF = {letter: code for code, x in LEXICONS.items() for letter in x.letters}
_LETTERS = re.compile(f"[{''.join(_LETTER_OF)}]")


def _tokens(text: str) -> list[str]:
    # French elision: "n'est" -> "n", "est"; "j'adore" -> "j", "adore".
    return _TOKEN.findall(text.lower().replace("’", " ").replace("'", " "))


def detect_language(text: str, hint: str | None = None) -> str:
    """The language of ``text`` among :data:`LANGUAGES` (function words and letters).

    Ties go to ``hint`` (e.g. the post's ``language`` field) when it is one of the tied
    languages, else to English; a text with no clue at all is ``hint`` or English.

    Example:
        >>> detect_language("Amei oat milk, a qualidade é incrível."), detect_language("I love it")
        ('pt', 'en')
    """
    words = _tokens(text)
    scores = dict.fromkeys(LANGUAGES, 0)
    for word in words:
        for code in _MARKER_OF.get(word, ()):
            scores[code] += 1
    for letter in _LETTERS.findall(text.lower()):
        scores[_LETTER_OF[letter]] += 2
    if scores["en"] < max(scores[code] for code in LEXICONS) + 2:  # close: weigh sentiment words
        for code, lexicon in LEXICONS.items():
            scores[code] += sum(_known(w, lexicon) for w in words)
    top = max(scores.values())
    if top == 0:
        return hint if hint in LANGUAGES else "en"
    tied = [code for code, score in scores.items() if score == top]
    if hint in tied:
        return str(hint)
    return "en" if "en" in tied else tied[0]


@cache
def _stem_lengths(language: str) -> tuple[int, ...]:
    return tuple(sorted({len(s) for s in LEXICONS[language].stems}, reverse=True))


def word_valence(word: str, lexicon: Lexicon) -> float:
    """A lowercased word's valence in ``lexicon`` (exact form, else its longest stem), or 0.

    Example:
        >>> word_valence("decepcionante", LEXICONS["es"]), word_valence("leche", LEXICONS["es"])
        (-2.5, 0.0)
    """
    return _valence(word, lexicon.language)


@lru_cache(maxsize=131_072)  # a corpus repeats a few thousand words: look each up once
def _valence(word: str, language: str) -> float:
    lexicon = LEXICONS[language]
    found = lexicon.words.get(word) or EMOJI_VALENCE.get(word)
    if found is not None:
        return found
    for length in _stem_lengths(language):
        if length <= len(word):
            value = lexicon.stems.get(word[:length])
            if value is not None:
                return value
    return 0.0


def total_valence(text: str, lexicon: Lexicon) -> float:
    """The sum of ``text``'s word valences: a cheap polarity to rank sentences by.

    Example:
        >>> total_valence("Me encanta, pero es caro.", LEXICONS["es"])
        1.7
    """
    return round(sum(word_valence(w, lexicon) for w in _tokens(text)), 6)


def _known(word: str, lexicon: Lexicon) -> bool:
    """Whether ``word`` belongs to ``lexicon``'s sentiment vocabulary (emoji excluded)."""
    if word in lexicon.negations or word in lexicon.boosters:
        return True
    return word not in EMOJI_VALENCE and word_valence(word, lexicon) != 0.0


def compound(text: str, lexicon: Lexicon) -> float:
    """VADER's compound score (-1..1) of ``text`` with ``lexicon``'s words.

    Example:
        >>> fr = LEXICONS["fr"]
        >>> compound("Je n'aime pas ça.", fr) < 0 < compound("J'adore !", fr)
        True
    """
    words = _tokens(text)
    scores = []
    for i, word in enumerate(words):
        value = word_valence(word, lexicon)
        if not value:
            scores.append(0.0)
            continue
        before = words[max(0, i - _WINDOW) : i]
        for distance, prior in enumerate(reversed(before)):
            scale = lexicon.boosters.get(prior)
            if scale:  # VADER: the effect fades with distance (1, 0.95, 0.9)
                value += math.copysign(scale, value) * (1 - 0.05 * distance)
        after = words[i + 1 : i + 1 + _WINDOW] if lexicon.negation_after else []
        if any(w in lexicon.negations for w in (*before, *after)):
            value *= _NEGATE
        scores.append(value)
    if lexicon.contrast in words:
        pivot = words.index(lexicon.contrast)
        scores = [s * (0.5 if k < pivot else 1.5) for k, s in enumerate(scores)]
    total = sum(scores)
    if total:
        total += math.copysign(_EXCLAIM * min(text.count("!"), 4), total)
    return max(-1.0, min(1.0, total / math.sqrt(total * total + _ALPHA)))
