"""Fresh held-out questions: written as a reviewer who never saw the other suites would ask
them, over four datasets of different sizes, sources and content (issue: assistant honesty
on fresh questions). Never tuned on: a question is only edited to fix an objectively wrong
expectation (said in the commit message).

Datasets (``test_assistant_fresh.py`` builds them): ``oat`` "oat milk", 300 posts over the
five sources; ``shoes`` "running shoes", 120 posts from reddit, instagram and tiktok only
(brands Nike, Adidas, Hoka, On...); ``ev`` "electric vehicle", 900 posts; ``untyped``
"skincare", 200 posts of which every fifth has no ``content_type`` (unknown, not an ad).

Conventions, as in ``handwritten_questions.py``: periods count back from the newest post
of the dataset ("last week" is 7 days, "last quarter" 90), a month or quarter without a
year is the latest one up to the newest post, "this month" is the newest post's month;
"excluding ads" / "organic" / a chat that leaves the ads out keep every post that is not
a known ad (``not_content_type``) and a count's "% of the N posts" is of those posts
(``of``); a metric threshold is ``"<metric><op>": number``. The truth is computed from the
reading (``handwritten_truth.py``), never written here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from handwritten_spec import (
    Question,
    Reading,
    absent,
    ask,
    authors,
    by,
    count,
    listing,
    rank,
    refuse,
    share,
    stat,
    theme,
    unknown,
)

A, T, S = "analyst", "teacher", "student"
NEG, POS, NEU = ["negative"], ["positive"], ["neutral"]
NO_AD: dict[str, Any] = {"not_content_type": ["ad"]}
ADS_OUT = "leave the ads out"


def of(reading: Reading, **denominator: Any) -> Reading:
    """``reading`` whose stated denominator ("% of the N posts") is checked too."""
    return replace(reading, of=denominator)


def over(**where: Any) -> dict[str, Any]:
    """Filters with metric thresholds: ``over(**{"views>": 1000})``."""
    return where


OAT: tuple[Question, ...] = (
    # thresholds
    ask("how many posts got more than 1k views?", count(**{"views>": 1000}), role=S),
    ask("Posts with at least 10,000 views: how many?", count(**{"views>=": 10000}), role=A),
    ask(
        "how many tiktoks have over 500 likes",
        count(source=["tiktok"], **{"likes>": 500}),
        role=S,
        style="terse",
    ),
    ask("How many posts have fewer than 10 comments?", count(**{"comments<": 10}), role=A),
    ask("How many posts have no comments at all?", count(**{"comments=": 0}), role=T),
    ask("How many posts have zero shares?", count(**{"shares=": 0}), role=A),
    ask(
        "how many negative posts with 1000+ views",
        count(sentiment=NEG, **{"views>=": 1000}),
        role=A,
        style="terse",
    ),
    ask(
        "Average likes of posts with more than 5k views?",
        stat("mean", "likes", **{"views>": 5000}),
        role=A,
    ),
    # relative dates
    ask("how many posts since March?", count(since_month="march"), role=S),
    ask("How many posts were published in Q3?", count(quarter=3), role=A),
    ask("How many reddit posts this month?", count(source=["reddit"], this="month"), role=S),
    ask("How many posts before April?", count(before_month="april"), role=T),
    ask("how many posts in the last quarter", count(days=90), role=A, style="terse"),
    ask(
        "What share of posts since June are negative?",
        share({"sentiment": NEG}, since_month="june"),
        role=A,
    ),
    ask(
        "How many posts in the second quarter mention the price?",
        count(quarter=2, keyword=["price"]),
        role=A,
    ),
    # negations and exclusions
    ask("how many posts not on reddit?", count(not_source=["reddit"]), role=S),
    ask("How many posts excluding ads?", of(count(**NO_AD), **NO_AD), role=A),
    ask(
        "How many posts mention taste but not price?",
        count(keyword=["taste"], not_keyword=["price"]),
        role=A,
    ),
    ask(
        "How many posts are neither from tiktok nor from instagram?",
        count(not_source=["tiktok", "instagram"]),
        role=T,
    ),
    ask(
        "Among posts not written in English, how many are negative?",
        count(not_language=["en"], sentiment=NEG),
        role=A,
    ),
    # shares with their denominator
    ask(
        "percentage of negative posts among reddit posts",
        share({"sentiment": NEG}, source=["reddit"]),
        role=S,
    ),
    ask(
        "What percent of the ads are positive?",
        share({"sentiment": POS}, content_type=["ad"]),
        role=A,
    ),
    # ads-out chats: the figure and its denominator
    ask(
        "how many negative posts?",
        of(count(sentiment=NEG, **NO_AD), **NO_AD),
        role=A,
        after=ADS_OUT,
    ),
    ask(
        "so how many talk about Oatly?",
        of(count(brand=["Oatly"], **NO_AD), **NO_AD),
        role=A,
        after=ADS_OUT,
    ),
    ask(
        "what share of posts are negative?",
        share({"sentiment": NEG}, **NO_AD),
        role=A,
        after=ADS_OUT,
    ),
    ask("what are the main complaints then?", theme("complaints", **NO_AD), role=A, after=ADS_OUT),
    # authors, groups, top-N
    ask("top 3 authors by views", by("author", "sum", "views", top=3), role=A),
    ask("Which 2 sources have the most posts?", by("source", top=2), role=S),
    ask("How many different people posted on instagram?", authors(source=["instagram"]), role=T),
    ask("how many posts per language", by("language"), role=S, style="terse"),
    ask(
        "What is the engagement rate on linkedin?",
        stat("mean", "engagement_rate", source=["linkedin"]),
        role=A,
    ),
    ask(
        "total number of comments on youtube",
        stat("sum", "comments", source=["youtube"]),
        role=A,
        style="terse",
    ),
    ask("which 5 posts have the most shares?", rank(5, "shares"), role=A),
    ask("Show me the 3 least viewed tiktoks", rank(3, "views", "asc", source=["tiktok"]), role=S),
    # languages, emotions, typos
    ask("How many posts are in French?", count(language=["fr"]), role=T),
    ask("how many psots are in portugese?", count(language=["pt"]), role=S, style="typos"),
    ask("How many joyful posts on tiktok?", count(emotion=["joy"], source=["tiktok"]), role=T),
    ask(
        "hw many negatve posts on instgram",
        count(sentiment=NEG, source=["instagram"]),
        role=S,
        style="typos",
    ),
    # follow-ups
    ask(
        "and on youtube?",
        count(brand=["Alpro"], source=["youtube"]),
        role=A,
        after="How many posts mention Alpro?",
    ),
    ask(
        "what about since March?",
        count(sentiment=NEG, since_month="march"),
        role=A,
        after="How many negative posts are there?",
    ),
    # not understood, refused, not collected
    ask("how many posts by @oatqueen", unknown("@oatqueen"), role=S),
    ask("How many viral posts are there?", unknown("viral"), role=S),
    ask("How many posts in Q5?", unknown("q5"), role=S),
    ask("how many posts have 500 likes", unknown("500"), role=S),
    ask("predict next month's volume", refuse("forecast"), role=S),
    ask("Is there a correlation between views and likes?", refuse("correlate"), role=A),
    ask("asdfgh qwerty", unknown("asdfgh qwerty"), role=S),
    ask("How many posts were written by women?", absent("gender"), role=T),
)

SHOES: tuple[Question, ...] = (
    ask("how many posts mention nike?", count(brand=["Nike"]), role=S),
    ask(
        "wat is the avg number of likes on tiktok",
        stat("mean", "likes", source=["tiktok"]),
        role=S,
        style="typos",
    ),
    ask("How many posts mention On?", count(brand=["On"]), role=A),
    ask("How many posts on reddit mention Hoka?", count(source=["reddit"], brand=["Hoka"]), role=A),
    ask("How many posts are NOT from instagram?", count(not_source=["instagram"]), role=S),
    ask("How many posts from linkedin?", count(source=["linkedin"]), role=S),
    ask("how many posts with over 500 likes", count(**{"likes>": 500}), role=S),
    ask("how many posts have fewer than 100 comments", count(**{"comments<": 100}), role=S),
    ask("How many posts this year?", count(this="year"), role=T),
    ask("how many posts this month?", count(this="month"), role=S),
    ask("posts per month in 2026", by("month", year=2026), role=A, style="terse"),
    ask("what is the median views of ads", stat("median", "views", content_type=["ad"]), role=A),
    ask("Which author posted the most?", by("author", top=1), role=S),
    ask("How many posts are in portuguese or spanish?", count(language=["pt", "es"]), role=T),
    ask(
        "How many posts mention comfort but not price?",
        count(keyword=["comfort"], not_keyword=["price"]),
        role=A,
    ),
    ask("how many posts in the last 2 weeks", count(days=14), role=S),
    ask("Which 3 countries have the most posts?", by("country", top=3), role=A),
    ask("top 5 posts by likes excluding ads", rank(5, "likes", **NO_AD), role=A),
    ask("How many positive posts since May?", count(sentiment=POS, since_month="may"), role=A),
    ask(
        "How many instagram posts have at least 2k likes?",
        count(source=["instagram"], **{"likes>=": 2000}),
        role=A,
    ),
    ask("How many happy posts?", unknown("happy"), role=S),
    ask("how many posts are sarcastic?", unknown("sarcastic"), role=S),
    ask("Which shoes will sell best next year?", refuse("forecast"), role=S),
    ask("What do reddit users complain about?", theme("complaints", source=["reddit"]), role=S),
    ask(
        "Show me posts about sizing from tiktok",
        listing(keyword=["sizing"], source=["tiktok"]),
        role=S,
    ),
    ask("How old are the runners posting this?", absent("age"), role=T),
    ask("How many reddit posts are negative?", count(source=["reddit"], sentiment=NEG), role=S),
    ask(
        "of those, how many mention price?",
        count(source=["reddit"], sentiment=NEG, keyword=["price"]),
        role=S,
        after="How many reddit posts are negative?",
    ),
    ask("How many posts from Canada?", count(country=["CA"]), role=S),
    ask("Median likes per source", by("source", "median", "likes"), role=A, style="terse"),
)

EV: tuple[Question, ...] = (
    ask(
        "Which emotions show up in posts with no comments?",
        theme("emotions", **{"comments=": 0}),
        role=S,
    ),
    ask(
        "What do people complain about in posts with more than 10k views?",
        theme("complaints", **{"views>": 10000}),
        role=A,
    ),
    ask("What are the main topics in Q3?", theme("topics", quarter=3), role=S),
    ask(
        "How many posts mention Tesla in Q2 2026?",
        count(brand=["Tesla"], since="2026-04-01", until="2026-06-30"),
        role=A,
    ),
    ask(
        "how many negative posts on reddit since june",
        count(sentiment=NEG, source=["reddit"], since_month="june"),
        role=A,
        style="terse",
    ),
    ask(
        "How many posts between 2026-03-01 and 2026-05-31?",
        count(since="2026-03-01", until="2026-05-31"),
        role=A,
    ),
    ask("How many posts before April?", count(before_month="april"), role=T),
    ask(
        "how many posts with at least 10k views on youtube",
        count(source=["youtube"], **{"views>=": 10000}),
        role=A,
        style="terse",
    ),
    ask(
        "what percentage of all these posts are sponsored ads?",
        share({"content_type": ["ad"]}),
        role=S,
    ),
    ask("how many posts were in english last quarter", count(language=["en"], days=90), role=A),
    ask(
        "What is the engagement rate on linkedin?",
        stat("mean", "engagement_rate", source=["linkedin"]),
        role=A,
    ),
    ask(
        "how many posts about charging, not on reddit, excluding ads, in the last 90 days",
        of(count(keyword=["charging"], not_source=["reddit"], days=90, **NO_AD), **NO_AD),
        role=A,
    ),
    ask("How many posts mention Tesla?", count(brand=["Tesla"]), role=A),
    ask(
        "and on youtube?",
        count(brand=["Tesla"], source=["youtube"]),
        role=A,
        after="How many posts mention Tesla?",
    ),
    ask(
        "what about the negative ones?",
        count(brand=["Tesla"], source=["youtube"], sentiment=NEG),
        role=A,
        after=("How many posts mention Tesla?", "and on youtube?"),
    ),
    ask(
        "ok how many posts mention price now?",
        of(count(keyword=["price"], **NO_AD), **NO_AD),
        role=A,
        after=ADS_OUT,
    ),
    ask("top 3 posts by views", rank(3, "views", **NO_AD), role=A, after="exclude ads"),
    ask(
        "average views per source excluding tiktok",
        by("source", "mean", "views", not_source=["tiktok"]),
        role=A,
    ),
    ask(
        "which source has the highest average engagement rate",
        by("source", "mean", "engagement_rate", top=1),
        role=A,
    ),
    ask("how many posts has no comments?", count(**{"comments=": 0}), role=S, style="typos"),
    ask("How many posts in German from Germany?", count(language=["de"], country=["DE"]), role=T),
    ask(
        "How many posts mention charging but not range?",
        count(keyword=["charging"], not_keyword=["range"]),
        role=A,
    ),
    ask("How many posts in the third quarter?", count(quarter=3), role=A),
    ask("How many posts mention Rivian this year?", count(brand=["Rivian"], this="year"), role=A),
    ask("How many posts by Sofia Kim?", count(author=["Sofia Kim"]), role=S),
    ask(
        "How many youtube posts have more than 100k views?",
        count(source=["youtube"], **{"views>": 100000}),
        role=A,
    ),
    ask(
        "What is the median number of likes for posts over 50k views?",
        stat("median", "likes", **{"views>": 50000}),
        role=A,
    ),
    ask("How many posts mention Ford or Kia?", count(brand=["Ford", "Kia"]), role=S),
    ask("How many posts are from Canada or the UK?", count(country=["CA", "GB"]), role=S),
    ask("How many angry posts since April?", count(emotion=["anger"], since_month="april"), role=A),
    ask(
        "Share of linkedin posts that are positive",
        share({"sentiment": POS}, source=["linkedin"]),
        role=A,
        style="terse",
    ),
    ask("posts per week over the last 30 days pls", by("week", days=30), role=A, style="terse"),
    ask("Top 3 brands by number of posts", by("brand", top=3), role=A),
    ask("How many spanish posts on youtube?", count(language=["es"], source=["youtube"]), role=T),
    ask("How many posts are from influencers?", unknown("influencers"), role=S),
    ask("how many posts from verified accounts?", unknown("verified"), role=A),
    ask("how many posts had zero likes", count(**{"likes=": 0}), role=S),
    ask("Forecast the number of posts next week", refuse("forecast"), role=A),
    ask("what will sentiment be next month", refuse("forecast"), role=S),
    ask("Is the negative sentiment caused by the price?", refuse("correlate"), role=A),
    ask("What is the correlation between likes and comments?", refuse("correlate"), role=A),
    ask("Run a regression of views on likes", refuse("correlate"), role=A),
    ask(
        "What do people say about charging on youtube?",
        theme("topics", source=["youtube"], keyword=["charging"]),
        role=S,
    ),
    ask("what do people complain about, excluding ads?", theme("complaints", **NO_AD), role=A),
    ask(
        "Give me 3 examples of negative posts about insurance",
        listing(sentiment=NEG, keyword=["insurance"]),
        role=S,
    ),
    ask("What's the income of these posters?", absent("income"), role=T),
    ask("Delete all the reddit posts please", refuse("delete"), role=S),
    ask(
        "How many posts in March mention software?",
        count(in_month="march", keyword=["software"]),
        role=A,
    ),
)

UNTYPED: tuple[Question, ...] = (
    ask("How many of the skincare posts are ads?", count(content_type=["ad"]), role=A),
    ask("how many organic posts in total", count(**NO_AD), role=A),
    ask("How many posts are not ads?", count(**NO_AD), role=A),
    ask(
        "How many negative posts excluding ads?", of(count(sentiment=NEG, **NO_AD), **NO_AD), role=A
    ),
    ask(
        "how many mention the price then?",
        of(count(keyword=["price"], **NO_AD), **NO_AD),
        role=A,
        after=ADS_OUT,
    ),
    ask("What share of organic posts are positive?", share({"sentiment": POS}, **NO_AD), role=A),
    ask("what do people love about it?", theme("praise", **NO_AD), role=A, after=ADS_OUT),
    ask("Which topics come up?", theme("topics", **NO_AD), role=S, after=ADS_OUT),
    ask("How many posts are ads vs organic?", by("content_type"), role=A),
    ask("How many tiktok posts are not ads?", count(source=["tiktok"], **NO_AD), role=S),
    ask("How many posts mention CeraVe?", count(brand=["CeraVe"]), role=S),
    ask("How many posts mention The Ordinary?", count(brand=["The Ordinary"]), role=A),
    ask(
        "How many posts have more than 2k likes, excluding ads?",
        of(count(**{"likes>": 2000}, **NO_AD), **NO_AD),
        role=A,
    ),
    ask("How many posts since February?", count(since_month="february"), role=S),
    ask("how many posts in the first quarter", count(quarter=1), role=S),
    ask("Average views of ads vs organic", by("content_type", "mean", "views"), role=A),
    ask("How many instagram posts this week?", count(source=["instagram"], this="week"), role=S),
    ask("How many skincare posts are humorous in tone?", count(tone=["humorous"]), role=T),
    ask("Which 3 posts got the most comments?", rank(3, "comments"), role=A),
    ask("How many negative posts come from the US?", count(country=["US"], sentiment=NEG), role=A),
    ask("how many posts per source excluding ads", by("source", **NO_AD), role=A),
    ask("How many skincare posts are trending?", unknown("trending"), role=S),
    ask("Will sales go up after this campaign?", refuse("forecast"), role=A),
    ask("does the price cause negative sentiment? check causation", refuse("correlate"), role=A),
    ask("How many posts from people over 40?", absent("age"), role=T),
)

# Round 2: written after the fixes of round 1, run once before any further change (its
# first pass rate is in docs/assistant.md).
ROUND2: dict[str, tuple[Question, ...]] = {
    "oat": (
        ask(
            "How many youtube videos got under 1,000 views?",
            count(source=["youtube"], **{"views<": 1000}),
            role=S,
        ),
        ask(
            "number of posts with more than 50 comments on reddit",
            count(source=["reddit"], **{"comments>": 50}),
            role=A,
            style="terse",
        ),
        ask(
            "How many posts since September mention Oatly?",
            count(since_month="september", brand=["Oatly"]),
            role=A,
        ),
        ask("How many posts in the fourth quarter?", count(quarter=4), role=S),
        ask("How many posts not in Spanish?", count(not_language=["es"]), role=S),
        ask(
            "What share of tiktok posts are joyful?",
            share({"emotion": ["joy"]}, source=["tiktok"]),
            role=T,
        ),
        ask(
            "which three authors have the most likes in total?",
            by("author", "sum", "likes", top=3),
            role=A,
        ),
        ask("how many posts by @barista_bob?", unknown("@barista_bob"), role=S),
        ask("Can you predict how many posts we'll get next quarter?", refuse("forecast"), role=A),
        ask("How many posts are memes?", unknown("memes"), role=S),
    ),
    "shoes": (
        ask(
            "How many tiktok posts have at least 1000 likes?",
            count(source=["tiktok"], **{"likes>=": 1000}),
            role=A,
        ),
        ask(
            "How many posts mention Adidas but not Nike?",
            count(brand=["Adidas"], not_brand=["Nike"]),
            role=A,
        ),
        ask(
            "how many posts this year on reddit",
            count(this="year", source=["reddit"]),
            role=S,
            style="terse",
        ),
        ask(
            "What is the average engagement rate of instagram posts?",
            stat("mean", "engagement_rate", source=["instagram"]),
            role=A,
        ),
        ask(
            "How many posts from Australia, excluding ads?",
            of(count(country=["AU"], **NO_AD), **NO_AD),
            role=A,
        ),
        ask("Does sizing correlate with negative sentiment?", refuse("correlate"), role=A),
        ask("How many posts in French or German?", count(language=["fr", "de"]), role=S),
        ask("Who are the top 2 posters by number of posts?", by("author", top=2), role=S),
    ),
    "ev": (
        ask("How many posts have over 1m views?", count(**{"views>": 1000000}), role=A),
        ask(
            "how many linkedin posts since march",
            count(source=["linkedin"], since_month="march"),
            role=S,
            style="terse",
        ),
        ask(
            "How many posts before June mention charging?",
            count(before_month="june", keyword=["charging"]),
            role=A,
        ),
        ask(
            "What share of youtube posts have more than 10k views?",
            share({"views>": 10000}, source=["youtube"]),
            role=A,
        ),
        ask("How many EV posts are neither positive nor negative?", count(sentiment=NEU), role=T),
        ask(
            "how many posts from the US excluding ads",
            of(count(country=["US"], **NO_AD), **NO_AD),
            role=A,
            style="terse",
        ),
        ask("What will the Tesla sentiment look like next year?", refuse("forecast"), role=A),
        ask("How many posts by fleet managers?", unknown("fleet managers"), role=S),
        ask(
            "how many negative posts on youtube",
            of(count(source=["youtube"], sentiment=NEG, **NO_AD), **NO_AD),
            role=A,
            after="please exclude ads from now on",
        ),
    ),
    "untyped": (
        ask(
            "How many non-ad posts are on instagram?", count(source=["instagram"], **NO_AD), role=S
        ),
        ask(
            "Share of organic posts that are negative",
            share({"sentiment": NEG}, **NO_AD),
            role=A,
            style="terse",
        ),
        ask("how many posts have no shares", count(**{"shares=": 0}), role=S),
        ask(
            "How many posts since April are ads?",
            count(since_month="april", content_type=["ad"]),
            role=A,
        ),
    ),
}

QUESTIONS: dict[str, tuple[Question, ...]] = {
    "oat": OAT,
    "shoes": SHOES,
    "ev": EV,
    "untyped": UNTYPED,
}

PRICE_ASKED = ["price", "cost", "pay", "paid", "how much", "expensive", "cheap"]
"""How a commenter asks about a price, as the round-three reviewer wrote it."""

ROUND3: dict[str, tuple[Question, ...]] = {
    # Written after the kdates date and comment fixes, before any fix for these questions
    # (dates with and without years in several forms and languages, comment questions).
    "oat": (
        ask("how many posts did we get since 5 march?", count(since_day="03-05"), role=S),
        ask(
            "Count the posts between the 1st and the 15th of June",
            count(since_day="06-01", until_day="06-15"),
            role=T,
        ),
        ask(
            "posts from 2026-04-01 to 2026-04-30 on tiktok, how many?",
            count(since="2026-04-01", until="2026-04-30", source=["tiktok"]),
            role=A,
            style="terse",
        ),
        ask("How many posts were there in avril 2026?", count(month="2026-04"), role=S),
        ask("Wie viele Beiträge gab es im Mai 2026?", count(month="2026-05"), role=A, lang="de"),
        ask(
            "¿Cuántas publicaciones hay desde marzo?", count(since_month="march"), role=S, lang="es"
        ),
        ask(
            "How many negative posts after 1 August 2026?",
            count(sentiment=NEG, since="2026-08-02"),  # fixed: "after" leaves 1 August out
            role=A,
        ),
        ask("How many posts until 10 Feb?", count(until_day="02-10"), role=S, style="terse"),
        ask(
            "how many posts with more than 2k likes in the last 60 days",
            count(days=60, **{"likes>": 2000}),
            role=A,
            style="terse",
        ),
        ask(
            "What percentage of youtube posts are positive since June?",
            share({"sentiment": POS}, source=["youtube"], since_month="june"),
            role=A,
        ),
        ask(
            "How many posts have comments asking about the price?",
            count(asking=PRICE_ASKED),
            role=A,
        ),
        ask("how many posts have a comment asking a question?", count(asking=[]), role=T),
        ask(
            "How many ads were posted this month?",
            count(content_type=["ad"], this="month"),
            role=A,
        ),
        ask(
            "how mnay posts on instagram in the last two weeks",
            count(source=["instagram"], days=14),
            role=S,
            style="typos",
        ),
        ask("Top 3 posts by likes since 1 October", rank(3, "likes", since_day="10-01"), role=A),
        ask(
            "What's the median views of reddit posts in Q2?",
            stat("median", "views", source=["reddit"], quarter=2),
            role=A,
        ),
        ask("Will oat milk posts grow next month?", refuse("forecast"), role=T),
        ask("How many posts are sarcastic?", unknown("sarcastic"), role=S),
        ask(
            "How many posts in the last 3 months excluding ads?",
            of(count(days=90, **NO_AD), **NO_AD),
            role=A,
        ),
        ask("how many posts since 31 April?", unknown("31 april"), role=S),
    ),
    "shoes": (
        ask(
            "How many instagram posts since 15 July?",
            count(source=["instagram"], since_day="07-15"),
            role=A,
        ),
        ask(
            "Posts about Hoka in the last 90 days, how many?",
            count(brand=["Hoka"], days=90),
            role=A,
            style="terse",
        ),
        ask(
            "How many posts not from tiktok since September?",
            count(not_source=["tiktok"], since_month="september"),
            role=S,
        ),
        ask("Which 3 posts have the most views this year?", rank(3, "views", this="year"), role=T),
        ask(
            "How many posts between 2026-06-01 and 2026-08-31 are negative?",
            count(sentiment=NEG, since="2026-06-01", until="2026-08-31"),
            role=A,
        ),
        ask(
            "How many posts in the third quarter of 2026?",
            count(since="2026-07-01", until="2026-09-30"),
            role=S,
        ),
        ask(
            "Number of posts in March 2026 with more than 100 likes",
            count(month="2026-03", **{"likes>": 100}),
            role=A,
            style="terse",
        ),
        ask(
            "What is the average number of likes on tiktok posts since 1 May 2026?",
            stat("mean", "likes", source=["tiktok"], since="2026-05-01"),
            role=A,
        ),
    ),
    "ev": (
        ask(
            "How many EV posts in the past 6 months mention charging?",
            count(days=180, keyword=["charging"]),
            role=A,
        ),
        ask("Combien de publications depuis juin ?", count(since_month="june"), role=S, lang="fr"),
        ask("Quantas publicações em maio de 2026?", count(month="2026-05"), role=S, lang="pt"),
        ask(
            "how many posts mention range but not battery since 1 March",
            count(keyword=["range"], not_keyword=["battery"], since_day="03-01"),
            role=A,
            style="terse",
        ),
        ask("How many posts in 2025?", count(year=2025), role=T),
        ask(
            "how many posts before 2026-03-01 are from linkedin",
            count(until="2026-02-28", source=["linkedin"]),
            role=A,
        ),
        ask(
            "Share of negative posts among reddit posts in the last 30 days",
            share({"sentiment": NEG}, source=["reddit"], days=30),
            role=A,
        ),
        ask("Show me posts since the 3rd of November", listing(since_day="11-03"), role=S),
        ask(
            "How many posts got comments asking where to buy it?",
            count(asking=["buy"]),
            role=T,
        ),
        ask(
            "What's the correlation between views and likes since June?",
            refuse("correlate"),
            role=A,
        ),
    ),
    "untyped": (
        # Expectation fixed after the first run: "organic posts" is a filter whose count is
        # of all posts (round one: "how many organic posts in total"); ``of`` is for
        # "excluding ads" / an ads-out chat.
        ask("How many organic posts since 1 September?", count(since_day="09-01", **NO_AD), role=A),
        ask("How many ads in the last month?", count(content_type=["ad"], days=30), role=S),
        ask(
            "how many posts from 5 to 20 October",
            count(since_day="10-05", until_day="10-20"),
            role=S,
            style="terse",
        ),
        ask(
            "How many posts this week mention sunscreen?",
            count(this="week", keyword=["sunscreen"]),
            role=A,
        ),
    ),
}
