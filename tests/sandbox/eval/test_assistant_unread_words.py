"""Ask never gives a figure for a wider scope as the answer (issue 35, the invariant).

A word of a question the reader cannot map is named. On the figure path no figure is
given for the scope without it (what was read is stated, with the offer to ask again
without the word); an analysis of the scope without it comes only under a "without
'<word>'" label. The property test splices unknown words (letters no post and no
vocabulary has, plain or as a hashtag) into the condition slot of figure and analysis
questions over every path (counts, statistics, shares, groupings, rankings, listings,
analyses) and checks, on each reply: the word is named, and no figure is stated before
the label. One case runs the same over real HTTP.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import httpx
from eval_support import ask_over_http, collect, read_all
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rdskit.sandbox import SandboxHandle
from rdskit.sandbox.assistant import Reply, Scope, answer
from rdskit.sandbox.assistant.catalogue import Table
from rdskit.sandbox.assistant.frontend import to_english
from rdskit.sandbox.assistant.lexicon import FUNCTION_WORDS, INSTRUCTION_WORDS, LANGUAGES
from rdskit.sandbox.assistant.reader import _repaired

OAT = Scope("ds_oat", "Oat milk", ("oat milk",))
_SOURCES = ("reddit", "tiktok", "instagram")
_MOODS = ("positive", "negative", "neutral")
_TEXTS = (
    "The foam collapses and the price is terrible",
    "Great foam and a fair price, love it #barista",
    "Price went up again, too expensive now @oatly",
    "Silky foam every morning, Alpro cannot compete",
    "Is the price worth it? Honest question",
)


def _post(number: int) -> dict[str, Any]:
    mood = _MOODS[number % 3]
    scores = {"positive": "0.1", "neutral": "0.1", "negative": "0.1"} | {mood: "0.8"}
    likes = 7 * number % 50
    return {
        "source": _SOURCES[number % 3],
        "id": f"p{number}",
        "text": _TEXTS[number % len(_TEXTS)],
        "content_type": "ad" if number % 7 == 0 else "organic",
        "author": {"title": f"Author {number % 4}"},
        "num_views": 100 * number,
        "num_likes": likes,
        "num_comments": number % 5,
        "num_shares": number % 3,
        "engagement_rate": f"{likes / (100 * number):.4f}",
        "sentiment": scores,
        "created_at": int(datetime(2026, 1 + number % 6, 1 + number % 27, tzinfo=UTC).timestamp()),
        "datasets": [{"id": OAT.id, "name": OAT.name}],
    }


POSTS = [_post(number) for number in range(1, 41)]

QUESTIONS = (
    "How many {w} posts are there?",
    "How many {w} posts on TikTok?",
    "How many negative posts are {w}?",
    "What is the average number of likes of {w} posts?",
    "median views of {w} posts on reddit",
    "what share of {w} posts are negative",
    "Which source has the most {w} posts?",
    "How does sentiment split among {w} posts?",
    "Top 3 posts by likes among {w} posts",
    "How many distinct authors wrote {w} posts?",
    "Show me {w} posts",
    "What do people complain about in {w} posts?",
    "How many posts from {w} authors?",
    "Count posts per month for {w} posts",
)
# Consonants only: no English or dataset word is one edit away, so no repair applies.
_UNREAD = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=6, max_size=10)
_FIGURE = re.compile(r"\*\*-?[\d,.]+%?\*\*|^\|")


def _dominant(scores: dict[str, str] | None) -> str | None:
    """The wire filter's sentiment label: the largest share, a tie going to neutral."""
    if not scores:
        return None
    values = {label: float(value) for label, value in scores.items()}
    return max(values, key=lambda label: (values[label], label == "neutral"))


