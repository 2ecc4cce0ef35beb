"""What the sandbox assistant reads from posts: sentiment, aspects, brands, quotes, metrics.

Pure functions over Mention dicts (the spec's wire shape). The rules are simple on
purpose, so a test can recompute every figure an answer quotes from ``POST /v1/mentions``:

- A post's text is its title and text joined by a newline (what the enrichment analyses).
- Sentiment is the largest share of the post's ``sentiment`` (ties go to neutral); a post
  that was never analysed is scored by the enrichment's own scorer, so the label equals
  what a ``sentiment`` run would store. VADER reads negation, so "no complaints at all"
  is not a complaint.
- A theme (an aspect such as ``price`` or a brand such as ``Alpro``) covers the posts whose
  text contains it as a whole word, case-insensitively for aspects (a plural ``s`` also
  counts) and as written for brands. Aspects and brands come from the product areas of
  the datasets' searches plus the generic ones (price, quality, customer service...).
- Engagement is likes + comments + shares.

Example:
    >>> post = {"source": "reddit", "id": "1", "title": "Foam?",
    ...         "text": "The foam is terrible. Prices went up."}
    >>> sentiment_label(post), mentions(post, "price"), mentions(post, "Oatly")
    ('negative', True, False)
    >>> best_sentence(post, "foam", "negative")
    'The foam is terrible.'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from functools import cache, lru_cache
from typing import Any

from rdskit.models import vocab
from rdskit.sandbox.synth import enrichment
from rdskit.sandbox.synth.corpus import GENERIC, Category, topic_of
from rdskit.sandbox.synth.extractor import stem

__all__ = [
    "SENTIMENTS",
    "Mention",
    "aspects_for",
    "author_of",
    "best_sentence",
    "brands_for",
    "cite",
    "engagement",
    "engagement_rate",
    "has_theme",
    "key",
    "matches",
    "mentions",
    "metric",
    "period_of",
    "periods_between",
    "post_text",
    "questions_of",
    "quote",
    "ranked",
    "sentence_label",
    "sentences",
    "sentiment_label",
    "share",
    "words",
]

Mention = Mapping[str, Any]

SENTIMENTS = tuple(reversed(vocab.SENTIMENTS))
"""Sentiment labels in the order answers list them."""

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_HASHTAGS_ONLY = re.compile(r"^(?:#\w+\s*)+$")
_URL = re.compile(r"https?://\S+")
_QUESTION_LABEL = re.compile(r"^(?:genuine |quick )?question\s*:\s*", re.I)
_LABEL_SAFE = str.maketrans({"[": "(", "]": ")", "\\": "/"})  # a link label stays one label


def key(post: Mention) -> tuple[str, str]:
    """The post's identity: (source, id)."""
    return (post["source"], post["id"])


def post_text(post: Mention) -> str:
    """Title and text joined by a newline, as the enrichment analyses them."""
    title, text = str(post.get("title") or ""), str(post.get("text") or "")
    return f"{title}\n{text}" if title else text


def words(text: str) -> list[str]:
    """Lowercase words of ``text`` (apostrophes kept inside words)."""
    return _WORD.findall(text.lower())


def sentiment_label(post: Mention) -> str:
    """``positive``, ``neutral`` or ``negative``: the dominant class of the post's sentiment.

    Example:
        >>> sentiment_label({"sentiment": {"positive": "0.7", "neutral": "0.2", "negative": "0.1"}})
        'positive'
        >>> sentiment_label({"text": "Great foam, no complaints at all."})
        'positive'
    """
    return enrichment.dominant(post.get("sentiment") or _scores(post_text(post)))


def engagement(post: Mention) -> int:
    """Likes + comments + shares of a post."""
    return sum(int(post.get(name) or 0) for name in ("num_likes", "num_comments", "num_shares"))


METRIC_FIELDS = {
    "views": "num_views",
    "likes": "num_likes",
    "comments": "num_comments",
    "shares": "num_shares",
}
"""Plan metric names to the Mention count fields they read."""


def engagement_rate(post: Mention) -> float:
    """The post's ``engagement_rate`` as a number (0 when absent or malformed)."""
    try:
        return float(post.get("engagement_rate") or 0)
    except ValueError:
        return 0.0


VIEW_BASED = frozenset({"views", "num_views", "engagement_rate"})
"""Metrics that are views or divide by them (a post's ``engagement_rate``)."""


