"""Measures and the catalogue's nouns in six languages (issue 35, item 3), asked over real
HTTP and checked against pandas over the posts ``POST /v1/mentions`` returns, on a
dataset of this file's own ("garden hose", 240 posts over the five sources, 3 comments a
post):

- a statistic of a comment's own number ("likes per comment", "the most likes a single
  comment got", "réponses par commentaire") is over the collected comments, never the
  posts' numbers of the same name;
- a sum of two of engagement's parts ("likes plus comments (no shares)", "likes + shares",
  "curtidas + comentários") is that sum, and the part it leaves out is no filter;
- the catalogue's nouns (source, hour of the day, weekday, brand, views, likes) are read
  in French, Spanish, German, Portuguese and Italian ("fuente", "fonte", "Quelle",
  "visualizaciones", "like", "giorno della settimana", "Wochentag");
- Portuguese "no TikTok" is "on TikTok", never a negation;
- every value of a list left out of a ranking is left out ("apart from the US and the
  UK", "sin contar TikTok ni YouTube", "à part TikTok et YouTube"), and an ordinal before
  what is ranked names that rank ("il secondo paese per numero di post").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pandas as pd
import pytest
from eval_support import ask_over_http, collect, read_all, table_rows, understood

from rdskit.sandbox import SandboxHandle

Hose = tuple[httpx.Client, str, pd.DataFrame, pd.DataFrame]


@pytest.fixture(scope="module")
def hose(sandbox: SandboxHandle) -> Iterator[Hose]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "garden hose", 240)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        frame = pd.DataFrame(
            {
                "source": p["source"],
                "created": datetime.fromtimestamp(float(p["created_at"]), UTC),
                "likes": p.get("num_likes") or 0,
                "comments": p.get("num_comments") or 0,
                "shares": p.get("num_shares") or 0,
                "views": p.get("num_views"),
                "brands": list(p.get("mentioned_brands") or []),
                "country": p.get("country_code"),
            }
            for p in posts
        )
        comments = pd.DataFrame(
            {"likes": c.get("num_likes") or 0, "replies": c.get("num_replies") or 0}
            for p in posts
            for c in p.get("comments") or []
        )
        yield http, dataset_id, frame, comments


def _value(text: str) -> float:
    found = re.search(r" is \*\*(-?[\d,.]+)\*\*", text)
    assert found, text
    return float(found[1].replace(",", ""))


STATISTICS = {"mean": "mean", "median": "median", "max": "max", "sum": "sum"}


@pytest.mark.parametrize(
    ("question", "statistic", "column"),
    [
        ("What is the highest number of likes a single comment got?", "max", "likes"),
        ("What is the average number of likes per comment?", "mean", "likes"),
        ("¿Cuál es la media de likes por comentario?", "mean", "likes"),
        ("Qual é o máximo de likes por comentário?", "max", "likes"),
        ("Wie viele Likes bekommt ein Kommentar im Durchschnitt?", "mean", "likes"),
        ("Quelle est la médiane des réponses par commentaire ?", "median", "replies"),
        ("Qual è la media delle risposte per commento?", "mean", "replies"),
    ],
)
def test_a_comment_statistic_is_over_the_comments(
    hose: Hose, question: str, statistic: str, column: str
) -> None:
    http, dataset_id, posts, comments = hose
    want = float(getattr(comments[column], statistic)())
    of_posts = float(getattr(posts["likes" if column == "likes" else "comments"], statistic)())
    assert abs(want - of_posts) > 1  # the posts' figure of the same name is another one
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert f"comment {column}" in text.splitlines()[0], text
    assert abs(_value(text) - want) < 0.006, text
    assert f"over the {len(comments):,} comments collected" in text, text
    if "likes per comment" in question:  # the other reading is said, not taken
        assert "not the posts' totals divided by their number of comments" in text, text


@pytest.mark.parametrize(
    ("question", "statistic", "parts", "source"),
    [
        ("What is the average of likes plus comments (no shares) per post?", "mean",
         ("likes", "comments"), None),
        ("Total likes + shares on TikTok?", "sum", ("likes", "shares"), "tiktok"),
        ("Qual é a média de curtidas + comentários das publicações no Instagram?", "mean",
         ("likes", "comments"), "instagram"),
        ("Wie hoch ist die Summe aus Likes + Shares auf Reddit?", "sum", ("likes", "shares"),
         "reddit"),
        ("What is the median of comments plus shares on YouTube, without likes?", "median",
         ("comments", "shares"), "youtube"),
    ],
)  # fmt: skip
def test_a_sum_of_two_parts_is_that_sum(
    hose: Hose, question: str, statistic: str, parts: tuple[str, str], source: str | None
) -> None:
    http, dataset_id, posts, _ = hose
    scope = posts if source is None else posts[posts["source"] == source]
    want = float(getattr(scope[parts[0]] + scope[parts[1]], statistic)())
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    read_as = text.splitlines()[0]
    assert f"{parts[0]} + {parts[1]}" in read_as or f"{parts[1]} + {parts[0]}" in read_as, text
    assert " is 0" not in read_as and "NOT" not in read_as, text  # no part made a filter
    assert abs(_value(text) - want) < 0.006, text
    assert f"over {len(scope):,} posts" in text, text


def _top(values: pd.Series, fewest: bool = False, rank: int = 1) -> str:
    counts = values.value_counts()
    counts = counts.sort_values(ascending=fewest, kind="stable")
    neighbours = [counts.iloc[i] for i in (rank - 2, rank) if 0 <= i < len(counts)]
    assert counts.iloc[rank - 1] not in neighbours, counts  # the asked rank has no tie
    return str(counts.index[rank - 1])


@pytest.mark.parametrize(
    ("question", "column", "fewest"),
    [
        ("¿Qué fuente tiene más publicaciones?", "source", False),
        ("Welche Quelle hat die wenigsten Beiträge?", "source", True),
        ("Quale fonte ha più post?", "source", False),
        ("Quale giorno della settimana ha più post?", "weekday", False),
        ("An welchem Wochentag gibt es die meisten Beiträge?", "weekday", False),
        ("¿Qué hora del día tiene más publicaciones?", "hour", False),
        ("Quelle marque est la plus mentionnée ?", "brand", False),
    ],
)
def test_the_catalogue_nouns_of_each_language(
    hose: Hose, question: str, column: str, fewest: bool
) -> None:
    http, dataset_id, posts, _ = hose
    values = {
        "source": posts["source"],
        "weekday": posts["created"].dt.day_name(),
        "hour": posts["created"].dt.strftime("%H"),
        "brand": posts["brands"].explode().dropna(),
    }[column]
    want = _top(values, fewest)
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert table_rows(text)[:1] == [want], text


@pytest.mark.parametrize(
    ("question", "source"),
    [
        ("¿Cuál es la media de visualizaciones de las publicaciones en YouTube?", "youtube"),
        ("Qual é a média de visualizações das publicações no LinkedIn?", "linkedin"),
        ("Qual è la media delle visualizzazioni dei post su Reddit?", "reddit"),
    ],
)
def test_views_in_each_language(hose: Hose, question: str, source: str) -> None:
    http, dataset_id, posts, _ = hose
    want = float(posts[posts["source"] == source]["views"].mean())
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert f"source is {source}" in text.splitlines()[0], text
    assert abs(_value(text) - want) < 0.006, text


@pytest.mark.parametrize(
    ("question", "likes", "source"),
    [
        ("Quantas publicações têm mais de 500 curtidas no TikTok?", 500, "tiktok"),
        ("Quanti post hanno più di 1000 like?", 1000, None),
        ("¿Cuántas publicaciones con más de 200 likes hay en Instagram?", 200, "instagram"),
        ("Wie viele Beiträge haben mehr als 1.000 Likes?", 1000, None),
        ("Combien de publications YouTube ont plus de 1 000 j'aime ?", 1000, "youtube"),
    ],
)
def test_a_likes_threshold_in_each_language(
    hose: Hose, question: str, likes: int, source: str | None
) -> None:
    http, dataset_id, posts, _ = hose
    scope = posts if source is None else posts[posts["source"] == source]
    want = int((scope["likes"] > likes).sum())
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    found = re.search(r"\*\*([\d,]+)\*\* posts? match", text)
    assert found and int(found[1].replace(",", "")) == want, text


@pytest.mark.parametrize(
    ("question", "column", "left_out"),
    [
        ("Apart from the US and the UK, which country has the most posts?", "country",
         ("US", "GB")),
        ("Excluding TikTok and YouTube, which source has the most posts?", "source",
         ("tiktok", "youtube")),
        ("Abgesehen von den USA und Großbritannien, welches Land hat die meisten Beiträge?",
         "country", ("US", "GB")),
        ("Sin contar TikTok ni YouTube, ¿qué fuente tiene más publicaciones?", "source",
         ("tiktok", "youtube")),
        ("À part TikTok et YouTube, quelle source a le plus de publications ?", "source",
         ("tiktok", "youtube")),
        ("Welches Land hat nach den USA die meisten Beiträge?", "country", ("US",)),
    ],
)  # fmt: skip
def test_every_value_of_a_list_left_out_is_left_out(
    hose: Hose, question: str, column: str, left_out: tuple[str, ...]
) -> None:
    http, dataset_id, posts, _ = hose
    rest = posts[~posts[column].isin(left_out)][column].dropna()
    want = _top(rest)
    assert (
        want != _top(posts[~posts[column].isin(left_out[:1])][column].dropna())
        or len(left_out) == 1
    )  # leaving out only the first value would answer another figure
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert table_rows(text)[:1] == [want], text


@pytest.mark.parametrize(
    ("question", "column", "rank"),
    [
        ("Qual è il secondo paese per numero di post?", "country", 2),
        ("¿Cuál es la segunda fuente con más publicaciones?", "source", 2),
        ("Quelle est la troisième source par nombre de publications ?", "source", 3),
        ("Qual é o segundo país com mais publicações?", "country", 2),
        ("What is the third country by number of posts?", "country", 3),
    ],
)
def test_an_ordinal_before_what_is_ranked(
    hose: Hose, question: str, column: str, rank: int
) -> None:
    http, dataset_id, posts, _ = hose
    want = _top(posts[column].dropna(), rank=rank)
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    named = re.search(r"The (?:second|third) most: \*\*(.+?)\*\*", text)
    assert named and named[1] == want, text


@pytest.mark.parametrize(
    ("question", "months"),
    [
        ("Were there more posts in October or in September 2026?", ("2026-10", "2026-09")),
        ("Y a-t-il eu plus de publications en juillet ou en août 2026 ?",
         ("2026-07", "2026-08")),
        ("¿Hubo más publicaciones en agosto o en octubre de 2026?", ("2026-08", "2026-10")),
    ],
)  # fmt: skip
def test_more_in_one_month_or_another_is_a_count_each(
    hose: Hose, question: str, months: tuple[str, str]
) -> None:
    http, dataset_id, posts, _ = hose
    month = posts["created"].dt.strftime("%Y-%m")
    want = [int((month == m).sum()) for m in months]
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    counts = [int(n.replace(",", "")) for n in re.findall(r"\*\*([\d,]+)\*\* posts? match", text)]
    assert counts == want, text
