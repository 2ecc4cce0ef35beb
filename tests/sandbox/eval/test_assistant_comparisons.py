"""Capabilities of issue 35 (item 3) asked over real HTTP and checked against pandas over
the posts ``POST /v1/mentions`` returns, on a dataset of this file's own ("camping stove",
240 posts over four sources), each in phrasings of its own and in several languages:

- a period against another or the previous one ("the last 60 days versus the 60 days
  before", "this month vs last month", "im Vergleich zu", "rispetto a") is a figure per
  period, never one pooled window;
- "with X versus without" is a figure per side;
- a negation reaches past an article ("not from the US");
- "the most negative average sentiment score" is the lowest mean, not a filter;
- a follow-up edits the previous figure (filter, measure, k) and the read-as line says the
  edit;
- a ratio of two metrics ("likes per 1,000 views", "shares per like") is the posts' total
  of one over their total of the other;
- comparatives and ranks of German, Italian, French, Spanish and Portuguese ("mehr als",
  "più di", "am meisten", "il maggior numero di", "au moins", "menos de", "ranks third");
- a dimension said by name that no filter reads is named, never counted as if unsaid.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

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

Brew = tuple[httpx.Client, str, pd.DataFrame]


@pytest.fixture(scope="module")
def stove(sandbox: SandboxHandle) -> Iterator[Brew]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(
            http,
            "camping stove",
            240,
            sources=("reddit", "tiktok", "youtube", "instagram"),
            actions=("sentiment", "cta"),
        )
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        frame = pd.DataFrame(
            {
                "source": p["source"],
                "created": datetime.fromtimestamp(float(p["created_at"]), UTC),
                "likes": p.get("num_likes"),
                "comments": p.get("num_comments"),
                "shares": p.get("num_shares"),
                "views": p.get("num_views"),
                "country": p.get("country_code"),
                "language": p.get("language"),
                "cta": (p.get("cta") or {}).get("text"),
                "sentiment": wire_label(p.get("sentiment")),
                "score": float(p["sentiment_score"]) if p.get("sentiment_score") else None,
            }
            for p in posts
        )
        yield http, dataset_id, frame


def _means(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"is \*\*(-?[\d,.]+)\*\*", text)]


def _month(frame: pd.DataFrame, month: str) -> int:
    return int((frame["created"].dt.strftime("%Y-%m") == month).sum())


def _window(frame: pd.DataFrame, days: int, back: int = 0) -> int:
    end = frame["created"].max() - timedelta(days=back)
    return int(((frame["created"] > end - timedelta(days=days)) & (frame["created"] <= end)).sum())


@pytest.mark.parametrize(
    ("question", "windows"),
    [
        ("How many posts in the last 60 days versus the 60 days before?", (60, 60)),
        ("Posts in the past 4 weeks compared with the previous 4 weeks: how many?", (28, 28)),
        ("How many posts in the last 45 days, and how many in the 45 days before that?", (45, 45)),
        (
            "Wie viele Beiträge in den letzten 30 Tagen im Vergleich zu den 30 Tagen davor?",
            (30, 30),
        ),
    ],
)
def test_a_window_against_the_one_before_is_a_figure_each(
    stove: Brew, question: str, windows: tuple[int, int]
) -> None:
    http, dataset_id, posts = stove
    days, back = windows
    want = [_window(posts, days), _window(posts, days, back)]
    assert want[0] + want[1] < len(posts)  # neither window is every post
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert post_counts(text) == want, text


@pytest.mark.parametrize(
    ("question", "months"),
    [
        ("Number of posts in August 2026 compared with July 2026?", ("2026-08", "2026-07")),
        ("Combien de publications en août 2026 par rapport à juillet 2026 ?",
         ("2026-08", "2026-07")),
        ("¿Cuántas publicaciones en septiembre de 2026 frente a agosto de 2026?",
         ("2026-09", "2026-08")),
        ("Quanti post a ottobre 2026 rispetto a settembre 2026?", ("2026-10", "2026-09")),
        ("Quantas publicações em outubro de 2026 comparado com setembro de 2026?",
         ("2026-10", "2026-09")),
    ],
)  # fmt: skip
def test_a_month_against_another_is_a_figure_each(
    stove: Brew, question: str, months: tuple[str, str]
) -> None:
    http, dataset_id, posts = stove
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert post_counts(text) == [_month(posts, month) for month in months], text


def test_this_month_against_last_month_is_the_calendar_month_before(stove: Brew) -> None:
    http, dataset_id, posts = stove
    newest = posts["created"].max()
    this = newest.strftime("%Y-%m")
    last = (newest.replace(day=1) - timedelta(days=1)).strftime("%Y-%m")
    text = understood(
        ask_over_http(http, "How many posts this month vs last month?", None, dataset_id)["text"]
    )
    assert post_counts(text) == [_month(posts, this), _month(posts, last)], text


@pytest.mark.parametrize(
    "question",
    [
        "Average likes of posts with a call to action versus without one?",
        "What are the mean likes for posts with a CTA compared to posts without?",
    ],
)
def test_with_against_without_is_a_figure_each(stove: Brew, question: str) -> None:
    http, dataset_id, posts = stove
    want = [posts[posts["cta"].notna()].likes.mean(), posts[posts["cta"].isna()].likes.mean()]
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert _means(text) == pytest.approx(want, abs=0.006), text


@pytest.mark.parametrize(
    "question",
    [
        "How many posts are not from the US and not in English?",
        "How many posts are neither from the US nor in English?",
    ],
)
def test_a_negation_reaches_past_an_article(stove: Brew, question: str) -> None:
    http, dataset_id, posts = stove
    want = int(((posts["country"] != "US") & (posts["language"] != "en")).sum())
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert post_counts(text) == [want], text


def test_the_most_negative_average_score_is_the_lowest_mean(stove: Brew) -> None:
    http, dataset_id, posts = stove
    means = posts.groupby("source")["score"].mean()
    question = "Which platform has the most negative average sentiment score?"
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert "where sentiment is negative" not in text.splitlines()[0], text
    assert "the bottom 1" in text.splitlines()[0], text
    assert table_rows(text) == [means.idxmin()], text


def _chat(http: httpx.Client, dataset_id: str, turns: list[str]) -> list[str]:
    chat_id, texts = None, []
    for turn in turns:
        reply = ask_over_http(http, turn, chat_id, dataset_id)
        chat_id = reply["chat_id"]
        texts.append(reply["text"])
    return texts


def test_a_follow_up_edits_the_filter_and_says_so(stove: Brew) -> None:
    http, dataset_id, posts = stove
    texts = _chat(http, dataset_id, ["What share of posts are negative?", "Only TikTok."])
    tiktok = posts[posts["source"] == "tiktok"]
    want = round(100 * (tiktok["sentiment"] == "negative").sum() / len(tiktok), 1)
    assert f"**{want}%**" in understood(texts[1]), texts[1]
    assert "now also source is tiktok" in texts[1].splitlines()[0], texts[1]


def test_a_follow_up_edits_the_measure_and_keeps_the_breakdown(stove: Brew) -> None:
    http, dataset_id, posts = stove
    texts = _chat(
        http, dataset_id, ["What are the average likes per platform?", "Now the median instead."]
    )
    read_as = texts[1].splitlines()[0]
    assert "median of likes" in read_as and "grouped by source" in read_as, texts[1]
    assert "median instead of mean" in read_as, texts[1]
    medians = posts.groupby("source")["likes"].median()
    for source, value in medians.items():
        said = f"{int(value):,}" if float(value).is_integer() else f"{value:,.2f}"
        assert f"| {source} | {said} |" in texts[1], texts[1]


def test_a_follow_up_edits_k_and_says_so(stove: Brew) -> None:
    http, dataset_id, posts = stove
    texts = _chat(
        http, dataset_id, ["Which 3 countries have the most posts?", "Make it the top 2."]
    )
    assert "the top 2 instead of 3" in texts[1].splitlines()[0], texts[1]
    counts = posts["country"].value_counts()
    assert counts.iloc[1] != counts.iloc[2]  # the top 2 is one set
    assert set(table_rows(texts[1])) == set(counts.index[:2]), texts[1]


@pytest.mark.parametrize(
    ("question", "bound"),
    [
        ("Wie viele Beiträge haben mehr als 500 Likes?", (">", 500)),
        ("Quanti post hanno più di 500 like?", (">", 500)),
        ("Combien de publications ont au moins 1000 vues ?", (">=", 1000, "views")),
        ("¿Cuántas publicaciones tienen menos de 50 me gusta?", ("<", 50)),
        ("Quantas publicações têm mais de 500 curtidas?", (">", 500)),
    ],
)
def test_comparatives_of_five_languages_bound_the_metric(
    stove: Brew, question: str, bound: tuple[object, ...]
) -> None:
    http, dataset_id, posts = stove
    op, value, *metric = bound
    column = posts[metric[0] if metric else "likes"]
    mask = {">": column > value, ">=": column >= value, "<": column < value}[str(op)]
    want = int(mask.sum())
    assert 0 < want < len(posts)
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert post_counts(text) == [want], text


@pytest.mark.parametrize(
    ("question", "rank"),
    [
        ("Welche Plattform hat am meisten Beiträge?", 1),
        ("Qual è la piattaforma con il maggior numero di post?", 1),
        ("Which is the most popular platform?", 1),
        ("Which source ranks third by number of posts?", 3),
        ("Welche Plattform hat die zweitmeisten Beiträge?", 2),
    ],
)
def test_a_rank_names_the_group_of_that_rank(stove: Brew, question: str, rank: int) -> None:
    http, dataset_id, posts = stove
    counts = posts["source"].value_counts()
    assert counts.iloc[rank - 1] not in (
        counts.iloc[rank - 2 : rank - 1].tolist() if rank > 1 else []
    )
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert f"grouped by source, the top {rank}" in text.splitlines()[0], text
    if rank == 1:  # the table of the top group
        assert table_rows(text) == [counts.index[0]], text
    else:  # the group of that rank is named, the ones before it listed
        assert f"**{counts.index[rank - 1]}**" in text, text


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("How many posts had a hook?", "hook"),
        ("What share of posts have a tone?", "tone"),
        ("Average likes of posts with an emotion?", "emotion"),
    ],
)
def test_a_dimension_said_but_not_read_is_named(stove: Brew, question: str, word: str) -> None:
    http, dataset_id, _ = stove
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert re.search(rf"did not understand [^\n]*'{word}", text), text
    assert not re.search(r"\*\*[\d,.]+%?\*\*", text), text  # no figure of the wider scope


@pytest.mark.parametrize(
    "question",
    [
        "Compare the number of posts in August 2026 with July 2026.",
        "Did posts grow in August 2026 compared with July 2026?",
    ],
)
def test_a_change_between_periods_is_the_count_of_each(stove: Brew, question: str) -> None:
    http, dataset_id, posts = stove
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    assert post_counts(text) == [_month(posts, "2026-08"), _month(posts, "2026-07")], text


@pytest.fixture(scope="module")
def lantern(stove: Brew) -> str:
    """A second dataset beside the camping stove's: "which one" has two to choose from."""
    return collect(stove[0], "camping lantern", 40, sources=("reddit", "tiktok"))


