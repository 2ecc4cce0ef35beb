"""The hand-coded reference sample of lesson 09 (notebooks/data/oat-milk-hand-coded.csv).

The lesson compares the service's labels with these human codes, so the file must be
well-formed (schema, code values, one row per post, a stratified sample of 40-60 posts) and
every coded post must still be the sandbox's post with the text that was coded: if the
synthetic corpus changes, this test fails and names the posts to re-draw and re-code
(notebooks/data/README.md says how), instead of the lesson silently measuring other texts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import rdskit
from rdskit.sandbox import SandboxHandle, start

SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "data" / "oat-milk-hand-coded.csv"
COLUMNS = [
    "source",
    "id",
    "title",
    "text",
    "human_sentiment",
    "human_complaint",
    "coder_note",
    "language",
    "content_type",
    "recorded_service_sentiment",
]
SENTIMENTS = {"positive", "negative", "neutral"}
# The collection the sample was drawn from: lesson 09's run on the embedded sandbox's
# default seed and plan (Pro, which may pin the window).
COLLECTION = {
    "search_query": {
        "type": "prompt",
        "sources": ["reddit", "tiktok", "instagram", "youtube"],
        "search_query": "oat milk",
    },
    "count": 200,
    "date_range": {"from": "2025-10-01", "to": "2025-11-30"},
    "content_analysis_actions": ["sentiment"],
}


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    return pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def lesson_sandbox() -> Iterator[SandboxHandle]:
    """A sandbox with the notebooks' default seed (0), fast."""
    with start(speed=500, rate_limit=10_000, seed=0) as handle:
        yield handle


def test_schema_and_codes(sample: pd.DataFrame) -> None:
    assert list(sample.columns) == COLUMNS
    assert 40 <= len(sample) <= 60
    assert not sample.duplicated(["source", "id"]).any()
    assert (sample["text"].str.strip() != "").all()
    assert set(sample["human_sentiment"]) == SENTIMENTS
    assert set(sample["human_complaint"]) == {"yes", "no"}
    assert set(sample["recorded_service_sentiment"]) <= SENTIMENTS
    assert set(sample["content_type"]) <= {"organic", "ad"}
    assert (sample["language"].str.fullmatch(r"[a-z]{2}")).all()


def test_the_sample_is_stratified_and_covers_the_failure_cases(sample: pd.DataFrame) -> None:
    # Every source, and within each source every service label the collection offers.
    assert set(sample["source"]) == set(COLLECTION["search_query"]["sources"])
    strata = sample.groupby(["source", "recorded_service_sentiment"]).size()
    assert len(strata) >= 10, strata
    # The oversampled cases the lesson reads: non-English posts (several languages) and ads.
    non_english = sample[sample["language"] != "en"]
    assert len(non_english) >= 6 and non_english["language"].nunique() >= 3
    assert (sample["content_type"] == "ad").sum() >= 4
    # Every code is usable as a class: at least a few posts each.
    assert sample["human_sentiment"].value_counts().min() >= 5
    assert sample["human_complaint"].value_counts().min() >= 5


def test_every_coded_post_is_still_the_sandboxs_post(
    sample: pd.DataFrame, lesson_sandbox: SandboxHandle
) -> None:
    account = lesson_sandbox.admin.create_account(plan="Pro")
    with rdskit.Client(account.api_key, base_url=lesson_sandbox.url) as client:
        dataset = client.datasets.create("09 oat milk validation")
        client.datasets.runs.create(dataset.id, **COLLECTION).wait(progress=False)
        posts = client.mentions.to_frame(dataset_ids=[dataset.id])
    posts = posts.astype({"source": str})[["source", "id", "text", "language", "content_type"]]
    found = sample.merge(posts, on=["source", "id"], how="left", suffixes=("", "_sandbox"))
    missing = found[found["text_sandbox"].isna()]
    assert missing.empty, f"not in the sandbox's collection any more: {missing[['source', 'id']]}"
    changed = found[found["text_sandbox"].str.strip() != found["text"].str.strip()]
    assert changed.empty, f"texts changed since they were coded: {changed[['source', 'id']]}"
    assert (found["language_sandbox"].astype(str) == found["language"]).all()
    assert (found["content_type_sandbox"].astype(str) == found["content_type"]).all()
