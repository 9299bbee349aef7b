"""Pure presentation of engine results: formatting, the headline answer and table rows (no database, no request)."""

from __future__ import annotations

from .formatting import (
    DASH,
    MINUS,
    currency_prefix,
    format_money,
    format_money_compact,
    format_month,
    format_months,
    format_pct,
    format_signed_money,
    format_unit_money,
    round_half_up,
    unit_money_places,
)
from .headline import headline
from .kinds import (
    KIND_LABELS,
    KIND_WORDS,
    KINDS,
    OWNED_KINDS,
    RENTAL_KINDS,
    is_on_demand_rental,
    kind_label,
    legend_name,
)
from .rows import break_even_rows, break_even_verdict, option_rows

__all__ = [
    "DASH",
    "KINDS",
    "KIND_LABELS",
    "KIND_WORDS",
    "MINUS",
    "OWNED_KINDS",
    "RENTAL_KINDS",
    "break_even_rows",
    "break_even_verdict",
    "currency_prefix",
    "format_money",
    "format_money_compact",
    "format_month",
    "format_months",
    "format_pct",
    "format_signed_money",
    "format_unit_money",
    "headline",
    "is_on_demand_rental",
    "kind_label",
    "legend_name",
    "option_rows",
    "round_half_up",
    "unit_money_places",
]
