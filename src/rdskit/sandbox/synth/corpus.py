"""A deterministic synthetic corpus of social posts ("mentions") for the sandbox.

:func:`collect` answers a dataset run's search with Mention wire dicts that are worth
analysing: posts from the five sources talk about the query in varied voices (praise,
complaints, questions, comparisons with rival brands, how-tos, stories, listicles, ads),
come from a pool of recurring authors, carry heavy-tailed metrics, comments by recurring
commenters, media, instagram sounds and full ``ad_meta`` on ads.

Determinism and overlap. Everything is a function of ``(seed, query)`` and the collection
time ``now`` (a sandbox passes its clock's, :mod:`rdskit.sandbox.runtime.clock`): a ``url`` search
is anchored on that day, and a window ends at the latest then (nothing is posted after the
collection: a window reaching into the future is clipped to it, one wholly there is empty). Posts of
a ``prompt`` search live on a fixed per-query timeline: day ``d`` of source ``s`` holds an
endless sequence of posts ``(d, 0), (d, 1), ...`` whose ids, authors, texts and dates never
change. A run spreads its ``count`` over the sources and the days of its window (busier
days get more) and takes a slice of each day's sequence; a later run (higher
``run_ordinal``) shifts the slice by about 60%, so it returns roughly 40% already-seen posts
plus new ones. Their metrics have grown a little since (re-fetched posts gain views).

``url`` searches return posts by the profiles named in ``source_urls`` (a subreddit URL
searches that community); unrecognised URLs yield nothing.

Speed: one seeded ``random.Random`` per post and string templates; 100k posts take a few
seconds.

Example:
    >>> query = {"type": "prompt", "sources": ["reddit", "tiktok"], "search_query": "oat milk"}
    >>> end = datetime(2026, 1, 1, tzinfo=UTC)
    >>> posts = collect(7, query, 20, datetime(2025, 12, 1, tzinfo=UTC), end)
    >>> len(posts), {p["source"] for p in posts} == {"reddit", "tiktok"}
    (20, True)
    >>> posts == collect(7, query, 20, datetime(2025, 12, 1, tzinfo=UTC), end)
    True
"""

from __future__ import annotations

import gc
import hashlib
import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property, lru_cache
from typing import Any
from urllib.parse import urlsplit

from rdskit.models import vocab
from rdskit.sandbox.runtime import clock, cpu_budget
from rdskit.sandbox.synth import social

__all__ = [
    "BRANDS",
    "CATEGORIES",
    "COUNTRY_LANGUAGE",
    "LOCAL_MOOD",
    "LOCAL_TEMPLATES",
    "MEDIA_HOST",
    "MIX_SPREAD",
    "PLAIN_WORD_BRANDS",
    "SOURCES",
    "Category",
    "Gazetteer",
    "Person",
    "Tokens",
    "Topic",
    "avatar",
    "brands_in",
    "brands_tagged",
    "category_of",
    "collect",
    "daily_volume",
    "days_between_posts",
    "display_name_of",
    "gender_of",
    "parse_post_url",
    "parse_profile_url",
    "person",
    "popularity",
    "profile_url",
    "source_mix",
    "topic_of",
]

SOURCES = vocab.SOURCES
MEDIA_HOST = "https://cdn.sandbox.rdskit.test"
"""Media and avatar URLs point here (a reserved ``.test`` host: never fetched)."""

DAY = 86_400
NEW_FRACTION = 0.6  # share of a re-run's slice that is new posts
AD_SHARE = 0.05  # sponsored posts surfacing in an organic search
NON_ENGLISH_SHARE = 0.08
AUTHOR_POOL = 2_000  # recurring authors per (query, source)
COMMENTER_POOL = 6_000
URL_WINDOW_DAYS = 365
HISTORY_DAYS = 5 * 365 + 1
"""How far back the corpus holds posts, from the collection time: a window is clipped to
it, so a run's work does not grow with its window (0001-01-01..9999-12-31 costs what five
years cost, ~0.1 s of CPU for five sources)."""


def held(since: datetime, until: datetime, now: datetime) -> tuple[datetime, datetime]:
    """The part of a window the corpus holds when collecting at ``now``, by the rule
    :func:`collect` applies: never after ``now``, at most :data:`HISTORY_DAYS` back from
    its end (``since > until``: none of it).

    Example:
        >>> now = datetime(2026, 11, 20, tzinfo=UTC)
        >>> ever = datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 1, 1, tzinfo=UTC)
        >>> [d.year for d in held(*ever, now)]
        [2021, 2026]
        >>> [d.year for d in held(ever[0], ever[0], now)]
        [1, 1]
    """
    until = min(until, now)
    reach = timedelta(days=HISTORY_DAYS)
    # A window ending within five years of year 1 reaches back past the calendar.
    floor = max(until, datetime.min.replace(tzinfo=until.tzinfo) + reach) - reach
    return max(since, floor), until


def _digest(*parts: object) -> bytes:
    return hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=16).digest()


def _rng(*parts: object) -> random.Random:
    """A random stream that is a pure function of ``parts``."""
    return random.Random(int.from_bytes(_digest(*parts)[:8], "big"))


def _unit(*parts: object) -> float:
    """A number in [0, 1) fixed by ``parts`` (cheaper than seeding a ``Random``)."""
    return int.from_bytes(_digest(*parts)[:7], "big") / 2.0**56


def _token(parts: tuple[object, ...], alphabet: str, length: int) -> str:
    """An id-like string drawn from ``alphabet``, fixed by ``parts``."""
    value = int.from_bytes(_digest(*parts), "big")
    chars = []
    for _ in range(length):
        value, index = divmod(value, len(alphabet))
        chars.append(alphabet[index])
    return "".join(chars)


_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_DIGITS = "0123456789"


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.strip().splitlines() if line.strip())


# --- catalog: categories, brands, aspects ------------------------------------------------


@dataclass(frozen=True)
class Category:
    """A product area: how queries about it are recognised and what its posts talk about."""

    name: str
    keywords: tuple[str, ...]
    brands: tuple[str, ...]
    aspects: tuple[str, ...]
    uses: tuple[str, ...]
    communities: tuple[str, ...]
    prices: tuple[str, ...]
    platforms: tuple[tuple[str, float], ...]
    """``(source, weight)``: where the category is talked about (see :func:`source_mix`)."""


def _platforms(text: str) -> tuple[tuple[str, float], ...]:
    """``"reddit 18, tiktok 32, ..."`` -> ``(("reddit", 18.0), ...)``: every source, once."""
    mix = tuple((source, float(weight)) for source, weight in map(str.split, text.split(",")))
    assert sorted(s for s, _ in mix) == sorted(SOURCES), text
    return mix


def _category(
    name: str,
    keywords: str,
    brands: str,
    aspects: str,
    uses: str,
    subs: str,
    prices: str,
    platforms: str,
) -> Category:
    def split(text: str) -> tuple[str, ...]:
        return tuple(part.strip() for part in text.split(",") if part.strip())

    mix = _platforms(platforms)
    return Category(
        name,
        split(keywords),
        split(brands),
        split(aspects),
        split(uses),
        split(subs),
        tuple(prices.split()),
        mix,
    )


