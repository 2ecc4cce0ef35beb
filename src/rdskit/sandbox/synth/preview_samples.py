"""Research preview generation: what a quick look at a search or at profiles would find.

Pure functions over the synthetic corpus (:mod:`rdskit.sandbox.synth.corpus`); the route
(``backend/previews.py``) handles billing and storage.

URL previews resolve each ``source_urls`` entry deterministically from the URL itself, so
every outcome can be produced on purpose:

- a host the service does not search -> ``source_unavailable`` (the request fails);
- a path containing ``private`` -> ``private_profiles``;
- ``missing``, ``does-not-exist`` or ``not-found`` -> ``non_existing_profiles``;
- ``fail`` -> ``failed_to_retrieve_profiles``;
- anything else -> a resolved profile.

A URL containing ``__fail__`` fails the whole scrape (every URL is then listed as failed).

Example:
    >>> resolve_url("https://www.tiktok.com/@oatly").outcome
    'resolved'
    >>> resolve_url("https://instagram.com/private.account").outcome
    'private'
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol
from urllib.parse import urlsplit

from rdskit.models._base import parse_datetime
from rdskit.sandbox.runtime.clock import indexed_until
from rdskit.sandbox.synth import corpus

__all__ = [
    "FAIL_TOKEN",
    "POSTS_PER_PREVIEW",
    "SOURCES",
    "TIME_FILTERS",
    "Locale",
    "ResolvedUrl",
    "WindowError",
    "day_window",
    "estimate_results",
    "preview_posts",
    "profile_of",
    "relative_date",
    "resolve_url",
    "sample_posts",
    "time_window",
]

SOURCES = corpus.SOURCES
"""The sources the service searches."""

POSTS_PER_PREVIEW = 10
"""Sample posts returned by one preview."""

FAIL_TOKEN = "__fail__"
"""A source URL containing this makes the whole URL scrape fail."""

TIME_FILTERS = {
    "past_hour": timedelta(hours=1),
    "past_day": timedelta(days=1),
    "past_week": timedelta(days=7),
    "past_month": timedelta(days=30),
    "past_3_months": timedelta(days=90),
    "past_6_months": timedelta(days=182),
    "past_year": timedelta(days=365),
}
"""Named relative windows; ``<N>h``, ``<N>d``, ``<N>w``, ``<N>m`` and ``<N>y`` also work."""

_RELATIVE = re.compile(r"([0-9]{1,4})([hdwmy])")  # ASCII digits: \d takes any script's
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # RFC 3339 full-date (fromisoformat takes more)
_UNIT = {
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(days=7),
    "m": timedelta(days=30),
    "y": timedelta(days=365),
}
_HOSTS = {
    "reddit.com": "reddit",
    "redd.it": "reddit",
    "tiktok.com": "tiktok",
    "youtube.com": "youtube",
    "youtu.be": "youtube",
    "instagram.com": "instagram",
    "linkedin.com": "linkedin",
}


def _digest(*parts: object) -> int:
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


class WindowError(ValueError):
    """A preview window the service refuses, naming the request ``field`` at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def time_window(
    time_filter: str | None, date_since: str | None, date_until: str | None, now: datetime
) -> tuple[datetime, datetime]:
    """The preview window from exactly one of ``time_filter`` (ending at the start of the
    hour: :func:`~rdskit.sandbox.runtime.clock.indexed_until`) or the ``date_*`` pair of
    ``YYYY-MM-DD`` days (both included).

    Raises :class:`WindowError` naming the field (the route turns it into a 422).

    Example:
        >>> now = datetime(2026, 3, 1, tzinfo=UTC)
        >>> [d.date().isoformat() for d in time_window("past_week", None, None, now)]
        ['2026-02-22', '2026-03-01']
        >>> [d.isoformat() for d in time_window(None, "2026-01-01", "2026-01-31", now)]
        ['2026-01-01T00:00:00+00:00', '2026-01-31T23:59:59.999999+00:00']
    """
    pair = (date_since, date_until)
    if time_filter is not None and any(p is not None for p in pair):
        raise WindowError(
            "time_filter", "give either time_filter or date_since and date_until, not both"
        )
    if time_filter is not None:
        found = _RELATIVE.fullmatch(time_filter)
        span = TIME_FILTERS.get(time_filter) or (
            int(found[1]) * _UNIT[found[2]] if found and int(found[1]) > 0 else None
        )
        if span is None:
            raise WindowError(
                "time_filter", f"time_filter must be one of {', '.join(TIME_FILTERS)} or like 30d"
            )
        end = indexed_until(now)
        return end - span, end
    if date_since is None or date_until is None:
        missing = "date_since" if date_since is None else "date_until"
        raise WindowError(missing, "give time_filter, or both date_since and date_until")
    since, until = day_window(date_since, date_until)
    assert since is not None and until is not None
    return since, until


