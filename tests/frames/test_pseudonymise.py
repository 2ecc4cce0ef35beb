"""Pseudonymisation: stable keyed pseudonyms across frames and calls, nothing identifying
left in any column or exported file, the key nowhere."""

from __future__ import annotations

import hashlib
import hmac
import json
import warnings
import zipfile
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest
from research_sandbox import Research

import rdskit.frames as frames
from rdskit.errors import InvalidParameter
from rdskit.frames.pseudonymise import Pseudonymiser, handle_from_url

KEY = "0f8c6e2d9b7a41c3a5e9d2b8c4f6a1e7"
OTHER_KEY = "an entirely different key, 32 ch"


def identities(mentions: pd.DataFrame, profiles: pd.DataFrame) -> set[str]:
    """Every handle, display name and profile URL of the original frames that is not also
    an ordinary word of the posts (a brand account's name is its brand)."""
    comments = mentions.rds.comments()
    found = {
        *mentions["author_title"].dropna(),
        *mentions["author_title_url"].dropna(),
        *(handle_from_url(u) for u in mentions["author_title_url"].dropna()),
        *comments["author_username"].dropna(),
        *comments["author_name"].dropna(),
        *profiles["username"].dropna(),
        *profiles["display_name"].dropna(),
        *profiles["external_link"].dropna(),
        *profiles["avatar_url"].dropna(),
        *mentions["author_avatar_url"].dropna(),
    }
    words = " ".join(mentions["text"].fillna("")).casefold()
    return {x for x in found if x and x.casefold() not in words and len(x) > 3}


@pytest.fixture(scope="module")
def frames_in(research: Research) -> tuple[pd.DataFrame, pd.DataFrame]:
    mentions = research.mentions()
    profiles = research.client.audience_profiles.to_frame(audience_dataset_ids=[research.audience])
    return mentions, profiles


def test_pseudonyms_are_hmac_sha256_truncated_and_prefixed() -> None:
    people = Pseudonymiser(KEY)
    expected = hmac.new(KEY.encode(), b"tiktok\x1fmaya.chen", hashlib.sha256).hexdigest()
    assert people.pseudonym("tiktok", "@Maya.Chen ") == "u_" + expected[:12]
    assert Pseudonymiser(KEY, prefix="p", length=20).pseudonym("tiktok", "maya.chen") == (
        "p" + expected[:20]
    )
    # Same handle on another source: another person.
    assert people.pseudonym("reddit", "maya.chen") != people.pseudonym("tiktok", "maya.chen")


