"""Pseudonymisation on hostile input: names and handles in other scripts and cases, glued
to punctuation, at the ends of texts, nested in lists and comments; links and e-mail
addresses in any text; missing columns; ordinary words that contain a name. And a
property: whatever the text around them, no known name or handle survives."""

from __future__ import annotations

import string

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rdskit.frames as frames
from rdskit.frames._names import Known
from rdskit.frames.pseudonymise import Pseudonymiser, pseudonymise_frame

KEY = "0f8c6e2d9b7a41c3a5e9d2b8c4f6a1e7"
PEOPLE = Pseudonymiser(KEY)

AUTHOR = {
    "title": "José Müller",
    "title_url": "https://www.tiktok.com/@jose.mueller",
    "headline": "@jose.mueller",
}
COMMENTERS = [
    {"id": "c1", "author_username": "ива_петрова", "author_name": "Ива Петрова", "body": "hi"},
    {"id": "c2", "author_username": "rahul.s", "author_name": "राहुल शर्मा", "body": "ok"},
    {"id": "c3", "author_username": "Nikos_K", "author_name": "Νίκος Κ", "body": "yes"},
]


def _scrubbed(texts: list[str], **options: object) -> list[str | None]:
    """``texts`` as the ``text`` of posts by José Müller, with three commenters."""
    posts = [{"source": "tiktok", "id": "0", "author": AUTHOR, "comments": COMMENTERS}]
    posts += [{"source": "tiktok", "id": str(i + 1), "text": t} for i, t in enumerate(texts)]
    safe = frames.mentions_frame(posts).rds.pseudonymise(KEY, **options)
    return [None if pd.isna(t) else str(t) for t in safe["text"][1:]]


JOSE = PEOPLE.pseudonym("tiktok", "jose.mueller")
IVA = PEOPLE.pseudonym("tiktok", "ива_петрова")
RAHUL = PEOPLE.pseudonym("tiktok", "rahul.s")
NIKOS = PEOPLE.pseudonym("tiktok", "nikos_k")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Glued to punctuation, at the start and end of a text.
        ("ask:jose.mueller", f"ask:{JOSE}"),
        ("x(josé müller)", f"x({JOSE})"),
        ("hi,jose.mueller,", f"hi,{JOSE},"),
        ("jose.mueller", JOSE),
        ("so...josé müller said", f"so...{JOSE} said"),
        ("“José Müller”", f"“{JOSE}”"),
        ("<jose.mueller>", f"<{JOSE}>"),
        ("#jose.mueller", f"#{JOSE}"),
        ("jose.mueller…", f"{JOSE}…"),
        # Any case, any whitespace, NFD accents, possessives.
        ("JOSÉ MÜLLER", JOSE),
        ("José\u00a0Müller", JOSE),
        ("josé\nmüller", JOSE),
        ("Jose\u0301 Mu\u0308ller", JOSE),
        ("jose.mueller’s", f"{JOSE}’s"),
        ("José Müller's", f"{JOSE}'s"),
        ("Dr. José  Müller", f"Dr. {JOSE}"),
        # Handles: any case, any script, at the edges, next to punctuation.
        ("@Jose.Mueller", f"@{JOSE}"),
        ("(@JOSE.MUELLER)", f"(@{JOSE})"),
        ("thanks @ИВА_ПЕТРОВА!", f"thanks @{IVA}!"),
        ("@someone_else: hi", f"@{PEOPLE.pseudonym('tiktok', 'someone_else')}: hi"),
        # Names in other scripts (marks, final sigma).
        ("Ива Петрова пишет", f"{IVA} пишет"),
        ("मैं राहुल शर्मा हूँ", f"मैं {RAHUL} हूँ"),
        ("ΝΊΚΟΣ Κ είπε", f"{NIKOS} είπε"),  # a final sigma, lower-cased as ς or σ
        ("nikos_k wrote", f"{NIKOS} wrote"),
        # A name is never found inside a longer word.
        ("josé müllers and josémüller", "josé müllers and josémüller"),
        ("josé müller-approved", "josé müller-approved"),
    ],
)
def test_names_and_handles_wherever_written(text: str, expected: str) -> None:
    assert _scrubbed([text]) == [expected]


def test_links_and_email_addresses_in_texts() -> None:
    texts = [
        "mail Jose.Mueller+x@Example.co.uk now",
        "see https://www.youtube.com/watch?v=abc and www.example.org/page.",
        "profile: TikTok.com/@someone, bio linktr.ee/someone",
        "https://cdn.example/a.jpg",
    ]
    dropped = _scrubbed(texts)
    assert dropped[0] == "mail [email removed] now"
    assert dropped[1] == "see [link removed] and [link removed]."
    assert dropped[2] == "profile: [profile link removed], bio [profile link removed]"
    assert dropped[3] is None  # a value that is only a link: removed
    kept = _scrubbed(texts, post_urls="keep")
    assert kept[1] == texts[1] and kept[3] == texts[3]  # other links kept on request
    assert kept[0] == dropped[0] and kept[2] == dropped[2]  # never profiles or e-mails


