"""Template filters that format exactly like lib.formatting: ``{% load money %}{{ price|money_cents:currency }}``.

Templates format numbers with these filters (the results tables, the cards, the Market); charts, exports and
sentences built in Python use the same ``lib.formatting`` functions. Only filters a template uses are kept."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import template

from lib.currencies import DEFAULT_CURRENCY
from lib.formatting import DASH, format_money, format_pct, format_signed_money, format_unit_money

register = template.Library()


def _number(value: object) -> float | int | Decimal | None:
    """Numbers pass, numeric strings become Decimal; None, "" and anything unreadable become None (shown as "—")."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float | Decimal):
        return value
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


@register.filter
def money(value: object, currency: str = DEFAULT_CURRENCY) -> str:
    """Whole currency units for totals: "$1,234,567"."""
    return format_money(_number(value), currency or DEFAULT_CURRENCY)


@register.filter
def money_cents(value: object, currency: str = DEFAULT_CURRENCY) -> str:
    """Cents for prices: "$2.99"."""
    return format_money(_number(value), currency or DEFAULT_CURRENCY, places=2)


@register.filter
def unit_money(value: object, currency: str = DEFAULT_CURRENCY) -> str:
    """Per-unit costs: cents, or two significant figures below ten cents ("$0.00016")."""
    return format_unit_money(_number(value), currency or DEFAULT_CURRENCY)


@register.filter
def signed_money(value: object, currency: str = DEFAULT_CURRENCY) -> str:
    """Differences: "+$12,345", "$0", a minus sign (U+2212) for negatives."""
    return format_signed_money(_number(value), currency or DEFAULT_CURRENCY)


@register.filter
def pct(value: object) -> str:
    """A 0..1 fraction as a percentage to 0.1 point: "53.5%"."""
    number = _number(value)
    return DASH if number is None else format_pct(number)
