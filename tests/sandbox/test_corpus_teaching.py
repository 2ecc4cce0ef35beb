"""A sandbox worth teaching: share of voice is a finding, non-English posts can be negative,
every brand the corpus writes is detected, and ads are marked the same way every time.

End-to-end checks collect over real HTTP from sandboxes seeded 0, 1 and 7 (the session's) and
compute shares from ``POST /v1/mentions``, as a student would.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from rdskit.models import vocab
from rdskit.sandbox import SandboxHandle, start
from rdskit.sandbox.synth import corpus, lexicons
from rdskit.sandbox.synth.enrichment import dominant, enrich, score_text
from rdskit.sandbox.synth.preview_samples import estimate_results

if TYPE_CHECKING:
    from tests.sandbox.conftest import Api

FOUR = ["reddit", "tiktok", "youtube", "instagram"]
WINDOW = {"from": "2025-10-01", "to": "2025-11-30"}  # notebook 01's pinned window
END = datetime(2026, 1, 1, tzinfo=UTC)
START = END - timedelta(days=365)


@pytest.fixture(scope="module")
def seeded(sandbox: SandboxHandle) -> Iterator[dict[int, SandboxHandle]]:
    """Sandboxes seeded 0 and 1 next to the session's (seed 7)."""
    with (
        start(speed=500, rate_limit=10_000, seed=0) as zero,
        start(speed=500, rate_limit=10_000, seed=1) as one,
    ):
        yield {0: zero, 1: one, 7: sandbox}


def _collect(
    handle: SandboxHandle, api: type[Api], query: str, count: int, **extra: Any
) -> list[dict[str, Any]]:
    """Create a dataset, run one prompt collection, return its posts from POST /v1/mentions."""
    with httpx.Client(base_url=handle.url, headers={"x-api-key": handle.api_key}) as http:
        dataset = api.data(http.post("/v1/datasets", json={"name": f"sov {query}"}))["id"]
        body = {
            "search_query": {
                "type": "prompt",
                "sources": extra.pop("sources", FOUR),
                "search_query": query,
            },
            "count": count,
            **extra,
        }
        run = api.data(http.post(f"/v1/datasets/{dataset}/runs", json=body))
        assert api.wait_run(http, dataset, run["id"])["status"]["type"] == "completed"
        posts: list[dict[str, Any]] = []
        page: dict[str, Any] = {"dataset_ids": [dataset], "limit": 100}
        while True:
            got = http.post("/v1/mentions", json=page)
            assert got.status_code == 200, got.text
            posts += got.json()["data"]
            if not got.json()["has_next"]:
                return posts
            page["cursor"] = got.json()["cursor"]


def _counts(posts: list[dict[str, Any]], sources: list[str] = FOUR) -> tuple[int, ...]:
    by_source = Counter(p["source"] for p in posts)
    return tuple(by_source[s] for s in sources)


# --- share of voice ----------------------------------------------------------------------


def test_share_of_voice_differs_across_seeds(
    seeded: dict[int, SandboxHandle], api: type[Api]
) -> None:
    # Notebook 01's collection: 200 posts, four sources, Oct-Nov 2025. It used to give
    # 59/59/47/35 under every seed (a fixed quota).
    counts = {
        seed: _counts(_collect(handle, api, "oat milk", 200, date_range=WINDOW))
        for seed, handle in seeded.items()
    }
    assert all(sum(c) == 200 and min(c) > 0 for c in counts.values()), counts
    assert len(set(counts.values())) == 3, counts
    # Not a reshuffle of one fixed quota either.
    assert len({tuple(sorted(c)) for c in counts.values()}) == 3, counts