def estimated_views_note(posts: Iterable[Mention]) -> str | None:
    """A note when ``posts`` span several sources and mix estimated views with counted
    ones (each post's ``are_views_estimated``, as the service reports it), so a figure of
    views or engagement rate across sources is not like-for-like; ``None`` otherwise.

    Example:
        >>> estimated_views_note([{"source": "reddit", "are_views_estimated": True},
        ...                       {"source": "tiktok", "are_views_estimated": False}])[:34]
        '_Note: views of reddit posts are e'
        >>> estimated_views_note([{"source": "tiktok", "are_views_estimated": False}]) is None
        True
    """
    listed = list(posts)
    estimated = sorted({str(p["source"]) for p in listed if p.get("are_views_estimated")})
    counted = {str(p["source"]) for p in listed if not p.get("are_views_estimated")}
    if not estimated or not counted or len({str(p["source"]) for p in listed}) < 2:
        return None
    return (
        f"_Note: views of {', '.join(estimated)} posts are estimated, not counted, so views"
        " and engagement rate (which divides by views) are not like-for-like across"
        " sources; compare within one source._"
    )


def metric(post: Mention, name: str) -> float:
    """A post's metric: ``views``/``likes``/``comments``/``shares`` (or their ``num_*``
    field), ``engagement`` (likes + comments + shares) or ``engagement_rate``."""
    if name == "engagement":
        return engagement(post)
    if name == "engagement_rate":
        return engagement_rate(post)
    return int(post.get(METRIC_FIELDS.get(name, name)) or 0)


def matches(
    post: Mention,
    terms: Iterable[str] = (),
    brands: Iterable[str] = (),
    hashtags: Iterable[str] = (),
    authors: Iterable[str] = (),
) -> bool:
    """Whether the post names every one of the plan's content terms, brands, hashtags and
    authors. A word term matches a word of the title or text starting with the term's stem
    (:func:`rdskit.sandbox.synth.extractor.stem`: "prices" for "price"); a phrase matches as whole
    words; a brand matches ``mentioned_brands`` or the text as whole words, ignoring case; a
    hashtag matches ``#tag``; an author matches the author's display name.

    Example:
        >>> post = {"text": "Prices are up; Oatly too #oatmilk"}
        >>> matches(post, ["price"], ["oatly"], ["oatmilk"]), matches(post, ["foam"])
        (True, False)
    """
    text = post_text(post).lower()
    found = None
    for term in terms:
        if " " in term:
            if not re.search(rf"(?<!\w){re.escape(term.lower())}(?!\w)", text):
                return False
            continue
        found = found if found is not None else words(text)
        prefix = stem(term)
        if not any(word.startswith(prefix) for word in found):
            return False
    named = {str(b).lower() for b in post.get("mentioned_brands") or ()}
    for brand in brands:
        lowered = brand.lower()
        if lowered not in named and not re.search(rf"(?<!\w){re.escape(lowered)}(?!\w)", text):
            return False
    for tag in hashtags:
        if not re.search(rf"#{re.escape(tag.lower())}(?!\w)", text):
            return False
    return all(author_of(post).lower() == author.lower() for author in authors)


def ranked(posts: Iterable[Mention], by: str = "engagement") -> list[Mention]:
    """Highest ``by`` first; (source, id) breaks ties so answers are deterministic."""
    return sorted(posts, key=lambda post: (-metric(post, by), *key(post)))


def share(part: int, total: int) -> str:
    """``part`` as a percentage of ``total`` with one decimal, e.g. ``"37.5%"``."""
    return f"{100 * part / total:.1f}%" if total else "0.0%"


# --- themes: aspects and brands ------------------------------------------------------------


@cache
def _pattern(theme: str) -> re.Pattern[str]:
    """Whole-word match of a theme; aspects (lowercase) ignore case and allow a plural."""
    if theme.islower():
        return re.compile(rf"(?<!\w){re.escape(theme)}s?(?!\w)", re.I)
    return re.compile(rf"(?<!\w){re.escape(theme)}(?!\w)")


def mentions(post: Mention, theme: str) -> bool:
    """Whether the post's text names ``theme`` (see the module docstring)."""
    return has_theme(post_text(post), theme)


def has_theme(text: str, theme: str, lowered: str | None = None) -> bool:
    """Whether ``text`` names ``theme``; ``lowered`` is ``text.lower()`` when the caller
    has it. A substring test skips most regex searches."""
    if theme.islower():
        found = theme in (text.lower() if lowered is None else lowered)
    else:
        found = theme in text
    return found and _pattern(theme).search(text) is not None


def aspects_for(searches: Iterable[str]) -> tuple[str, ...]:
    """The aspects worth reporting for datasets searched with ``searches``: those of their
    product areas, then the generic ones, without repeats.

    Example:
        >>> aspects_for(["oat milk"])[:3]
        ('taste', 'texture', 'price')
    """
    return tuple(dict.fromkeys(a for area in _areas(searches) for a in area.aspects))


def brands_for(searches: Iterable[str]) -> tuple[str, ...]:
    """The brands of the searches' product areas, minus a brand that is the search itself
    (a dataset about "Oatly" is not a comparison with Oatly).

    Example:
        >>> brands_for(["Oatly"])[:3]
        ('Alpro', 'Minor Figures', 'Califia Farms')
    """
    topics = [topic_of(text) for text in searches if text.strip()]
    own = {topic.brand for topic in topics if topic.is_brand}
    found = (b for area in _areas(searches) for b in area.brands if b not in own)
    return tuple(dict.fromkeys(found))


