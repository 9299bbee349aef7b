"""Exchange-rate arithmetic, pure: a dated rate with its source, its inverse, cross rates via EUR, conversion.

A rate says how many units of ``quote`` one unit of ``base`` buys on ``rate_date`` (the ECB publishes
EUR → X: "1 EUR = 1.0834 USD"). Converting an amount in ``base`` into ``quote`` multiplies by the rate;
the other way divides (an inverse rate is rounded to twelve significant digits, and that is the rate used
and recorded). Cross rates (USD → JPY) are computed explicitly through EUR from two rates of the
same date and source: ``(JPY per EUR) / (USD per EUR)``. Decimal throughout, so a money input converted
and stored is the number a person computes by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal, localcontext

PIVOT = "EUR"
RATE_DIGITS = 28  # working precision
DERIVED_DIGITS = 12  # an inverse or cross rate is rounded to this many significant digits: the rate used and shown
STORED_PLACES = Decimal("0.0000000001")  # ten decimal places and
STORED_DIGITS = 15  # fifteen significant digits: what every money input stores exactly


@dataclass(frozen=True)
class Rate:
    """``1 base = rate quote`` on ``rate_date``, from ``source``; ``via`` names the pivot of a cross rate."""

    base: str
    quote: str
    rate: Decimal
    rate_date: date | None
    source: str
    via: str = ""

    def __post_init__(self) -> None:
        if self.rate <= 0:
            raise ValueError(f"a rate must be positive; got {self.rate} for {self.base}→{self.quote}")

    @property
    def inverse(self) -> Rate:
        with localcontext() as context:
            context.prec = DERIVED_DIGITS
            return Rate(self.quote, self.base, Decimal(1) / self.rate, self.rate_date, self.source, self.via)

    def convert(self, amount: Decimal) -> Decimal:
        """`amount` in base, as quote, rounded half-even to what a money input stores exactly: ten decimal
        places and fifteen significant digits."""
        with localcontext() as context:
            context.prec = RATE_DIGITS + 12
            converted = (amount * self.rate).quantize(STORED_PLACES)
            context.prec = STORED_DIGITS
            return +converted

    @property
    def rate_text(self) -> str:
        """The rate as plain decimal text (no exponent): what a price's provenance records."""
        return format(self.rate.normalize(), "f")

    def describe(self) -> str:
        """ "1 USD = 0.923 EUR (ECB reference rate, 2026-11-02)": the rate as a person reads it."""
        when = f", {self.rate_date.isoformat()}" if self.rate_date else ""
        via = f", via {self.via}" if self.via else ""
        return f"1 {self.base} = {self.rate_text} {self.quote} ({self.source}{when}{via})"


def identity(currency: str) -> Rate:
    return Rate(currency, currency, Decimal(1), None, "same currency")


def cross(pivot_to_base: Rate, pivot_to_quote: Rate) -> Rate:
    """base → quote through the pivot: two rates quoted from the same pivot on the same date and source."""
    if pivot_to_base.base != pivot_to_quote.base:
        raise ValueError(f"both rates must start from one pivot; got {pivot_to_base.base} and {pivot_to_quote.base}")
    if (pivot_to_base.rate_date, pivot_to_base.source) != (pivot_to_quote.rate_date, pivot_to_quote.source):
        raise ValueError("a cross rate needs two rates of the same date and source")
    with localcontext() as context:
        context.prec = DERIVED_DIGITS
        rate = pivot_to_quote.rate / pivot_to_base.rate
    return Rate(
        pivot_to_base.quote,
        pivot_to_quote.quote,
        rate,
        pivot_to_base.rate_date,
        pivot_to_base.source,
        via=pivot_to_base.base,
    )
