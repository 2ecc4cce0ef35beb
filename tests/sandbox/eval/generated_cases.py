"""The generated evaluation: questions built from a grammar, each with its reading.

Dimensions (filters) x measures (count, share, sum/mean/median/min/max of every metric,
distinct authors) x grouping / top-k groups / post rankings x phrasing templates (plain,
terse, polite, imperative, typos) x five languages. Filter values are taken from the
evaluation dataset (so a brand is one the data has); the ground truth of each case is
``handwritten_truth`` over the same reading, never the assistant.

Example (the size only depends on the dataset's values)::

    cases = generate(frame(posts))
    len(cases) >= 3000
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd
from handwritten_spec import Reading

LANGS = ("en", "fr", "es", "de", "pt")
STYLES = ("plain", "terse", "polite", "imperative", "typo")
SOURCE_NAMES = {
    "reddit": "Reddit",
    "tiktok": "TikTok",
    "youtube": "YouTube",
    "instagram": "Instagram",
    "linkedin": "LinkedIn",
}
LANGUAGE_NAMES = {
    "en": {"es": "Spanish", "de": "German", "fr": "French", "pt": "Portuguese", "en": "English"},
    "fr": {
        "es": "espagnol",
        "de": "allemand",
        "fr": "français",
        "pt": "portugais",
        "en": "anglais",
    },
    "es": {"es": "español", "de": "alemán", "fr": "francés", "pt": "portugués", "en": "inglés"},
    "de": {
        "es": "spanisch",
        "de": "deutsch",
        "fr": "französisch",
        "pt": "portugiesisch",
        "en": "englisch",
    },
    "pt": {"es": "espanhol", "de": "alemão", "fr": "francês", "pt": "português", "en": "inglês"},
}
COUNTRY_NAMES = {
    "en": {
        "US": "the US",
        "GB": "the UK",
        "CA": "Canada",
        "DE": "Germany",
        "BR": "Brazil",
        "AU": "Australia",
        "IN": "India",
    },
    "fr": {
        "US": "des États-Unis",
        "GB": "du Royaume-Uni",
        "CA": "du Canada",
        "DE": "d'Allemagne",
        "BR": "du Brésil",
        "AU": "d'Australie",
        "IN": "d'Inde",
    },
    "es": {
        "US": "de Estados Unidos",
        "GB": "del Reino Unido",
        "CA": "de Canadá",
        "DE": "de Alemania",
        "BR": "de Brasil",
        "AU": "de Australia",
        "IN": "de India",
    },
    "de": {
        "US": "aus den USA",
        "GB": "aus Großbritannien",
        "CA": "aus Kanada",
        "DE": "aus Deutschland",
        "BR": "aus Brasilien",
        "AU": "aus Australien",
        "IN": "aus Indien",
    },
    "pt": {
        "US": "dos Estados Unidos",
        "GB": "do Reino Unido",
        "CA": "do Canadá",
        "DE": "da Alemanha",
        "BR": "do Brasil",
        "AU": "da Austrália",
        "IN": "da Índia",
    },
}
TOPICS = {
    "price": {"fr": "prix", "es": "precio", "de": "Preis", "pt": "preço"},
    "taste": {"fr": "goût", "es": "sabor", "de": "Geschmack", "pt": "sabor"},
    "foam": {"fr": "mousse", "es": "espuma", "de": "Schaum", "pt": "espuma"},
    "texture": {"fr": "texture", "es": "textura", "de": "Textur", "pt": "textura"},
    "packaging": {"fr": "emballage", "es": "envase", "de": "Verpackung", "pt": "embalagem"},
}
SENTIMENT_WORDS = {
    "en": {"negative": "negative", "positive": "positive", "neutral": "neutral"},
    "fr": {"negative": "négatives", "positive": "positives", "neutral": "neutres"},
    "es": {"negative": "negativas", "positive": "positivas", "neutral": "neutras"},
    "de": {"negative": "negativ", "positive": "positiv", "neutral": "neutral"},
    "pt": {"negative": "negativas", "positive": "positivas", "neutral": "neutras"},
}
METRIC_WORDS = {
    "views": "views",
    "likes": "likes",
    "comments": "comments",
    "shares": "shares",
    "engagement_rate": "engagement rate",
    "sentiment_score": "sentiment score",
}
STAT_WORDS = {
    "sum": "total",
    "mean": "average",
    "median": "median",
    "min": "minimum",
    "max": "maximum",
}
GROUPS = {
    "source": "source",
    "language": "language",
    "country": "country",
    "sentiment": "sentiment",
    "emotion": "dominant emotion",
    "tone": "tone of voice",
    "intention": "content intention",
    "hook": "hook type",
    "cta": "call to action",
    "topic": "content topic",
    "brand": "brand",
    "month": "month",
    "week": "week",
    "year": "year",
    "content_type": "content type",
}
GROUP_PLURALS = {
    "source": "sources",
    "language": "languages",
    "country": "countries",
    "brand": "brands",
    "topic": "content topics",
    "tone": "tones of voice",
    "hook": "hook types",
    "month": "months",
}


@dataclass(frozen=True)
class Generated:
    """One generated question, its reading, language and style."""

    text: str
    reading: Reading
    lang: str
    style: str


@dataclass(frozen=True)
class Filter:
    """A filter of the grammar: its reading and how each language says it after "posts"."""

    key: str
    value: Any
    said: dict[str, str]


def _typo(text: str, rng: random.Random) -> str:
    """One letter dropped from a long word (a realistic slip the reader must repair)."""
    words = text.split(" ")
    long = [i for i, w in enumerate(words) if len(w) >= 7 and w.isalpha() and w.islower()]
    if not long:
        return text
    i = rng.choice(long)
    word = words[i]
    cut = rng.randrange(2, len(word) - 1)
    words[i] = word[:cut] + word[cut + 1 :]
    return " ".join(words)


def _filters(df: pd.DataFrame) -> list[Filter]:
    out: list[Filter] = []
    for source in sorted(set(df["source"])):
        name = SOURCE_NAMES[source]
        out.append(
            Filter(
                "source",
                [source],
                {
                    "en": f"on {name}",
                    "fr": f"sur {name}",
                    "es": f"de {name}",
                    "de": f"auf {name}",
                    "pt": f"do {name}",
                },
            )
        )
    for label, words in (
        (k, {lang: SENTIMENT_WORDS[lang][k] for lang in LANGS})
        for k in ("negative", "positive", "neutral")
    ):
        out.append(
            Filter(
                "sentiment",
                [label],
                {
                    "en": f"that are {words['en']}",
                    "fr": f"qui sont {words['fr']}",
                    "es": f"que son {words['es']}",
                    "de": f"die {words['de']} sind",
                    "pt": f"que são {words['pt']}",
                },
            )
        )
    for code in ("es", "de", "fr", "pt"):
        out.append(
            Filter(
                "language",
                [code],
                {
                    "en": f"written in {LANGUAGE_NAMES['en'][code]}",
                    "fr": f"en {LANGUAGE_NAMES['fr'][code]}",
                    "es": f"en {LANGUAGE_NAMES['es'][code]}",
                    "de": f"auf {LANGUAGE_NAMES['de'][code]}",
                    "pt": f"em {LANGUAGE_NAMES['pt'][code]}",
                },
            )
        )
    for code in ("US", "GB", "CA", "DE", "BR", "AU", "IN"):
        said = {lang: COUNTRY_NAMES[lang][code] for lang in LANGS}
        said["en"] = f"from {said['en']}"
        out.append(Filter("country", [code], said))
    for topic, words in TOPICS.items():
        out.append(
            Filter(
                "keyword",
                [topic],
                {
                    "en": f"that mention {topic}",
                    "fr": f"mentionnant le {words['fr']}",
                    "es": f"mencionando el {words['es']}",
                    "de": f"die {words['de']} erwähnen",
                    "pt": f"mencionando o {words['pt']}",
                },
            )
        )
    brands = sorted({b for bs in df["brand"] for b in bs})
    for brand in brands:
        out.append(
            Filter(
                "brand",
                [brand],
                {
                    "en": f"that mention {brand}",
                    "fr": f"mentionnant {brand}",
                    "es": f"mencionando {brand}",
                    "de": f"die {brand} erwähnen",
                    "pt": f"mencionando {brand}",
                },
            )
        )
    english_only: list[tuple[str, str, str]] = [
        ("emotion", "anger", "that are angry"),
        ("emotion", "joy", "that are joyful"),
        ("emotion", "sadness", "that express sadness"),
        ("content_type", "ad", "that are ads"),
        ("content_type", "organic", "that are organic"),
        ("media", "video", "with a video"),
        ("media", "image", "with images"),
        ("cta", "any", "with a call to action"),
        ("cta", "none", "without a call to action"),
    ]
    for tone in sorted({t for t in df["tone"].dropna()}):
        english_only.append(("tone", tone, f"with a {tone} tone"))
    for hook in sorted({h for hs in df["hook"] for h in hs}):
        english_only.append(("hook", hook, f"with a {hook.replace('_', ' ')} hook"))
    for intention, said in (
        ("tutorial", "tutorials"),
        ("review", "reviews"),
        ("news", "news"),
        ("personal_story", "personal stories"),
    ):
        english_only.append(("intention", intention, f"that are {said}"))
    for key, value, said in english_only:
        out.append(Filter(key, [value], {"en": said}))
    return out


def _polish(text: str, style: str, rng: random.Random) -> str:
    if style == "terse":
        return text.rstrip("?").replace("How many ", "how many ").replace("What is the ", "")
    if style == "polite":
        return f"Could you please tell me: {text[0].lower()}{text[1:]}"
    if style == "imperative":
        return text.replace("How many posts", "Count the posts").rstrip("?") + "."
    if style == "typo":
        return _typo(text, rng)
    return text


_Maker = Callable[[Filter, str], tuple[str, Reading] | None]


def _count(f: Filter, lang: str) -> tuple[str, Reading] | None:
    lead = {
        "en": "How many posts",
        "fr": "Combien de publications",
        "es": "¿Cuántas publicaciones",
        "de": "Wie viele Beiträge",
        "pt": "Quantas publicações",
    }[lang]
    return f"{lead} {f.said[lang]}?", Reading("figure", "count", where={f.key: f.value})


def _share(f: Filter, lang: str) -> tuple[str, Reading] | None:
    if f.key == "sentiment":
        return None
    lead = {
        "en": "What share of the posts",
        "fr": "Quelle part des publications",
        "es": "¿Qué porcentaje de las publicaciones",
        "de": "Welcher Anteil der Beiträge",
        "pt": "Qual a percentagem das publicações",
    }[lang]
    tail = {
        "en": "are negative",
        "fr": "sont négatives",
        "es": "son negativas",
        "de": "sind negativ",
        "pt": "são negativas",
    }[lang]
    reading = Reading("figure", "share", where={f.key: f.value}, part={"sentiment": ["negative"]})
    return f"{lead} {f.said[lang]} {tail}?", reading


def _stat(stat: str, metric: str) -> _Maker:
    def make(f: Filter, lang: str) -> tuple[str, Reading] | None:
        if lang != "en":
            return None
        text = f"What is the {STAT_WORDS[stat]} {METRIC_WORDS[metric]} of posts {f.said['en']}?"
        return text, Reading("figure", stat, metric, where={f.key: f.value})

    return make


def _authors(f: Filter, lang: str) -> tuple[str, Reading] | None:
    if lang != "en":
        return None
    text = f"How many distinct authors wrote posts {f.said['en']}?"
    return text, Reading("figure", "authors", where={f.key: f.value})


def _grouped(group: str) -> _Maker:
    def make(f: Filter, lang: str) -> tuple[str, Reading] | None:
        if f.key == group or (lang != "en" and group not in ("source", "country", "language")):
            return None
        if lang == "en":
            text = f"How many posts {f.said['en']} per {GROUPS[group]}?"
        else:
            per = {"fr": "par", "es": "por", "de": "pro", "pt": "por"}[lang]
            noun = {
                "source": {"fr": "source", "es": "fuente", "de": "Quelle", "pt": "fonte"},
                "country": {"fr": "pays", "es": "país", "de": "Land", "pt": "país"},
                "language": {"fr": "langue", "es": "idioma", "de": "Sprache", "pt": "idioma"},
            }[group][lang]
            lead = _count(f, lang)
            assert lead is not None
            text = lead[0].rstrip("?") + f" {per} {noun}?"
        return text, Reading("figure", "count", where={f.key: f.value}, group=group)

    return make


def _top_groups(group: str) -> _Maker:
    def make(f: Filter, lang: str) -> tuple[str, Reading] | None:
        if lang != "en" or f.key == group or group not in GROUP_PLURALS:
            return None
        text = f"Which three {GROUP_PLURALS[group]} have the most posts {f.said['en']}?"
        return text, Reading("figure", "count", where={f.key: f.value}, group=group, top=3)

    return make


def _mean_by(group: str, metric: str) -> _Maker:
    def make(f: Filter, lang: str) -> tuple[str, Reading] | None:
        if lang != "en" or f.key == group:
            return None
        text = f"Average {METRIC_WORDS[metric]} of posts {f.said['en']} per {GROUPS[group]}"
        return text, Reading("figure", "mean", metric, where={f.key: f.value}, group=group)

    return make


def _rank(metric: str) -> _Maker:
    def make(f: Filter, lang: str) -> tuple[str, Reading] | None:
        if lang != "en":
            return None
        text = f"Top 3 posts {f.said['en']} by {METRIC_WORDS[metric]}"
        return text, Reading("rank", metric=metric, where={f.key: f.value}, top=3)

    return make


def _makers() -> list[_Maker]:
    makers: list[_Maker] = [_count, _share, _authors]
    makers += [_stat(s, m) for s in STAT_WORDS for m in METRIC_WORDS]
    makers += [_grouped(g) for g in GROUPS]
    makers += [_top_groups(g) for g in GROUP_PLURALS]
    makers += [
        _mean_by(g, m)
        for g in ("source", "language", "country")
        for m in ("views", "likes", "engagement_rate")
    ]
    makers += [_rank(m) for m in ("views", "likes", "comments", "shares")]
    return makers


def generate(df: pd.DataFrame, seed: int = 23) -> list[Generated]:
    """Every case of the grammar over the dataset's values (order fixed by ``seed``)."""
    rng = random.Random(seed)
    cases: list[Generated] = []
    for f in _filters(df):
        for make in _makers():
            for lang in LANGS:
                if lang not in f.said:
                    continue
                made = make(f, lang)
                if made is None:
                    continue
                text, reading = made
                style = STYLES[len(cases) % len(STYLES)] if lang == "en" else "plain"
                cases.append(Generated(_polish(text, style, rng), reading, lang, style))
    return cases


def sample(cases: list[Generated], size: int, seed: int = 23) -> Iterator[Generated]:
    """A seeded sample of ``size`` cases (every language and style represented)."""
    rng = random.Random(seed)
    yield from rng.sample(cases, min(size, len(cases)))
