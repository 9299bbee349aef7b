"""A scenario's currency changes in words: what the history entry, the decision link and the workbooks say.

Each change is recorded on the scenario (``Scenario.currency_conversions``, by ``tco.services.currency``) as plain
data: ``{"from", "to", "mode": "convert" | "relabel", "rate", "rate_date", "source", "via", "at"}``.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from pricing.fx import Rate
from tco.presentation.inputs import option_fact, scenario_fact, value_words


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


def too_large_words(rate: Rate, too_large: list, limit: Decimal) -> str:
    """Why a conversion at ``rate`` was refused, each input it would take past ``limit`` in the page's words
    (``TooLarge`` of ``tco.services.currency``): "Own 8x H100 → Capex, whole option: EUR 99,000,000,000,000 would
    be $106,920,000,000,000; up to EUR 92,592,592,592,591.66 converts"."""
    found = []
    for item in too_large:
        fact = scenario_fact(item.field) if not item.owner else option_fact(item.field)
        label = f"{item.owner} → {fact.label}" if item.owner else fact.label
        what = f"the range of {label}: its {item.end}" if item.end else f"{label}:"
        found.append(
            f"{what} {value_words(fact, item.value, rate.base)} would be "
            f"{value_words(fact, item.converted, rate.quote)}; "
            f"up to {value_words(fact, item.largest, rate.base)} converts"
        )
    return (
        f"Not converted: at 1 {rate.base} = {rate.rate_text} {rate.quote} these inputs would be too large to store "
        f"(an input holds at most {limit:,}): {'; '.join(found)}. Nothing was changed: lower "
        f"them, or keep the numbers as they are."
    )
