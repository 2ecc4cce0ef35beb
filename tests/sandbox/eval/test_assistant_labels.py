"""Capabilities of issue 35 (item 3) the fifth blind set found missing, asked over real HTTP
in phrasings of this file's own (none is a blind set's) and checked against pandas over the
posts ``POST /v1/mentions`` returns, on a dataset of its own ("garden hose", 240 posts):

- a weekday named in French, Spanish, German, Portuguese or Italian ("un samedi", "di
  domenica", "an einem Dienstag", "na sexta-feira") is the weekday dimension, and "which
  day of the week has the fewest posts" in Spanish and Portuguese is the bottom weekday;
- hashtags are a dimension: the top k by posts in six languages, one left out ("apart from
  #x"), the share of posts that use any, the posts that use none;
- a k said apart from the grouping ("Which countries post most? Give the top 3.", "average
  likes by source, top 2") is honoured; "List the top 3 hook types" is a ranking of hook
  types, "list" the verb, not the hook type "list";
- a dataset named like an author ("posted in Garden hose") is the scope, not that author;
- one-line follow-ups in Spanish, Portuguese and Italian ("¿y los negativos?", "e em
  francês?", "E su TikTok?") edit the previous figure; a German quarter ("im dritten
  Quartal 2026") is that quarter; "le nombre moyen de vues par source" is the mean.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pandas as pd
import pytest
from eval_support import (
    ask_over_http,
    collect,
    post_counts,
    read_all,
    table_rows,
    understood,
    wire_label,
)

from rdskit.sandbox import SandboxHandle

Hose = tuple[httpx.Client, str, pd.DataFrame]
_TAG = re.compile(r"(?<![\w#])#([^\W_][\w-]*)")  # a hashtag as this file reads one


@pytest.fixture(scope="module")
def hose(sandbox: SandboxHandle) -> Iterator[Hose]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "Garden hose", 240, actions=("sentiment", "hook"))
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        frame = pd.DataFrame(
            {
                "weekday": datetime.fromtimestamp(float(p["created_at"]), UTC).strftime("%A"),
                "source": p["source"],
                "country": p.get("country_code"),
                "likes": p.get("num_likes"),
                "hooks": [h["type"] for h in p.get("hooks") or [] if h.get("type")],
                "tags": sorted(
                    {
                        f"#{t}"
                        for t in _TAG.findall(f"{p.get('title') or ''}\n{p.get('text')}".lower())
                    }
                ),
                "author": (p.get("author") or {}).get("title_url")
                or (p.get("author") or {}).get("title"),
                "author_name": (p.get("author") or {}).get("title"),
                "created": datetime.fromtimestamp(float(p["created_at"]), UTC),
                "language": p.get("language"),
                "views": p.get("num_views"),
                "sentiment": wire_label(p.get("sentiment")),
            }
            for p in posts
        )
        yield http, dataset_id, frame


def _top(counts: pd.Series, k: int) -> list[str]:
    """The top ``k`` labels of ``counts``, checked to be one set (no tie across the cut)."""
    ordered = counts.sort_values(ascending=False)
    assert len(ordered) > k and ordered.iloc[k - 1] != ordered.iloc[k], ordered.head(k + 1)
    return list(ordered.index[:k])


@pytest.mark.parametrize(
    ("question", "day"),
    [("Combien de publications ont été publiées un samedi ?", "Saturday"),
     ("Quanti post sono stati pubblicati di domenica?", "Sunday"),
     ("¿Cuántas publicaciones se publicaron el lunes?", "Monday"),
     ("Quantos posts foram publicados na sexta-feira?", "Friday"),
     ("Wie viele Beiträge wurden an einem Dienstag veröffentlicht?", "Tuesday"),
     ("Combien de posts le mercredi ?", "Wednesday"),
     ("¿Cuántas publicaciones hay los jueves?", "Thursday")],
)  # fmt: skip
def test_a_weekday_of_five_languages_is_the_weekday(hose: Hose, question: str, day: str) -> None:
    http, dataset_id, posts = hose
    want = int((posts["weekday"] == day).sum())
    assert 0 < want < len(posts)
    assert post_counts(understood(ask_over_http(http, question, None, dataset_id)["text"])) == [
        want
    ]


@pytest.mark.parametrize(
    ("question", "order"),
    [("¿Qué día de la semana tiene menos publicaciones?", "fewest"),
     ("¿Qué día de la semana tiene más publicaciones?", "most"),
     ("Em que dia da semana saem mais posts?", "most"),
     ("Qual dia da semana tem menos posts?", "fewest")],
)  # fmt: skip
def test_the_day_of_the_week_ranked_in_spanish_and_portuguese(
    hose: Hose, question: str, order: str
) -> None:
    http, dataset_id, posts = hose
    counts = posts["weekday"].value_counts()
    ordered = counts.sort_values(ascending=order == "fewest")
    assert ordered.iloc[0] != ordered.iloc[1]  # one day is the answer
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert table_rows(text) == [ordered.index[0]], text


def _tag_counts(posts: pd.DataFrame) -> pd.Series:
    return posts["tags"].explode().dropna().value_counts()


@pytest.mark.parametrize(
    "question",
    ["What are the 3 most used hashtags?",
     "Top 3 hashtags",
     "Which hashtags show up most often? Give the top 3.",
     "Quels sont les 3 hashtags les plus utilisés ?",
     "¿Cuáles son los 3 hashtags más usados?",
     "Quais são as 3 hashtags mais usadas?",
     "Welche 3 Hashtags werden am häufigsten verwendet?",
     "Quali sono i 3 hashtag più usati?"],
)  # fmt: skip
def test_the_top_hashtags_are_counted_by_posts(hose: Hose, question: str) -> None:
    http, dataset_id, posts = hose
    want = _top(_tag_counts(posts), 3)
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert "grouped by hashtag, the top 3" in text.splitlines()[0], text
    assert table_rows(text) == want, text


def test_a_hashtag_left_out_of_the_ranking_is_a_group_left_out(hose: Hose) -> None:
    http, dataset_id, posts = hose
    first, second = _top(_tag_counts(posts), 2)
    for question in (
        f"Apart from {first}, which hashtag is used in the most posts?",
        f"Leaving out {first}, what is the most common hashtag?",
    ):
        text = understood(ask_over_http(http, question, None, dataset_id)["text"])
        assert table_rows(text) == [second], text


@pytest.mark.parametrize(
    ("question", "uses"),
    [("What share of posts use a hashtag?", True),
     ("How many posts have no hashtags?", False),
     ("How many posts contain at least one hashtag?", True)],
)  # fmt: skip
def test_posts_with_any_hashtag_or_none(hose: Hose, question: str, uses: bool) -> None:
    http, dataset_id, posts = hose
    tagged = int(posts["tags"].map(bool).sum())
    assert 0 < tagged < len(posts)
    want = tagged if uses else len(posts) - tagged
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    if "share" in question:
        assert f"**{round(100 * want / len(posts), 1)}%**: {want} of the" in text, text
    else:
        assert post_counts(text) == [want], text


@pytest.mark.parametrize(
    ("question", "column", "k"),
    [("Which countries post most? Give the top 3.", "country", 3),
     ("Which platforms have the most posts? Show only the top 2.", "source", 2)],
)  # fmt: skip
def test_a_k_said_in_its_own_sentence_is_honoured(
    hose: Hose, question: str, column: str, k: int
) -> None:
    http, dataset_id, posts = hose
    want = _top(posts[column].value_counts(), k)
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert table_rows(text) == want, text


def test_a_k_said_after_a_grouping_is_honoured(hose: Hose) -> None:
    http, dataset_id, posts = hose
    means = posts.groupby("source")["likes"].mean()
    text = understood(
        ask_over_http(http, "Average likes by platform, top 2", None, dataset_id)["text"]
    )
    assert table_rows(text) == _top(means, 2), text


@pytest.mark.parametrize(
    "question",
    ["List the top 3 hook types by number of posts.", "Show the 3 most common hook types."],
)
def test_listing_the_top_hook_types_ranks_them(hose: Hose, question: str) -> None:
    http, dataset_id, posts = hose
    assert posts["hooks"].map(lambda h: "list" in h).any()  # "list" is a hook type here
    want = _top(posts["hooks"].explode().dropna().value_counts(), 3)
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert "hook type is list" not in text.splitlines()[0], text
    assert table_rows(text) == want, text


def test_a_dataset_named_like_an_author_is_the_scope(hose: Hose) -> None:
    http, dataset_id, posts = hose
    assert (posts["author_name"].str.lower() == "garden hose").any()  # the brand's account
    text = ask_over_http(
        http, "How many different authors posted in Garden hose?", None, dataset_id
    )["text"]
    assert "author is" not in text.splitlines()[0], text
    assert f"**{posts['author'].nunique():,}** distinct authors wrote the {len(posts)}" in text


def _where(posts: pd.DataFrame, **said: str) -> int:
    mask = pd.Series(True, index=posts.index)
    for column, value in said.items():
        mask &= posts[column] == value
    return int(mask.sum())


@pytest.mark.parametrize(
    "turns",
    [[("¿Cuántas publicaciones positivas hay en TikTok?",
       {"sentiment": "positive", "source": "tiktok"}),
      ("¿y los negativos?", {"sentiment": "negative", "source": "tiktok"}),
      ("¿y en Instagram?", {"sentiment": "negative", "source": "instagram"})],
     [("Quantos posts em inglês?", {"language": "en"}),
      ("e em francês?", {"language": "fr"}),
      ("E no Reddit?", {"language": "fr", "source": "reddit"})],
     [("Quanti post negativi su Instagram?", {"sentiment": "negative", "source": "instagram"}),
      ("e quelli positivi?", {"sentiment": "positive", "source": "instagram"}),
      ("E su TikTok?", {"sentiment": "positive", "source": "tiktok"})]],
)  # fmt: skip
def test_one_line_follow_ups_edit_the_previous_figure(
    hose: Hose, turns: list[tuple[str, dict[str, str]]]
) -> None:
    http, dataset_id, posts = hose
    chat_id = None
    for question, said in turns:
        reply = ask_over_http(http, question, chat_id, dataset_id)
        chat_id = reply["chat_id"]
        assert post_counts(understood(reply["text"])) == [_where(posts, **said)], (
            question,
            reply["text"],
        )
        if chat_id and question != turns[0][0]:
            assert "continuing the previous question" in reply["text"].splitlines()[0]


def test_a_german_quarter_is_that_quarter(hose: Hose) -> None:
    http, dataset_id, posts = hose
    moment = posts["created"].max() - pd.Timedelta(days=100)  # a quarter the data covers
    quarter = (moment.month - 1) // 3 + 1
    ordinal = {1: "ersten", 2: "zweiten", 3: "dritten", 4: "vierten"}[quarter]
    question = f"Wie viele Beiträge stammen aus dem {ordinal} Quartal {moment.year}?"
    inside = (posts["created"].dt.year == moment.year) & (
        (posts["created"].dt.month - 1) // 3 + 1 == quarter
    )
    assert 0 < int(inside.sum()) < len(posts)
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert post_counts(text) == [int(inside.sum())], text


def test_a_french_average_number_is_the_mean(hose: Hose) -> None:
    http, dataset_id, posts = hose
    question = "Quel est le nombre moyen de vues par source ?"
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    means = posts.groupby("source")["views"].mean()
    assert "mean of views" in text.splitlines()[0], text
    for source, value in means.items():
        assert f"| {source} | {value:,.2f} |" in text, text


@pytest.mark.parametrize("source", ["reddit", "youtube"])
def test_the_last_days_end_at_the_newest_post_of_the_scope_on_both_paths(
    hose: Hose, source: str
) -> None:
    # "The last 30 days" end at the newest post of the scope (docs/assistant.md), on the
    # figure path and on the analyses alike, even when the source asked has older posts.
    http, dataset_id, posts = hose
    newest = posts["created"].max()
    assert posts.loc[posts["source"] == source, "created"].max() < newest  # the two differ
    inside = (posts["source"] == source) & (posts["created"] > newest - pd.Timedelta(days=60))
    want = int(inside.sum())
    assert want > 0
    day = f"before the newest post ({newest.date()};"
    counted = ask_over_http(
        http, f"How many {source} posts in the last 60 days?", None, dataset_id
    )["text"]
    assert post_counts(understood(counted)) == [want] and day in counted.splitlines()[0], counted
    analysed = ask_over_http(
        http, f"What is the sentiment of {source} posts in the last 60 days?", None, dataset_id
    )["text"]
    assert f"of {want} posts" in analysed.splitlines()[0] and day in analysed, analysed