def test_stable_across_frames_and_calls(frames_in: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    mentions, profiles = frames_in
    comments = mentions.rds.comments()
    safe = mentions.rds.pseudonymise(KEY)
    again = mentions.rds.pseudonymise(KEY)
    pd.testing.assert_frame_equal(safe, again)
    safe_comments = comments.rds.pseudonymise(KEY)
    safe_profiles = profiles.rds.pseudonymise(KEY)
    # Comments pseudonymised on their own equal the mentions frame's nested comments.
    nested = safe.rds.comments()
    assert nested["author_username"].tolist() == safe_comments["author_username"].tolist()
    # Every profile's person gets the pseudonym they have as an author or commenter.
    handle = mentions["author_title_url"].map(handle_from_url, na_action="ignore")
    as_author = dict(
        zip(
            zip(mentions["source"].astype(str), handle.str.lower(), strict=True),
            safe["author_title"],
            strict=True,
        )
    )
    as_commenter = dict(
        zip(
            zip(
                comments["source"].astype(str), comments["author_username"].str.lower(), strict=True
            ),
            safe_comments["author_username"],
            strict=True,
        )
    )
    matched = 0
    for (source, username), pseudonym in zip(
        zip(profiles["source"].astype(str), profiles["username"].str.lower(), strict=True),
        safe_profiles["username"],
        strict=True,
    ):
        for seen in (as_author, as_commenter):
            if (source, username) in seen:
                assert seen[(source, username)] == pseudonym
                matched += 1
    assert matched >= len(profiles) // 2
    assert (safe_profiles["display_name"] == safe_profiles["username"]).all()
    # Another key: other pseudonyms.
    assert not set(mentions.rds.pseudonymise(OTHER_KEY)["author_title"]) & set(safe["author_title"])


def test_nothing_identifying_remains_anywhere(
    frames_in: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    mentions, profiles = frames_in
    secrets = identities(mentions, profiles)
    assert len(secrets) > 100  # the scan has something to look for
    safe = mentions.rds.pseudonymise(KEY)
    safe_profiles = profiles.rds.pseudonymise(KEY)
    safe_comments = mentions.rds.comments().rds.pseudonymise(KEY)
    written = [
        safe.rds.to_csv(tmp_path / "posts.csv"),
        tmp_path / "posts.csv.provenance.json",
        safe.rds.to_excel(tmp_path / "posts.xlsx"),
        safe_profiles.rds.to_csv(tmp_path / "profiles.csv", excel=False),
        safe_comments.rds.to_csv(tmp_path / "comments.csv"),
    ]
    safe.to_parquet(tmp_path / "posts.parquet")
    written.append(tmp_path / "posts.parquet")
    nx.write_gexf(safe.rds.network("reply"), tmp_path / "reply.gexf")
    nx.write_graphml(safe.rds.network("author-brand"), tmp_path / "brands.graphml")
    written += [tmp_path / "reply.gexf", tmp_path / "brands.graphml"]
    blobs = {p.name: p.read_bytes() for p in written}
    # An .xlsx is a zip of XML files: scan what is inside.
    with zipfile.ZipFile(tmp_path / "posts.xlsx") as book:
        blobs["posts.xlsx"] = b"".join(book.read(n) for n in book.namelist())
    for frame in (safe, safe_profiles, safe_comments):
        blobs[f"frame {frame.rds.kind}"] = frame.to_csv().encode() + repr(frame).encode()
    for name, blob in blobs.items():
        text = blob.decode("utf-8", errors="replace")
        assert not [s for s in secrets if s in text], f"identities left in {name}"
        assert KEY not in text and KEY.encode().hex() not in text, f"the key is in {name}"


def test_the_key_is_nowhere(frames_in: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    mentions, _ = frames_in
    safe = mentions.rds.pseudonymise(KEY, allow=["oatly"])
    people = Pseudonymiser(KEY)
    for text in (
        json.dumps(safe.attrs, default=str),
        repr(safe.rds.provenance()),
        repr(people),
        repr(vars(people)),
        str(safe.rds.methods()),
    ):
        assert KEY not in text
    step = safe.rds.provenance().pseudonymised
    assert step is not None and step.settings["method"] == "HMAC-SHA-256"
    assert step.settings["allow"] == ["oatly"] and "key" not in step.settings
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(people)


def test_handles_in_texts_and_profile_links() -> None:
    df = frames.mentions_frame(
        [
            {
                "source": "tiktok",
                "id": "1",
                "author": {
                    "title": "Maya Chen",
                    "title_url": "https://www.tiktok.com/@maya.chen",
                    "headline": "@maya.chen",
                },
                "url": "https://www.tiktok.com/@maya.chen/video/1",
                "text": "ask @Sam_99, or @oatly! see https://www.tiktok.com/@sam_99 (me@mail.com)",
                "hooks": [{"type": "question", "text": "Did @maya.chen try it?"}],
                "comments": [
                    {
                        "id": "c1",
                        "author_username": "sam_99",
                        "author_name": "Sam Roe",
                        "body": "@Maya.Chen yes",
                    },
                ],
            },
            {"source": "reddit", "id": "t3_b", "url": "https://www.reddit.com/r/x/comments/b/"},
        ]
    )
    safe = df.rds.pseudonymise(KEY, allow=["@Oatly"])
    people = Pseudonymiser(KEY)
    maya, sam = people.pseudonym("tiktok", "maya.chen"), people.pseudonym("tiktok", "sam_99")
    text = safe.loc[0, "text"]
    assert f"@{sam}," in text and "@oatly!" in text and "me@mail.com" in text
    assert "tiktok.com/@sam_99" not in text and "[profile link removed]" in text
    assert safe.loc[0, "author_title"] == maya and safe.loc[0, "author_headline"] == f"@{maya}"
    assert safe.loc[0, "hooks"][0]["text"] == f"Did @{maya} try it?"
    comment = safe.rds.comments().iloc[0]
    assert comment["author_username"] == comment["author_name"] == sam
    assert comment["body"] == f"@{maya} yes"
    # The tiktok post URL names its author: removed; the reddit one does not: kept.
    assert pd.isna(safe.loc[0, "url"]) and safe.loc[1, "url"] == df.loc[1, "url"]
    assert safe.rds.pseudonymise(KEY, post_urls="drop")["url"].isna().all()
    assert safe.rds.pseudonymise(KEY, post_urls="keep").loc[1, "url"] == df.loc[1, "url"]
    # The input is left unchanged.
    assert df.loc[0, "author_title"] == "Maya Chen"


def test_allow_list_keeps_brand_accounts() -> None:
    df = frames.mentions_frame(
        [
            {
                "source": "instagram",
                "id": "1",
                "author": {
                    "title": "Oatly",
                    "title_url": "https://www.instagram.com/oatly",
                    "headline": "@oatly",
                },
                "url": "https://www.instagram.com/p/1/",
            },
            {
                "source": "instagram",
                "id": "2",
                "author": {"title": "Maya", "title_url": "https://www.instagram.com/maya"},
            },
        ]
    )
    safe = df.rds.pseudonymise(KEY, allow=["OATLY"])
    assert safe.loc[0, "author_title"] == "Oatly" and safe.loc[0, "author_headline"] == "@oatly"
    assert safe.loc[0, "author_title_url"] == "https://www.instagram.com/oatly"
    assert safe.loc[1, "author_title"].startswith("u_") and pd.isna(safe.loc[1, "author_title_url"])


@pytest.mark.parametrize("key", [None, "", b""])
def test_a_missing_key_is_refused(key: str | bytes | None) -> None:
    df = frames.mentions_frame([{"source": "reddit", "id": "1"}])
    with pytest.raises(InvalidParameter, match="key"):
        df.rds.pseudonymise(key)


def test_a_short_key_warns_and_bad_frames_are_named() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Pseudonymiser("short")
    assert "shorter than 16" in str(caught[0].message)
    with pytest.raises(InvalidParameter, match="'source'"):
        pd.DataFrame({"username": ["maya"]}).rds.pseudonymise(KEY)
    with pytest.raises(InvalidParameter, match="kind"):
        frames.datasets_frame([{"id": "ds_1", "name": "x"}]).rds.pseudonymise(KEY)


def test_no_traceback_shows_the_key() -> None:
    import traceback

    df = frames.datasets_frame([{"id": "ds_1", "name": "x"}])
    try:
        df.rds.pseudonymise(KEY)
    except InvalidParameter as error:
        frames_seen = traceback.walk_tb(error.__traceback__)
        shown = "".join(
            repr(value) for frame, _ in frames_seen for value in frame.f_locals.values()
        )
        assert KEY not in shown and "kind" in str(error)
    else:
        pytest.fail("a datasets frame was pseudonymised")
