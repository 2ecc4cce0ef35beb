"""Small formatting helpers shared by the progress display, the answer view and the reprs.

Every value that reaches HTML goes through :func:`esc`; markup is built from these pieces
only. Colours use JupyterLab's CSS variables with light-theme fallbacks, so the output
reads well in the light and dark themes and outside JupyterLab.

Example:
    >>> esc("<b>"), number(1234567), amount(Decimal("40.000000"))
    ('&lt;b&gt;', '1,234,567', '40')
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

__all__ = [
    "DASH",
    "REPR_CSS",
    "amount",
    "esc",
    "kv_table",
    "number",
    "repr_box",
    "table",
    "when",
]

DASH = "—"
"""Shown for a value the service did not send."""

_SIX = Decimal("0.000001")

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
    """HTML-escaped text of ``value``; None becomes a dash."""
    return DASH if value is None else html.escape(str(value))


def number(value: int | float | None) -> str:
    """A count with thousands separators; None becomes a dash."""
    if value is None:
        return DASH
    return f"{value:,}" if isinstance(value, int) else f"{value:,.4g}"


def amount(value: Decimal | None) -> str:
    """Credits or USD for display: six decimals at most, no trailing zeros.

    Rounding is for display only; the amounts themselves stay exact.

    Example:
        >>> amount(Decimal("0.444999999999999")), amount(Decimal("1780"))
        ('0.445', '1780')
    """
    if value is None:
        return DASH
    text = f"{value.quantize(_SIX, rounding=ROUND_HALF_EVEN):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


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


def repr_box(kind: str, title: str, body: str, *, error: bool = False) -> str:
    """The frame of every rich repr: scoped CSS, a class per kind, a title and a body."""
    classes = f"rds-repr rds-{kind}" + (" rds-error" if error else "")
    return f'<div class="{classes}"><style>{REPR_CSS}</style><h4>{title}</h4>{body}</div>'
