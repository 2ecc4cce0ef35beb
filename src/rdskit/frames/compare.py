"""Dataset comparison with uncertainty: ``df.rds.compare(by="dataset" | "source" | ...)``.

For each group (a dataset, a source, or the values of any column):

- ``volume``: posts, their share of all posts, and its 95 % Wilson interval, except for
  a split the collection fixed (:data:`DESIGN_SPLITS`): by dataset, each dataset holds
  the posts its runs asked for (``count``); by source, a run splits its ``count`` over
  the sources it searches (the sandbox in fixed proportions). Neither split was sampled,
  so neither has a sampling interval (``low``/``high`` NaN, and a note says why);
- ``sentiment``: the share of analysed posts per dominant sentiment, with Wilson
  intervals (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``);
- ``differences``: for every pair of groups, the difference of their sentiment shares
  with Newcombe's hybrid score interval (method 10 of Newcombe 1998, built from the two
  Wilson intervals) and a two-sided z test of equal proportions (pooled), and of their
  volume shares (one sample: a Wald interval for two multinomial shares; none by
  dataset or source, whose split the collection fixed). **Read these**,
  not whether the groups' own intervals overlap: two 95 % intervals can overlap while
  the difference is clearly significant;
- ``engagement``: medians of the engagement metrics with percentile bootstrap intervals
  (``scipy.stats.bootstrap``, seeded, so the same frame gives the same intervals);
- ``terms``: the words that distinguish the group from the others, by the log-odds ratio
  with an informative Dirichlet prior (Monroe, Colaresi and Quinn 2008, "Fightin' Words"):
  the prior is the pooled corpus' word frequencies scaled to ``prior_size`` pseudo-counts,
  and ``z`` (the log-odds over its standard error) ranks the terms. ``in_query`` marks
  the words of the runs' search queries (and the mentions query): groups collected with
  different queries differ in those words by construction.

**Corrected shares.** With ``validation=`` (:func:`rdskit.validation.validity` of the
service's sentiment labels against hand codes), ``sentiment`` gains ``corrected``,
``corrected_low`` and ``corrected_high``: each group's shares corrected for the labels'
errors (:meth:`rdskit.validation.Validity.for_population` of the group's labels: one error
matrix for every group), beside the raw ones. Their intervals resample the validation
sample, so they carry its uncertainty and not the sampling of posts (the Wilson intervals
carry that); ``differences`` and their tests stay those of the raw shares. The frame's
record notes the correction, so ``df.rds.methods()`` states the validation.

Engagement compares views, which some sources only estimate (``are_views_estimated``):
when the compared posts mix estimated and counted views, ``compare()`` warns
(:class:`~rdskit.errors.EstimatedViewsWarning`) and says so in ``notes``.

A post in two datasets counts in both (``overlap`` says how many such posts there are).
scipy comes with the ``research`` extra.

Example:
    >>> cmp = df.rds.compare(by="dataset")  # doctest: +SKIP
    >>> cmp.sentiment.loc["Oatly"]  # doctest: +SKIP
    >>> cmp.terms.groupby("group").head(5)  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import math
import textwrap
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from rdskit._safe import one_line
from rdskit.errors import InvalidParameter
from rdskit.frames._checks import MissingColumnsError, dataset_labels, legend_outside, views_mixed
from rdskit.frames._table import html_table, interval, text_table
from rdskit.frames.columns import SENTIMENT_COLORS, SENTIMENT_LABELS
from rdskit.frames.keywords import ngrams, tokens
from rdskit.frames.methods import scope_of
from rdskit.frames.networks import research_import
from rdskit.frames.provenance import add_step, provenance_of

if TYPE_CHECKING:
    from rdskit.validation import Validity

__all__ = [
    "DESIGN_SPLITS",
    "ENGAGEMENT_METRICS",
    "Comparison",
    "compare_frame",
    "corrected_shares",
    "log_odds",
    "newcombe",
    "plot_comparison",
    "proportions_test",
    "wilson",
]

ENGAGEMENT_METRICS = ("engagement_rate", "num_likes", "num_comments", "num_shares", "num_views")
"""The columns whose medians :func:`compare_frame` compares (those present)."""


_READ = (
    "Read each difference and its interval (and p), not whether the groups' own "
    "intervals overlap: two {level} intervals can overlap while the difference is "
    "significant."
)


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """The result of ``df.rds.compare()``: one table per question, groups in ``groups``.

    ``volume``, ``sentiment`` (index ``group, sentiment``) and ``engagement`` (index
    ``group, metric``) have ``low``/``high`` interval bounds at ``confidence``;
    ``differences`` has one row per pair of groups and compared share (``question``,
    ``label``, ``group_a``, ``group_b``, ``share_a``, ``share_b``, ``difference``,
    ``low``, ``high``, ``p_value``, ``significant``, ``n_a``, ``n_b``, ``method``);
    ``terms`` has the ``n`` most distinguishing terms of each group (``in_query``: a
    word of the search query); ``notes`` say what the figures do not allow.
    """

    by: str
    groups: tuple[str, ...]
    confidence: float
    overlap: int
    volume: pd.DataFrame
    sentiment: pd.DataFrame
    engagement: pd.DataFrame
    terms: pd.DataFrame
    differences: pd.DataFrame = field(default_factory=pd.DataFrame)
    notes: tuple[str, ...] = ()
    scope: str = ""
    """The posts compared, as a chart's scope line says them: n, ads in or out, and the
    posts left out for having no group."""
    correction: str = ""
    """With ``validation=``: how the ``corrected`` sentiment shares were corrected (a
    chart's note says it); empty when nothing was corrected."""

    def _table(self) -> tuple[list[str], list[list[str]]]:
        level = f"{self.confidence:.0%}"
        headers = [
            "question",
            "groups",
            "n a",
            "share a",
            f"{level} interval a",
            "n b",
            "share b",
            f"{level} interval b",
            "difference",
            f"{level} interval",
            "p",
        ]
        rows = []
        for r in self.differences.itertuples(index=False):
            a, b = (
                self._interval(r.question, r.label, r.group_a),
                self._interval(r.question, r.label, r.group_b),
            )
            star = " *" if r.significant else ""
            rows.append(
                [
                    r.question if r.question == "volume" else f"{r.question}: {r.label}",
                    f"{r.group_a} vs {r.group_b}",
                    f"{r.n_a:,}",
                    _share(r.share_a),
                    a,
                    f"{r.n_b:,}",
                    _share(r.share_b),
                    b,
                    _share(r.difference, "+") + (star if r.difference == r.difference else ""),
                    interval(r.low, r.high),
                    _p(r.p_value),
                ]
            )
        return headers, rows

    def _interval(self, question: str, label: str, group: str) -> str:
        table = (
            self.volume.loc[group] if question == "volume" else self.sentiment.loc[(group, label)]
        )
        return interval(float(table["low"]), float(table["high"]))

    def _note(self) -> str:
        level = f"{self.confidence:.0%}"
        marked = (
            f"* significant at {1 - self.confidence:.0%}. n: the posts each share is of "
            "(volume: all posts; sentiment: posts with sentiment analysed; – where a group "
            "has none)."
        )
        words = ""
        if "in_query" in self.terms and self.terms["in_query"].any():
            listed = ", ".join(sorted(set(self.terms.loc[self.terms["in_query"], "term"])))
            words = (
                f" Distinguishing words that are part of the search query ({listed}) "
                "differ by construction."
            )
        overlap = (
            f" {self.overlap:,} posts are in more than one group: the intervals and tests "
            "of differences assume independent groups, so they are approximate here."
            if self.overlap
            else ""
        )
        return " ".join([_READ.format(level=level), marked + words + overlap, *self.notes]).strip()

    def _corrected_rows(self) -> list[list[str]]:
        """Each group's sentiment shares, raw and corrected, side by side."""
        return [
            [
                str(group),
                str(label),
                f"{int(r['analysed']):,}",
                _share(r["share"]),
                interval(r["low"], r["high"]),
                _share(r["corrected"]),
                interval(r["corrected_low"], r["corrected_high"]),
            ]
            for (group, label), r in self.sentiment.iterrows()
        ]

    def _corrected_headers(self) -> list[str]:
        level = f"{self.confidence:.0%}"
        return [
            "group",
            "sentiment",
            "n",
            "raw share",
            f"{level} Wilson",
            "corrected",
            f"{level} BCa (validation)",
        ]

    def __repr__(self) -> str:
        headers, rows = self._table()
        text = (
            f"Comparison by {one_line(self.by)} ({len(self.groups)} groups: "
            f"{', '.join(map(one_line, self.groups))})\n"
            f"{text_table(headers, rows)}\n{self._note()}"
        )
        if not self.correction:
            return text
        table = text_table(self._corrected_headers(), self._corrected_rows())
        return f"{text}\n\nSentiment shares, raw and {self.correction}\n{table}"

    def _repr_html_(self) -> str:
        headers, rows = self._table()
        title = f"Comparison by {self.by}: {', '.join(self.groups)}"
        html = html_table(headers, rows, title=title, note=self._note())
        if not self.correction:
            return html
        return html + html_table(
            self._corrected_headers(),
            self._corrected_rows(),
            title=f"Sentiment shares, raw and {self.correction}",
        )


def _share(value: float, sign: str = "") -> str:
    """A share or difference to 3 decimals, ``"–"`` when a group has no posts to share."""
    return "–" if value != value else f"{value:{sign}.3f}"


def _p(value: float) -> str:
    if value != value:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (NaN when n = 0).

    Example:
        >>> [round(x, 4) for x in wilson(7, 50)]
        [0.0695, 0.2619]
    """
    if n == 0:
        return float("nan"), float("nan")
    stats = research_import("scipy.stats")
    ci = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def newcombe(
    k_a: int, n_a: int, k_b: int, n_b: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval for ``k_a/n_a - k_b/n_b`` (independent groups;
    method 10 of Newcombe 1998, Statistics in Medicine 17(8)), from the two Wilson
    intervals; NaN when a group is empty.

    Example:
        >>> [round(x, 4) for x in newcombe(56, 70, 48, 80)]
        [0.0524, 0.3339]
    """
    if not n_a or not n_b:
        return float("nan"), float("nan")
    p_a, p_b = k_a / n_a, k_b / n_b
    low_a, high_a = wilson(k_a, n_a, confidence)
    low_b, high_b = wilson(k_b, n_b, confidence)
    d = p_a - p_b
    return (
        d - math.sqrt((p_a - low_a) ** 2 + (high_b - p_b) ** 2),
        d + math.sqrt((high_a - p_a) ** 2 + (p_b - low_b) ** 2),
    )


def proportions_test(k_a: int, n_a: int, k_b: int, n_b: int) -> float:
    """The two-sided p-value of the z test that two proportions are equal (pooled
    variance); 1.0 when both are 0 or both 1, NaN when a group is empty.

    Example:
        >>> round(proportions_test(60, 100, 45, 100), 4)
        0.0337
    """
    if not n_a or not n_b:
        return float("nan")
    pooled = (k_a + k_b) / (n_a + n_b)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    if se == 0:
        return 1.0
    z = (k_a / n_a - k_b / n_b) / se
    return math.erfc(abs(z) / math.sqrt(2))


FIXED_METHOD = "fixed by the design: no sampling interval"
DESIGN_SPLITS: dict[str, str] = {
    "dataset": (
        "Volume by dataset: each dataset holds the posts its runs asked for, so the split was "
        "fixed by the design, not sampled; it has no interval and says nothing about the "
        "groups."
    ),
    "source": (
        "Volume by source: a run splits its count over the sources it searches (the sandbox "
        "in fixed proportions, the query's estimated share on each source; the real "
        "service's rule is not documented), so the split was fixed by the design, not "
        "sampled; it has no interval. Describe it as this sample's split, and compare "
        "platforms' volumes with a research preview per source."
    ),
}
"""The groupings whose volume split the collection fixed, and why (the note
``compare()`` adds): their volume shares get no sampling interval."""


def _multinomial(k_a: int, k_b: int, n: int, confidence: float) -> tuple[float, float, float]:
    """Wald interval and p-value of ``(k_a - k_b) / n``, two shares of one sample."""
    p_a, p_b = k_a / n, k_b / n
    d = p_a - p_b
    se = math.sqrt(max(p_a + p_b - d**2, 0.0) / n)
    z = _normal_quantile(confidence)
    p_value = 1.0 if se == 0 else math.erfc(abs(d / se) / math.sqrt(2))
    return d - z * se, d + z * se, p_value


def _normal_quantile(confidence: float) -> float:
    stats = research_import("scipy.stats")
    return float(stats.norm.ppf(0.5 + confidence / 2))


_DIFFERENCES = (
    "question",
    "label",
    "group_a",
    "group_b",
    "share_a",
    "share_b",
    "low",
    "high",
    "p_value",
    "n_a",
    "n_b",
    "method",
)
_ORDER = (*_DIFFERENCES[:6], "difference", *_DIFFERENCES[6:9], "significant", *_DIFFERENCES[9:])


def _differences(
    groups: tuple[str, ...],
    volume: pd.DataFrame,
    sentiment: pd.DataFrame,
    total: int,
    confidence: float,
    fixed: bool = False,
) -> pd.DataFrame:
    rows = []
    for a, b in itertools.combinations(groups, 2):
        k_a, k_b = int(volume.loc[a, "posts"]), int(volume.loc[b, "posts"])
        if fixed:
            low = high = p_value = float("nan")
        else:
            low, high, p_value = _multinomial(k_a, k_b, total, confidence)
        rows.append(
            (
                "volume",
                "posts",
                a,
                b,
                k_a / total,
                k_b / total,
                low,
                high,
                p_value,
                total,
                total,
                FIXED_METHOD if fixed else "Wald, two shares of one sample",
            )
        )
        for label in SENTIMENT_LABELS if len(sentiment) else ():
            ka, na = (int(x) for x in sentiment.loc[(a, label), ["posts", "analysed"]])
            kb, nb = (int(x) for x in sentiment.loc[(b, label), ["posts", "analysed"]])
            low, high = newcombe(ka, na, kb, nb, confidence)
            rows.append(
                (
                    "sentiment",
                    label,
                    a,
                    b,
                    ka / na if na else float("nan"),
                    kb / nb if nb else float("nan"),
                    low,
                    high,
                    proportions_test(ka, na, kb, nb),
                    na,
                    nb,
                    "Newcombe hybrid score; z test",
                )
            )
    out = pd.DataFrame(rows, columns=list(_DIFFERENCES))
    out["difference"] = out["share_a"] - out["share_b"]
    out["significant"] = out["p_value"] < 1 - confidence
    return out[list(_ORDER)]


def _scope_line(compared: pd.DataFrame, by: str, left_out: int) -> tuple[str, str]:
    """What was compared (the posts with a group: n, ads in or out, a subset of the posts
    loaded or not, the posts without a group left out): the scope line and the note."""
    scope = scope_of(compared)
    line = scope.line(len(compared))
    advice = " (df.rds.organic() leaves them out)" if scope.ads else ""
    left = (
        f"; {left_out:,} post{'' if left_out == 1 else 's'} without a {by} left out"
        if left_out
        else ""
    )
    return line + left, f"Compared: {line}{advice}{left}."


def _small_samples(differences: pd.DataFrame) -> list[str]:
    """A note when the z test's normal approximation is poor: some pair's expected count
    (n times the pooled share, with or without the label) is under 5."""
    rows = differences[(differences["question"] == "sentiment") & differences["p_value"].notna()]
    if rows.empty:
        return []
    n_a, n_b = rows["n_a"].astype("float64"), rows["n_b"].astype("float64")
    pooled = (rows["share_a"] * n_a + rows["share_b"] * n_b) / (n_a + n_b)
    smallest = np.minimum(n_a, n_b) * np.minimum(pooled, 1 - pooled)
    # A label no post (or every post) of either group has: no difference, p = 1 exactly.
    few = int(((smallest < 5) & (pooled > 0) & (pooled < 1)).sum())
    if not few:
        return []
    return [
        f"{few} of the {len(rows)} sentiment differences rest on fewer than 5 expected posts "
        "with or without the label in a group: their z-test p is approximate (read their "
        "Newcombe interval)."
    ]


def corrected_shares(
    labels: Mapping[Any, pd.Series], validation: Validity
) -> tuple[pd.DataFrame, str, list[str], dict[str, Any]]:
    """Each group's sentiment shares (``labels``: group -> its posts' sentiment labels)
    corrected by ``validation`` (:meth:`rdskit.validation.Validity.for_population`, one
    error matrix for every group): a table indexed by group and sentiment with
    ``corrected``, ``corrected_low`` and ``corrected_high``; the figure's words for the
    correction; its notes; and what the frame's record keeps of it (``correct_shares``).
    """
    from rdskit.validation import Validity

    if not isinstance(validation, Validity):
        raise InvalidParameter(
            "validation",
            "must be the result of rdskit.validation.validity(...), not "
            f"{type(validation).__name__}",
        )
    codes = [str(c) for c in validation.per_class.index]
    if sorted(codes) != sorted(SENTIMENT_LABELS):
        raise InvalidParameter(
            "validation",
            f"its codebook {validation.codebook} has the codes {', '.join(codes)}, not the "
            f"sentiment labels ({', '.join(SENTIMENT_LABELS)}): only sentiment shares are "
            "corrected",
        )
    rows: list[tuple[Any, str, float, float, float]] = []
    clipped, uncorrectable, reasons = [], [], set()
    for group, values in labels.items():
        values = values.dropna().astype(str)
        if values.empty:
            continue
        applied = validation.for_population(values.tolist())
        clipped += [str(group)] if applied.clipped else []
        uncorrectable += [str(group)] if applied.corrected().isna().any() else []
        for label in SENTIMENT_LABELS:
            found = applied.intervals[label]["corrected_share"]
            reasons |= {found.reason} if not found.defined else set()
            share = float(applied.per_class.loc[label, "corrected_share"])
            rows.append((group, label, share, found.low, found.high))
    table = pd.DataFrame(
        rows, columns=["group", "sentiment", "corrected", "corrected_low", "corrected_high"]
    ).set_index(["group", "sentiment"])
    weighted = "design-weighted" if validation.design_weighted else "unweighted"
    words = (
        f"corrected for the labels' errors measured on {validation.n:,} hand-coded posts "
        f"(codebook {validation.codebook}, {weighted}; {validation.method})"
    )
    notes = [
        f"Sentiment shares {words}, one error matrix for every group (it assumes the labels "
        "err alike in each); the corrected shares' intervals resample the validation sample "
        "and carry its uncertainty only, not the sampling of posts.",
        *(f"No interval for a corrected share: {why}." for why in sorted(reasons)),
    ]
    if clipped:
        notes.append(
            f"The corrected shares of {', '.join(clipped)} left 0-1 and were clipped and "
            "renormalised."
        )
    if uncorrectable:
        notes.append(
            f"The errors cannot be inverted, so {', '.join(uncorrectable)} "
            f"{'has' if len(uncorrectable) == 1 else 'have'} no corrected shares."
        )
    record = {
        "validation": validation.summary(),
        "clipped": clipped,
        "uncorrectable": uncorrectable,
    }
    return table, words, notes, record


def _query_words(frame: pd.DataFrame) -> set[str]:
    """The words of the runs' search queries and of the mentions query (``q``)."""
    prov = provenance_of(frame)
    queries = [r.search_query for r in prov.runs if r.search_query]
    queries += [str(f.query["q"]) for f in prov.fetches if f.query.get("q")]
    return {t for q in queries for t in tokens(q)}


def _median_ci(
    values: np.ndarray, confidence: float, resamples: int, seed: int
) -> tuple[float, float]:
    if len(values) < 2:
        return float("nan"), float("nan")
    stats = research_import("scipy.stats")
    result = stats.bootstrap(
        (values,),
        np.median,
        vectorized=True,
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _log(values: np.ndarray) -> np.ndarray:
    """Natural log of each value, by the C library's scalar ``log``: numpy's vectorised log
    differs in the last bit between CPUs with and without AVX-512 (and under
    ``NPY_DISABLE_CPU_FEATURES``), which could reorder terms of equal keyness."""
    return np.array(
        [math.log(v) if v > 0 else -math.inf if v == 0 else math.nan for v in values.tolist()]
    )


def log_odds(counts: dict[str, Counter[str]], prior_size: float = 1000.0) -> pd.DataFrame:
    """Each group's terms against all other groups: ``count``, ``other``, ``log_odds``
    (delta) and ``z``, by Monroe, Colaresi and Quinn (2008) with an informative Dirichlet
    prior (the pooled frequencies scaled to ``prior_size``).

    Example:
        >>> out = log_odds({"a": Counter(x=30, y=10), "b": Counter(x=5, y=10)})
        >>> out.sort_values("z", ascending=False).iloc[0][["group", "term"]].tolist()
        ['a', 'x']
    """
    vocab = sorted(set().union(*counts.values()))
    groups = list(counts)
    matrix = np.array([[counts[g].get(w, 0) for w in vocab] for g in groups], dtype="float64")
    pooled = matrix.sum(axis=0)
    if not len(vocab) or pooled.sum() == 0:
        return pd.DataFrame(columns=["group", "term", "count", "other", "log_odds", "z"])
    alpha = prior_size * pooled / pooled.sum()
    alpha0 = alpha.sum()
    frames = []
    for row, group in enumerate(groups):
        y_i, y_j = matrix[row], pooled - matrix[row]
        n_i, n_j = y_i.sum(), y_j.sum()
        # A corpus of one distinct word leaves no "other words": the odds are undefined.
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = _log((y_i + alpha) / (n_i + alpha0 - y_i - alpha)) - _log(
                (y_j + alpha) / (n_j + alpha0 - y_j - alpha)
            )
        delta[~np.isfinite(delta)] = np.nan
        variance = 1.0 / (y_i + alpha) + 1.0 / (y_j + alpha)
        frames.append(
            pd.DataFrame(
                {
                    "group": group,
                    "term": vocab,
                    "count": y_i.astype("int64"),
                    "other": y_j.astype("int64"),
                    "log_odds": delta,
                    "z": delta / np.sqrt(variance),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _groups(frame: pd.DataFrame, by: str) -> tuple[pd.Series, int]:
    """The group of each post (a post may repeat, once per group) and the overlap."""
    column = "datasets" if by == "dataset" else by
    if column not in frame.columns:
        raise MissingColumnsError("compare", [column], frame.rds.kind)
    values = frame[column]
    dtype = values.dtype
    if by == "dataset":
        labels = dataset_labels(frame)
        overlap = int((labels.index.value_counts() > 1).sum())
        return labels, overlap
    if isinstance(dtype, pd.ArrowDtype) and pa.types.is_list(dtype.pyarrow_dtype):
        exploded = values.reset_index(drop=True).explode().dropna()
        overlap = int((exploded.index.value_counts() > 1).sum())
        return exploded.astype(str), overlap
    return values.reset_index(drop=True).dropna().astype(str), 0


def compare_frame(
    frame: pd.DataFrame,
    by: str = "dataset",
    *,
    terms: int = 15,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
    prior_size: float = 1000.0,
    validation: Validity | None = None,
) -> Comparison:
    """Compare the groups of a mentions frame (see the module docs); ``validation``
    adds each group's sentiment shares corrected for the labels' errors.

    Example:
        >>> from rdskit.frames import mentions_frame
        >>> df = mentions_frame([
        ...     {"source": "reddit", "id": "1", "text": "oat foam", "num_likes": 3},
        ...     {"source": "tiktok", "id": "2", "text": "soy latte", "num_likes": 9}])
        >>> compare_frame(df, by="source").volume["posts"].tolist()
        [1, 1]
    """
    groups, group_of, overlap, rows = _grouped(frame, by, confidence)
    total = len(rows)

    # By dataset or source, the posts per group are what the runs' counts and their split
    # over the sources set: no sampling variation to put an interval on (a Wald interval on
    # a 100/100 design is meaningless).
    fixed = by in DESIGN_SPLITS
    volume = _volume(rows, groups, confidence, fixed)
    sentiment = _sentiment(rows, groups, confidence)
    correction, corrected_notes, corrected_record = "", list[str](), dict[str, Any]()
    if validation is not None:
        sentiment, correction, corrected_notes, corrected_record = _corrected(
            rows, groups, sentiment, validation
        )
    engagement = _engagement(rows, groups, confidence, resamples, seed)
    top = _terms(rows, groups, terms, prior_size)
    top["in_query"] = top["term"].isin(_query_words(frame))
    differences = _differences(groups, volume, sentiment, total, confidence, fixed)
    # Each post with a group once (a post in two datasets is one post compared).
    compared = frame.iloc[np.unique(group_of.index.to_numpy())]
    scope, note = _scope_line(compared, by, len(frame) - len(compared))
    mixed = _mixed_views(rows, by) if not engagement.empty else None
    notes = [
        note,
        *([DESIGN_SPLITS[by]] if fixed else []),
        *_small_samples(differences),
        *corrected_notes,
        *([_ESTIMATED_VIEWS.format(mixed)] if mixed else []),
    ]
    # The frame's record says it was compared, so its methods paragraph can say how.
    settings = {
        "by": by,
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
        "posts": len(frame),
        **({"volume_fixed": True} if fixed else {}),
        **({"mixed_views": mixed} if mixed else {}),
    }
    add_step(frame, "compare", settings)
    if corrected_record:
        add_step(frame, "correct_shares", {"figure": f"compare(by={by!r})", **corrected_record})
    return Comparison(
        by=by,
        groups=groups,
        confidence=confidence,
        overlap=overlap,
        volume=volume,
        sentiment=sentiment,
        engagement=engagement,
        terms=top,
        differences=differences,
        notes=tuple(notes),
        scope=scope,
        correction=correction,
    )


def _grouped(
    frame: pd.DataFrame, by: str, confidence: float
) -> tuple[tuple[Any, ...], pd.Series, int, pd.DataFrame]:
    """The checked groups of ``frame`` by ``by``: their names, each post's group (indexed by
    position), the overlap, and the rows compared (a post once per group it is in)."""
    if len(frame) == 0:
        raise InvalidParameter("frame", "compare() needs posts: the frame is empty")
    if not 0 < confidence < 1:
        raise InvalidParameter("confidence", f"must be between 0 and 1, not {confidence}")
    group_of, overlap = _groups(frame, by)
    groups = tuple(sorted(group_of.unique()))
    if len(groups) < 2:
        raise InvalidParameter(
            "by", f"compare() needs at least two groups in {by!r}; this frame has {list(groups)}"
        )
    rows = frame.reset_index(drop=True).iloc[group_of.index.to_numpy()].reset_index(drop=True)
    rows.insert(0, "group", group_of.to_numpy())
    return groups, group_of, overlap, rows


def _corrected(
    rows: pd.DataFrame, groups: tuple[Any, ...], sentiment: pd.DataFrame, validation: Validity
) -> tuple[pd.DataFrame, str, list[str], dict[str, Any]]:
    """``sentiment`` with each group's shares corrected by ``validation``, the correction's
    label, its notes and its record."""
    if sentiment.empty:
        raise InvalidParameter(
            "validation", "corrects sentiment shares, and this frame has no sentiment column"
        )
    by_group = {g: rows.loc[rows["group"] == g, "sentiment"] for g in groups}
    corrections, correction, notes, record = corrected_shares(by_group, validation)
    # The Wilson intervals carry the sampling of posts, the others the validation's.
    notes.insert(1, "The differences and their tests are of the raw shares.")
    return sentiment.join(corrections), correction, notes, record


_ESTIMATED_VIEWS = (
    "Views of {} are estimated: their medians of num_views and engagement_rate are not "
    "comparable with the other sources'."
)


def _mixed_views(rows: pd.DataFrame, by: str) -> str | None:
    """When the rows mix estimated views with counted ones: the sources that estimate
    (:func:`views_mixed` warns that compare() compares them); else None."""
    return views_mixed(
        rows,
        f"compare(by={by!r}) of views and engagement rates",
        "compare them within one source: df[df.source == 'tiktok'].rds.compare(...)",
    )


def _volume(
    rows: pd.DataFrame, groups: tuple[str, ...], confidence: float, fixed: bool
) -> pd.DataFrame:
    """Posts per group and their share, with Wilson intervals unless the design fixed them."""
    total = len(rows)
    counts = rows.groupby("group").size().reindex(groups, fill_value=0)
    volume = pd.DataFrame({"posts": counts.astype("int64"), "share": counts / total})
    nan = (float("nan"), float("nan"))
    volume[["low", "high"]] = [nan if fixed else wilson(k, total, confidence) for k in counts]
    volume.index.name = "group"
    return volume


def _sentiment(rows: pd.DataFrame, groups: tuple[str, ...], confidence: float) -> pd.DataFrame:
    """Each group's share of each sentiment label among its analysed posts (empty without
    a sentiment column)."""
    if "sentiment" not in rows.columns:
        return pd.DataFrame()
    shares: list[tuple[str, str, int, int, float, float, float]] = []
    for group in groups:
        labels = rows.loc[rows["group"] == group, "sentiment"].dropna()
        for label in SENTIMENT_LABELS:
            k, n = int((labels == label).sum()), len(labels)
            low, high = wilson(k, n, confidence)
            share = k / n if n else float("nan")
            shares.append((group, label, k, n, share, low, high))
    return pd.DataFrame(
        shares, columns=["group", "sentiment", "posts", "analysed", "share", "low", "high"]
    ).set_index(["group", "sentiment"])


def _engagement(
    rows: pd.DataFrame, groups: tuple[str, ...], confidence: float, resamples: int, seed: int
) -> pd.DataFrame:
    """Each group's median of each engagement metric, with a bootstrap interval."""
    table: list[tuple[str, str, int, float, float, float]] = []
    for metric in [m for m in ENGAGEMENT_METRICS if m in rows.columns]:
        for group in groups:
            values = rows.loc[rows["group"] == group, metric].dropna().to_numpy(dtype="float64")
            median = float(np.median(values)) if len(values) else float("nan")
            interval = _median_ci(values, confidence, resamples, seed)
            table.append((group, metric, len(values), median, *interval))
    return pd.DataFrame(
        table, columns=["group", "metric", "posts", "median", "low", "high"]
    ).set_index(["group", "metric"])


def _terms(
    rows: pd.DataFrame, groups: tuple[str, ...], terms: int, prior_size: float
) -> pd.DataFrame:
    """The ``terms`` words that most distinguish each group (log-odds with a prior)."""
    words: dict[str, Counter[str]] = {}
    texts = [rows[c].fillna("").astype(str) for c in ("title", "text") if c in rows.columns]
    if texts:
        joined = texts[0] if len(texts) == 1 else texts[0] + " " + texts[1]
        for group in groups:
            counter: Counter[str] = Counter()
            for text in joined[rows["group"] == group]:
                counter.update(ngrams(tokens(text), 1))
            words[group] = counter
    scored = log_odds(words, prior_size) if words else log_odds({g: Counter() for g in groups})
    return (
        scored.sort_values(["group", "z", "term"], ascending=[True, False, True], kind="stable")
        .groupby("group")
        .head(terms)
        .reset_index(drop=True)
    )


def plot_comparison(
    comparison: Comparison, what: str = "sentiment", metric: str = "engagement_rate", ax: Any = None
) -> Any:
    """Bars per group with their intervals as error bars: ``what`` is ``"sentiment"``
    (share per label), ``"volume"`` (share of posts) or ``"engagement"`` (median of
    ``metric``). A comparison made with ``validation=`` draws each sentiment bar's
    corrected twin (hatched, with its interval over the validation sample) beside it; the
    title, the legend and the axis label say which is which. Returns the matplotlib Axes.

    Example:
        >>> ax = plot_comparison(df.rds.compare(by="source"), "sentiment")  # doctest: +SKIP
    """
    table, value, title, ylabel, n_of = _figure_of(comparison, what, metric)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    groups = list(comparison.groups)
    corrected = what == "sentiment" and "corrected" in table.columns
    # Raw bars, and with a validation each raw bar's corrected twin (hatched) beside it.
    kinds = [(value, "low", "high", "")]
    if corrected:
        kinds = [
            ("share", "low", "high", " (raw)"),
            ("corrected", "corrected_low", "corrected_high", " (corrected)"),
        ]
        title = (
            "Sentiment by {by}, raw and corrected ({level} intervals)\n"
            "raw: Wilson; corrected: BCa over the validation sample"
        )
    positions = np.arange(len(groups))
    bars = _draw_bars(ax, table, groups, kinds, colored=what == "sentiment")
    # Each group's n (the posts its bars are of) under its name.
    n = table[n_of].groupby(level=0).first().reindex(groups, fill_value=0)
    ax.set_xticks(positions, [f"{g}\nn={int(n[g]):,}" for g in groups])
    level = f"{comparison.confidence:.0%}"
    ax.set_title(title.format(by=comparison.by, metric=metric, level=level))
    note = ""
    if corrected:  # what the corrected bars are, under the axis
        note = "\n" + textwrap.fill(
            f"Raw: the service's labels. Corrected: {comparison.correction}.", 70
        )
    ax.set_xlabel(comparison.by + note)
    ax.set_ylabel(ylabel)
    if bars > 1:
        legend_outside(ax)
    return ax


def _figure_of(
    comparison: Comparison, what: str, metric: str
) -> tuple[pd.DataFrame, str, str, str, str]:
    """The table ``plot_comparison`` draws for ``what``, its value column, title, y label
    and the column of each group's n."""
    if what == "sentiment":
        table = comparison.sentiment
        value, title, ylabel = "share", "Sentiment by {by} ({level} Wilson intervals)", "share"
        ylabel, n_of = "share of analysed posts", "analysed"
    elif what == "volume":
        table = comparison.volume.assign(_series="posts").set_index("_series", append=True)
        value, ylabel, n_of = "share", "share of posts", "posts"
        title = (
            "Posts by {by} (fixed by the design: no interval)"
            if comparison.volume["low"].isna().all()
            else "Posts by {by} ({level} Wilson intervals)"
        )
    elif what == "engagement":
        if metric not in comparison.engagement.index.get_level_values("metric"):
            raise InvalidParameter("metric", f"this comparison has no medians of {metric!r}")
        table = comparison.engagement.xs(metric, level="metric", drop_level=False)
        value, title = "median", "Median {metric} by {by} ({level} bootstrap intervals)"
        ylabel, n_of = metric, "posts"
    else:
        raise InvalidParameter(
            "what", f"must be 'sentiment', 'volume' or 'engagement', not {what!r}"
        )
    if table.empty:
        raise InvalidParameter(what, f"this comparison has no {what} figures")
    return table, value, title, ylabel, n_of


def _draw_bars(
    ax: Any,
    table: pd.DataFrame,
    groups: list[Any],
    kinds: list[tuple[str, str, str, str]],
    *,
    colored: bool,
) -> int:
    """Draw each series' bars per group (one per kind: (middle, low, high, label suffix)),
    with their intervals as error bars; returns the bars per group."""
    series = list(dict.fromkeys(table.index.get_level_values(1)))
    bars = len(series) * len(kinds)
    width = 0.8 / bars
    positions = np.arange(len(groups))
    for i, name in enumerate(series):
        part = table.xs(name, level=1).reindex(groups)
        for j, (mid_of, low_of, high_of, kind) in enumerate(kinds):
            mid = part[mid_of].to_numpy(dtype="float64")
            errors = np.vstack(
                [
                    mid - part[low_of].to_numpy(dtype="float64"),
                    part[high_of].to_numpy(dtype="float64") - mid,
                ]
            )
            ax.bar(
                positions + (i * len(kinds) + j - (bars - 1) / 2) * width,
                mid,
                width,
                yerr=errors,
                capsize=3,
                label=f"{name}{kind}",
                color=SENTIMENT_COLORS.get(str(name)) if colored else None,
                hatch="//" if j else None,
                alpha=0.6 if j else 1.0,
            )
    return bars