CATEGORIES: tuple[Category, ...] = (
    _category(
        "Food & Drink",
        "milk, oat, coffee, latte, tea, matcha, snack, protein bar, drink, soda, juice, "
        "chocolate, vegan, plant-based, cereal, yogurt, beer, kombucha, energy drink, "
        "leche, avena, café, lait, avoine, milch, hafermilch, leite, aveia, bebida, boisson",
        "Oatly, Alpro, Minor Figures, Califia Farms, Silk, Planet Oat, Chobani, Elmhurst",
        "taste, texture, price, foam, sweetness, packaging, ingredients, availability, "
        "shelf life, sugar content",
        "morning coffee, lattes, smoothies, porridge, iced coffee, baking",
        "Coffee, vegan, PlantBasedDiet, EatCheapAndHealthy, Cooking",
        "$2.49 $2.99 $3.49 $3.99 $4.50 $5.99",
        "reddit 18, tiktok 32, youtube 12, instagram 32, linkedin 6",
    ),
    _category(
        "Technology",
        "phone, laptop, app, ai, software, headphones, earbuds, tablet, camera, smartwatch, "
        "chatgpt, chatbot, saas, keyboard, monitor, gpu, iphone, android, "
        "móvil, celular, ordenador, ordinateur, smartphone",
        "Apple, Samsung, Google, Microsoft, OpenAI, Anthropic, Sony, Dell, Lenovo, Notion",
        "battery life, price, performance, design, updates, customer support, privacy, "
        "camera, build quality, onboarding",
        "work setup, daily commute, side projects, travel photos, note taking",
        "gadgets, technology, apple, Android, productivity, software",
        "$9.99 $49 $129 $299 $799 $1,199",
        "reddit 34, tiktok 10, youtube 30, instagram 8, linkedin 18",
    ),
    _category(
        "Beauty",
        "skincare, serum, makeup, moisturizer, sunscreen, spf, shampoo, hair, lipstick, "
        "foundation, retinol, cleanser, fragrance, perfume, maquillaje, maquillage, "
        "maquiagem, hautpflege, cuidado de la piel, soin",
        "CeraVe, The Ordinary, La Roche-Posay, Glossier, Fenty Beauty, Drunk Elephant, Neutrogena",
        "texture, scent, price, results, packaging, ingredients, shade range, longevity",
        "morning routine, night routine, dry skin, sensitive skin, oily skin",
        "SkincareAddiction, MakeupAddiction, beauty, AsianBeauty",
        "$9.99 $14 $22 $35 $48 $65",
        "reddit 12, tiktok 36, youtube 16, instagram 34, linkedin 2",
    ),
    _category(
        "Fashion",
        "sneakers, shoes, running shoes, clothing, jeans, jacket, dress, hoodie, boots, "
        "streetwear, outfit, fashion, zapatillas, chaussures, schuhe, tênis, ropa, vêtements, "
        "moda",
        "Nike, Adidas, New Balance, Hoka, On, Asics, Zara, Uniqlo",
        "fit, comfort, durability, price, style, sizing, materials, shipping",
        "daily runs, office outfits, weekend looks, gym sessions, long walks",
        "Sneakers, malefashionadvice, femalefashionadvice, RunningShoeGeeks",
        "$35 $60 $89 $120 $150 $180",
        "reddit 14, tiktok 30, youtube 12, instagram 38, linkedin 6",
    ),
    _category(
        "Automotive",
        "car, ev, electric vehicle, tesla, charging, suv, hybrid, truck, road trip, coche, "
        "voiture, carro, elektroauto",
        "Tesla, Rivian, BYD, Ford, Hyundai, Polestar, Volkswagen, Kia",
        "range, charging, price, build quality, software, service, insurance, resale value",
        "daily commute, road trips, school runs, city driving",
        "electricvehicles, cars, teslamotors, whatcarshouldIbuy",
        "$399 $1,200 $29,990 $38,500 $45,000 $52,990",
        "reddit 32, tiktok 12, youtube 34, instagram 12, linkedin 10",
    ),
    _category(
        "Finance",
        "bank, banking, credit card, budget, budgeting, investing, crypto, savings, fintech, "
        "loan, mortgage, stocks, payments, banco, banque, tarjeta, crédito, kredit",
        "Revolut, Monzo, Chime, Robinhood, Wise, PayPal, Klarna, Nubank",
        "fees, app, customer support, interest rate, security, transfers, cashback",
        "monthly budget, travel spending, savings goals, paying rent",
        "personalfinance, povertyfinance, investing, FinancialPlanning",
        "$0 $4.99 $9.99 $15 $25 $49",
        "reddit 38, tiktok 10, youtube 22, instagram 6, linkedin 24",
    ),
    _category(
        "Travel",
        "travel, airline, flight, hotel, vacation, airport, booking, trip, hostel, cruise, "
        "viaje, voyage, reise, viagem, vuelo, vacaciones, vacances, urlaub, férias",
        "Airbnb, Booking.com, Expedia, Ryanair, Delta, Marriott, Hilton",
        "price, service, cleanliness, delays, location, refunds, loyalty program",
        "weekend trips, business travel, family holidays, city breaks",
        "travel, solotravel, TravelHacks, awardtravel",
        "$39 $89 $129 $240 $480 $950",
        "reddit 22, tiktok 24, youtube 20, instagram 30, linkedin 4",
    ),
    _category(
        "Fitness",
        "gym, workout, fitness, yoga, running, pilates, weights, cardio, marathon, "
        "strength training, wearable, gimnasio, entrenamiento, musculation, fitnessstudio",
        "Peloton, Strava, Fitbit, Garmin, Whoop, Gymshark, Lululemon",
        "price, accuracy, motivation, comfort, app, battery life, community",
        "morning workouts, marathon training, home workouts, recovery days",
        "fitness, running, xxfitness, bodyweightfitness",
        "$12 $29 $49 $99 $199 $399",
        "reddit 22, tiktok 26, youtube 22, instagram 26, linkedin 4",
    ),
)

GENERIC = _category(
    "Lifestyle",
    "",
    "Northwind, Brightly, Lumio, Kestrel & Co, Harbor Goods, Fieldnote, Evergreen Labs",
    "price, quality, customer service, delivery, design, value, reliability",
    "everyday use, the home office, weekend projects, gifts",
    "BuyItForLife, AskReddit, Frugal, productivity",
    "$9.99 $19 $29 $49 $79 $120",
    "reddit 25, tiktok 25, youtube 15, instagram 20, linkedin 15",
)

_KIND_CATEGORY: dict[str, Category] = {
    kind.name: Category(
        kind.name,
        kind.keywords,
        kind.actors,
        kind.issues,
        kind.contexts,
        kind.communities,
        kind.figures,
        _platforms(kind.platforms),
    )
    for kind in social.KINDS
}
"""Each kind of public talk as the generator's category: actors stand for brands, issues
for aspects, contexts for uses, figures for prices (never in :data:`CATEGORIES`, so the
brand gazetteer and the product categories stay as they were)."""

BRANDS: frozenset[str] = frozenset(b for c in (*CATEGORIES, GENERIC) for b in c.brands)
"""Every brand the corpus writes about (enrichment uses it as its brand gazetteer)."""

PLAIN_WORD_BRANDS: frozenset[str] = frozenset(
    (*_words("On Silk Apple Notion Chime Wise Delta Whoop Brightly"), "The Ordinary", "New Balance")
)
"""Brands that are also everyday words: they count only as written ("On", not "on"). Every
other brand is recognised in any case ("oatly", "OATLY") and as a hashtag ("#minorfigures")."""


class Tokens:
    """A text's words with their offsets, tokenised once and shared by several gazetteers.

    Example:
        >>> Tokens("Oat milk, 2x").lowered
        ['oat', 'milk', '2x']
    """

    _TOKEN = re.compile(r"[\w&'’-]+(?:\.[a-z]{2,4}\b)?")

    def __init__(self, text: str) -> None:
        matches = list(self._TOKEN.finditer(text))
        self.starts = [m.start() for m in matches]
        self.words = [m.group(0) for m in matches]
        self.lowered = [w.lower() for w in self.words]

    @cached_property
    def wordset(self) -> frozenset[str]:
        return frozenset(self.words)

    @cached_property
    def lowset(self) -> frozenset[str]:
        return frozenset(self.lowered)


