"""Social topics in the synthetic corpus (rdskit.sandbox.synth.social): a query about public
talk is written as that kind of talk, deterministically, with its latent labels."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from rdskit.sandbox.synth import corpus, social
from rdskit.sandbox.synth.enrichment import dominant, enrich, score_text
from rdskit.sandbox.synth.truth import latent_sentiment, stance_of, voice_of
from rdskit.validation import Codebook, cohen_kappa

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()
# None of these is a phrase of the module's examples: the kind comes from the words.
QUERIES = {
    "flu jab for toddlers": "Health",
    "measles outbreak": "Health",
    "mayor race polls": "Politics",
    "referendum on independence": "Politics",
    "rent control": "Public policy",
    "fuel tax protest": "Public policy",
    "jazz concert in the park": "Events",
    "Glastonbury festival": "Events",
}
PRODUCT_LINES = ("The delivery is", "customer service", "packaging", "Shop now", "full review")


def _collect(query: str, count: int = 400, seed: int = 3, **kw: Any) -> list[dict[str, Any]]:
    search = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": query}
    return corpus.collect(seed, search, count, now=NOW, **kw)


@pytest.mark.parametrize(("query", "kind"), sorted(QUERIES.items()))
def test_a_query_naming_public_talk_gets_that_kind(query: str, kind: str) -> None:
    topic = corpus.topic_of(query)
    assert topic.kind == kind and topic.category.name == kind and not topic.is_brand
    assert topic.brand in social.KINDS[[k.name for k in social.KINDS].index(kind)].actors


def test_product_words_still_win_a_product_query() -> None:
    assert corpus.topic_of("oat milk").kind is None
    assert corpus.topic_of("marathon training shoes").kind is None  # Fitness, not Events
    assert corpus.topic_of("Heat pumps").kind is None  # the blind world's query


def test_every_social_post_is_read_back_to_its_voice_and_stance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    written: dict[str, str] = {}
    real = corpus._text

    def recording(rng: Any, source: str, voice: str, language: str, *rest: Any) -> Any:
        title, text = real(rng, source, voice, language, *rest)
        written[text] = (
            voice if language == "en" else "local:" + corpus.LOCAL_MOOD.get(voice, "neutral")
        )
        return title, text

    monkeypatch.setattr(corpus, "_text", recording)
    posts = [p for query in QUERIES for p in _collect(query, 150, num_comments_per_post=2)]
    organic = [p for p in posts if p["content_type"] == "organic"]
    assert len(organic) > 1000
    for post in organic:
        found = voice_of(post["text"])
        assert found == written[post["text"]] or (post["source"] == "linkedin" and found == "pro")
        stance = stance_of(post["text"])
        assert stance == social.STANCE.get(found, "none"), post["text"]
        text = post["text"] + " ".join(c["body"] for c in post["comments"])
        assert not any(line in text for line in PRODUCT_LINES), text
    assert {stance_of(p["text"]) for p in organic} == {"support", "oppose", "none"}
    ads = [p for p in posts if p["content_type"] == "ad"]
    assert ads and {latent_sentiment(p["text"], "ad") for p in ads} == {"neutral"}
    assert all(stance_of(p["text"], "ad") is None for p in ads)
    # A product post has no stance.
    oat = [p for p in _collect("oat milk", 50) if p["content_type"] == "organic"]
    assert {stance_of(p["text"]) for p in oat} == {None}


def test_posts_carry_the_special_categories_of_their_kind() -> None:
    health = " ".join(p["text"] for p in _collect("measles outbreak", 400))
    assert "my asthma" in health or "chronic illness" in health  # data concerning health
    politics = " ".join(p["text"] for p in _collect("mayor race polls", 400))
    assert "I'm voting for" in politics  # a political opinion
    assert {k.special_category for k in social.KINDS} == {
        "health data",
        "political opinions",
        None,
    }


def test_the_same_query_and_seed_give_the_same_bytes() -> None:
    first = json.dumps(_collect("rent control", 200, num_comments_per_post=2), sort_keys=True)
    assert first == json.dumps(
        _collect("rent control", 200, num_comments_per_post=2), sort_keys=True
    )
    assert first != json.dumps(_collect("rent control", 200, seed=4, num_comments_per_post=2))
    # Pinned: the same bytes on every machine and day (a change to the templates moves it).
    assert hashlib.sha256(first.encode()).hexdigest()[:16] == "40da7822212efc8f"


def test_the_service_labels_agree_with_the_latent_truth_imperfectly() -> None:
    rows = [
        (dominant(enrich(p, ["sentiment"])["sentiment"]), latent_sentiment(p["text"]))
        for p in _collect("fuel tax protest", 400)
        if p["content_type"] == "organic"
    ]
    service, truth = zip(*rows, strict=True)
    book = Codebook.of("sentiment", ["negative", "neutral", "positive"])
    kappa = cohen_kappa({"service": list(service), "truth": list(truth)}, book)
    assert 0.2 < kappa < 0.9, kappa


@pytest.mark.parametrize("language", ["es", "fr", "de", "pt"])
def test_non_english_lines_score_in_their_own_language(language: str) -> None:
    for mood, lines in social.LOCAL_TEMPLATES[language].items():
        for line in lines:
            text = line.format(topic="la reforma", Topic="La reforma")
            assert dominant(score_text(text)) == mood, text
