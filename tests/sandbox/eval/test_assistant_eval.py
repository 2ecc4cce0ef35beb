"""The assistant's evaluation suite: >= 400 everyday questions over a real sandbox dataset.

Two parts, reported separately: the development cases (``assistant_cases_dev.py``, the
planner was tuned on them) and the held-out cases (``assistant_cases_heldout.py``, written
before the planner and never edited since). Each part must reach 95 %.

- Plan checks run the planner in-process over the vocabulary of the dataset's posts as
  ``POST /v1/mentions`` returns them: intents in order, slots, and no keyword term that
  is not content.
- Answer checks ask over real HTTP (``POST /v1/ask`` then polling the message; follow-ups in
  the same chat) for every case whose intents quote figures, and check the figures against
  the data read through the client: counts and sentiment through ``POST /v1/mentions``
  filters, the rest recomputed from the returned posts with the documented rules. Every
  ``[N]`` must follow the spec's numbering and resolve to a post of the dataset.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import assistant_cases_dev
import assistant_cases_heldout
import httpx
import pytest
from assistant_case import Case
from eval_support import ask_over_http, collect, plan_case, rate, read_all

from rdskit.references import check_references
from rdskit.sandbox import SandboxHandle, assistant
from rdskit.sandbox.assistant.intents import INTENTS, Intent, Vocabulary
from rdskit.sandbox.synth.extractor import stem

NAME = "oat milk"
TARGET = 0.95
DAY = 86_400
OPINION = assistant.OPINION_INTENTS  # ads are left out of these (the documented rule)
MOODLESS = set(INTENTS) - assistant.MOOD_INTENTS  # intents a sentiment slot never narrows
CHECKED = {
    "count",
    "sentiment",
    "complaints",
    "praise",
    "ads",
    "languages",
    "countries",
    "emotions",
    "engagement",
    "top",
    "posts",
    "trend",
    "comments",
    "overview",
    "recommendations",
    "report",
    "topics",
    "brands",
    "authors",
    "compare",
}


@dataclass
class Data:
    """The evaluation dataset: its id, its posts as the API lists them, an HTTP client."""

    http: httpx.Client
    dataset_id: str
    posts: list[dict[str, Any]]
    vocab: Vocabulary = field(init=False)
    answers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.vocab = Vocabulary.of(self.posts, [NAME])
        self.by_key = {(p["source"], p["id"]): p for p in self.posts}

    def query(self, **body: Any) -> list[dict[str, Any]]:
        """Every post of the dataset matching ``body`` through ``POST /v1/mentions``
        (remembered per body: the dataset does not change during the suite)."""
        remembered = json.dumps(body, sort_keys=True)
        if remembered not in self.answers:
            self.answers[remembered] = self._query(body)
        return self.answers[remembered]

    def _query(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        return read_all(self.http, {"dataset_ids": [self.dataset_id], **body})


@pytest.fixture(scope="module")
def data(sandbox: SandboxHandle) -> Iterator[Data]:
    created = sandbox.admin.create_account(plan="Pro")
    headers = {"x-api-key": created.api_key}
    with httpx.Client(base_url=sandbox.url, headers=headers, timeout=30) as http:
        dataset_id = collect(http, NAME, 300)
        loaded = Data(http, dataset_id, read_all(http, {"dataset_ids": [dataset_id]}))
        assert len(loaded.posts) == 300
        yield loaded


# --- plan checks ----------


def _report(name: str, cases: Sequence[Case], vocab: Vocabulary) -> tuple[float, list[str]]:
    passed, failures = rate(cases, vocab)
    print(f"\n{name}: {passed:.1%} of {len(cases)} plans pass", *failures, sep="\n  ")  # -s
    return passed, failures


def test_the_suite_is_big_and_covers_every_style() -> None:
    cases = assistant_cases_dev.CASES + assistant_cases_heldout.CASES
    assert len(cases) >= 400
    styles = Counter(case.style for case in cases)
    for style in (
        "plain",
        "terse",
        "verbose",
        "typo",
        "polite",
        "imperative",
        "multi",
        "follow",
        "fr",
        "es",
        "de",
        "pt",
        "absent",
        "unknown",
    ):
        assert styles[style] >= 4, style
    intents = Counter(name for case in cases for name in case.intents)
    for name in (
        "overview",
        "sentiment",
        "complaints",
        "praise",
        "topics",
        "top",
        "posts",
        "count",
        "authors",
        "compare",
        "trend",
        "questions",
        "hooks",
        "ctas",
        "brands",
        "ads",
        "comments",
        "emotions",
        "languages",
        "countries",
        "engagement",
        "recommendations",
        "report",
    ):
        assert intents[name] >= 4, name


def test_development_plans(data: Data) -> None:
    passed, failures = _report("development", assistant_cases_dev.CASES, data.vocab)
    assert passed >= TARGET, "\n".join(failures)


def test_held_out_plans(data: Data) -> None:
    passed, failures = _report("held-out", assistant_cases_heldout.CASES, data.vocab)
    assert passed >= TARGET, "\n".join(failures)


def test_instruction_words_are_never_search_terms(data: Data) -> None:
    """Whatever the intent, no plan of the suite searches for an instruction word."""
    instruction = {
        "exact",
        "quote",
        "alongside",
        "write",
        "report",
        "average",
        "give",
        "list",
        "show",
        "boss",
        "run",
        "please",
        "tell",
    }
    for case in assistant_cases_dev.CASES + assistant_cases_heldout.CASES:
        for intent in plan_case(case, data.vocab).intents:
            words = {stem(w) for t in intent.slots.terms + intent.slots.missing for w in t.split()}
            assert not words & {stem(w) for w in instruction}, (case.question, intent)


# --- answer checks over HTTP ----------


_ask = ask_over_http


def _label(post: dict[str, Any]) -> str:
    scores = {k: float(v) for k, v in (post.get("sentiment") or {}).items()}
    return max(scores, key=lambda k: (scores[k], k == "neutral")) if scores else "neutral"


def _matches(post: dict[str, Any], intent: Intent) -> bool:
    """The documented term rule: a word term is a stem prefix of a word of title + text."""
    text = f"{post.get('title') or ''}\n{post.get('text') or ''}".lower()
    words = re.findall(r"[^\W_]+(?:['’][^\W_]+)?", text)
    for term in intent.slots.terms:
        if " " in term:
            if not re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text):
                return False
        elif not any(word.startswith(stem(term)) for word in words):
            return False
    brands = {b.lower() for b in post.get("mentioned_brands") or ()}
    for brand in intent.slots.brands:
        if brand.lower() not in brands and not re.search(
            rf"(?<!\w){re.escape(brand.lower())}(?!\w)", text
        ):
            return False
    return all(f"#{tag}" in text for tag in intent.slots.hashtags)


def expected_posts(data: Data, intent: Intent) -> list[dict[str, Any]]:
    """The posts an intent's answer must be about, read through the API's own filters
    (sources, sentiment) and the documented rules (window, dates, ads, terms)."""
    slots, name = intent.slots, intent.name
    body: dict[str, Any] = {}
    if slots.sources and not (name == "compare" and len(slots.sources) >= 2):
        body["sources"] = list(slots.sources)
    if slots.sentiment and name not in MOODLESS:
        body["filters"] = [[{"type": "sentiment", "values": [slots.sentiment]}]]
    posts = data.query(**body)
    if slots.window_days and posts:
        scoped = data.query(sources=body["sources"]) if "sources" in body else data.posts
        newest = max(p["created_at"] for p in scoped)
        posts = [p for p in posts if p["created_at"] > newest - slots.window_days * DAY]
    if slots.since:
        start = datetime(slots.since.year, slots.since.month, slots.since.day, tzinfo=UTC)
        posts = [p for p in posts if p["created_at"] >= start.timestamp()]
    if slots.until:
        end = datetime(slots.until.year, slots.until.month, slots.until.day, tzinfo=UTC)
        posts = [p for p in posts if p["created_at"] < end.timestamp() + DAY]
    # One ads policy per chat (issue 23.4): ads are in every analysis unless asked out.
    if slots.content_type and name != "ads":
        posts = [p for p in posts if (p["content_type"] == "ad") == (slots.content_type == "ad")]
    return [p for p in posts if _matches(p, intent)]


def _num(text: str) -> int:
    return int(text.replace(",", ""))


def _pct(part: float, total: float) -> str:
    return f"{100 * part / total:.1f}%" if total else "0.0%"


def _table(text: str, title: str) -> list[list[str]]:
    block = text.split(f"**{title}**\n\n", 1)[1].split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines()[2:]]


_FIELDS = {"views": "num_views", "likes": "num_likes", "comments": "num_comments",
           "shares": "num_shares", "engagement rate": "engagement_rate"}  # fmt: skip
_STATISTICS: dict[str, Callable[[list[float]], float]] = {
    "mean": statistics.fmean, "median": statistics.median, "sum": sum, "min": min, "max": max,
}  # fmt: skip


def _one_statistic(text: str, posts: Sequence[dict[str, Any]]) -> bool:
    """A compositional answer of one statistic ("The mean of likes is **2,267.21**"):
    checked against the posts (True), or not such an answer (False)."""
    found = re.search(r"The (\w+) of ([a-z ]+) is \*\*([-\d,.]+)\*\*", text)
    if found is None or found[2] not in _FIELDS:
        return False
    values = [float(p[_FIELDS[found[2]]]) for p in posts]
    want = _STATISTICS[found[1]](values)
    assert abs(float(found[3].replace(",", "")) - want) <= max(5e-6, abs(want) * 1e-4), found[0]
    return True


def check_section(data: Data, intent: Intent, text: str) -> None:
    """The figures of one section against the data."""
    name = intent.name
    if intent.slots.missing:
        for term in intent.slots.missing:
            assert f'"{term}"' in text
        # A count of an absent term is 0, said plainly (the compositional reader).
        assert "Overview of" in text or (name == "count" and "**0** posts match" in text)
        return
    posts = expected_posts(data, intent)
    if not posts and name not in ("count", "ads"):
        assert "Overview of" in text, text
        return
    if name == "count":
        share = re.search(r"\*\*[\d.]+%\*\*: ([\d,]+) of the", text)  # "what percentage"
        found = share or re.search(r"\*\*([\d,]+)\*\* posts? match", text)
        assert found and _num(found[1]) == len(posts), (text[:300], len(posts))
    elif name in ("sentiment", "complaints", "praise"):
        labels = Counter(map(_label, posts))
        if name == "sentiment":
            for label in ("positive", "neutral", "negative"):
                part = f"**{labels[label]:,}** {label} ({_pct(labels[label], len(posts))})"
                assert part in text, (part, text[:400])
        else:
            mood = "negative" if name == "complaints" else "positive"
            assert f"**{labels[mood]:,}** of the {len(posts):,} post" in text, text[:300]
    elif name == "ads":
        ads = [p for p in posts if p["content_type"] == "ad"]
        if ads:
            assert f"**{len(ads):,}** ad" in text and f"the {len(posts):,} post" in text
            rows = _table(text, "Advertisers")
            advertisers = Counter(p["ad_meta"]["advertiser_name"] for p in ads)
            assert {r[0]: _num(r[1]) for r in rows} == dict(advertisers)
    elif name in ("languages", "countries"):
        fieldname = "language" if name == "languages" else "country_code"
        title = "Posts by language" if name == "languages" else "Posts by country"
        counts = Counter(str(p.get(fieldname) or "unknown") for p in posts)
        assert {r[0]: _num(r[1]) for r in _table(text, title)} == dict(counts)
    elif name == "emotions":
        emotions = {r[0]: _num(r[1]) for r in _table(text, "Emotions")}
        keys = {(p["source"], p["id"]) for p in posts}
        for emotion, count in emotions.items():
            through_api = data.query(filters=[[{"type": "dominant_emotion", "values": [emotion]}]])
            assert count == sum((p["source"], p["id"]) in keys for p in through_api), emotion
        assert sum(emotions.values()) == len(posts)
    elif _one_statistic(text, posts):
        return  # the compositional reader answered the one statistic asked, checked above
    elif name == "engagement":
        rates = [float(p["engagement_rate"]) for p in posts]
        single = re.search(r"The (mean|median) of engagement rate is \*\*([\d.]+)\*\*", text)
        grouped = re.search(r"\*\*(Mean|Median) engagement rate by source\*\*", text)
        if grouped:  # the compositional reader's table: one statistic per source
            method = statistics.fmean if grouped[1] == "Mean" else statistics.median
            title = f"{grouped[1]} engagement rate by source"
            for source, value, _ in _table(text, title):
                rates = [float(p["engagement_rate"]) for p in posts if p["source"] == source]
                assert abs(float(value) - method(rates)) < 5e-6, (source, value)
        elif single:  # one statistic asked: the compositional reader answers it alone
            method = statistics.fmean if single[1] == "mean" else statistics.median
            assert abs(float(single[2]) - method(rates)) < 5e-6, (single[0], method(rates))
        elif "the 5 posts with the highest engagement rate" not in text:
            assert f"mean **{100 * statistics.fmean(rates):.2f}%**" in text
            assert f"median **{100 * statistics.median(rates):.2f}%**" in text
    elif name == "overview":
        assert f"**{len(posts):,}** post" in text
    elif name == "comments":
        bodies = [c for p in posts for c in p.get("comments") or () if c["body"].strip()]
        commented = {(p["source"], p["id"]) for p in posts if p.get("comments")}
        assert f"**{len(bodies):,}** comment" in text and f"**{len(commented):,}** post" in text


def _top_order(data: Data, intent: Intent, reply: dict[str, Any]) -> None:
    """A top-posts answer cites the first N posts of the metric's ranking, in order."""
    metric = intent.slots.metric or "engagement"
    fields = {
        "views": "num_views",
        "likes": "num_likes",
        "comments": "num_comments",
        "shares": "num_shares",
    }

    def value(post: dict[str, Any]) -> float:
        if metric == "engagement":
            return float(sum(post[f] for f in ("num_likes", "num_comments", "num_shares")))
        if metric == "engagement_rate":
            return float(post["engagement_rate"])
        return float(post[fields[metric]])

    posts = expected_posts(data, intent)
    if intent.slots.order == "lowest":
        ranking = sorted(posts, key=lambda p: (value(p), p["source"], p["id"]))
    else:
        ranking = sorted(posts, key=lambda p: (-value(p), p["source"], p["id"]))
    limit = intent.slots.limit or 5
    cited = [(r["source"], r["id"]) for r in reply["references"] if r["type"] == "post"]
    assert cited[:limit] == [(p["source"], p["id"]) for p in ranking[:limit]]