def unlabelled(reply: Reply, word: str) -> list[str]:
    """What breaks the invariant in ``reply`` to a question with ``word`` spliced in."""
    text = reply.text
    if word.lstrip("#").lower() not in text.lower():
        return [f"{word!r} dropped in silence"]
    # Named alone or inside a run of words not understood ("'Anteil bemot'").
    quoted = rf"'[^'\n]*\b{re.escape(word.lstrip('#').lower())}\b[^'\n]*'"
    named = re.search(rf"did not understand [^\n]*{quoted}", text.lower())
    if named is None:  # read: then the read-as line says how
        read_as = text.split("\n", 1)[0]
        return [] if word.lstrip("#").lower() in read_as.lower() else ["read, not said how"]
    label = f"without {quoted}"
    lines = text.splitlines()
    figures = [i for i, line in enumerate(lines) if _FIGURE.search(line)]
    labelled = [i for i, line in enumerate(lines) if re.search(label, line.lower())]
    if figures and (not labelled or figures[0] < labelled[0]):
        return [f"a figure before the 'without' label: {lines[figures[0]]!r}"]
    return []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(QUESTIONS), _UNREAD, st.booleans())
def test_no_unlabelled_figure_comes_back_for_an_unread_condition(
    question: str, word: str, hashtag: bool
) -> None:
    said = f"#{word}" if hashtag else word
    reply = answer(question.format(w=said), POSTS, [OAT])
    assert unlabelled(reply, word) == [], reply.text


# A grammar of what the figure reader reads, in its six languages: frames (a measure: a
# count, a mean, a share, a grouping, a median, a ranking) around a filter (a source, a
# threshold, a month, a sentiment). Every question it makes is read whole (the first test
# below), so a word spliced into one is the only word the reader cannot take.
GRAMMAR: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "en": (
        ("How many posts {f}?", "What is the average number of likes of posts {f}?",
         "What share of posts {f} are negative?", "Which source has the most posts {f}?",
         "Median views of posts {f}", "Top 3 posts by likes among posts {f}"),
        ("on TikTok", "with more than 10 likes", "from March 2026", "that are positive"),
    ),
    "fr": (
        ("Combien de publications {f} ?", "Quelle est la moyenne des likes des publications {f} ?",
         "Quelle part des publications {f} est négative ?",
         "Quelle source a le plus de publications {f} ?",
         "Quelle est la médiane des vues des publications {f} ?"),
        ("sur TikTok", "avec plus de 10 likes", "en mars 2026", "positives"),
    ),
    "de": (
        ("Wie viele Beiträge {f}?", "Was ist der Durchschnitt der Likes der Beiträge {f}?",
         "Welcher Anteil der Beiträge {f} ist negativ?",
         "Welche Quelle hat die meisten Beiträge {f}?",
         "Was ist der Median der Aufrufe der Beiträge {f}?"),
        ("auf TikTok", "mit mehr als 10 Likes", "im März 2026", "die positiv sind"),
    ),
    "es": (
        ("¿Cuántas publicaciones {f}?", "¿Cuál es la media de likes de las publicaciones {f}?",
         "¿Qué porcentaje de las publicaciones {f} son negativas?",
         "¿Qué fuente tiene más publicaciones {f}?",
         "¿Cuál es la mediana de visualizaciones de las publicaciones {f}?"),
        ("en TikTok", "con más de 10 likes", "en marzo de 2026", "positivas"),
    ),
    "pt": (
        ("Quantas publicações {f}?", "Qual é a média de likes das publicações {f}?",
         "Qual é a percentagem das publicações {f} que são negativas?",
         "Qual fonte tem mais publicações {f}?",
         "Qual é a mediana de visualizações das publicações {f}?"),
        ("no TikTok", "com mais de 10 likes", "em março de 2026", "positivas"),
    ),
    "it": (
        ("Quanti post {f}?", "Qual è la media dei like dei post {f}?",
         "Che percentuale dei post {f} è negativa?", "Quale fonte ha più post {f}?",
         "Qual è la mediana delle visualizzazioni dei post {f}?"),
        ("su TikTok", "con più di 10 like", "a marzo 2026", "positivi"),
    ),
}  # fmt: skip
GRAMMAR_QUESTIONS = [
    (language, frame.format(f=condition))
    for language, (frames, conditions) in GRAMMAR.items()
    for frame in frames
    for condition in conditions
]
_TABLE = Table(POSTS)
# Real-looking words: two to four consonant-vowel syllables, then one consonant or none.
_SYLLABLE = st.tuples(st.sampled_from("bdfgklmnprstvz"), st.sampled_from("aeiou")).map("".join)
_LOOKALIKE = st.builds(
    lambda syllables, end: "".join(syllables) + end,
    st.lists(_SYLLABLE, min_size=2, max_size=4),
    st.sampled_from(("", "n", "r", "s", "t")),
).filter(lambda word: len(word) >= 5)


