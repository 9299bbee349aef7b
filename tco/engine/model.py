"""Numeric context shared by every option's cash flows (docs/money-math.md).

Shapes: per-scenario quantities are floats, or numpy arrays with a trailing axis of length 1 when a
sweep varies them over a grid; monthly quantities have the months as their last axis. Every formula
is written once and broadcasts over both, so ``evaluate`` and ``sweep`` share the same arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .catalogue import scenario_value
from .constants import CAPACITY_TOLERANCE, HOURS_PER_MONTH, MONTHS_PER_YEAR
from .finance_fields import uses_finance

Num = Any  # float, or a numpy array broadcastable against the monthly arrays


@dataclass
class Context:
    horizon_months: int
    months: np.ndarray  # 1.0 .. horizon
    fleet_gpus: Num
    utilization: np.ndarray  # u_m, months last
    demand: np.ndarray  # D_m = fleet_gpus · 730 · u_m (busy reference GPU-hours)
    discount: np.ndarray  # (1 + discount_rate)^(-m/12)
    discount_at_horizon: Num  # (1 + discount_rate)^(-horizon/12)
    burst_price_per_gpu_hour: Num | None
    workload: Mapping[str, Num] | None
    # The finance depth (docs/money-math.md): its figures are computed only when the document uses it.
    finance: bool = False
    tax_rate: Num = 0.0
    cost_of_debt: Num | None = None
    refresh_policy: str = "none"

    @property
    def has_tax(self) -> bool:
        return self.tax_rate is not None and not (np.ndim(self.tax_rate) == 0 and self.tax_rate == 0)

    def burst_cost(self, overflow: np.ndarray, capacity: Num) -> np.ndarray:
        """Overflow GPU-hours x burst price. Without a burst price any real overflow is NaN: the
        option cannot serve that demand (validation rejects it; curves and sweeps report it as such)."""
        if self.burst_price_per_gpu_hour is None:
            return np.where(overflow > capacity * CAPACITY_TOLERANCE, np.nan, 0.0)
        return overflow * self.burst_price_per_gpu_hour


@dataclass
class Flows:
    """One option's cash flows: ``usage`` per month excludes capex, which is paid at month 0."""

    usage: np.ndarray
    annual_cost: Num  # "one average year at today's prices" (docs/money-math.md)
    overflow_gpu_hours: Num
    capex: Num = 0.0
    resale: Num = 0.0
    capital_charge: Num | None = None
    mean_own_utilization: Num | None = None
    ledger: Any = None  # the after-tax ledger (tco.engine.finance) when the document uses the finance depth
    details: dict[str, Any] | None = None  # results only some options have (a commitment's terms)

    def npv(self, ctx: Context) -> Num:
        """Capex undiscounted at month 0, month-m flows at (1+r)^(m/12), resale at the horizon."""
        if self.ledger is not None:
            return self.ledger.npv(ctx)
        discounted = sum_months(self.usage * ctx.discount)
        return self.capex + discounted - self.resale * ctx.discount_at_horizon

    def decision_npv(self, ctx: Context) -> Num:
        """The NPV that decides (the sweep's, the simulation's, the tornado's): after tax when the scenario has a
        tax rate, else the pre-tax NPV."""
        return self.ledger.npv_after_tax(ctx) if ctx.finance and ctx.has_tax else self.npv(ctx)


def build_context(doc: Mapping[str, Any], utilization: np.ndarray) -> Context:
    """``utilization`` is the expanded forecast u_m (months last); the rest comes from ``doc``."""
    horizon = int(doc["horizon_months"])
    months = np.arange(1.0, horizon + 1.0)
    rate = doc["discount_rate"]
    growth = 1.0 + rate
    return Context(
        horizon_months=horizon,
        months=months,
        fleet_gpus=doc["fleet_gpus"],
        utilization=utilization,
        demand=doc["fleet_gpus"] * HOURS_PER_MONTH * utilization,
        discount=growth ** (-months / MONTHS_PER_YEAR),
        discount_at_horizon=growth ** (-horizon / MONTHS_PER_YEAR),
        burst_price_per_gpu_hour=doc.get("burst_price_per_gpu_hour"),
        workload=doc.get("workload"),
        finance=uses_finance(doc),
        tax_rate=scenario_value(doc, "tax_rate"),
        cost_of_debt=doc.get("cost_of_debt"),
        refresh_policy=scenario_value(doc, "refresh_policy"),
    )


def mean_months(values: np.ndarray) -> np.ndarray:
    # np.add.reduce is np.mean's own summation without its per-call overhead (evaluate calls this a lot).
    return np.add.reduce(values, axis=-1, keepdims=True) / values.shape[-1]


def sum_months(values: np.ndarray) -> np.ndarray:
    return np.add.reduce(values, axis=-1, keepdims=True)
