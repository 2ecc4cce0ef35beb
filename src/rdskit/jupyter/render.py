"""The answer view: assistant markdown with interactive ``[N]`` markers and post cards.

An :class:`~rdskit.answers.Answer` (and a tracking alert) renders three ways:

- ``text/html``: the markdown as HTML (paragraphs as ``<div class="rds-p">``); each
  ``[N]`` marker is ``<details class="rds-marker" data-ref="N"><summary>[N]</summary>
  <span class="rds-card">...`` whose card (source, author, date, title, text excerpt,
  likes, views, comments, link) shows on hover and keyboard focus, and is pinned open by
  a click, Enter or Space (the native ``<details>`` toggle): no JavaScript and no
  ``tabindex``/``role``/``aria-*``, so it works where JupyterLab sanitizes outputs
  (untrusted notebooks). With the stylesheet the card floats under the marker's line,
  from the answer's left edge, never wider than the output; without it (``<style>`` is
  stripped in untrusted notebooks) inline styles open it in the flow below the marker. A
  ``<ol class="rds-references">`` follows;
- ``text/markdown``: the markers linked to the posts' URLs, then the references;
- ``text/plain``: the markdown as is, then numbered footnotes (terminal IPython,
  nbconvert to text).

Everything the service wrote is treated as hostile (see ``docs/jupyter.md``, Security
model): raw HTML in the markdown is escaped; only ``http``/``https`` links are links (with
``rel="noopener noreferrer"``), other targets stay text; images become links, so nothing
loads by itself (:data:`IMAGE_HOSTS_ENV` lists media hosts whose images may load inline,
none by default); ``[N]`` markers are substituted in text only, never inside a link, a URL
or code; names, titles and quotes in the markdown and plain forms are one line each with
markdown metacharacters escaped (:mod:`rdskit._safe`).

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
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import mistune
import pandas as pd
from mistune import HTMLRenderer
from mistune.util import striptags

from rdskit._base_client import AsyncAPIClient
from rdskit._safe import clean, md_text, one_line, over_parse_budget, safe_markdown, safe_url
from rdskit.answers import Answer
from rdskit.errors import RdsError
from rdskit.jupyter._html import esc, link, number, when
from rdskit.models import EntityReference, PostReference
from rdskit.references import link_markers

__all__ = [
    "ANSWER_CSS",
    "EXCERPT_CHARS",
    "IMAGE_HOSTS_ENV",
    "INLINE_STYLES",
    "MAX_MARKERS",
    "PostCard",
    "answer_bundle",
    "cited_posts",
    "markdown_html",
    "message_html",
    "message_markdown",
    "message_plain",
    "post_cards",
    "shown_references",
]

EXCERPT_CHARS = 280
"""A card shows at most this many characters of the post's text."""

MAX_MARKERS = 300
"""The answer view shows at most this many cited posts (cards, references, footnotes: the
lowest citation numbers) and opens a card on at most this many ``[N]`` markers; a line
counts the rest. Each marker carries its card (no JavaScript): an answer repeating ``[1]``
10,000 times would otherwise be 12 MB of HTML."""

_MARKER = re.compile(r"\[(\d+)\]")  # the spec's citation marker

IMAGE_HOSTS_ENV = "RDSKIT_IMAGE_HOSTS"
"""Comma-separated host names whose ``https`` images the answer view shows inline (the
service's own media hosts, if you trust them). Unset (the default): every image in an
answer is a link, so no request leaves the page without a click."""

