"""Price paths (docs/money-math.md "Price paths"): how a price moves with the years elapsed.

A rental's price in month m is ``p_m = p·P(m)`` with ``P(m) = Π over elapsed years y of (1 + g_y)^(share of year y
elapsed)``, elapsed = (m - 1)/12. One change a year (``price_change_per_year``) gives ``(1 + g)^((m-1)/12)``;
``price_change_by_year`` lists up to 20 yearly changes, the last repeating.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .constants import MONTHS_PER_YEAR
from .model import Num


def path_factor(changes: list[float], elapsed_years: np.ndarray) -> np.ndarray:
    """``P`` after ``elapsed_years`` (an array of years elapsed, >= 0) for the yearly changes ``changes``."""
    logs = np.log1p(np.asarray(changes, dtype=float))
    shares = np.minimum(
        np.maximum(np.asarray(elapsed_years, dtype=float)[..., None] - np.arange(len(changes)), 0.0), 1.0
    )
    shares[..., -1] = np.maximum(np.asarray(elapsed_years, dtype=float) - (len(changes) - 1), 0.0)
    return np.exp(shares @ logs)


def monthly_price_factor(option: Mapping[str, Any], months: np.ndarray) -> Num:
    """``P(m)`` for months m = 1..horizon of a rental (the one-change form exactly as before when no list is given)."""
    elapsed = (months - 1.0) / MONTHS_PER_YEAR
    changes = option.get("price_change_by_year")
    if changes is None:
        return (1.0 + option["price_change_per_year"]) ** elapsed
    return path_factor(changes, elapsed)
