"""Pattern detection: group a dataset's posts into recurring themes (numpy, exact).

The pipeline is small enough to explain in one breath:

1. **TF-IDF** over word stems of each post's title and text (stop words, links and
   numbers dropped; stems in most posts are dropped too, since they name the dataset, not
   a pattern). Stems of the research question weigh :data:`QUESTION_BOOST` times more, so
   the grouping follows what the question asks about. Each post's row is scaled to unit
   length, then to whole numbers (see below).
2. **Spherical k-means** (k-means++ start from a fixed seed, best of a few restarts) into
   up to 16 small groups, then **average-linkage merging**: two groups merge while their
   posts are clearly more alike than two random posts of the dataset
   (:data:`MERGE_FACTOR`), and until at most :data:`MAX_PATTERNS` remain. Near-duplicate
   posts thus join the theme they share words with instead of each forming an item.
3. Each group of at least :data:`MIN_ITEM_POSTS` posts becomes a pattern **item**: a title
   from its most distinctive words (weight inside minus weight outside the group), an
   extractive **synopsis** (the two sentences closest to the group's centroid) and its
   posts with a confidence (cosine to the centroid). Smaller groups are not recurring.

Same result on every machine. The rows hold whole numbers small enough that every dot
product the pipeline takes (of posts, group sums, the dataset's sum) is an exact integer in
float64, whatever the BLAS kernel, its blocking, FMA use or thread count; cosines are that
exact product with one correctly rounded square root and division (IEEE 754, so every CPU
agrees); merging compares exact fractions; and every choice between equal values goes to
the lowest index (first centre, first pair, vocabulary order, earlier post). No SVD, no
float reduction whose order a library may change, decides anything
(``tests/sandbox/test_determinism.py`` runs it under several OpenBLAS kernels).

Example:
    >>> docs = [Doc("reddit", str(i), None, text) for i, text in enumerate([
    ...     "The foam on my latte was silky", "Silky foam, perfect latte art",
    ...     "Latte foam collapsed but still silky", "Carton leaked in the fridge again",
    ...     "Leaked carton, the fridge is a mess", "Another leaked carton in my fridge"])]
    >>> items = detect_patterns(docs, "What do people say about foam?")
    >>> sorted(len(item.members) for item in items)
    [3, 3]
    >>> {m.key for m in items[0].members} in ({("reddit", "0"), ("reddit", "1"), ("reddit", "2")},
    ...                                       {("reddit", "3"), ("reddit", "4"), ("reddit", "5")})
    True
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rdskit.sandbox.synth.extractor import STOPWORDS, stem

__all__ = [
    "MAX_PATTERNS",
    "MERGE_FACTOR",
    "MIN_ITEM_POSTS",
    "QUESTION_BOOST",
    "Doc",
    "Item",
    "Member",
    "detect_patterns",
    "summarize",
]

MAX_PATTERNS = 12
"""Upper bound on the number of items of one pattern."""

MIN_ITEM_POSTS = 2
"""A theme needs at least this many posts to be an item (one post is not a pattern)."""

QUESTION_BOOST = 2.0
"""Weight multiplier for words that appear in the research question."""

MERGE_FACTOR = 2.0
"""Groups merge while their posts are this many times more alike than the dataset average."""

_FINE_GROUPS = 16  # k of the first, deliberately fine k-means
_RESTARTS = 5
_KMEANS_ITERATIONS = 100
_MAX_SCALE = 2**20  # a unit weight becomes a whole number of at most this
_TOKEN = re.compile(r"[^\W\d_][\w'’]*[^\W_]|[^\W\d_]{2}", re.U)
_URL = re.compile(r"https?://\S+|www\.\S+", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*", re.U)
# Words that carry no theme in social posts, beyond ordinary stop words.
_NOISE = frozenset(
    (
        "just",
        "really",
        "like",
        "get",
        "got",
        "one",
        "also",
        "would",
        "could",
        "im",
        "ive",
        "dont",
        "cant",
        "it's",
        "i'm",
        "don't",
        "can't",
        "that's",
        "thats",
        "lol",
        "omg",
        "yeah",
        "know",
        "think",
        "much",
        "many",
        "even",
        "still",
        "way",
        "thing",
        "things",
        "people",
        "post",
        "posts",
        "today",
        "make",
        "made",
    )
)


@dataclass(frozen=True)
class Doc:
    """One post to cluster, identified by (source, id)."""

    source: str
    id: str
    title: str | None
    text: str | None

    @property
    def key(self) -> tuple[str, str]:
        """The post's identity."""
        return (self.source, self.id)

    @property
    def body(self) -> str:
        """Title and text joined, links removed."""
        parts = [p for p in (self.title, self.text) if p and p.strip()]
        return _URL.sub(" ", "\n".join(parts))


