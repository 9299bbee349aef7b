"""``sensitivity``: the tornado, one input at a time moved to its low and its high (docs/money-math.md).

Math. For each input X with swing (low, high), everything else held at the document's values:
``difference(x) = min over owned/secondary options of NPV(x) - min over the other options of NPV(x)``
(NPV as in docs/money-math.md), evaluated at x = low and x = high. Rows are sorted by the width of the bar,
``|difference(high) - difference(low)|``, widest first (document order on a tie). Each row is exactly
two ``evaluate`` calls on the document with X set to low, then high, computed together in one
vectorised pass. ``utilization`` moves the forecast's level as in :mod:`tco.engine.simulate`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lib.kinds import OWNED_KINDS

from .catalogue import FINANCE_TOP_NUMBERS, TOP_NUMBERS, WORKLOAD_NUMBERS, numbers_for_kind
from .errors import Problem, ScenarioError
from .fields import check_number, describe, fmt
from .finance_fields import fixed_by_refresh, ranged_finance_numbers
from .validation import normalise
from .variants import (
    Input,
    current_value,
    npvs,
    owned_mask,
    owned_minus_rental,
    pair_problems,
    resolve,
    unservable,
)

DEFAULT_SWING = 0.2
SWING_KEYS = ("low", "high")


def sensitivity(document: Mapping[str, Any], swings: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Tornado rows ``{"path", "label", "low", "high", "difference_at_low", "difference_at_high"}``.

    ``swings`` maps input paths (as in ``simulate``; whole-number fields allowed with whole values)
    to ``{"low", "high"}`` (a ``likely`` key is accepted and ignored, so simulate's ranges can be
    passed as they are). Without it every numeric input the options use is swung ±20 % of its value:
    utilization's level, discount rate, burst price, the workload's numbers and every non-zero
    option field, clipped to the field's bounds (and a residual value to the capex, an idle power to
    the maximum power); whole-number fields (horizon, fleet and GPU counts), fields at 0 and fields
    defaulted from another one are left out. Raises ScenarioError when the scenario lacks an owned
    or a non-owned option, or for a bad path or value, named by path.
    """
    doc, derived = normalise(document)
    owned = owned_mask(doc)
    if owned.all() or not owned.any():
        raise ScenarioError([Problem("options", "A tornado needs at least one owned and one rented option")])
    problems: list[Problem] = []
    inputs = default_swings(doc, derived) if swings is None else _swings(doc, swings, problems)
    for item, low, high in inputs:
        problems += pair_problems(
            doc,
            derived,
            {item.path},
            lambda path, item=item, low=low: low if path == item.path else current_value(doc, path),
            lambda path, item=item, high=high: high if path == item.path else current_value(doc, path),
            f"swings of {item.path}",
        )
    if problems:
        raise ScenarioError(problems)
    rows = []
    for item, low, high in inputs:
        values = npvs(doc, derived, {item.path: np.array([[low], [high]])}, 2)
        if problems := unservable(doc, values, f"swings of {item.path}"):
            raise ScenarioError(problems)
        at_low, at_high = owned_minus_rental(owned, values).tolist()
        rows.append(
            {
                "path": item.path,
                "label": item.label,
                "low": low,
                "high": high,
                "difference_at_low": at_low,
                "difference_at_high": at_high,
            }
        )
    rows.sort(key=lambda row: -abs(row["difference_at_high"] - row["difference_at_low"]))
    return rows


def default_paths(doc: Mapping[str, Any], derived: frozenset[str]) -> list[str]:
    """Every numeric input the options use, in document order (see :func:`sensitivity`)."""
    paths = ["utilization", *(key for key in TOP_NUMBERS if key != "horizon_months")]
    paths += [key for key in FINANCE_TOP_NUMBERS if key in doc]
    paths += [f"workload.{key}" for key in WORKLOAD_NUMBERS] if doc.get("workload") is not None else []
    for i, option in enumerate(doc["options"]):
        numbers = {**numbers_for_kind(option["kind"]), **ranged_finance_numbers(option["kind"])}
        paths += [f"options[{i}].{key}" for key in numbers if key in option and not fixed_by_refresh(doc, key)]
    return [path for path in paths if path not in derived]


def default_swings(doc: Mapping[str, Any], derived: frozenset[str]) -> list[tuple[Input, float, float]]:
    swings = []
    for path in default_paths(doc, derived):
        item, _ = resolve(doc, path)
        value = current_value(doc, path)
        if item is None or item.field.integer or not value:
            continue
        field = item.field
        low, high = sorted((value * (1 - DEFAULT_SWING), value * (1 + DEFAULT_SWING)))
        low = max(low, field.lo) if field.lo is not None and not field.lo_open else low
        high = min(high, field.hi) if field.hi is not None and not field.hi_open else high
        low, high = _within_pairs(doc, derived, path, low, high)
        if low != high:
            swings.append((item, low, high))
    return swings


def _within_pairs(doc: Mapping[str, Any], derived: frozenset[str], path: str, low: float, high: float):
    """Keep residual value ≤ capex and idle ≤ maximum power while the other is held."""
    prefix, _, name = path.rpartition(".")
    if not prefix.startswith("options[") or doc["options"][int(prefix[8:-1])]["kind"] not in OWNED_KINDS:
        return low, high
    for small, large in (("residual_value", "capex"), ("idle_power_kw", "power_kw")):
        if f"{prefix}.{small}" in derived:
            continue
        if name == small:
            high = min(high, current_value(doc, f"{prefix}.{large}"))
        elif name == large:
            low = max(low, current_value(doc, f"{prefix}.{small}"))
    return low, high


def _swings(doc: Mapping[str, Any], swings: Any, problems: list[Problem]) -> list[tuple[Input, float, float]]:
    if not isinstance(swings, Mapping):
        problems.append(Problem("swings", f"Swings must map input paths to low and high; got {describe(swings)}"))
        return []
    result = []
    for path, spec in swings.items():
        item, reason = resolve(doc, path)
        if item is None:
            problems.append(Problem(str(path), f"Cannot swing: {reason}"))
            continue
        if not isinstance(spec, Mapping) or any(spec.get(key) is None for key in SWING_KEYS):
            problems.append(Problem(path, f"A swing needs low and high; got {describe(spec)}"))
            continue
        unknown = sorted(str(key) for key in spec if key not in (*SWING_KEYS, "likely"))
        if unknown:
            problems.append(Problem(path, f"A swing takes low and high; unknown {', '.join(unknown)}"))
            continue
        numbers = []
        for key in SWING_KEYS:
            number, message = check_number(spec[key], item.field)
            if message:
                problems.append(Problem(path, f"{message} (the swing's {key})"))
            numbers.append(number)
        if None in numbers:
            continue
        low, high = (float(n) for n in numbers)
        if low > high:
            problems.append(Problem(path, f"A swing needs low ≤ high; got low {fmt(low)}, high {fmt(high)}"))
            continue
        if path == "utilization" and len(doc["utilization"]) > 1 and current_value(doc, path) == 0:
            problems.append(Problem(path, "A utilization swing scales the forecast, which is 0 in every month"))
            continue
        result.append((item, low, high))
    return result
