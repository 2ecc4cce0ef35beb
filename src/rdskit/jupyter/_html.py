"""Small formatting helpers shared by the progress display, the answer view and the reprs.

Every value that reaches HTML goes through :func:`esc` (text and attribute values: control
characters dropped, lone surrogates replaced, ``& < > " '`` escaped, see
:mod:`rdskit._safe`) and every URL through :func:`link` (``http``/``https`` only, anything
else shown as text); markup is built from these pieces only. Colours use
JupyterLab's CSS variables with light-theme fallbacks, so the output reads well in the
light and dark themes and outside JupyterLab.

Example:
    >>> esc("<b>"), number(1234567), amount(Decimal("40.000000"))
    ('&lt;b&gt;', '1,234,567', '40')
    >>> link("javascript:alert(1)", "open")
    'open <code>javascript:alert(1)</code>'

"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from decimal import Decimal  # noqa: F401 - the examples above use it
from typing import Any

from rdskit._safe import clean, one_line, safe_url
from rdskit._text import DASH, amount, number  # plain text: the core's progress uses them too

__all__ = [
    "BOX_STYLES",
    "DASH",
    "REPR_CSS",
    "amount",
    "esc",
    "kv_table",
    "link",
    "number",
    "repr_box",
    "table",
    "when",
]


REPR_CSS = (
    ".rds-repr{font-size:13px;line-height:1.45;max-width:60em;"
    "border:1px solid var(--jp-border-color2,#ddd);border-radius:6px;padding:.5em .8em;"
    "background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#222)}"
    ".rds-repr h4{margin:0 0 .35em;font-size:14px}"
    ".rds-repr table{border-collapse:collapse;margin:.2em 0}"
    ".rds-repr th,.rds-repr td{padding:.15em .7em .15em 0;text-align:left;vertical-align:top;"
    "border:none}"
    ".rds-repr th{color:var(--jp-ui-font-color2,#666);font-weight:normal}"
    ".rds-repr .rds-muted{color:var(--jp-ui-font-color2,#666)}"
    ".rds-repr.rds-error{border-color:var(--jp-error-color1,#d32f2f)}"
    ".rds-repr .rds-yes{color:var(--jp-success-color1,#2e7d32)}"
    ".rds-repr .rds-no{color:var(--jp-ui-font-color3,#999)}"
)


def esc(value: Any) -> str:
    """HTML-escaped text of ``value`` (safe in text and in quoted attributes); None: a dash.

    Example:
        >>> esc('"><img src=x onerror=alert(1)>\x1b[31m')
        '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;[31m'
    """
    return DASH if value is None else html.escape(clean(value), quote=True)


def link(url: Any, label: str, css_class: str = "", *, markup: bool = False) -> str:
    """A link that opens ``url`` in a new tab and tells it nothing about the notebook.

    Only ``http``/``https`` URLs become links (see :func:`rdskit._safe.safe_url`); any other
    value is shown as text beside the label, so a ``javascript:`` URL never becomes a link.
    ``label`` is text, or with ``markup=True`` HTML already built from escaped pieces
    (a markdown link's rendered label). Every link of rdskit's HTML is made here.

    Example:
        >>> link("https://r.example/p?a=1&b=2", "post")[:52]
        '<a href="https://r.example/p?a=1&amp;b=2" target="_b'
    """
    shown = label if markup else esc(label)
    href = safe_url(url)
    if href is None:
        return f"{shown} <code>{esc(one_line(url))}</code>"
    attr = f' class="{esc(css_class)}"' if css_class else ""
    return f'<a{attr} href="{esc(href)}" target="_blank" rel="noopener noreferrer">{shown}</a>'


def when(value: datetime | None, *, seconds: bool = False) -> str:
    """A UTC timestamp as ``2026-01-02 09:30 UTC`` (with seconds if asked)."""
    if value is None:
        return DASH
    form = "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M"
    return value.astimezone(UTC).strftime(form) + " UTC"


def kv_table(rows: Iterable[tuple[str, str]]) -> str:
    """A two-column table of (label, already-escaped HTML) rows."""
    body = "".join(f"<tr><th>{esc(label)}</th><td>{value}</td></tr>" for label, value in rows)
    return f"<table>{body}</table>"


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table with a header row; cells are already-escaped HTML."""
    head = "".join(f"<th>{esc(name)}</th>" for name in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# The frame in inline styles too: an untrusted notebook strips the <style> (its tables
# then take JupyterLab's own table style, which reads as well); no CSS variables, which
# the sanitizer drops, and a border that reads on light and dark themes.
_BOX_INLINE = (
    "box-sizing:border-box;max-width:60em;font-size:13px;line-height:1.45;"
    "padding:.5em .8em;border-radius:6px;overflow-x:auto;border:1px solid {colour}"
)
BOX_STYLES = (
    _BOX_INLINE.format(colour="rgba(128,128,128,.45)"),
    _BOX_INLINE.format(colour="#d32f2f"),
)
"""The inline styles of :func:`repr_box` (the security tests allow exactly these)."""


def repr_box(kind: str, title: str, body: str, *, error: bool = False) -> str:
    """The frame of every rich repr: scoped CSS, a class per kind, a title and a body."""
    classes = f"rds-repr rds-{kind}" + (" rds-error" if error else "")
    style = BOX_STYLES[1 if error else 0]
    return (
        f'<div class="{classes}" style="{style}"><style>{REPR_CSS}</style><h4>{title}</h4>'
        f"{body}</div>"
    )