class Gazetteer:
    """Finds known phrases of up to a few words by dictionary lookup of word n-grams.

    Much faster than a regex alternation of many literals (Python's ``re`` tries every
    alternative at every position). Longest match wins; plurals add an ``s`` variant.

    Example:
        >>> Gazetteer(["oat milk", "milk"], plurals=True).find("Oat milks and milk")
        ['oat milk', 'milk']
    """

    def __init__(
        self,
        phrases: Iterable[str],
        *,
        case_sensitive: bool = False,
        plurals: bool = False,
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.case_sensitive = case_sensitive
        self.table: dict[str, str] = {}
        for phrase in phrases:
            key = phrase if case_sensitive else phrase.lower()
            self.table.setdefault(key, phrase)
            if plurals:
                self.table.setdefault(key + "s", phrase)
        for alias, phrase in (aliases or {}).items():  # other spellings of a listed phrase
            self.table.setdefault(alias if case_sensitive else alias.lower(), phrase)
        # Only words that open a multi-word phrase need the (slower) n-gram probe.
        self.heads = {k.split()[0] for k in self.table if " " in k}
        # A text holding none of the first words holds no phrase: skip the word loop.
        self.firsts = frozenset(k.split()[0] for k in self.table)
        self.longest = max((len(k.split()) for k in self.table), default=1)

    def matches(self, text: str | Tokens) -> list[tuple[int, str]]:
        """``(character offset, phrase as listed)`` of every match, left to right."""
        tokens = text if isinstance(text, Tokens) else Tokens(text)
        words = tokens.words if self.case_sensitive else tokens.lowered
        if self.firsts.isdisjoint(tokens.wordset if self.case_sensitive else tokens.lowset):
            return []
        table, heads, found, i = self.table, self.heads, [], 0
        while i < len(words):
            n, phrase = 1, None
            if words[i] in heads:
                n, phrase = self._longest_at(words, i)
            if phrase is None:
                n, phrase = 1, table.get(words[i])
            if phrase is not None:
                found.append((tokens.starts[i], phrase))
            i += n
        return found

    def _longest_at(self, words: list[str], i: int) -> tuple[int, str | None]:
        for n in range(min(self.longest, len(words) - i), 1, -1):
            phrase = self.table.get(" ".join(words[i : i + n]))
            if phrase is not None:
                return n, phrase
        return 1, None

    def find(self, text: str | Tokens) -> list[str]:
        """Every phrase found in ``text``, in order, repeats included."""
        return [phrase for _, phrase in self.matches(text)]


_KEYWORDS = Gazetteer((k for c in CATEGORIES for k in c.keywords), plurals=True)
_KEYWORD_CATEGORY = {k: c for c in reversed(CATEGORIES) for k in c.keywords}
_BRAND_CATEGORY = {b.lower(): c for c in CATEGORIES for b in c.brands}
# Brands match as written ("On" the shoe brand is a brand, "on" is not); brands that are no
# everyday word also match in any case ("oatly barista" is about Oatly) and as the hashtag
# the corpus writes for them ("#minorfigures").
_AS_WRITTEN_BRANDS = Gazetteer(PLAIN_WORD_BRANDS, case_sensitive=True)
_BRAND_TAGS = {re.sub(r"\W+", "", b.lower()): b for b in BRANDS}  # the hashtag of each brand
_ANY_CASE_BRANDS = Gazetteer(
    (b for b in BRANDS if b not in PLAIN_WORD_BRANDS),
    aliases={tag: b for tag, b in _BRAND_TAGS.items() if tag != b.lower()},
)
_HASHTAG = re.compile(r"#(\w+)")


def _brand_matches(tokens: Tokens) -> list[tuple[int, str]]:
    """``(offset, brand)`` of every brand named, left to right (one brand per offset)."""
    return sorted(
        dict(_ANY_CASE_BRANDS.matches(tokens) + _AS_WRITTEN_BRANDS.matches(tokens)).items()
    )


def brands_in(text: str | Tokens) -> list[str]:
    """The corpus brands ``text`` names, as listed in :data:`BRANDS`, in order, each once.

    Plain-word brands (:data:`PLAIN_WORD_BRANDS`) count only as written; every other brand
    in any case.

    Example:
        >>> brands_in("oatly or Alpro? I went on a run in my On shoes, then Oatly again")
        ['Oatly', 'Alpro', 'On']
    """
    tokens = text if isinstance(text, Tokens) else Tokens(text)
    return list(dict.fromkeys(brand for _, brand in _brand_matches(tokens)))


def brands_tagged(text: str) -> list[str]:
    """The corpus brands ``text`` tags (``#oatly``, ``#minorfigures``, ``#On``), in order, once.

    A hashtag names its brand in any case, plain-word brands included: ``#apple`` is a tag.

    Example:
        >>> brands_tagged("so good #oatly #fyp #MinorFigures #delta")
        ['Oatly', 'Minor Figures', 'Delta']
    """
    tags = (_BRAND_TAGS.get(tag.lower()) for tag in _HASHTAG.findall(text))
    return list(dict.fromkeys(brand for brand in tags if brand))


def category_of(text: str | Tokens) -> Category:
    """The category whose keywords and brands occur most in ``text`` (else ``Lifestyle``).

    Ties go to the category listed first in :data:`CATEGORIES`.

    Example:
        >>> category_of("Oatly vs Alpro in a flat white").name
        'Food & Drink'
    """
    return _top_category(_category_hits(text))


def _top_category(hits: Mapping[str, int]) -> Category:
    if not hits:
        return GENERIC
    top = max(hits.values())
    return next(c for c in CATEGORIES if hits.get(c.name) == top)


def _category_hits(text: str | Tokens) -> Counter[str]:
    """How many keywords and brands of each category ``text`` names (name -> hits)."""
    tokens = text if isinstance(text, Tokens) else Tokens(text)
    hits = Counter(_KEYWORD_CATEGORY[k].name for k in _KEYWORDS.find(tokens))
    brands = (b.lower() for _, b in _brand_matches(tokens))
    hits.update(_BRAND_CATEGORY[b].name for b in brands if b in _BRAND_CATEGORY)
    return hits


# --- people ----------------------------------------------------------------------------

_FEMALE_FIRST = _words(
    """Maya Sofia Aisha Chloe Priya Zoe Hannah Mei Amara Nora Isla Fatima Grace Yuki Elena Ava
    Julia Ines Clara Layla Lucia Nadia Sara Emma Rosa Lena Camila Freya Ivy Alice"""
)
_MALE_FIRST = _words(
    """Liam Noah Mateo Ethan Lucas Omar Diego Jonas Leo Kenji Samuel Oliver Rafael Daniel
    Marcus Tariq Felix Arjun Hugo Ben Theo Kai Finn Malik Adam Ravi Jack Andre Tomas"""
)
_FIRST = _FEMALE_FIRST + _MALE_FIRST
_LAST = _words(
    """Chen Patel Garcia Smith Okafor Rossi Kim Novak Silva Müller Haddad Johnson Tanaka
    Williams Kowalski Nguyen Brown Fernandez Ahmed Larsen Dubois Murphy Costa Schmidt Ito
    Taylor Reyes Cohen Walker Moreau Singh Lopez Anders Park Evans Mendes Hughes Khan
    Bianchi Wright OConnor Jensen Ward Alvarez Fischer Clarke Moore Santos Young"""
)
_HANDLE_WORDS = _words(
    """eats daily life studio lab notes journal diaries club hq official reviews talks
    takes corner kitchen fit style tech home loves vibes world"""
)
_REDDIT_ADJ = _words("Quiet Brave Sleepy Salty Curious Lucky Fuzzy Witty Rusty Mellow Bright Odd")
_REDDIT_NOUN = _words(
    "Otter Falcon Pancake Walrus Cactus Toaster Badger Comet Muffin Lynx Pickle Heron"
)
_JOBS = _lines(
    """Product Manager
    Growth Marketer
    Software Engineer
    Brand Strategist
    Founder
    Data Analyst
    Nutritionist
    Content Creator
    Head of Partnerships
    UX Designer
    Sales Director
    Consultant"""
)


@dataclass(frozen=True)
class Person:
    """A recurring author or commenter: platform handle and display name."""

    username: str
    display_name: str


@lru_cache(maxsize=65_536)
def person(seed: int, source: str, key: str) -> Person:
    """The person behind ``key`` on ``source`` (same key, same person).

    Example:
        >>> person(1, "tiktok", "oat:a3") == person(1, "tiktok", "oat:a3")
        True
    """
    rng = _rng(seed, "person", source, key)
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    name = f"{first} {last}"
    ascii_first = first.lower()
    ascii_last = last.lower().replace("ü", "u")
    style = rng.random()
    if source == "reddit":
        username = (
            f"{rng.choice(_REDDIT_ADJ)}_{rng.choice(_REDDIT_NOUN)}_{rng.randint(10, 9999)}"
            if style < 0.6
            else f"{ascii_first}{rng.choice(_HANDLE_WORDS)}{rng.randint(1, 99)}"
        )
    elif source == "linkedin":
        username = f"{ascii_first}-{ascii_last}-{_token((seed, key), _B36, 6)}"
    elif style < 0.35:
        username = f"{ascii_first}.{ascii_last}"
    elif style < 0.7:
        username = f"{ascii_first}{ascii_last}_{rng.randint(1, 99)}"
    else:
        username = f"{ascii_first}.{rng.choice(_HANDLE_WORDS)}"
    return Person(username, name)


_PROFILE_URL = {
    "reddit": "https://www.reddit.com/user/{}",
    "tiktok": "https://www.tiktok.com/@{}",
    "youtube": "https://www.youtube.com/@{}",
    "instagram": "https://www.instagram.com/{}",
    "linkedin": "https://www.linkedin.com/in/{}",
}
_URL_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("reddit", "community", re.compile(r"^/r/([\w-]+)")),
    ("reddit", "profile", re.compile(r"^/(?:user|u)/([\w-]+)")),
    ("tiktok", "profile", re.compile(r"^/@([\w.-]+)")),
    ("youtube", "profile", re.compile(r"^/(?:@|c/|channel/|user/)([\w.-]+)")),
    ("instagram", "profile", re.compile(r"^/([\w.]+)/?$")),
    ("linkedin", "profile", re.compile(r"^/(?:in|company)/([\w-]+)")),
)


def profile_url(source: str, username: str) -> str:
    """The public profile URL of ``username`` on ``source``.

    Example:
        >>> profile_url("tiktok", "maya.chen")
        'https://www.tiktok.com/@maya.chen'
    """
    return _PROFILE_URL[source].format(username)


def parse_profile_url(url: str) -> tuple[str, str, str] | None:
    """``(source, kind, name)`` for a profile or subreddit URL; ``None`` when unrecognised.

    ``kind`` is ``profile`` or ``community`` (a subreddit).

    Example:
        >>> parse_profile_url("https://www.tiktok.com/@maya.chen?lang=en")
        ('tiktok', 'profile', 'maya.chen')
        >>> parse_profile_url("https://reddit.com/r/Coffee/")
        ('reddit', 'community', 'Coffee')
    """
    parts = urlsplit(url.strip() if "://" in url else f"https://{url.strip()}")
    host = (parts.hostname or "").removeprefix("www.").removeprefix("m.")
    source = {"youtu.be": "youtube"}.get(host, host.split(".")[0])
    for rule_source, kind, pattern in _URL_RULES:
        match = pattern.match(parts.path) if rule_source == source else None
        if match:
            return source, kind, match.group(1)
    return None


_POST_URL_RULES = (
    ("reddit", re.compile(r"^(?:/r/[^/]+)?/comments/([A-Za-z0-9_]+)")),
    ("tiktok", re.compile(r"^(?:/@[^/]*)?/video/(\d+)")),
    ("tiktok", re.compile(r"^/v/(\d+)\.html$")),
    ("instagram", re.compile(r"^/(?:p|reel)/([A-Za-z0-9_-]+)")),
    ("linkedin", re.compile(r"^/feed/update/urn:li:activity:(\d+)")),
)


def parse_post_url(url: str) -> tuple[str, str] | None:
    """``(source, post id)`` for a link to one post (with or without its author's handle);
    ``None`` for anything else (a profile, a community, an unknown site).

    Example:
        >>> parse_post_url("https://m.tiktok.com/v/7312.html")
        ('tiktok', '7312')
        >>> parse_post_url("https://www.youtube.com/watch?v=abc_DEF-123")
        ('youtube', 'abc_DEF-123')
        >>> parse_post_url("https://www.tiktok.com/@maya") is None
        True
    """
    parts = urlsplit(url.strip() if "://" in url else f"https://{url.strip()}")
    host = (parts.hostname or "").removeprefix("www.").removeprefix("m.")
    source = {"youtu.be": "youtube"}.get(host, host.split(".")[0])
    if source == "youtube":
        if host == "youtu.be":
            return ("youtube", parts.path.strip("/")) if parts.path.strip("/") else None
        found = re.search(r"(?:^|&)v=([A-Za-z0-9_-]+)", parts.query)
        return ("youtube", found.group(1)) if parts.path == "/watch" and found else None
    for rule_source, pattern in _POST_URL_RULES:
        match = pattern.match(parts.path) if rule_source == source else None
        if match:
            return source, match.group(1)
    return None