@dataclass(frozen=True)
class Member:
    """A post in an item, with its cosine similarity to the item's centroid."""

    key: tuple[str, str]
    confidence: float


@dataclass(frozen=True)
class Item:
    """One recurring theme: a short title, an extractive synopsis and its posts."""

    title: str
    synopsis: str
    terms: tuple[str, ...]
    members: tuple[Member, ...]


def _words(text: str) -> list[str]:
    """The lowercase content words of ``text``."""
    words = (w.lower().replace("’", "'") for w in _TOKEN.findall(text))
    return [w for w in words if len(w) > 2 and w not in STOPWORDS and w not in _NOISE]


def _tfidf(
    stem_lists: Sequence[Sequence[str]], question: Sequence[str]
) -> tuple[np.ndarray, list[str]]:
    """Row-normalised TF-IDF over stems (question stems boosted), scaled to integers by
    :func:`_integers`, and its vocabulary."""
    n = len(stem_lists)
    df = Counter(t for stems in stem_lists for t in set(stems))
    small = n < 6  # too few posts to judge rarity: keep every stem
    vocabulary = sorted(t for t, d in df.items() if small or 2 <= d <= 0.6 * n)
    index = {t: i for i, t in enumerate(vocabulary)}
    asked = set(question)
    idf = {
        t: (math.log((1 + n) / (1 + df[t])) + 1) * (QUESTION_BOOST if t in asked else 1.0)
        for t in vocabulary
    }
    unit = np.zeros((n, len(vocabulary)))
    for row, stems in enumerate(stem_lists):
        weights = {t: (1 + math.log(c)) * idf[t] for t, c in Counter(stems).items() if t in idf}
        # fsum is correctly rounded: the norm does not depend on the order of the words.
        norm = math.sqrt(math.fsum(w * w for w in weights.values()))
        for term, weight in weights.items():
            unit[row, index[term]] = weight / norm
    return _integers(unit), vocabulary


def _integers(unit: np.ndarray) -> np.ndarray:
    """Non-negative unit rows scaled (by a power of two, at most :data:`_MAX_SCALE`) and
    rounded to whole numbers, kept as float64 for fast matrix products.

    Every weight is >= 0, so no partial sum of a dot product between two sums of rows can
    exceed ``total @ total`` (``total`` the sum of all rows). The scale keeps that below
    2**53, so every such product is an exact integer in float64, whatever order, blocking,
    FMA or thread count the BLAS kernel uses: the grouping's decisions never see rounding.
    """
    scale = _MAX_SCALE
    while True:
        x: np.ndarray = np.rint(unit * scale)
        if _exact_dot(x.sum(axis=0)) < 2**53 or scale == 1:
            return x
        scale //= 2


def _exact_dot(total: np.ndarray) -> int:
    """``total @ total`` in Python integers (``total`` holds whole numbers below 2**53)."""
    return sum(int(v) * int(v) for v in total.tolist())


def _lengths(x: np.ndarray) -> np.ndarray:
    """Euclidean length of each row (its squared length is exact: whole numbers)."""
    lengths: np.ndarray = np.sqrt((x * x).sum(axis=1))
    return lengths


