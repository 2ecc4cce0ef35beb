"""The frame join of ``df.rds.agreement``: a post is identified by (source, id) (the
spec: ids are unique per source only), so two posts of different sources sharing an id
are two items; a reference without a source column is joined on id alone only when no
matched id is ambiguous, and says so; a post labelled twice is refused by name."""

from __future__ import annotations

import pandas as pd
import pytest

import rdskit.frames as frames
from rdskit.errors import InvalidParameter

ROWS = [  # (source, id, service label)
    ("reddit", "1", "positive"),
    ("tiktok", "1", "negative"),
    ("tiktok", "2", "neutral"),
    ("youtube", "3", "positive"),
]


def _frame() -> pd.DataFrame:
    return frames.mentions_frame(
        [{"source": s, "id": i, "sentiment": {label: "0.9"}} for s, i, label in ROWS]
    )


def test_posts_of_two_sources_sharing_an_id_are_two_items() -> None:
    reference = pd.DataFrame(
        {
            "source": ["reddit", "tiktok", "tiktok"],
            "id": ["1", "1", "2"],
            "label": ["positive", "negative", "positive"],
        }
    )
    for on in ("id", ["id"], ["source", "id"]):
        res = _frame().rds.agreement(reference, on=on, n_boot=50)
        # Hand count: (reddit 1) agrees, (tiktok 1) agrees, (tiktok 2) does not.
        assert res.n == 3
        assert res.observed == pytest.approx(2 / 3)
        assert float(res.confusion.loc["negative", "negative"]) == 1.0


def test_a_reference_without_sources_is_refused_when_an_id_is_ambiguous() -> None:
    reference = pd.DataFrame({"id": ["1", "2"], "label": ["positive", "neutral"]})
    with pytest.raises(InvalidParameter, match=r"reference.*'1'.*reddit, tiktok.*source"):
        _frame().rds.agreement(reference, n_boot=50)


def test_a_reference_without_sources_is_joined_on_id_and_says_so() -> None:
    reference = pd.DataFrame({"id": ["2", "3"], "label": ["neutral", "negative"]})
    res = _frame().rds.agreement(reference, n_boot=50)
    assert res.n == 2 and res.observed == pytest.approx(1 / 2)
    assert any("joined on id alone" in note for note in res.notes)
    assert "joined on id alone" in repr(res)


def test_a_post_labelled_twice_is_refused_by_name() -> None:
    twice = pd.DataFrame(
        {"source": ["tiktok", "tiktok"], "id": ["2", "2"], "label": ["neutral", "positive"]}
    )
    with pytest.raises(InvalidParameter, match=r"reference.*\(tiktok, 2\).*2 rows"):
        _frame().rds.agreement(twice, n_boot=50)
    # The frame stacked with a copy whose label differs: which one is judged is not known.
    df = _frame()
    other = df[df["id"] == "3"].assign(sentiment="negative")
    stacked = pd.concat([df, other], ignore_index=True)
    reference = pd.DataFrame({"source": ["youtube"], "id": ["3"], "label": ["positive"]})
    with pytest.raises(InvalidParameter, match=r"frame.*\(youtube, 3\).*positive.*negative"):
        stacked.rds.agreement(reference, n_boot=50)
    # A plain repeat (the same label twice) is one item.
    same = pd.concat([df, df], ignore_index=True)
    assert same.rds.agreement(reference, n_boot=50).n == 1


def _collection() -> pd.DataFrame:
    # 6 positive, 2 negative posts; 2 more without sentiment analysed.
    labels = ["positive"] * 6 + ["negative"] * 2 + [None, None]
    return frames.mentions_frame(
        [
            {"source": "tiktok", "id": str(i), **({"sentiment": {s: "0.9"}} if s else {})}
            for i, s in enumerate(labels)
        ]
    )


def test_strata_sizes_count_each_post_once_and_say_what_they_leave_out() -> None:
    df = _collection()
    coded = pd.DataFrame(
        {"source": "tiktok", "id": ["0", "1", "6", "7"], "label": ["positive", "negative"] * 2}
    )
    res = df.rds.agreement(coded, strata="sentiment", n_boot=50)
    # By hand: weights 6/2 = 3 (positive) and 2/2 = 1 (negative);
    # matrix rows service (negative, positive), columns reference:
    # negative: [1, 1]; positive: [3, 3] -> observed (1 + 3) / 8 = 0.5.
    assert res.observed == pytest.approx(0.5)
    assert float(res.confusion.loc["positive", "negative"]) == pytest.approx(3.0)
    assert any(
        "2 posts of the population have no sentiment: the estimate is of the 8 that do." in n
        for n in res.notes
    )
    # The same collection stacked twice: the same posts, the same weights.
    twice = pd.concat([df, df], ignore_index=True)
    again = twice.rds.agreement(coded, strata="sentiment", n_boot=50)
    assert again.observed == pytest.approx(0.5)
    assert float(again.confusion.loc["positive", "negative"]) == pytest.approx(3.0)
