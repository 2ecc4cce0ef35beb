"""Amounts for people: credits and USD as a person reads them, in one place.

Objects keep exact six-decimal :class:`~decimal.Decimal` amounts; only their display is
rounded: credits to at most two decimals (``200``, ``12,000``, ``0.5``), USD to cents
(``2.97``). A non-zero amount too small for that keeps two significant digits
(``0.0049``) instead of showing as zero. Used by reprs, magics, error messages and the demo.

Example:
    >>> from decimal import Decimal
    >>> money(Decimal("200.000000"), Decimal("2.966667"))
    '200 credits (2.97 USD)'
    >>> credits_text(Decimal("12000.5")), usd_text(Decimal("0.004866"))
    ('12,000.5', '0.0049')
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

__all__ = ["credits_text", "money", "usd_text"]

UNKNOWN = "unknown"
"""Shown for an amount that is not known (never zero)."""

_CENT = Decimal("0.01")


def _decimal(value: Decimal | int | float | str) -> Decimal:
    # A float goes through its shortest repr, so 0.0196 stays 0.0196.
    return Decimal(repr(value) if isinstance(value, float) else value)


def _people(value: Decimal, *, cents: bool) -> str:
    if value == 0:
        return "0"
    if abs(value) < _CENT:  # two significant digits rather than a misleading "0.00"
        digits = 1 - value.adjusted()  # places after the point for 2 significant digits
        rounded = value.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_EVEN)
        return f"{rounded:f}".rstrip("0")
    rounded = value.quantize(_CENT, rounding=ROUND_HALF_EVEN)
    text = f"{rounded:,.2f}"
    if not cents:  # credits: no trailing zeros ("200", "0.5")
        text = text.rstrip("0").rstrip(".")
    return text


def credits_text(value: Decimal | int | float | str | None) -> str:
    """A credit amount for people (no unit): at most two decimals, thousands separated.

    Example:
        >>> credits_text("200.000000"), credits_text(Decimal("0.5")), credits_text(None)
        ('200', '0.5', 'unknown')
    """
    return _text(value, cents=False)


def usd_text(value: Decimal | int | float | str | None) -> str:
    """A USD amount for people (no unit): cents, thousands separated; ``0`` for zero.

    Example:
        >>> usd_text("2.966667"), usd_text(1780), usd_text(0)
        ('2.97', '1,780.00', '0')
    """
    return _text(value, cents=True)


def money(
    credits: Decimal | int | float | str | None, usd: Decimal | int | float | str | None = None
) -> str:
    """``"200 credits (2.97 USD)"``; the known side alone when the other is None.

    Example:
        >>> money(50), money(None, "0.98"), money(None, None)
        ('50 credits', '0.98 USD', 'unknown')
    """
    if credits is None:
        return UNKNOWN if usd is None else f"{usd_text(usd)} USD"
    unit = "credit" if _decimal_or_none(credits) == 1 else "credits"
    shown = f"{credits_text(credits)} {unit}"
    return shown if usd is None else f"{shown} ({usd_text(usd)} USD)"


def _text(value: Decimal | int | float | str | None, *, cents: bool) -> str:
    if value is None:
        return UNKNOWN
    try:
        return _people(_decimal(value), cents=cents)
    except (InvalidOperation, ValueError):
        return str(value)  # not a number: shown as given rather than hidden


def _decimal_or_none(value: Decimal | int | float | str) -> Decimal | None:
    try:
        return _decimal(value)
    except (InvalidOperation, ValueError):
        return None
