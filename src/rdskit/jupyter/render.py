"""The answer view: assistant markdown with interactive ``[N]`` markers and post cards.

An :class:`~rdskit.answers.Answer` (and a tracking alert) renders three ways:

- ``text/html``: the markdown as HTML; each ``[N]`` marker is
  ``<span class="rds-marker" data-ref="N" tabindex="0">[N]<span class="rds-card">...``
  whose card (source, author, date, title, text excerpt, likes, views, comments, link)
  shows on hover and on focus (click or Tab) through scoped CSS alone: no JavaScript, so
  it works where outputs are sanitized. A ``<ol class="rds-references">`` follows. Cards
  carry an inline ``display:none`` that only the stylesheet's hover/focus rule lifts, so
  a front end that strips ``<style>`` shows the reference list without stray cards;
- ``text/markdown``: the markers linked to the posts' URLs, then the references;
- ``text/plain``: the markdown as is, then numbered footnotes (terminal IPython,
  nbconvert to text).

CSS classes (stable, tests rely on them): ``rds-answer`` (the container),
``rds-answer-body``, ``rds-marker`` (with ``data-ref``), ``rds-card`` (with
``rds-card-head``, ``rds-card-title``, ``rds-card-text``, ``rds-card-stats``,
``rds-card-link``), ``rds-references`` (items carry ``data-ref``), ``rds-entities``.

Example:
    >>> answer = client.ask("How does sentiment split?").wait()  # doctest: +SKIP
    >>> bundle = answer_bundle(answer)  # doctest: +SKIP
    >>> sorted(bundle)  # doctest: +SKIP
    ['text/html', 'text/markdown', 'text/plain']
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd

from rdskit.errors import RdsError
from rdskit.jupyter._html import esc, number, when
from rdskit.models import EntityReference, PostReference
from rdskit.references import link_markers

__all__ = [
    "ANSWER_CSS",
    "EXCERPT_CHARS",
    "PostCard",
    "answer_bundle",
    "cited_posts",
    "markdown_html",
    "message_html",
    "message_markdown",
    "message_plain",
    "post_cards",
]

EXCERPT_CHARS = 280
"""A card shows at most this many characters of the post's text."""

_MARKER = re.compile(r"\[(\d+)\]")  # the spec's citation marker

ANSWER_CSS = (
    ".rds-answer{line-height:1.5;max-width:60em;padding-bottom:.5em}"
    ".rds-answer .rds-marker{position:relative;display:inline-block;cursor:pointer;"
    "color:var(--jp-content-link-color,#1565c0);font-weight:600;font-size:.9em;"
    "padding:0 .15em;border-radius:3px;outline:none}"
    ".rds-answer .rds-marker:hover,.rds-answer .rds-marker:focus"
    "{background:var(--jp-layout-color2,#e8eef7)}"
    ".rds-answer .rds-card{position:absolute;left:0;top:100%;z-index:1000;width:26em;"
    "max-width:70vw;margin-top:2px;padding:.55em .75em;text-align:left;white-space:normal;"
    "font-size:13px;font-weight:normal;line-height:1.4;cursor:auto;"
    "color:var(--jp-ui-font-color1,#222);background:var(--jp-layout-color0,#fff);"
    "border:1px solid var(--jp-border-color1,#bbb);border-radius:6px;"
    "box-shadow:0 4px 14px rgba(0,0,0,.18)}"
    ".rds-answer .rds-marker:hover>.rds-card,.rds-answer .rds-marker:focus>.rds-card,"
    ".rds-answer .rds-marker:focus-within>.rds-card{display:block!important}"
    ".rds-answer .rds-card-head,.rds-answer .rds-card-stats{display:block;font-size:12px;"
    "color:var(--jp-ui-font-color2,#666)}"
    ".rds-answer .rds-card-title{display:block;font-weight:600;margin-top:.2em}"
    ".rds-answer .rds-card-text{display:block;margin:.25em 0}"
    ".rds-answer .rds-card-link{display:inline-block;margin-top:.2em}"
    ".rds-answer .rds-references{list-style:none;padding-left:0;margin:.8em 0 0;"
    "font-size:12.5px;border-top:1px solid var(--jp-border-color2,#ddd);padding-top:.4em}"
    ".rds-answer .rds-references li{margin:.2em 0}"
    ".rds-answer .rds-ref-num{font-weight:600;margin-right:.3em}"
    ".rds-answer .rds-entities,.rds-answer .rds-answer-note"
    "{font-size:12px;color:var(--jp-ui-font-color2,#666);margin-top:.3em}"
)


