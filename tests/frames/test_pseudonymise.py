"""Pseudonymisation: stable keyed pseudonyms across frames and calls, nothing identifying
left in any column or exported file, the key nowhere."""

from __future__ import annotations

import hashlib
import hmac
import json
import warnings
from collections.abc import Iterator
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


BRANDS = ["oatly", "alpro"]


def _leaves(value: object) -> Iterator[str]:
    """Every string inside a cell, however nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _leaves(v)
    elif hasattr(value, "tolist"):
        yield from _leaves(value.tolist())


def identities(mentions: pd.DataFrame, profiles: pd.DataFrame) -> set[str]:
    """Every URL, handle and name of a person in the original frames (lower-cased, four
    characters or more: shorter ones are ordinary words), public accounts left out."""
    comments = mentions.rds.comments()
    from_url = mentions["author_title_url"].map(handle_from_url, na_action="ignore")
    at = mentions["author_headline"].where(mentions["author_headline"].str.startswith("@"))
    handle = from_url.fillna(at.str.lstrip("@")).str.lower()
    public = handle.isin(BRANDS)

    def values(m: pd.DataFrame) -> set[str]:
        found = [
            *m["url"],
            *m["author_title_url"],
            *m["author_avatar_url"],
            *m["sound_url"],
            *m["sound_cover_image_url"],
            *m["author_title"],
            *handle[m.index],
            *(h for h in m["author_headline"].dropna() if h.startswith("@")),
            *(u for u in m["author_headline_url"].dropna() if "/r/" not in u),
            *m["sound_author"],
            *(v["url"] for media in m["media"].dropna() for x in media for v in x["version_list"]),
        ]
        return {x.lstrip("@").lower() for x in found if isinstance(x, str)}

    people = values(mentions[~public]) - values(mentions[public])
    commenters = comments[~comments["author_username"].str.lower().isin(BRANDS)]
    profiles = profiles[~profiles["username"].str.lower().isin(BRANDS)]
    people |= {
        x.lstrip("@").lower()
        for x in [
            *commenters["author_username"],
            *commenters["author_name"],
            *profiles["username"],
            *profiles["display_name"],
            *profiles["external_link"],
            *profiles["avatar_url"],
        ]
        if isinstance(x, str)
    }
    return {x for x in people if len(x) >= 4 and x not in BRANDS}


def survivors(frame: pd.DataFrame, secrets: set[str]) -> dict[str, list[str]]:
    """``{column: identifiers found in it}``, walking every string of every column (ad
    columns describe advertisers, and are kept by design)."""
    left = {}
    for column in frame.columns:
        if column.startswith("ad_"):
            continue
        blob = "\n".join(s for v in frame[column].tolist() for s in _leaves(v)).lower()
        found = sorted(s for s in secrets if s in blob)
        if found:
            left[column] = found
    return left


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


def test_no_identifier_survives_in_any_column(
    frames_in: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    mentions, profiles = frames_in
    secrets = identities(mentions, profiles)
    comments = mentions.rds.comments()
    assert len(secrets) > 500  # the scan has something to look for...
    for frame in (mentions, comments, profiles):  # ...and finds it in the originals
        assert survivors(frame, secrets)
    safe = mentions.rds.pseudonymise(KEY, allow=BRANDS)
    for frame in (
        safe,
        safe.rds.comments(),
        comments.rds.pseudonymise(KEY, allow=BRANDS),
        profiles.rds.pseudonymise(KEY, allow=BRANDS),
    ):
        assert survivors(frame, secrets) == {}, frame.rds.kind
    # The provenance records what was done, with counts.
    step = safe.rds.provenance().pseudonymised
    assert step is not None
    settings = step.settings
    assert settings["post_urls"] == "drop" and settings["text"] == "keep"
    assert settings["removed"]["url"] == mentions["url"].notna().sum() - safe["url"].notna().sum()
    assert {"author_title", "comments[].author_username"} <= set(settings["pseudonymised"])
    assert settings["removed"]["author_avatar_url"] > 0 and "media" in settings["removed"]


def test_nothing_identifying_in_exported_files(
    frames_in: tuple[pd.DataFrame, pd.DataFrame], tmp_path: Path
) -> None:
    mentions, profiles = frames_in
    secrets = identities(mentions, profiles)
    safe = mentions.rds.pseudonymise(KEY, allow=BRANDS)
    safe_profiles = profiles.rds.pseudonymise(KEY, allow=BRANDS)
    safe_comments = mentions.rds.comments().rds.pseudonymise(KEY, allow=BRANDS)
    written = [
        safe.drop(columns=[c for c in safe.columns if c.startswith("ad_")]).rds.to_csv(
            tmp_path / "posts.csv"
        ),
        tmp_path / "posts.csv.provenance.json",
        safe_profiles.rds.to_csv(tmp_path / "profiles.csv", excel=False),
        safe_comments.rds.to_csv(tmp_path / "comments.csv"),
    ]
    nx.write_gexf(safe.rds.network("reply"), tmp_path / "reply.gexf")
    nx.write_graphml(safe.rds.network("author-brand"), tmp_path / "brands.graphml")
    written += [tmp_path / "reply.gexf", tmp_path / "brands.graphml"]
    for path in written:
        text = path.read_text(encoding="utf-8-sig").lower()
        assert not [s for s in secrets if s in text], f"identities left in {path.name}"
        assert KEY.lower() not in text, f"the key is in {path.name}"


def test_names_and_bare_handles_in_texts_and_comments() -> None:
    df = frames.mentions_frame(
        [
            {
                "source": "instagram",
                "id": "1",
                "author": {"title": "Maya Chen", "title_url": "https://www.instagram.com/maya.c"},
                "url": "https://www.instagram.com/p/Abc123/",
                "text": "Maya  Chen here. Sam Roe's foam tip, ask sam_99 or MAYA.C",
                "entities": ["Sam Roe", "Oatly"],
                "comments": [
                    {
                        "id": "c1",
                        "author_username": "sam_99",
                        "author_name": "Sam Roe",
                        "body": "Maya Chen, you're right (says sam_99)",
                    },
                ],
            },
            {
                "source": "reddit",
                "id": "t3_b",
                "url": "https://www.reddit.com/r/x/comments/b/",
                "author": {"title": "Al", "title_url": "https://www.reddit.com/user/al"},
                "text": "Al likes it",
            },
        ]
    )
    safe = df.rds.pseudonymise(KEY)
    people = Pseudonymiser(KEY)
    maya, sam = people.pseudonym("instagram", "maya.c"), people.pseudonym("instagram", "sam_99")
    assert safe.loc[0, "text"] == f"{maya} here. {sam}'s foam tip, ask {sam} or {maya}"
    assert list(safe.loc[0, "entities"]) == [sam, "Oatly"]
    assert safe.rds.comments().loc[0, "body"] == f"{maya}, you're right (says {sam})"
    # Every platform's post URL leads to its author: all removed.
    assert safe["url"].isna().all()
    # Names under four characters are not searched for in texts (they are words).
    assert safe.loc[1, "text"] == "Al likes it"
    assert safe.loc[1, "author_title"].startswith("u_")


def test_verbatim_text_policies() -> None:
    long = "one two three four five six seven eight nine ten"
    df = frames.mentions_frame(
        [
            {
                "source": "tiktok",
                "id": "1",
                "title": "short title",
                "text": long,
                "summary": "a summary by the service",
                "hooks": [{"type": "question", "text": long}],
                "comments": [{"id": "c", "author_username": "sam_99", "body": long}],
            }
        ]
    )
    kept = df.rds.pseudonymise(KEY)
    assert (
        kept.loc[0, "text"] == long
        and kept.rds.provenance().pseudonymised.settings["text"] == "keep"
    )
    cut = df.rds.pseudonymise(KEY, text="truncate")
    assert cut.loc[0, "text"] == "one two three four five six seven eight […]"
    assert cut.loc[0, "title"] == "short title"
    assert cut.loc[0, "hooks"][0]["text"] == cut.loc[0, "text"]
    assert cut.rds.comments().loc[0, "body"] == cut.loc[0, "text"]
    assert cut.loc[0, "summary"] == "a summary by the service"
    rewritten = cut.rds.provenance().pseudonymised.settings["rewritten"]
    assert rewritten["text (truncated)"] == 1 and rewritten["comments[].body (truncated)"] == 1
    dropped = df.rds.pseudonymise(KEY, text="drop")
    assert dropped[["title", "text"]].isna().all(axis=None)
    assert pd.isna(dropped.rds.comments().loc[0, "body"])
    assert dropped.loc[0, "summary"] == "a summary by the service"
    removed = dropped.rds.provenance().pseudonymised.settings["removed"]
    assert removed["text (dropped)"] == 1 and removed["hooks[].text (dropped)"] == 1
    with pytest.raises(InvalidParameter, match="text"):
        df.rds.pseudonymise(KEY, text="hide")
    with pytest.raises(InvalidParameter, match="post_urls"):
        df.rds.pseudonymise(KEY, post_urls="redact")


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
    assert f"@{sam}," in text and "@oatly!" in text
    # An e-mail address names its owner: removed (its "@mail" is no handle).
    assert "me@mail.com" not in text and "([email removed])" in text
    assert "tiktok.com/@sam_99" not in text and "[profile link removed]" in text
    assert safe.loc[0, "author_title"] == maya and safe.loc[0, "author_headline"] == f"@{maya}"
    assert safe.loc[0, "hooks"][0]["text"] == f"Did @{maya} try it?"
    comment = safe.rds.comments().iloc[0]
    assert comment["author_username"] == comment["author_name"] == sam
    assert comment["body"] == f"@{maya} yes"
    # Post URLs are removed (the reddit one leads to its author too), unless kept.
    assert safe["url"].isna().all()
    assert df.rds.pseudonymise(KEY, post_urls="keep").loc[1, "url"] == df.loc[1, "url"]
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