def test_share_of_voice_differs_across_queries_with_plausible_platform_skews(
    sandbox: SandboxHandle, api: type[Api]
) -> None:
    five = list(corpus.SOURCES)
    beauty = _counts(_collect(sandbox, api, "retinol serum", 300, sources=five), five)
    finance = _counts(_collect(sandbox, api, "credit card fees", 300, sources=five), five)
    assert beauty != finance
    share = {
        name: dict(zip(five, (n / sum(c) for n in c), strict=True))
        for name, c in (("beauty", beauty), ("finance", finance))
    }
    visual = ("tiktok", "instagram")
    talk = ("reddit", "linkedin")
    # Beauty lives on tiktok and instagram; money questions on reddit and linkedin.
    assert sum(share["beauty"][s] for s in visual) > sum(share["beauty"][s] for s in talk)
    assert sum(share["finance"][s] for s in talk) > sum(share["finance"][s] for s in visual)
    assert sum(share["beauty"][s] for s in visual) > sum(share["finance"][s] for s in visual)


def test_the_mix_is_derived_from_the_query_words_not_a_list_of_queries() -> None:
    # Queries no code names: the category comes from the words (any language the corpus
    # knows a keyword of) and the category's platforms skew the mix, for every seed.
    for seed in range(20):
        for query, tilt in (
            ("vegan protein bar", ("tiktok", "instagram")),
            ("cheap laptop for students", ("reddit", "youtube")),
            ("zapatillas de running", ("instagram", "tiktok")),
            ("mortgage rates", ("reddit", "linkedin")),
        ):
            mix = corpus.source_mix(seed, corpus.topic_of(query))
            assert abs(sum(mix.values()) - 1) < 1e-9
            assert sum(mix[s] for s in tilt) > 0.4, (seed, query, mix)
    assert corpus.topic_of("leche de avena").category.name == "Food & Drink"


def test_collections_are_deterministic_and_split_by_the_mix() -> None:
    query = {"type": "prompt", "sources": FOUR, "search_query": "matcha latte"}
    first = corpus.collect(3, query, 1000, START, END)
    assert first == corpus.collect(3, query, 1000, START, END)
    mix = corpus.source_mix(3, corpus.topic_of("matcha latte"))
    wanted = sum(mix[s] for s in FOUR)
    got = Counter(p["source"] for p in first)
    for source in FOUR:
        assert abs(got[source] - 1000 * mix[source] / wanted) <= 1


def test_preview_estimates_follow_the_same_mix() -> None:
    since, until = datetime(2025, 10, 1, tzinfo=UTC), datetime(2025, 11, 30, tzinfo=UTC)
    now = until  # collected at the window's end: every day of it is held
    for seed, query in ((0, "oat milk"), (1, "oat milk"), (7, "running shoes"), (7, "🔥")):
        alone = {s: estimate_results(seed, query, [s], since, until, now) for s in corpus.SOURCES}
        both = estimate_results(seed, query, FOUR, since, until, now)
        assert abs(both - sum(alone[s] for s in FOUR)) <= len(FOUR)  # rounding only
        posts = corpus.collect(seed, {"type": "prompt", "search_query": query}, 2000, since, until)
        got = Counter(p["source"] for p in posts)
        total = sum(alone.values())
        for source in corpus.SOURCES:  # the sample's shares are the population's
            assert abs(got[source] / 2000 - alone[source] / total) < 0.01, (query, source)
    # Volumes vary with the query and the seed; a narrower query finds fewer posts.
    volumes = {
        (seed, q): estimate_results(seed, q, FOUR, since, until, now)
        for seed in (0, 1)
        for q in ("oat milk", "oat milk barista edition foam")
    }
    assert len(set(volumes.values())) == 4
    assert all(
        volumes[(s, "oat milk")] > volumes[(s, "oat milk barista edition foam")] for s in (0, 1)
    )


def test_preview_over_http_estimates_by_source(sandbox: SandboxHandle, api: type[Api]) -> None:
    estimates = {}
    with httpx.Client(base_url=sandbox.url, headers={"x-api-key": sandbox.api_key}) as http:
        for sources in (["reddit"], ["tiktok"], ["reddit", "tiktok"]):
            body = {
                "type": "prompt",
                "search_query": "skincare routine",
                "sources": sources,
                "date_since": "2025-10-01",
                "date_until": "2025-11-30",
            }
            preview = api.data(http.post("/v1/research_previews", json=body))
            estimates[tuple(sources)] = preview["estimated_number_of_results"]
    assert (
        abs(estimates[("reddit", "tiktok")] - estimates[("reddit",)] - estimates[("tiktok",)]) <= 2
    )
    assert estimates[("tiktok",)] > estimates[("reddit",)]  # beauty: tiktok over reddit