def day_window(
    since: str | None, until: str | None, names: tuple[str, str] = ("date_since", "date_until")
) -> tuple[datetime | None, datetime | None]:
    """The instants a pair of optional ``YYYY-MM-DD`` days spans: the first day's start to
    the last day's end (``None`` where a day is not given: open on that side).

    The document declares these fields ``format: date`` (RFC 3339 full-date), and this
    reads exactly that: ``20260101``, ``2026-W01-1`` or an instant are refused
    (:class:`WindowError` naming the field, from ``names``), as is a first day after the last.

    Example:
        >>> day_window("2026-01-01", None)[0].isoformat()
        '2026-01-01T00:00:00+00:00'
        >>> day_window("2026-01-01", "2026-1-2")
        Traceback (most recent call last):
        ...
        rdskit.sandbox.synth.preview_samples.WindowError: date_until must be a date, YYYY-MM-DD
    """
    first, last = (
        None if value is None else _day_bound(value, name, end)
        for value, name, end in ((since, names[0], False), (until, names[1], True))
    )
    if first is not None and last is not None and first > last:
        raise WindowError(names[0], f"{names[0]} is after {names[1]}")
    return first, last


def _day_bound(value: str, name: str, end: bool) -> datetime:
    """A ``YYYY-MM-DD`` day's first (or last) instant, UTC."""
    try:
        if not _DAY.fullmatch(value):
            raise ValueError(value)
        day = date.fromisoformat(value)
    except ValueError:
        raise WindowError(name, f"{name} must be a date, YYYY-MM-DD") from None
    clock = datetime.max.time() if end else datetime.min.time()
    return datetime.combine(day, clock, tzinfo=UTC)


def estimate_results(
    seed: int, query: str, sources: Sequence[str], since: datetime, until: datetime, now: datetime
) -> int:
    """How many posts a full collection at ``now`` would find: the query's daily volume x
    each source's share (:func:`~rdskit.sandbox.synth.corpus.source_mix`, the proportions a
    collection splits its count by) x the days of the window the corpus holds
    (:func:`~rdskit.sandbox.synth.corpus.held`: none in the future, at most five years).

    Example:
        >>> a = datetime(2026, 1, 1, tzinfo=UTC)
        >>> month, now = (a, a + timedelta(days=30)), a + timedelta(days=60)
        >>> 0 < estimate_results(0, "oat milk", ["reddit"], *month, now) < estimate_results(
        ...     0, "oat milk", ["reddit", "tiktok"], *month, now)
        True
        >>> estimate_results(0, "oat milk", ["reddit"], *month, now=a - timedelta(days=1))
        0
    """
    since, until = corpus.held(since, until, now)
    if since > until:
        return 0
    days = max((until - since).total_seconds() / 86_400, 1 / 24)
    topic = corpus.topic_of(query)
    mix = corpus.source_mix(seed, topic)
    per_day = corpus.daily_volume(seed, topic) * sum(mix.get(s, 0.0) for s in sources)
    return max(1, round(per_day * days))


@dataclass(frozen=True)
class ResolvedUrl:
    """One source URL and what resolving it found."""

    url: str
    source: str | None  # None: the service does not search this host
    outcome: str  # resolved | private | missing | failed | unsupported
    username: str | None


