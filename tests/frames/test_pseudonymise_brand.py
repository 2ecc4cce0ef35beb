"""Pseudonymisation of public accounts' posts (``allow=``): a brand's own post keeps the
links it wrote and its own profile link, other people's profile links in it and every
link in its comments still go; the record says so and lists only columns it changed;
ads pseudonymised without an allow-list are warned about."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import rdskit.frames as frames
from rdskit.errors import AdvertiserWarning
from rdskit.frames.pseudonymise import Pseudonymiser

KEY = "0f8c6e2d9b7a41c3a5e9d2b8c4f6a1e7"
PEOPLE = Pseudonymiser(KEY)
OATLY = {"title": "Oatly", "title_url": "https://www.instagram.com/oatly", "headline": "@oatly"}
MAYA = {"title": "Maya Chen", "title_url": "https://www.instagram.com/maya.chen"}
BRAND_TEXT = (
    "Shop now: https://www.oatly.com/products/oat-drink, follow instagram.com/oatly "
    "and thanks instagram.com/some.person!"
)


def _posts() -> pd.DataFrame:
    comment = {"id": "c1", "author_username": "sam.lee", "author_name": "Sam Lee"}
    return frames.mentions_frame(
        [
            {
                "source": "instagram",
                "id": "1",
                "content_type": "ad",
                "author": OATLY,
                "text": BRAND_TEXT,
                "comments": [{**comment, "body": "mine: https://sam.example/shop"}],
            },
            {"source": "instagram", "id": "2", "author": MAYA, "text": BRAND_TEXT},
        ]
    )


def test_a_public_accounts_post_keeps_its_own_links() -> None:
    safe = _posts().rds.pseudonymise(KEY, allow=["@Oatly"])
    assert safe.loc[0, "text"] == (
        "Shop now: https://www.oatly.com/products/oat-drink, follow instagram.com/oatly "
        "and thanks [profile link removed]!"
    )
    # Another person's post: every link goes, but the brand's profile is the brand's.
    assert safe.loc[1, "text"] == (
        "Shop now: [link removed], follow instagram.com/oatly and thanks [profile link removed]!"
    )
    # A comment under the brand's post is the commenter's: no exemption.
    assert safe.loc[0, "comments"][0]["body"] == "mine: [link removed]"


def test_without_an_allow_list_the_brands_links_go() -> None:
    with pytest.warns(AdvertiserWarning):
        safe = _posts().rds.pseudonymise(KEY)
    assert safe.loc[0, "text"] == (
        "Shop now: [link removed], follow [profile link removed] and thanks [profile link removed]!"
    )


def test_post_urls_keep_keeps_the_brands_profile_link_only() -> None:
    safe = _posts().rds.pseudonymise(KEY, allow=["oatly"], post_urls="keep")
    expected = (
        "Shop now: https://www.oatly.com/products/oat-drink, follow instagram.com/oatly "
        "and thanks [profile link removed]!"
    )
    assert safe.loc[0, "text"] == expected and safe.loc[1, "text"] == expected


def test_the_record_says_what_links_were_kept() -> None:
    safe = _posts().rds.pseudonymise(KEY, allow=["oatly"])
    searched = safe.rds.provenance().pseudonymised.settings["in_texts"]
    assert searched[-1] == "links (not in public accounts' posts, nor to their profiles)"
    assert "links (not in public accounts' posts, nor to their profiles)" in safe.rds.methods().text
    kept = _posts().rds.pseudonymise(KEY, allow=["oatly"], post_urls="keep")
    assert kept.rds.provenance().pseudonymised.settings["in_texts"][-1] == (
        "profile links (not public accounts')"
    )
    plain = _posts().drop(columns="content_type").rds.pseudonymise(KEY)
    assert plain.rds.provenance().pseudonymised.settings["in_texts"][-1] == "links"


def _recorded(frame: pd.DataFrame, **options: object) -> list[str]:
    settings = frame.rds.pseudonymise(KEY, **options).rds.provenance().pseudonymised.settings
    return list(settings["pseudonymised"])


def test_the_record_lists_only_columns_changed() -> None:
    posts = _posts().drop(columns="content_type")
    assert "comments[].author_username" in _recorded(posts)
    assert "comments[].author_name" in _recorded(posts)
    without = posts.drop(columns="comments")
    assert not any(c.startswith("comments[]") for c in _recorded(without))
    no_comments = posts.assign(comments=[[], []]).astype({"comments": posts["comments"].dtype})
    assert not any(c.startswith("comments[]") for c in _recorded(no_comments))
    # Only the brand's posts: its name and headline are kept, so not recorded.
    brand = without.iloc[:1]
    assert "author_title" not in _recorded(brand, allow=["oatly"])
    assert "author_title" in _recorded(brand)


def test_ads_pseudonymised_without_an_allow_list_warn_once() -> None:
    posts = _posts()
    with pytest.warns(AdvertiserWarning) as caught:
        posts.rds.pseudonymise(KEY)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "1 ad author" in message and "allow=" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error", AdvertiserWarning)
        posts.rds.pseudonymise(KEY, allow=["oatly"])
        posts.drop(columns="content_type").rds.pseudonymise(KEY)
