"""Demand and work (docs/money-math.md): the expanded forecast and each option's work factor."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def expand_utilization(utilization: Sequence[float], horizon_months: int) -> list[float]:
    """``u_m`` for m = 1..horizon: one value is a flat forecast, otherwise one value per month."""
    if len(utilization) == 1:
        return [float(utilization[0])] * horizon_months
    return [float(u) for u in utilization]


def work_factor(workload: Mapping[str, Any] | None, option: Mapping[str, Any]) -> Any:
    """``H_m / D_m = (θ_ref/θ_o) · (a_ref/a_o)`` (docs/money-math.md); 1 without a workload.

    An option without an override uses the reference value, so its factor is exactly 1. Works on
    floats and on numpy arrays (the sweep passes arrays).
    """
    if workload is None:
        return 1.0
    factor = 1.0
    theta = option.get("tokens_per_second_per_gpu")
    if theta is not None:
        factor = workload["tokens_per_second_per_gpu"] / theta
    acceptance = option.get("acceptance_rate")
    if acceptance is not None:
        factor = factor * (workload["acceptance_rate"] / acceptance)
    return factor