ANSWER_CSS = (
    ".rds-answer{line-height:1.5;max-width:60em;padding-bottom:.5em}"
    # A marker is <details> shown inline-block: a native toggle (click, Enter, Space) and
    # tab stop that JupyterLab's sanitizer keeps in untrusted notebooks, where this sheet
    # is stripped and the card opens in the flow below the marker (inline styles only).
    # With the sheet, the card floats just under the marker's line (its static position),
    # shifted to the answer body's left edge and at most its width: wherever the marker
    # sits, the card never leaves the output area nor narrows to a sliver.
    ".rds-answer .rds-answer-body{position:relative}"
    ".rds-answer .rds-marker{display:inline-block;position:static;margin:0;padding:0}"
    ".rds-answer .rds-marker>summary{display:inline;list-style:none;cursor:pointer;"
    "color:var(--jp-content-link-color,#1565c0);font-weight:600;font-size:.9em;"
    "padding:0 .15em;border-radius:3px}"
    ".rds-answer .rds-marker>summary::-webkit-details-marker{display:none}"
    ".rds-answer .rds-marker>summary:hover,.rds-answer .rds-marker[open]>summary"
    "{background:var(--jp-layout-color2,#e8eef7)}"
    ".rds-answer .rds-marker[open]>summary{box-shadow:inset 0 -2px 0 "
    "var(--jp-brand-color1,#1976d2)}"
    ".rds-answer .rds-marker>summary:focus{outline:none}"
    ".rds-answer .rds-marker>summary:focus-visible{outline:2px solid "
    "var(--jp-brand-color1,#1976d2);outline-offset:2px}"
    # Focus anywhere in the marker (its summary, or the card's link that Tab reaches next:
    # :focus-within) keeps the preview open, so focus never falls out of a vanishing card
    # (with :has(:focus-visible) Chromium drops it to <body>); a summary focused by a
    # click does not, so a click that unpins a card hides it.
    ".rds-answer .rds-marker:not([open]):hover::details-content,"
    ".rds-answer .rds-marker:not([open]):focus-within:not(:has(>summary:focus:not("
    ":focus-visible)))::details-content"
    "{content-visibility:visible}"
    ".rds-answer .rds-card a:focus-visible{outline:2px solid var(--jp-brand-color1,#1976d2);"
    "outline-offset:1px}"
    ".rds-answer .rds-marker>.rds-card{position:absolute;left:0;z-index:1000;"
    "width:min(26em,100%)!important;max-width:100%;margin:2px 0 0!important;"
    "padding:.55em .75em!important;text-align:left;white-space:normal;"
    "font-size:13px;font-weight:normal;line-height:1.4;cursor:auto;"
    "color:var(--jp-ui-font-color1,#222);background:var(--jp-layout-color0,#fff);"
    "border:1px solid var(--jp-border-color1,#bbb)!important;border-radius:6px;"
    "box-shadow:0 4px 14px rgba(0,0,0,.25)}"
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
        return " · ".join(one_line(part) for part in parts if part)

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


def shown_references(references: Sequence[Any] | None) -> list[PostReference]:
    """The cited posts the view shows: one per citation number, the lowest
    :data:`MAX_MARKERS` numbers, in citation order.

    Example:
        >>> refs = [PostReference(source="reddit", id=str(n), citation=n, start_index=0,
        ...     end_index=3) for n in range(MAX_MARKERS + 5, 0, -1)]
        >>> shown = shown_references(refs)
        >>> len(shown), shown[0].citation, shown[-1].citation
        (300, 1, 300)
    """
    cited = {ref.citation: ref for ref in references or [] if isinstance(ref, PostReference)}
    return [cited[number_] for number_ in sorted(cited)[:MAX_MARKERS]]


def post_cards(references: Sequence[Any] | None, posts: pd.DataFrame | None) -> dict[int, PostCard]:
    """A card per cited post, from the cited posts' frame (bare source and id without it);
    at most :data:`MAX_MARKERS`, for the lowest citation numbers.

    Example:
        >>> ref = PostReference(source="reddit", id="a", citation=1, start_index=0,
        ...     end_index=3)
        >>> posts = pd.DataFrame({"source": ["reddit"], "id": ["a"], "text": ["Love it"],
        ...     "num_likes": [3]})
        >>> card = post_cards([ref], posts)[1]
        >>> card.excerpt, card.stats
        ('Love it', '3 likes')
    """
    shown = shown_references(references)
    rows: dict[tuple[str, str], Mapping[str, Any]] = {}
    if posts is not None and len(posts):
        wanted = {(ref.source, ref.id) for ref in shown}
        keys = [(str(s), str(i)) for s, i in zip(posts["source"], posts["id"], strict=True)]
        kept = posts[[key in wanted for key in keys]]  # records of the shown posts only
        rows = {(str(row["source"]), str(row["id"])): row for row in kept.to_dict("records")}
    cards = {}
    for ref in shown:
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


def cited_posts(message: Any, *, shown: bool = False) -> tuple[pd.DataFrame | None, str | None]:
    """The cited posts of an Answer or a tracking alert, and a note when unavailable;
    with ``shown`` only those the view shows (:func:`shown_references`) are read.

    Posts are read through the client the message came from (cached on an Answer: all of
    them, or the shown ones read on their own when the view leaves some out, so that a
    view of 10,000 citations reads 300 posts, not 10,000). With an AsyncClient they are
    only shown once ``await answer.posts()`` has cached them.
    """
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
    some = shown_references(refs) if shown else refs
    try:
        if isinstance(message, Answer) and len(some) >= len({ref.citation for ref in refs}):
            return message.posts(), None  # the view shows every cited post: read and cache all
        from rdskit.frames import mentions_frame
        from rdskit.frames.fetch import lookup_mentions

        wire = [{"source": ref.source, "id": ref.id} for ref in some]
        return mentions_frame(lookup_mentions(client, wire)), None
    except RdsError as exc:
        return None, f"post details unavailable: {exc}"


def image_hosts() -> frozenset[str]:
    """The hosts whose images may load inline (``RDSKIT_IMAGE_HOSTS``; none by default).

    Example:
        >>> image_hosts()
        frozenset()
    """
    listed = os.environ.get(IMAGE_HOSTS_ENV, "")
    return frozenset(host.strip().lower() for host in listed.split(",") if host.strip())


def _renderer(hosts: frozenset[str]) -> Any:
    """A mistune renderer whose links and images follow the rules of the module docstring."""

    class SafeRenderer(HTMLRenderer):
        def link(self, text: str, url: str, title: str | None = None) -> str:
            # ``text`` is the label mistune rendered (escaped); a title is dropped.
            return link(url, text, markup=True)

        def image(self, text: str, url: str, title: str | None = None) -> str:
            alt = striptags(text) or "image"
            href = safe_url(url)
            inline = href is not None and href.lower().startswith("https://")
            if inline and (urlsplit(href).hostname or "").lower() in hosts:
                return (
                    f'<img src="{esc(href)}" alt="{esc(alt)}" referrerpolicy="no-referrer" '
                    'loading="lazy">'
                )
            if href is None:
                return f"[image: {esc(alt)}]"
            return link(href, f"image: {alt}", "rds-image-link")

    return SafeRenderer(escape=True)


def markdown_html(text: str, *, hosts: frozenset[str] | None = None) -> str:
    """Markdown to HTML with raw HTML escaped (the text quotes public posts).

    Links keep ``http(s)`` targets only; images become links unless their host is in
    ``hosts`` (default :func:`image_hosts`).

    Example:
        >>> markdown_html("**Hi** <b>x</b>")
        '<p><strong>Hi</strong> &lt;b&gt;x&lt;/b&gt;</p>\\n'
        >>> "<img" in markdown_html("![beacon](http://h.example/b.png)")
        False
    """
    text = clean(text)
    if over_parse_budget(text):
        # Plain paragraphs for a text no real answer is (more than 5,000 delimiters or
        # lines), whose parse would take seconds of CPU (1.4 s for 100k characters).
        return "".join(f"<p>{esc(block)}</p>" for block in text.split("\n\n") if block.strip())
    render = mistune.create_markdown(
        renderer=_renderer(image_hosts() if hosts is None else hosts),
        plugins=["table", "strikethrough"],
    )
    return str(render(text))


def _card_html(card: PostCard) -> str:
    line = f'style="{_LINE_INLINE}"'  # one line each, even without the style sheet
    parts = [f'<span class="rds-card-head" {line}>{esc(card.head)}</span>']
    if card.title:
        parts.append(f'<span class="rds-card-title" {line}>{esc(card.title)}</span>')
    excerpt = esc(card.excerpt or f"{card.source} post {card.id}")
    parts.append(f'<span class="rds-card-text" {line}>{excerpt}</span>')
    if card.stats:
        parts.append(f'<span class="rds-card-stats" {line}>{esc(card.stats)}</span>')
    if card.url:
        parts.append(link(card.url, "Open the post ↗", "rds-card-link"))
    return f'<span class="rds-card" style="{_CARD_INLINE}">{"".join(parts)}</span>'


# Inline styles are what an untrusted notebook keeps (JupyterLab's sanitizer drops
# <style>, tabindex, role and aria-*, keeps <details>/<summary>, class and these
# properties): the marker stays in the line, its card opens below it within the output,
# in either theme (no colours but a neutral border).
_MARKER_INLINE = "display:inline-block;vertical-align:baseline;max-width:100%;margin:0;padding:0"
_LINE_INLINE = "display:block;margin:.15em 0"
_SUMMARY_INLINE = "display:inline;cursor:pointer;font-weight:600"
_CARD_INLINE = (
    "display:block;box-sizing:border-box;width:26em;max-width:100%;margin:.3em 0 .5em;"
    "padding:.5em .7em;border:1px solid rgba(128,128,128,.55);border-radius:6px;"
    "white-space:normal;font-weight:normal"
)


def _marker_html(card: PostCard) -> str:
    return (
        f'<details class="rds-marker" data-ref="{card.citation}" style="{_MARKER_INLINE}">'
        f'<summary class="rds-marker-num" style="{_SUMMARY_INLINE}">'
        f"[{card.citation}]</summary>{_card_html(card)}</details>"
    )


_P_INLINE = "margin:0 0 .75em"
INLINE_STYLES = (_MARKER_INLINE, _SUMMARY_INLINE, _CARD_INLINE, _P_INLINE, _LINE_INLINE)
"""Every inline ``style`` the answer view writes (the security tests allow exactly these)."""

_PARAGRAPH = re.compile(r"<p>|</p>")


def _blocks(body: str) -> str:
    """``<p>`` becomes ``<div class="rds-p">``: a ``<details>`` marker would end a ``<p>``
    (the HTML parser closes a paragraph at a ``<details>``), never a ``<div>``."""
    return _PARAGRAPH.sub(
        lambda found: f'<div class="rds-p" style="{_P_INLINE}">' if found[0] == "<p>" else "</div>",
        body,
    )


def _reference_html(card: PostCard) -> str:
    parts = [f'<span class="rds-ref-num">[{card.citation}]</span>{esc(card.head)}']
    if card.title or card.excerpt:
        parts.append(f"<q>{esc(_excerpt(card.title or card.excerpt))}</q>")
    if card.stats:
        parts.append(esc(card.stats))
    if card.url:
        parts.append(link(card.url, "link"))
    return f'<li data-ref="{card.citation}">{" — ".join(parts)}</li>'


def _with_markers(text: str, cards: Mapping[int, PostCard], nonce: str) -> str:
    """Markdown with each known marker swapped for a placeholder markdown leaves alone."""

    def placeholder(found: re.Match[str]) -> str:
        number_ = int(found[1])
        return f"rdsmark{nonce}x{number_}x" if number_ in cards else found[0]

    return _MARKER.sub(placeholder, text)


_TAG = re.compile(r"(<[^>]*>)")
_NO_MARKERS = ("a", "code", "pre")  # a card inside these would break them


def _place_markers(body: str, cards: Mapping[int, PostCard], nonce: str) -> tuple[str, int]:
    """Placeholders in text nodes become markers; elsewhere (a URL, an attribute, a link's
    label, code) they turn back into the literal ``[N]`` they stood for. Past
    :data:`MAX_MARKERS` markers they stay ``[N]`` too; returns the body and how many did.

    Each citation's marker is built once: an answer repeating ``[1]`` 10,000 times cost
    0.8 s of CPU building the same card 10,000 times.
    """
    placeholder = re.compile(rf"rdsmark{nonce}x(\d+)x")
    inside = dict.fromkeys(_NO_MARKERS, 0)
    built: dict[int, str] = {}
    placed = plain = 0

    def literal(found: re.Match[str]) -> str:
        return f"[{found[1]}]"

    def marker(found: re.Match[str]) -> str:
        nonlocal placed, plain
        if placed == MAX_MARKERS:
            plain += 1
            return literal(found)
        placed += 1
        citation = int(found[1])
        if citation not in built:
            built[citation] = _marker_html(cards[citation])
        return built[citation]

    pieces = []
    for piece in _TAG.split(body):
        if piece.startswith("<"):
            name = re.match(r"</?([a-zA-Z0-9]+)", piece)
            if name and name[1].lower() in inside:
                inside[name[1].lower()] += -1 if piece.startswith("</") else 1
            pieces.append(placeholder.sub(literal, piece))
        else:
            pieces.append(placeholder.sub(literal if any(inside.values()) else marker, piece))
    return "".join(pieces), plain


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
    text = clean(text)  # no control characters, no lone surrogates (valid UTF-8)
    nonce = hashlib.sha256(text.encode()).hexdigest()[:8]  # not a word the text contains
    html = markdown_html(_with_markers(text, cards, nonce))
    placed, plain = _place_markers(html, cards, nonce)
    body = _blocks(placed)
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
        untold = _untold(references, cards)
        if untold:
            items += f"<li>{esc(untold)}</li>"
        parts.append(f'<ol class="rds-references">{items}</ol>')
    if plain:
        parts.append(
            f'<div class="rds-answer-note">{number(plain)} more markers are plain text: '
            f"the view opens a card on the first {number(MAX_MARKERS)}</div>"
        )
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


def _untold(references: Sequence[Any] | None, cards: Mapping[int, PostCard]) -> str | None:
    """How many cited posts have no card (past :data:`MAX_MARKERS`), as a line, or None."""
    cited = {ref.citation for ref in references or [] if isinstance(ref, PostReference)}
    more = len(cited - set(cards))
    return f"… and {number(more)} more cited posts" if more else None


def _footnotes(cards: Mapping[int, PostCard], *, markdown: bool) -> list[str]:
    """One footnote per post; every service string is one line (and escaped for markdown)."""
    show = md_text if markdown else one_line
    lines = []
    for card in sorted(cards.values(), key=lambda card: card.citation):
        lines.append(f"[{card.citation}] {show(card.head)}")
        if card.title or card.excerpt:
            lines.append(f"    “{show(_excerpt(card.title or card.excerpt))}”")
        if card.stats:
            lines.append(f"    {card.stats}")
        if card.url:
            url = safe_url(card.url)
            if url is None:  # not a link target: shown as inert text
                lines.append(f"    {show(card.url)}")
            else:
                lines.append(f"    <{url}>" if markdown else f"    {url}")
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
    lines = [clean(text).rstrip()]
    if cards:
        untold = _untold(references, cards)
        lines += [
            "",
            "References",
            *_footnotes(cards, markdown=False),
            *([untold] if untold else []),
        ]
    entities = [ref for ref in references or [] if isinstance(ref, EntityReference)]
    if entities:
        lines += [
            "",
            "About: " + ", ".join(f"{one_line(ref.type)} {one_line(ref.id)}" for ref in entities),
        ]
    if note:
        lines += ["", f"({one_line(note)})"]
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
    wire = [  # the cards' references only: a marker past MAX_MARKERS is not linked
        ref.to_wire()
        for ref in references or []
        if isinstance(ref, PostReference) and ref.citation in cards
    ]
    urls = {(card.source, card.id): card.url for card in cards.values() if card.url}
    linked = link_markers(safe_markdown(text), wire, urls).rstrip()
    if not cards:
        return linked
    notes = [
        f"- {line.strip()}" if line.startswith("[") else f"  {line.strip()}"
        for line in _footnotes(cards, markdown=True)
    ]
    untold = _untold(references, cards)
    if untold:
        notes.append(f"- {untold}")
    return "\n".join([linked, "", "**References**", "", *notes])


def answer_bundle(answer: Any) -> dict[str, str]:
    """The display bundle of an Answer: ``text/html``, ``text/markdown``, ``text/plain``.

    Example:
        >>> answer = client.ask("Top complaints?").wait()  # doctest: +SKIP
        >>> "rds-marker" in answer_bundle(answer)["text/html"]  # doctest: +SKIP
        True
    """
    posts, note = cited_posts(answer, shown=True)
    cards = post_cards(answer.references, posts)
    text = answer.text or ""
    footer = f"chat <code>{esc(answer.chat_id)}</code> · message <code>{esc(answer.id)}</code>"
    return {
        "text/html": message_html(text, answer.references, cards, note=note, footer=footer),
        "text/markdown": message_markdown(text, answer.references, cards),
        "text/plain": message_plain(text, answer.references, cards, note),
    }
