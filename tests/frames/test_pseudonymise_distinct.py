"""Pseudonymisation works once per distinct value (texts, sources, names): repeated
values, the same text on two sources and the first pseudonym seen for a name must come
out as if every row were handled on its own."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

import rdskit.frames as frames
from rdskit.frames.pseudonymise import Known, Pseudonymiser

KEY = "0f8c6e2d9b7a41c3a5e9d2b8c4f6a1e7"


def test_a_repeated_text_is_rewritten_per_source() -> None:
    people = Pseudonymiser(KEY)
    sources = ["tiktok", "reddit", "tiktok", None, "reddit"]
    texts = pa.array(["hi @maya", "hi @maya", "hi @maya", "hi @maya", None])
    out = people.scrub(sources, np.arange(5), texts).to_pylist()
    one = [
        people.scrub_text(s, t) if t else None
        for s, t in zip(sources, texts.to_pylist(), strict=True)
    ]
    assert out == one
    assert out[0] == out[2] == "hi @" + people.pseudonym("tiktok", "maya")
    assert out[1] != out[0] and out[4] is None


def test_names_rewritten_per_row_source_in_repeated_texts() -> None:
    people = Pseudonymiser(KEY)
    known = Known()
    known.add(pa.array(["tiktok", "reddit"]), pa.array(["Maya Chen"] * 2), pa.array(["u_t", "u_r"]))
    texts = pa.array(["met Maya Chen's dog", "plain", "met Maya Chen's dog"])
    rows = np.array([0, 0, 1])
    out = people.scrubbed(pa.array(["tiktok", "reddit"]), rows, texts, known)
    assert out is not None
    assert out.to_pylist() == ["met u_t's dog", "plain", "met u_r's dog"]
    assert (
        people.scrubbed(pa.array(["tiktok"]), np.zeros(1, int), pa.array(["plain"]), known) is None
    )


def test_the_first_pseudonym_seen_for_a_name_wins() -> None:
    known = Known()
    known.add(
        pa.array(["tiktok", "tiktok"]), pa.array(["Sam Lee", "sam  lee"]), pa.array(["u_1", "u_2"])
    )
    known.add(pa.array(["reddit"]), pa.array(["Sam Lee"]), pa.array(["u_3"]))
    assert known.replace("tiktok", "Sam Lee") == "u_1"
    assert known.replace("reddit", "Sam Lee") == "u_3"
    assert known.replace("youtube", "Sam Lee") == "u_1"  # first seen on any source
    assert known.replace("youtube", "Samuel") == "Samuel"
    assert len(known) == 1


def test_repeated_frames_values_match_a_frame_of_distinct_rows() -> None:
    row = {
        "source": "tiktok",
        "author": {"title": "Maya Chen", "title_url": "https://www.tiktok.com/@maya"},
        "text": "thanks @lea and Maya Chen",
    }
    many = frames.mentions_frame([{**row, "id": str(i)} for i in range(4)])
    one = frames.mentions_frame([{**row, "id": "0"}])
    out_many = many.rds.pseudonymise(KEY)
    out_one = one.rds.pseudonymise(KEY)
    assert out_many["text"].tolist() == out_one["text"].tolist() * 4
    assert "maya" not in out_many["text"][0].lower() and "@lea" not in out_many["text"][0]


def test_a_name_is_found_in_every_text_of_a_long_column() -> None:
    # The search once ran in chunks of 20,000 texts, one per worker thread: with one
    # worker (a one-CPU machine) only the first chunk was searched.
    known = Known()
    known.add(pa.array(["tiktok"]), pa.array(["Maya Chen"]), pa.array(["u_1"]))
    texts = pa.array(["nothing to see here"] * 45_000 + ["thanks maya chen!", "MAYA  Chen."])
    hits = known.found(texts)
    assert hits.nonzero()[0].tolist() == [45_000, 45_001]
    assert known.rewrite(["tiktok"] * 2, texts[-2:].to_pylist()) == ["thanks u_1!", "u_1."]


def test_a_comments_frame_after_its_mentions_comes_out_as_on_its_own() -> None:
    # The commenters worked out for a mentions frame are reused for its comments frame
    # (same key, settings and people): the result must not depend on that.
    from rdskit.frames import pseudonymise

    comments = [
        {"id": "c1", "author_username": "lea.m", "author_name": "Lea Moreau", "body": "hi"},
        {"id": "c2", "author_username": "sam_k", "author_name": "Sam Kowal", "body": "@lea.m yes"},
        {"id": "c3", "author_username": "lea.m", "author_name": "Lea Moreau", "body": "Sam Kowal!"},
    ]
    row = {"source": "tiktok", "text": "a post", "comments": comments}
    mentions = frames.mentions_frame([{**row, "id": "p1"}, {**row, "id": "p2"}])
    flat = mentions.rds.comments()

    def values(frame: pd.DataFrame, **options: object) -> list[list[object]]:
        out = frame.rds.pseudonymise(KEY, **options)
        return [[str(value) for value in row] for row in out.itertuples(index=False)]

    def alone(frame: pd.DataFrame, **options: object) -> list[list[object]]:
        pseudonymise._LAST_PEOPLE.clear()
        return values(frame, **options)

    settings: list[dict[str, object]] = [{}, {"allow": ["sam_k"]}, {"length": 16}]
    for options in settings:
        expected = alone(flat, **options)
        for before in settings:
            # Mentions after comments, comments after mentions, with other settings.
            assert values(mentions, **before) == alone(mentions, **before)
            assert values(mentions, **before) == alone(mentions, **before)
            assert pseudonymise._LAST_PEOPLE  # the mentions' commenters, kept for reuse
            assert values(flat, **options) == expected, (before, options)
        other = "another key of 32 characters...."
        pseudonymise._LAST_PEOPLE.clear()
        out = flat.rds.pseudonymise(other, **options)
        assert [[str(value) for value in row] for row in out.itertuples(index=False)] != expected
    bodies = [row[flat.columns.get_loc("body")] for row in expected]
    assert "Sam Kowal" not in str(bodies) and "@lea.m" not in str(bodies)
    assert "sam_k" in str(alone(flat, allow=["sam_k"]))  # an allowed commenter stays


def test_distinct_rows_of_many_keys_match_python() -> None:
    # Each key's codes are folded into one int64 per row; with five keys of 9,000 values
    # the fold would overflow, and the row codes are numbered first.
    from rdskit.frames._arrow import distinct_rows

    rng = np.random.default_rng(5)
    n = 20_000
    keys = [
        pa.array([None if v < 50 else str(v) for v in rng.integers(0, 9_000, n)]) for _ in range(5)
    ]
    keys.append(pa.array([str(i % 7) for i in range(n)]))
    keys = [pa.concat_arrays([k, k.slice(0, 500)]) for k in keys]  # 500 rows repeated
    first, codes = distinct_rows(keys)
    rows = list(zip(*[k.to_pylist() for k in keys], strict=True))
    order: dict[tuple[object, ...], int] = {}
    for i, row in enumerate(rows):
        order.setdefault(row, i)
    assert first.to_pylist() == list(order.values())
    number = {row: j for j, row in enumerate(order)}
    assert codes.to_pylist() == [number[row] for row in rows]
    assert len(first) == n
