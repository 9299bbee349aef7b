"""How every number reaches a person: one rounding rule, one money format, one percent format.

Rounding is half-up on the decimal value a person reads (``Decimal(str(x))``), never on the binary float,
so 2.995 shows as 3.00 and 0.535 as 53.5%. Which precision goes where:

- totals (annual cost, NPV, total cost, savings): whole currency units, ``format_money(x)`` → "$1,234,567";
- prices and other per-unit money ($/GPU-hour, per million tokens): cents, ``format_money(x, places=2)`` → "$2.99";
- per-unit money that is worth less than ten cents (cost per accepted response is typically $0.0002):
  ``format_unit_money`` keeps two significant figures, because cents would show a misleading "$0.00";
- headline sentences: ``format_money_compact`` → "$107k", "$1.23M" (three significant figures);
- utilization and other fractions: 0.1 percentage point, ``format_pct(0.535)`` → "53.5%" (no space, always).

Negative amounts use the minus sign U+2212 (U+2212) before the currency symbol. Missing values show as "—".
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from lib.currencies import DEFAULT_CURRENCY

DASH = "—"
MINUS = "\u2212"
CURRENCY_SYMBOLS = {"USD": "$"}

Number = float | int | Decimal


_QUANTA = {places: Decimal(1).scaleb(-places) for places in range(13)}  # 1, 0.1, ..., 1E-12


def round_half_up(value: Number, places: int) -> Decimal:
    """Round the decimal form of ``value`` to ``places`` decimals, halves away from zero."""
    decimal_value = Decimal(str(value))
    if not decimal_value.is_finite():
        raise ValueError(f"cannot round {value!r}: not a finite number")
    quantum = _QUANTA.get(places) or Decimal(1).scaleb(-places)
    return decimal_value.quantize(quantum, rounding=ROUND_HALF_UP)


def currency_prefix(currency: str = DEFAULT_CURRENCY) -> str:
    """ "$" for US dollars, otherwise the ISO code and a space ("EUR ")."""
    return CURRENCY_SYMBOLS.get(currency, f"{currency} ")


def _with_sign(amount: Decimal, body: str, *, plus: bool = False) -> str:
    if amount < 0:
        return MINUS + body
    if plus and amount > 0:
        return "+" + body
    return body


def format_money(value: Number | None, currency: str = DEFAULT_CURRENCY, places: int = 0) -> str:
    """ "$1,234,567" (places=0, totals) or "$2.99" (places=2, per-unit); other currencies as "EUR 1,234"."""
    if value is None:
        return DASH
    amount = round_half_up(value, places)
    return _with_sign(amount, f"{currency_prefix(currency)}{abs(amount):,.{places}f}")


def format_signed_money(value: Number | None, currency: str = DEFAULT_CURRENCY, places: int = 0) -> str:
    """Like format_money with an explicit "+" for positive differences: "+$1,234", "$0", minus sign for negatives."""
    if value is None:
        return DASH
    amount = round_half_up(value, places)
    return _with_sign(amount, f"{currency_prefix(currency)}{abs(amount):,.{places}f}", plus=True)


def format_signed_number(value: Number | None, places: int = 0) -> str:
    """A difference of plain quantities (GPU-hours) with its sign, the minus as the money columns write it: "+876",
    "-876" written with the minus sign (MINUS), "0"."""
    if value is None:
        return DASH
    amount = round_half_up(value, places)
    return _with_sign(amount, f"{abs(amount):,.{places}f}", plus=True)


def unit_money_places(value: Number) -> int:
    """Decimals for a per-unit amount: cents from ten cents up, two significant figures below."""
    magnitude = abs(Decimal(str(value)))
    if magnitude == 0 or round_half_up(magnitude, 2) >= Decimal("0.1"):
        return 2
    places = 1 - magnitude.adjusted()
    if round_half_up(magnitude, places).adjusted() > magnitude.adjusted():  # 0.0996 → 0.10, not 0.100
        places -= 1
    return max(places, 2)


def format_unit_money(value: Number | None, currency: str = DEFAULT_CURRENCY) -> str:
    """Per-unit cost: "$3.99", "$0.054", "$0.00016" (see the module docstring)."""
    if value is None:
        return DASH
    return format_money(value, currency, places=unit_money_places(value))


def format_money_compact(value: Number | None, currency: str = DEFAULT_CURRENCY) -> str:
    """Three significant figures with k/M/B for sentences: "$107k", "$12.3k", "$1.23M"; below 1,000 whole units."""
    if value is None:
        return DASH
    amount = abs(Decimal(str(value)))
    prefix = currency_prefix(currency)
    whole = round_half_up(amount, 0)
    sign = MINUS if value < 0 and amount >= Decimal("0.5") else ""
    if whole < 1000:
        return f"{sign}{prefix}{whole:,}"
    for divisor, suffix in ((Decimal(10) ** 3, "k"), (Decimal(10) ** 6, "M"), (Decimal(10) ** 9, "B")):
        scaled = amount / divisor
        rounded = round_half_up(scaled, max(0, 2 - scaled.adjusted()))
        rounded = round_half_up(scaled, max(0, 2 - rounded.adjusted()))  # 9.996 → 10.0, not 10.00
        if rounded < 1000 or suffix == "B":
            return f"{sign}{prefix}{rounded:,f}{suffix}"
    raise AssertionError("unreachable")


def format_pct(value: Number | None, places: int = 1, *, plus: bool = False) -> str:
    """A fraction as a percentage to 0.1 point, half-up: 0.535 → "53.5%", 0.0005 → "0.1%"; ``plus`` signs a rise
    ("+3.2%", for a change)."""
    if value is None:
        return DASH
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"cannot format {value!r} as a percentage")
    percent = round_half_up(Decimal(str(value)) * 100, places)
    return _with_sign(percent, f"{abs(percent)}%", plus=plus)


def format_month(month: int | None) -> str:
    """Month m of the horizon (1-based) with its year: "month 14 (year 2)"."""
    if month is None:
        return DASH
    return f"month {month} (year {(month - 1) // 12 + 1})"


def format_months(count: int) -> str:
    """A duration in months: "1 month", "36 months"."""
    return "1 month" if count == 1 else f"{count} months"


# The engine's `npv` is the present value of cost (discounted cash costs, resale credited): the words users read
# for it everywhere (tables, charts, exports), never the bare "NPV".
PRESENT_VALUE = "present value of cost"
