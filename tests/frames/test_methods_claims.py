"""``methods()`` claims only what touched the frame at hand: a pseudonymised column is
named only when this frame holds a pseudonym there, counts of a step say which posts
they were counted on, and a run's window is told as requested (the service applies it
subject to the plan and does not return the window applied). Expected values are
computed here from how each frame was built."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

import rdskit  # noqa: F401  (registers df.rds)
import rdskit.frames as frames
from rdskit.frames.provenance import attach

KEY = "a key for the methods claims test, 32"


def _posts(n: int = 4, *, comments: bool = True) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for i in range(n):
        post: dict[str, Any] = {
            "source": "tiktok" if i % 2 else "reddit",
            "id": f"p{i}",
            "created_at": 1767225600 + i,
            "content_type": "organic",
            "url": f"https://www.tiktok.com/@maya{i}/video/{i}",
            "text": f"Tried it {i}",
            "author": {"title": f"Maya {i}", "title_url": f"https://www.tiktok.com/@maya{i}"},
        }
        if comments:
            # Only even posts have a comment, so a filter can leave none.
            post["comments"] = (
                [{"id": f"c{i}", "author_username": f"sam{i}", "author_name": f"Sam {i}"}]
                if i % 2 == 0
                else []
            )
        rows.append(post)
    return frames.mentions_frame(rows)


def _md(frame: pd.DataFrame) -> str:
    return str(frame.rds.methods())


def test_commenters_are_claimed_only_when_the_frame_has_comments() -> None:
    with_comments = _md(_posts().rds.pseudonymise(KEY))
    assert "`comments[].author_username`" in with_comments
    assert "Authors and commenters were pseudonymised" in with_comments
    for frame in (
        _posts(comments=False),  # no comments column at all
        _posts().assign(comments=[[] for _ in range(4)]),  # a column of empty lists
        _posts().drop(columns=["comments"]),
    ):
        text = _md(frame.rds.pseudonymise(KEY))
        assert "comments[]" not in text
        assert "commenters" not in text
        assert "Authors were pseudonymised before analysis" in text
        assert "`author_title` were replaced" in text or "`author_title` was replaced" in text
    # A slice of a pseudonymised frame whose posts have no comment: nothing to claim.
    safe = _posts().rds.pseudonymise(KEY)
    odd = safe[safe["id"].isin(["p1", "p3"])]
    assert int(odd["comments"].map(len).sum()) == 0
    assert "comments[]" not in _md(odd)
    # The column dropped after pseudonymisation: the frame holds no commenter either.
    assert "commenters" not in _md(safe.drop(columns=["comments"]))


def test_a_column_without_a_pseudonym_in_this_frame_is_not_named() -> None:
    safe = _posts().rds.pseudonymise(KEY)
    blank = safe.assign(author_title=pd.Series([None] * 4, dtype=safe["author_title"].dtype))
    text = _md(blank)
    assert "`author_title`" not in text
    # Nothing of this frame is a pseudonym: the step is told, no column claimed.
    nothing = blank.drop(columns=["comments"])
    text = _md(nothing)
    assert "were replaced by pseudonyms" not in text
    assert "no column of this frame holds a pseudonym" in text


def _counted_on(text: str) -> str | None:
    found = re.search(r"The counts below are of the ([\d,]+) posts pseudonymised", text)
    return None if found is None else found.group(1)


def test_counts_of_pseudonymisation_say_which_posts_they_were_counted_on() -> None:
    safe = _posts().rds.pseudonymise(KEY)
    whole = _md(safe)
    assert "4 post URLs were removed." in whole
    assert _counted_on(whole) is None  # counted on these very posts
    part = safe[safe["source"] == "tiktok"]
    text = _md(part)
    assert len(part) == 2
    assert _counted_on(text) == "4" and "not of these 2" in text
    assert "4 post URLs were removed." in text  # what the step did, on its 4 posts


def test_public_accounts_keep_their_post_urls_and_the_text_says_so() -> None:
    df = _posts()
    brand = df.assign(
        author_title_url=df["author_title_url"].where(
            df["id"] != "p1", "https://www.tiktok.com/@oatly"
        )
    )
    safe = brand.rds.pseudonymise(KEY, allow=["oatly"])
    text = safe.rds.methods().text
    # p1's author is allow-listed: its URL stays, the other three go.
    assert "3 post URLs were removed." in text
    assert "In this frame, 1 post by public accounts keeps its post URL." in text
    # The brand's post filtered out: no such post in the frame, nothing said.
    text = safe[safe["id"] != "p1"].rds.methods().text
    assert "3 post URLs were removed." in text and "public accounts keep" not in text
    assert "In this frame" not in text


def test_texts_searched_with_nothing_found_are_said() -> None:
    plain = _posts(comments=False)  # no text names anyone
    text = plain.rds.pseudonymise(KEY).rds.methods().text
    assert "were replaced in" not in text
    assert (
        "Handles, names, e-mail addresses and links were searched for in texts and none "
        "was found (8 distinct names and handles of the people the data list searched "
        "for;" in text
    )
    # 4 authors, each with a display name ("Maya 0") and a handle ("maya0"): 8, not 8 people.
    names = set(plain["author_title"].str.lower()) | {
        u.rsplit("@", 1)[1] for u in plain["author_title_url"]
    }
    assert len(names) == 8


def _with_run(frame: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
    run = {"id": "dsr_1", "status": "completed", "params": params}
    fetch = {"resource": "mentions", "query": {}, "fetched_at": "2026-11-20T12:00:00Z"}
    return attach(frame.copy(), [{**fetch, "runs": [run]}])


def test_a_requested_window_is_told_as_requested() -> None:
    prompt = {"type": "prompt", "sources": ["tiktok"], "search_query": "oat"}
    window = {"from": "2025-10-01", "to": "2025-12-31"}
    text = _with_run(_posts(), {"search_query": prompt, "date_range": window}).rds.methods().text
    assert (
        "for posts published 2025-10-01 to 2025-12-31 as requested (the service applies "
        "a requested window subject to the plan's restrictions and does not return the "
        "window it applied)" in text
    )
    default = _with_run(_posts(), {"search_query": prompt}).rds.methods().text
    assert "in the 365 days before each run" in default and "as requested" not in default


def test_public_accounts_are_not_counted_as_authors_left_unpseudonymised() -> None:
    df = _posts()
    # p1 is by a brand whose display name ("Oatly") differs from its handle in case.
    brand = df.assign(
        author_title=df["author_title"].where(df["id"] != "p1", "Oatly"),
        author_title_url=df["author_title_url"].where(
            df["id"] != "p1", "https://www.tiktok.com/@oatly"
        ),
    )
    safe = brand.rds.pseudonymise(KEY, allow=["@Oatly"])
    assert safe.loc[safe["id"] == "p1", "author_title"].item() == "Oatly"
    text = safe.rds.methods().text
    assert "not a pseudonym" not in text
    # A post added from unpseudonymised data is still caught (one author, "Maya 9").
    plain = _posts(1).assign(id="p9", author_title="Maya 9")
    stacked = pd.concat([safe, plain])
    assert "But 1 post of this frame has an author that is not a pseudonym" in _md(stacked)


def test_a_comparison_before_pseudonymisation_on_as_many_posts_is_not_said_of_others() -> None:
    df = _posts()
    df.rds.compare(by="source", resamples=20)
    text = df.rds.pseudonymise(KEY).rds.methods().text
    # The same 4 posts, pseudonymised since: earlier state, not "not these 4".
    assert "On an earlier state of these data (4 posts, before pseudonymisation)" in text
    assert "not these 4" not in text
    assert "(4 posts, before pseudonymisation; not these 2)" in _md(
        df.rds.pseudonymise(KEY)[lambda f: f["source"] == "tiktok"]
    )


def _scope_text(ax: Any) -> str:
    from rdskit.frames.plots import SCOPE_GID

    return next(c.get_text() for c in ax.get_children() if c.get_gid() == SCOPE_GID)


def test_a_comparison_says_how_many_posts_it_compared() -> None:
    df = _posts(6)
    # Two posts have no content type: compare(by="content_type") cannot place them.
    df["content_type"] = ["ad", "organic", "organic", None, "organic", None]
    res = df.rds.compare(by="content_type", resamples=20)
    compared = int(df["content_type"].notna().sum())
    assert int(res.volume["posts"].sum()) == compared == 4
    note = res.notes[0]
    assert note.startswith(f"Compared: n = {compared} posts; 1 ad included")
    assert "2 posts without a content_type left out" in note
    ax = df.rds.plot.compare(by="content_type", what="volume", resamples=20)
    line = _scope_text(ax)
    assert line.startswith(f"n = {compared} posts") and "2 posts without a content_type" in line
    # Every post has a group: no such words.
    whole = df.assign(content_type="organic").assign(source=["reddit", "tiktok"] * 3)
    assert "left out" not in whole.rds.compare(by="source", resamples=20).notes[0]


def test_a_scope_line_says_when_rows_repeat_posts() -> None:
    from rdskit.frames.methods import scope_of

    df = _posts(3)
    twice = pd.concat([df, df])
    line = scope_of(twice).line(len(twice))
    assert line.startswith("n = 6 posts")
    assert "3 rows repeat a post of an earlier row" in line
    assert "repeat" not in scope_of(df).line(len(df))


def test_one_repeated_row_is_told_in_the_singular() -> None:
    from rdskit.frames.methods import scope_of

    df = _posts(3)
    once_more = pd.concat([df, df.iloc[[0]]])
    assert "; 1 row repeats a post of an earlier row" in scope_of(once_more).line(4)
    assert "1 row of the frame repeats a post of an earlier row" in _md(once_more)


def test_a_frame_narrowed_to_one_dataset_names_only_its_runs() -> None:
    def run(i: int, dataset: str, query: str) -> dict[str, Any]:
        search = {"type": "prompt", "sources": ["tiktok"], "search_query": query}
        return {
            "id": f"dsr_{i}",
            "dataset_id": dataset,
            "status": "completed",
            "created_at": f"2026-11-2{i}T00:00:00Z",
            "params": {"search_query": search},
        }

    rows = [
        {"source": "tiktok", "id": str(i), "datasets": [{"id": ds, "name": name}]}
        for i, (ds, name) in enumerate([("ds_1", "Oat"), ("ds_2", "Soy"), ("ds_1", "Oat")])
    ]
    fetch = {"resource": "mentions", "query": {}, "fetched_at": "2026-11-25T00:00:00Z"}
    runs = [run(1, "ds_1", "oat milk"), run(2, "ds_2", "soy milk")]
    df = attach(frames.mentions_frame(rows), [{**fetch, "runs": runs}])
    both = df.rds.methods().text
    assert "collected by 2 completed runs" in both and "soy milk" in both
    oat = df[df["id"] != "1"]
    text = oat.rds.methods().text
    assert (
        "collected by 1 completed run of the Research Data Service searching for oat milk" in text
    )
    assert "soy milk" not in text


def test_several_pseudonymisation_steps_are_said() -> None:
    df = _posts()
    once = df.rds.pseudonymise(KEY)
    assert "pseudonymisation steps" not in once.rds.methods().text
    twice = once.rds.pseudonymise(KEY)  # pseudonyms hashed again
    parts = pd.concat([df.iloc[:1].rds.pseudonymise(KEY), df.iloc[1:].rds.pseudonymise(KEY)])
    for frame in (twice, parts):
        text = frame.rds.methods().text
        assert (
            "The record holds 2 pseudonymisation steps (the data were pseudonymised more "
            "than once, or stacked from parts pseudonymised separately; whether with the "
            "same key is not recorded): what follows is the last one's." in text
        )


def test_the_plan_is_told_as_it_was_when_the_posts_were_retrieved() -> None:
    # The plan is read by GET /v1/me at load time, not when the runs ran.
    fetch = {
        "resource": "mentions",
        "query": {},
        "fetched_at": "2026-11-20T12:00:00Z",
        "plan": {"name": "Pro", "features": ["custom_date_filter"]},
    }
    text = attach(_posts(), [fetch]).rds.methods().text
    assert (
        "When the posts were retrieved, the account's plan was Pro, with custom_date_filter."
        in text
    )


def test_a_frame_without_comments_claims_no_commenters_either_way() -> None:
    assert "Authors and commenters were not pseudonymised" in _md(_posts())
    for frame in (_posts(comments=False), _posts().assign(comments=[[] for _ in range(4)])):
        text = frame.rds.methods().text
        assert "commenters" not in text
        assert "Authors were not pseudonymised: the data hold their handles, names and " in text


def test_a_charts_scope_line_counts_the_ads_it_draws() -> None:
    rows = [
        {
            "source": "tiktok",
            "id": str(i),
            "created_at": 1767225600 + 86400 * i,
            "content_type": "ad" if i == 0 else "organic",
            # The ad has no sentiment, emotions nor engagement rate: no chart of those draws it.
            **(
                {}
                if i == 0
                else {
                    "sentiment": {"positive": "0.9"},
                    "emotions": {"joy": "0.8"},
                    "engagement_rate": 0.1 * i,
                }
            ),
        }
        for i in range(4)
    ]
    df = frames.mentions_frame(rows)
    assert int((df["content_type"] == "ad").sum()) == 1
    drawn = {
        "sentiment": df.rds.plot.sentiment("D", min_n=1),
        "emotions": df.rds.plot.emotions(),
        "engagement": df.rds.plot.engagement(),
    }
    for name, ax in drawn.items():
        line = _scope_text(ax)
        assert line.startswith("n = 3 "), (name, line)
        assert "ad included" not in line and "no ads" in line, (name, line)
    # A chart that draws every post includes the ad, and says so.
    assert "1 ad included" in _scope_text(df.rds.plot.volume("D"))


def test_posts_outside_the_requested_window_are_counted() -> None:
    prompt = {"type": "prompt", "sources": ["tiktok"], "search_query": "oat"}
    df = _posts()  # published 2026-01-01, seconds apart
    inside = {"from": "2025-12-01", "to": "2026-01-01"}
    text = _with_run(df, {"search_query": prompt, "date_range": inside}).rds.methods().text
    assert "outside" not in text
    before = {"from": "2025-10-01", "to": "2025-12-31"}
    text = _with_run(df, {"search_query": prompt, "date_range": before}).rds.methods().text
    # Every post of the frame (4) is dated 2026-01-01, after the window's last day.
    assert int((df["created_at"] >= pd.Timestamp("2026-01-01", tz="UTC")).sum()) == 4
    assert "4 posts of this frame were published outside the window requested." in text
    # No explicit window (the 365 days before the run): nothing to check against.
    text = _with_run(df, {"search_query": prompt}).rds.methods().text
    assert "outside" not in text


def test_a_post_id_shared_by_two_sources_is_no_repeat() -> None:
    from rdskit.frames import mentions_frame
    from rdskit.frames.methods import scope_of

    rows = [("reddit", "1"), ("tiktok", "1"), ("tiktok", "2")]
    df = mentions_frame([{"source": s, "id": i, "created_at": 1767225600} for s, i in rows])
    assert scope_of(df).repeated == 0
    assert scope_of(pd.concat([df, df.iloc[[1]]])).repeated == 1


def test_the_ads_of_a_scope_are_those_of_the_rows_drawn() -> None:
    from rdskit.frames import mentions_frame
    from rdskit.frames.methods import scope_of

    types = ["ad", "organic", None, "ad"]
    df = mentions_frame(
        [{"source": "x", "id": str(i), "content_type": t} for i, t in enumerate(types)]
    )
    whole, part = scope_of(df), scope_of(df, [False, True, True, True])
    assert (whole.ads, whole.unknown, whole.posts) == (2, 1, 4)
    assert (part.ads, part.unknown, part.posts) == (1, 1, 4)
