"""What happens to an option during the horizon, month by month, in words: hardware replaced, a lease ending, a
commitment renewed or ended (docs/money-math.md "Finance depth"). The cumulative cost chart marks them."""

from __future__ import annotations

from lib.currencies import currency_of
from lib.formatting import format_money, format_month, format_unit_money
from tco.engine.catalogue import option_value

from .finance import compared_months

# Event kinds, in the order a chart's legend lists them, with the legend's words.
EVENT_KINDS = {
    "replacement": "Hardware replaced",
    "lease_end": "Lease ends",
    "commitment": "Commitment renews or ends",
}


def _event(kind: str, option: dict, month: int, text: str) -> dict:
    return {"kind": kind, "option": option["name"], "month": month, "text": text}


def _lease_events(option: dict, entered: dict, months: int, currency: str) -> list[dict]:
    term = int(entered.get("lease_term_months") or 0)
    if not term:
        return []
    starts = [0, *(month for month, _ in option.get("replacement_capex") or [])]
    buyout = entered.get("lease_end") == "buyout"
    events = []
    for start in starts:
        end = start + term
        if end > months:
            continue
        if buyout:
            change = float(entered.get("capex_change_per_year") or 0)
            price = float(entered.get("lease_buyout_price") or 0) * (1 + change) ** (start / 12)
            what = f"bought out for {format_money(price, currency)}"
        else:
            what = "the unit is returned" + ("; a new lease starts" if end in starts else "")
        events.append(
            _event("lease_end", option, end, f"{option['name']}: the lease ends in {format_month(end)}: {what}")
        )
    return events


def _replacement_events(option: dict, currency: str) -> list[dict]:
    return [
        _event(
            "replacement",
            option,
            int(month),
            f"{option['name']}: replaced in {format_month(int(month))} by a new unit for "
            f"{format_money(price, currency)}, the old one sold",
        )
        for month, price in option.get("replacement_capex") or []
    ]


def _commitment_events(option: dict, entered: dict, months: int, currency: str) -> list[dict]:
    terms = option.get("commitment_terms") or []
    events = [
        _event(
            "commitment",
            option,
            int(start),
            f"{option['name']}: the commitment renews in {format_month(int(start))} at "
            f"{format_unit_money(price, currency)} per GPU-hour",
        )
        for start, price in terms[1:]
    ]
    term = int(entered.get("commitment_term_months") or 0)
    if terms and term:
        after = int(terms[-1][0]) + term
        if after <= months:
            events.append(
                _event(
                    "commitment",
                    option,
                    after,
                    f"{option['name']}: the last whole commitment term ends; from {format_month(after)} every hour "
                    "is bought on demand",
                )
            )
    return events


def cost_events(document: dict, result: dict) -> list[dict]:
    """Every replacement, lease end and commitment renewal (or end) within the compared months, by month then
    document order. Each: ``kind`` (a key of EVENT_KINDS), ``option`` (its name), ``month`` (1-based) and ``text``
    ("Own 8x H100: replaced in month 24 (year 2) by a new unit for $256,000, the old one sold")."""
    currency = currency_of(result)
    months = compared_months(result)
    entered = document.get("options") or []
    events: list[dict] = []
    for index, option in enumerate(result["options"]):
        inputs = entered[index] if index < len(entered) else {}
        leased = inputs.get("financing") == "lease"
        if leased:
            events += _lease_events(option, inputs, months, currency)
        if not (leased and option_value(inputs, "lease_end") == "return"):
            events += _replacement_events(option, currency)
        events += _commitment_events(option, inputs, months, currency)
    return sorted(events, key=lambda event: event["month"])
