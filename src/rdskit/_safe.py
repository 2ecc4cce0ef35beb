"""Text safety for every string the service sends: one place, used by every output.

The service's strings (dataset names, post texts, author names, URLs, the assistant's
markdown) come from social media and from a language model: any of them may be hostile.
Every output of rdskit that shows one goes through this module (HTML builds on it in
:mod:`rdskit.jupyter._html`):

- :func:`clean` drops control characters (C0 but tab/newline, DEL, C1, bidi overrides)
  and turns lone surrogates into U+FFFD, so text is valid UTF-8 and cannot drive a
  terminal or reorder what a reader sees;
- :func:`one_line` also collapses whitespace: a name or a title stays one line, so a
  newline cannot inject a heading or a fake footnote;
- :func:`md_text` escapes markdown metacharacters (a name is shown, never interpreted);
- :func:`safe_url` keeps ``http``/``https`` URLs only, percent-encoding whatever could end
  a markdown link, an autolink or an HTML attribute; anything else is None (shown as text);
- :func:`safe_markdown` makes the assistant's markdown inert for markdown viewers: parsed
  by a CommonMark parser and written back with no raw HTML, images as links, links to
  other schemes as text and no link reference definitions;
- :func:`terminal` is :func:`clean` for terminals (escape sequences, OSC 52 clipboard
  writes and carriage-return overwrites removed).

Example:
    >>> one_line("Ann\\n# Fake heading\\x1b]52;c;SGk=\\x07")
    'Ann # Fake heading]52;c;SGk='
    >>> safe_url("javascript:alert(1)") is None, safe_url("https://x.example/a b>c")
    (True, 'https://x.example/a%20b%3Ec')
    >>> md_text("**Oat** [x](y)")
    '\\\\*\\\\*Oat\\\\*\\\\* \\\\[x\\\\]\\\\(y\\\\)'
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import quote, urlsplit

import mistune
from mistune.core import BlockState
from mistune.renderers.markdown import MarkdownRenderer

__all__ = [
    "SAFE_SCHEMES",
    "clean",
    "cleartext_remote",
    "md_text",
    "one_line",
    "over_parse_budget",
    "safe_markdown",
    "safe_url",
    "terminal",
]

SAFE_SCHEMES = ("http", "https")
"""The only URL schemes written into a link; every other URL is shown as text."""

# C0 controls but \t and \n, DEL, C1 controls, and the bidi/format controls that reorder or
# hide text (Trojan Source): none of them has a place in a name, a post or an answer.
_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)
_SURROGATES = re.compile("[\ud800-\udfff]")
# Characters that are safe to leave unencoded in a URL written into markdown or HTML:
# RFC 3986 reserved and unreserved characters except those that end a markdown link or
# autolink, or an HTML attribute ( ( ) < > " ' ` and space ), plus "%" for existing escapes.
_URL_SAFE = "/:@!$&*+,;=?#[]~%-._"
_NOT_IN_HOST = frozenset("\"'<>`\\{}|^() ")
_MD_META = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~&])")


def clean(value: Any, *, newlines: bool = True) -> str:
    """``str(value)`` without control characters and with lone surrogates replaced.

    ``\\r\\n`` and ``\\r`` become ``\\n`` (a bare carriage return overwrites a terminal
    line); with ``newlines=False`` newlines and tabs become spaces.

    Example:
        >>> clean("a\\r\\nb\\x00c\\u202ed\\ud800")
        'a\\nbcd\\ufffd'
    """
    text = str(value).replace("\r\n", "\n").replace("\r", "\n")
    text = _SURROGATES.sub("\ufffd", _CONTROLS.sub("", text))
    return text if newlines else text.replace("\n", " ").replace("\t", " ")


def one_line(value: Any) -> str:
    """:func:`clean` text on one line, runs of whitespace collapsed to one space.

    Example:
        >>> one_line("  Oat\\n\\n  milk\\t ")
        'Oat milk'
    """
    return " ".join(clean(value, newlines=False).split())


def md_text(value: Any) -> str:
    """One-line text with markdown (and HTML) metacharacters backslash-escaped.

    Example:
        >>> md_text("# 1. <b>_x_</b>")
        '\\\\# 1\\\\. \\\\<b\\\\>\\\\_x\\\\_\\\\</b\\\\>'
    """
    return _MD_META.sub(r"\\\1", one_line(value))


def safe_url(value: Any) -> str | None:
    """An ``http(s)`` URL made safe to write into markdown or HTML, else None.

    Control characters and whitespace around it are dropped; characters that could end
    a link or an attribute are percent-encoded. Schemes other than http/https (e.g.
    ``javascript:``, ``data:``, ``file:``), URLs without a host and relative URLs give None.

    Example:
        >>> safe_url(" HTTPS://r.example/p?q=1&x=(2) "), safe_url("//evil.example/x")
        ('https://r.example/p?q=1&x=%282%29', None)
    """
    if not isinstance(value, str):
        return None
    text = one_line(value).replace(" ", "%20")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    if parts.scheme.lower() not in SAFE_SCHEMES or not parts.hostname:
        return None
    if any(char in parts.netloc for char in _NOT_IN_HOST):
        return None
    # The host stays as written (an international name is not percent-encoded).
    url = f"{parts.scheme}://{parts.netloc}{quote(parts.path, safe=_URL_SAFE)}"
    if "?" in text:
        url += "?" + quote(parts.query, safe=_URL_SAFE)
    if "#" in text:
        url += "#" + quote(parts.fragment, safe=_URL_SAFE)
    return url


def cleartext_remote(url: str) -> bool:
    """Whether ``url`` is ``http://`` to a host that is not this machine (a key sent there
    travels unencrypted).

    Example:
        >>> cleartext_remote("http://rds.example.com"), cleartext_remote("http://127.0.0.1:8000")
        (True, False)
        >>> cleartext_remote("https://rds.example.com"), cleartext_remote("http://localhost:1")
        (False, False)
    """
    parts = urlsplit(url.strip())
    if parts.scheme.lower() != "http":
        return False
    host = (parts.hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def terminal(value: Any) -> str:
    """Text safe to print to a terminal: no escape sequences, no carriage returns.

    ESC, BEL and the C1 controls (CSI ``\\x9b``, OSC ``\\x9d``) are removed, so colour
    codes, cursor moves, title changes and OSC 52 clipboard writes never reach the
    terminal; newlines and tabs stay.

    Example:
        >>> terminal("ok\\x1b]52;c;ZXZpbA==\\x07 \\x1b[2Jdone")
        'ok]52;c;ZXZpbA== [2Jdone'
    """
    return clean(value)


# -- markdown --------------------------------------------------------------------------
# What could turn text into markup a viewer acts on (links, images, HTML, code spans),
# escaped in text so a re-parse keeps it text (the backslash first). Emphasis and headings
# are left alone: the worst they do is style text (a line's block marker is escaped by the
# renderer).
_INLINE_META = ("\\", "`", "[", "]", "!")
# A citation marker "[N]" is unescaped (link_markers links it) unless what follows could
# make it a link ("(", "[") or, at the start of a line, a definition (":"); no definition
# is ever written, so "[N]" alone is text.
_ESCAPED_MARKER = re.compile(r"\\\[(\d{1,9})\\\](?![(\[])(:?)")
# What may precede a definition on its line: indentation and container markers.
_LINE_PREFIX = " \t>*+-0123456789.)"
# More delimiters or lines than any real answer has (a link costs about six delimiters):
# past either, the answer is escaped whole instead of parsed. The parser is linear, but at
# several microseconds per delimiter or line; escaping is a few C-level passes.
_PARSE_BUDGET = 5_000
# "~" and "|": the HTML view parses strikethrough and tables too.
_MARKS = ("[", "]", "<", ">", "`", "*", "_", "!", "&", "\\", "\n", "~", "|")


def over_parse_budget(text: str) -> bool:
    """Whether ``text`` holds more markdown delimiters or lines (5,000) than any real
    answer: every markdown view escapes such a text instead of parsing it, so its time
    stays linear whatever the text holds.

    Example:
        >>> over_parse_budget("[" * 5_001), over_parse_budget("**Oat** [1]")
        (True, False)
    """
    return sum(text.count(mark) for mark in _MARKS) > _PARSE_BUDGET


def _escape_inline(text: str) -> str:
    for char in _INLINE_META:
        text = text.replace(char, "\\" + char)
    # "<" as an entity, never "\<": a viewer's autolinker (GFM's, in JupyterLab) may take
    # the backslash into a URL that ends at "<", and the "<" would open a tag again.
    return text.replace("<", "&lt;")


class _InertRenderer(MarkdownRenderer):
    """Writes parsed markdown back as markdown with nothing a viewer acts on by itself.

    Every link has been resolved by the parser (inline or through a definition anywhere:
    block quotes, list items, escaped brackets, two lines); an http(s) one is written inline,
    any other becomes its text. No definition is written, so nothing can refer to one.
    Images become links, HTML becomes text.
    """

    def text(self, token: dict[str, Any], state: BlockState) -> str:
        return _escape_inline(token["raw"])

    def link(self, token: dict[str, Any], state: BlockState) -> str:
        url = safe_url(token["attrs"].get("url"))
        text = self.render_children(token, state)
        if url is None:
            return text
        title = clean(token["attrs"].get("title") or "", newlines=False)
        title = title.replace("\\", "\\\\").replace('"', '\\"')
        shown = f' "{title}"' if title else ""
        return f"[{text}]({url}{shown})"

    def image(self, token: dict[str, Any], state: BlockState) -> str:
        return self.link(token, state)  # nothing loads by itself

    def inline_html(self, token: dict[str, Any], state: BlockState) -> str:
        return self.text(token, state)

    def block_html(self, token: dict[str, Any], state: BlockState) -> str:
        return _escape_inline(str(token["raw"]).rstrip("\n")) + "\n\n"

    def render_referrences(self, state: BlockState) -> list[str]:
        return []


def safe_markdown(text: Any) -> str:
    """The assistant's markdown made inert for any markdown viewer.

    The text is parsed as CommonMark (mistune) and written back: links to http(s) URLs stay
    links (written inline, wherever their definition was); links to anything else become
    their text; link reference definitions are not written; an image becomes a link
    (nothing loads by itself); raw HTML and control characters become text. A text with
    more than 5,000 markdown delimiters or lines (no real answer has them) is not parsed:
    every character that could make a link, an image, HTML or code is escaped. Time is
    linear in the length of the text, whatever it holds.

    Example:
        >>> safe_markdown("![x](http://h.example/b.png) [y](javascript:alert(1)) <img> [1]")
        '[x](http://h.example/b.png) y &lt;img> [1]'
        >>> safe_markdown("> [r\\\\]]:\\n> javascript:alert(1)\\n\\n[go][r\\\\]]")
        'go'
    """
    body = clean(text)
    if over_parse_budget(body):
        rendered = _escape_inline(body)
    else:
        rendered = str(mistune.Markdown(renderer=_InertRenderer()).parse(body)[0])
    return _unescape_markers(rendered).strip("\n")


def _unescape_markers(text: str) -> str:
    """``\\[N\\]`` -> ``[N]`` where that cannot start a link or a definition (one pass:
    whether text precedes a marker on its line is carried from one marker to the next)."""
    end = 0
    text_before = False  # whether the line holds more than containers before this marker

    def unescape(found: re.Match[str]) -> str:
        nonlocal end, text_before
        gap = text[end : found.start()]
        newline = gap.rfind("\n")
        if newline >= 0:
            text_before = bool(gap[newline + 1 :].strip(_LINE_PREFIX))
        else:
            text_before = text_before or bool(gap.strip(_LINE_PREFIX))
        end = found.end()
        keep = found[2] and not text_before  # "[N]:" where a definition could start
        text_before = True
        return found[0] if keep else f"[{found[1]}]{found[2]}"

    return _ESCAPED_MARKER.sub(unescape, text)
