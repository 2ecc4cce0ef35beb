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
- :func:`safe_markdown` makes the assistant's markdown inert for markdown viewers: no raw
  HTML, images become links, links and definitions to other schemes become text;
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

import html
import ipaddress
import re
from typing import Any
from urllib.parse import quote, urlsplit

__all__ = [
    "SAFE_SCHEMES",
    "clean",
    "cleartext_remote",
    "md_text",
    "one_line",
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
_DEST = re.compile(r"\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)")
_DEFINITION = re.compile(r"^( {0,3})\[([^\]\n]+)\]:", re.MULTILINE)


def _unsafe_destination(dest: str) -> bool:
    """Whether a markdown link destination resolves to anything but an http(s) URL.

    Markdown decodes entities and backslash escapes in destinations
    (``jav&#97;script:``), so the check reads the decoded form.
    """
    decoded = html.unescape(dest.strip("<>")).replace("\\", "")
    decoded = "".join(decoded.split())
    return safe_url(decoded) is None


def safe_markdown(text: Any) -> str:
    """The assistant's markdown made inert for any markdown viewer.

    Control characters are removed; ``<`` is written as ``&lt;`` (no raw HTML, no
    autolinks); an image ``![alt](url)`` becomes the link ``[alt](url)`` (nothing loads by
    itself); a link or a link definition whose target is not an http(s) URL stays text.
    Markdown decodes entities, so readers still see ``!`` and ``<``.

    Example:
        >>> safe_markdown("![x](http://h.example/b.png) [y](javascript:alert(1)) <img>")
        '&#33;[x](http://h.example/b.png) [y]\\\\(javascript:alert(1)) &lt;img>'
    """
    body = clean(text).replace("<", "&lt;")
    # "&#33;" is "!" for the reader but never starts an image (a backslash could be escaped).
    body = body.replace("![", "&#33;[")

    def link(found: re.Match[str]) -> str:
        return "]\\(" + found[0][2:] if _unsafe_destination(found[1]) else found[0]

    body = _DEST.sub(link, body)
    # Reference definitions ("[label]: url") never make links: the label is escaped.
    return _DEFINITION.sub(lambda found: f"{found[1]}\\[{found[2]}]:", body)