@dataclass(frozen=True)
class PostCard:
    """What a marker's card and a reference line show about one cited post."""

    citation: int
    source: str
    id: str
    author: str | None = None
    where: str | None = None  # the author's headline, e.g. a subreddit
    date: datetime | None = None
    title: str | None = None
    excerpt: str | None = None
    likes: int | None = None
    views: int | None = None
    comments: int | None = None
    url: str | None = None

    @property
    def head(self) -> str:
        """``source · author · where · date`` (the parts known)."""
        parts = [self.source, self.author, self.where, when(self.date)[:10] if self.date else None]
        return " · ".join(part for part in parts if part)

    @property
    def stats(self) -> str:
        """``12 likes · 3,400 views · 5 comments`` (the counts known)."""
        counts = (("like", self.likes), ("view", self.views), ("comment", self.comments))
        return " · ".join(
            f"{number(n)} {label}{'' if n == 1 else 's'}" for label, n in counts if n is not None
        )


def _value(row: Mapping[str, Any], name: str) -> Any:
    value = row.get(name)
    return None if pd.api.types.is_scalar(value) and pd.isna(value) else value


def _excerpt(text: str | None) -> str | None:
    if not text:
        return None
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1].rstrip() + "…"


def post_cards(references: Sequence[Any] | None, posts: pd.DataFrame | None) -> dict[int, PostCard]:
    """A card per cited post, from the cited posts' frame (bare source and id without it).

    Example:
        >>> ref = PostReference(source="reddit", id="a", citation=1, start_index=0,
        ...     end_index=3)
        >>> posts = pd.DataFrame({"source": ["reddit"], "id": ["a"], "text": ["Love it"],
        ...     "num_likes": [3]})
        >>> card = post_cards([ref], posts)[1]
        >>> card.excerpt, card.stats
        ('Love it', '3 likes')
    """
    rows: dict[tuple[str, str], Mapping[str, Any]] = {}
    if posts is not None and len(posts):
        rows = {(str(row["source"]), str(row["id"])): row for row in posts.to_dict("records")}
    cards = {}
    for ref in references or []:
        if not isinstance(ref, PostReference):
            continue
        row = rows.get((ref.source, ref.id), {})
        date = _value(row, "created_at")
        cards[ref.citation] = PostCard(
            citation=ref.citation,
            source=ref.source,
            id=ref.id,
            author=_value(row, "author_title"),
            where=_value(row, "author_headline"),
            date=date.to_pydatetime() if isinstance(date, pd.Timestamp) else date,
            title=_value(row, "title"),
            excerpt=_excerpt(_value(row, "text") or _value(row, "summary")),
            likes=_count(_value(row, "num_likes")),
            views=_count(_value(row, "num_views")),
            comments=_count(_value(row, "num_comments")),
            url=_value(row, "url"),
        )
    return cards


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def cited_posts(message: Any) -> tuple[pd.DataFrame | None, str | None]:
    """The cited posts of an Answer or a tracking alert, and a note when unavailable.

    Posts are read through the client the message came from (cached on an Answer). With
    an AsyncClient they are only shown once ``await answer.posts()`` has cached them.
    """
    from rdskit._base_client import AsyncAPIClient
    from rdskit.answers import Answer

    cached = getattr(message, "_posts", None)
    if cached is not None:
        return cached, None
    client = getattr(message, "_client", None)
    if client is None:
        return None, "post details unavailable: this message is not bound to a client"
    if isinstance(client, AsyncAPIClient):
        return None, "post details appear once `await answer.posts()` has read them"
    refs = [ref for ref in message.references or [] if isinstance(ref, PostReference)]
    if not refs:
        return None, None
    try:
        if isinstance(message, Answer):
            return message.posts(), None
        from rdskit.frames import mentions_frame
        from rdskit.frames.fetch import lookup_mentions

        wire = [{"source": ref.source, "id": ref.id} for ref in refs]
        return mentions_frame(lookup_mentions(client, wire)), None
    except RdsError as exc:
        return None, f"post details unavailable: {exc}"