def gender_of(display_name: str) -> str | None:
    """``female``/``male`` for a first name from the corpus's name pools, else ``None``.

    Example:
        >>> gender_of("Maya Chen"), gender_of("Oatly")
        ('female', None)
    """
    first = display_name.split(" ", 1)[0]
    if first in _FEMALE_FIRST:
        return "female"
    return "male" if first in _MALE_FIRST else None


def display_name_of(username: str) -> str:
    """A display name read from a handle: ``"maya.chen_92"`` -> ``"Maya Chen"``.

    Example:
        >>> display_name_of("the-oat-lab")
        'The Oat Lab'
    """
    words = [w for w in re.split(r"[._\-]+", username) if w and not w.isdigit()]
    return " ".join(w.capitalize() for w in words) or username


def avatar(source: str, username: str, display_name: str) -> dict[str, Any]:
    """A media object for a profile picture (two sizes).

    Example:
        >>> [v["width"] for v in avatar("tiktok", "maya", "Maya")["version_list"]]
        [100, 400]
    """
    return {
        "type": "image",
        "version_list": [
            {
                "url": f"{MEDIA_HOST}/avatars/{source}/{username}_{size}.jpg",
                "width": size,
                "height": size,
            }
            for size in (100, 400)
        ],
        "description": f"Profile picture of {display_name}",
    }


# --- the query -------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    """What a search is about, resolved once per run."""

    key: str
    phrases: tuple[str, ...]
    category: Category
    brand: str
    rivals: tuple[str, ...]
    is_brand: bool
    kind: str | None = None
    """The kind of public talk (:data:`.social.KINDS`) a social topic is; None for a product."""


_OPERATORS = re.compile(r"\b(?:AND|OR|NOT)\b|[\"'#()]")


def topic_of(text: str, fragments: Sequence[str] = ()) -> Topic:
    """Resolve a search text into the phrase posts use, its category, brand and rivals.

    A text naming a kind of public talk (:func:`.social.kind_of`) at least as often as a
    product category's words and brands is a social topic: its category is the kind's
    (actors for brands), its posts are written from the kind's templates.

    Example:
        >>> topic = topic_of("Oatly")
        >>> topic.is_brand, topic.category.name, "Alpro" in topic.rivals
        (True, 'Food & Drink', True)
        >>> social = topic_of("heat pump subsidy debate")
        >>> social.kind, social.brand
        ('Public policy', 'the government')
    """
    clean = " ".join(_OPERATORS.sub(" ", text).split()) or "this"
    phrase = clean if any(ch.isupper() for ch in clean) else clean.lower()
    extras = tuple(" ".join(f.split()) for f in fragments if f.strip())
    key = "|".join((phrase.lower(), *sorted(e.lower() for e in extras)))
    own = _BRAND_CATEGORY.get(clean.lower())
    if own is not None:
        brand = next(b for b in own.brands if b.lower() == clean.lower())
        rivals = tuple(b for b in own.brands if b != brand)
        return Topic(key, (brand, *extras), own, brand, rivals, True)
    words = " ".join((clean, *extras))
    products, debates = _category_hits(words), social.kind_hits(words)
    kind = social.strongest(debates)
    if kind is not None and debates[kind.name] >= max(products.values(), default=0):
        talk = _KIND_CATEGORY[kind.name]
        actor, *others = talk.brands
        return Topic(key, (phrase, *extras), talk, actor, tuple(others), False, kind.name)
    category = _top_category(products)
    # A capitalised query that names no product word reads as a brand ("Notion", "Acme").
    if clean[:1].isupper() and category is GENERIC:
        return Topic(key, (phrase, *extras), category, phrase, category.brands, True)
    # A query naming one of its category's brands ("alpro barista") is about that brand.
    named = [b for b in brands_in(clean) if b in category.brands]
    brand = named[0] if named else category.brands[0]
    rivals = tuple(b for b in category.brands if b != brand)
    return Topic(key, (phrase, *extras), category, brand, rivals, False)


# --- text templates --------------------------------------------------------------------
# Placeholders: {topic} {Topic} {brand} {Brand} {rival} {Rival} {aspect} {aspect2} {use} {n}
# {price} {time} {person}. Openers are written to carry a recognisable hook.

_OPEN = {
    "praise": _lines(
        """{Topic} is hands down the best thing I've bought this year.
        Okay I finally get the hype around {topic}.
        I was skeptical, but {topic} completely won me over.
        {n} months in and I'm still obsessed with {topic}.
        Can we talk about how good {topic} is?"""
    ),
    "complaint": _lines(
        """Unpopular opinion: {topic} is massively overrated.
        Stop buying {topic} until they fix the {aspect}.
        I'm so done with {topic}.
        Is it just me or has {topic} gotten worse lately?
        Warning: don't fall for the {topic} hype."""
    ),
    "question": _lines(
        """Has anyone actually tried {topic}?
        Is {topic} worth it or just marketing?
        What's your honest take on {topic}?
        Genuine question: why does everyone love {topic}?
        Which is better for {use}, {topic} or {rival}?"""
    ),
    "comparison": _lines(
        """{Topic} vs {rival}: I tested both for {n} weeks.
        I switched from {rival} to {topic} and here's what happened.
        Comparing {topic} and {rival} side by side so you don't have to.
        {Topic} or {rival}? The answer surprised me."""
    ),
    "howto": _lines(
        """How to get the most out of {topic} in {n} simple steps.
        Here's how I use {topic} for my {use}.
        Quick tutorial: making {topic} work for you.
        Step by step: my {topic} routine."""
    ),
    "story": _lines(
        """Last week I tried {topic} for the first time.
        So this happened when my {person} handed me {topic}.
        Story time: {time} I finally gave {topic} a chance.
        Three years ago I would never have touched {topic}."""
    ),
    "listicle": _lines(
        """{n} things nobody tells you about {topic}.
        Top {n} reasons I keep coming back to {topic}.
        {n} mistakes people make with {topic}.
        Here are {n} {topic} tips I wish I knew earlier."""
    ),
    "news": _lines(
        """{Brand} just announced changes to its {aspect}.
        New data on {topic} came out this week.
        {Brand} is expanding its {topic} line to more stores.
        Reports say {brand} is raising prices on {topic}."""
    ),
    "pro": _lines(
        """Excited to share what our team learned from {n} months of working on {topic}.
        The {topic} market is shifting faster than most brands realise.
        Here's a lesson about {topic} that changed how I think about customers.
        Our {topic} campaign results are in, and they surprised us."""
    ),
}

_BODY = {
    "praise": _lines(
        """The {aspect} is honestly amazing and the {aspect2} is better than I expected.
        It makes my {use} so much better, I love it.
        Worth every penny at {price}.
        My {person} tried it too and now we're both hooked.
        Great {aspect}, great {aspect2}, no complaints at all.
        I'd recommend it to anyone who cares about {aspect}."""
    ),
    "complaint": _lines(
        """The {aspect} is terrible and customer service ignored me for {n} days.
        Paid {price} and it broke, which is frankly ridiculous.
        The {aspect} used to be great but now it's awful.
        Really disappointed, the {aspect2} is a mess and nobody cares.
        I regret switching from {rival}, the {aspect} is so much worse.
        Honestly it's a waste of money at {price}."""
    ),
    "question": _lines(
        """I keep seeing it everywhere but the reviews are mixed.
        How does the {aspect} compare to {rival}?
        Is it worth paying {price} for it?
        Does anyone know if the {aspect} got fixed?
        I'm mostly worried about the {aspect}.
        Would love to hear from people who use it for {use}."""
    ),
    "comparison": _lines(
        """{Rival} wins on {aspect}, but {topic} is better on {aspect2}.
        Price-wise {rival} costs about {price} while {topic} is a bit cheaper.
        The {aspect} on {topic} is noticeably better than {rival}.
        Honestly {rival} felt more consistent, though {topic} has the nicer {aspect2}.
        If you care about {aspect}, go with {topic}; for {aspect2}, {rival} is fine."""
    ),
    "howto": _lines(
        """First, check the {aspect} before you start.
        Then combine it with your usual {use}.
        Keep an eye on the {aspect2}, it makes a huge difference.
        Finally, give it a week before you judge the results.
        Pro tip: it works best when you avoid the cheap {rival} version."""
    ),
    "story": _lines(
        """I honestly expected nothing, but the {aspect} caught me off guard.
        By the end of the week I had replaced my {rival} with it.
        My {person} laughed at me at first, now they ask me where to buy it.
        It wasn't perfect, the {aspect2} took some getting used to."""
    ),
    "listicle": _lines(
        """1. The {aspect} matters more than the brand.
        2. {Rival} is not always the cheaper option.
        3. The {aspect2} changes a lot between batches.
        4. You can get it for under {price} if you look around.
        5. It pairs well with {use}."""
    ),
    "news": _lines(
        """Analysts expect more competition from {rival} this year.
        The change affects customers in several markets.
        Prices now start at {price}.
        The company says the {aspect2} will improve over the next {n} months."""
    ),
    "pro": _lines(
        """Customers kept telling us the {aspect} mattered more than anything else.
        We tested {n} variations and the simplest one performed best.
        {Rival} has set a high bar, and that pushes the whole industry forward.
        The takeaway: listen to the people actually using {topic}.
        Grateful to the team who made this happen."""
    ),
}

_CTA = {
    "reddit": _lines(
        """Curious what you all think, comment below.
        Edit: thanks for all the replies!"""
    ),
    "tiktok": _lines(
        """Follow for more {topic} content!
        Comment your favourite below
        Save this for later
        Part 2 if this gets 1k likes"""
    ),
    "youtube": _lines(
        """Subscribe for more reviews like this.
        Full breakdown in the video, links in the description.
        Let me know in the comments what I should test next."""
    ),
    "instagram": _lines(
        """Link in bio for the full review.
        Save this post and share it with a friend who needs it.
        Tag someone who needs to see this!"""
    ),
    "linkedin": _lines(
        """What's your experience? Share your thoughts in the comments.
        Follow me for more insights on {topic}.
        We're hiring, check the link in the comments."""
    ),
}

