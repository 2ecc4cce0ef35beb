"""The coding widget in a kernel (its key box driven as the browser drives it): coding by
keys, resuming after a restart, undo, unsure, notes, comments, blind and pseudonymised
views, two coders and the adjudication of their disagreements, the text/plain fallback.
The same paths in a real JupyterLab: tests/browser/test_coding_widget.py."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from rdskit.errors import InvalidParameter
from rdskit.validation import Codebook, read_codes, reliability

BOOK = Codebook.of("sentiment", ["negative", "neutral", "positive"])


def _frame(n: int = 20) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "source": ["reddit", "tiktok"] * (n // 2),
            "id": [f"p{i}" for i in range(n)],
            "text": [f"<b>post</b> number {i}" for i in range(n)],
            "title": ["a title"] * n,
            "url": [f"https://example.test/{i}" for i in range(n)],
            "author_username": [f"user{i}" for i in range(n)],
            "sentiment": ["positive"] * n,
            "created_at": pd.Timestamp("2026-11-01", tz="UTC"),
            "media": [[{"type": "photo", "description": "a carton on a table"}]] * n,
            "comments": [[{"author_username": "c1", "body": "so true"}]] * n,
        }
    )


def _type(widget, keys: str) -> None:
    """As the browser sends it: the key box's value grows one key at a time."""
    for ch in keys:
        widget.keys.value = widget.keys.value + ch


def test_code_twenty_posts_with_a_restart_halfway(tmp_path: Path) -> None:
    df = _frame()
    w = df.rds.code(BOOK, coder="ann", directory=tmp_path)
    _type(w, "1231231231")
    assert w.position == 10 and "10 of 20 coded" in w.header.value
    again = df.rds.code(BOOK, coder="ann", directory=tmp_path)  # a new kernel
    assert again.position == 10 and "post 11 of 20" in again.header.value
    _type(again, "3213213213")
    assert "all posts coded" in again.header.value
    codes = again.codes()
    assert (
        codes["code"].tolist()
        == (["negative", "neutral", "positive"] * 7)[:10]
        + (["positive", "neutral", "negative"] * 4)[:10]
    )
    assert list(codes.columns[:3]) == ["source", "id", "sentiment"]


def test_undo_previous_next_unsure_and_a_note(tmp_path: Path) -> None:
    w = _frame().rds.code(BOOK, coder="ann", directory=tmp_path)
    _type(w, "12~")
    assert w.position == 1 and len(w.coded()) == 1
    _type(w, "?3")
    assert w.coded()[("tiktok", "p1")].unsure
    _type(w, "<<")
    assert w.position == 0
    w.note.value = "sarcasm?"
    assert w.coded()[("reddit", "p0")].note == "sarcasm?"
    _type(w, ">>>")
    assert w.position == 3
    w.note.value = "before coding"
    _type(w, "2")
    assert w.coded()[("tiktok", "p3")].note == "before coding"
    _type(w, "x")
    assert "does nothing" in w.status.value


def test_the_post_is_shown_escaped_blind_and_with_comments_on_demand(tmp_path: Path) -> None:
    w = _frame().rds.code(BOOK, coder="ann", directory=tmp_path)
    shown = w.post.value
    assert "&lt;b&gt;post&lt;/b&gt; number 0" in shown and "<b>post</b>" not in shown
    assert "a carton on a table" in shown and "2026-11-01" in shown
    assert 'href="https://example.test/0"' in shown
    assert "service label" not in shown
    assert w.comments.value == ""
    _type(w, "#")
    assert "so true" in w.comments.value
    seen = _frame().rds.code(BOOK, coder="bob", directory=tmp_path, blind=False)
    assert "service label: positive" in seen.post.value


def test_a_pseudonymised_view(tmp_path: Path) -> None:
    df = _frame().assign(text=[f"thanks @user{i}" for i in range(20)])
    w = df.rds.code(BOOK, coder="ann", directory=tmp_path, pseudonymise="k" * 32)
    assert "user0" not in w.post.value and "example.test" not in w.post.value


def test_a_sample_orders_the_posts_and_must_be_in_the_frame(tmp_path: Path) -> None:
    df = _frame()
    sample = df.iloc[[5, 2]][["source", "id"]]
    w = df.rds.code(BOOK, coder="ann", directory=tmp_path, sample=sample)
    assert "number 5" in w.post.value and "of 2 coded" in w.header.value
    with pytest.raises(InvalidParameter, match=r"1 post\(s\) of the sample are not in the frame"):
        df.rds.code(BOOK, coder="ann", sample=pd.DataFrame({"source": ["x"], "id": ["y"]}))


def test_two_coders_then_adjudication(tmp_path: Path) -> None:
    df = _frame(10)
    _type(df.rds.code(BOOK, coder="ann", directory=tmp_path), "1111122222")
    _type(df.rds.code(BOOK, coder="bob", directory=tmp_path), "1111133333")
    wide = read_codes(tmp_path).pivot(index=["source", "id"], columns="coder", values="code")
    r = reliability(wide, BOOK)
    assert r.value("percent agreement") == 0.5
    judge = df.rds.adjudicate(BOOK, coders=["ann", "bob"], adjudicator="cy", directory=tmp_path)
    assert "0 of 5 coded" in judge.header.value
    assert "<b>ann</b>: neutral" in judge.post.value and "<b>bob</b>: positive" in judge.post.value
    _type(judge, "23232")
    settled = read_codes(tmp_path, adjudications=True)
    assert settled["code"].tolist() == ["neutral", "positive"] * 2 + ["neutral"]
    assert settled.loc[0, "codes"] == {"ann": "neutral", "bob": "positive"}
    assert set(read_codes(tmp_path)["coder"]) == {"ann", "bob"}  # adjudications kept apart


def test_the_text_plain_fallback_says_what_the_widget_needs(tmp_path: Path) -> None:
    w = _frame().rds.code(BOOK, coder="ann", directory=tmp_path)
    _type(w, "1")
    plain = w.widget._repr_mimebundle_()["text/plain"]
    assert "1 of 20 posts coded" in plain and "ipywidgets" in plain and "trusted" in plain
    assert str(tmp_path / "ann.jsonl") in plain
