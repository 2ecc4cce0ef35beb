"""Keyword and n-gram counts over post text (``df.rds.keywords()``).

Tokens are lower-cased words that start with a letter (URLs dropped); an n-gram is n
consecutive tokens of one post and is kept only if none of them is a stopword, so
"the foam" never counts but "oat milk" does.

Example:
    >>> count_terms(["Oat milk foam is great", "oat milk again"], ngram=2).values.tolist()
    [['oat milk', 2, 2], ['milk foam', 1, 1]]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import pandas as pd

__all__ = ["STOPWORDS", "count_terms", "ngrams", "tokens"]

_STOPWORDS = """
    a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't could couldn't did didn't do does
    doesn't doing don't down during each even few for from further get got had hadn't has
    hasn't have haven't having he her here hers herself him himself his how i i'd i'll i'm
    i've if in into is isn't it it's its itself just let's like me more most much my myself
    no nor not now of off on once only or other our ours ourselves out over own really same
    she should shouldn't so some such than that that's the their theirs them themselves then
    there there's these they they're this those through to too under until up us very was
    wasn't we we're were weren't what what's when where which while who whom why will with
    won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORDS.split())
"""A small English stopword list (pronouns, articles, auxiliaries, common adverbs)."""

_URL = re.compile(r"https?://\S+|www\.\S+")
_WORD = re.compile(r"[^\W\d_][\w'’]*")


def tokens(text: str) -> list[str]:
    """Lower-cased words of ``text``, URLs left out.

    Example:
        >>> tokens("I'm LOVING it: https://x.test #OatMilk")
        ["i'm", 'loving', 'it', 'oatmilk']
    """
    return [w.replace("’", "'") for w in _WORD.findall(_URL.sub(" ", text.lower()))]


def ngrams(words: list[str], n: int) -> list[str]:
    """The n-grams of ``words`` without stopwords or one-letter words.

    Example:
        >>> ngrams(["the", "oat", "milk", "foam"], 2)
        ['oat milk', 'milk foam']
    """
    grams = []
    for start in range(len(words) - n + 1):
        window = words[start : start + n]
        if all(len(w) > 1 and w not in STOPWORDS for w in window):
            grams.append(" ".join(window))
    return grams


def count_terms(texts: Iterable[str], *, n: int = 20, ngram: int = 1) -> pd.DataFrame:
    """The ``n`` most frequent terms: ``term``, ``count`` (occurrences) and ``posts``
    (texts containing it), most frequent first, ties alphabetical."""
    if ngram not in (1, 2, 3):
        raise ValueError(f"ngram must be 1, 2 or 3, got {ngram!r}")
    count: Counter[str] = Counter()
    posts: Counter[str] = Counter()
    for text in texts:
        grams = ngrams(tokens(text), ngram)
        count.update(grams)
        posts.update(set(grams))
    top = sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    return pd.DataFrame(
        [(term, hits, posts[term]) for term, hits in top], columns=["term", "count", "posts"]
    )