def resolve_url(url: str) -> ResolvedUrl:
    """Classify a profile URL by host and path (see the module doc for the rules)."""
    parts = urlsplit(url if "://" in url else f"https://{url}")
    host = (parts.hostname or "").lower().removeprefix("www.").removeprefix("m.")
    source = _HOSTS.get(host)
    parsed = corpus.parse_profile_url(url)
    username = parsed[2] if parsed else None
    path = parts.path.lower()
    if source is None:
        outcome = "unsupported"
    elif "private" in path:
        outcome = "private"
    elif any(token in path for token in ("missing", "does-not-exist", "not-found")):
        outcome = "missing"
    elif "fail" in path or username is None:
        outcome = "failed"  # includes URLs that name no profile or community
    else:
        outcome = "resolved"
    return ResolvedUrl(url, source, outcome, username)


def profile_of(seed: int, resolved: ResolvedUrl) -> dict[str, Any]:
    """A resolved profile's summary: identity, avatar and deterministic counts."""
    assert resolved.source is not None and resolved.username is not None
    h = _digest(seed, resolved.source, resolved.username)
    name = corpus.display_name_of(resolved.username)
    return {
        "url": resolved.url,
        "source": resolved.source,
        "username": resolved.username,
        "display_name": name,
        "avatar": corpus.avatar(resolved.source, resolved.username, name),
        "follower_count": 200 + h % 250_000,
        "content_count": 10 + (h >> 20) % 900,
        "is_verified": (h >> 40) % 5 == 0,
    }


def relative_date(created: datetime, now: datetime) -> str:
    """Human relative age, as the web app shows it.

    Example:
        >>> now = datetime(2026, 3, 1, tzinfo=UTC)
        >>> [relative_date(now - timedelta(hours=h), now) for h in (5, 24 * 40)]
        ['5 hours ago', '1 month ago']
    """
    seconds = max((now - created).total_seconds(), 0)
    for unit, size in (
        ("year", 31_536_000),
        ("month", 2_592_000),
        ("week", 604_800),
        ("day", 86_400),
        ("hour", 3_600),
        ("minute", 60),
    ):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n > 1 else ''} ago"
    return "just now"


def preview_posts(mentions: Sequence[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    """Mention wire dicts -> research preview posts (position from 1)."""
    posts = []
    for position, mention in enumerate(mentions, start=1):
        author = mention.get("author") or {}
        created = parse_datetime(mention.get("created_at")) or now
        media = mention.get("media") or []
        posts.append(
            {
                "position": position,
                "source": mention["source"],
                "url": mention.get("url") or "",
                "author_display_name": author.get("title") or "",
                "headline": mention.get("title") or author.get("headline") or "",
                "relative_date": relative_date(created, now),
                "text": mention.get("text") or "",
                "is_image_available": any(m.get("type") == "image" for m in media),
                "content_type": mention.get("content_type") or "organic",
                "ad_meta": mention.get("ad_meta"),
            }
        )
    return posts


class Locale(Protocol):
    """The optional locale fields both preview requests carry."""

    language: str | None
    country_code: str | None


def sample_posts(
    seed: int,
    search_query: Mapping[str, Any],
    window: tuple[datetime | None, datetime | None],
    locale: Locale,
    now: datetime,
) -> list[dict[str, Any]]:
    """The preview's sample: the corpus posts a collection would start with, as preview posts.

    Uses the same generator as dataset runs, so a preview shows what a run would collect,
    kept to ``window`` and to what the corpus holds (``corpus.HISTORY_DAYS`` back from
    ``now``): a URL collection ignores a window's start and lays a profile's posts back
    from its end, which at year 1 would be before the calendar.
    """
    since, until = window
    first = max(
        since.timestamp() if since else -math.inf,
        now.timestamp() - corpus.HISTORY_DAYS * corpus.DAY,
    )
    last = until.timestamp() if until else math.inf
    mentions = corpus.collect(
        seed,
        search_query,
        POSTS_PER_PREVIEW,
        window[0],
        window[1],
        language=locale.language,
        country_code=locale.country_code,
        now=now.timestamp(),
    )
    return preview_posts([m for m in mentions if first <= m["created_at"] <= last], now)
