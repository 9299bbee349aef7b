"""A scenario's currency changes in words: what the history entry, the decision link and the workbooks say.

Each change is recorded on the scenario (``Scenario.currency_conversions``, by ``tco.services.currency``) as plain
data: ``{"from", "to", "mode": "convert" | "relabel", "rate", "rate_date", "source", "via", "at"}``.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pricing.fx import Rate


def conversion_rate(entry: dict) -> Rate:
    """The rate a conversion used, as the Market's rate type (for its one way of being written)."""
    day = entry.get("rate_date")
    return Rate(
        entry["from"],
        entry["to"],
        Decimal(entry["rate"]),
        date.fromisoformat(day) if day else None,
        entry.get("source", ""),
        entry.get("via", ""),
    )


ROUNDING = "amounts rounded to the cent, unit prices to four decimal places"  # tco.engine.catalogue.money_step


def conversion_text(entry: dict) -> str:
    """ "Money inputs converted from USD to EUR at 1 USD = 0.92 EUR (ECB, 2026-11-02), amounts rounded to the cent,
    unit prices to four decimal places"."""
    if entry.get("mode") != "convert":
        return f"Currency relabelled from {entry['from']} to {entry['to']}: the numbers were kept as they were"
    return (
        f"Money inputs converted from {entry['from']} to {entry['to']} at {conversion_rate(entry).describe()}, "
        f"{ROUNDING}"
    )


def converted(entries: list[dict] | None) -> bool:
    """Whether any money input of the scenario went through an exchange rate (else nothing is said about it)."""
    return any(entry.get("mode") == "convert" for entry in entries or ())


def frozen_conversions(entries: list[dict] | None) -> list[dict]:
    """The changes as a decision link freezes them (each with its words); none when nothing was ever converted."""
    if not converted(entries):
        return []
    return [{**entry, "text": entry.get("text") or conversion_text(entry)} for entry in entries or ()]


def conversion_about(entries: list[dict] | None) -> list[tuple[str, str]]:
    """Rows of a workbook's "About this file" sheet: one per change, oldest first (none if never converted)."""
    texts = [entry["text"] for entry in frozen_conversions(entries)]
    return [(f"currency conversion{'' if i == 1 else f' {i}'}", text) for i, text in enumerate(texts, start=1)]
