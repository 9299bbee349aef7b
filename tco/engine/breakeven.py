"""Break-even utilization and crossover month (docs/money-math.md).

Break-even is the lowest reference utilization u in [0, 1] such that the owned annual cost is no
higher than the rental's at every utilization from u up to 100 %: 0 when owning is cheaper even
idle, ``None`` when owning is dearer at 100 %. Annual costs are piecewise linear in u (the owned
cost kinks where ``H(u)`` reaches its capacity ``G·730`` a month and the overflow is bought at the
burst price), so the root is solved exactly between breakpoints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .constants import HOURS_PER_YEAR


def break_even_utilization_closed_form(
    *,
    owned_fixed_per_year: float,
    owned_energy_slope_per_year: float,
    rental_extras_per_year: float,
    fleet_gpus: float,
    price_per_gpu_hour: float,
) -> float | None:
    """The plain case (same throughput and acceptance, G = fleet_gpus) of docs/money-math.md:

    ``u* = (A + E(0) + O - extras) / (fleet·8760·p - (P_max - P_idle)·PUE·8760·price_kWh)``

    with ``owned_fixed_per_year = A + E(0) + O`` and ``owned_energy_slope_per_year =
    (P_max - P_idle)·PUE·8760·price_kWh``; clamped to the definition (0 if owning wins even idle,
    ``None`` if it loses at 100 %). Example: 150,000 ÷ (8 x 8760 x 4) = 53.5 %.
    """
    numerator = owned_fixed_per_year - rental_extras_per_year
    denominator = fleet_gpus * HOURS_PER_YEAR * price_per_gpu_hour - owned_energy_slope_per_year
    if denominator <= 0:  # owning's cost rises at least as fast as renting's: decided at 100 %
        return 0.0 if numerator - denominator <= 0 else None
    if numerator <= 0:
        return 0.0
    share = numerator / denominator
    return share if share <= 1.0 else None


def break_even_utilization(
    utilizations: Sequence[float], owned_costs: Sequence[float], rental_costs: Sequence[float]
) -> float | None:
    """Exact break-even of two annual-cost curves that are linear between the given utilizations.

    ``utilizations`` must be increasing, start at 0, end at 1 and include every kink of either curve;
    ``owned_costs[i]``/``rental_costs[i]`` are the annual costs there (NaN or inf = the owned option
    cannot serve that demand, i.e. dearer). Walking down from 100 %, the first segment where
    ``Δ = owned - rental`` turns positive holds the root ``a + (b - a)·Δ(a)/(Δ(a) - Δ(b))``.
    """
    diffs = [_difference(o, r) for o, r in zip(owned_costs, rental_costs, strict=True)]
    if diffs[-1] > 0:
        return None
    for i in range(len(diffs) - 1, 0, -1):
        low, high = utilizations[i - 1], utilizations[i]
        below, above = diffs[i - 1], diffs[i]
        if below > 0:
            if math.isinf(below):
                return float(high)
            return float(low + (high - low) * below / (below - above))
    return 0.0


def _difference(owned: float, rental: float) -> float:
    owned = float(owned)
    return math.inf if math.isnan(owned) else owned - float(rental)


def crossover_month(owned_cumulative: Sequence[float], rental_cumulative: Sequence[float]) -> int | None:
    """First month (1-based) whose cumulative owned cash cost (no resale) ≤ the rental's, or None."""
    for month, (owned, rental) in enumerate(zip(owned_cumulative, rental_cumulative, strict=True), start=1):
        if owned <= rental:
            return month
    return None