@pytest.mark.parametrize(
    "question", ["Which one did better?", "Is it going up?", "How many posts mention it?"]
)
def test_a_question_that_only_points_back_gets_a_clarifying_question(
    stove: Brew, lantern: str, question: str
) -> None:
    http, dataset_id, _ = stove
    text = ask_over_http(http, question, None, [dataset_id, lantern])["text"]
    assert text.startswith("**Which do you mean by"), text
    assert "camping lantern" in text and "camping stove" in text, text  # the choices said
    assert not re.search(r"\*\*[\d,.]+%?\*\*", text), text  # no figure for a guessed reading
    # the same words of an analysis that needs no measure are answered, "it" the subject
    said = ask_over_http(http, "What do people like about it?", None, [dataset_id, lantern])
    assert "Which do you mean" not in said["text"], said["text"]


def test_a_hashtag_is_searched_as_a_tag(stove: Brew) -> None:
    http, dataset_id, _ = stove
    posts = read_all(http, {"dataset_ids": [dataset_id]})
    texts = [f"{p.get('title') or ''}\n{p.get('text') or ''}".lower() for p in posts]
    tags = sorted({t for text in texts for t in re.findall(r"#(\w+)", text)})
    assert tags, "the dataset's posts carry hashtags"
    tag = max(tags, key=lambda t: sum(f"#{t}" in text for text in texts))
    want = sum(bool(re.search(rf"(?<![\w#])#{tag}", text)) for text in texts)
    text = understood(
        ask_over_http(http, f"How many posts use the hashtag #{tag}?", None, dataset_id)["text"]
    )
    assert post_counts(text) == [want], text
    none = ask_over_http(http, "How many posts use #zqxwvk?", None, dataset_id)["text"]
    assert "#zqxwvk" in none.splitlines()[0] and post_counts(none) == [0], none


