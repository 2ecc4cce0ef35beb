"""Plain-text forms of counts and amounts, shared by the core's progress figures and the
Jupyter layer's views (which add the HTML).

Example:
    >>> number(1234567), number(None), amount(Decimal("40.000000"))
    ('1,234,567', '—', '40')
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from rdskit.models.vocab import CREDIT_PLACES

__all__ = ["DASH", "amount", "number"]

DASH = "—"
"""Shown for a value the service did not send."""


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
    text = f"{value.quantize(CREDIT_PLACES, rounding=ROUND_HALF_EVEN):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
