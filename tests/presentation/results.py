"""Hand-written tco-result/1 dicts (engine contract) for presentation tests: numbers chosen, not computed."""

from __future__ import annotations

import itertools


def result_option(
    name: str,
    kind: str,
    *,
    npv: float,
    annual_cost: float = 100_000.0,
    total_cost: float | None = None,
    horizon: int = 36,
    cost_per_gpu_hour: float | None = 3.0,
    cost_per_accepted_response: float | None = 0.0002,
    cost_per_million_accepted_tokens: float | None = 0.55,
    cumulative: list[float] | None = None,
) -> dict:
    owned = kind in ("owned", "secondary")
    cumulative = cumulative or [annual_cost / 12 * month for month in range(1, horizon + 1)]
    monthly = [cumulative[0]] + [b - a for a, b in itertools.pairwise(cumulative)]
    return {
        "name": name,
        "kind": kind,
        "annual_cost": annual_cost,
        "cost_per_gpu_hour": cost_per_gpu_hour,
        "cost_per_accepted_response": cost_per_accepted_response,
        "cost_per_million_accepted_tokens": cost_per_million_accepted_tokens,
        "monthly_cost": monthly,
        "cumulative_cost": cumulative,
        "resale_value": 0.0,
        "total_cost": npv if total_cost is None else total_cost,
        "npv": npv,
        "capital_charge_per_year": 80_000.0 if owned else None,
        "mean_own_utilization": 0.55 if owned else None,
        "overflow_gpu_hours": 0.0,
    }


def make_result(
    options: list[dict],
    break_even: list[dict] | None = None,
    *,
    horizon: int = 36,
    mean_utilization: float = 0.55,
    currency: str = "USD",
    workload: bool = True,
) -> dict:
    cheapest = min(options, key=lambda option: option["npv"])["name"]
    busy = 8 * 8760 * mean_utilization
    return {
        "schema": "tco-result/1",
        "engine_version": "1.0.0",
        "name": "test scenario",
        "currency": currency,
        "horizon_months": horizon,
        "reference": {
            "fleet_gpus": 8,
            "mean_utilization": mean_utilization,
            "busy_gpu_hours_per_year": busy,
            "accepted_responses_per_year": busy * 3600 * 2400 / 350 * 0.9 if workload else None,
            "accepted_output_tokens_per_year": busy * 3600 * 2400 * 0.9 if workload else None,
        },
        "options": options,
        "break_even": break_even or [],
        "cheapest": cheapest,
    }


def pair(owned: str, rental: str, utilization: float | None, crossover_month: int | None = None) -> dict:
    return {"owned": owned, "rental": rental, "utilization": utilization, "crossover_month": crossover_month}


def document_for(result: dict) -> dict:
    """A scenario document whose options line up with the result's (only what presentation reads)."""
    options = []
    for option in result["options"]:
        entry = {"name": option["name"], "kind": option["kind"]}
        if option["kind"] in ("hyperscaler", "neocloud", "marketplace"):
            entry.update(price_per_gpu_hour=4.0, billing="on_demand")
        options.append(entry)
    return {
        "schema": "tco-scenario/1",
        "name": result["name"],
        "currency": result["currency"],
        "horizon_months": result["horizon_months"],
        "discount_rate": 0.08,
        "fleet_gpus": 8,
        "utilization": [result["reference"]["mean_utilization"]],
        "options": options,
    }