@pytest.mark.parametrize("query", ["leche de avena", "🔥🔥🔥", "x", "?!", "Ça marche très bien"])
def test_odd_queries_get_a_plausible_mix(
    sandbox: SandboxHandle, api: type[Api], query: str
) -> None:
    five = list(corpus.SOURCES)
    posts = _collect(sandbox, api, query, 150, sources=five)
    counts = _counts(posts, five)
    assert sum(counts) == 150
    assert min(counts) > 0 and max(counts) < 0.8 * 150, counts  # every source, none alone
    with httpx.Client(base_url=sandbox.url, headers={"x-api-key": sandbox.api_key}) as http:
        body = {
            "type": "prompt",
            "search_query": query,
            "sources": five,
            "time_filter": "past_month",
        }
        preview = api.data(http.post("/v1/research_previews", json=body))
    assert preview["estimated_number_of_results"] > 0 and preview["posts"]


# --- sentiment in other languages ---------------------------------------------------------


def _vocabulary(topic: corpus.Topic) -> dict[str, str]:
    phrase = topic.phrases[0]
    return {
        "topic": phrase,
        "Topic": phrase[:1].upper() + phrase[1:],
        "brand": topic.brand,
        "Brand": topic.brand,
        "rival": topic.rivals[0],
        "Rival": topic.rivals[0],
        "price": topic.category.prices[2],
        "n": "3",
    }


TOPICS = [
    corpus.topic_of(q)
    for c in corpus.CATEGORIES
    for q in (c.keywords[0], c.keywords[-1], c.brands[-1])
]


@pytest.mark.parametrize("language", ["es", "fr", "de", "pt"])
def test_non_english_templates_score_in_their_own_language(language: str) -> None:
    templates = corpus.LOCAL_TEMPLATES[language]
    assert set(templates) == {"positive", "negative", "neutral"}
    assert all(templates[mood] for mood in templates)
    for mood, lines in templates.items():
        for line in lines:
            for topic in TOPICS:
                text = line.format_map(_vocabulary(topic))
                post = {"source": "tiktok", "id": "1", "title": "", "text": text,
                        "language": language}  # fmt: skip
                out = enrich(post, ["sentiment"])
                assert dominant(out["sentiment"]) == mood, (text, out["sentiment_score"])
                # The text decides, not the label: same verdict without the language field.
                assert dominant(score_text(text)) == mood, text
                if mood == "negative":
                    assert float(out["sentiment_score"]) < -0.05, text


def test_the_issue_sentence_is_negative() -> None:
    assert dominant(score_text("Sinceramente oat milk me decepcionó")) == "negative"


@pytest.mark.parametrize("language", sorted(lexicons.LEXICONS))
def test_every_lexicon_word_negation_and_intensifier_behaves(language: str) -> None:
    lexicon = lexicons.LEXICONS[language]
    negation = sorted(n for n in lexicon.negations if len(n) > 1)[0]
    booster = sorted(b for b, v in lexicon.boosters.items() if v > 0)[0]
    for entry, valence in lexicon.valence.items():
        word = entry.rstrip("*") + ("o" if entry.endswith("*") else "")
        alone = lexicons.compound(word, lexicon)
        assert alone * valence > 0, (language, word)
        assert lexicons.compound(f"{negation} {word}", lexicon) * valence < 0, (language, word)
        assert abs(lexicons.compound(f"{booster} {word}", lexicon)) > abs(alone), (language, word)
    # After the contrast word ("but") counts more than before it.
    good = next(w for w, v in lexicon.words.items() if v > 1.5)
    bad = next(w for w, v in lexicon.words.items() if v < -1.5)
    assert lexicons.compound(f"{good} {lexicon.contrast} {bad}", lexicon) < 0
    assert lexicons.compound(f"{bad} {lexicon.contrast} {good}", lexicon) > 0


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Hoy probé la leche de avena por primera vez", "es"),
        ("Je ne sais pas encore ce que j'en pense", "fr"),
        ("Ich habe es heute zum ersten Mal gekauft", "de"),
        ("Comprei ontem, depois conto o que achei", "pt"),
        ("I bought it yesterday and it was fine", "en"),
        ("🔥🔥", "en"),
    ],
)
def test_language_detection(text: str, language: str) -> None:
    assert lexicons.detect_language(text) == language


