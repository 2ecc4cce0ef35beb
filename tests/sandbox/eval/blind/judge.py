"""Ground-truth helpers and the automatic judge of the blind evaluation.

A question's truth is a Python expression over pandas frames of the posts returned by
POST /v1/mentions (see world.mentions_frame), evaluated at scoring time. The judge reads
the figures of an answer and the phrases that mark a refusal, a "not understood" note or a
clarifying question. The rules are written out in README.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from world import TODAY

#: The sandbox's "now": its clock starts at noon UTC of TODAY.
NOW = pd.Timestamp(f"{TODAY}T12:00:00Z")


@dataclass(frozen=True)
class Alt:
    """Any one of several expectations is right (e.g. a rate as 0.0274 or as 2.74 %)."""

    options: tuple[Any, ...]

    def __init__(self, *options: Any) -> None:
        object.__setattr__(self, "options", options)


@dataclass
class Q:
    """One question: what is asked, in which scope, and what counts as right.

    kind: "figure" (truth is an expression), "refuse", "not_understood" (a condition the
    service cannot read: it must say so and give no unlabelled figure for the wider scope)
    or "clarify" (ambiguous: a short clarifying question, or both readings labelled).
    chat: questions with the same chat id are asked in order in one chat (follow-ups).
    """

    id: str
    q: str
    lang: str
    persona: str
    category: str
    scope: list[str]
    kind: str = "figure"
    truth: str | None = None
    tol: float | None = None
    chat: str | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# -- truth helpers (names available to the truth expressions) --------------------------


def pct(part: float, whole: float) -> float:
    """A share in percent."""
    return 100.0 * part / whole if whole else math.nan


def rate(value: float) -> Alt:
    """A rate given as a fraction (0.0274) or as a percentage (2.74)."""
    return Alt(value, 100.0 * value)


def organic(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["content_type"] != "ad"]


def since(df: pd.DataFrame, days: int, end: pd.Timestamp = NOW) -> pd.DataFrame:
    """Posts of the `days` days before `end` (the sandbox's now by default)."""
    return df[(df["created"] > end - pd.Timedelta(days=days)) & (df["created"] <= end)]


def last_months(df: pd.DataFrame, n: int, offset: int = 0) -> pd.DataFrame:
    """Posts of the n calendar-length months ending `offset` months before now."""
    end = NOW - pd.DateOffset(months=offset)
    start = NOW - pd.DateOffset(months=offset + n)
    return df[(df["created"] > start) & (df["created"] <= end)]


def between(df: pd.DataFrame, start: str, end: str) -> pd.DataFrame:
    """Posts from `start` (inclusive) to `end` (exclusive), ISO dates in UTC."""
    lo, hi = pd.Timestamp(start, tz="UTC"), pd.Timestamp(end, tz="UTC")
    return df[(df["created"] >= lo) & (df["created"] < hi)]


def comments(df: pd.DataFrame) -> pd.DataFrame:
    """One row per collected comment, with its post's dataset and source."""
    rows = [
        {
            "dataset": r.dataset,
            "source": r.source,
            "post_id": r.id,
            "body": c.get("body") or "",
            "likes": c.get("num_likes") or 0,
            "replies": c.get("num_replies") or 0,
            "user": c.get("author_username"),
            "created": pd.Timestamp(c["created_at"]),
        }
        for r in df.itertuples()
        for c in r.comment_list
    ]
    return pd.DataFrame(
        rows,
        columns=["dataset", "source", "post_id", "body", "likes", "replies", "user", "created"],
    )


def has(series: pd.Series, value: str) -> pd.Series:
    """Rows whose list column holds `value` (case-insensitive)."""
    v = value.lower()
    return series.apply(lambda xs: any(str(x).lower() == v for x in xs))


def words(df: pd.DataFrame, word: str) -> pd.Series:
    """Rows whose title or text contains `word` (case-insensitive, whole word)."""
    pat = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    return (df["title"] + " " + df["text"]).apply(lambda s: bool(pat.search(s)))


def top(series: pd.Series, k: int = 1) -> list[Any]:
    """The k most frequent values, most frequent first (ties: pandas' order)."""
    return list(series.value_counts().index[:k])


def nth(series: pd.Series, n: int) -> Any:
    """The n-th most frequent value (1-based)."""
    return series.value_counts().index[n - 1]


def nth_count(series: pd.Series, n: int) -> int:
    return int(series.value_counts().iloc[n - 1])


def argmax(grouped: pd.Series, n: int = 1) -> Any:
    """The label of the n-th largest value of a grouped series."""
    return grouped.sort_values(ascending=False).index[n - 1]


def argmin(grouped: pd.Series) -> Any:
    return grouped.sort_values().index[0]


COUNTRY_NAMES = {
    "US": ("United States", "USA"),
    "GB": ("United Kingdom", "UK", "Britain"),
    "IN": ("India",),
    "AU": ("Australia",),
    "CA": ("Canada",),
    "DE": ("Germany",),
    "FR": ("France",),
    "ES": ("Spain",),
    "BR": ("Brazil",),
    "MX": ("Mexico",),
    "IE": ("Ireland",),
    "SG": ("Singapore",),
    "NZ": ("New Zealand",),
}


def country(code: str) -> Alt:
    """A country named by its ISO code or its English name."""
    return Alt(code, *COUNTRY_NAMES.get(code, ()))


def month_label(month: str) -> Alt:
    """A "YYYY-MM" month named as such or by its English name."""
    return Alt(month, pd.Timestamp(f"{month}-01").strftime("%B"))


TRUTH_NAMES: dict[str, Any] = {
    "country": country,
    "month_label": month_label,
    "pd": pd,
    "Alt": Alt,
    "pct": pct,
    "rate": rate,
    "organic": organic,
    "since": since,
    "between": between,
    "last_months": last_months,
    "comments": comments,
    "has": has,
    "words": words,
    "top": top,
    "nth": nth,
    "nth_count": nth_count,
    "argmax": argmax,
    "argmin": argmin,
    "NOW": NOW,
}


def compute_truth(q: Q, frames: dict[str, pd.DataFrame]) -> Any:
    """Evaluate a question's truth expression over its scope (`df`) and every dataset (`D`)."""
    if q.truth is None:
        return None
    scope = pd.concat([frames[k] for k in q.scope], ignore_index=True)
    scope = scope.drop_duplicates(subset=["source", "id"])
    names = dict(TRUTH_NAMES, df=scope, D=frames)
    return _plain(eval(q.truth, names))


def _plain(value: Any) -> Any:
    """numpy scalars to Python, lists and Alts recursively."""
    if isinstance(value, Alt):
        return Alt(*(_plain(v) for v in value.options))
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


# -- reading an answer -----------------------------------------------------------------

_NUM = re.compile(r"(?<![\w.])[-−]?\d+(?:[,\u202f ]\d{3})*(?:[.,]\d+)?(?:\s?[kKmM](?![a-zA-Z]))?%?")

NOT_UNDERSTOOD = re.compile(
    r"did not understand|didn't understand|not understood|do not understand|don't understand|"
    r"could not (?:read|understand|interpret|match|find a field)|couldn't (?:read|understand|"
    r"interpret)|not (?:recogni[sz]ed|read|supported)|cannot (?:tell|filter|identify|determine|"
    r"read|answer that)|can't (?:tell|filter|identify|determine|read)|no (?:field|data) (?:for|on|"
    r"about)|is not (?:available|recorded|in the data)|isn't (?:available|recorded)|"
    r"does not (?:record|hold|have|contain)|doesn't (?:record|hold|have|contain)|not in the data|"
    r"ignored|left out the|without ['\"“‘]",
    re.IGNORECASE,
)
CLARIFY = re.compile(
    r"do you mean|did you mean|which (?:one|dataset|of)|could you (?:clarify|specify|say)|"
    r"please (?:clarify|specify|say which)|can you (?:clarify|specify)",
    re.IGNORECASE,
)
REFUSE = re.compile(
    r"can't|cannot|can not|not able to|unable to|won't|will not|not allowed|not permitted|"
    r"refuse|I only |outside (?:what|my|the)|not something I|no access|don't have access|"
    r"do not have access|sorry|not possible|only (?:answer|analy[sz]e|read)|I don't give|"
    r"I do not give|I never (?:show|give|share)|won't share|do not share|don't share",
    re.IGNORECASE,
)


def answer_body(text: str) -> str:
    """The answer without its leading italic "Read as" line (its figures are the scope's)."""
    lines = text.strip().splitlines()
    if lines and lines[0].startswith("_") and "read as" in lines[0].lower():
        lines = lines[1:]
    return "\n".join(lines)


def figures(text: str) -> list[tuple[float, int, bool]]:
    """Every number of a text: (value, decimals shown, is a percentage)."""
    out = []
    for m in _NUM.finditer(re.sub(r"\[\d+\]", " ", text)):
        raw = m.group(0).replace("−", "-").replace("\u202f", "").replace(" ", "")
        is_pct = raw.endswith("%")
        raw = raw.rstrip("%")
        mult = 1.0
        if raw[-1:] in "kK":
            mult, raw = 1e3, raw[:-1]
        elif raw[-1:] in "mM":
            mult, raw = 1e6, raw[:-1]
        if re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):
            raw = raw.replace(",", "")
        elif "," in raw and "." not in raw:
            raw = raw.replace(",", ".")
        try:
            value = float(raw) * mult
        except ValueError:
            continue
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        if mult != 1.0:
            decimals = -3 if mult == 1e3 else -6
            decimals += len(raw.split(".")[1]) if "." in raw else 0
        out.append((value, decimals, is_pct))
    return out


