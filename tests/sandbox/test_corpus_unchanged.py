"""Every product query's corpus is byte for byte what it was before social topics.

The lessons' committed outputs, their checkpoints and the blind sets' worlds are made of the
corpus of product queries; recognising social topics (:mod:`rdskit.sandbox.synth.social`)
must not move one byte of them. ``data/corpus_fingerprints.json`` was computed once on
main at the commit it names, before the social topics existed, by :func:`fingerprints`
below, and is never regenerated (what main added later, blind set 5's world among it, was
computed from main's own sources, which had not changed, and added):

- ``topics``: for every short quoted phrase of the repository's tests, notebooks, docs and
  sources at that commit (8,640 candidate queries, a subreddit's subject among them), a
  digest of what :func:`~rdskit.sandbox.synth.corpus.topic_of` resolved it to (key, phrases,
  category, brand, rivals) with its source mix and daily volume;
- ``corpora``: for the queries the course, the tests and the blind worlds collect, the
  SHA-256 of the posts :func:`~rdskit.sandbox.synth.corpus.collect` writes (two seeds,
  comments, ads only, a url search) with each post's latent voice and sentiment.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rdskit.sandbox.synth import corpus
from rdskit.sandbox.synth.truth import latent_sentiment, voice_of

BASELINE = Path(__file__).parent / "data" / "corpus_fingerprints.json"
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()  # the notebooks' fixed date, noon
COLLECTED = (
    "oat milk", "oat", "oatly", "Oatly", "alpro", "Alpro", "oatly barista", "alpro soy",
    "alpro barista", "oatly oat milk", "alpro oat milk", "cold brew", "tea", "soy milk",
    "skincare routine", "running shoes", "oat milk latte", "oat milk foam", "oat foam",
    "matcha latte", "matcha", "retinol serum", "x", "Acme", "home gym equipment", "yoga mat",
    "budgeting app", "student loan repayment", "electric bike", "cargo bike",
    "sourdough starter", "stand mixer", "cat food", "puppy training", "heat pump",
    "rooftop solar panels", "bus drivers strike", "public library closure", "houseplant care",
    "board game night",
)  # fmt: skip
URLS = (
    "https://www.reddit.com/r/PlantBasedDiet/",
    "https://www.tiktok.com/@maya.chen",
    "https://www.linkedin.com/in/oat-lab",
)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def topic_fingerprint(query: str) -> str:
    topic = corpus.topic_of(query)
    mix = corpus.source_mix(0, topic)
    parts = [topic.key, topic.phrases, topic.category.name, topic.brand, topic.rivals]
    parts += [topic.is_brand, sorted(mix.items()), corpus.daily_volume(0, topic)]
    return _digest(parts)[:10]


def _with_truth(posts: list[dict[str, Any]]) -> list[Any]:
    return [
        [
            post,
            voice_of(post["text"], post["content_type"]),
            latent_sentiment(post["text"], post["content_type"]),
        ]
        for post in posts
    ]


def corpus_fingerprint(query: str) -> str:
    prompt = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": query}
    runs = [
        corpus.collect(0, prompt, 300, num_comments_per_post=3, now=NOW),
        corpus.collect(7, prompt, 120, run_ordinal=2, now=NOW),
        corpus.collect(0, {**prompt, "content_type": "ad"}, 20, now=NOW),
    ]
    return _digest([_with_truth(posts) for posts in runs])


def fingerprints(candidates: list[str]) -> dict[str, Any]:
    """What the baseline file holds (see the module docs)."""
    urls = {"type": "url", "source_urls": list(URLS)}
    return {
        "topics": {query: topic_fingerprint(query) for query in candidates},
        "corpora": {query: corpus_fingerprint(query) for query in COLLECTED},
        "urls": _digest(_with_truth(corpus.collect(0, urls, 90, now=NOW))),
    }


def _baseline() -> dict[str, Any]:
    return json.loads(BASELINE.read_text())


BECOME_SOCIAL = {
    "Ethics and law": "Public policy",  # a course-map row (tests/test_course_files.py)
    "Health & Wellness": "Health",  # an audience profile's industry (synth/profiles.py)
    "Nurse": "Health",  # an audience profile's job title
    "nurse": "Health",
    "doctors": "Health",  # an assistant question's unknown dataset (eval/handwritten_questions)
    "music festivals": "Events",  # an audience interest (profiles.py, lesson 03's table)
}
"""The candidates that now read as social topics: none is a query anything collects."""


def test_every_candidate_query_resolves_to_the_same_topic() -> None:
    expected = _baseline()["topics"]
    changed = {q: corpus.topic_of(q).kind for q, d in expected.items() if topic_fingerprint(q) != d}
    assert changed == BECOME_SOCIAL


def test_the_collected_queries_write_the_same_bytes() -> None:
    baseline = _baseline()
    changed = [q for q, digest in baseline["corpora"].items() if corpus_fingerprint(q) != digest]
    assert not changed, f"corpus changed for {changed}"
    urls = {"type": "url", "source_urls": list(URLS)}
    assert _digest(_with_truth(corpus.collect(0, urls, 90, now=NOW))) == baseline["urls"]
