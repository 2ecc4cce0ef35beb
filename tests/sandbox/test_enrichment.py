"""Content analysis on known sentences: sentiment, emotions, hooks, CTAs, topics, brands."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from rdskit.sandbox.synth import corpus
from rdskit.sandbox.synth.enrichment import EMOTIONS, dominant, enrich, score_text

ALL = ["sentiment", "hook", "cta"]
ANALYSIS = {
    "sentiment", "sentiment_score", "emotions", "tone_of_voice", "vibe", "hooks",
    "narrative_structure", "cta", "summary", "content_topics", "questions",
    "mentioned_brands", "entities", "category", "content_intention",
}  # fmt: skip


def post(text: str, title: str = "", **extra: object) -> dict[str, object]:
    return {"source": "reddit", "id": "1", "title": title, "text": text, **extra}


def test_no_actions_add_no_fields() -> None:
    original = post("I love it")
    assert enrich(original, []) == original
    assert enrich(original, None) == original
    assert enrich(original, []) is not original


def test_each_action_adds_only_its_fields() -> None:
    general = {
        "summary",
        "content_topics",
        "questions",
        "mentioned_brands",
        "entities",
        "category",
        "content_intention",
    }
    text = "Is Oatly worth it? Follow for more!"
    assert set(enrich(post(text), ["sentiment"])) & ANALYSIS == general | {
        "sentiment", "sentiment_score", "emotions", "tone_of_voice", "vibe",
    }  # fmt: skip
    assert set(enrich(post(text), ["hook"])) & ANALYSIS == general | {
        "hooks",
        "narrative_structure",
    }
    assert set(enrich(post(text), ["cta"])) & ANALYSIS == general | {"cta"}
    assert set(enrich(post(text), ["transcript_summary"])) & ANALYSIS == general


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I absolutely love this oat milk, the foam is amazing and it tastes great!", "positive"),
        (
            "This is terrible. It leaked everywhere and customer service ignored me. Awful.",
            "negative",
        ),
        ("The carton is one litre and it is sold in the chilled aisle.", "neutral"),
    ],
)
def test_dominant_sentiment(text: str, expected: str) -> None:
    out = enrich(post(text), ["sentiment"])
    shares = out["sentiment"]
    assert set(shares) == {"negative", "neutral", "positive"}
    assert all(isinstance(v, str) and len(v.split(".")[1]) == 3 for v in shares.values())
    assert abs(sum(float(v) for v in shares.values()) - 1) < 0.0015
    assert dominant(shares) == expected
    assert isinstance(out["sentiment_score"], str) and -1 <= float(out["sentiment_score"]) <= 1
    assert dominant(score_text(text)) == expected


def test_emotions() -> None:
    happy = enrich(post("So happy and excited, I love it! 😍"), ["sentiment"])["emotions"]
    angry = enrich(
        post("Furious. This scam is ridiculous and the staff were rude 😡"), ["sentiment"]
    )["emotions"]
    assert list(happy) == list(EMOTIONS)
    assert dominant(happy) == "joy" and dominant(angry) == "anger"
    assert dominant(enrich(post("The shop opens at nine."), ["sentiment"])["emotions"]) == "neutral"


@pytest.mark.parametrize(
    ("opening", "hook"),
    [
        ("Has anyone tried the new oat milk?", "question"),
        ("5 things nobody tells you about oat milk.", "list"),
        ("Unpopular opinion: oat milk is overrated.", "controversy"),
        ("Last week I tried oat milk for the first time.", "story"),
        ("How to make the perfect flat white at home.", "how_to"),
        ("This is hands down the best oat milk ever.", "bold_claim"),
        ("Oatly vs Alpro: I tested both.", "comparison"),
        ("The carton is blue.", "statement"),
    ],
)
def test_hooks_from_the_opening(opening: str, hook: str) -> None:
    out = enrich(post(f"{opening} More text follows here."), ["hook"])
    assert hook in [h["type"] for h in out["hooks"]]
    assert all(h["text"] == opening for h in out["hooks"])
    assert set(out["narrative_structure"]) == {"text", "evidence"}


def test_the_title_is_the_opening() -> None:
    out = enrich(post("Which one foams better?", title="Oatly vs Alpro?"), ["hook"])
    assert [h["type"] for h in out["hooks"]] == ["comparison", "question"]
    assert out["hooks"][0]["text"] == "Oatly vs Alpro?"


@pytest.mark.parametrize(
    ("text", "cta"),
    [
        ("Great stuff. Link in bio for the full review.", "Link in bio"),
        ("New flavour out now. Shop now while stocks last.", "Shop now"),
        ("Loved it. Follow for more oat milk content!", "Follow"),
        ("Full review in the video. Subscribe for more.", "Subscribe"),
        ("What do you think? Let me know in the comments.", "Comment"),
        ("Save 20% this week only.", "Use discount code"),
        ("Read the study https://example.org/oat", "Visit link"),
        ("Just a quiet morning with coffee.", None),
    ],
)
def test_calls_to_action(text: str, cta: str | None) -> None:
    out = enrich(post(text), ["cta"])
    if cta is None:
        assert out["cta"] is None
    else:
        assert out["cta"]["text"] == cta
        assert out["cta"]["evidence"]


def test_general_analysis() -> None:
    text = (
        "I switched from Alpro to Oatly last month. The taste is much better but the price is "
        "high. Does anyone know a cheaper store? Honestly the foam is great for lattes."
    )
    out = enrich(post(text), ["sentiment"])
    assert out["mentioned_brands"] == ["Alpro", "Oatly"]
    assert {"Alpro", "Oatly"} <= set(out["entities"])
    topics = {t["text"]: t["evidence"] for t in out["content_topics"]}
    assert {"taste", "price"} <= set(topics)
    assert "price" in topics["price"]
    assert out["questions"] == [
        {
            "text": "Does anyone know a cheaper store?",
            "evidence": "Does anyone know a cheaper store?",
        }
    ]
    assert out["category"] == "Food & Drink"
    assert out["content_intention"] == "comparison"
    assert out["summary"].startswith("I switched from Alpro to Oatly last month.")
    assert len(out["summary"]) <= 280


def test_brands_match_as_written() -> None:
    assert enrich(post("Went on a run, then switched to On shoes."), ["x"])["mentioned_brands"] == [
        "On"
    ]
    assert enrich(post("I went on holiday and it was wise."), ["x"])["mentioned_brands"] == []


def test_tone_and_intention() -> None:
    ad = enrich(post("Meet the new Oatly Barista. Shop now.", content_type="ad"), ["sentiment"])
    assert ad["tone_of_voice"]["text"] == "promotional" and ad["content_intention"] == "promotion"
    angry = enrich(
        post("Worst purchase ever. Broken on day one, total waste of money."), ["sentiment"]
    )
    assert (
        angry["tone_of_voice"]["text"] == "critical" and angry["content_intention"] == "complaint"
    )
    assert min(angry["vibe"].values()) >= 0 and max(angry["vibe"].values()) <= 1


def test_enriching_the_corpus_is_deterministic_and_fast_enough() -> None:
    end = datetime(2026, 1, 1, tzinfo=UTC)
    query = {"type": "prompt", "sources": list(corpus.SOURCES), "search_query": "oat milk"}
    posts = corpus.collect(7, query, 2000, end - timedelta(days=90), end)
    started = time.process_time()  # CPU time: a busy CI machine's other jobs do not count
    out = [enrich(p, ALL) for p in posts]
    elapsed = time.process_time() - started
    assert out == [enrich(p, ALL) for p in posts]
    assert elapsed < 10  # ~0.4 ms a post (VADER is a quarter of it)
    labels = {dominant(p["sentiment"]) for p in out}
    assert labels == {"positive", "negative", "neutral"}
    assert len({h["type"] for p in out for h in p["hooks"]}) >= 8
