"""Table rows for the results panel: each number raw; templates format them with lib's filters (load money)."""

from __future__ import annotations

from lib.formatting import (
    format_month,
    format_months,
    format_pct,
)
from lib.kinds import API_KINDS, kind_label

from .finance import compared_months, is_leased, lease_payments_per_year, leased_names, tax_rate_of

AFTER_TAX = "after tax"  # the basis of a taxed scenario's answer: its headline, verdicts, differences, rankings
LEASED_LABELS = {"owned": "Leased (new)", "secondary": "Leased (secondary)"}


def option_kind_label(kind: str, *, leased: bool = False) -> str:
    """ "Owned (new)", or "Leased (new)" for owned hardware that is leased: leased capacity, not bought."""
    return LEASED_LABELS.get(kind, kind_label(kind)) if leased else kind_label(kind)


def break_even_verdict(utilization: float | None, basis: str = "") -> str:
    """What the break-even utilization means for the decision, in words; ``basis`` ("after tax") says which."""
    said = f" {basis}" if basis else ""
    if utilization is None:
        return f"renting is cheaper at any utilization{said}"
    if utilization <= 0:
        return f"owning is cheaper even idle{said}"
    if utilization >= 1:
        return f"own only at full utilization{said}"
    return f"own above {format_pct(utilization)}{said}"


def forecast_choice(utilization: float | None, forecast_mean: float) -> str:
    """ "own" when the forecast's mean utilization is at or above the break-even, otherwise "rent"."""
    if utilization is None or forecast_mean < utilization:
        return "rent"
    return "own"


def break_even_reason(
    *,
    rental: str,
    utilization: float | None,
    forecast_mean: float,
    crossover_month: int | None,
    horizon_months: int,
    basis: str = "",
    leased: bool = False,
) -> str:
    """Why "at the forecast" and "cumulative crossover" say what they say, in words: the break-even compares
    annual costs at the forecast's mean utilization (capex spread over the useful life as a capital charge),
    the crossover cumulative cash month by month (capex in month 1, resale not counted), so they can differ.
    ``basis`` ("after tax") is that of ``utilization``, the headline's; the cumulative cash is before tax."""
    horizon = format_months(horizon_months)
    mean = format_pct(forecast_mean)
    month = format_month(crossover_month)
    said = f" {basis}" if basis else ""
    cash = "cumulative cash cost (before tax)" if basis else "cumulative cash cost"
    held, upfront = ("leased", "the lease payments") if leased else ("owned", "the capex")
    if utilization is None:
        return f"Owning never catches up: renting {rental} is cheaper{said} at any utilization, even 100%."
    threshold = format_pct(utilization)
    even = f"the break-even{said}"
    if forecast_choice(utilization, forecast_mean) == "rent":
        if crossover_month is None:
            return (
                f"Owning never catches up within {horizon}: the forecast's mean utilization ({mean}) is below "
                f"{even} ({threshold}), so every month costs more {held} than rented, on top of {upfront}."
            )
        return (
            f"Renting is cheaper per year{said} at the forecast's mean utilization ({mean}, below {even} "
            f"{threshold}), yet owning's {cash} falls below renting's in {month}: the cumulative comparison follows "
            "the forecast month by month and the rental's yearly price change."
        )
    if crossover_month is None:
        return (
            f"Owning is cheaper per year{said} at the forecast ({mean}, above {even} {threshold}) with the "
            f"hardware's cost spread over its useful life, but {_paid(leased)} is not earned back in cash within "
            f"{horizon}: owning never catches up within the horizon."
        )
    return (
        f"Owning is cheaper per year{said} at the forecast ({mean}, above {even} {threshold}); its {cash} falls below "
        f"renting's in {month}, once {upfront} {'are' if leased else 'is'} earned back."
    )


def _paid(leased: bool) -> str:
    return "what the lease costs up front and as it runs" if leased else "the capex paid in month 1"


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