def markdown_html(text: str) -> str:
    """Markdown to HTML with raw HTML escaped (the text quotes public posts).

    Example:
        >>> markdown_html("**Hi** <b>x</b>")
        '<p><strong>Hi</strong> &lt;b&gt;x&lt;/b&gt;</p>\\n'
    """
    try:
        import mistune
    except ImportError:  # the jupyter extra brings mistune; plain paragraphs without it
        return "".join(f"<p>{esc(block)}</p>" for block in text.split("\n\n") if block.strip())
    render = mistune.create_markdown(escape=True, plugins=["table", "strikethrough"])
    return str(render(text))


def _link(url: str, label: str, css_class: str = "") -> str:
    """A link that opens the post in a new tab (and tells it nothing about the notebook)."""
    attr = f' class="{css_class}"' if css_class else ""
    return f'<a{attr} href="{esc(url)}" target="_blank" rel="noopener noreferrer">{esc(label)}</a>'


def _card_html(card: PostCard) -> str:
    parts = [f'<span class="rds-card-head">{esc(card.head)}</span>']
    if card.title:
        parts.append(f'<span class="rds-card-title">{esc(card.title)}</span>')
    parts.append(
        f'<span class="rds-card-text">{esc(card.excerpt or f"{card.source} post {card.id}")}</span>'
    )
    if card.stats:
        parts.append(f'<span class="rds-card-stats">{esc(card.stats)}</span>')
    if card.url:
        parts.append(_link(card.url, "Open the post ↗", "rds-card-link"))
    return f'<span class="rds-card" role="tooltip" style="display:none">{"".join(parts)}</span>'


def _marker_html(card: PostCard) -> str:
    label = f"citation {card.citation}: {card.head}"
    return (
        f'<span class="rds-marker" data-ref="{card.citation}" tabindex="0" role="button" '
        f'aria-label="{esc(label)}">[{card.citation}]{_card_html(card)}</span>'
    )


def _reference_html(card: PostCard) -> str:
    parts = [f'<span class="rds-ref-num">[{card.citation}]</span>{esc(card.head)}']
    if card.title or card.excerpt:
        parts.append(f"<q>{esc(_excerpt(card.title or card.excerpt))}</q>")
    if card.stats:
        parts.append(esc(card.stats))
    if card.url:
        parts.append(_link(card.url, "link"))
    return f'<li data-ref="{card.citation}">{" — ".join(parts)}</li>'


def _with_markers(text: str, cards: Mapping[int, PostCard], nonce: str) -> str:
    """Markdown with each known marker swapped for a placeholder markdown leaves alone."""

    def placeholder(found: re.Match[str]) -> str:
        number_ = int(found[1])
        return f"rdsmark{nonce}x{number_}x" if number_ in cards else found[0]

    return _MARKER.sub(placeholder, text)


def message_html(
    text: str,
    references: Sequence[Any] | None,
    cards: Mapping[int, PostCard],
    *,
    note: str | None = None,
    footer: str = "",
) -> str:
    """The ``rds-answer`` HTML of a message: body with markers, references, entities.

    Example:
        >>> ref = PostReference(source="reddit", id="a", citation=1, start_index=3,
        ...     end_index=6)
        >>> cards = post_cards([ref], None)
        >>> html = message_html("Hi [1]", [ref], cards)
        >>> 'class="rds-marker" data-ref="1"' in html, html.count('class="rds-card"')
        (True, 1)
    """
    nonce = hashlib.sha256(text.encode()).hexdigest()[:8]  # not a word the text contains
    body = markdown_html(_with_markers(text, cards, nonce))
    body = re.sub(rf"rdsmark{nonce}x(\d+)x", lambda found: _marker_html(cards[int(found[1])]), body)
    parts = [
        '<div class="rds-answer">',
        f"<style>{ANSWER_CSS}</style>",
        # mathjax_ignore (MathJax 3, JupyterLab 4) / tex2jax_ignore (MathJax 2): posts quote
        # prices, and two "$" in one answer would otherwise be typeset as math.
        '<div class="mathjax_ignore tex2jax_ignore">',
        f'<div class="rds-answer-body">{body}</div>',
    ]
    if cards:
        items = "".join(
            _reference_html(card) for card in sorted(cards.values(), key=lambda c: c.citation)
        )
        parts.append(f'<ol class="rds-references">{items}</ol>')
    entities = [ref for ref in references or [] if isinstance(ref, EntityReference)]
    if entities:
        listed = ", ".join(f"{esc(ref.type)} <code>{esc(ref.id)}</code>" for ref in entities)
        parts.append(f'<div class="rds-entities">About: {listed}</div>')
    if note:
        parts.append(f'<div class="rds-answer-note">{esc(note)}</div>')
    if footer:
        parts.append(f'<div class="rds-answer-note">{footer}</div>')
    parts.append("</div></div>")
    return "".join(parts)