_TITLE = {
    "praise": _lines(
        """{Topic} is genuinely great
        Finally found a {topic} I love
        {Topic} exceeded my expectations"""
    ),
    "complaint": _lines(
        """{Topic} has gone downhill
        Very disappointed with {topic}
        Avoid {topic} until they fix the {aspect}"""
    ),
    "question": _lines(
        """Is {topic} worth it?
        {Topic} or {rival}?
        Anyone else having issues with {topic}?"""
    ),
    "comparison": _lines(
        """{Topic} vs {rival}: honest comparison
        I tested {topic} and {rival} for {n} weeks"""
    ),
    "howto": _lines(
        """How to use {topic} properly
        {Topic} guide for beginners"""
    ),
    "story": _lines(
        """My first month with {topic}
        I tried {topic} so you don't have to"""
    ),
    "listicle": _lines(
        """{n} things to know about {topic}
        Top {n} {topic} tips"""
    ),
    "news": _lines(
        """{Brand} announces changes to its {aspect}
        What the latest {topic} news means for you"""
    ),
    "pro": _lines(
        """What {n} months of {topic} taught us
        Lessons from our {topic} launch"""
    ),
}

_AD_COPY = _lines(
    """Meet the new {brand} {topic}: better {aspect}, same price.
    Tired of compromising on {aspect}? {Brand} fixed it.
    {Brand} {topic} is now available nationwide, starting at {price}.
    Limited time: save {n}0% on {brand} with code SAVE{n}0.
    Why thousands are switching from {rival} to {brand}."""
)
_AD_CTA = (
    ("Shop now", "SHOP_NOW"),
    ("Learn more", "LEARN_MORE"),
    ("Sign up", "SIGN_UP"),
    ("Get offer", "GET_OFFER"),
    ("Download", "DOWNLOAD"),
)

LOCAL_TEMPLATES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "es": {
        "positive": _lines(
            """Me encanta {topic}, la calidad es increíble.
            Llevo {n} meses con {topic} y estoy muy contento, lo recomiendo.
            {Topic} es lo mejor que he probado este año. ¡Genial!
            Por fin probé {topic} y me gustó muchísimo."""
        ),
        "negative": _lines(
            """Sinceramente {topic} me decepcionó, el precio es demasiado alto.
            No recomiendo {topic}, la calidad es pésima.
            {Topic} es un desastre, me arrepiento de haberlo comprado.
            Pagué {price} por {topic} y es malísimo.
            Qué decepción con {topic}, es peor que {rival}."""
        ),
        "neutral": _lines(
            """¿Alguien ha probado {topic}? ¿Vale la pena?
            Comparé {topic} con {rival} y me quedo con {topic}.
            ¿Dónde se compra {topic} por menos de {price}?
            Hoy probé {topic} por primera vez, ya os contaré."""
        ),
    },
    "fr": {
        "positive": _lines(
            """J'adore {topic}, la qualité est incroyable.
            {n} mois avec {topic} et je suis ravie, je recommande.
            {Topic} est vraiment excellent, bien meilleur que {rival}.
            Franchement {topic} est top, zéro regret !"""
        ),
        "negative": _lines(
            """Franchement {topic} m'a déçu, c'est beaucoup trop cher.
            Je ne recommande pas {topic}, la qualité est nulle.
            {Topic}, quelle arnaque. J'ai payé {price} pour rien.
            Très mauvaise expérience avec {topic}, je regrette d'avoir quitté {rival}."""
        ),
        "neutral": _lines(
            """Quelqu'un a déjà testé {topic} ? Ça vaut le coup ?
            {Topic} ou {rival} ? Je préfère {topic}.
            Où est-ce qu'on trouve {topic} à {price} ?
            J'ai acheté {topic} hier, je vous dis ce que j'en pense."""
        ),
    },
    "de": {
        "positive": _lines(
            """Ich liebe {topic}, die Qualität ist super.
            Seit {n} Monaten nutze ich {topic} und bin echt zufrieden.
            {Topic} ist wirklich toll, klare Empfehlung.
            Endlich {topic} probiert und ich bin begeistert!"""
        ),
        "negative": _lines(
            """Ehrlich gesagt hat mich {topic} enttäuscht, viel zu teuer.
            {Topic} ist leider schlecht, ich empfehle es nicht.
            Für {price} ist {topic} eine Frechheit, reine Abzocke.
            Total enttäuscht von {topic}, die Qualität ist mangelhaft."""
        ),
        "neutral": _lines(
            """Hat jemand {topic} schon ausprobiert? Lohnt sich das?
            {Topic} oder {rival}? Ich bleibe bei {topic}.
            Wo bekommt man {topic} für {price}?
            Heute zum ersten Mal {topic} gekauft, mal sehen."""
        ),
    },
    "pt": {
        "positive": _lines(
            """Amei {topic}, a qualidade é incrível.
            Uso {topic} há {n} meses e recomendo demais.
            {Topic} é ótimo, muito melhor que {rival}.
            Experimentei {topic} e adorei, sensacional!"""
        ),
        "negative": _lines(
            """Sinceramente {topic} me decepcionou, muito caro.
            Não recomendo {topic}, a qualidade é péssima.
            {Topic} é horrível, me arrependi de comprar.
            Paguei {price} em {topic} e quebrou em {n} dias. Que decepção."""
        ),
        "neutral": _lines(
            """Alguém já testou {topic}? Vale a pena?
            {Topic} ou {rival}? Fico com {topic}.
            Onde encontro {topic} por {price}?
            Comprei {topic} ontem, depois conto o que achei."""
        ),
    },
}
"""Non-English posts: short lines per language and mood (``positive``, ``negative``,
``neutral``); a post's voice picks the mood (:data:`LOCAL_MOOD`). Enrichment scores them with
the language's lexicon (:mod:`rdskit.sandbox.synth.lexicons`)."""

LOCAL_MOOD = {"praise": "positive", "story": "positive", "complaint": "negative"}
"""The mood of a non-English post by its voice (any other voice: ``neutral``)."""

_COMMENTS = {
    "positive": _lines(
        """Totally agree, {topic} is the best.
        Same experience here, the {aspect} is great.
        Been using it for {n} months, no regrets.
        Thanks for sharing, super helpful!
        Great breakdown, saving this.
        Underrated post."""
    ),
    "negative": _lines(
        """I had the opposite experience, the {aspect} was awful.
        Customer service never answered me either.
        Honestly overpriced.
        Nah, {rival} is way better imo.
        Same here, the {aspect} went downhill."""
    ),
    "neutral": _lines(
        """Where did you buy it?
        How much did you pay?
        Does it work for {use} too?
        This is so true 😂
        Lol my {person} says the same thing"""
    ),
}
# Which comments a post draws, by its voice: complaints attract agreeing complaints.
_COMMENT_MOOD = {"praise": (6, 1, 3), "complaint": (1, 6, 3), "ad": (2, 3, 5)}

_HASHTAGS = (
    "fyp",
    "review",
    "honestreview",
    "musthave",
    "tiktokmademebuyit",
    "haul",
    "dailyroutine",
)
_SCENES = _lines(
    """Someone trying {topic} on camera
    Close-up of {topic} packaging
    Person holding {topic} and smiling at the camera
    Side-by-side shot of {topic} and a competitor
    Screenshot of a review of {topic}"""
)


@dataclass(frozen=True)
class _Templates:
    """Everything a topic's posts are written from: products' or a kind of public talk's."""

    open: Mapping[str, tuple[str, ...]]
    body: Mapping[str, tuple[str, ...]]
    title: Mapping[str, tuple[str, ...]]
    cta: Mapping[str, tuple[str, ...]]
    comments: Mapping[str, tuple[str, ...]]
    local: Mapping[str, Mapping[str, tuple[str, ...]]]
    ad_copy: tuple[str, ...]
    scenes: tuple[str, ...]
    hashtags: tuple[str, ...]


_PRODUCT = _Templates(
    _OPEN, _BODY, _TITLE, _CTA, _COMMENTS, LOCAL_TEMPLATES, _AD_COPY, _SCENES, _HASHTAGS
)
_SOCIAL = {
    kind.name: _Templates(
        kind.open,
        {**social.BODY, **kind.body},
        social.TITLE,
        social.CTA,
        {mood: kind.comments[mood] + lines for mood, lines in social.COMMENTS.items()},
        social.LOCAL_TEMPLATES,
        kind.ad_copy,
        kind.scenes,
        kind.hashtags,
    )
    for kind in social.KINDS
}


def _templates(topic: Topic) -> _Templates:
    return _PRODUCT if topic.kind is None else _SOCIAL[topic.kind]


def openings() -> Iterator[tuple[str, str, str]]:
    """``(template, voice, kind)`` of every line a generated post can open with: each
    voice's openers (``kind`` the kind of public talk, ``""`` for products) and each
    non-English line (voice ``local:<mood>``, matched as the whole text). :mod:`.truth`
    reads a post's voice back from them.

    Example:
        >>> ("I'm so done with {topic}.", "complaint", "") in set(openings())
        True
    """
    for kind, templates in (("", _PRODUCT), *_SOCIAL.items()):
        for voice, lines in templates.open.items():
            yield from ((line, voice, kind) for line in lines)
    for kind, local in (("", LOCAL_TEMPLATES), ("social", social.LOCAL_TEMPLATES)):
        for moods in local.values():
            for mood, lines in moods.items():
                yield from ((line, f"local:{mood}", kind) for line in lines)


