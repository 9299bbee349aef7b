"""Table rows for the results panel: each number raw; templates format them with lib's filters (load money)."""

from __future__ import annotations

from lib.formatting import (
    format_month,
    format_months,
    format_pct,
)
from lib.kinds import kind_label

from .finance import compared_months


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


def break_even_reason(
    *, rental: str, utilization: float | None, forecast_mean: float, crossover_month: int | None, horizon_months: int
) -> str:
    """Why "at the forecast" and "cumulative crossover" say what they say, in words: the break-even compares
    annual costs at the forecast's mean utilization (capex spread over the useful life as a capital charge),
    the crossover cumulative cash month by month (capex in month 1, resale not counted), so they can differ."""
    horizon = format_months(horizon_months)
    mean = format_pct(forecast_mean)
    month = format_month(crossover_month)
    if utilization is None:
        return f"Owning never catches up: renting {rental} is cheaper at any utilization, even 100%."
    threshold = format_pct(utilization)
    if forecast_choice(utilization, forecast_mean) == "rent":
        if crossover_month is None:
            return (
                f"Owning never catches up within {horizon}: the forecast's mean utilization ({mean}) is below the "
                f"break-even ({threshold}), so every month costs more owned than rented, on top of the capex."
            )
        return (
            f"Renting is cheaper per year at the forecast's mean utilization ({mean}, below the break-even "
            f"{threshold}), yet owning's cumulative cash cost falls below renting's in {month}: "
            "the cumulative comparison follows the forecast month by month and the rental's yearly price change."
        )
    if crossover_month is None:
        return (
            f"Owning is cheaper per year at the forecast ({mean}, above the break-even {threshold}) with the capex "
            f"spread over the hardware's useful life, but the capex paid in month 1 is not earned back in cash "
            f"within {horizon}: owning never catches up within the horizon."
        )
    return (
        f"Owning is cheaper per year at the forecast ({mean}, above the break-even {threshold}); its cumulative "
        f"cash cost falls below renting's in {month}, once the capex is earned back."
    )


def break_even_text(utilization: float | None) -> str:
    """A break-even utilization as a card shows it: "53.5%", or "never" when owning is dearer even at 100%."""
    return "never" if utilization is None else format_pct(utilization)


def break_even_summary(rental: str, utilization: float | None, forecast_mean: float, *, taxed: str = "") -> str:
    """One line a compare card shows: "Owning breaks even vs Lambda at 53.5% utilization (forecast 60.0%)";
    ``taxed`` (" after tax") follows the verdict when the utilization is the after-tax one."""
    forecast = f"(forecast {format_pct(forecast_mean)})"
    if utilization is None:
        return f"Owning never breaks even vs {rental}{taxed}: renting is cheaper even at 100% utilization {forecast}"
    if utilization <= 0:
        return f"Owning is cheaper than {rental} even idle{taxed} {forecast}"
    return f"Owning breaks even vs {rental} at {format_pct(utilization)} utilization{taxed} {forecast}"


def break_even_row(pair: dict, *, forecast_mean: float, horizon_months: int) -> dict:
    utilization = pair["utilization"]
    crossover = pair["crossover_month"]
    return {
        "reason": break_even_reason(
            rental=pair["rental"],
            utilization=utilization,
            forecast_mean=forecast_mean,
            crossover_month=crossover,
            horizon_months=horizon_months,
        ),
        "owned": pair["owned"],
        "rental": pair["rental"],
        "utilization": utilization,
        "utilization_after_tax": pair.get("utilization_after_tax", utilization),
        "utilization_after_tax_text": break_even_text(pair.get("utilization_after_tax", utilization)),
        "forecast_mean": forecast_mean,
        "verdict": break_even_verdict(utilization),
        "utilization_text": break_even_text(utilization),
        "summary": break_even_summary(pair["rental"], utilization, forecast_mean),
        "summary_after_tax": break_even_summary(
            pair["rental"], pair.get("utilization_after_tax", utilization), forecast_mean, taxed=" after tax"
        ),
        "at_forecast": forecast_choice(utilization, forecast_mean),
        "at_forecast_after_tax": forecast_choice(pair.get("utilization_after_tax", utilization), forecast_mean),
        "crossover_month": crossover,
        "crossover_text": format_month(crossover) if crossover else f"no crossover in {format_months(horizon_months)}",
    }


def break_even_rows(document: dict, result: dict) -> list[dict]:
    """One row per (owned or secondary, on-demand rental) pair, in the engine's (document) order.

    Keys: owned, rental, utilization (None when owning never pays), utilization_after_tax (+ its text; the
    pre-tax one without a tax), forecast_mean,
    verdict ("own above 53.5%", "renting is cheaper at any utilization", "owning is cheaper even idle"),
    at_forecast ("own" / "rent", and at_forecast_after_tax), crossover_month,
    crossover_text ("month 14 (year 2)" / "no crossover in 36 months"),
    reason (why the two read as they do, in words: break_even_reason).
    """
    forecast_mean = result["reference"]["mean_utilization"]
    return [
        break_even_row(pair, forecast_mean=forecast_mean, horizon_months=compared_months(result))
        for pair in result["break_even"]
    ]


def option_rows(document: dict, result: dict) -> list[dict]:
    """One row per option in document order: totals in whole currency units, per-unit costs in cents (or finer).

    Keys: name, kind, kind_label, is_cheapest, annual_cost, npv, npv_after_tax (None without the finance depth),
    npv_vs_cheapest, total_cost, cost_per_gpu_hour,
    cost_per_accepted_response, cost_per_million_accepted_tokens (None when there is no such unit),
    has_training, cost_per_validated_version and blocks_per_run (None without a training plan, or where they do not
    apply),
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
                "npv_after_tax": option.get("npv_after_tax"),
                "npv_vs_cheapest": difference,
                "total_cost": option["total_cost"],
                "cost_per_gpu_hour": option["cost_per_gpu_hour"],
                "cost_per_accepted_response": option["cost_per_accepted_response"],
                "cost_per_million_accepted_tokens": option["cost_per_million_accepted_tokens"],
                # With a training plan (docs/money-math.md "Training runs"); None for an option that serves none.
                "has_training": "training" in result,
                "cost_per_validated_version": option.get("cost_per_validated_version"),
                "blocks_per_run": option.get("blocks_per_run"),
                "price_source": source,
            }
        )
    return rows


# The training plan's figures (docs/money-math.md "Training runs") in the order the panel lists them.
TRAINING_FIGURES = (
    ("gpu_hours_per_attempt", "GPU-hours per run", "GPU-hours"),
    ("gpu_hours_effective", "GPU-hours per run, interruptions included", "GPU-hours"),
    ("gpu_hours_per_validated_version", "GPU-hours per validated model version", "GPU-hours"),
    ("wall_clock_days", "Days on the cluster per run", "days"),
)


def training_rows(result: dict) -> list[dict]:
    """The training plan's figures, each ``key``, ``label``, ``value`` (raw) and ``text`` (GPU-hours whole, days to
    a tenth); empty without a plan."""
    training = result.get("training")
    if not training:
        return []
    return [
        {
            "key": key,
            "label": label,
            "value": training[key],
            "text": f"{training[key]:,.1f} {unit}" if unit == "days" else f"{training[key]:,.0f} {unit}",
        }
        for key, label, unit in TRAINING_FIGURES
    ]
