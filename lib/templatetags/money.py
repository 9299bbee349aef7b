"""Template filters that format exactly like lib.formatting: ``{% load money %}{{ price|money_cents:currency }}``.

Only the filters a template uses are kept: numbers computed in Python (tables, charts, exports) are formatted by the
same ``lib.formatting`` functions."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django import template

from lib.formatting import DASH, format_money, format_pct

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
def money_cents(value: object, currency: str = "USD") -> str:
    """Cents for prices: "$2.99"."""
    return format_money(_number(value), currency or "USD", places=2)


@register.filter
def pct(value: object) -> str:
    """A 0..1 fraction as a percentage to 0.1 point: "53.5%"."""
    number = _number(value)
    return DASH if number is None else format_pct(number)