def _footnotes(cards: Mapping[int, PostCard], *, markdown: bool) -> list[str]:
    lines = []
    for card in sorted(cards.values(), key=lambda card: card.citation):
        lines.append(f"[{card.citation}] {card.head}")
        if card.title or card.excerpt:
            lines.append(f"    “{_excerpt(card.title or card.excerpt)}”")
        if card.stats:
            lines.append(f"    {card.stats}")
        if card.url:
            lines.append(f"    <{card.url}>" if markdown else f"    {card.url}")
    return lines


def message_plain(
    text: str,
    references: Sequence[Any] | None,
    cards: Mapping[int, PostCard],
    note: str | None = None,
) -> str:
    """The message as plain markdown followed by numbered footnotes.

    Example:
        >>> ref = PostReference(source="reddit", id="a", citation=1, start_index=3,
        ...     end_index=6)
        >>> print(message_plain("Hi [1]", [ref], post_cards([ref], None)))
        Hi [1]
        <BLANKLINE>
        References
        [1] reddit
    """
    lines = [text.rstrip()]
    if cards:
        lines += ["", "References", *_footnotes(cards, markdown=False)]
    entities = [ref for ref in references or [] if isinstance(ref, EntityReference)]
    if entities:
        lines += ["", "About: " + ", ".join(f"{ref.type} {ref.id}" for ref in entities)]
    if note:
        lines += ["", f"({note})"]
    return "\n".join(lines)


def message_markdown(
    text: str, references: Sequence[Any] | None, cards: Mapping[int, PostCard]
) -> str:
    """The message as markdown: markers linked to the posts, references as a list.

    Example:
        >>> ref = PostReference(source="reddit", id="a", citation=1, start_index=3,
        ...     end_index=6)
        >>> cards = {1: PostCard(1, "reddit", "a", url="https://r.example/a")}
        >>> message_markdown("Hi [1]", [ref], cards).splitlines()[0]
        'Hi [[1]](https://r.example/a)'
    """
    wire = [ref.to_wire() for ref in references or [] if isinstance(ref, PostReference)]
    urls = {(card.source, card.id): card.url for card in cards.values() if card.url}
    linked = link_markers(text, wire, urls).rstrip()
    if not cards:
        return linked
    notes = [
        f"- {line.strip()}" if line.startswith("[") else f"  {line.strip()}"
        for line in _footnotes(cards, markdown=True)
    ]
    return "\n".join([linked, "", "**References**", "", *notes])


def answer_bundle(answer: Any) -> dict[str, str]:
    """The display bundle of an Answer: ``text/html``, ``text/markdown``, ``text/plain``.

    Example:
        >>> answer = client.ask("Top complaints?").wait()  # doctest: +SKIP
        >>> "rds-marker" in answer_bundle(answer)["text/html"]  # doctest: +SKIP
        True
    """
    posts, note = cited_posts(answer)
    cards = post_cards(answer.references, posts)
    text = answer.text or ""
    footer = f"chat <code>{esc(answer.chat_id)}</code> · message <code>{esc(answer.id)}</code>"
    return {
        "text/html": message_html(text, answer.references, cards, note=note, footer=footer),
        "text/markdown": message_markdown(text, answer.references, cards),
        "text/plain": message_plain(text, answer.references, cards, note),
    }