@pytest.mark.parametrize(
    ("question", "above", "below", "scale"),
    [("What is the average number of shares per like?", ("shares",), "likes", 1),
     ("What is the engagement per 1000 views?", ("likes", "comments", "shares"), "views", 1000),
     ("How many likes per 1,000 views do TikTok posts get?", ("likes",), "views", 1000),
     ("¿Cuántos me gusta por cada 1000 visualizaciones?", ("likes",), "views", 1000),
     ("Wie viele Likes pro 1000 Aufrufe?", ("likes",), "views", 1000)],
)  # fmt: skip
def test_a_ratio_of_two_metrics_is_total_over_total(
    stove: Brew, question: str, above: tuple[str, ...], below: str, scale: int
) -> None:
    # "likes per 1,000 views": the posts' total likes over their total views (posts with
    # both), never one of its parts; a ratio of something no post carries is named.
    http, dataset_id, posts = stove
    scoped = posts[posts["source"] == "tiktok"] if "TikTok" in question else posts
    both = scoped.dropna(subset=[*above, below])
    want = scale * both[list(above)].sum(axis=1).sum() / both[below].sum()
    text = understood(ask_over_http(http, question, None, dataset_id)["text"])
    said = re.search(r"\*\*([\d,.]+)\*\* \w+ per ", text)
    assert said, text
    assert float(said[1].replace(",", "")) == pytest.approx(want, abs=0.006 if want >= 1 else 6e-5)
    text = ask_over_http(http, "What is the number of likes per follower?", None, dataset_id)
    assert "did not understand" in text["text"] and "per follower" in text["text"], text