def answer_problems(data: Data, case: Case, chat_cache: dict[str, str]) -> list[str]:
    """Ask the case over HTTP (after its earlier turns) and check the reply."""
    planned = plan_case(case, data.vocab)
    chat_id = None
    for earlier in case.after:
        chat_id = _ask(data.http, earlier, chat_id, data.dataset_id)["chat_id"]
    reply = _ask(data.http, case.question, chat_id, data.dataset_id)
    text = reply["text"]
    problems = check_references(text, reply["references"])
    if text.startswith("_Read as: a request to system"):  # an injection is refused: no posts
        cited = [r for r in reply["references"] if r["type"] == "post"]
        return [*problems, *(["a refusal cites posts"] if cited else [])]
    cited = [(r["source"], r["id"]) for r in reply["references"] if r["type"] == "post"]
    unread = not planned.understood and "did not understand" in text  # nothing to cite
    if not cited and planned.names != ("ads",) and "**0** posts match" not in text and not unread:
        problems.append("no post cited")
    problems += [f"unknown post {k}" for k in cited if k not in data.by_key]
    sections = re.split(r"^### .*$", text, flags=re.M)[1:] if len(planned.intents) > 1 else [text]
    if len(sections) != len(planned.intents):
        return [*problems, f"{len(sections)} sections for {planned.names}"]
    for intent, section in zip(planned.intents, sections, strict=True):
        try:
            check_section(data, intent, section)
            if (
                intent.name == "top"
                and len(planned.intents) == 1
                and not intent.slots.missing
                and expected_posts(data, intent)
            ):
                _top_order(data, intent, reply)
            if intent.name == "recommendations" and not intent.slots.missing:
                tips = re.findall(r"^\d+\. .*$", section, re.M)
                assert tips and all(re.search(r"\[\d+\]", tip) for tip in tips), section
        except AssertionError as error:
            problems.append(f"{intent.name}: {str(error)[:300]}")
    if not planned.understood:  # an overview, or the words named and no answer at all
        assert "did not recognise" in text or ("did not understand" in text and not cited)
    return problems


@pytest.mark.parametrize("part", ["development", "held-out"])
def test_answers_quote_the_data(data: Data, part: str) -> None:
    cases = assistant_cases_dev.CASES if part == "development" else assistant_cases_heldout.CASES
    checked = [case for case in cases if set(case.intents) & CHECKED]
    failures = []
    cache: dict[str, str] = {}
    for case in checked:
        problems = answer_problems(data, case, cache)
        if problems:
            failures.append(f"{case.question!r}: {'; '.join(problems)}")
    passed = 1 - len(failures) / len(checked)
    print(f"\n{part} answers: {passed:.1%} of {len(checked)} pass", *failures, sep="\n  ")
    assert passed >= TARGET, "\n".join(failures)