def break_even_row(
    pair: dict, *, forecast_mean: float, horizon_months: int, after_tax: bool = False, leased: bool = False
) -> dict:
    """One pair's row. ``after_tax`` (a taxed scenario, whose headline decides after tax): the verdict, "at the
    forecast" and the reason read the after-tax break-even and say so (``basis``); the before-tax one stays beside."""
    utilization = pair["utilization"]
    crossover = pair["crossover_month"]
    basis = AFTER_TAX if after_tax else ""
    deciding = pair.get("utilization_after_tax", utilization) if after_tax else utilization
    return {
        "basis": basis,
        "reason": break_even_reason(
            rental=pair["rental"],
            utilization=deciding,
            forecast_mean=forecast_mean,
            crossover_month=crossover,
            horizon_months=horizon_months,
            basis=basis,
            leased=leased,
        ),
        "leased": leased,
        "owned": pair["owned"],
        "rental": pair["rental"],
        "utilization": utilization,
        "utilization_after_tax": pair.get("utilization_after_tax", utilization),
        "utilization_after_tax_text": break_even_text(pair.get("utilization_after_tax", utilization)),
        "forecast_mean": forecast_mean,
        "verdict": break_even_verdict(deciding, basis),
        "utilization_text": break_even_text(utilization),
        "summary": break_even_summary(pair["rental"], utilization, forecast_mean),
        "summary_after_tax": break_even_summary(
            pair["rental"], pair.get("utilization_after_tax", utilization), forecast_mean, taxed=" after tax"
        ),
        "at_forecast": forecast_choice(deciding, forecast_mean),
        "at_forecast_before_tax": forecast_choice(utilization, forecast_mean),
        "at_forecast_after_tax": forecast_choice(pair.get("utilization_after_tax", utilization), forecast_mean),
        "crossover_month": crossover,
        "crossover_text": format_month(crossover) if crossover else f"no crossover in {format_months(horizon_months)}",
    }


def break_even_rows(document: dict, result: dict) -> list[dict]:
    """One row per (owned or secondary, on-demand rental) pair, in the engine's (document) order.

    Keys: owned, rental, utilization (None when owning never pays), utilization_after_tax (+ its text; the
    pre-tax one without a tax), forecast_mean,
    verdict ("own above 53.5%", "renting is cheaper at any utilization", "owning is cheaper even idle"),
    at_forecast ("own" / "rent", and at_forecast_before_tax, at_forecast_after_tax), crossover_month,
    basis ("after tax" when the scenario is taxed: the verdict, at_forecast and reason are then after tax, as the
    headline is; "" otherwise),
    crossover_text ("month 14 (year 2)" / "no crossover in 36 months"),
    reason (why the two read as they do, in words: break_even_reason).
    """
    forecast_mean = result["reference"]["mean_utilization"]
    after_tax = bool(tax_rate_of(document, result))
    leased = leased_names(document)
    return [
        break_even_row(
            pair,
            forecast_mean=forecast_mean,
            horizon_months=compared_months(result),
            after_tax=after_tax,
            leased=pair["owned"] in leased,
        )
        for pair in result["break_even"]
    ]


def option_rows(document: dict, result: dict) -> list[dict]:
    """One row per option in document order: totals in whole currency units, per-unit costs in cents (or finer).

    Keys: name, kind, kind_label, is_cheapest, annual_cost, npv, npv_after_tax (None without the finance depth),
    npv_vs_cheapest, basis ("after tax" for a taxed scenario: is_cheapest and npv_vs_cheapest are then after tax,
    as the headline is), leased (owned hardware that is leased: then kind_label is "Leased (new)") with
    lease_payments_per_year (None unless leased), total_cost, cost_per_gpu_hour (None for a managed API),
    cost_per_accepted_response, cost_per_million_accepted_tokens (None when there is no such unit),
    has_training, cost_per_validated_version and blocks_per_run (None without a training plan, or where they do not
    apply),
    and price_source (the document's provenance object for rental/API options, else None).
    """
    document_options = document.get("options", [])
    after_tax = bool(tax_rate_of(document, result))
    key = "npv_after_tax" if after_tax else "npv"
    cheapest = result.get("cheapest_after_tax", result["cheapest"]) if after_tax else result["cheapest"]
    best_npv = min(option[key] for option in result["options"])
    rows = []
    for index, option in enumerate(result["options"]):
        entered = document_options[index] if index < len(document_options) else {}
        source = entered.get("price_source")
        is_cheapest = option["name"] == cheapest
        difference = option[key] - best_npv
        rows.append(
            {
                "name": option["name"],
                "kind": option["kind"],
                "kind_label": option_kind_label(option["kind"], leased=is_leased(entered)),
                "leased": is_leased(entered),
                "lease_payments_per_year": lease_payments_per_year(entered),
                "is_cheapest": is_cheapest,
                "annual_cost": option["annual_cost"],
                "npv": option["npv"],
                "npv_after_tax": option.get("npv_after_tax"),
                "npv_vs_cheapest": difference,
                "basis": AFTER_TAX if after_tax else "",
                "total_cost": option["total_cost"],
                # A managed API is priced per token: it has no busy GPU-hour to be priced per.
                "cost_per_gpu_hour": None if option["kind"] in API_KINDS else option["cost_per_gpu_hour"],
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
