"""An independent check that every sentence of ``methods()`` is true of the frame and its
record under combinations of steps nobody tested together: ads in, out or unknown;
pseudonymised or not (and a stack of both); compared before or after other steps; a
filtered frame; two reads with different filters; a frame stacked with itself; a frame
back from parquet. Each sentence expected here is derived from how the test built the
frame, not from rdskit."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import rdskit  # noqa: F401  (registers df.rds)
import rdskit.frames as frames
from rdskit.frames.provenance import attach

KEY = "a key for the review of methods, 32"


def _posts(n: int = 6, *, content_type: bool = True, source: str = "tiktok") -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for i in range(n):
        post: dict[str, Any] = {
            "source": source,
            "id": f"{source}{i}",
            "created_at": 1767225600 + 3600 * i,
            "text": f"oat milk foam number {i}",
            "author": {"title": f"Maya {i}", "title_url": f"https://www.tiktok.com/@maya{i}"},
            "sentiment": {"negative": "0.1", "neutral": "0.1", "positive": "0.8"},
        }
        if content_type:
            post["content_type"] = "ad" if i == 0 else "organic"
        rows.append(post)
    return frames.mentions_frame(rows)


def _loaded(frame: pd.DataFrame, query: dict[str, Any] | None = None) -> pd.DataFrame:
    """The frame as a loader records it: one read of all its rows."""
    fetch = {
        "resource": "mentions",
        "base_url": "http://127.0.0.1:1",
        "query": query or {},
        "fetched_at": "2026-11-20T12:00:00+00:00",
        "rows": len(frame),
    }
    return attach(frame, [fetch], kind="mentions")


def _text(frame: pd.DataFrame) -> str:
    return str(frame.rds.methods().text)


# --- ads ---------------------------------------------------------------------------------


def test_unknown_content_types_are_not_called_organic() -> None:
    unknown = _text(_posts(content_type=False))
    assert "None of the posts is an ad" not in unknown and "holds no ads" not in unknown
    assert "Whether posts are ads is not known: no post has a content type." in unknown
    mixed = _posts()
    mixed.loc[mixed.index[1:3], "content_type"] = None  # 1 ad, 3 organic, 2 unknown
    text = _text(mixed)
    assert "They include 1 ad (a paid post by a brand), analysed together" in text
    assert "2 posts have no content type: whether they are ads is not known." in text
    organic = _text(mixed.rds.organic())
    assert "Ads were left out before analysis (1 ad removed)." in organic
    assert "2 posts have no content type" in organic  # organic() keeps them, as it says


# --- what the frame is of -------------------------------------------------------------------


def test_a_filtered_frame_says_it_is_a_subset_of_what_was_loaded() -> None:
    df = _loaded(_posts(6))
    assert "subset" not in _text(df) and "narrowed" not in _text(df)
    part = df[df["id"].isin(["tiktok1", "tiktok2"])]
    text = _text(part)
    assert text.startswith("We analysed 2 posts (tiktok 2)")
    assert "They are 2 of the 6 posts loaded: the frame was narrowed after loading" in text
    # organic() explains the rows it removed: no subset claimed.
    assert "narrowed" not in _text(df.rds.organic())
    assert "They are 2 of the 5 posts left of the 6 loaded once 1 ad was left out" in _text(
        df.rds.organic()[lambda f: f["id"].isin(["tiktok1", "tiktok2"])]
    )


def test_a_frame_stacked_with_itself_does_not_claim_each_post_once() -> None:
    df = _loaded(_posts(3))
    twice = pd.concat([df, df])
    text = _text(twice)
    assert "appear once each" not in text
    assert "3 rows of the frame repeat a post of an earlier row" in text
    assert "appear once each" in _text(df)


def test_reads_with_different_filters_are_described_read_by_read() -> None:
    a = _loaded(_posts(4, source="tiktok"))
    b = _loaded(_posts(2, source="reddit"), {"sources": ["reddit"]})
    text = _text(pd.concat([a, b]))
    assert "in 2 reads: 4 posts without a filter; 2 posts with sources reddit." in text
    assert "with sources reddit." in _text(b) and "reads" not in _text(b)


# --- pseudonymisation ----------------------------------------------------------------------


def test_a_stack_of_pseudonymised_and_plain_data_says_so() -> None:
    safe = _posts(3).rds.pseudonymise(KEY)
    assert "But" not in _text(safe)
    plain = _posts(2, source="reddit")
    text = _text(pd.concat([safe, plain]))
    assert "pseudonymised before analysis" in text
    assert "But 2 posts of this frame have an author that is not a pseudonym" in text


# --- comparisons -----------------------------------------------------------------------------


def _compare(frame: pd.DataFrame) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame.rds.compare(by="source", resamples=20)


def test_a_comparison_made_before_later_steps_says_it_is_of_earlier_data() -> None:
    df = pd.concat([_posts(4), _posts(4, source="reddit")])
    _compare(df)
    assert "Groups by source were compared (95% intervals)" in _text(df)
    later = df.rds.organic().rds.pseudonymise(KEY)  # carries the record of the comparison
    text = _text(later)
    assert "Groups by source were compared" not in text
    assert (
        "On an earlier state of these data (8 posts, before ads were left out and "
        "pseudonymisation; not these 6), groups by source were compared" in text
    )
    _compare(later)  # compared again, on these very posts: said plainly too
    assert "Groups by source were compared (95% intervals)" in _text(later)


# --- every combination -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ads_out", "pseudonymised", "compared", "filtered"),
    list(itertools.product([False, True], repeat=4)),
)
def test_every_combination_of_steps_is_told_as_applied(
    ads_out: bool, pseudonymised: bool, compared: bool, filtered: bool, tmp_path: Path
) -> None:
    df = _loaded(pd.concat([_posts(5), _posts(5, source="reddit")]))
    expected_ads = 2  # one ad per source
    if ads_out:
        df = df.rds.organic()
    if filtered:
        df = df[df["id"] != "tiktok3"]
    if pseudonymised:
        df = df.rds.pseudonymise(KEY, text="drop")
    if compared:
        _compare(df)
    # The same sentences from the frame read back from parquet.
    df.rds.to_parquet(tmp_path / "f.parquet")
    back = frames.read_parquet(tmp_path / "f.parquet")
    for frame in (df, back):
        text = _text(frame)
        n = 10 - (expected_ads if ads_out else 0) - (1 if filtered else 0)
        assert text.startswith(f"We analysed {n} posts (")
        assert ("Ads were left out before analysis (2 ads removed)." in text) is ads_out
        assert ("They include 2 ads (paid posts by brands)" in text) is (not ads_out)
        loaded = (
            "of the 8 posts left of the 10 loaded once 2 ads were left out"
            if ads_out
            else "of the 10 posts loaded"
        )
        assert (f"They are {n} {loaded}" in text) is filtered
        assert ("were not pseudonymised" in text) is (not pseudonymised)
        assert ("pseudonymised before analysis with keyed hashes" in text) is pseudonymised
        assert ("Verbatim texts were removed (" in text) is pseudonymised
        assert ("Groups by source were compared" in text) is compared
        assert "earlier state" not in text
        assert "appear once each" in text


def test_a_url_search_is_not_said_to_cover_the_past_365_days() -> None:
    df = _posts(2)
    run = {
        "id": "run_1",
        "status": "completed",
        "params": {"search_query": {"type": "url", "source_urls": ["https://x.test/p/1"]}},
    }
    prompt = {**run, "id": "run_2", "params": {"search_query": {"type": "prompt"}}}
    fetch = {"resource": "mentions", "query": {}, "fetched_at": "2026-11-20T12:00:00Z"}
    text = _text(attach(df.copy(), [{**fetch, "runs": [run]}]))
    assert "365 days" not in text
    assert "for posts published at any date (a URL search applies no date filter)" in text
    assert "in the 365 days before each run" in _text(
        attach(df.copy(), [{**fetch, "runs": [prompt]}])
    )