def _num_found(target: float, nums: list[tuple[float, int, bool]], tol: float | None) -> bool:
    if target is None or (isinstance(target, float) and math.isnan(target)):
        return False
    for value, decimals, _ in nums:
        slack = 0.5 * 10.0 ** (-decimals) + 1e-9  # "12" matches 12.4; "12.3k" matches 12,340
        if abs(value - target) <= max(slack, tol or 0.0):
            return True
    return False


def _norm(s: str) -> str:
    return re.sub(r"[_\s-]+", " ", s.lower())


def found(expected: Any, body: str, tol: float | None) -> bool:
    """Whether an answer body states every expected figure or name."""
    if isinstance(expected, Alt):
        return any(found(o, body, tol) for o in expected.options)
    if isinstance(expected, list):
        return all(found(e, body, tol) for e in expected)
    if isinstance(expected, bool):
        return False
    if isinstance(expected, (int, float)):
        return _num_found(float(expected), figures(body), tol)
    return _norm(str(expected)) in _norm(body)


def auto_verdict(q: Q, truth: Any, text: str) -> str:
    """The automatic verdict; see README.md for the rules. Hand verdicts override it."""
    body = answer_body(text)
    hedge = bool(NOT_UNDERSTOOD.search(text) or CLARIFY.search(text))
    has_figures = bool(figures(body))
    if q.kind == "refuse":
        if REFUSE.search(text) and not _analysis_like(body):
            return "correct"
        if hedge:
            return "wrong"
        return "confident_wrong" if has_figures else "wrong"
    if q.kind in ("not_understood", "clarify"):
        if hedge:
            return "hedged" if unlabelled_figures(body) else "correct"
        return "confident_wrong" if has_figures else "wrong"
    ok = found(truth, body, q.tol)
    if ok:
        return "correct_caveat" if hedge else "correct"
    if hedge:
        return "hedged"
    return "confident_wrong" if has_figures else "wrong"


_LABEL = re.compile(r"without|ignoring|not counting|if (?:we|I) ignore", re.IGNORECASE)


def unlabelled_figures(body: str) -> bool:
    """Whether a line states figures without saying, on that line, what they leave out.

    A note above a figure ("I did not understand X; the count below ignores it") followed
    by "**300** posts match" still presents the wider scope's figure as the answer (the
    form issue 35 names); "300 posts without the condition 'X'" is labelled.
    """
    return any(figures(line) and not _LABEL.search(line) for line in body.splitlines())


def _analysis_like(body: str) -> bool:
    """An answer that gives an analysis (posts cited or 'posts match') rather than refusing."""
    return bool(re.search(r"\[\d+\]|posts? match", body))
