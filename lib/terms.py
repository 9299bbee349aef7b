"""Pricing terms, defined once with their words: what a price file may say, the Market's filter, the price picker's
menu, a picked price's provenance and the decision brief's price table all read this table.

Framework-free (the importers' cell parsers use it too); ``pricing.models.PricingTerm`` is its Django choices.
"""

from __future__ import annotations

PRICING_TERM_LABELS = {
    "on_demand": "On demand",
    "spot": "Spot",
    "reserved_1y": "Reserved 1 year",
    "reserved_3y": "Reserved 3 years",
    "committed": "Committed contract",
}
PRICING_TERMS = tuple(PRICING_TERM_LABELS)
# A year of hours (365 days of 24), the one the money math and the importers share: a reservation's price for its
# whole term is spread over its hours, an annual cost is an hourly one times this (docs/money-math.md).
HOURS_PER_YEAR = 8760


def term_label(term: str) -> str:
    """ "Reserved 1 year"; an unknown term as written, without its underscores."""
    return PRICING_TERM_LABELS.get(term, term.replace("_", " "))
