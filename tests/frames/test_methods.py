"""The methods paragraph: its numbers are the frame's (filtered or not), what was asked
comes from the provenance, and bad input is named."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from research_sandbox import BRANDS, WINDOW, Research

import rdskit
import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.accessor import MissingColumnsError
from rdskit.frames.methods import MethodsText


def numbers_after(text: str, label: str) -> dict[str, int]:
    """``{name: n}`` of a ``(name n, name n)`` list following ``label``."""
    listed = re.search(re.escape(label) + r"[^(:]*[(:] ?([^).]*)", text).group(1)
    return {
        name.strip(): int(n.replace(",", ""))
        for name, n in re.findall(r"([\w ]+?) ([\d,]+)(?:,|$)", listed)
    }


def check_numbers(df: pd.DataFrame, text: str) -> None:
    n = len(df)
    assert text.startswith(f"We analysed {n:,} post")
    assert numbers_after(text, "We analysed") == df["source"].astype(str).value_counts().to_dict()
    first, last = (f"{df['created_at'].min():%Y-%m-%d}", f"{df['created_at'].max():%Y-%m-%d}")
    # A frame whose posts share one day (a small filtered slice) reads "published on <day>".
    assert (f"published on {first}" if first == last else f"published {first} to {last}") in text
    comments = int(df["comments"].map(len).sum())
    with_comments = int((df["comments"].map(len) > 0).sum())
    if comments:
        assert f"{comments:,} comment{'s' if comments != 1 else ''} on {with_comments:,} of" in text
    else:  # "0 comments on 0 of the posts" read as if comments had been looked for and not found
        assert "No comments were collected." in text
    analysed = int(df["sentiment"].notna().sum())
    assert f"Sentiment was analysed for {analysed:,} of the {n:,} posts" in text
    names = df["datasets"].map(lambda ds: [d["name"] for d in ds]).explode()
    assert numbers_after(text, "Posts per dataset") == names.value_counts().to_dict()


def test_numbers_are_the_frames(research: Research) -> None:
    df = research.mentions()
    paragraph = df.rds.methods()
    assert isinstance(paragraph, MethodsText) and paragraph._repr_markdown_() == str(paragraph)
    check_numbers(df, paragraph.text)
    # What was asked comes from the runs.
    for query in BRANDS.values():
        assert f"*{query}*" in paragraph and query in paragraph.text
    assert f"{WINDOW['from']} to {WINDOW['to']}" in paragraph.text
    assert "up to 3 comments per post" in paragraph.text
    assert "analyses run: sentiment, hook and cta" in paragraph.text
    assert "2 completed runs" in paragraph.text
    fetched = df.rds.provenance().fetched_at[:10]
    assert f"retrieved on {fetched} (UTC) from {research.client.base_url}" in paragraph.text
    assert f"rdskit {rdskit.__version__}" in paragraph.text
    assert research.api_key not in paragraph


def test_a_filtered_frame_reports_its_own_numbers(research: Research) -> None:
    df = research.mentions()
    reddit = df[(df["source"] == "reddit") & (df["num_likes"] > df["num_likes"].median())]
    text = reddit.rds.methods().text
    check_numbers(reddit, text)
    assert text != df.rds.methods().text
    assert "Authors and commenters were not pseudonymised" in text


def test_a_frame_without_comments_says_none_were_collected(research: Research) -> None:
    df = research.mentions()
    bare = df.assign(comments=[[] for _ in range(len(df))])
    text = bare.rds.methods().text
    check_numbers(bare, text)
    assert "0 comments" not in text


def test_steps_and_overlap_are_reported() -> None:
    rows = [
        {
            "source": "tiktok",
            "id": "1",
            "created_at": 1767225600,
            "datasets": [{"id": "ds_1", "name": "A"}, {"id": "ds_2", "name": "B"}],
            "author": {"title": "Maya", "title_url": "https://www.tiktok.com/@maya"},
        },
        {
            "source": "reddit",
            "id": "2",
            "created_at": 1767312000,
            "datasets": [{"id": "ds_1", "name": "A"}],
        },
    ]
    df = frames.mentions_frame(rows)
    text = df.rds.methods().text
    assert text.startswith("We analysed 2 posts (reddit 1, tiktok 1), published 2026-01-01 to")
    assert "Posts per dataset: A 2, B 1." in text
    assert "(1 of them belong to more than one dataset)" in text
    safe = df.rds.pseudonymise("a key for the methods test, 32ch", allow=["oatly"])
    text = safe.rds.methods().text
    assert "pseudonymised before analysis" in text and "HMAC-SHA-256" in text
    assert "Public accounts kept as they are: oatly." in text
    assert "a key for the methods test" not in text


KEY = "a key for the methods test, 32ch"


def _posts() -> pd.DataFrame:
    rows = [
        {
            "source": "tiktok",
            "id": str(i),
            "created_at": 1767225600 + i,
            "content_type": "ad" if i == 0 else "organic",
            "url": f"https://www.tiktok.com/@maya{i}/video/{i}",
            "text": f"Tried it with Sam Roe {i}",
            "author": {"title": f"Maya {i}", "title_url": f"https://www.tiktok.com/@maya{i}"},
            "comments": [{"id": f"c{i}", "author_username": "samroe", "author_name": "Sam Roe"}],
        }
        for i in range(4)
    ]
    return frames.mentions_frame(rows)


def test_each_step_is_stated_only_when_applied() -> None:
    """Flip each step (ads, pseudonymisation and its options, a comparison) and read the
    sentence that says whether it was taken."""
    df = _posts()
    base = df.rds.methods().text
    assert "They include 1 ad (a paid post by a brand), analysed together" in base
    assert "Authors and commenters were not pseudonymised" in base
    assert "Post URLs" not in base and "post URLs were removed" not in base
    assert "compared" not in base
    # Ads out.
    organic = df.rds.organic().rds.methods().text
    assert "Ads were left out before analysis (1 ad removed)." in organic
    assert "They include" not in organic
    assert "None of the posts is an ad." in df[df["content_type"] != "ad"].rds.methods().text
    # Pseudonymised: exactly what was done, with counts.
    safe = str(df.rds.pseudonymise(KEY).rds.methods())  # Markdown: `column` names
    assert "were not pseudonymised" not in safe
    assert "`author_title`" in safe and "`comments[].author_name`" in safe
    assert "4 post URLs were removed." in safe
    assert "`author_title_url` (4)" in safe
    assert "replaced in 4 texts" in safe  # "Sam Roe" written in each text
    assert "Verbatim texts were kept: a quoted passage can be searched for" in safe
    assert "Post ids were kept." in safe
    kept = df.rds.pseudonymise(KEY, post_urls="keep").rds.methods().text
    assert "Post URLs were kept" in kept and "post URLs were removed" not in kept
    dropped = df.rds.pseudonymise(KEY, text="drop").rds.methods().text
    assert (
        "Verbatim texts were removed (4 texts)." in dropped and "were kept: a quoted" not in dropped
    )
    cut = df.rds.pseudonymise(KEY, text="truncate").rds.methods().text
    assert "Verbatim texts were cut to their first words (4 texts)" in cut
    nobody = df.drop(columns=["text"]).rds.pseudonymise(KEY).rds.methods().text
    assert "written in texts were replaced" not in nobody
    # A comparison run on the frame is described with its methods.
    df.rds.compare(by="content_type")
    compared = df.rds.methods().text
    assert "Groups by content_type were compared (95% intervals)" in compared
    assert "Newcombe's hybrid score intervals" in compared


def test_bad_input_is_named() -> None:
    with pytest.raises(InvalidParameter, match="empty"):
        frames.mentions_frame([]).rds.methods()
    with pytest.raises(MissingColumnsError, match="'source'"):
        pd.DataFrame({"id": ["1"]}).rds.methods()


def test_other_frames_are_refused_by_name() -> None:
    profiles = frames.profiles_frame([{"id": "p1", "source": "tiktok", "username": "maya"}])
    with pytest.raises(InvalidParameter, match="profiles frame"):
        profiles.rds.methods()
    one = frames.mentions_frame(
        [{"source": "x", "id": "1", "comments": [{"id": "c", "author_username": "a"}]}]
    )
    assert "The data include 1 comment on 1 of the posts." in one.rds.methods().text
