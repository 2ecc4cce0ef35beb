"""Fresh figure questions that were answered with a confident wrong figure: "how many
authors posted more than once" counted every author, "views on YouTube vs TikTok" pooled the
two platforms into one mean, "posts that did not come from Instagram" counted Instagram's,
"posts that don't have any comments" and "posts that mention oat milk" counted every post,
"the most likes overall" was a mean, and "the quietest day" left out the days without
posts. Each figure is checked against pandas over the posts ``POST /v1/mentions`` returns,
over real HTTP."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import httpx
import pandas as pd
import pytest
from eval_support import ask_over_http, collect, read_all

from rdskit.sandbox import SandboxHandle


@pytest.fixture(scope="module")
def oat(sandbox: SandboxHandle) -> Iterator[tuple[httpx.Client, str, pd.DataFrame]]:
    created = sandbox.admin.create_account(plan="Pro")
    with httpx.Client(
        base_url=sandbox.url, headers={"x-api-key": created.api_key}, timeout=60
    ) as http:
        dataset_id = collect(http, "oat milk", 300)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        frame = pd.DataFrame(
            {
                "source": p["source"],
                # An author is their profile link, else their name (the Mention's author).
                "author": (p.get("author") or {}).get("title_url")
                or (p.get("author") or {}).get("title"),
                "views": p.get("num_views"),
                "likes": p.get("num_likes"),
                "comments": p.get("num_comments"),
                "score": None if p.get("sentiment_score") is None else float(p["sentiment_score"]),
                "rate": None if p.get("engagement_rate") is None else float(p["engagement_rate"]),
                "day": pd.Timestamp(p["created_at"], unit="s").strftime("%Y-%m-%d"),
                "text": f"{p.get('title') or ''}\n{p.get('text') or ''}".lower(),
            }
            for p in posts
        )
        yield http, dataset_id, frame


@pytest.mark.parametrize(
    ("question", "least", "source"),
    [("How many authors posted more than once?", 2, None),
     ("How many distinct authors have at least 3 posts?", 3, None),
     ("How many creators posted multiple times on Instagram?", 2, "instagram"),
     ("How many authors posted more than 2 times?", 3, None)],
)  # fmt: skip
def test_authors_who_posted_often_are_counted_out_of_all_authors(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, least: int, source: str | None
) -> None:
    http, dataset_id, posts = oat
    scope = posts if source is None else posts[posts["source"] == source]
    per_author = scope["author"].value_counts()
    often = int((per_author >= least).sum())
    assert 0 < often < len(per_author)  # the two readings differ here
    text = ask_over_http(http, question, None, dataset_id)["text"]
    found = re.search(
        r"\*\*([\d,]+)\*\* of the ([\d,]+) distinct authors wrote at least (\d+)", text
    )
    assert found, text
    assert (int(found[1]), int(found[2]), int(found[3])) == (often, len(per_author), least)
    assert "did not understand" not in text, text


@pytest.mark.parametrize(
    ("question", "metric", "statistic", "sources"),
    [("Average views per post on YouTube vs TikTok?", "views", "mean", ("youtube", "tiktok")),
     ("Median likes on Reddit compared to Instagram", "likes", "median", ("reddit", "instagram"))],
)  # fmt: skip
def test_a_comparison_gives_one_figure_per_value_compared(
    oat: tuple[httpx.Client, str, pd.DataFrame],
    question: str,
    metric: str,
    statistic: str,
    sources: tuple[str, str],
) -> None:
    http, dataset_id, posts = oat
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert "grouped by source" in text and "did not understand" not in text, text
    rows = re.findall(r"^\| (\w+) \| ([\d,.]+) \| (\d+) \|$", text, re.MULTILINE)
    assert {source for source, _, _ in rows} == set(sources), text
    for source, value, n in rows:
        values = posts.loc[posts["source"] == source, metric].dropna()
        expected = values.mean() if statistic == "mean" else values.median()
        assert float(value.replace(",", "")) == pytest.approx(expected, abs=0.01), source
        assert int(n) == len(values), source


def _count(text: str) -> int:
    found = re.search(r"\*\*([\d,]+)\*\* posts? match", text)
    assert found, text
    return int(found[1].replace(",", ""))


@pytest.mark.parametrize(
    ("question", "expected"),
    [("How many posts did not come from Instagram?", lambda f: f["source"] != "instagram"),
     ("How many posts don't come from Reddit?", lambda f: f["source"] != "reddit"),
     ("How many posts doesn't have any comments?", lambda f: f["comments"] == 0),
     ("How many posts without comments?", lambda f: f["comments"] == 0),
     ("How many posts mention oat milk?", lambda f: f["text"].str.contains(r"\boat\W+milk\b")),
     ("How many posts had likes between 100 and 500?", lambda f: f["likes"].between(100, 500)),
     ("How many posts have more than 100 likes and fewer than 500 likes?",
      lambda f: (f["likes"] > 100) & (f["likes"] < 500)),
     ("How many posts have fewer than 100 likes or more than 5000 likes?",
      lambda f: (f["likes"] < 100) | (f["likes"] > 5000)),
     ("How many posts got more likes than average?", lambda f: f["likes"] > f["likes"].mean()),
     ("How many posts have above-average views?", lambda f: f["views"] > f["views"].mean()),
     ("How many TikTok posts have likes above the median?",
      lambda f: (f["source"] == "tiktok") & (f["likes"] > f["likes"].median())),
     ("How many posts have a sentiment score below -0.5?", lambda f: f["score"] < -0.5),
     ("How many posts with less than 3% engagement rate?", lambda f: f["rate"] < 0.03),
     ("How many posts have an engagement rate above 5%?", lambda f: f["rate"] > 0.05),
     ("Combien de publications ne sont pas en anglais ?", None),
     ("Wie viele Beiträge sind nicht auf TikTok?", lambda f: f["source"] != "tiktok"),
     ("¿Cuántas publicaciones no son de TikTok?", lambda f: f["source"] != "tiktok"),
     ("Quantas publicações não são do TikTok?", lambda f: f["source"] != "tiktok")],
)  # fmt: skip
def test_counts_that_were_read_without_their_condition(
    oat: tuple[httpx.Client, str, pd.DataFrame],
    question: str,
    expected: Callable[[pd.DataFrame], pd.Series] | None,
) -> None:
    http, dataset_id, posts = oat
    if expected is None:  # the language is the service's label: the English question's n
        english = "How many posts are not in English?"
        n = _count(ask_over_http(http, english, None, dataset_id)["text"])
    else:
        n = int(expected(posts).sum())
    assert 0 < n < len(posts)  # the condition matters here
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _count(text) == n, text
    assert "did not understand" not in text, text


def test_the_most_overall_is_a_total(oat: tuple[httpx.Client, str, pd.DataFrame]) -> None:
    http, dataset_id, posts = oat
    totals = posts.groupby("author")["likes"].sum().sort_values(ascending=False)
    assert totals.iloc[0] > totals.iloc[1]  # one author leads
    text = ask_over_http(http, "Which author has the most likes overall?", None, dataset_id)
    assert "sum of likes over all posts" in text["text"], text["text"]
    assert f"| {totals.iloc[0]:,} |" in text["text"], (totals.head(3), text["text"])


def test_the_quietest_day_counts_the_days_nobody_posted(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, posts = oat
    days = pd.date_range(posts["day"].min(), posts["day"].max(), freq="D").strftime("%Y-%m-%d")
    per_day = posts["day"].value_counts().reindex(days, fill_value=0)
    empty = per_day[per_day == 0]
    assert len(empty) > 1
    text = ask_over_http(http, "Which day had the fewest posts?", None, dataset_id)["text"]
    assert f"| {empty.index[0]} | 0 |" in text, text
    assert f"{len(empty) - 1:,} more days tie with {empty.index[0]} at 0" in text, text


def test_the_busiest_week_is_the_week_with_most_posts(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, posts = oat
    weeks = pd.to_datetime(posts["day"]).dt.isocalendar()
    keys = weeks["year"].astype(str) + "-W" + weeks["week"].astype(str).str.zfill(2)
    counts = keys.value_counts()
    most = counts[counts == counts.max()].sort_index()
    text = ask_over_http(http, "What was the busiest week?", None, dataset_id)["text"]
    assert f"| {most.index[0]} | {most.iloc[0]} |" in text, text
    assert ("tie with" in text) == (len(most) > 1), text


@pytest.mark.parametrize(
    "question",
    ["Combien de publications ne mentionnent pas le prix ?",
     "Wie viele Beiträge erwähnen den Preis nicht?",
     "¿Cuántas publicaciones no mencionan el precio?",
     "Quantas publicações não mencionam o preço?"],
)  # fmt: skip
def test_a_negation_in_another_language_is_kept(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str
) -> None:
    http, dataset_id, posts = oat
    mention = _count(
        ask_over_http(http, "How many posts mention the price?", None, dataset_id)["text"]
    )
    assert 0 < mention < len(posts)
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _count(text) == len(posts) - mention, text
    assert 'NOT (title or text mentions "price")' in text, text


def _share(text: str) -> tuple[int, int]:
    found = re.search(r"\*\*[\d.]+%\*\*: ([\d,]+) of the ([\d,]+) posts", text)
    assert found, text
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


@pytest.mark.parametrize(
    ("question", "plain", "source"),
    [("What share of posts are negative on TikTok?", "What share of TikTok posts are negative?",
      "tiktok"),
     ("What's the share of ads on Instagram?", "What share of Instagram posts are ads?",
      "instagram")],
)  # fmt: skip
def test_a_share_said_on_a_platform_is_taken_of_that_platform(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, plain: str, source: str
) -> None:
    http, dataset_id, posts = oat
    text = ask_over_http(http, question, None, dataset_id)["text"]
    part, whole = _share(text)
    assert whole == int((posts["source"] == source).sum()), text
    assert (part, whole) == _share(ask_over_http(http, plain, None, dataset_id)["text"])
    assert f"'on {source}' is read as the posts the share is taken of" in text, text
    # Said as the predicate, the platform is what the share counts.
    alone = _share(ask_over_http(http, f"What share of posts are on {source}?", None,
                                 dataset_id)["text"])  # fmt: skip
    assert alone == (int((posts["source"] == source).sum()), len(posts))


def test_a_count_per_month_shows_the_months_with_none(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, posts = oat
    months = pd.period_range(posts["day"].min(), posts["day"].max(), freq="M").astype(str)

    def per_month(word: str) -> pd.Series:
        said = posts[posts["text"].str.contains(rf"\b{word}")]
        return said["day"].str[:7].value_counts().reindex(months, fill_value=0)

    # A word some months never see (chosen from the data, not written for it).
    word = next(w for w in ("foam", "sugar", "froth", "texture", "barista", "price")
                if (per_month(w) == 0).any() and (per_month(w) > 0).any())  # fmt: skip
    counts = per_month(word)
    question = f"How many posts about {word} per month?"
    text = ask_over_http(http, question, None, dataset_id)["text"]
    rows = dict(re.findall(r"^\| (\d{4}-\d{2}) \| (\d+) \|$", text, re.MULTILINE))
    assert {k: int(v) for k, v in rows.items()} == counts.to_dict(), text


@pytest.mark.parametrize(
    ("question", "note", "expected"),
    [("How many posts have fewer than 100 likes or more than 5000 views?",
      "'or' between likes and views is read as 'and'",
      lambda f: (f["likes"] < 100) & (f["views"] > 5000)),
     ("How many posts mention price more than once?", "'more than once' is not read here",
      lambda f: f["text"].str.contains(r"\bprice"))],
)  # fmt: skip
def test_what_is_read_otherwise_is_said_in_a_note(
    oat: tuple[httpx.Client, str, pd.DataFrame],
    question: str,
    note: str,
    expected: Callable[[pd.DataFrame], pd.Series],
) -> None:
    http, dataset_id, posts = oat
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _count(text) == int(expected(posts).sum()), text
    assert note in text, text


def test_an_outlier_date_does_not_fill_millions_of_empty_days() -> None:
    # A hostile or broken server: one post dated 1970 beside posts of 2026. Filling every
    # empty day between them would list ~20,000 rows; the periods with posts are listed
    # instead, and the answer says the empty ones are not shown as 0.
    from rdskit.sandbox.assistant.catalogue import Table
    from rdskit.sandbox.assistant.figures import MAX_FILLED, run, write
    from rdskit.sandbox.assistant.reader import Query
    from rdskit.sandbox.assistant.sections import Writer

    posts = [{"source": "reddit", "id": str(i), "created_at": stamp}
             for i, stamp in enumerate([0, 1767225600, 1767312000])]  # fmt: skip
    query = Query("count", group="day")
    result = run(query, Table(posts))
    assert result.unfilled and len(result.groups) == 3
    out = Writer("count")
    write(out, query, Table(posts), "the test", "ads included")
    assert f"more than {MAX_FILLED:,} days, so only the days with posts" in "\n".join(out.lines)
    # A span within the bound is filled as before: the day between two posts is a 0.
    near = Table([posts[1], {"source": "x", "id": "9", "created_at": 1767398400}])
    filled = run(query, near)
    assert not filled.unfilled and ("2026-01-02", 0, 0) in filled.groups