def test_non_english_collections_hold_negative_posts_over_http(
    sandbox: SandboxHandle, api: type[Api]
) -> None:
    for language in ("es", "fr", "de", "pt"):
        posts = _collect(
            sandbox, api, "oat milk", 120, language=language,
            content_analysis_actions=["sentiment"],
        )  # fmt: skip
        organic = [p for p in posts if p["content_type"] == "organic"]
        labels = Counter(dominant(p["sentiment"]) for p in organic)
        assert labels["negative"] > 0 and labels["positive"] > 0, (language, labels)
        negatives = [p for p in organic if dominant(p["sentiment"]) == "negative"]
        assert all(float(p["sentiment_score"]) < 0 for p in negatives)


# --- brands -------------------------------------------------------------------------------


def _pattern(brands: list[str], flags: int = 0) -> re.Pattern[str]:
    longest_first = sorted(brands, key=len, reverse=True)
    return re.compile(rf"(?<![\w#])({'|'.join(map(re.escape, longest_first))})(?!\w)", flags)


_AS_WRITTEN = _pattern(sorted(corpus.PLAIN_WORD_BRANDS))
_ANY_CASE = _pattern(sorted(corpus.BRANDS - corpus.PLAIN_WORD_BRANDS), re.IGNORECASE)
_BY_LOWER = {b.lower(): b for b in corpus.BRANDS}
_BY_TAG = {re.sub(r"\W+", "", b.lower()): b for b in corpus.BRANDS}


def _named(text: str) -> set[str]:
    """Brands a reader sees in ``text``: as written, any case unless a plain word, hashtags."""
    found = set(_AS_WRITTEN.findall(text))
    found.update(_BY_LOWER[b.lower()] for b in _ANY_CASE.findall(text))
    found.update(_BY_TAG[t.lower()] for t in re.findall(r"#(\w+)", text) if t.lower() in _BY_TAG)
    return found


def test_every_brand_the_corpus_writes_is_detected() -> None:
    written: Counter[str] = Counter()
    for brand in sorted(corpus.BRANDS):
        # The brand as searched, in the case a hurried analyst types, and inside a phrase.
        for query in (brand, brand.lower(), f"{brand} review"):
            for content_type in ("organic", "ad"):
                search = {"type": "prompt", "search_query": query, "content_type": content_type}
                for post in corpus.collect(5, search, 12, END - timedelta(days=30), END):
                    out = enrich(post, ["sentiment"])
                    named = _named(f"{post['title']}\n{post['text']}")
                    written.update(named)
                    assert named <= set(out["mentioned_brands"]), (query, post["text"])
    assert set(written) == corpus.BRANDS  # every brand of the list is written somewhere


def test_plain_word_brands_count_only_as_written() -> None:
    text = "I went on a run, a wise choice, then ate an apple. Notion? no notion. #oatly"
    assert corpus.brands_in("oatly, ALPRO and minor figures on sale") == [
        "Oatly", "Alpro", "Minor Figures",
    ]  # fmt: skip
    assert enrich({"title": "", "text": text}, ["x"])["mentioned_brands"] == ["Notion", "Oatly"]