def _kmeans(x: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """One spherical k-means (k-means++ start): labels and cohesion (sum of cosines).

    A centre is kept as the exact sum of its members' rows; a post joins the centre of
    highest cosine (ties: the lowest centre), and cosines come from exact dot products
    followed by one correctly rounded division, so they are the same on every machine.
    """
    n = len(x)
    lengths = _lengths(x)
    centers = [int(rng.integers(n))]
    distance = 1.0 - (x @ x[centers[0]]) / (lengths * lengths[centers[0]])
    for _ in range(1, k):
        cumulative = np.cumsum(np.maximum(distance, 0.0) ** 2)  # sequential: no reordering
        total = float(cumulative[-1])
        if total > 0:
            nxt = min(int(np.searchsorted(cumulative, rng.random() * total, "right")), n - 1)
        else:
            nxt = int(rng.integers(n))
        centers.append(nxt)
        distance = np.minimum(distance, 1.0 - (x @ x[nxt]) / (lengths * lengths[nxt]))
    sums = x[centers].copy()
    labels = np.full(n, -1)
    for _ in range(_KMEANS_ITERATIONS):
        new_labels = np.argmax((x @ sums.T) / _lengths(sums), axis=1)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
        for c in range(k):
            members = labels == c
            if members.any():  # an emptied centre keeps its last direction
                sums[c] = x[members].sum(axis=0)
    rows = np.arange(n)
    cosines = (x @ sums.T)[rows, labels] / (lengths * _lengths(sums)[labels])
    return labels, math.fsum(cosines.tolist())


def _fine_groups(x: np.ndarray) -> np.ndarray:
    """The most cohesive of a few seeded k-means runs (ties: the first)."""
    k = max(2, min(_FINE_GROUPS, len(x) - 1))
    rng = np.random.default_rng(0)  # fixed: the same posts always give the same groups
    runs = [_kmeans(x, k, rng) for _ in range(_RESTARTS)]
    return max(runs, key=lambda run: run[1])[0]


def _merge(x: np.ndarray, labels: np.ndarray, max_groups: int) -> np.ndarray:
    """Average-linkage merging of k-means groups, relabelled 0..g-1.

    Two groups merge while their mean pairwise dot product is at least
    :data:`MERGE_FACTOR` times the dataset's (clearly more alike than two random posts),
    or while there are more than ``max_groups``; of equally alike pairs, the first merges.
    Block sums of ``x @ x.T`` are products of group sums, so no n x n matrix is built;
    they are whole numbers, compared as exact fractions.
    """
    groups = [np.flatnonzero(labels == g) for g in np.unique(labels)]
    sums = [x[g].sum(axis=0) for g in groups]
    n = len(x)
    total = x.sum(axis=0)
    pairs = int(total @ total) - int((x * x).sum())  # both exact (see _integers)
    threshold = Fraction(MERGE_FACTOR) * Fraction(pairs, n * (n - 1))
    while len(groups) > 1:
        best, pair = Fraction(-1), (0, 1)
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                similarity = Fraction(int(sums[i] @ sums[j]), len(groups[i]) * len(groups[j]))
                if similarity > best:
                    best, pair = similarity, (i, j)
        if best < threshold and len(groups) <= max_groups:
            break
        i, j = pair
        groups[i], sums[i] = np.concatenate([groups[i], groups[j]]), sums[i] + sums[j]
        del groups[j], sums[j]
    merged = np.empty(n, dtype=int)
    for label, members in enumerate(groups):
        merged[members] = label
    return merged


def _group(x: np.ndarray, max_groups: int) -> np.ndarray:
    """Group labels: fine k-means then merging; a handful of posts stays one group."""
    if len(x) < 4:
        return np.zeros(len(x), dtype=int)
    return _merge(x, _fine_groups(x), max_groups)


def _title(words: Sequence[str]) -> str:
    if not words:
        return "Other posts"
    head = ", ".join(words[:-1])
    return (f"{head} & {words[-1]}" if head else words[-1]).capitalize()


def _synopsis(docs: Sequence[Doc], centroid: np.ndarray, index: dict[str, int]) -> str:
    """The two sentences (from different posts) closest to the centroid (a sum of whole-number
    rows), quoted; of equally close sentences, the earlier post's."""
    length = math.sqrt(float(centroid @ centroid))
    scored: list[tuple[float, int, str]] = []
    for position, doc in enumerate(docs):
        for raw in _SENTENCE.findall(doc.body):
            sentence = " ".join(raw.split())
            counts = Counter(index[t] for t in _stems(sentence) if t in index)
            if counts and len(sentence) >= 12:
                dot = sum(count * int(centroid[i]) for i, count in counts.items())  # exact
                norm = math.sqrt(sum(count * count for count in counts.values()))
                scored.append((dot / (norm * length), -position, sentence))
    chosen: list[str] = []
    chosen_words: list[set[str]] = []
    used_posts: set[int] = set()
    for _, position, sentence in sorted(scored, reverse=True):
        # Templated posts repeat sentences: quote each post once and skip near-repeats.
        words = set(_words(sentence))
        if -position in used_posts or any(_jaccard(words, w) >= 0.6 for w in chosen_words):
            continue
        chosen.append(sentence if len(sentence) <= 160 else sentence[:159].rstrip() + "…")
        chosen_words.append(words)
        used_posts.add(-position)
        if len(chosen) == 2:
            break
    return " ".join(f"“{s}”" for s in chosen)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _stems(text: str) -> list[str]:
    return [stem(w) for w in _words(text)]


def detect_patterns(
    docs: Sequence[Doc], research_question: str = "", *, max_patterns: int = MAX_PATTERNS
) -> list[Item]:
    """Group ``docs`` into at most ``max_patterns`` items, largest first.

    Posts without a usable word, and themes under :data:`MIN_ITEM_POSTS` posts, are in
    no item. The result depends only on the inputs (order included), so re-running a
    detection gives the same items.
    """
    word_lists = [_words(doc.body) for doc in docs]
    stem_lists = [[stem(w) for w in words] for words in word_lists]
    x, vocabulary = _tfidf(stem_lists, _stems(research_question))
    usable = np.flatnonzero(x.any(axis=1))
    if len(usable) < MIN_ITEM_POSTS:
        return []
    # Show each stem as the word most often written for it ("leak" -> "leaked").
    surface: dict[str, Counter[str]] = {}
    for words in word_lists:
        for word in words:
            surface.setdefault(stem(word), Counter())[word] += 1
    x_used = x[usable]
    labels = _group(x_used, max_patterns)
    index = {t: i for i, t in enumerate(vocabulary)}
    items: list[Item] = []
    total = x_used.sum(axis=0)
    for group in np.unique(labels):
        inside = labels == group
        size, others = int(inside.sum()), int((~inside).sum())
        if size < MIN_ITEM_POSTS:
            continue
        centroid = x_used[inside].sum(axis=0)  # whole numbers, exact (see _integers)
        # Mean weight inside minus mean weight outside, times size * others: whole numbers.
        distinct = centroid * others - (total - centroid) * size if others else centroid
        top = [
            surface[vocabulary[i]].most_common(1)[0][0]
            for i in np.argsort(-distinct, kind="stable")[:3]
            if distinct[i] > 0
        ]
        rows = x_used[inside]
        similarity = (rows @ centroid) / (_lengths(rows) * math.sqrt(float(centroid @ centroid)))
        order = np.argsort(-similarity, kind="stable")
        member_docs = [docs[usable[i]] for i in np.flatnonzero(inside)]
        ranked = [member_docs[i] for i in order]
        members = tuple(Member(member_docs[i].key, round(float(similarity[i]), 3)) for i in order)
        synopsis = _synopsis(ranked, centroid, index)
        items.append(Item(_title(top), synopsis, tuple(top), members))
    items.sort(key=lambda item: (-len(item.members), item.title))
    return items


def summarize(items: Sequence[Item], research_question: str, total_posts: int) -> str:
    """A one-paragraph summary of a detection's items.

    Example:
        >>> summarize([], "Why?", 0)
        'No recurring patterns were found in 0 posts for “Why?”.'
    """
    if not items:
        return f"No recurring patterns were found in {total_posts} posts for “{research_question}”."
    grouped = sum(len(item.members) for item in items)
    lead = ", ".join(f"{item.title.lower()} ({len(item.members)})" for item in items[:3])
    left_out = total_posts - grouped
    tail = f" {left_out} posts fit no recurring pattern." if left_out else ""
    return (
        f"{len(items)} recurring patterns across {grouped} posts for “{research_question}”. "
        f"Largest: {lead}.{tail}"
    )