_TIMES = ("last week", "this morning", "yesterday", "a few months ago", "over the weekend")
_PEOPLE = ("sister", "roommate", "partner", "mom", "best friend", "coworker", "dad")
_VOICES = ("praise", "complaint", "question", "comparison", "howto", "story", "listicle", "news")
_VOICE_WEIGHTS = {
    "reddit": (16, 20, 24, 16, 6, 10, 3, 5),
    "tiktok": (26, 16, 8, 14, 12, 12, 10, 2),
    "youtube": (18, 12, 8, 24, 18, 8, 10, 2),
    "instagram": (32, 10, 8, 12, 14, 14, 8, 2),
    "linkedin": (10, 6, 6, 8, 6, 10, 8, 12),
}
# (views log-median, spread); reddit exposes no views, they are estimated from votes.
_VIEWS = {
    "reddit": (7.5, 1.6),
    "tiktok": (9.0, 1.8),
    "youtube": (8.5, 1.9),
    "instagram": (8.0, 1.6),
    "linkedin": (7.0, 1.3),
}
_LIKE_RATE = {
    "reddit": 0.02,
    "tiktok": 0.07,
    "youtube": 0.035,
    "instagram": 0.05,
    "linkedin": 0.025,
}
_COUNTRIES = (
    ("US", 50),
    ("GB", 15),
    ("CA", 8),
    ("AU", 7),
    ("IN", 6),
    ("IE", 3),
    ("NZ", 2),
    ("SG", 2),
)
_FOREIGN = (("es", "ES"), ("es", "MX"), ("de", "DE"), ("fr", "FR"), ("pt", "BR"))
COUNTRY_LANGUAGE = {
    "ES": "es",
    "MX": "es",
    "AR": "es",
    "CO": "es",
    "DE": "de",
    "AT": "de",
    "FR": "fr",
    "BE": "fr",
    "BR": "pt",
    "PT": "pt",
    "IT": "it",
    "NL": "nl",
    "JP": "ja",
}
"""The main language of a country (ISO 3166 alpha-2 -> ISO 639-1); English elsewhere."""
_SOUNDS = ("original sound", "Espresso (sped up)", "lofi morning", "Golden Hour", "trending audio")
_GENRES = ("pop", "lofi", "hip hop", "electronic", "indie", "acoustic")


def _weighted(rng: random.Random, pairs: Sequence[tuple[Any, float]]) -> Any:
    return rng.choices([p[0] for p in pairs], [p[1] for p in pairs])[0]


def _distinct(rng: random.Random, pool: Sequence[str], k: int) -> list[str]:
    """``k`` distinct items in pool order (``random.sample`` is slow on tuples)."""
    start = rng.randrange(len(pool))
    step = 1 + rng.randrange(len(pool) - 1) if len(pool) > 1 else 1
    if math.gcd(step, len(pool)) != 1:
        step = 1
    return [pool[(start + i * step) % len(pool)] for i in range(k)]


def _fill(template: str, words: Mapping[str, str]) -> str:
    return template.format_map(words)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _slug(name: str) -> str:
    """A brand's handle and domain label: ``"Kestrel & Co"`` -> ``"kestrelco"``."""
    return re.sub(r"[^a-z0-9]+", "", name.lower()) or "brand"


# --- allocation ------------------------------------------------------------------------


def _shares(total: int, weights: Sequence[float]) -> list[int]:
    """Split ``total`` in proportion to ``weights`` (largest remainder, ties by position)."""
    mass = sum(weights)
    if total <= 0 or mass <= 0:
        return [0] * len(weights)
    exact = [total * w / mass for w in weights]
    counts = [math.floor(x) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: (counts[i] - exact[i], i))
    for i in by_remainder[: total - sum(counts)]:
        counts[i] += 1
    return counts


MIX_SPREAD = 0.4
"""How far a query's share on a source strays from its category's (log-normal sigma)."""


def source_mix(seed: int, topic: Topic) -> dict[str, float]:
    """Each source's share of the posts about ``topic`` (the five sum to 1).

    The category's platform skew (:attr:`Category.platforms`: beauty lives on tiktok and
    instagram, finance on reddit and linkedin) times a log-normal factor per ``(seed, query,
    source)``: share of voice is a finding that changes with the query and the seed, not a
    fixed quota. A collection splits its ``count`` over its sources in these proportions and
    a research preview's estimate uses them too.

    Example:
        >>> mix = source_mix(7, topic_of("retinol serum"))
        >>> round(sum(mix.values()), 6), mix["instagram"] > mix["linkedin"]
        (1.0, True)
    """
    weights = {
        source: weight * math.exp(MIX_SPREAD * _rng(seed, "mix", topic.key, source).gauss(0, 1))
        for source, weight in topic.category.platforms
    }
    total = sum(weights.values())
    return {source: weights[source] / total for source in SOURCES}


def daily_volume(seed: int, topic: Topic) -> float:
    """Posts a day the five sources hold about ``topic``: the population, not a sample.

    A log-normal draw per ``(seed, query)`` around a median that halves, roughly, with each
    extra word of the query (a narrower query finds fewer posts). Research previews
    estimate a window's results as ``daily_volume x source_mix x days``.

    Example:
        >>> broad, narrow = topic_of("oat milk"), topic_of("oat milk barista foam")
        >>> daily_volume(7, broad) > daily_volume(7, narrow)
        True
    """
    words = min(len(topic.phrases[0].split()), 6)
    median = 600 * 0.45 ** (words - 1)
    return median * math.exp(0.7 * _rng(seed, "volume", topic.key).gauss(0, 1))


def _day_weight(seed: int, key: str, source: str, day: int) -> float:
    """How busy a day is: weekly rhythm, a slow wave and rare spikes (viral moments)."""
    rng = _rng(seed, "day", key, source, day)
    weekly = 1.0 + 0.25 * math.sin(2 * math.pi * (day % 7) / 7)
    phase = _digest(seed, "phase", key, source)[0] / 40.0
    wave = 1.0 + 0.4 * math.sin(2 * math.pi * day / 97 + phase)
    spike = rng.uniform(3.0, 8.0) if rng.random() < 0.03 else 1.0
    return weekly * wave * spike * rng.uniform(0.7, 1.3)


@dataclass(frozen=True)
class _Slot:
    """One post position on a timeline: ``(day, index within the day)`` and its time."""

    day: int
    index: int
    at: int


