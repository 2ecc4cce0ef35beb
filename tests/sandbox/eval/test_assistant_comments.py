"""Comment questions over real HTTP (issue kdates 4): "comments asking how much it cost"
is a question a commenter asks about the price ("How much did you pay?"), not the words of
the question searched as written; the figure is checked against pandas over the comments
``POST /v1/mentions`` returns. "How many posts ..." counts the posts with such a comment,
"how many comments ..." the comments themselves (issue kfix 3), out of those collected; a
comment's own likes, replies and date, its authors and the most liked one (issue 35)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pandas as pd
import pytest
from eval_support import ask_over_http, collect, read_all

from rdskit.sandbox import SandboxHandle

# How commenters ask about a price, or where to buy, written here independently of the
# assistant's words.
PRICE = re.compile(r"\b(?:price|pricing|cost|pay|paid|how much|expensive|cheap|overpriced)")
WHERE_TO_BUY = re.compile(r"\bwhere (?:\w+ ){0,3}(?:buy|bought|get|got|find)\b")


@pytest.fixture(scope="module")
def oat(sandbox: SandboxHandle) -> Iterator[tuple[httpx.Client, str, pd.DataFrame]]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "oat milk", 300)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        rows = [
            {
                "id": p["id"],
                "source": p["source"],
                "num_comments": p.get("num_comments") or 0,
                "body": str(c.get("body") or "").lower(),
                "text": str(c.get("body") or ""),
                "likes": c.get("num_likes") or 0,
                "replies": c.get("num_replies") or 0,
                "author": c.get("author_username") or c.get("author_name"),
                "written": pd.Timestamp(c["created_at"]),
                "posted": datetime.fromtimestamp(float(p["created_at"]), UTC),
                "newest": max(datetime.fromtimestamp(float(q["created_at"]), UTC) for q in posts),
            }
            for p in posts
            for c in p.get("comments") or []
        ]
        yield http, dataset_id, pd.DataFrame(rows)


def _figure(text: str) -> int:
    return int(re.search(r"\*\*(\d+)\*\* posts? match", text)[1])  # type: ignore[index]


@pytest.mark.parametrize(
    "question",
    ["how many posts have comments asking about the price",
     "How many posts got a comment asking what it costs?"],
)  # fmt: skip
def test_comments_asking_about_the_price(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str
) -> None:
    http, dataset_id, comments = oat
    asking = comments[comments["body"].str.contains("?", regex=False)]
    expected = asking[asking["body"].str.contains(PRICE)]["id"].nunique()
    assert expected > 0
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _figure(text) == expected, text
    assert "did not understand" not in text, text


_COMMENTS = re.compile(
    r"\*\*(\d+)\*\* comments? match, on (\d+) posts? \(.*? of the (\d+) comments"
)


def _comment_figures(text: str) -> tuple[int, int, int]:
    """(comments counted, posts holding them, comments collected) of a count of comments."""
    found = _COMMENTS.search(text)
    assert found, text
    return int(found[1]), int(found[2]), int(found[3])


@pytest.mark.parametrize(
    ("question", "subject"),
    [("How many comments ask how much it costs?", PRICE),
     ("How many comments asking how much it cost?", PRICE),
     ("How many comments are asking where to buy it?", WHERE_TO_BUY),
     ("What is the number of comments that ask where you can buy it?", WHERE_TO_BUY)],
)  # fmt: skip
def test_how_many_comments_counts_comments(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, subject: re.Pattern[str]
) -> None:
    http, dataset_id, comments = oat
    asking = comments[comments["body"].str.contains("?", regex=False)]
    matching = asking[asking["body"].str.contains(subject)]
    # More comments than posts: a count of posts would be a different number.
    assert len(matching) > matching["id"].nunique() > 0
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _comment_figures(text) == (len(matching), matching["id"].nunique(), len(comments))
    assert "count of the comments that ask a question" in text, text  # the read-as line
    assert "posts match" not in text and "did not understand" not in text, text
    # The rest of the posts' comments were never collected: the answer says so.
    total = int(comments.drop_duplicates("id")["num_comments"].sum())
    assert f"these posts count {total:,} comments in all" in text, text


def test_a_follow_up_counts_comments_again(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, comments = oat
    first = ask_over_http(http, "How many comments ask how much it costs?", None, dataset_id)
    text = ask_over_http(http, "And on TikTok?", first["chat_id"], dataset_id)["text"]
    tiktok = comments[comments["source"] == "tiktok"]
    asking = tiktok[tiktok["body"].str.contains("?", regex=False)]
    matching = asking[asking["body"].str.contains(PRICE)]
    assert _comment_figures(text) == (len(matching), matching["id"].nunique(), len(tiktok))
    assert "posts where source is tiktok" in text, text


def test_comments_by_source_are_counted_per_source(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, comments = oat
    question = "How many comments ask how much it costs, by source?"
    text = ask_over_http(http, question, None, dataset_id)["text"]
    asking = comments[comments["body"].str.contains("?", regex=False)]
    matching = asking[asking["body"].str.contains(PRICE)]
    assert "| source | comments | posts with one |" in text, text
    for source, group in matching.groupby("source"):
        assert f"| {source} | {len(group)} | {group['id'].nunique()} |" in text, text


def _saying(comments: pd.DataFrame, word: str) -> pd.Series:
    """The comments that say ``word`` (a word starting with it), as a keyword is read."""
    return comments["body"].str.contains(rf"\b{re.escape(word)}", regex=True)


@pytest.mark.parametrize(
    ("question", "word", "source"),
    [("How many comments mention the price?", "price", None),
     ("How many comments talk about foam?", "foam", None),
     ("How many comments contain the word texture?", "texture", None),
     ("How many comments are about coffee?", "coffee", None),
     ("What share of comments mention the taste?", "taste", None),
     ("How many comments on TikTok posts say thanks?", "thanks", "tiktok"),
     ("How many comments mention helpful on reddit?", "helpful", "reddit")],
)  # fmt: skip
def test_comments_that_say_a_word_are_counted_not_their_posts_comment_counts(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, word: str, source: str | None
) -> None:
    http, dataset_id, comments = oat
    scope = comments if source is None else comments[comments["source"] == source]
    matching = scope[_saying(scope, word)]
    assert len(matching) > 0
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _comment_figures(text) == (len(matching), matching["id"].nunique(), len(scope))
    assert f'count of the comments that say "{word}"' in text, text
    assert "sum of comments" not in text and "did not understand" not in text, text


def test_comments_that_do_not_say_a_word_are_the_others(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, comments = oat
    others = comments[~_saying(comments, "price")]
    text = ask_over_http(http, "How many comments don't mention the price?", None, dataset_id)
    assert _comment_figures(text["text"]) == (len(others), others["id"].nunique(), len(comments))
    assert 'comments that do not say "price"' in text["text"], text["text"]


def test_a_negation_written_short_is_still_a_negation(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, _ = oat

    def figure(question: str) -> tuple[int, int]:
        text = ask_over_http(http, question, None, dataset_id)["text"]
        found = re.search(r"\*\*(\d+)\*\* posts? match \(.*? of the (\d+) posts", text)
        assert found, text
        return int(found[1]), int(found[2])

    mention, total = figure("How many posts mention the price?")
    assert 0 < mention < total
    for question in ("How many posts don't mention the price?",
                     "How many posts never mention the price?"):  # fmt: skip
        assert figure(question) == (total - mention, total), question


def _labelled(http: httpx.Client, dataset_id: str, question: str) -> dict[str, int]:
    """The comments per sentiment label that the comments analysis gives."""
    text = ask_over_http(http, question, None, dataset_id)["text"]
    found = dict(re.findall(r"\*\*([\d,]+)\*\* (positive|neutral|negative) \(", text))
    assert len(found) == 3, text
    return {label: int(n.replace(",", "")) for n, label in found.items()}


@pytest.mark.parametrize(
    ("question", "label", "negate"),
    [("How many comments are negative?", "negative", False),
     ("How many negative comments are there?", "negative", False),
     ("What share of comments are positive?", "positive", False),
     ("How many comments are not negative?", "negative", True)],
)  # fmt: skip
def test_comments_counted_by_sentiment_agree_with_the_comments_analysis(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, label: str, negate: bool
) -> None:
    # A comment's sentiment is its own text's, scored as "What do commenters say?" scores it:
    # not its post's label, and not every comment.
    http, dataset_id, comments = oat
    labelled = _labelled(http, dataset_id, "What do commenters say?")
    assert sum(labelled.values()) == len(comments)
    expected = len(comments) - labelled[label] if negate else labelled[label]
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert _comment_figures(text)[0] == expected, text
    assert _comment_figures(text)[2] == len(comments), text
    assert f"are {'not ' if negate else ''}{label} (the sentiment of the comment's own" in text


_NONE = "I can't count the comments where "
_SUM = "sum of comments over posts where "


@pytest.mark.parametrize(
    ("question", "said"),
    [("How many comments are in English?", _NONE + "language is en"),
     ("How many comments have a call to action?", _NONE + "has a call to action"),
     ("How many comments were left on negative posts?", _SUM + "sentiment is negative"),
     ("How many comments are there on TikTok?", _SUM + "source is tiktok"),
     ("How many comments do posts about foam get?", _SUM + 'title or text mentions "foam"')],
)  # fmt: skip
def test_what_only_posts_carry_is_the_posts_or_gives_no_figure(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, said: str
) -> None:
    # Comments carry no language or call to action (their likes, replies and date are
    # asked of each comment: the tests below): asked of
    # the comments, a figure would count the posts, or every comment, and answer another
    # question; what follows "on" (or a verb of the posts) is the posts' comment count.
    http, dataset_id, _ = oat
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert said in text, text
    figure = re.search(r"The sum of comments is \*\*[\d,]+\*\*", text)
    assert (figure is not None) == said.startswith(_SUM), text
    assert said.startswith(_SUM) or not re.search(r"\*\*[\d,.]+%?\*\*", text), text


def test_posts_counted_by_their_comments_say_the_rest_was_not_collected(
    oat: tuple[httpx.Client, str, pd.DataFrame],
) -> None:
    http, dataset_id, comments = oat
    text = ask_over_http(http, "How many posts have comments mentioning the price?", None,
                         dataset_id)["text"]  # fmt: skip
    assert _figure(text) == comments[_saying(comments, "price")]["id"].nunique(), text
    total = int(comments.drop_duplicates("id")["num_comments"].sum())
    assert f"these posts count {total:,} comments in all" in text, text


def _newest_window(comments: pd.DataFrame, days: int) -> pd.Series:
    """A comment's own date in the ``days`` before the newest post (the anchor of every
    window, docs/assistant.md)."""
    end = comments["newest"].iloc[0]
    written = comments["written"].dt.tz_convert(UTC)
    return (written > end - timedelta(days=days)) & (written <= end)


@pytest.mark.parametrize(
    ("question", "test"),
    [("How many comments have more than 10 likes?", lambda c: c["likes"] > 10),
     ("How many comments got at least 5 likes?", lambda c: c["likes"] >= 5),
     ("How many comments were written in 2025?", lambda c: c["written"].dt.year == 2025),
     ("How many comments got at least one reply?", lambda c: c["replies"] >= 1),
     ("How many comments have no replies?", lambda c: c["replies"] == 0),
     ("Quanti commenti hanno ricevuto almeno una risposta?", lambda c: c["replies"] >= 1),
     ("¿Cuántos comentarios recibieron al menos una respuesta?", lambda c: c["replies"] >= 1),
     ("How many comments were written in the last 30 days?",
      lambda c: _newest_window(c, 30)),
     ("How many comments were posted in the last 90 days?", lambda c: _newest_window(c, 90))],
)  # fmt: skip
def test_what_a_comment_carries_is_asked_of_each_comment(
    oat: tuple[httpx.Client, str, pd.DataFrame],
    question: str,
    test: Callable[[pd.DataFrame], pd.Series],
) -> None:
    # A comment carries its own likes, replies and date (the spec's comments[]): asked of
    # the comments, each comment is counted by its own, never by its post's.
    http, dataset_id, comments = oat
    matching = comments[test(comments)]
    assert 0 < len(matching) < len(comments)
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert "did not understand" not in text, text
    assert _comment_figures(text) == (len(matching), matching["id"].nunique(), len(comments))


@pytest.mark.parametrize(
    ("question", "where"),
    [("How many different people commented?", None),
     ("How many distinct commenters are there?", None),
     ("How many unique commenters on TikTok posts?", "tiktok"),
     ("¿Cuántas personas distintas comentaron?", None),
     ("Quantas pessoas diferentes comentaram?", None),
     ("Wie viele verschiedene Personen haben kommentiert?", None),
     ("Combien de commentateurs différents ?", None),
     ("Quante persone diverse hanno commentato?", None)],
)  # fmt: skip
def test_distinct_commenters_are_the_comments_authors(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str, where: str | None
) -> None:
    http, dataset_id, comments = oat
    scoped = comments if where is None else comments[comments["source"] == where]
    want = scoped["author"].str.lower().nunique()
    posts = comments.drop_duplicates("id")
    assert want != len(posts if where is None else posts[posts["source"] == where])
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert "did not understand" not in text, text
    assert f"**{want:,}** distinct people (by username) wrote the {len(scoped):,} comments" in text


@pytest.mark.parametrize(
    "question",
    ["Which comment got the most likes?", "What is the most liked comment?"],
)
def test_the_most_liked_comment_is_quoted_with_its_likes(
    oat: tuple[httpx.Client, str, pd.DataFrame], question: str
) -> None:
    http, dataset_id, comments = oat
    top = comments["likes"].max()
    assert top > comments["likes"].median()
    text = ask_over_http(http, question, None, dataset_id)["text"]
    assert f"The max of comment likes is **{top:,}**" in text, text
    held = comments[comments["likes"] == top]
    assert f'- "{" ".join(held["text"].iloc[0].split())[:200]}" by {held["author"].iloc[0]}' in text
