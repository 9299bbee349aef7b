"""A rental's price path in words when it follows the Market's trend (its ``price_path_source``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from lib.formatting import format_pct


def price_path_words(source: dict[str, Any] | None, *, term_label: str) -> str:
    """ "-18.3% a year: the trend of H100 SXM on demand prices in USD over the 12 months to 2026-11-30 (52 weekly
    medians of 40 offerings; 95 % interval -25.0% to -11.2% a year), adopted on 2026-12-02." ("" without a source).
    ``term_label``: the pricing term in the page's words ("on demand")."""
    if not source:
        return ""

    def pct(key: str) -> str:
        return format_pct(Decimal(str(source.get(key, "0"))), plus=True)

    offerings = source.get("offerings")
    return (
        f"{pct('change_per_year')} a year: the trend of {source.get('gpu_model')} {term_label} prices in "
        f"{source.get('currency')} over the {source.get('months')} months to {source.get('last_day')} "
        f"({source.get('weeks')} weekly medians of {offerings} offering{'' if offerings == 1 else 's'}; 95 % interval "
        f"{pct('low')} to {pct('high')} a year), adopted on {source.get('adopted_on')}."
    )
