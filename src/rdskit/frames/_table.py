"""Plain-text and HTML tables for the research results' reprs (``Comparison``,
``Agreement``).

The HTML uses inline styles only (JupyterLab strips ``<style>`` blocks from untrusted
notebooks, GitHub and nbviewer too) and escapes every cell through rdskit's shared safe
path (:func:`rdskit._safe.clean`, then HTML escaping): group names are dataset names and
labels, i.e. text a service or a user typed.

Example:
    >>> print(text_table(["group", "share"], [["a", "0.5"], ["<b>", "1"]]))
    group  share
    a        0.5
    <b>        1
    >>> "&lt;b&gt;" in html_table(["group"], [["<b>"]], title="t", note="n")
    True
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from rdskit._safe import clean, one_line

__all__ = ["esc", "html_table", "interval", "text_table"]

_CELL = "padding:2px 8px;border-bottom:1px solid #ddd;"


def esc(value: Any) -> str:
    """``value`` as HTML text: control characters dropped, ``& < > " '`` escaped."""
    return html.escape(clean(str(value)), quote=True)


def interval(low: float, high: float, digits: int = 3) -> str:
    """``[low, high]`` rounded (``"–"`` when not defined)."""
    if low != low or high != high:  # NaN
        return "–"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell: the first left-aligned, the others right;
    every cell made one line of printable text."""
    cells = [[one_line(str(c)) for c in row] for row in [headers, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]
    return "\n".join(lines)


def html_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str, note: str = ""
) -> str:
    """A titled table with a note under it, inline styles only, every cell escaped."""
    head = "".join(
        f'<th style="{_CELL}text-align:{"left" if i == 0 else "right"}">{esc(h)}</th>'
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="{_CELL}text-align:{"left" if i == 0 else "right"}">{esc(c)}</td>'
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    note_html = f'<p style="margin:4px 0;font-size:90%">{esc(note)}</p>' if note else ""
    return (
        f'<div><p style="margin:4px 0;font-weight:bold">{esc(title)}</p>'
        f'<table style="border-collapse:collapse"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>{note_html}</div>"
    )
