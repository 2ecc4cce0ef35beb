"""The sandbox assistant: a deterministic analytic engine that answers Ask questions.

No language model runs here. :func:`answer` reads the question
(:mod:`~rdskit.sandbox.assistant_intent`), narrows the posts, computes the figures
(:mod:`~rdskit.sandbox.assistant_posts`) and writes a markdown reply with one section
writer per kind of question (:mod:`~rdskit.sandbox.assistant_sections`). Posts are cited
as ``[label](post:source:id)`` links, then rewritten to ``[N]`` markers by the spec's rule
(:func:`rdskit.references.rewrite_post_links`), so the reply carries exact
``references[]``. Everything here is a pure function of its inputs; the database adapter
is ``compose_reply`` in ``routes/chats.py``.

Kinds of question: what people say (themes), complaints, praise, brands, sentiment, top
posts, comparison (sources or datasets), changes over time, top authors, questions people
ask, hooks, calls to action, an overview, help, and linked work (patterns, audiences,
custom parameters, research previews).

Narrowing, in this order (each step that empties the posts is reported as such):

1. datasets: ``context.dataset_ids``, else the datasets of the previous turn, else every
   dataset (a tracking agent's datasets in its dialogue chat); a dataset named in the
   question narrows further (:func:`pick_datasets`);
2. ``post_refs`` ("these posts" reuses the previous turn's, or the posts of the latest
   tracking alert);
3. sources named in the text ("on tiktok"), except when comparing them;
4. a time window ("in the last 30 days", counted back from the newest post);
5. topic terms ("about price": a post has a word starting with a term);
6. a sentiment ("top negative posts") for listings that do not split by sentiment.

A follow-up ("and on tiktok only?") keeps what it leaves out from the previous question
(:func:`~rdskit.sandbox.assistant_intent.follow`).

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
from decimal import Decimal
from typing import Any

from rdskit.sandbox.assistant_intent import INTENTS, Question, follow, parse
from rdskit.sandbox.assistant_posts import (
    Mention,
    aspects_for,
    brands_for,
    engagement,
    key,
    period_of,
    sentiment_label,
    words,
)
from rdskit.sandbox.assistant_sections import (
    TITLES,
    WRITERS,
    Case,
    Related,
    Scope,
    Stats,
    Writer,
    posts_phrase,
    write_related,
)

__all__ = [
    "ASSISTANT_USD_PER_TOKEN",
    "INTENTS",
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
    "sentiment_label",
]

ASSISTANT_USD_PER_TOKEN = Decimal("0.00001")
"""Inference price: USD per token of question, context and answer (10 USD per million)."""

_TOKEN = re.compile(r"\w+|[^\w\s]")
_NARROWED_BY_MOOD = frozenset({"top", "authors", "trend", "questions", "hooks", "ctas", "brands",
                               "themes", "overview"})  # fmt: skip
_LINKED_WORK = frozenset({"patterns", "audience", "parameters", "previews"})
_NEEDS_POSTS = frozenset(WRITERS) - {"help"}
_DAY = 86_400


@dataclass(frozen=True)
class Turn:
    """An earlier user turn of the chat: its text and the context it was sent with."""

    text: str
    dataset_ids: Sequence[str] | None = None
    post_refs: Sequence[Mapping[str, str]] = ()


@dataclass
class Reply:
    """The assistant's reply: rewritten markdown, typed references and render blocks.

    ``posts`` lists the analysed posts as (source, id); ``figures`` holds the numbers the
    text quotes, keyed per intent (handy for checks and the MCP render tool).
    """

    text: str
    references: list[dict[str, Any]]
    blocks: list[dict[str, Any]]
    intent: str
    posts: list[tuple[str, str]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)


# --- small public helpers (shared with the routes, the MCP server and tests) -------------


def detect_intent(question: str) -> str:
    """The kind of question (``themes`` when nothing more specific is recognised).

    Example:
        >>> detect_intent("Top posts by views?"), detect_intent("What do people hate?")
        ('top', 'complaints')
    """
    return parse(question).intent or "themes"


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
    parsed = parse(question, names)
    title = TITLES[parsed.intent or "themes"]
    if parsed.terms:
        title += " about " + " ".join(parsed.terms[:3])
    elif parsed.sources:
        title += " on " + " and ".join(parsed.sources[:2])
    elif dataset:
        title += f" in {dataset}"
    return title[:60]


def pick_datasets(
    turns: Sequence[Turn], datasets: Sequence[Scope], default: Sequence[str] | None = None
) -> tuple[list[Scope], list[str]]:
    """The datasets the last of ``turns`` is about, and the ids it asked for that are missing.

    Each turn starts from its ``dataset_ids``, else the previous turn's datasets, else
    ``default`` (every dataset when ``None``); datasets named in its text narrow that.

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
        else:
            missing = []
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
) -> Reply:
    """Answer ``question`` over ``mentions`` (spec Mention dicts with ``datasets``).

    ``scope`` lists the datasets the answer uses (see :func:`pick_datasets`); a dataset
    named in the question narrows it.
    ``post_refs`` focuses the answer on those posts. ``history`` holds the chat's earlier
    user turns, oldest first, for follow-ups; ``earlier_posts`` are the posts "these
    posts" means when no earlier turn chose any (a tracking alert's new posts).
    ``related`` is work linked to the datasets; ``unknown_dataset_ids`` (requested but
    absent) are reported.
    """
    scope = _named(question, scope) or scope
    names = _searches(scope)
    previous: Question | None = None
    for turn in history:
        previous = follow(parse(turn.text, names), previous)
    own = parse(question, names)
    asked = follow(own, previous)
    carried = asked != own
    intent = asked.intent or ("themes" if asked.terms else "help")
    asked = replace(asked, intent=intent)
    out = Writer(intent)

    if unknown_dataset_ids:
        missing = ", ".join(f"`{dataset_id}`" for dataset_id in unknown_dataset_ids)
        out.line(f"I couldn't find these datasets in your account: {missing}.")
    if not scope and intent != "previews":
        if not unknown_dataset_ids:
            out.line(
                "This account has no datasets yet, so I have no posts to answer from. Create "
                "one with `POST /v1/datasets` and start a run to collect posts."
            )
        return _reply(out, [], [], [])

    focus = _focus(asked, post_refs, history, earlier_posts)
    posts, basis, empty = _narrow(asked, mentions, scope, focus)
    if carried:
        basis += " (continuing the previous question)"
    where = _where(scope)
    case = Case(
        asked,
        posts,
        list(scope),
        aspects=_aspects(scope, asked),
        brands=brands_for(_searches(scope)),
        related=related,
    )
    if intent in _LINKED_WORK:
        items = write_related(out, case, where)
        return _reply(out, scope, items, posts)
    if empty is not None and intent in _NEEDS_POSTS:
        out.line(empty)
        return _reply(out, scope, [], [])
    if intent != "help":
        out.line(f"_Based on {posts_phrase(len(posts))} in {where}{basis}._")
        out.line()
    WRITERS[intent](out, case)
    about = [item for item in related if item.topic.rstrip("s") in question.lower()]
    if about:
        out.line()
        out.line("Related work on these datasets:")
        out.lines.extend(f"- {item.label} (`{item.id}`)" for item in about)
    return _reply(out, scope, about, posts)


