"""Annual cost as a function of flat reference utilization (docs/money-math.md), vectorised over u."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .catalogue import UTILIZATION
from .errors import Problem, ScenarioError
from .fields import check_number
from .flows import option_flows
from .model import build_context
from .validation import validate


def annual_costs_at(
    doc: Mapping[str, Any], utilizations: np.ndarray, options: Sequence[Mapping[str, Any]] | None = None
) -> list[np.ndarray]:
    """Annual cost of each of ``options`` (default: all) at each flat reference utilization.

    One context whose leading axis holds the utilizations as separate scenarios (today's prices);
    entries are NaN where demand exceeds an option's capacity and the document has no burst price.
    """
    ctx = build_context({**doc, "horizon_months": 1}, np.asarray(utilizations, dtype=float)[:, None])
    ctx.finance = False  # annual costs are today's prices, financing-independent: no ledger
    chosen = doc["options"] if options is None else options
    return [np.asarray(option_flows(option, ctx).annual_cost, dtype=float)[:, 0] for option in chosen]


def annual_cost_curve(document: Mapping[str, Any], utilizations: Sequence[float]) -> dict[str, Any]:
    """Annual cost of every option at each flat reference utilization u (docs/money-math.md's definition).

    Owned: ``A + E(v) + O + overflow·burst`` with ``v = min(H, G·8760)/(G·8760)``; on demand:
    ``fleet·8760·u·(θ_ref a_ref/θ_o a_o)·p + extras``; committed: ``K·8760·p + overflow·burst +
    extras``; API: attempts per year x price per attempt + extras. ``None`` marks a u whose demand
    exceeds an option's capacity when the document has no burst price to buy the overflow.
    """
    doc = validate(document)
    values = _utilizations(utilizations)
    costs = annual_costs_at(doc, np.asarray(values))
    return {
        "utilization": values,
        "options": [
            {
                "name": option["name"],
                "kind": option["kind"],
                "annual_cost": [None if math.isnan(c) else c for c in cost.tolist()],
            }
            for option, cost in zip(doc["options"], costs, strict=True)
        ],
    }


def _utilizations(utilizations: Sequence[float]) -> list[float]:
    if isinstance(utilizations, str | bytes) or not isinstance(utilizations, Sequence | np.ndarray):
        raise ScenarioError([Problem("utilizations", "Utilizations must be a list of numbers between 0 and 1")])
    values, problems = [], []
    for i, value in enumerate(utilizations):
        number, message = check_number(value.item() if isinstance(value, np.generic) else value, UTILIZATION)
        if message:
            problems.append(Problem(f"utilizations[{i}]", message))
        values.append(number)
    if not values:
        problems.append(Problem("utilizations", "Give at least one utilization"))
    if problems:
        raise ScenarioError(problems)
    return values
