"""The sandbox assistant: a deterministic analytic engine that answers Ask questions.

No language model runs here. :func:`answer` plans the question with the chat's earlier
turns (:mod:`~rdskit.sandbox.assistant.intents`: one or more intents with slots), narrows
the posts per intent, computes the figures (:mod:`~rdskit.sandbox.assistant.posts`) and
writes one markdown section per intent (:mod:`~rdskit.sandbox.assistant.sections`,
:mod:`~rdskit.sandbox.assistant.analyses`). Posts are cited as ``[label](post:source:id)``
links, rewritten once over the whole reply to ``[N]`` markers by the spec's rule
(:func:`rdskit.references.rewrite_post_links`), so a multi-part reply numbers its
citations across all sections. Everything here is a pure function of its inputs; the
database adapter is ``compose_reply`` in ``backend/chats.py``, which REST Ask, ``%%ask``
and the MCP tools ``service__ask`` / ``service__query`` all go through.

Intents: overview, sentiment (split, by source, over time), complaints, praise, topics,
top posts, posts (list/quote), count, authors, compare (sources or datasets), trend
(volume, spikes), questions, hooks, ctas, brands (and co-mentions), ads, comments,
emotions, languages, countries, engagement, recommendations, report, help, and linked
work (patterns, audiences, custom parameters, research previews). See docs/assistant.md.

Narrowing of one intent, in this order (a step that empties the posts is said plainly and
the overview follows, so no answer is a dead end):

1. datasets: ``context.dataset_ids``, else the datasets of the previous turn, else every
   dataset (a tracking agent's datasets in its dialogue chat); a dataset named in the
   question narrows further (:func:`pick_datasets`);
2. ``post_refs`` ("these posts" reuses the previous turn's, or the latest alert's posts);
3. sources (not when comparing them); 4. the time window; 5. content type: ads are left
   out of opinion intents (sentiment, complaints, praise, topics, emotions, questions,
   brands, recommendations) unless the question asks about ads;
6. content terms, brands, hashtags and authors; 7. a sentiment ("top negative posts").

Example:
    >>> posts = [{"source": "reddit", "id": "1", "text": "Love the oat latte",
    ...           "sentiment": {"positive": "0.9", "neutral": "0.1", "negative": "0.0"},
    ...           "datasets": [{"id": "ds_1", "name": "Oat"}], "created_at": 1767225600}]
    >>> reply = answer("How does sentiment split?", posts, [Scope("ds_1", "Oat")])
    >>> reply.intent, reply.references[0]["citation"], "**1** positive (100.0%)" in reply.text
    ('sentiment', 1, True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from rdskit.sandbox.assistant import analyses
from rdskit.sandbox.assistant import figures as figures_of
from rdskit.sandbox.assistant.catalogue import METRICS, Table
from rdskit.sandbox.assistant.dates import (
    TIME_DIMS,
    iso_dates,
    looks_like_date,
    unreadable,
    window_start,
)
from rdskit.sandbox.assistant.frontend import front
from rdskit.sandbox.assistant.intents import INTENTS, Intent, Plan, Vocabulary, plan, taken
from rdskit.sandbox.assistant.posts import (
    Mention,
    aspects_for,
    brands_for,
    engagement,
    key,
    matches,
    period_of,
    sentiment_label,
    words,
)
from rdskit.sandbox.assistant.reader import (
    COMMENT_CARRIES,
    NOT_AN_AD,
    Cond,
    Query,
    Reading,
    read,
    without_thresholds,
)
from rdskit.sandbox.assistant.sections import (
    TITLES,
    Case,
    Related,
    Scope,
    Stats,
    Writer,
    posts_phrase,
    write_related,
)
from rdskit.sandbox.assistant.sections import WRITERS as _SECTION_WRITERS
from rdskit.sandbox.synth.extractor import stem

__all__ = [
    "ASSISTANT_USD_PER_TOKEN",
    "INTENTS",
    "MOOD_INTENTS",
    "OPINION_INTENTS",
    "Related",
    "Reply",
    "Scope",
    "Stats",
    "Turn",
    "answer",
    "chat_name",
    "count_tokens",
    "detect_intent",
    "engagement",
    "inference_cost",
    "period_of",
    "pick_datasets",
    "plan_question",
    "sentiment_label",
]

ASSISTANT_USD_PER_TOKEN = Decimal("0.00001")
"""Inference price: USD per token of question, context and answer (10 USD per million)."""

_TOKEN = re.compile(r"\w+|[^\w\s]")
_LINKED_WORK = frozenset({"patterns", "audience", "parameters", "previews"})
OPINION_INTENTS = frozenset(
    {
        "sentiment",
        "complaints",
        "praise",
        "topics",
        "emotions",
        "questions",
        "brands",
        "recommendations",
    }
)
"""Intents about what people think: ads are left out of them unless ads are asked about."""
MOOD_INTENTS = frozenset(INTENTS) - {
    "sentiment",
    "complaints",
    "praise",
    "emotions",
    "compare",
    "recommendations",
    "report",
    "overview",
}
"""Intents a sentiment slot narrows ("top negative posts"); the others split by sentiment."""
_REPORT_PARTS = ("overview", "sentiment", "complaints", "praise", "top", "recommendations")
_REPORT_TOP = 3
_DAY = 86_400
_NOT_UNDERSTOOD = (
    "_I did not recognise a question there, so this is the overview of the data. You can "
    "also ask about sentiment, complaints, praise, topics, top posts, counts, authors, "
    "comparisons, trends, questions, hooks, CTAs, brands, ads, comments, emotions, "
    "languages, countries, engagement, recommendations or a short report._"
)
WRITERS = {**_SECTION_WRITERS, **analyses.WRITERS}
"""Section writer per intent (report and linked work are composed here)."""


@dataclass(frozen=True)
class Turn:
    """An earlier user turn of the chat: its text and the context it was sent with."""

    text: str
    dataset_ids: Sequence[str] | None = None
    post_refs: Sequence[Mapping[str, str]] = ()


@dataclass
class Reply:
    """The assistant's reply: rewritten markdown, typed references and render blocks.

    ``intent`` is the first intent of the plan (``plan`` holds them all); ``posts`` lists the
    analysed posts as (source, id); ``figures`` holds the numbers the text quotes (one
    section's figures, or a dict of them per intent for a multi-part reply).
    """

    text: str
    references: list[dict[str, Any]]
    blocks: list[dict[str, Any]]
    intent: str
    posts: list[tuple[str, str]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    plan: Plan | None = None


# --- small public helpers (shared with the routes, the MCP server and tests) -------------


def detect_intent(question: str) -> str:
    """The kind of question: the first intent of its plan (``overview`` when nothing is
    recognised).

    Example:
        >>> detect_intent("Top posts by views?"), detect_intent("What do people hate?")
        ('top', 'complaints')
    """
    return plan(question).intents[0].name


def plan_question(
    question: str,
    mentions: Sequence[Mention],
    scope: Sequence[Scope],
    history: Sequence[Turn] = (),
) -> Plan:
    """The plan :func:`answer` follows for ``question`` over the scope's posts.

    Example:
        >>> plan_question("How many posts? And top 3 by likes", [], [Scope("ds_1", "Oat")]).names
        ('count', 'top')
    """
    scope = _named(question, scope) or scope
    vocab = Vocabulary.of(_in_scope(mentions, scope), _searches(scope))
    return plan(question, vocab, _replay(history, None, (), vocab)[1])


def _replay(
    history: Sequence[Turn], table: Table | None, names: Sequence[str], vocab: Vocabulary
) -> tuple[tuple[Query, ...], list[Plan]]:
    """The chat's earlier turns replayed once, oldest first: the figure queries of the
    last turn that had any (what "those" and "and on TikTok?" refer to) and the plan of
    every turn (the intents a follow-up repeats). Without a ``table``, plans only."""
    previous: tuple[Query, ...] = ()
    plans: list[Plan] = []
    for turn in history:
        if table is not None:
            earlier = read(turn.text, table, names, previous)
            previous = earlier.queries or previous
        plans.append(plan(turn.text, vocab, plans))
    return previous, plans


def count_tokens(*texts: str) -> int:
    """A simple tokenizer for billing: each word and each punctuation mark is one token.

    Example:
        >>> count_tokens("How many posts?", "12 posts.")
        7
    """
    return sum(len(_TOKEN.findall(text)) for text in texts)


def inference_cost(tokens: int) -> Decimal:
    """USD charged for ``tokens`` tokens of inference.

    Example:
        >>> inference_cost(1500)
        Decimal('0.01500')
    """
    return ASSISTANT_USD_PER_TOKEN * tokens


def chat_name(question: str, names: Iterable[str] = (), dataset: str | None = None) -> str:
    """A short chat name from a chat's first question (given once the chat has two turns).

    ``names`` (dataset names and search texts) are left out of the topic; ``dataset``
    (the one dataset the chat is about) completes a name without a topic.

    Example:
        >>> chat_name("What do people complain about regarding the price?")
        'Complaints about price'
        >>> chat_name("Top posts on tiktok?"), chat_name("Top posts?", dataset="Oat milk")
        ('Top posts on tiktok', 'Top posts in Oat milk')
    """
    planned = plan(question, Vocabulary.of([], list(names)))
    first = planned.intents[0]
    title = " and ".join(dict.fromkeys(TITLES[i.name] for i in planned.intents[:2]))
    topic = [*first.slots.terms, *first.slots.missing, *first.slots.brands]
    if topic:
        title += " about " + " ".join(topic[:3])
    elif first.slots.sources:
        title += " on " + " and ".join(first.slots.sources[:2])
    elif dataset:
        title += f" in {dataset}"
    return title[:60]


def pick_datasets(
    turns: Sequence[Turn], datasets: Sequence[Scope], default: Sequence[str] | None = None
) -> tuple[list[Scope], list[str]]:
    """The datasets the last of ``turns`` is about, and the ids it asked for that are missing.

    Each turn starts from its ``dataset_ids``, else the previous turn's datasets, else
    ``default`` (every dataset when ``None``); datasets named in its text narrow that. A
    follow-up of a turn whose every id was missing is about those missing ids too.

    Example:
        >>> oat, soy = Scope("ds_1", "Oat"), Scope("ds_2", "Soy")
        >>> pick_datasets([Turn("Soy only?"), Turn("And sentiment?")], [oat, soy])
        ([Scope(id='ds_2', name='Soy', searches=())], [])
    """
    known = {item.id: item for item in datasets}
    current = [known[i] for i in default if i in known] if default is not None else list(datasets)
    missing: list[str] = []
    for turn in turns:
        if turn.dataset_ids:
            current = [known[i] for i in turn.dataset_ids if i in known]
            missing = [i for i in turn.dataset_ids if i not in known]
        elif current:
            missing = []
        # else the follow-up of a turn that found none of its datasets: still missing (it
        # read "This account has no datasets yet" and was charged for reading nothing)
        current = _named(turn.text, current) or current
    return current, missing


def _named(text: str, datasets: Sequence[Scope]) -> list[Scope]:
    """The datasets whose name the text contains."""
    lowered = text.lower()
    return [item for item in datasets if item.name and item.name.lower() in lowered]


# --- the engine ------------------------------------------------------------------------------


def answer(
    question: str,
    mentions: Sequence[Mention],
    scope: Sequence[Scope],
    *,
    post_refs: Sequence[Mapping[str, str]] = (),
    history: Sequence[Turn] = (),
    earlier_posts: Sequence[tuple[str, str]] = (),
    related: Sequence[Related] = (),
    unknown_dataset_ids: Sequence[str] = (),
    today: date | None = None,
    table: Table | None = None,
) -> Reply:
    """Answer ``question`` over ``mentions`` (spec Mention dicts with ``datasets``).

    ``scope`` lists the datasets the answer uses (see :func:`pick_datasets`); a dataset
    named in the question narrows it.
    ``post_refs`` focuses the answer on those posts. ``history`` holds the chat's earlier
    user turns, oldest first, for follow-ups; ``earlier_posts`` are the posts "these
    posts" means when no earlier turn chose any (a tracking alert's new posts).
    ``related`` is work linked to the datasets; ``unknown_dataset_ids`` (requested but
    absent) are reported. ``table`` is the scope's posts already read
    (:class:`~rdskit.sandbox.assistant.catalogue.Table`, from the per-dataset cache);
    it must hold exactly the posts of ``scope``. ``today`` is the sandbox clock's date: "in
    March" without posts means the latest March up to it.

    Figure questions (counts, shares, statistics, groupings) are read by the
    compositional reader (:mod:`~rdskit.sandbox.assistant.reader`); refusals and data
    that is not collected are answered first; everything else goes to the intent planner,
    with the filters the reader found on dimensions the planner has no slot for.
    """
    named = _named(question, scope)
    scope = named or scope
    if table is None or named:
        posts = _in_scope(mentions, scope)
        table = Table(posts)
    posts = list(table.posts)
    searches = _searches(scope)
    ads = _ads_policy([*(turn.text for turn in history), question])
    # The words that set the policy ("leave ads out") are not a topic or a filter; written
    # dates become ISO ones here so the figure reader and the planner apply the same day.
    newest = table.newest()
    anchor = datetime.fromtimestamp(newest, UTC).date() if newest else today
    asked = iso_dates(_policy_said(question), anchor)
    earlier = [replace(turn, text=_policy_said(turn.text)) for turn in history]
    vocab = table.derived(
        ("vocab", tuple(searches), today), lambda: Vocabulary.of(list(table.posts), searches, today)
    )
    previous, plans = _replay(earlier, table, searches, vocab)
    reading = read(asked, table, searches, previous)
    if reading.refusal is not None or reading.not_collected is not None:
        return _refuse(reading, scope)
    if reading.comment_only:
        return _not_of_comments(reading.comment_only, table, scope)
    selected = post_refs or (reading.follow_up and _focus(True, (), history, earlier_posts)[0])
    pointer = _pointer(asked) if not history and not post_refs and not earlier_posts else None
    if reading.queries and _ABOUT_IT.search(asked):
        pass  # "how many posts mention it": the condition is what the word stands for
    elif reading.queries or reading.conditions or len(scope) < 2:
        pointer = None  # of one dataset, "it" is what the dataset is about
    if reading.queries and scope and posts and not selected and not pointer:
        return _figures(reading, table, scope, ads, unknown_dataset_ids, posts)
    planned = plan(without_thresholds(asked), vocab, plans)
    # "which one": one of the datasets, by a measure not said; "it" of an analysis that
    # does not depend on a measure ("what do people like about it?") is the subject
    measured = not planned.understood or set(planned.names) <= _MEASURED
    if pointer and (pointer != "it" or measured):
        return _clarify(pointer, scope, planned)
    subjects = {_SUBJECT.get(name) for name in planned.names}
    extra = [c for c in reading.conditions if c.dim in _EXTRA_DIMS and c.dim not in subjects]
    timed = any(i.slots.since or i.slots.until or i.slots.window_days for i in planned.intents)
    if not timed:  # a period the planner's slots did not take ("in Q3", "this month")
        extra += [c for c in reading.conditions if c.dim in TIME_DIMS]
    narrowed = ""
    if extra:
        narrowed = " and ".join(figures_of.describe_conds(extra, table))
        posts = [table.posts[i] for i in figures_of.select(extra, table)]
        if not posts:
            out = Writer(planned.intents[0].name)
            out.line(f"_Read as: posts in {_where(scope)} where {narrowed}._")
            out.line()
            out.line(
                f"None of the {posts_phrase(len(table.posts))} in {_where(scope)} match"
                f" that ({narrowed})."
            )
            return _reply(out, scope, [], [], planned)
    out = Writer(planned.intents[0].name)
    if unknown_dataset_ids:
        missing = ", ".join(f"`{dataset_id}`" for dataset_id in unknown_dataset_ids)
        out.line(f"I couldn't find these datasets in your account: {missing}.")
    if not scope and "previews" not in planned.names:
        if not unknown_dataset_ids:
            out.line(
                "This account has no datasets yet, so I have no posts to answer from. Create "
                "one with `POST /v1/datasets` and start a run to collect posts."
            )
        return _reply(out, [], [], [], planned)
    context = _Context(
        scope=list(scope),
        posts=posts,
        focus=_focus(planned.refers_back, post_refs, history, earlier_posts),
        related=related,
        brands=tuple(dict.fromkeys((*brands_for(_searches(scope)), *vocab.brands.values()))),
        follow_up=planned.follow_up,
        ads_out=ads == "out",
        narrowed=narrowed,
        newest=newest,
    )
    multi = len(planned.intents) > 1
    figures: dict[str, Any] = {}
    cited: list[Related] = []
    used: dict[tuple[str, str], Mention] = {}
    for intent in planned.intents:
        if multi:
            out.line(f"### {TITLES[intent.name]}")
            out.line()
        out.figures = {}
        cited += _section(out, intent, context, used)
        figures[intent.name] = out.figures
        out.line()
    dated = timed or _narrowed_in_time(reading)
    # A date no reader could apply is never dropped silently, even when another period
    # of the question applies ("the last 10 years since 31 Feb 2026").
    dates = [*unreadable(asked), *([] if dated else filter(looks_like_date, reading.unknown))]
    if planned.understood and dates:
        words = ", ".join(f"'{word}'" for word in dict.fromkeys(dates))
        rest = "ignores it" if dated else "covers all dates"
        out.lines.insert(1, f"**I did not understand {words} as a date; the answer below {rest}.**")
    ignored = [
        front(question).written(word)  # named as the asker wrote it
        for word in _not_planned(reading.unknown, planned)
        if not looks_like_date(word)
    ]
    if planned.understood and ignored:  # never an analysis of a wider scope as the answer
        words = " or ".join(f"'{word}'" for word in ignored)
        out.lines.insert(
            1,
            f"**I did not understand {words}**, so nothing below answers the"
            " question as asked: it is the analysis"
            f" **{figures_of.without(ignored).lower()}** (a wider scope than"
            " asked, not the answer).",
        )
    if not planned.understood:
        if reading.unknown:  # a question not read is not answered with an overview
            return _unread(reading.unknown, scope, planned)
        out.line(_NOT_UNDERSTOOD)
    about = [item for item in related if item.topic.rstrip("s") in question.lower()]
    about = [item for item in about if item not in cited]
    if about:
        out.line()
        out.line("Related work on these datasets:")
        out.lines.extend(f"- {item.label} (`{item.id}`)" for item in about)
    out.figures = figures if multi else figures[planned.intents[0].name]
    return _reply(out, scope, [*cited, *about], list(used.values()), planned)


def _unread(words: Sequence[str], scope: Sequence[Scope], planned: Plan) -> Reply:
    """The reply to a question no reader could read, with words it could not: the words
    named, and no overview (an answer to another question is not the answer)."""
    out = Writer(planned.intents[0].name)
    said = " or ".join(f"'{word}'" for word in dict.fromkeys(words))
    out.line(
        f"**I did not understand {said}**, so I give no answer (an overview would answer"
        f" another question). I only answer questions about the posts of {_where(scope)}:"
        ' for example "How many posts are negative?", "Which source has the most posts?",'
        ' "What do people complain about?" or "Posts per month".'
    )
    return _reply(out, scope, [], [], planned)


_POINTERS = ("it", "one", "ones")  # "they" is most often people, "this" a noun's article
_MEASURED = frozenset({"overview", "compare", "trend", "count"})
"""Analyses whose answer depends on which measure 'it' is ("Is it going up?")."""
_POINTER = re.compile(rf"\b({'|'.join(_POINTERS)})\b")
_ABOUT_IT = re.compile(
    r"\b(?:mention|mentions|mentioning|mentioned) (?:it|them)\b",
    re.IGNORECASE,
)
"""A pointer in a condition's place ("how many posts mention it"): the condition is what
the word stands for, which only an earlier turn could say."""


def _pointer(question: str) -> str | None:
    """The word a short question points back with ("Which one did better?", "Is it going
    up?") when it names nothing else to read: a word only an earlier turn could settle."""
    english = front(question).english
    if len(english.split()) > 8:
        return None
    found = _POINTER.search(english)
    return None if found is None else found[1]


def _clarify(pointer: str, scope: Sequence[Scope], planned: Plan) -> Reply:
    """A short clarifying question instead of a figure: with nothing earlier in the chat,
    '{pointer}' could be any dataset and any measure, and each reading has its own figure."""
    out = Writer(planned.intents[0].name)
    names = " or ".join(f"**{item.name}**" for item in scope) or "your datasets"
    out.line(
        f"**Which do you mean by '{pointer}'?** Nothing earlier in this chat says, and each"
        f" reading gives another figure. Say the dataset ({names}) and the measure: for"
        ' example "Which dataset has more posts?", "Which dataset has the higher average'
        ' likes?" or "Posts per month" for whether the volume goes up.'
    )
    return _reply(out, scope, [], [], planned)


def _not_planned(unknown: Sequence[str], planned: Plan) -> list[str]:
    """The words the figure reader could not read that the intent planner did not take
    either (:func:`~rdskit.sandbox.assistant.intents.taken`).

    >>> _not_planned(["complain", "zqrtvx"], plan("What do people complain about zqrtvx?"))
    []
    """
    used = taken(planned)
    return [w for w in unknown if not {stem(x) for x in re.findall(r"\w+", w.lower())} & used]


def _narrowed_in_time(reading: Reading) -> bool:
    """Whether the figure reader applied a time condition of the question."""
    return any(condition.dim in TIME_DIMS for condition in reading.conditions)


_EXTRA_DIMS = frozenset(
    {
        "language",
        "country",
        "emotion",
        "intention",
        "tone",
        "hook",
        "cta",
        "topic",
        "media",
        "comment",
        "author",
        *METRICS,
    }
)
"""Filters the intent planner has no slot for (metric thresholds included): the reader's
conditions narrow its posts."""
_SUBJECT = {
    "emotions": "emotion",
    "languages": "language",
    "countries": "country",
    "hooks": "hook",
    "ctas": "cta",
    "topics": "topic",
    "comments": "comment",
    "authors": "author",
}
"""Intents about a dimension: its values in the question are the subject, not a filter."""
_ADS_OUT = re.compile(
    r"\b(leave|leaving|keep|exclude|excluding|ignore|ignoring|drop|without|no|remove)"
    r" (the |all |any )?(ads|adverts|sponsored posts)( out)?\b"
)
_ADS_IN = re.compile(r"\b(include|including|keep|with|count) (the |all )?(ads|adverts)( in)?\b")


_ADS_SAID = re.compile(
    rf"(?:{_ADS_OUT.pattern})|\b(?:include|including) (?:the |all )?(?:ads|adverts)(?: in)?\b",
    re.IGNORECASE,
)
"""How a question sets the ads policy, taken out of what is read as its topic and filters."""


def _policy_said(text: str) -> str:
    """``text`` without the words that set the chat's ads policy: "What do people complain
    about, leaving ads out?" asks about complaints, not about ads.

    >>> _policy_said("Leaving ads out: what do people complain about most?")
    ': what do people complain about most?'
    """
    return _ADS_SAID.sub("", text).strip()


def _ads_policy(texts: Sequence[str]) -> str:
    """``in`` or ``out``: the chat's ads policy, set by the last turn that says one."""
    policy = "in"
    for text in texts:
        lowered = text.lower()
        if _ADS_OUT.search(lowered):
            policy = "out"
        elif _ADS_IN.search(lowered) and "only" not in lowered:
            policy = "in"
    return policy


def _refuse(reading: Reading, scope: Sequence[Scope]) -> Reply:
    """A request Ask does not carry out, or data that is not collected: said plainly."""
    out = Writer("refuse")
    if reading.refusal is not None:
        out.line(
            f"_Read as: a request to {reading.refusal.topic} (not a question about the"
            " posts); nothing was changed and no data work was charged._"
        )
        out.line()
        out.line(reading.refusal.answer)
    else:
        topic = reading.not_collected
        out.line(f"_Read as: a question about {topic}._")
        out.line()
        out.line(
            f"The service does not collect {topic}, so I can't"
            " answer that from these posts. What a post carries is listed in the Mention"
            " fields of `POST /v1/mentions` (author name and profile link, country, language,"
            " metrics and the analyses)."
        )
    entities = [{"type": "dataset", "id": item.id} for item in scope]
    text, references, blocks = out.finish()
    return Reply(text, references + entities, blocks, "refuse", [], {}, None)


def _not_of_comments(conds: Sequence[Cond], table: Table, scope: Sequence[Scope]) -> Reply:
    """A count of comments by what only posts carry ("how many comments are negative"):
    said plainly, with no figure (one that dropped the condition, or counted the posts,
    would answer another question)."""
    said = " and ".join(figures_of.describe_conds(conds, table))
    out = Writer("refuse")
    out.line(f"_Read as: a count of the comments themselves where {said}._")
    out.line()
    out.line(
        f"**I can't count the comments where {said}: a collected comment carries only"
        f" {COMMENT_CARRIES}, and I read comments by their text.** No figure is given rather"
        " than one that leaves this condition out. Posts carry it: ask about the comments on"
        f" posts where {said}, or about the comments that mention a word"
        ' ("How many comments mention the price?").'
    )
    entities = [{"type": "dataset", "id": item.id} for item in scope]
    text, references, blocks = out.finish()
    return Reply(text, references + entities, blocks, "refuse", [], {}, None)


def _figures(
    reading: Reading,
    table: Table,
    scope: Sequence[Scope],
    ads: str,
    unknown_dataset_ids: Sequence[str],
    posts: Sequence[Mention],
) -> Reply:
    """One section per figure query, each with its read-as line."""
    out = Writer("count")
    if unknown_dataset_ids:
        missing = ", ".join(f"`{dataset_id}`" for dataset_id in unknown_dataset_ids)
        out.line(f"I couldn't find these datasets in your account: {missing}.")
    where = _where(scope)
    ads_count = sum(1 for post in posts if analyses.is_ad(post))
    found: list[dict[str, Any]] = []
    multi = len(reading.queries) > 1
    for number, query in enumerate(reading.queries, start=1):
        base: tuple[Cond, ...] = ()
        if ads == "out" and not any(c.dim == "content_type" for c in query.where + query.part):
            base = (NOT_AN_AD,)
            query = replace(query, where=(*query.where, NOT_AN_AD))
            said = "ads left out (this chat's policy)" + analyses.unknown_type_note(posts)
        elif any(c.dim == "content_type" for c in query.where + query.part):
            said = "ads as filtered"
        else:
            said = f"ads included ({posts_phrase(ads_count, noun='ad')} in scope)"
        if multi:
            out.line(f"### Part {number}")
            out.line()
        if reading.follow_up and number == 1:
            changed = reading.edited and figures_of.edit(reading.edited, query, table)
            said += f"; continuing the previous question ({changed or 'the same figure'})"
        found.append(figures_of.write(out, query, table, where, said, base))
        out.line()
    text, references, blocks = out.finish()
    entities = [{"type": "dataset", "id": item.id} for item in scope]
    cited = {(r["source"], r["id"]) for r in references if r.get("type") == "post"}
    figures = {"parts": found} if multi else found[0]
    return Reply(text, references + entities, blocks, "count", sorted(cited), figures, None)


@dataclass
class _Context:
    """What every section of one reply shares."""

    scope: list[Scope]
    posts: list[Mention]
    focus: tuple[set[tuple[str, str]], str]
    related: Sequence[Related]
    brands: tuple[str, ...]
    follow_up: bool = False
    ads_out: bool = False
    narrowed: str = ""
    newest: float = 0.0
    """The newest post of the scope: where "the last 30 days" end, as on the figure path."""
    # Per-post work shared by every section of the reply (sentiment, text, theme cover).
    labels: dict[tuple[str, str], str] = field(default_factory=dict)
    texts: dict[tuple[str, str], str] = field(default_factory=dict)
    covers: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    pool: list[tuple[tuple[str, str], str, str]] = field(default_factory=list)


def _section(
    out: Writer,
    intent: Intent,
    context: _Context,
    used: dict[tuple[str, str], Mention],
    level: str = "###",
) -> list[Related]:
    """Write one intent's section; returns the linked work it cites."""
    where = _where(context.scope)
    name = intent.name
    if name in _LINKED_WORK:
        return write_related(out, _case(intent, [], context), where)
    if name == "help":
        WRITERS["help"](out, _case(intent, context.posts, context))
        return []
    if not context.posts:
        out.line(
            f"There are no collected posts in {where} yet (a run may still be in progress), "
            "so I can't answer that."
        )
        return []
    if name == "report":
        cited: list[Related] = []
        for part in _REPORT_PARTS:
            slots = intent.slots
            if part == "top":
                slots = replace(slots, limit=slots.limit or _REPORT_TOP)
            out.line(f"{level}# {TITLES[part]}")
            out.line()
            out.figures = {}
            cited += _section(out, Intent(part, slots, intent.clause), context, used, level + "#")
            out.line()
        return cited
    posts, basis, empty = _narrow(intent, context)
    if empty is not None:
        out.line(empty)
        out.line()
        out.line(f"Overview of {where} instead:")
        out.line()
        overview = Intent("overview", clause=intent.clause)
        used.update((key(post), post) for post in context.posts)
        WRITERS["overview"](out, _case(overview, context.posts, context))
        return []
    if context.narrowed:
        basis += f", where {context.narrowed}"
    if context.follow_up:
        basis += " (continuing the previous question)"
    ads = "ads left out (this chat's policy)" if context.ads_out else "ads included"
    if "ads only" in basis or "organic posts only" in basis:
        ads = "ads as filtered above"
    out.line(
        f"_Read as: {TITLES[name].lower()} of {posts_phrase(len(posts))} in {where}{basis}; {ads}._"
    )
    out.line()
    used.update((key(post), post) for post in posts)
    case = _case(intent, posts, context)
    WRITERS[name](out, case)
    if name == "sentiment":
        analyses.write_sentiment_groups(out, case)
    elif name == "trend":
        analyses.write_spikes(out, case)
    elif name == "brands":
        analyses.write_co_mentions(out, case)
    return []


def _case(intent: Intent, posts: list[Mention], context: _Context) -> Case:
    return Case(
        intent,
        posts,
        context.scope,
        aspects=_aspects(context.scope, intent.slots.terms),
        brands=context.brands,
        related=context.related,
        universe=context.posts,
        _labels=context.labels,
        _texts=context.texts,
        _covers=context.covers,
        _pool=context.pool,
    )


def _reply(
    out: Writer,
    datasets: Sequence[Scope],
    related: Sequence[Related],
    posts: Sequence[Mention],
    planned: Plan,
) -> Reply:
    text, post_references, blocks = out.finish()
    entities = [{"type": "dataset", "id": item.id} for item in datasets]
    entities += [{"type": item.type, "id": item.id} for item in dict.fromkeys(related)]
    return Reply(
        text,
        post_references + entities,
        blocks,
        out.intent,
        [key(post) for post in posts],
        out.figures,
        planned,
    )


def _in_scope(mentions: Sequence[Mention], scope: Sequence[Scope]) -> list[Mention]:
    wanted = {item.id for item in scope}
    return [post for post in mentions if {d["id"] for d in post.get("datasets") or []} & wanted]


def _focus(
    refers_back: bool,
    post_refs: Sequence[Mapping[str, str]],
    history: Sequence[Turn],
    earlier_posts: Sequence[tuple[str, str]],
) -> tuple[set[tuple[str, str]], str]:
    """The posts the question is limited to, and how the basis line names them."""
    if post_refs:
        return {(ref["source"], ref["id"]) for ref in post_refs}, "you selected"
    if refers_back:
        chosen = next((turn.post_refs for turn in reversed(history) if turn.post_refs), ())
        if chosen:
            return {(ref["source"], ref["id"]) for ref in chosen}, "selected earlier"
        if earlier_posts:
            return set(earlier_posts), "of the latest alert"
    return set(), ""


def _narrow(intent: Intent, context: _Context) -> tuple[list[Mention], str, str | None]:
    """The posts one intent is about, the basis line's qualifiers, and a message when a
    step leaves nothing (``None`` when posts remain)."""
    slots, name = intent.slots, intent.name
    posts = context.posts
    where = _where(context.scope)
    basis = ""
    chosen, how = context.focus
    if chosen:
        posts = [post for post in posts if key(post) in chosen]
        basis += f", limited to the {posts_phrase(len(chosen))} {how}"
        if not posts:
            return [], basis, f"None of the posts {how} belong to {where}."
    if slots.sources and not (name == "compare" and len(slots.sources) >= 2):
        present = sorted({post["source"] for post in posts})
        posts = [post for post in posts if post["source"] in slots.sources]
        basis += " from " + " and ".join(slots.sources)
        if not posts:
            return (
                [],
                basis,
                (
                    f"{where[0].upper()}{where[1:]} has no posts from {' or '.join(slots.sources)};"
                    f" its posts come from {', '.join(present)}."
                ),
            )
    posts, basis, empty = _by_time(posts, slots, basis, where, context.newest)
    if empty is not None:
        return [], basis, empty
    if slots.content_type and name != "ads":
        wanted = slots.content_type
        posts = [post for post in posts if (post.get("content_type") == "ad") == (wanted == "ad")]
        basis += ", ads only" if wanted == "ad" else ", organic posts only"
        basis += analyses.unknown_type_note(posts) if wanted != "ad" else ""
        if not posts:
            return [], basis, f"There are no {'ads' if wanted == 'ad' else 'organic posts'} there."
    elif context.ads_out and name != "ads":
        ads = sum(1 for post in posts if analyses.is_ad(post))
        if ads:
            posts = [post for post in posts if not analyses.is_ad(post)]
            basis += f" ({posts_phrase(ads, noun='ad')} left out)"
            basis += analyses.unknown_type_note(posts)
    if slots.missing:
        named = ", ".join(f'"{term}"' for term in slots.missing)
        return [], basis, f"None of the {posts_phrase(len(posts))} in {where} mention {named}."
    if slots.terms or slots.brands or slots.hashtags or slots.authors:
        total = len(posts)
        named = ", ".join(
            f'"{t}"'
            for t in (
                *slots.terms,
                *slots.brands,
                *(f"#{h}" for h in slots.hashtags),
                *slots.authors,
            )
        )
        posts = [
            p for p in posts if matches(p, slots.terms, slots.brands, slots.hashtags, slots.authors)
        ]
        basis += f" mentioning {named}"
        if not posts:
            return [], basis, f"None of the {posts_phrase(total)} in {where} mention {named}."
    if slots.sentiment and name in MOOD_INTENTS:
        total = len(posts)
        posts = [post for post in posts if sentiment_label(post) == slots.sentiment]
        basis += f", {slots.sentiment} posts only"
        if not posts and name != "count":
            return (
                [],
                basis,
                (f"None of the {posts_phrase(total)} in {where} reads as {slots.sentiment}."),
            )
    if not posts and name != "count":
        return [], basis, f"No posts in {where} match."
    return posts, basis, None


def _by_time(
    posts: list[Mention], slots: Any, basis: str, where: str, newest: float
) -> tuple[list[Mention], str, str | None]:
    """Posts within the slots' window (ending at ``newest``, the newest post of the scope,
    as on the figure path) and dates."""
    if slots.window_days and posts:
        newest = newest or max(float(post.get("created_at") or 0) for post in posts)
        since = newest - slots.window_days * _DAY
        posts = [post for post in posts if since < float(post.get("created_at") or 0) <= newest]
        start = window_start(newest, slots.window_days)
        day = datetime.fromtimestamp(newest, UTC).date()
        basis += f" from the last {slots.window_days} days before the newest post ({day}; {start})"
    if slots.since or slots.until:
        first = _stamp(slots.since) if slots.since else float("-inf")
        last = _stamp(slots.until) + _DAY if slots.until else float("inf")
        total = len(posts)
        posts = [p for p in posts if first <= float(p.get("created_at") or 0) < last]
        span = " to ".join(d.isoformat() for d in (slots.since, slots.until) if d)
        basis += f" dated {'from ' if slots.since and not slots.until else ''}{span}"
        if not posts:
            return [], basis, f"None of the {posts_phrase(total)} in {where} is dated {span}."
    return posts, basis, None


def _stamp(day: Any) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def _where(datasets: Sequence[Scope]) -> str:
    names = [f"**{item.name}**" for item in datasets]
    if not names:
        return "your account"
    if len(names) == 1:
        return f"dataset {names[0]}"
    return "datasets " + ", ".join(names[:-1]) + f" and {names[-1]}"


def _searches(scope: Sequence[Scope]) -> list[str]:
    return [text for item in scope for text in (item.name, *item.searches)]


def _aspects(scope: Sequence[Scope], terms: Sequence[str]) -> tuple[str, ...]:
    """Aspects worth reporting: not the question's own terms nor the datasets' words."""
    shared = {word for text in _searches(scope) for word in words(text)} | set(terms)
    return tuple(
        aspect
        for aspect in aspects_for(_searches(scope))
        if not all(any(word.startswith(term) for term in shared) for word in words(aspect))
    )