def test_names_in_comments_and_nested_lists() -> None:
    df = frames.mentions_frame(
        [
            {
                "source": "tiktok",
                "id": "1",
                "author": AUTHOR,
                "entities": ["Ива Петрова", "oat milk"],
                "hooks": [{"type": "q", "text": "Did @rahul.s see https://x.test/1?"}],
                "comments": [
                    *COMMENTERS,
                    {"id": "c4", "author_username": "z", "body": "José Müller & Ива Петрова"},
                ],
            }
        ]
    )
    safe = df.rds.pseudonymise(KEY)
    assert list(safe.loc[0, "entities"]) == [IVA, "oat milk"]
    assert safe.loc[0, "hooks"][0]["text"] == f"Did @{RAHUL} see [link removed]?"
    comments = safe.rds.comments()
    assert comments["body"].iloc[-1] == f"{JOSE} & {IVA}"
    assert comments["comment_id"].tolist() == ["c1", "c2", "c3", "c4"]  # keys, kept
    settings = safe.rds.provenance().pseudonymised.settings
    assert settings["rewritten"] == {"comments": 1, "entities": 1, "hooks": 1}


def test_empty_missing_and_null_columns() -> None:
    df = frames.mentions_frame(
        [
            {"source": "tiktok", "id": "1", "text": None, "title": ""},
            {"source": "reddit", "id": "2"},
        ]
    )
    safe = df.rds.pseudonymise(KEY)
    assert pd.isna(safe.loc[0, "text"]) and safe.loc[0, "title"] == ""
    minimal = pd.DataFrame({"source": ["tiktok", None], "text": ["@maya_x hi", None]})
    out = pseudonymise_frame(minimal, KEY, kind="mentions")
    assert out["text"].tolist()[0] == f"@{PEOPLE.pseudonym('tiktok', 'maya_x')} hi"
    assert out["text"].isna().tolist() == [False, True]
    comments = pd.DataFrame({"source": ["tiktok"], "author_name": ["Ива Петрова"]})
    named = pseudonymise_frame(comments, KEY, kind="comments")
    assert named["author_name"][0] == PEOPLE.name_pseudonym("tiktok", "Ива Петрова")


_NAMES = ["maya chen", "sam_99", "ива петрова", "o'neil ray", "josé"]


def _known() -> Known:
    known = Known()
    sources = pa.array(["tiktok"] * len(_NAMES))
    known.add(sources, pa.array(_NAMES), pa.array([f"u_{i}" for i in range(len(_NAMES))]))
    return known


_AROUND = st.text(string.ascii_letters + string.punctuation + " \n…“”’«»é🌱", max_size=6)
# What would make a name part of a longer word when written right next to it.
_WORDY = string.ascii_letters + string.digits + "_.'’-é"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_AROUND, st.sampled_from(_NAMES), st.booleans()), min_size=1, max_size=4),
    _AROUND,
    st.sampled_from(["", "'s", "’s", "'ll"]),
)
def test_no_known_name_survives_whatever_surrounds_it(
    parts: list[tuple[str, str, bool]], tail: str, ending: str
) -> None:
    """A name written between any characters that cannot continue a word (any case,
    with a possessive or a contraction) is marked by the vectorised search and
    replaced."""
    known = _known()
    text = ""
    for before, name, upper in parts:
        text += (before.strip(_WORDY) or " ") + (name.upper() if upper else name)
    text += ending + (tail.lstrip(_WORDY) or " ")
    assert known.found(pa.array([text]))[0], text
    replaced = known.replace("tiktok", text).lower().replace("’", "'")
    for _, name, _ in parts:
        assert name not in replaced, (text, replaced)


def test_methods_names_what_texts_were_searched_for() -> None:
    df = frames.mentions_frame([{"source": "tiktok", "id": "1", "author": AUTHOR, "text": "@sam"}])
    drop = df.rds.pseudonymise(KEY)
    assert drop.rds.provenance().pseudonymised.settings["in_texts"][-1] == "links"
    keep = df.rds.pseudonymise(KEY, post_urls="keep")
    said = {
        "drop": "Handles, names, e-mail addresses and links written in texts",
        "keep": "Handles, names, e-mail addresses and profile links written in texts",
    }
    assert said["drop"] in str(drop.rds.methods()) and said["keep"] not in str(drop.rds.methods())
    assert said["keep"] in str(keep.rds.methods())


def test_names_are_composed_even_where_arrow_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow 20's ``utf8_normalize`` gives NFD for every form; the Python path must give
    the same NFC words, so an accented name is found on every supported pyarrow."""
    from rdskit.frames import _names

    texts = pa.array(["Jose\u0301 Mu\u0308ller", "josé müller", None, "plain"])
    arrow = _names._folded(texts).to_pylist()
    monkeypatch.setattr(_names, "_arrow_composes", lambda: False)
    assert (
        _names._folded(texts).to_pylist() == arrow == ["josé müller", "josé müller", None, "plain"]
    )
    assert _scrubbed(["x(Jose\u0301 Mu\u0308ller)"]) == [f"x({JOSE})"]
