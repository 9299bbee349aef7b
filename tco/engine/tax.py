"""Tax depreciation and the after-tax capital charge (docs/money-math.md "Tax").

Costs are deductible when paid, so after tax an operating cost is ``(1 - T)·cost``. A unit bought at month t for
basis B deducts ``D_k = B·share_k`` in tax year k, landing at month t + 12k. The shares: MACRS 3/5/7-year with the
half-year convention (IRS Publication 946, Table A-1), straight line over the tax life (a part year last), or none;
a bonus share b is taken in tax year 1 and the method applies to ``(1 - b)·B``. At a disposal the unsold basis
``R = B - Σ D_k`` is written off and the tax on the sale is ``T·(V - R)``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .catalogue import option_value
from .model import Num

# IRS Publication 946, Table A-1 (general depreciation system, half-year convention), per cent of the basis.
MACRS = {
    "macrs_3": (33.33, 44.45, 14.81, 7.41),
    "macrs_5": (20.00, 32.00, 19.20, 11.52, 11.52, 5.76),
    "macrs_7": (14.29, 24.49, 17.49, 12.49, 8.93, 8.92, 8.93, 4.46),
}


def years_axis(value: Num) -> np.ndarray:
    """A per-scenario quantity (a float, or an array with a trailing axis of 1) with a new last axis for years."""
    return np.asarray(value, dtype=float)[..., None]


def depreciation_shares(option: Mapping[str, Any]) -> np.ndarray:
    """Shares of the basis deducted in tax years 1..K on the last axis; the other axes are the scenario's (a sweep's
    cells or a simulation's trials, trailing axis of 1 included), so a sum over years keeps the engine's shapes."""
    method = option_value(option, "tax_depreciation")
    life = option.get("tax_life_years", option["useful_life_years"])
    bonus = option_value(option, "bonus_depreciation")
    if np.ndim(life) == 0 and np.ndim(bonus) == 0:
        return _scalar_shares(method, float(life), float(bonus))
    return _shares(method, life, bonus)


@functools.lru_cache(maxsize=256)
def _scalar_shares(method: str, life: float, bonus: float) -> np.ndarray:
    shares = _shares(method, life, bonus)
    shares.flags.writeable = False
    return shares


def _shares(method: str, life: Num, bonus: Num) -> np.ndarray:
    if method in MACRS:
        shares: Any = np.asarray(MACRS[method]) / 100.0
    elif method == "straight_line":
        life = years_axis(life)
        shares = np.clip(life - np.arange(math.ceil(float(np.max(life)))), 0.0, 1.0) / life
    else:
        shares = np.zeros(1)
    if np.all(np.asarray(bonus) == 0):
        return np.asarray(shares, dtype=float)
    first = np.zeros(np.shape(shares)[-1])
    first[0] = 1.0
    return years_axis(bonus) * first + (1.0 - years_axis(bonus)) * shares


def pv_shield_factor(shares: np.ndarray, rate: float) -> Num:
    """``Σ_k share_k·(1 + r)^-k``: the present value of a unit basis's deductions at an annual rate r
    (MACRS 5-year at 10 %: 0.77326, so 100,000 at T = 21 % shields 16,238.47)."""
    years = np.arange(1, np.shape(shares)[-1] + 1)
    return np.sum(shares * (1.0 + rate) ** -years, axis=-1)


def after_tax_capital_charge(option: Mapping[str, Any], tax_rate: Num, residual: Num) -> Num:
    """``A_AT = (C - Σ_{k<=L} T·D_k·(1+r)^-k - (S - T·(S - R_L))·(1+r)^-L)·r/(1 - (1+r)^-L)`` at r = cost of
    capital, ``R_L = C - Σ_{k<=L} D_k`` (financing-independent, like 5.3's capital charge; ``/L`` when r = 0)."""
    capex, life, rate = option["capex"], option["useful_life_years"], option["cost_of_capital"]
    shares = depreciation_shares(option)
    if np.ndim(shares) == 1 and all(
        isinstance(x, float | int) or np.ndim(x) == 0 for x in (capex, life, rate, tax_rate, residual)
    ):
        return _scalar_after_tax_charge(
            float(capex), float(life), float(rate), float(tax_rate), float(residual), shares
        )
    years = np.arange(1, np.shape(shares)[-1] + 1)
    deductions = years_axis(capex) * np.where(years <= years_axis(life), shares, 0.0)
    growth = np.asarray(1.0 + np.asarray(rate, dtype=float))
    safe = np.where(growth == 1.0, 2.0, growth)
    discounted = np.sum(deductions * years_axis(safe) ** -years, axis=-1)
    plain_sum = np.sum(deductions, axis=-1)
    end = residual - tax_rate * (residual - (capex - plain_sum))
    factor = safe ** -np.asarray(life, dtype=float)
    annuity = (capex - tax_rate * discounted - end * factor) * (safe - 1.0) / (1.0 - factor)
    plain = (capex - tax_rate * plain_sum - end) / life
    value = np.where(growth == 1.0, plain, annuity)
    return float(value) if np.ndim(value) == 0 else value


def _scalar_after_tax_charge(capex: float, life: float, rate: float, tax: float, residual: float, shares: Any) -> float:
    """:func:`after_tax_capital_charge` for one scenario, in plain floats (``evaluate`` calls it per owned option)."""
    within = [share for k, share in enumerate(shares.tolist(), start=1) if k <= life]
    growth = 1.0 + rate
    deducted = capex * sum(within)
    end = residual - tax * (residual - (capex - deducted))
    if rate == 0:
        return (capex - tax * deducted - end) / life
    discounted = sum(capex * share * growth**-k for k, share in enumerate(within, start=1))
    factor = growth**-life
    return (capex - tax * discounted - end * factor) * rate / (1.0 - factor)
