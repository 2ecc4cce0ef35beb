"""Prints, as JSON, every float-derived output of the sandbox's text work on realistic
corpora, and the BLAS kernel that ran it (run by ``test_determinism.py`` under several
OpenBLAS kernels and thread counts; not a test module itself).

What it covers: a dataset run's posts with every analysis (sentiment scores and shares,
emotions, evidence, hooks, CTAs, topics: :func:`collect_mentions`), pattern detection on
them (items, titles, synopses, member confidences, summary), and the frames' keyness
(:func:`rdskit.frames.compare.log_odds`).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import UTC, datetime

import numpy as np
from threadpoolctl import threadpool_info

from rdskit.frames.compare import log_odds
from rdskit.sandbox.backend.datasets import PARAM_KEYS, collect_mentions
from rdskit.sandbox.synth.clustering import Doc, detect_patterns, summarize

# Lesson 04's run and question, and a second, larger dataset on another topic.
CASES = [
    ("oat milk", 200, "Why do people switch to oat milk?"),
    ("running shoes", 400, "What do runners complain about?"),
]
WINDOW = (datetime(2025, 10, 1, tzinfo=UTC), datetime(2025, 12, 31, 23, 59, 59, tzinfo=UTC))


def _run(query: str, count: int, question: str) -> dict[str, object]:
    search = {"type": "prompt", "sources": ["reddit", "tiktok", "youtube", "instagram"]}
    params = dict.fromkeys(PARAM_KEYS) | {
        "search_query": {**search, "search_query": query},
        "count": count,
        "num_comments_per_post": 2,
        "content_analysis_actions": ["sentiment", "hook", "cta"],
    }
    posts = collect_mentions(0, params, ordinal=1, window=WINDOW)
    docs = [Doc(p["source"], p["id"], p.get("title"), p.get("text")) for p in posts]
    items = detect_patterns(docs, question)
    text = {doc.key: f"{doc.title or ''} {doc.text or ''}".lower() for doc in docs}
    words = {
        item.title: Counter(w for m in item.members for w in text[m.key].split()) for item in items
    }
    keyness = log_odds(words) if words else None
    return {
        "posts": posts,
        "items": [
            [item.title, item.synopsis, item.terms, [[*m.key, m.confidence] for m in item.members]]
            for item in items
        ],
        "summary": summarize(items, question, len(docs)),
        "keyness": None if keyness is None else keyness.to_dict("split"),
    }


def main() -> None:
    blas = [
        {key: info.get(key) for key in ("internal_api", "architecture", "num_threads")}
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    ]
    results = [_run(*case) for case in CASES]
    # repr-exact floats: json writes the shortest string that round-trips each float.
    json.dump({"blas": blas, "numpy": np.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