def _prompt_slots(
    seed: int, key: str, source: str, n: int, start: float, end: float, ordinal: int
) -> Iterator[_Slot]:
    first, last = int(start // DAY), int(end // DAY)
    days = range(first, last + 1)
    quotas = _shares(n, [_day_weight(seed, key, source, d) for d in days])
    for day, quota in zip(days, quotas, strict=True):
        if not quota:
            continue
        # Randomised rounding keeps the expected overlap at 1 - NEW_FRACTION even for 1-post days.
        skip = math.floor((ordinal - 1) * NEW_FRACTION * quota + _unit(seed, key, source, day))
        lo, hi = max(start, day * DAY), min(end, (day + 1) * DAY - 1)
        for index in range(skip, skip + quota):
            frac = _unit(seed, "time", key, source, day, index)
            yield _Slot(day, index, int(lo + frac * (hi - lo)))


def _profile_slots(
    seed: int, source: str, username: str, n: int, anchor: float, ordinal: int
) -> Iterator[_Slot]:
    """A profile's posts, newest first, at a per-profile cadence back from ``anchor``."""
    mean_gap = DAY * days_between_posts(seed, source, username)
    skip = math.floor((ordinal - 1) * NEW_FRACTION * n)
    at = float(anchor)
    for index in range(skip + n):
        at += mean_gap * math.log(1.0 - _unit(seed, "gap", source, username, index))
        if index >= skip:
            yield _Slot(int(at // DAY), index, int(at))


# --- posts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Request:
    """What one run asked for; ``end`` is the end of its window (ads running then are
    active), ``now`` the collection time (no comment is written after it)."""

    seed: int
    topic: Topic
    ordinal: int
    comments: int
    language: str | None
    country: str | None
    ads_only: bool
    end: float
    now: float


def _post_id(source: str, parts: tuple[object, ...]) -> str:
    if source == "reddit":
        return _token(parts, _B36, 7)
    if source == "youtube":
        return _token(parts, _B64, 11)
    if source == "instagram":
        return _token(parts, _B64, 11)
    prefix = "73" if source == "tiktok" else "71"
    return prefix + _token(parts, _DIGITS, 17)


def _post_url(source: str, post_id: str, author: str, community: str, title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:50] or "post"
    return {
        "reddit": f"https://www.reddit.com/r/{community}/comments/{post_id}/{slug}/",
        "tiktok": f"https://www.tiktok.com/@{author}/video/{post_id}",
        "youtube": f"https://www.youtube.com/watch?v={post_id}",
        "instagram": f"https://www.instagram.com/p/{post_id}/",
        "linkedin": f"https://www.linkedin.com/feed/update/urn:li:activity:{post_id}/",
    }[source]


def _locale(rng: random.Random, req: _Request) -> tuple[str, str]:
    """(language, country): the requested ones, else mostly English-speaking countries."""
    if req.country:
        language = req.language or (
            COUNTRY_LANGUAGE.get(req.country, "en") if rng.random() < 0.7 else "en"
        )
        return language, req.country
    if req.language:
        by_language = [c for lang, c in _FOREIGN if lang == req.language]
        return req.language, rng.choice(by_language) if by_language else _weighted(rng, _COUNTRIES)
    if rng.random() < NON_ENGLISH_SHARE:
        return rng.choice(_FOREIGN)
    return "en", _weighted(rng, _COUNTRIES)


def _media(
    rng: random.Random,
    source: str,
    post_id: str,
    topic: str,
    ad: bool,
    scenes: Sequence[str] = _SCENES,
) -> list[dict[str, Any]]:
    """Media of a post; videos first on video platforms, optional images elsewhere."""
    video = source in ("tiktok", "youtube") or (source == "instagram" and rng.random() < 0.45)
    if video:
        kinds = ["video"]
    elif source == "instagram":
        kinds = ["image"] * (1 if rng.random() < 0.6 else rng.randint(2, 6))
    elif rng.random() < (0.7 if ad else 0.3):
        kinds = ["image"]
    else:
        return []
    width, height = (1080, 1920) if source in ("tiktok", "instagram") else (1280, 720)
    media = []
    for k, kind in enumerate(kinds):
        ext = "mp4" if kind == "video" else "jpg"
        base = f"{MEDIA_HOST}/{source}/{post_id}/{k}"
        media.append(
            {
                "type": kind,
                "version_list": [
                    {"url": f"{base}_{width}x{height}.{ext}", "width": width, "height": height},
                    {
                        "url": f"{base}_{width // 2}x{height // 2}.{ext}",
                        "width": width // 2,
                        "height": height // 2,
                    },
                ],
                "description": rng.choice(scenes).format(topic=topic),
            }
        )
    return media


def _metrics(
    rng: random.Random, source: str, voice: str, popularity: float, ad: bool, ordinal: int
) -> dict[str, Any]:
    """Heavy-tailed counts (lognormal views, rates varying per post); re-fetches have grown."""
    median, spread = _VIEWS[source]
    growth = 1.0 + 0.3 * (1 - 0.6 ** (ordinal - 1))
    views = int(math.exp(rng.gauss(median, spread)) * popularity * (3.0 if ad else 1.0) * growth)
    likes = int(views * _LIKE_RATE[source] * rng.lognormvariate(0, 0.5))
    comment_rate = {"complaint": 0.12, "question": 0.2, "comparison": 0.1}.get(voice, 0.05)
    comments = int(likes * comment_rate * rng.lognormvariate(0, 0.6))
    shares = int(
        likes * (0.15 if voice in ("howto", "listicle") else 0.05) * rng.lognormvariate(0, 0.7)
    )
    views = max(views, likes + comments + shares, 1)
    return {
        "num_views": views,
        "num_likes": likes,
        "num_comments": comments,
        "num_shares": shares,
        "are_views_estimated": source == "reddit",
        "engagement_rate": f"{(likes + comments + shares) / views:.4f}",
    }


def _comments(
    rng: random.Random,
    req: _Request,
    source: str,
    post_id: str,
    at: int,
    n: int,
    words: Mapping[str, str],
    voice: str,
    lines: Mapping[str, tuple[str, ...]] = _COMMENTS,
) -> list[dict[str, Any]]:
    """``n`` comments (from ``lines``, per mood); their mood follows the post's voice."""
    weights = _COMMENT_MOOD.get(voice, (3, 2, 4))
    out = []
    for k in range(n):
        # Commenters recur within a query; some are the query's authors replying to each other.
        pool, size, skew = (
            ("a", AUTHOR_POOL, 2.2) if rng.random() < 0.1 else ("c", COMMENTER_POOL, 1.6)
        )
        who = person(req.seed, source, f"{req.topic.key}:{pool}{int(size * rng.random() ** skew)}")
        mood = rng.choices(("positive", "negative", "neutral"), weights)[0]
        # Minutes to hours after the post, but never after the collection (a post dated
        # within the collection day, after the clock, keeps its comments at its own time).
        posted = min(at + int(rng.expovariate(1 / 7200)) + 60, max(at, int(req.now)))
        out.append(
            {
                "id": f"{post_id}_c{k}",
                "author_username": who.username,
                "author_name": who.display_name,
                "body": _fill(rng.choice(lines[mood]), words),
                "num_likes": int(rng.paretovariate(1.3)) - 1,
                "num_replies": int(rng.paretovariate(2.0)) - 1,
                "created_at": datetime.fromtimestamp(posted, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
    return out


def _ad_meta(
    rng: random.Random,
    req: _Request,
    source: str,
    slot_at: int,
    words: Mapping[str, str],
    media: list[dict[str, Any]],
) -> tuple[dict[str, Any], int]:
    """The ad's ``ad_meta`` and its flight length in seconds."""
    brand = words["brand"]
    slug = _slug(brand)
    cta_text, cta_type = rng.choice(_AD_CTA)
    planned = int(rng.uniform(3, 90) * DAY)
    active = slot_at + planned > req.end
    # Running at collection time: flown so far (at least a second; a url search's last post
    # may be dated within the collection day, after the clock).
    flight = max(int(req.end) - slot_at, 1) if active else planned
    kind = media[0]["type"] if media else "image"
    platforms = {
        "instagram": ["facebook", "instagram"],
        "tiktok": ["tiktok"],
        "youtube": ["youtube"],
        "linkedin": ["linkedin"],
        "reddit": ["reddit"],
    }[source]
    return {
        "advertiser_id": _token((req.seed, "adv", brand), _DIGITS, 15),
        "advertiser_name": brand,
        "landing_url": f"https://www.{slug}.com/?utm_source={source}&utm_medium=paid",
        "display_format": "carousel" if len(media) > 1 else kind,
        "collation_id": _token((req.seed, "col", brand, rng.randint(0, 20)), _DIGITS, 15),
        "is_active": active,
        "ended_at": None if active else slot_at + flight,
        "publisher_platforms": platforms,
        "cta_text": cta_text,
        "cta_type": cta_type,
        "eu_reach": int(rng.lognormvariate(9, 1.5)),
        "advertiser_avatar_url": f"{MEDIA_HOST}/advertisers/{slug}.jpg",
        "duration_sec": rng.randint(6, 60) if kind == "video" else None,
        "creative_group_key": f"{slug}-{_token((req.seed, brand, rng.randint(0, 9)), _B36, 6)}",
        "product_category": req.topic.category.name,
        "creative_format": rng.choice(("ugc_video", "motion_graphic", "talking_head"))
        if kind == "video"
        else rng.choice(("static_image", "product_shot", "carousel")),
        "advertiser_page_alias": slug,
        "advertiser_likes": int(rng.lognormvariate(11, 1.2)),
        "advertiser_category": req.topic.category.name,
        "advertiser_verified": rng.random() < 0.8,
        "advertiser_ig_username": slug,
        "advertiser_ig_followers": int(rng.lognormvariate(11.5, 1.3)),
        "advertiser_ig_verified": rng.random() < 0.7,
    }, flight


def _text(
    rng: random.Random,
    source: str,
    voice: str,
    language: str,
    words: Mapping[str, str],
    templates: _Templates = _PRODUCT,
) -> tuple[str, str]:
    """(title, text) in the post's voice; non-English posts use a short localised line."""
    if language in templates.local:
        mood = LOCAL_MOOD.get(voice, "neutral")
        text = _fill(rng.choice(templates.local[language][mood]), words)
        return (text.split(".")[0] if source in ("reddit", "youtube") else ""), text
    kind = "pro" if source == "linkedin" and rng.random() < 0.6 else voice
    body = templates.body[kind]
    sentences = [_fill(rng.choice(templates.open[kind]), words)]
    if kind == "listicle":
        sentences += [_fill(line, words) for line in body[: int(words["n"])]]
    else:
        sentences += [
            _fill(s, words) for s in _distinct(rng, body, rng.randint(1, min(4, len(body))))
        ]
    if rng.random() < 0.45:
        sentences.append(_fill(rng.choice(templates.cta[source]), words))
    text = (" " if source != "linkedin" else "\n\n").join(sentences)
    if source in ("tiktok", "instagram"):
        tags = {re.sub(r"\W+", "", words["topic"].lower()), *_distinct(rng, templates.hashtags, 2)}
        text += "\n" + " ".join(f"#{t}" for t in sorted(tags) if t)
    title = (
        _fill(rng.choice(templates.title[kind]), words) if source in ("reddit", "youtube") else ""
    )
    return title, text


def _vocabulary(rng: random.Random, topic: Topic) -> dict[str, str]:
    """The template words of one post: which phrase, rival, aspects, numbers it uses."""
    phrase = (
        topic.phrases[0]
        if len(topic.phrases) == 1 or rng.random() < 0.8
        else rng.choice(topic.phrases[1:])
    )
    aspect, aspect2 = _distinct(rng, topic.category.aspects, 2)
    rival = rng.choice(topic.rivals)
    return {
        "topic": phrase,
        "Topic": _capital(phrase),
        "brand": topic.brand,
        "Brand": _capital(topic.brand),
        "rival": rival,
        "Rival": _capital(rival),
        "aspect": aspect,
        "aspect2": aspect2,
        "use": rng.choice(topic.category.uses),
        "n": str(rng.randint(3, 5) if rng.random() < 0.7 else rng.randint(2, 9)),
        "price": rng.choice(topic.category.prices),
        "time": rng.choice(_TIMES),
        "person": rng.choice(_PEOPLE),
    }


@lru_cache(maxsize=65_536)
def popularity(seed: int, source: str, username: str) -> float:
    """A person's reach multiplier (lognormal, median 1): a few draw far more views.

    Audience profiles derive follower counts from it, so big authors have big audiences.

    Example:
        >>> popularity(1, "tiktok", "maya") == popularity(1, "tiktok", "maya") > 0
        True
    """
    return math.exp(0.8 * _rng(seed, "popularity", source, username).gauss(0, 1))


def days_between_posts(seed: int, source: str, username: str) -> float:
    """A person's mean gap between posts in days (0.3..4); profiles report it as cadence.

    Example:
        >>> 0.3 <= days_between_posts(1, "tiktok", "maya") <= 4.0
        True
    """
    return _rng(seed, "cadence", source, username).uniform(0.3, 4.0)


def _post_rng(req: _Request, source: str, slot: _Slot, timeline: str) -> random.Random:
    return _rng("post", req.seed, timeline, source, slot.day, slot.index)


def _post(
    req: _Request,
    source: str,
    slot: _Slot,
    timeline: str,
    author: Person,
    ad: bool,
    rng: random.Random,
) -> dict[str, Any]:
    """One post of ``timeline`` (a query key or a profile) at ``slot``; ``rng`` is its stream."""
    post_id = _post_id(source, (req.seed, timeline, source, slot.day, slot.index))
    words = _vocabulary(rng, req.topic)
    templates = _templates(req.topic)
    voice = "ad" if ad else rng.choices(_VOICES, _VOICE_WEIGHTS[source])[0]
    language, country = _locale(rng, req)
    community = rng.choice(req.topic.category.communities)
    media = _media(rng, source, post_id, words["topic"], ad, templates.scenes)
    reach = popularity(req.seed, source, author.username)
    metrics = _metrics(rng, source, voice, reach, ad, req.ordinal)
    extra: dict[str, Any] = {}
    if ad:
        meta, flight = _ad_meta(rng, req, source, slot.at, words, media)
        extra = {"ad_meta": meta, "ad_flight_days": flight // DAY, "ad_flight_seconds": flight}
        copy = _fill(rng.choice(templates.ad_copy), words)
        title = copy if source in ("reddit", "youtube") else ""
        again = _fill(rng.choice(templates.ad_copy), words)
        text = f"{again} {meta['cta_text']}: {meta['landing_url']}"
    else:
        title, text = _text(rng, source, voice, language, words, templates)
    handle_url = profile_url(source, author.username)
    n_comments = min(req.comments, metrics["num_comments"])
    return {
        "source": source,
        "id": post_id,
        "content_type": "ad" if ad else "organic",
        **extra,
        "author": {
            "avatar": avatar(source, author.username, author.display_name),
            "title": author.display_name,
            "title_url": handle_url,
            "headline": _headline(rng, source, author, community),
            "headline_url": f"https://www.reddit.com/r/{community}/"
            if source == "reddit"
            else handle_url,
        },
        "title": title,
        "text": text,
        "url": _post_url(source, post_id, author.username, community, title or text),
        "language": language,
        "country_code": country,
        "media": media,
        **_sound(rng, req.seed, source, media, words["topic"], author),
        **metrics,
        "created_at": slot.at,
        "comments": _comments(
            rng, req, source, post_id, slot.at, n_comments, words, voice, templates.comments
        ),
    }


def _sound(
    rng: random.Random,
    seed: int,
    source: str,
    media: list[dict[str, Any]],
    phrase: str,
    author: Person,
) -> dict[str, Any]:
    """``sound`` (only instagram reels carry one) and the reel's ``music_genre``."""
    if source != "instagram" or not any(m["type"] == "video" for m in media):
        return {"sound": None}
    # A handful of sounds per topic, so reels share trending audio.
    sound_id = _token((seed, "sound", phrase, rng.randint(0, 12)), _DIGITS, 16)
    return {
        "sound": {
            "name": rng.choice(_SOUNDS),
            "author": author.display_name if rng.random() < 0.4 else None,
            "cover_image_url": f"{MEDIA_HOST}/sounds/{sound_id}.jpg",
            "url": f"https://www.instagram.com/reels/audio/{sound_id}/",
        },
        "music_genre": rng.choice(_GENRES),
    }


def _headline(rng: random.Random, source: str, author: Person, community: str) -> str:
    if source == "reddit":
        return f"r/{community}"
    if source == "linkedin":
        return f"{rng.choice(_JOBS)} at {rng.choice(GENERIC.brands)}"
    return f"@{author.username}"


# --- entry point -----------------------------------------------------------------------


def collect(
    seed: int,
    search_query: Mapping[str, Any],
    count: int,
    date_from: datetime | None = None,
    date_to: datetime | None = None,
    num_comments_per_post: int = 0,
    language: str | None = None,
    country_code: str | None = None,
    run_ordinal: int = 1,
    *,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """The posts a dataset run collects, newest first, as Mention wire dicts.

    ``search_query`` is the run's wire dict: ``{type: prompt, sources, search_query,
    fragments?, content_type?}`` or ``{type: url, source_urls}``. ``date_from``/``date_to``
    bound ``created_at`` (a prompt search without them covers the 365 days before
    ``date_to`` or ``now``). ``content_type: ad`` returns only ads; organic searches include
    a few sponsored posts. ``language``/``country_code`` pin every post's locale. ``now``
    is the collection time in Unix seconds: the sandbox passes its clock's; without it, the
    real clock's (:func:`rdskit.sandbox.runtime.clock.wall_time`).

    Example:
        >>> url = {"type": "url", "source_urls": ["https://www.tiktok.com/@maya"]}
        >>> posts = collect(1, url, 3, now=datetime(2026, 11, 20, tzinfo=UTC).timestamp())
        >>> {p["author"]["title_url"] for p in posts}
        {'https://www.tiktok.com/@maya'}
        >>> max(p["created_at"] for p in posts) <= datetime(2026, 11, 21, tzinfo=UTC).timestamp()
        True
    """
    if count <= 0:
        return []
    now = clock.wall_time() if now is None else now
    end = min(date_to.timestamp() if date_to else now, now)  # nothing after the collection
    text = str(search_query.get("search_query") or "")
    base = _Request(
        seed,
        topic_of(text, search_query.get("fragments") or ()),
        run_ordinal,
        num_comments_per_post,
        language.lower() if language else None,
        country_code.upper() if country_code else None,
        search_query.get("content_type") == "ad",
        end,
        now,
    )
    with _gc_paused():
        if search_query.get("type") == "url":
            posts = _collect_urls(base, list(search_query.get("source_urls") or []), count)
        else:
            start = date_from.timestamp() if date_from else end - URL_WINDOW_DAYS * DAY
            start = max(start, end - HISTORY_DAYS * DAY)  # what the corpus holds
            if start > end:
                return []
            sources = [s for s in SOURCES if s in (search_query.get("sources") or SOURCES)]
            mix = source_mix(seed, base.topic)
            shares = _shares(count, [mix[s] for s in sources])
            posts = []
            for source, n in zip(sources, shares, strict=True):
                slots = _prompt_slots(seed, base.topic.key, source, n, start, end, run_ordinal)
                posts += _timeline(base, source, slots)
    posts.sort(key=lambda p: (-p["created_at"], p["source"], p["id"]))
    return posts


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC: building 100k acyclic dicts otherwise triggers it ~1,000 times
    (a third of the run time) for nothing to collect."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _timeline(req: _Request, source: str, slots: Iterator[_Slot]) -> list[dict[str, Any]]:
    """Posts of a prompt search: recurring authors, heavy users first (Zipf-like)."""
    # Ad searches get their own timeline: an ad and an organic post never share an id.
    timeline = f"{req.topic.key}|ads" if req.ads_only else req.topic.key
    out = []
    for slot in slots:
        cpu_budget.check()
        rng = _post_rng(req, source, slot, timeline)
        ad = req.ads_only or rng.random() < AD_SHARE
        if ad:
            author = Person(_slug(req.topic.brand), req.topic.brand)
        else:
            rank = int(AUTHOR_POOL * rng.random() ** 2.2)
            author = person(req.seed, source, f"{req.topic.key}:a{rank}")
        out.append(_post(req, source, slot, timeline, author, ad, rng))
    return out


def _collect_urls(base: _Request, urls: list[str], count: int) -> list[dict[str, Any]]:
    """Posts by the profiles behind ``urls`` (a subreddit URL searches that community)."""
    targets = [t for t in map(parse_profile_url, urls) if t is not None]
    # Anchored on the day (not the second), so re-runs on one day see the same timeline.
    end_of_day = (int(base.end) // DAY + 1) * DAY - 1
    posts: list[dict[str, Any]] = []
    for (source, kind, name), n in zip(targets, _shares(count, [1.0] * len(targets)), strict=True):
        if kind == "community":
            # "PlantBasedDiet" -> "plant based diet": posts name the community's subject.
            subject = re.sub(r"(?<=[a-z])(?=[A-Z])|_", " ", name).lower()
            req = replace(base, topic=topic_of(subject))
            start = end_of_day - URL_WINDOW_DAYS * DAY
            slots = _prompt_slots(
                base.seed, req.topic.key, source, n, start, end_of_day, base.ordinal
            )
            posts += _timeline(req, source, slots)
            continue
        niche = _rng(base.seed, "niche", source, name).choice(CATEGORIES)
        req = replace(base, topic=topic_of(niche.keywords[0]))
        author, timeline = Person(name, display_name_of(name)), f"@{name}"
        if base.ads_only:  # the profile is the advertiser (ad_meta and copy name it)
            req = replace(req, topic=replace(req.topic, brand=author.display_name))
        for slot in _profile_slots(base.seed, source, name, n, end_of_day, base.ordinal):
            cpu_budget.check()
            rng = _post_rng(req, source, slot, timeline)
            posts.append(_post(req, source, slot, timeline, author, base.ads_only, rng))
    return posts
