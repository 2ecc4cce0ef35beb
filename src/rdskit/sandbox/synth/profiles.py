"""Audience profiles synthesised for the authors and commenters of a dataset.

:func:`synthesize` fills every field of the spec's Audience profile, deterministically per
``(seed, source, username)`` and the :class:`Hints` read from the person's posts (display
name, topic category, language, country, whether they posted or only commented). Values
agree with the corpus: follower counts scale with the author's reach multiplier
(:func:`rdskit.sandbox.synth.corpus.popularity`), the posting cadence with their gap between
posts, brand affinities and niches with the category they wrote about.

Creator tiers by followers: nano < 10k <= micro < 100k <= mid < 500k <= macro < 1M <= mega.

Example:
    >>> p = synthesize(7, "tiktok", "maya.chen", Hints(category="Food & Drink"))
    >>> p["creator_tier"] in TIERS, p["content_niche"][0], sorted(p["ocean"])[0]
    (True, 'Food & Drink', 'agreeableness')
    >>> p == synthesize(7, "tiktok", "maya.chen", Hints(category="Food & Drink"))
    True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from rdskit.sandbox.synth.corpus import (
    CATEGORIES,
    COUNTRY_LANGUAGE,
    GENERIC,
    Category,
    avatar,
    days_between_posts,
    display_name_of,
    gender_of,
    popularity,
)

__all__ = ["AUTHENTICITY_VERSION", "TIERS", "Hints", "creator_tier", "synthesize"]

AUTHENTICITY_VERSION = 3
TIERS = ("nano", "micro", "mid", "macro", "mega")
_TIER_FLOORS = ((1_000_000, "mega"), (500_000, "macro"), (100_000, "mid"), (10_000, "micro"))


@dataclass(frozen=True)
class Hints:
    """What the dataset tells about a person (all optional)."""

    display_name: str | None = None
    category: str | None = None
    language: str | None = None
    country: str | None = None
    commenter_only: bool = False


def creator_tier(followers: int) -> str:
    """The tier of a follower count.

    Example:
        >>> creator_tier(9_999), creator_tier(250_000), creator_tier(2_000_000)
        ('nano', 'mid', 'mega')
    """
    return next((tier for floor, tier in _TIER_FLOORS if followers >= floor), "nano")


# Median followers of a typical poster per source (commenters have far fewer).
_FOLLOWERS = {
    "reddit": 800,
    "tiktok": 9_000,
    "youtube": 6_000,
    "instagram": 5_000,
    "linkedin": 2_500,
}
_CITIES = {
    "US": ("New York", "Los Angeles", "Austin", "Chicago", "Seattle", "Miami"),
    "GB": ("London", "Manchester", "Bristol", "Edinburgh", "Leeds"),
    "CA": ("Toronto", "Vancouver", "Montreal", "Calgary"),
    "AU": ("Sydney", "Melbourne", "Brisbane", "Perth"),
    "IN": ("Bengaluru", "Mumbai", "Delhi", "Pune"),
    "IE": ("Dublin", "Cork", "Galway"),
    "NZ": ("Auckland", "Wellington"),
    "SG": ("Singapore",),
    "ES": ("Madrid", "Barcelona", "Valencia"),
    "MX": ("Mexico City", "Guadalajara", "Monterrey"),
    "DE": ("Berlin", "Munich", "Hamburg", "Cologne"),
    "FR": ("Paris", "Lyon", "Marseille"),
    "BR": ("São Paulo", "Rio de Janeiro", "Belo Horizonte"),
    "IT": ("Milan", "Rome", "Turin"),
    "NL": ("Amsterdam", "Rotterdam", "Utrecht"),
    "JP": ("Tokyo", "Osaka", "Fukuoka"),
    "AT": ("Vienna", "Graz"),
    "AR": ("Buenos Aires", "Córdoba"),
    "CO": ("Bogotá", "Medellín"),
    "PT": ("Lisbon", "Porto"),
    "BE": ("Brussels", "Antwerp"),
}
_HOME_COUNTRIES = (
    ("US", 50),
    ("GB", 15),
    ("CA", 8),
    ("AU", 7),
    ("IN", 6),
    ("DE", 4),
    ("ES", 3),
    ("FR", 3),
    ("BR", 2),
    ("IE", 2),
)
_OCCUPATIONS = {
    "Food & Drink": ("Barista", "Food Blogger", "Nutritionist", "Chef", "Café Owner"),
    "Technology": ("Software Engineer", "Product Manager", "Tech Reviewer", "Data Scientist"),
    "Beauty": ("Makeup Artist", "Esthetician", "Beauty Editor", "Skincare Consultant"),
    "Fashion": ("Stylist", "Fashion Designer", "Retail Buyer", "Sneaker Reseller"),
    "Automotive": ("Mechanical Engineer", "Car Reviewer", "Fleet Manager", "Sales Consultant"),
    "Finance": ("Financial Analyst", "Accountant", "Personal Finance Coach", "Founder"),
    "Travel": ("Travel Writer", "Flight Attendant", "Photographer", "Tour Guide"),
    "Fitness": ("Personal Trainer", "Physiotherapist", "Yoga Teacher", "Running Coach"),
    "Lifestyle": ("Student", "Teacher", "Marketing Manager", "Designer", "Nurse"),
}
_INDUSTRY = {
    "Food & Drink": "Food & Beverage",
    "Technology": "Software & Internet",
    "Beauty": "Cosmetics",
    "Fashion": "Apparel & Retail",
    "Automotive": "Automotive",
    "Finance": "Financial Services",
    "Travel": "Hospitality & Travel",
    "Fitness": "Health & Wellness",
    "Lifestyle": "Consumer Services",
}
_SUBNICHES = {
    "Food & Drink": ("coffee culture", "plant-based eating", "home baking", "healthy breakfasts"),
    "Technology": ("gadget reviews", "productivity", "AI tools", "home office setups"),
    "Beauty": ("skincare routines", "clean beauty", "makeup tutorials", "haircare"),
    "Fashion": ("sneaker culture", "streetwear", "capsule wardrobes", "running gear"),
    "Automotive": ("EV ownership", "road trips", "car reviews", "charging tips"),
    "Finance": ("budgeting", "investing basics", "fintech apps", "saving money"),
    "Travel": ("budget travel", "city breaks", "travel hacks", "solo travel"),
    "Fitness": ("strength training", "running", "home workouts", "wearables"),
    "Lifestyle": ("everyday life", "productivity", "home and living", "deals and savings"),
}
_INTERESTS = (
    "sustainability",
    "cooking",
    "photography",
    "gaming",
    "music festivals",
    "personal finance",
    "wellness",
    "travel",
    "books",
    "fitness",
    "design",
    "pets",
    "parenting",
    "tech",
    "fashion",
    "coffee",
    "outdoors",
    "film",
    "startups",
    "skincare",
)
_AESTHETICS = (
    "minimalist",
    "cozy",
    "bold and colourful",
    "earthy",
    "vintage",
    "polished",
    "lo-fi candid",
    "corporate clean",
)
_TONES = (
    "friendly",
    "witty",
    "authoritative",
    "casual",
    "inspirational",
    "educational",
    "sarcastic",
    "earnest",
)
_CADENCES = (
    (0.5, "multiple times a day"),
    (1.2, "daily"),
    (2.5, "several times a week"),
    (7.0, "weekly"),
)
_VERIFIED = {"nano": 0.005, "micro": 0.03, "mid": 0.15, "macro": 0.45, "mega": 0.85}
_OCEAN = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
_AGE = {
    "tiktok": (24, 6),
    "instagram": (29, 7),
    "youtube": (31, 9),
    "reddit": (30, 8),
    "linkedin": (38, 9),
}


def _category(name: str | None) -> Category:
    return next((c for c in CATEGORIES if c.name == name), GENERIC)


def _cadence(days: float) -> str:
    return next((label for limit, label in _CADENCES if days < limit), "a few times a month")


def _platform_metadata(
    rng: random.Random, source: str, username: str, followers: int, posts: int
) -> dict[str, Any]:
    """Fields only one platform has (the spec leaves their names open)."""
    if source == "tiktok":
        return {
            "heart_count": followers * rng.randint(5, 40),
            "video_count": posts,
            "is_private": False,
        }
    if source == "instagram":
        return {
            "is_business_account": rng.random() < 0.3,
            "highlight_reel_count": rng.randint(0, 12),
            "media_count": posts,
        }
    if source == "youtube":
        channel = "".join(
            rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            for _ in range(22)
        )
        return {
            "channel_id": f"UC{channel}",
            "total_views": followers * rng.randint(20, 200),
            "video_count": posts,
        }
    if source == "reddit":
        return {
            "link_karma": int(followers * rng.uniform(2, 20)),
            "comment_karma": int(followers * rng.uniform(5, 60)),
            "account_age_days": rng.randint(60, 4000),
            "is_mod": rng.random() < 0.05,
        }
    return {
        "connections": min(30_000, max(followers // 2, rng.randint(150, 500))),
        "open_to_work": rng.random() < 0.1,
        "vanity_name": username,
    }


def _authenticity(
    rng: random.Random, followers: int, following: int, engagement: float
) -> tuple[float, float, str]:
    """(score, confidence, reason): follow-back growth and dead audiences lower the score."""
    ratio = following / max(followers, 1)
    score, reasons = 0.92, []
    if ratio > 2.0 and followers > 500:
        score -= 0.3
        reasons.append("follows far more accounts than follow back")
    if engagement < 0.005:
        score -= 0.25
        reasons.append("engagement is unusually low for the audience size")
    if followers > 200_000 and engagement > 0.15:
        score -= 0.2
        reasons.append("engagement spikes look inorganic")
    score = min(max(score + rng.uniform(-0.07, 0.05), 0.02), 0.99)
    confidence = min(0.55 + 0.1 * math.log10(max(followers, 10)), 0.97)
    reason = "; ".join(reasons) if reasons else "audience growth and engagement look organic"
    return round(score, 2), round(confidence, 2), reason[:1].upper() + reason[1:] + "."


def synthesize(seed: int, source: str, username: str, hints: Hints | None = None) -> dict[str, Any]:
    """An Audience profile wire dict (without ``id``, ``run_id`` and ``created_at``).

    Example:
        >>> synthesize(1, "linkedin", "sam-ito-1a2b3c")["display_name"]
        'Sam Ito 1a2b3c'
    """
    hints = hints or Hints()
    rng = random.Random(f"{seed}:profile:{source}:{username}")
    category = _category(hints.category)
    name = hints.display_name or display_name_of(username)
    median = _FOLLOWERS[source] * (0.05 if hints.commenter_only else 1.0)
    followers = max(
        int(median * popularity(seed, source, username) * rng.lognormvariate(0, 1.2)), 3
    )
    following = int(rng.lognormvariate(math.log(400), 0.9))
    gap_days = days_between_posts(seed, source, username)
    account_days = rng.randint(120, 3_650)
    posts = max(int(account_days / gap_days * rng.uniform(0.2, 0.6)), 1)
    engagement = round(min(0.25, 0.12 * followers**-0.12 * rng.lognormvariate(0, 0.5)), 4)
    score, confidence, reason = _authenticity(rng, followers, following, engagement)
    tier = creator_tier(followers)
    homes, weights = zip(*_HOME_COUNTRIES, strict=True)
    country = hints.country or rng.choices(homes, weights)[0]
    cities = _CITIES.get(country)
    city = rng.choice(cities) if cities else None  # no made-up city for an unlisted country
    occupation = rng.choice(_OCCUPATIONS[category.name])
    niches = [category.name, *rng.sample(_SUBNICHES[category.name], 2)]
    age_mean, age_sd = _AGE[source]
    role = "commenter" if hints.commenter_only else "creator"
    influence = 10 * math.log10(followers) + 200 * engagement + 20 * score
    return {
        "source": source,
        "username": username,
        "display_name": name,
        "bio": f"{occupation} in {city or country} | {niches[1]} & {niches[2]} | opinions my own",
        "external_link": f"https://linktr.ee/{username}"
        if rng.random() < 0.5
        else f"https://{username.replace('.', '')}.com",
        "is_verified": rng.random() < _VERIFIED[tier],
        "follower_count": followers,
        "following_count": following,
        "content_count": posts,
        "engagement_rate": engagement,
        "authenticity_score": score,
        "authenticity_confidence": confidence,
        "authenticity_score_version": AUTHENTICITY_VERSION,
        "authenticity_reason": reason,
        "score": round(min(influence, 100.0), 1),
        "posting_cadence": _cadence(gap_days),
        "creator_tier": tier,
        "aesthetic": rng.choice(_AESTHETICS),
        "communication_tone": rng.choice(_TONES),
        "occupation": occupation,
        "industry": _INDUSTRY[category.name],
        "location_country": country,
        "location_city": city,
        "primary_language": hints.language or COUNTRY_LANGUAGE.get(country, "en"),
        "summary": (
            f"{name} is a {tier}-tier {source} {role} from {city or country} who posts about "
            f"{niches[1]} and {niches[2]} ({_cadence(gap_days)}, {engagement:.1%} engagement)."
        ),
        "age": int(min(max(rng.gauss(age_mean, age_sd), 18), 75)),
        "gender": gender_of(name) or rng.choices(("female", "male", "non-binary"), (48, 48, 4))[0],
        "content_niche": niches,
        "interest_clusters": rng.sample(_INTERESTS, rng.randint(3, 5)),
        "brand_affinities": rng.sample(category.brands, min(3, len(category.brands))),
        "ocean": {trait: round(min(max(rng.gauss(0.5, 0.18), 0.0), 1.0), 2) for trait in _OCEAN},
        "platform_metadata": _platform_metadata(rng, source, username, followers, posts),
        "avatar": avatar(source, username, name),
        "custom_parameters": {},
    }
