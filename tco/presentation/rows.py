"""Table rows for the results panel: each number raw; templates format them with lib's filters (load money)."""

from __future__ import annotations

from lib.formatting import (
    format_month,
    format_months,
    format_pct,
)
from lib.kinds import kind_label


def break_even_verdict(utilization: float | None) -> str:
    """What the break-even utilization means for the decision, in words."""
    if utilization is None:
        return "renting is cheaper at any utilization"
    if utilization <= 0:
        return "owning is cheaper even idle"
    if utilization >= 1:
        return "own only at full utilization"
    return f"own above {format_pct(utilization)}"


def forecast_choice(utilization: float | None, forecast_mean: float) -> str:
    """ "own" when the forecast's mean utilization is at or above the break-even, otherwise "rent"."""
    if utilization is None or forecast_mean < utilization:
        return "rent"
    return "own"


def break_even_row(pair: dict, *, forecast_mean: float, horizon_months: int) -> dict:
    utilization = pair["utilization"]
    crossover = pair["crossover_month"]
    return {
        "owned": pair["owned"],
        "rental": pair["rental"],
        "utilization": utilization,
        "forecast_mean": forecast_mean,
        "verdict": break_even_verdict(utilization),
        "at_forecast": forecast_choice(utilization, forecast_mean),
        "crossover_month": crossover,
        "crossover_text": format_month(crossover) if crossover else f"no crossover in {format_months(horizon_months)}",
    }


def break_even_rows(document: dict, result: dict) -> list[dict]:
    """One row per (owned or secondary, on-demand rental) pair, in the engine's (document) order.

    Keys: owned, rental, utilization (None when owning never pays), forecast_mean,
    verdict ("own above 53.5%", "renting is cheaper at any utilization", "owning is cheaper even idle"),
    at_forecast ("own" / "rent"), crossover_month, crossover_text ("month 14 (year 2)" / "no crossover in 36 months").
    """
    forecast_mean = result["reference"]["mean_utilization"]
    return [
        break_even_row(pair, forecast_mean=forecast_mean, horizon_months=result["horizon_months"])
        for pair in result["break_even"]
    ]


def option_rows(document: dict, result: dict) -> list[dict]:
    """One row per option in document order: totals in whole currency units, per-unit costs in cents (or finer).

    Keys: name, kind, kind_label, is_cheapest, annual_cost, npv, npv_vs_cheapest, total_cost, cost_per_gpu_hour,
    cost_per_accepted_response, cost_per_million_accepted_tokens (None when there is no such unit),
    and price_source (the document's provenance object for rental/API options, else None).
    """
    document_options = document.get("options", [])
    best_npv = min(option["npv"] for option in result["options"])
    rows = []
    for index, option in enumerate(result["options"]):
        source = document_options[index].get("price_source") if index < len(document_options) else None
        is_cheapest = option["name"] == result["cheapest"]
        difference = option["npv"] - best_npv
        rows.append(
            {
                "name": option["name"],
                "kind": option["kind"],
                "kind_label": kind_label(option["kind"]),
                "is_cheapest": is_cheapest,
                "annual_cost": option["annual_cost"],
                "npv": option["npv"],
                "npv_vs_cheapest": difference,
                "total_cost": option["total_cost"],
                "cost_per_gpu_hour": option["cost_per_gpu_hour"],
                "cost_per_accepted_response": option["cost_per_accepted_response"],
                "cost_per_million_accepted_tokens": option["cost_per_million_accepted_tokens"],
                "price_source": source,
            }
        )
    return rows