def _reply(
    out: Writer, datasets: Sequence[Scope], related: Sequence[Related], posts: Sequence[Mention]
) -> Reply:
    text, post_references, blocks = out.finish()
    entities = [{"type": "dataset", "id": item.id} for item in datasets]
    entities += [{"type": item.type, "id": item.id} for item in related]
    return Reply(
        text,
        post_references + entities,
        blocks,
        out.intent,
        [key(post) for post in posts],
        out.figures,
    )


def _focus(
    asked: Question,
    post_refs: Sequence[Mapping[str, str]],
    history: Sequence[Turn],
    earlier_posts: Sequence[tuple[str, str]],
) -> tuple[set[tuple[str, str]], str]:
    """The posts the question is limited to, and how the basis line names them."""
    if post_refs:
        return {(ref["source"], ref["id"]) for ref in post_refs}, "you selected"
    if asked.refers_back:
        chosen = next((turn.post_refs for turn in reversed(history) if turn.post_refs), ())
        if chosen:
            return {(ref["source"], ref["id"]) for ref in chosen}, "selected earlier"
        if earlier_posts:
            return set(earlier_posts), "of the latest alert"
    return set(), ""


def _narrow(
    asked: Question,
    mentions: Sequence[Mention],
    scope: Sequence[Scope],
    focus: tuple[set[tuple[str, str]], str],
) -> tuple[list[Mention], str, str | None]:
    """The posts the question is about, the basis line's qualifiers, and a message when a
    step leaves nothing (``None`` when posts remain)."""
    wanted = {item.id for item in scope}
    posts = [post for post in mentions if {d["id"] for d in post.get("datasets") or []} & wanted]
    where = _where(scope)
    if not posts:
        return (
            [],
            "",
            (
                f"There are no collected posts in {where} yet (a run may still be in progress), "
                "so I can't answer that."
            ),
        )
    basis = ""
    chosen, how = focus
    if chosen:
        posts = [post for post in posts if key(post) in chosen]
        basis += f", limited to the {posts_phrase(len(chosen))} {how}"
        if not posts:
            return [], basis, f"None of the posts {how} belong to {where}."
    if asked.sources and asked.intent != "compare":
        present = sorted({post["source"] for post in posts})
        posts = [post for post in posts if post["source"] in asked.sources]
        basis += " from " + " and ".join(asked.sources)
        if not posts:
            return (
                [],
                basis,
                (
                    f"{where[0].upper()}{where[1:]} has no posts from {' or '.join(asked.sources)};"
                    f" its posts come from {', '.join(present)}."
                ),
            )
    if asked.window_days:
        newest = max(float(post.get("created_at") or 0) for post in posts)
        since = newest - asked.window_days * _DAY
        posts = [post for post in posts if float(post.get("created_at") or 0) > since]
        basis += (
            f" from the last {asked.window_days} days of data (after {period_of(since, 'day')})"
        )
    if asked.terms:
        total = len(posts)
        topic = ", ".join(f'"{term}"' for term in asked.terms)
        posts = [post for post in posts if _has_terms(post, asked.terms)]
        basis += f" mentioning {topic}"
        if not posts:
            return [], basis, f"None of the {posts_phrase(total)} in {where} mention {topic}."
    if asked.mood and asked.intent in _NARROWED_BY_MOOD:
        total = len(posts)
        posts = [post for post in posts if sentiment_label(post) == asked.mood]
        basis += f", {asked.mood} posts only"
        if not posts:
            return [], basis, f"None of the {posts_phrase(total)} in {where} reads as {asked.mood}."
    return posts, basis, None


def _has_terms(post: Mention, terms: Sequence[str]) -> bool:
    """True when the post's title or text has a word starting with one of ``terms``."""
    found = words(" ".join(str(post.get(name) or "") for name in ("title", "text")))
    return any(word.startswith(term) for word in found for term in terms)


def _where(datasets: Sequence[Scope]) -> str:
    names = [f"**{item.name}**" for item in datasets]
    if not names:
        return "your account"
    if len(names) == 1:
        return f"dataset {names[0]}"
    return "datasets " + ", ".join(names[:-1]) + f" and {names[-1]}"


def _searches(scope: Sequence[Scope]) -> list[str]:
    return [text for item in scope for text in (item.name, *item.searches)]


def _aspects(scope: Sequence[Scope], asked: Question) -> tuple[str, ...]:
    """Aspects worth reporting: not the question's own terms nor the datasets' words."""
    shared = {word for text in _searches(scope) for word in words(text)} | set(asked.terms)
    return tuple(
        aspect
        for aspect in aspects_for(_searches(scope))
        if not all(any(word.startswith(term) for term in shared) for word in words(aspect))
    )