def _unknown_word(word: str) -> bool:
    """No language's phrase table, function words or speller knows ``word`` ("positiva"
    is Spanish, "tiktak" a slip for TikTok): only then is it a word the reader cannot read."""
    return (
        word not in FUNCTION_WORDS
        and word not in INSTRUCTION_WORDS
        and all(to_english(word, language) == word for language in LANGUAGES)
        and _repaired(word, _TABLE) == word
    )


def test_the_grammar_is_read_whole() -> None:
    """Every question of the grammar is read without a word left over, in all six
    languages: what the splice test below adds is then the one word not understood."""
    missed = [
        (language, question, answer(question, POSTS, [OAT]).text.splitlines()[:2])
        for language, question in GRAMMAR_QUESTIONS
        if "did not understand" in (text := answer(question, POSTS, [OAT]).text)
        or "I only answer" in text
    ]
    assert missed == []
    assert {language for language, _ in GRAMMAR_QUESTIONS} == set(LANGUAGES)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(GRAMMAR_QUESTIONS),
    _LOOKALIKE.filter(_unknown_word),
    st.floats(min_value=0, max_value=1, exclude_max=True),
    st.booleans(),
)
def test_a_word_spliced_anywhere_is_named_or_no_figure_comes_back(
    asked: tuple[str, str], word: str, where: float, hashtag: bool
) -> None:
    """The splice invariant over the grammar: an unknown real-looking word put at any
    position of a question the reader reads whole is named as not understood (with any
    figure under its "without" label) or read as a term the read-as line states."""
    _, question = asked
    words = question.split()
    at = int(where * (len(words) + 1))
    spliced = " ".join([*words[:at], f"#{word}" if hashtag else word, *words[at:]])
    reply = answer(spliced, POSTS, [OAT])
    assert unlabelled(reply, word) == [], (spliced, reply.text)


def test_the_reply_says_what_was_read_and_gives_no_figure() -> None:
    reply = answer("How many zqrtvx posts on TikTok?", POSTS, [OAT])
    lines = reply.text.splitlines()
    assert "source is tiktok" in lines[0], reply.text  # what was read
    assert "did not understand 'zqrtvx'" in lines[1], reply.text
    assert "I give no figure" in lines[1] and "without 'zqrtvx'" in lines[1], reply.text
    tiktok = sum(1 for post in POSTS if post["source"] == "tiktok")
    assert f"**{tiktok}**" not in reply.text and "posts match" not in reply.text, reply.text
    assert reply.figures["unknown"] == ["zqrtvx"] and reply.figures["n"] is None


def test_a_grouped_question_gives_no_table() -> None:
    reply = answer("Which source has the most zqrtvx posts?", POSTS, [OAT])
    assert "grouped by source" in reply.text.splitlines()[0], reply.text
    assert "|---|" not in reply.text and not reply.blocks[1:], reply.text


def test_over_http_an_unread_condition_gets_no_unlabelled_figure(sandbox: SandboxHandle) -> None:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=60) as http:
        dataset_id = collect(http, "oat milk", 120)
        posts = read_all(http, {"dataset_ids": [dataset_id]})
        text = ask_over_http(http, "How many qwxzrt posts are negative?", None, dataset_id)["text"]
    negative = sum(1 for post in posts if _dominant(post.get("sentiment")) == "negative")
    lines = text.splitlines()
    assert "sentiment is negative" in lines[0] and "did not understand 'qwxzrt'" in lines[1], text
    assert f"**{negative:,}**" not in text and "posts match" not in text, text
