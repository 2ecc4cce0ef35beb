"""Words of the compositional reader: value names, a small bilingual lexicon, refusals.

- :data:`VALUE_NAMES`: how questions name the values of a dimension ("Spanish" -> ``es``,
  "the UK" -> ``GB``, "angry" -> ``anger``, "videos" -> media ``video``);
- :data:`BILINGUAL`: French, Spanish, German and Portuguese phrases of the analysis
  vocabulary and of the corpus's topics, mapped onto English before reading ("combien de
  publications" -> "how many posts", "Hafermilch" -> "oat milk", "prix" -> "price");
- :data:`REFUSALS`: requests Ask cannot carry out, with the answer naming what to use.

Example:
    >>> BILINGUAL["de"]["beiträge"]
    'posts'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "BILINGUAL",
    "ITALIAN",
    "NOT_COLLECTED",
    "OTHER_SOURCES",
    "RANKS",
    "REFUSALS",
    "VALUE_NAMES",
    "Refusal",
    "refusal_for",
]

VALUE_NAMES: Mapping[str, Mapping[str, str]] = {
    "language": {
        "english": "en",
        "spanish": "es",
        "german": "de",
        "french": "fr",
        "portuguese": "pt",
        "italian": "it",
        "dutch": "nl",
        "japanese": "ja",
        "chinese": "zh",
        "korean": "ko",
        "arabic": "ar",
        "hindi": "hi",
        "russian": "ru",
        "polish": "pl",
        "swedish": "sv",
        "turkish": "tr",
    },
    "country": {
        "united states": "US",
        "usa": "US",
        "us": "US",
        "america": "US",
        "american": "US",
        "united kingdom": "GB",
        "uk": "GB",
        "britain": "GB",
        "great britain": "GB",
        "england": "GB",
        "british": "GB",
        "canada": "CA",
        "canadian": "CA",
        "australia": "AU",
        "australian": "AU",
        "india": "IN",
        "ireland": "IE",
        "brazil": "BR",
        "spain": "ES",
        "new zealand": "NZ",
        "germany": "DE",
        "france": "FR",
        "singapore": "SG",
        "mexico": "MX",
        "japan": "JP",
        "italy": "IT",
        "netherlands": "NL",
    },
    "emotion": {
        "joy": "joy",
        "joyful": "joy",
        "anger": "anger",
        "angry": "anger",
        "sadness": "sadness",
        "sad": "sadness",
        "surprise": "surprise",
        "surprised": "surprise",
        "fear": "fear",
        "afraid": "fear",
        "scared": "fear",
        "fearful": "fear",
        "disgust": "disgust",
        "disgusted": "disgust",
    },
    "sentiment": {"negative": "negative", "positive": "positive", "neutral": "neutral"},
    "content_type": {
        "ads": "ad",
        "ad": "ad",
        "adverts": "ad",
        "advert": "ad",
        "advertisements": "ad",
        "sponsored": "ad",
        "paid posts": "ad",
        "organic": "organic",
        "non-ads": "organic",
        "non-ad": "organic",
    },
    "media": {
        "videos": "video",
        "video": "video",
        "images": "image",
        "image": "image",
        "photos": "image",
        "photo": "image",
        "pictures": "image",
        "picture": "image",
        "no media": "none",
    },
    "intention": {
        "tutorials": "tutorial",
        "reviews": "review",
        "are complaints": "complaint",
        "complaint posts": "complaint",
        "personal stories": "personal_story",
        "personal story": "personal_story",
        "recommend": "recommendation",
        "recommendation posts": "recommendation",
        "news": "news",
        "comparisons": "comparison",
        "discussions": "discussion",
        "promotions": "promotion",
    },
}
"""Question words -> a dimension's value (the data's own labels are known as well)."""

OTHER_SOURCES = ("twitter", "facebook", "threads", "pinterest", "snapchat", "tumblr", "x.com")
"""Networks the service does not collect from (named when asked about)."""

NOT_COLLECTED: Mapping[str, str] = {
    r"\b(age|ages|how old|older|younger|birth ?year)\b|\b(people|users|posters|authors|women"
    r"|men) (aged|over|under|above|below) \d+\b": "the age of the people who post",
    r"\b(income|incomes|salary|salaries|earnings|wealth)\b": "the income of the people who post",
    r"\b(gender|genders|male|female|women|men|woman|man)\b": "the gender of the people who post",
    r"\b(ethnicity|race|religion|political views|sexual orientation)\b": (
        "sensitive traits of the people who post"
    ),
    r"\bhow many (people|persons|consumers|customers|households)\b(?! (posted|wrote|commented))": (
        "counts of people outside these posts (it collects posts and their authors)"
    ),
}
"""Questions about traits the service never collects about posters."""

# Phrases of the four other languages -> English, longest first (accents kept: the
# question is NFKC-normalised, not stripped). Topic words of the corpus's aspects and the
# analysis vocabulary; the dataset's own name is matched in English after the mapping.
BILINGUAL: Mapping[str, Mapping[str, str]] = {
    "fr": {
        # the spec's engagement (likes + comments + shares)
        "engagement total": "total engagement",
        "l'engagement total": "the total engagement",
        # who is asked about: a subject, never a condition
        "gens": "people",
        "utilisateurs": "users",
        "personnes": "people",
        "en espagnol": "in spanish",
        "en anglais": "in english",
        "en allemand": "in german",
        "en portugais": "in portuguese",
        "en français": "in french",
        "du royaume-uni": "from the uk",
        "des états-unis": "from the us",
        "du canada": "from canada",
        "d'allemagne": "from germany",
        "du brésil": "from brazil",
        "d'australie": "from australia",
        "d'inde": "from india",
        "publications de": "posts from",
        "par pays": "per country",
        "par langue": "per language",
        "par sentiment": "per sentiment",
        "vues totales": "total views",
        "la médiane des": "the median",
        "la moyenne des": "the average",
        "quelle est": "what is",
        "mentionnant": "mentioning",
        "partages": "shares",
        "commentaires": "comments",
        "taux d'engagement": "engagement rate",
        "combien de publications": "how many posts",
        "combien de posts": "how many posts",
        "quelle part des publications": "what share of the posts",
        "quelle part des": "what share of the",
        "quel pourcentage": "what percentage",
        "publications": "posts",
        "publication": "post",
        "négatives": "negative",
        "négative": "negative",
        "négatifs": "negative",
        "positives": "positive",
        "positifs": "positive",
        "neutres": "neutral",
        "parlent du": "mention",
        "parlent de la": "mention",
        "parlent de": "mention",
        "mentionnent le": "mention",
        "mentionnent la": "mention",
        "mentionnent": "mention",
        "sur la": "about",
        "sur le": "about",
        "sur": "on",
        "par source": "per source",
        "par mois": "per month",
        "lait d'avoine": "oat milk",
        "prix": "price",
        "goût": "taste",
        "mousse": "foam",
        "texture": "texture",
        "emballage": "packaging",
        "douceur": "sweetness",
        "sucre": "sugar",
        "publicités": "ads",
        "moyenne": "average",
        "médiane": "median",
        "vues": "views",
        "sont": "are",
    },
    "es": {
        "tienen": "have",
        "tiene": "has",
        # the spec's engagement (likes + comments + shares)
        "interacciones": "interactions",
        "interacción": "interaction",
        "en total": "in total",
        "engagement total": "total engagement",
        # who is asked about: a subject, never a condition
        "usuarios": "users",
        "gente": "people",
        "personas": "people",
        "en español": "in spanish",
        "en inglés": "in english",
        "en alemán": "in german",
        "en portugués": "in portuguese",
        "en francés": "in french",
        "del reino unido": "from the uk",
        "de estados unidos": "from the us",
        "de canadá": "from canada",
        "de alemania": "from germany",
        "de brasil": "from brazil",
        "de australia": "from australia",
        "de india": "from india",
        "por país": "per country",
        "por idioma": "per language",
        "por sentimiento": "per sentiment",
        "cuál es la": "what is the",
        "mencionando": "mentioning",
        "compartidos": "shares",
        "comentarios": "comments",
        "tasa de interacción": "engagement rate",
        "total de": "total",
        "cuántas publicaciones": "how many posts",
        "cuántos posts": "how many posts",
        "qué porcentaje de las publicaciones": "what percentage of the posts",
        "qué porcentaje": "what percentage",
        "cuál es la mediana de": "what is the median",
        "cuál es la media de": "what is the average",
        "publicaciones": "posts",
        "publicación": "post",
        "negativas": "negative",
        "negativos": "negative",
        "positivas": "positive",
        "positivos": "positive",
        "neutras": "neutral",
        "hablan del": "mention",
        "hablan de la": "mention",
        "hablan de": "mention",
        "mencionan la": "mention",
        "mencionan el": "mention",
        "mencionan": "mention",
        "de instagram": "on instagram",
        "de tiktok": "on tiktok",
        "de reddit": "on reddit",
        "de youtube": "on youtube",
        "de linkedin": "on linkedin",
        "por fuente": "per source",
        "leche de avena": "oat milk",
        "precio": "price",
        "sabor": "taste",
        "espuma": "foam",
        "textura": "texture",
        "envase": "packaging",
        "dulzor": "sweetness",
        "azúcar": "sugar",
        "anuncios": "ads",
        "vistas": "views",
        "me gusta": "likes",
        "son": "are",
    },
    "de": {
        "wie hoch ist": "what is",
        "aller": "of all",
        # the spec's engagement (likes + comments + shares)
        "interaktionen": "interactions",
        "gesamte engagement": "total engagement",
        "insgesamt": "in total",
        # who is asked about: a subject, never a condition
        "leute": "people",
        "nutzer": "users",
        "menschen": "people",
        "auf spanisch": "in spanish",
        "auf englisch": "in english",
        "auf deutsch": "in german",
        "auf portugiesisch": "in portuguese",
        "auf französisch": "in french",
        "aus großbritannien": "from the uk",
        "aus den usa": "from the us",
        "aus kanada": "from canada",
        "aus deutschland": "from germany",
        "aus brasilien": "from brazil",
        "aus australien": "from australia",
        "aus indien": "from india",
        "pro land": "per country",
        "pro sprache": "per language",
        "pro stimmung": "per sentiment",
        "was ist der": "what is the",
        "was ist die": "what is the",
        "die erwähnen": "mentioning",
        "teilungen": "shares",
        "kommentare": "comments",
        "engagement-rate": "engagement rate",
        "gesamtzahl der": "total",
        "mittelwert der": "average",
        "median der": "median",
        "wie viele beiträge": "how many posts",
        "wie viele posts": "how many posts",
        "welcher anteil der beiträge": "what share of the posts",
        "beiträge": "posts",
        "beitrag": "post",
        "negativ": "negative",
        "positiv": "positive",
        "neutral": "neutral",
        "erwähnen den": "mention",
        "erwähnen die": "mention",
        "erwähnen das": "mention",
        "erwähnen": "mention",
        "sprechen über die": "mention",
        "sprechen über den": "mention",
        "sprechen über das": "mention",
        "sprechen über": "mention",
        "auf reddit": "on reddit",
        "auf tiktok": "on tiktok",
        "auf instagram": "on instagram",
        "auf youtube": "on youtube",
        "gibt es pro quelle": "per source",
        "pro quelle": "per source",
        "pro monat": "per month",
        "hafermilch": "oat milk",
        "preis": "price",
        "geschmack": "taste",
        "schaum": "foam",
        "textur": "texture",
        "verpackung": "packaging",
        "süße": "sweetness",
        "zucker": "sugar",
        "anzeigen": "ads",
        "durchschnitt": "average",
        "median": "median",
        "aufrufe": "views",
        "sind": "are",
    },
    "pt": {
        # the spec's engagement (likes + comments + shares)
        "engajamento total": "total engagement",
        "engajamento": "engagement",
        "interações": "interactions",
        # who is asked about: a subject, never a condition
        "pessoas": "people",
        "usuários": "users",
        "utilizadores": "users",
        "em espanhol": "in spanish",
        "em inglês": "in english",
        "em alemão": "in german",
        "em português": "in portuguese",
        "em francês": "in french",
        "do reino unido": "from the uk",
        "dos estados unidos": "from the us",
        "do canadá": "from canada",
        "da alemanha": "from germany",
        "do brasil": "from brazil",
        "da austrália": "from australia",
        "da índia": "from india",
        "por país": "per country",
        "por idioma": "per language",
        "por sentimento": "per sentiment",
        "qual é a": "what is the",
        "mencionando": "mentioning",
        "compartilhamentos": "shares",
        "comentários": "comments",
        "taxa de engajamento": "engagement rate",
        "total de": "total",
        "quantas publicações": "how many posts",
        "quantos posts": "how many posts",
        "qual a percentagem": "what percentage",
        "qual é a média de curtidas": "what is the average likes",
        "qual é a média de": "what is the average",
        "qual é a mediana de": "what is the median",
        "publicações": "posts",
        "publicação": "post",
        "negativas": "negative",
        "negativos": "negative",
        "positivas": "positive",
        "positivos": "positive",
        "neutras": "neutral",
        "neutros": "neutral",
        "falam do": "mention",
        "falam da": "mention",
        "falam de": "mention",
        "mencionam a": "mention",
        "mencionam o": "mention",
        "mencionam": "mention",
        "do tiktok": "on tiktok",
        "do instagram": "on instagram",
        "do reddit": "on reddit",
        "do youtube": "on youtube",
        "sobre leite de aveia": "about oat milk",
        "leite de aveia": "oat milk",
        "preço": "price",
        "sabor": "taste",
        "espuma": "foam",
        "textura": "texture",
        "embalagem": "packaging",
        "doçura": "sweetness",
        "açúcar": "sugar",
        "anúncios": "ads",
        "curtidas": "likes",
        "visualizações": "views",
        "existem": "are there",
        "são": "are",
        "por fonte": "per source",
    },
}
"""Question phrases of fr/es/de/pt -> English (with :data:`RANKS` and :data:`ITALIAN`)."""

RANKS: Mapping[str, Mapping[str, str]] = {
    "fr": {
        "plus de": "more than",
        "moins de": "fewer than",
        "au moins": "at least",
        "le plus de": "the most",
        "la plus": "the most",
        "le plus": "the most",
        "le moins de": "the fewest",
        "par rapport à": "compared with",
        "par rapport au": "compared with",
        "comparé à": "compared with",
        "comparées à": "compared with",
        "contre": "versus",
        "après": "after",
        "à part": "apart from",
        "sauf": "except",
        "hormis": "except",
        "deuxième": "second",
        "troisième": "third",
        "quatrième": "fourth",
        "quelle plateforme": "which platform",
        "plateforme": "platform",
        "quel pays": "which country",
        "vues": "views",
        "partages": "shares",
        "moyenne": "average",
        "moyen": "average",
        "médiane": "median",
        "ont": "have",
        "mois dernier": "last month",
        "ce mois-ci": "this month",
        "précédents": "before",
        "précédentes": "before",
        "d'avant": "before",
        "les états-unis": "the us",
        "états-unis": "the us",
        "le royaume-uni": "the uk",
        "royaume-uni": "the uk",
    },
    "es": {
        "más de": "more than",
        "menos de": "fewer than",
        "al menos": "at least",
        "con más": "with the most",
        "con menos": "with the fewest",
        "frente a": "versus",
        "comparado con": "compared with",
        "en comparación con": "compared with",
        "después de": "after",
        "aparte de": "apart from",
        "excepto": "except",
        "salvo": "except",
        "segunda": "second",
        "segundo": "second",
        "tercera": "third",
        "tercero": "third",
        "cuarto": "fourth",
        "cuarta": "fourth",
        "qué plataforma": "which platform",
        "plataforma": "platform",
        "qué país": "which country",
        "país": "country",
        "promedio": "average",
        "media de": "average",
        "mediana": "median",
        "compartidas": "shares",
        "mes pasado": "last month",
        "este mes": "this month",
        "anteriores": "before",
        "más": "most",
        "estados unidos": "the us",
        "reino unido": "the uk",
    },
    "de": {
        "mehr als": "more than",
        "weniger als": "fewer than",
        "mindestens": "at least",
        "am meisten": "the most",
        "die meisten": "the most",
        "meisten": "most",
        "am wenigsten": "the fewest",
        "zweitmeisten": "second most",
        "drittmeisten": "third most",
        "im vergleich zum": "compared with",
        "im vergleich zur": "compared with",
        "im vergleich zu": "compared with",
        "verglichen mit": "compared with",
        "gegenüber": "versus",
        "abgesehen von": "apart from",
        "außer": "except",
        "welche plattform": "which platform",
        "plattform": "platform",
        "welches land": "which country",
        "land": "country",
        "davor": "before that",
        "zweite": "second",
        "zweithöchste": "second highest",
        "dritte": "third",
        "durchschnittliche": "average",
        "haben": "have",
        "hat": "has",
        "letzten monat": "last month",
        "diesen monat": "this month",
        "tagen": "days",
        "tage": "days",
        "wochen": "weeks",
        "monaten": "months",
        "monate": "months",
    },
    "pt": {
        "mais de": "more than",
        "menos de": "fewer than",
        "pelo menos": "at least",
        "com mais": "with the most",
        "com menos": "with the fewest",
        "em comparação com": "compared with",
        "comparado com": "compared with",
        "comparada com": "compared with",
        "contra": "versus",
        "depois do": "after",
        "depois da": "after",
        "além do": "apart from",
        "além da": "apart from",
        "exceto": "except",
        "segunda": "second",
        "segundo": "second",
        "terceira": "third",
        "terceiro": "third",
        "qual plataforma": "which platform",
        "plataforma": "platform",
        "qual país": "which country",
        "país": "country",
        "média": "average",
        "mediana": "median",
        "partilhas": "shares",
        "têm": "have",
        "tem": "has",
        "mês passado": "last month",
        "este mês": "this month",
        "anteriores": "before",
        "mais": "most",
        "estados unidos": "the us",
        "reino unido": "the uk",
    },
}
"""Comparatives, superlatives, ordinals, exclusions and comparisons of fr/es/de/pt ("plus
de", "mehr als", "am meisten", "zweitmeisten", "par rapport à", "além do"): what a figure
question ranks, bounds or compares by, and the countries said alone after them ("après
les États-Unis")."""

ITALIAN: Mapping[str, str] = {
    "quanti post": "how many posts",
    "quante pubblicazioni": "how many posts",
    "quanti": "how many",
    "quante": "how many",
    "ci sono": "are there",
    "sono": "are",
    "hanno": "have",
    "ha": "has",
    "pubblicazioni": "posts",
    "pubblicati": "published",
    "pubblicato": "published",
    "più di": "more than",
    "meno di": "fewer than",
    "almeno": "at least",
    "il maggior numero di": "the most",
    "il più": "the most",
    "la più": "the most",
    "i più": "the most",
    "le più": "the most",
    "più": "most",
    "il minor numero di": "the fewest",
    "rispetto a": "compared with",
    "rispetto al": "compared with",
    "rispetto alla": "compared with",
    "confrontato con": "compared with",
    "contro": "versus",
    "dopo": "after",
    "a parte": "apart from",
    "tranne": "except",
    "eccetto": "except",
    "secondo": "second",
    "seconda": "second",
    "terzo": "third",
    "terza": "third",
    "quarto": "fourth",
    "qual è la": "what is the",
    "qual è il": "what is the",
    "qual è": "what is",
    "quale piattaforma": "which platform",
    "quale": "which",
    "quali": "which",
    "piattaforma": "platform",
    "piattaforme": "platforms",
    "quale paese": "which country",
    "paese": "country",
    "media": "average",
    "mediana": "median",
    "visualizzazioni": "views",
    "mi piace": "likes",
    "condivisioni": "shares",
    "commenti": "comments",
    "coinvolgimento": "engagement",
    "interazioni": "interactions",
    "percentuale": "percentage",
    "quota": "share",
    "negativi": "negative",
    "negative": "negative",
    "positivi": "positive",
    "positive": "positive",
    "neutri": "neutral",
    "neutrali": "neutral",
    "menzionano": "mention",
    "parlano di": "mention",
    "parlano del": "mention",
    "parlano della": "mention",
    "su tiktok": "on tiktok",
    "su instagram": "on instagram",
    "su reddit": "on reddit",
    "su youtube": "on youtube",
    "su linkedin": "on linkedin",
    "di tiktok": "on tiktok",
    "di instagram": "on instagram",
    "di reddit": "on reddit",
    "di youtube": "on youtube",
    "di linkedin": "on linkedin",
    "in inglese": "in english",
    "in spagnolo": "in spanish",
    "in tedesco": "in german",
    "in francese": "in french",
    "in italiano": "in italian",
    "dagli stati uniti": "from the us",
    "dal regno unito": "from the uk",
    "per piattaforma": "per platform",
    "per paese": "per country",
    "per mese": "per month",
    "per lingua": "per language",
    "negli ultimi": "in the last",
    "nelle ultime": "in the last",
    "ultimi": "last",
    "ultime": "last",
    "giorni": "days",
    "settimane": "weeks",
    "mesi": "months",
    "questo mese": "this month",
    "mese scorso": "last month",
    "precedenti": "before",
    "senza": "without",
    "annunci": "ads",
    "pubblicità": "ads",
    "autori": "authors",
    "persone": "people",
    "utenti": "users",
    "emozione": "emotion",
    "lingua": "language",
    "invito all'azione": "call to action",
    "inviti all'azione": "calls to action",
    "con il maggior numero di": "with the most",
    "con il minor numero di": "with the fewest",
    "con più": "with the most",
    "maggior": "most",
    "con il": "with the",
    "con la": "with the",
    "con una": "with a",
    "con un": "with a",
    "con": "with",
    "numero di": "number of",
    "stati uniti": "the us",
    "regno unito": "the uk",
    "provengono da": "come from",
    "vengono da": "come from",
    "provenienti da": "from",
}
"""Italian question phrases -> English: counts, measures, ranks and comparisons, sources,
languages, countries and periods (the words of sets of questions people ask)."""

BILINGUAL = {
    language: {**BILINGUAL.get(language, {}), **RANKS.get(language, {})}
    for language in (*BILINGUAL, *RANKS)
} | {"it": ITALIAN}


NEGATIONS: Mapping[str, tuple[tuple[str, str], ...]] = {
    # "ne mentionnent pas le prix" -> "mention not price": "not" right before what it negates
    "fr": (
        (r"\bn(?:e |')(\S+) (?:pas|jamais|plus)(?: (?:le|la|les|l'|de|du|des|d'))?(?= )",
         r"\1 not"),
        (r"\b(?:aucun|aucune)\b", "no"),
    ),
    # "erwähnen den preis nicht?" -> "not mention price?": a clause-final "nicht" moves
    # before its verb; elsewhere it is "not" where it stands ("sind nicht auf tiktok")
    "de": (
        (r"(\S+) (\S+) nicht(?= *(?:[?,.!]|$))", r"not \1 \2"),
        (r"\bnicht\b", "not"),
        (r"\bkein(?:e|en|er|em|es)?\b", "no"),
        (r"\bohne\b", "without"),
    ),
    "es": ((r"\bno\b", "not"), (r"\bnunca\b", "never"), (r"\bsin\b", "without")),
    "pt": ((r"\bnão\b", "not"), (r"\bnunca\b", "never"), (r"\bsem\b", "without")),
    "it": ((r"\bnon\b", "not"), (r"\bmai\b", "never")),
}  # fmt: skip
"""Negations of fr/es/de/pt as the English reader reads them, after the phrases: a
negation the reader did not see would turn "posts that do not mention the price" into
the posts that do."""


@dataclass(frozen=True)
class Refusal:
    """A request Ask does not carry out: what it is and what to use instead."""

    topic: str
    pattern: str
    answer: str


REFUSALS: tuple[Refusal, ...] = (
    Refusal(
        "forecast",
        r"\b(predict\w*|forecast\w*|extrapolat\w*|projection|will (?:\w+ ){0,3}(?:be|grow|drop"
        r"|increase|decrease|rise|fall|look|change|get|go up|go down)|going to (?:be|grow|drop"
        r"|increase|decrease|rise|fall)|next (?:week|month|quarter|year)'?s?)\b",
        "I can't predict or forecast: every answer is counted from posts already collected."
        ' Ask "posts per week" or "sentiment over time" for the trend so far, or fit a model'
        " on `client.mentions.to_frame(dataset_ids=[...])` yourself.",
    ),
    Refusal(
        "correlate",
        r"\b(correlat\w*|regression|statistically significant|significance test|causal\w*"
        r"|causation|caused by|cause and effect)\b",
        "I can't compute correlations or test causes: Ask counts, splits and ranks posts. With"
        " pandas: `df = client.mentions.to_frame(dataset_ids=[...])`, then e.g."
        ' `df[["num_likes", "num_comments"]].corr()`; Ask can compare groups ("sentiment of'
        ' posts mentioning price").',
    ),
    Refusal(
        "delete",
        r"^(please |can you |could you |pls )?(delete|remove|erase|wipe|drop|supprimer?|supprimez"
        r"|borra[r]?|elimina[r]?|lösche[n]?|apaga[r]?|exclua)\b",
        "I can't delete data from a chat. Delete a dataset with `DELETE /v1/datasets/{id}`"
        " (or `client.datasets.delete(id)`); its posts stop being counted in new answers.",
    ),
    Refusal(
        "rename",
        r"\b(rename|renommer?|renombra[r]?|umbenennen|renomea[r]?)\b",
        "I can't rename a dataset. Use `PATCH /v1/datasets/{id}` with a new `name`"
        " (`client.datasets.update(id, name=...)`).",
    ),
    Refusal(
        "system",
        # What an injected instruction asks for: the assistant's own prompt, rules or
        # instructions, its database, tables or schema; in the six languages it reads.
        r"\b(system|developer|admin)\s*(prompt|override|mode|message|instructions?)\b"
        r"|\b(ignore|disregard|forget|override|bypass|ignora\w*|ignorez|ignoriere\w*|vergiss"
        r"|esquece\w*|olvida\w*|oublie\w*|dimentica\w*)\b.{0,40}\b(instructions?|rules|prompt"
        r"|instrucciones|instruções|anweisungen|istruzioni|consignes|regeln|reglas|regole)\b"
        r"|\bnew instructions\b|</?\s*(context|system|instructions)\s*>"
        r"|\b(your|the)\s+(own\s+)?(system\s+)?(prompt|instructions|configuration|guidelines)\b"
        r"|\b(sql|drop table|select \*|jailbreak|prompt di sistema|invite système|systemprompt"
        r"|prompt del sistema|prompt do sistema)\b"
        r"|\b(show|print|list|dump|output|give|reveal|display|describe|run|execute|drop|access"
        r"|query|muestra\w*|mostra\w*|affiche\w*|montre\w*|zeig\w*|stampa|imprim\w*)\b.{0,50}"
        r"\b(database|schema|tables|base de datos|base de données|banco de dados|base de dados"
        r"|datenbank|tabellen|tablas|tabelas|tabelle|database di)\b",
        "I can't show or change how I work, my instructions or the service's database: I only"
        " answer questions about the posts of the datasets in scope (counts, shares,"
        " statistics, rankings, themes). The contract of the service is its REST API"
        " (`/v1`).",
    ),
    Refusal(
        "plan",
        r"\b(upgrade|downgrade|change|switch|cancel)\b.*\b(plan|subscription|billing)\b"
        r"|\b(top up|top-up|buy credits|add credits|refund)\b"
        # credits, balance or billing asked to be given, moved or changed, in any wording
        r"|\b(add|give|grant|gift|transfer|send|move|credit|reset|increase|raise|restore|refill"
        r"|recharge|free|extra|more|unlimited|ajout\w*|donne\w*|añad\w*|agrega\w*|da(me)?"
        r"|gib|füge?|adicion\w*|transf\w*|aggiung\w*|regala\w*)\b.{0,60}\b(credits|crédits?"
        r"|créditos?|crediti|guthaben|balance|quota|billing|invoices?|payments?|saldo|solde)\b"
        r"|\b(credits?|crédits?|créditos?|crediti|guthaben)\b.{0,40}\b(account|compte|cuenta"
        r"|konto|conta|free|gratis|gratuit\w*|kostenlos|for free)\b",
        "I can't change your plan, credits or billing. Plans and credits are managed in the"
        " web app under Billing; `GET /v1/me` shows the current plan and balance.",
    ),
    Refusal(
        "key",
        r"\b(api[ -]?key|api[ -]?schlüssel|clé d'api|clave de api|chave de api|secret|token"
        r"|password)s?\b",
        "I never show, create or rotate API keys. Manage keys in the web app under Settings"
        " → API keys; rdskit reads yours from `RDSKIT_API_KEY`.",
    ),
    Refusal(
        "export",
        r"\b(export|download|dump)\b.*\b(all|everything|every|whole|entire|csv|excel|file)\b"
        r"|\b(all|everything)\b.*\b(csv|excel|spreadsheet)\b",
        "I can't export data from a chat. Read every post with `POST /v1/mentions` (paged),"
        " or `client.mentions.to_frame(dataset_ids=[...])` and then `df.to_csv(...)`.",
    ),
    Refusal(
        "account",
        r"\b(another|other|someone else's|different) (account|user|customer|team)'?s?\b",
        "I can't show another account's data: I only read the datasets of your own account."
        " `GET /v1/datasets` lists the datasets your key can read.",
    ),
    Refusal(
        "personal",
        r"\b(home )?address(es)?\b|\bphone( numbers?)?\b|\b(e-?mails?|email addresses)\b"
        r"|\b(t[eé]l[eé]phone|tel[eé]fono|telefon\w*|telefone|indirizz\w*|adresse|direcci[oó]n"
        r"|endere[cç]o|wohnort|domicil\w*)\b"
        r"|\bwhere (do|does) .* live\b|\breal names?\b|\bdate of birth\b",
        "I don't give personal data about posters (addresses, phone numbers, e-mails): the"
        " service does not collect it and Ask would not share it. Posts carry only the public"
        " author name and profile link (`author` in `POST /v1/mentions`).",
    ),
    Refusal(
        "run",
        r"\b(start|launch|trigger|create|run)\b.*\b(run|collection|scrape|crawl)\b"
        r"|\bcollect\b.*\bmore\b",
        "I can't start runs (they are paid work). Start one with"
        " `POST /v1/datasets/{id}/runs`; `GET /v1/prices` lists what it costs.",
    ),
)
"""Requests Ask does not carry out, checked in order."""


def refusal_for(text: str) -> Refusal | None:
    """The refusal a question (lower-cased, any language) calls for, if any.

    Example:
        >>> refusal_for("please delete this dataset").topic
        'delete'
        >>> refusal_for("how many posts mention the price?") is None
        True
    """
    for refusal in REFUSALS:
        if re.search(refusal.pattern, text):
            return refusal
    return None