def _areas(searches: Iterable[str]) -> list[Category]:
    """The product areas of the searches, then the generic one."""
    return [*(topic_of(text).category for text in searches if text.strip()), GENERIC]


# --- sentences, quotes, questions ----------------------------------------------------------


def sentences(post: Mention) -> list[str]:
    """The post's sentences (title first), without links and hashtag-only lines."""
    found = []
    for part in _SENTENCE_SPLIT.split(_URL.sub(" ", post_text(post))):
        sentence = " ".join(part.split())
        if sentence and not _HASHTAGS_ONLY.match(sentence) and any(c.isalpha() for c in sentence):
            found.append(sentence)
    return found


def best_sentence(post: Mention, theme: str | None = None, mood: str | None = None) -> str:
    """The sentence that best shows ``theme`` in the given ``mood``.

    Among the sentences naming ``theme`` (all sentences when none does or no theme is
    given), the most negative one for ``mood="negative"``, the most positive for
    ``"positive"``, else the first.
    """
    candidates = sentences(post) or [" ".join(post_text(post).split()) or "(no text)"]
    if theme is not None:
        candidates = [s for s in candidates if _pattern(theme).search(s)] or candidates
    if mood in ("positive", "negative") and len(candidates) > 1:
        scores = [float(_scores(s)[mood]) for s in candidates]
        return candidates[max(range(len(candidates)), key=lambda i: (scores[i], -i))]
    return candidates[0]


@lru_cache(maxsize=16_384)
def _scores(text: str) -> dict[str, str]:
    """The enrichment's sentiment shares of a text, remembered (VADER is the slow part)."""
    return enrichment.score_text(text)


def sentence_label(sentence: str) -> str:
    """The sentiment of one sentence, by the enrichment's scorer."""
    return enrichment.dominant(_scores(sentence))


def questions_of(post: Mention) -> list[str]:
    """Questions the post asks: the enrichment's ``questions`` when it ran, else its
    sentences ending in "?" (a "Genuine question:" label dropped)."""
    analysed = post.get("questions")
    if analysed is not None:
        return [str(item.get("text") or "") for item in analysed if item.get("text")]
    asked = (_QUESTION_LABEL.sub("", s) for s in sentences(post) if s.endswith("?"))
    return [q[:1].upper() + q[1:] for q in asked if q]


def _escape(text: str) -> str:
    """Escape brackets of post text so it never reads as a marker or a link."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def quote(text: str, width: int = 160) -> str:
    """``text`` in quotes, cut at a word boundary, brackets escaped."""
    text = " ".join(text.split()) or "(no text)"
    if len(text) > width:
        text = text[: width - 1].rsplit(" ", 1)[0] + "…"
    return f'"{_escape(text)}"'


def author_of(post: Mention) -> str:
    """The author's display name (``an unnamed author`` when absent)."""
    author = post.get("author") or {}
    return str(author.get("title") or author.get("headline") or "an unnamed author")


def cite(post: Mention, label: str | None = None) -> str:
    """The inline link the reply rewrite turns into ``[N]``; the author's name by default."""
    text = (label or author_of(post)).translate(_LABEL_SAFE)
    return f"[{text}](post:{post['source']}:{post['id']})"


# --- time ----------------------------------------------------------------------------------


def period_of(created_at: float, unit: str) -> str:
    """The day (``2026-03-02``), ISO week (``2026-W09``) or month (``2026-03``), in UTC.

    Example:
        >>> period_of(1767225600, "month"), period_of(1767225600, "week")
        ('2026-01', '2026-W01')
    """
    moment = datetime.fromtimestamp(created_at, tz=UTC)
    if unit == "day":
        return moment.strftime("%Y-%m-%d")
    if unit == "week":
        year, week, _ = moment.isocalendar()
        return f"{year}-W{week:02d}"
    return f"{moment.year}-{moment.month:02d}"


def periods_between(first: float, last: float, unit: str) -> list[str]:
    """Every period from the one holding ``first`` to the one holding ``last``, in order
    (empty periods included, so changes between neighbours are real changes).

    Example:
        >>> periods_between(1767225600, 1772323200, "month")
        ['2026-01', '2026-02', '2026-03']
    """
    step = {"day": timedelta(days=1), "week": timedelta(days=7)}.get(unit, timedelta(days=28))
    moment = datetime.fromtimestamp(first, tz=UTC)
    end = period_of(last, unit)
    found: list[str] = []
    while not found or found[-1] != end:
        period = period_of(moment.timestamp(), unit)
        if not found or found[-1] != period:
            found.append(period)
        moment += step
    return found
