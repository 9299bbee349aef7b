"""Decisions under uncertainty in words and rows: the probability headline, the simulated NPVs per option,
the tornado rows and the fleet plan's budget lanes (owned baseline, rented burst)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lib.formatting import format_money, round_half_up

HOURS_PER_YEAR = 8760


def whole_percent(fraction: float) -> str:
    """A probability as the headline says it: 0.6234 → "62 %"."""
    return f"{round_half_up(fraction * 100, 0)} %"


def probability_headline(simulation: dict) -> str:
    """ "Owning is cheaper in 62 % of 20,000 trials" (or, without both sides, the option cheapest most often)."""
    trials = f"{simulation['trials']:,} trial{'s' if simulation['trials'] != 1 else ''}"
    difference = simulation.get("owned_minus_rental")
    if difference is not None:
        return f"Owning is cheaper in {whole_percent(difference['probability_owning_cheaper'])} of {trials}"
    best = max(simulation["options"], key=lambda option: option["probability_cheapest"])
    return f"{best['name']} is cheapest in {whole_percent(best['probability_cheapest'])} of {trials}"


def simulation_rows(simulation: dict) -> list[dict]:
    """Per option: P10 / P50 / P90 / mean NPV and the share of trials in which it is cheapest."""
    return [
        {
            "name": option["name"],
            **option["npv"],
            "probability_cheapest": option["probability_cheapest"],
        }
        for option in simulation["options"]
    ]


def spread_sentence(simulation: dict, currency: str) -> str:
    """P10 / P50 / P90 of owned minus rental NPV in words ("" without both sides)."""
    difference = simulation.get("owned_minus_rental")
    if difference is None:
        return ""
    p10, p50, p90 = (format_money(difference[key], currency) for key in ("p10", "p50", "p90"))
    return f"Owned minus rental NPV: P10 {p10}, P50 {p50}, P90 {p90} (below 0: owning is cheaper)."


def budget_lanes(plan: dict, load_profile: Sequence[float]) -> list[dict]:
    """The cheapest plan as two budget lines a year: the owned baseline (k GPUs, fixed and busy costs) and the
    rented burst (the load above k at the rental's price). They add up to the plan's annual cost."""
    loads = np.asarray(load_profile, dtype=float)
    owned = plan["owned_gpus"]
    rule = plan["rule"]
    scale = HOURS_PER_YEAR / len(loads)
    owned_hours = float(np.minimum(loads, owned).sum()) * scale
    burst_hours = float(np.maximum(loads - owned, 0).sum()) * scale
    owned_cost = owned * rule["fixed_per_gpu_hour"] * HOURS_PER_YEAR + owned_hours * rule["busy_per_gpu_hour"]
    burst_cost = burst_hours * rule["price_per_gpu_hour"]
    return [
        {
            "lane": "Owned baseline",
            "option": rule["owned"],
            "gpus": owned,
            "gpu_hours_per_year": owned_hours,
            "utilization": owned_hours / (owned * HOURS_PER_YEAR) if owned else None,
            "cost_per_year": owned_cost,
        },
        {
            "lane": "Rented burst",
            "option": rule["rental"],
            "gpus": max(0, int(np.ceil(loads.max())) - owned),
            "gpu_hours_per_year": burst_hours,
            "utilization": None,
            "cost_per_year": burst_cost,
        },
    ]