def test_brands_are_detected_over_http(sandbox: SandboxHandle, api: type[Api]) -> None:
    posts = _collect(
        sandbox, api, "oat milk", 200, sources=list(corpus.SOURCES),
        content_analysis_actions=["sentiment"],
    )  # fmt: skip
    naming = [p for p in posts if _named(f"{p['title']}\n{p['text']}")]
    assert len(naming) > 50
    for post in naming:
        assert _named(f"{post['title']}\n{post['text']}") <= set(post["mentioned_brands"])


@pytest.mark.parametrize("query", ["Zorblax", "Quillfin"])
def test_a_brand_only_the_query_names_is_detected_too(
    sandbox: SandboxHandle, api: type[Api], query: str
) -> None:
    # A capitalised query the corpus does not know reads as a brand and its posts name it;
    # brand detection must find it, as it finds the corpus's own brands.
    posts = _collect(sandbox, api, query, 60, content_analysis_actions=["sentiment"])
    brand = re.compile(rf"(?<!\w){re.escape(query)}(?!\w)", re.I)
    naming = [p for p in posts if brand.search(f"{p['title']}\n{p['text']}")]
    assert len(naming) > 10
    missed = [p["text"][:80] for p in naming if query not in p["mentioned_brands"]]
    assert missed == []
    others = [p for p in posts if not brand.search(f"{p['title']}\n{p['text']}")]
    assert all(query not in p["mentioned_brands"] for p in others)


# --- ads ----------------------------------------------------------------------------------


def _check_ad_markers(post: dict[str, Any]) -> None:
    if post["content_type"] == "organic":
        assert post.get("ad_meta") is None
        assert post.get("ad_flight_days") is None and post.get("ad_flight_seconds") is None
        return
    assert post["content_type"] == "ad"
    meta = post["ad_meta"]
    assert list(meta) == list(vocab.AD_META_FIELDS)
    assert meta["advertiser_name"] == post["author"]["title"]  # the advertiser posts it
    assert meta["advertiser_name"].lower() in f"{post['title']} {post['text']}".lower()
    assert meta["landing_url"].startswith("https://") and meta["landing_url"] in post["text"]
    assert post["source"] in meta["publisher_platforms"]
    assert meta["is_active"] == (meta["ended_at"] is None)
    assert isinstance(post["ad_flight_seconds"], int) and post["ad_flight_seconds"] > 0
    assert post["ad_flight_days"] == post["ad_flight_seconds"] // 86_400
    assert meta["product_category"] == meta["advertiser_category"]
    for key in ("advertiser_id", "collation_id", "cta_text", "cta_type", "display_format"):
        assert isinstance(meta[key], str) and meta[key], key
    assert (meta["duration_sec"] is not None) == any(m["type"] == "video" for m in post["media"])


def test_ads_are_marked_the_same_way_everywhere() -> None:
    ads = 0
    for seed in (0, 1, 7):
        for query in ("oat milk", "Oatly", "credit card", "Acme", "🔥", "x"):
            for content_type in ("organic", "ad"):
                search = {"type": "prompt", "search_query": query, "content_type": content_type}
                for post in corpus.collect(seed, search, 300, START, END):
                    _check_ad_markers(post)
                    ads += post["content_type"] == "ad"
        urls = ["https://www.tiktok.com/@maya.chen", "https://www.instagram.com/oatly"]
        for content_type in ("organic", "ad"):
            search = {"type": "url", "source_urls": urls, "content_type": content_type}
            for post in corpus.collect(seed, search, 40, START, END):
                _check_ad_markers(post)
                assert (post["content_type"] == "ad") == (content_type == "ad")
    assert ads > 1000


def test_ads_are_marked_over_http(sandbox: SandboxHandle, api: type[Api]) -> None:
    posts = _collect(sandbox, api, "protein bar", 300, sources=list(corpus.SOURCES))
    kinds = Counter(p["content_type"] for p in posts)
    assert kinds["ad"] > 0 and kinds["organic"] > 0
    for post in posts:
        _check_ad_markers(post)
