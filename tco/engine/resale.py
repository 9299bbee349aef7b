"""What an owned unit is worth by age (docs/money-math.md "Resale by age").

``f(age)`` is the share of the unit's price it sells for at ``age`` months. Without a curve it falls in a straight
line to the residual: ``f = 1 - (1 - S/C)·min(age/(12L), 1)``. A ``resale_curve`` [[age_months, share], ...] is
interpolated linearly and stays flat past its last point; a unit bought ``a0`` months old (a used one) follows
``f(a) = curve(a0 + a)/curve(a0)``. A curve also sets the residual ``S = C·f(12L)`` wherever the capital charge
uses it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .catalogue import option_value
from .constants import MONTHS_PER_YEAR
from .model import Num


def curve_share(option: Mapping[str, Any], age_months: Num) -> Num:
    """``curve(a0 + age)/curve(a0)`` of an option with a resale curve."""
    ages, shares = _curve(option["resale_curve"])
    start = option_value(option, "age_at_purchase_months")
    if np.ndim(age_months) == 0 and np.ndim(start) == 0:  # one unit of one scenario: plain floats
        return _interp(float(start + age_months), ages, shares) / _interp(float(start), ages, shares)
    at = np.interp(start + age_months, ages, shares)
    share = at / np.interp(start, ages, shares)
    return float(share) if np.ndim(at) == 0 else share


def _curve(points: list[list[float]]) -> tuple[list[float], list[float]]:
    return [float(age) for age, _ in points], [float(share) for _, share in points]


def _interp(x: float, ages: list[float], shares: list[float]) -> float:
    """``np.interp`` at one point, with numpy's own arithmetic (flat outside the curve, exact at its points), without
    the cost of making arrays of a few points for each of the many values a ledger asks for."""
    if x < ages[0]:
        return shares[0]
    j = bisect.bisect_right(ages, x) - 1
    if j == len(ages) - 1 or x == ages[j]:
        return shares[j]
    slope = (shares[j + 1] - shares[j]) / (ages[j + 1] - ages[j])
    value = slope * (x - ages[j]) + shares[j]
    if math.isnan(value):  # numpy's fallback for an infinite slope
        value = slope * (x - ages[j + 1]) + shares[j + 1]
        if math.isnan(value) and shares[j] == shares[j + 1]:
            value = shares[j]
    return value


def residual(option: Mapping[str, Any]) -> Num:
    """``S``: the residual value the capital charge uses (``C·f(12L)`` with a curve, else the input)."""
    if option.get("resale_curve") is None:
        return option["residual_value"]
    return option["capex"] * curve_share(option, MONTHS_PER_YEAR * np.asarray(option["useful_life_years"]))


def unit_value(option: Mapping[str, Any], price_factor: Num, age_months: float) -> Num:
    """What a unit bought at ``C·price_factor`` sells for at ``age_months``: ``C·factor·f(age)``.

    Without a curve this is ``C' - (C' - S')·min(age/(12L), 1)`` with C' and S' the price and residual scaled by the
    factor, so a factor of exactly 1 gives 5.3's resale ``C - (C - S)·min(horizon/(12L), 1)`` to the last bit.
    """
    if option.get("resale_curve") is not None:
        return option["capex"] * price_factor * curve_share(option, age_months)
    used = np.minimum(age_months / (MONTHS_PER_YEAR * option["useful_life_years"]), 1.0)
    price = option["capex"] * price_factor
    return price - (price - option["residual_value"] * price_factor) * used


def book_value(option: Mapping[str, Any], price_factor: Num, age_months: float) -> Num:
    """Book value (shown, never in cash): straight line from the price to its residual over the useful life."""
    price = option["capex"] * price_factor
    used = np.minimum(age_months / (MONTHS_PER_YEAR * option["useful_life_years"]), 1.0)
    return price - (price - residual(option) * price_factor) * used
