"""Owned and secondary hardware (docs/money-math.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .constants import HOURS_PER_MONTH, HOURS_PER_YEAR, MONTHS_PER_YEAR
from .model import Context, Flows, Num, mean_months, sum_months

OPEX_FIELDS = ("facility_per_year", "network_per_year", "software_per_year", "support_per_year", "operations_per_year")


def capital_charge(*, capex: Num, residual_value: Num, useful_life_years: Num, cost_of_capital: Num) -> Num:
    """Annual capital charge ``A`` (docs/money-math.md), the level payment that repays capex C less residual S.

    ``A = (C - S)/L`` when r = 0, else ``A = (C - S·(1+r)^-L) · r / (1 - (1+r)^-L)``, which equals
    ``numpy_financial.pmt(r, L, -C, S)``. Example: C = 320,000, S = 40,000, L = 4, r = 0.07 gives
    85,463.87. Accepts floats (returns a float) or numpy arrays (returns an array).
    """
    # 1 - (1+r)^-L is taken as -expm1(-L·log1p(r)): the plain form cancels for a tiny r (a crash
    # below r ≈ 1e-16, the wrong charge for r ≈ 1e-13), this one keeps full precision for every r.
    if not isinstance(cost_of_capital, np.ndarray):
        if cost_of_capital == 0:
            return (capex - residual_value) / useful_life_years
        log_factor = -useful_life_years * math.log1p(cost_of_capital)  # an array when a sweep varies L
        charge = (capex - residual_value * np.exp(log_factor)) * cost_of_capital / -np.expm1(log_factor)
        return charge if isinstance(charge, np.ndarray) else float(charge)
    rate = np.where(cost_of_capital == 0, 1.0, cost_of_capital)
    log_factor = -np.asarray(useful_life_years, dtype=float) * np.log1p(rate)
    annuity = (capex - residual_value * np.exp(log_factor)) * rate / -np.expm1(log_factor)
    return np.where(cost_of_capital == 0, (capex - residual_value) / useful_life_years, annuity)


def energy_terms(option: Mapping[str, Any]) -> tuple[Num, Num]:
    """``E(v) = E(0) + slope·v`` with ``E(0) = P_idle·PUE·8760·price_kWh`` and
    ``slope = (P_max - P_idle)·PUE·8760·price_kWh`` per year (docs/money-math.md)."""
    per_kw_year = option["pue"] * HOURS_PER_YEAR * option["electricity_per_kwh"]
    return option["idle_power_kw"] * per_kw_year, (option["power_kw"] - option["idle_power_kw"]) * per_kw_year


def fixed_opex_per_year(option: Mapping[str, Any]) -> Num:
    """``O`` = facility + network + software + support + operations per year."""
    total = 0.0
    for field in OPEX_FIELDS:
        total = total + option[field]
    return total


def resale_value(option: Mapping[str, Any], horizon_months: int) -> Num:
    """``V = C - (C - S) · min(horizon/(12L), 1)``: straight-line value left at the horizon."""
    used_share = np.minimum(horizon_months / (MONTHS_PER_YEAR * option["useful_life_years"]), 1.0)
    return option["capex"] - (option["capex"] - option["residual_value"]) * used_share


def owned_flows(option: Mapping[str, Any], ctx: Context) -> Flows:
    """Cash flows of owned or secondary hardware with G = gpu_count GPUs (docs/money-math.md).

    Own use ``v_m = min(H_m, G·730)/(G·730)``; month m costs ``(E(v_m) + O)/12 + overflow_m·burst``;
    capex at month 0; annual cost ``A + E(mean v_m) + O + 12·mean(overflow_m)·burst``.
    """
    charge = capital_charge(
        capex=option["capex"],
        residual_value=option["residual_value"],
        useful_life_years=option["useful_life_years"],
        cost_of_capital=option["cost_of_capital"],
    )
    idle_energy, energy_slope = energy_terms(option)
    opex = fixed_opex_per_year(option)
    capacity = option["gpu_count"] * HOURS_PER_MONTH
    hours = ctx.gpu_hours(option)
    used = np.minimum(hours, capacity)
    own_use = used / capacity
    overflow = hours - used
    burst = ctx.burst_cost(overflow, capacity)
    usage = (idle_energy + energy_slope * own_use + opex) / MONTHS_PER_YEAR + burst
    mean_use = mean_months(own_use)
    return Flows(
        usage=usage,
        annual_cost=charge + idle_energy + energy_slope * mean_use + opex + MONTHS_PER_YEAR * mean_months(burst),
        overflow_gpu_hours=sum_months(overflow),
        capex=option["capex"],
        resale=resale_value(option, ctx.horizon_months),
        capital_charge=charge,
        mean_own_utilization=mean_use,
    )
