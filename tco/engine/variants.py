"""Many variants of one scenario at once: the input paths ``simulate`` and ``sensitivity`` move,
and the NPVs of every option for a batch of variants in one vectorised pass.

A variant sets some input paths to arrays of shape ``(n, 1)`` (one row per variant; a plain float
when every variant shares the value) and the utilization forecast to an ``(n, horizon)`` array. The
engine's formulas (docs/money-math.md) broadcast over that leading axis exactly as they do for ``sweep``,
so variant j's NPVs are those ``evaluate`` gives for the document with row j's values.

Paths use the document's syntax: ``utilization`` (the forecast's level, see
:func:`scaled_forecast`), ``discount_rate``, ``fleet_gpus``, ``burst_price_per_gpu_hour``,
``workload.<field>`` and ``options[i].<numeric field>``; with the finance depth also ``tax_rate``,
``cost_of_debt`` and an option's finance numbers (not its whole-number terms). With a tax rate the NPVs are after
tax (docs/money-math.md "Finance depth"), and under the refresh policy truncate over the effective horizon.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from lib.kinds import OWNED_KINDS

from .catalogue import (
    AT_MOST_PAIRS,
    FINANCE_TOP_NUMBERS,
    OVERRIDES,
    SCENARIO_FIELD,
    UTILIZATION,
    VARIED_TOP_NUMBERS,
    WORKLOAD_NUMBERS,
    at_most_message,
    numbers_for_kind,
)
from .demand import expand_utilization
from .errors import Problem
from .fields import NumberField
from .finance_fields import REFRESH_FIXED, fixed_by_refresh, ranged_finance_numbers
from .finance_results import truncated
from .flows import option_flows
from .model import build_context
from .paths import OPTION_PATH, WORKLOAD_PATH
from .sweep import with_assignments


@dataclass(frozen=True)
class Input:
    """One numeric input of a scenario: its path, its field spec and a label for people."""

    path: str
    field: NumberField
    label: str


def resolve(doc: Mapping[str, Any], path: Any) -> tuple[Input | None, str | None]:
    """``(Input, None)`` for a path that names a numeric input of ``doc``, else ``(None, reason)``."""
    if not isinstance(path, str):
        return None, "an input path must be text such as 'utilization' or 'options[1].price_per_gpu_hour'"
    if path == "utilization":
        return Input(path, UTILIZATION, SCENARIO_FIELD["utilization"].label), None
    if path in VARIED_TOP_NUMBERS:
        return Input(path, VARIED_TOP_NUMBERS[path], VARIED_TOP_NUMBERS[path].label), None
    if path in FINANCE_TOP_NUMBERS:
        return Input(path, FINANCE_TOP_NUMBERS[path], FINANCE_TOP_NUMBERS[path].label), None
    if match := WORKLOAD_PATH.fullmatch(path):
        if doc.get("workload") is None:
            return None, "the scenario has no workload"
        if match[1] not in WORKLOAD_NUMBERS:
            return None, f"the workload has no numeric field '{match[1]}'"
        field = WORKLOAD_NUMBERS[match[1]]
        return Input(path, field, f"Workload: {field.label}"), None
    if match := OPTION_PATH.fullmatch(path):
        index, name = int(match[1]), match[2]
        if index >= len(doc["options"]):
            return None, f"there is no option {index} (the scenario has {len(doc['options'])})"
        option = doc["options"][index]
        numbers = {**numbers_for_kind(option["kind"]), **ranged_finance_numbers(option["kind"])}
        if name not in numbers:
            return None, f"an option of kind {option['kind']} has no numeric field '{name}'"
        if fixed_by_refresh(doc, name):
            return None, REFRESH_FIXED
        if name in OVERRIDES and doc.get("workload") is None:
            return None, "an override of throughput or acceptance needs a scenario workload"
        return Input(path, numbers[name], f"{option['name']}: {numbers[name].label}"), None
    return None, (
        f"not an input: use utilization, {', '.join(VARIED_TOP_NUMBERS)}, workload.<field> or options[i].<field>"
    )


def current_value(doc: Mapping[str, Any], path: str) -> float | None:
    """The value ``path`` has in the normalised ``doc`` (the forecast level for ``utilization``)."""
    if path == "utilization":
        return forecast_level(doc)
    if match := OPTION_PATH.fullmatch(path):
        return doc["options"][int(match[1])].get(match[2])
    if match := WORKLOAD_PATH.fullmatch(path):
        return doc["workload"].get(match[1])
    return doc.get(path)


def forecast_level(doc: Mapping[str, Any]) -> float:
    """The forecast's level: its one value when flat, else the mean of u_1..u_horizon."""
    values = doc["utilization"]
    if len(values) == 1:
        return float(values[0])
    return float(np.mean(expand_utilization(values, doc["horizon_months"])))


def scaled_forecast(doc: Mapping[str, Any], levels: Any) -> Any:
    """The forecast moved to each level ``L`` (floats or an ``(n, 1)`` array): month m becomes
    ``clip(u_m · L / mean(u), 0, 1)``; a flat forecast simply becomes ``L``. Returns what the
    variant's ``utilization`` holds: a list for a single float level, else an ``(n, horizon)`` array."""
    horizon = doc["horizon_months"]
    base = np.array(expand_utilization(doc["utilization"], horizon))
    if len(doc["utilization"]) == 1:
        months = np.broadcast_to(np.asarray(levels, dtype=float), np.broadcast_shapes(np.shape(levels), (horizon,)))
    else:
        months = np.clip(base * (np.asarray(levels, dtype=float) / forecast_level(doc)), 0.0, 1.0)
    return months.tolist() if months.ndim == 1 else months


def npvs(doc: Mapping[str, Any], derived: frozenset[str], values: Mapping[str, Any], n: int) -> np.ndarray:
    """NPV of every option (rows) for ``n`` variants (columns). ``values`` maps paths to floats or
    ``(n, 1)`` arrays; ``utilization`` maps to a level (float or ``(n, 1)``), scaled by
    :func:`scaled_forecast`. Fields defaulted from a moved one move with it (the documented defaults)."""
    assignments = sorted(
        ((path, value) for path, value in values.items() if path != "utilization"),
        key=lambda item: not _is_default_source(item[0]),
    )
    doc = truncated(doc)
    variant = with_assignments(doc, derived, assignments)
    months = scaled_forecast(doc, values["utilization"]) if "utilization" in values else doc["utilization"]
    if isinstance(months, list):
        months = np.array(expand_utilization(months, doc["horizon_months"]))
    ctx = build_context(variant, months)
    result = np.empty((len(doc["options"]), n))
    for i, option in enumerate(variant["options"]):
        result[i] = np.broadcast_to(np.asarray(option_flows(option, ctx).decision_npv(ctx), dtype=float), (n, 1))[:, 0]
    return result


def _is_default_source(path: str) -> bool:
    """Paths other fields default to (``gpu_count`` to ``fleet_gpus``, ``idle_power_kw`` to
    ``power_kw``): assigned first, so an explicitly moved derived field wins over its source."""
    return path == "fleet_gpus" or path.endswith(".power_kw")


def owned_mask(doc: Mapping[str, Any]) -> np.ndarray:
    return np.array([option["kind"] in OWNED_KINDS for option in doc["options"]])


def owned_minus_rental(owned: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """Per variant, the lowest owned/secondary NPV minus the lowest NPV of the other options
    (hyperscaler, neocloud, marketplace, API); None when one side has no option."""
    if owned.all() or not owned.any():
        return None
    return np.min(values[owned], axis=0) - np.min(values[~owned], axis=0)


def unservable(doc: Mapping[str, Any], values: np.ndarray, where: str) -> list[Problem]:
    """Problems for options whose NPV is not finite in some variant: demand above capacity without a
    burst price (NaN) or numbers too large for float64. ``where`` says which variants ("trials")."""
    problems = []
    for i, option in enumerate(doc["options"]):
        row = values[i]
        if np.all(np.isfinite(row)):
            continue
        if np.any(np.isnan(row)) and doc.get("burst_price_per_gpu_hour") is None:
            problems.append(
                Problem(
                    "burst_price_per_gpu_hour",
                    f"In some {where} '{option['name']}' needs more GPU-hours than it has; "
                    "set a burst price per GPU-hour for the overflow or narrow the ranges",
                )
            )
        else:
            problems.append(
                Problem(
                    f"options[{i}]",
                    f"In some {where} the costs of '{option['name']}' are too large to compute (beyond 1e308); "
                    "check the ranges for a typo",
                )
            )
    return problems


def pair_problems(
    doc: Mapping[str, Any], derived: frozenset[str], moved: Any, lowest: Any, highest: Any, where: str
) -> list[Problem]:
    """Owned options whose residual value could exceed the capex, or idle power the maximum power.

    ``lowest(path)`` / ``highest(path)`` give the smallest and largest value a path takes across the
    variants. An idle power defaulted from the maximum power (and not in ``moved``) equals it in every
    variant, so it is not checked."""
    problems = []
    for i, option in enumerate(doc["options"]):
        if option["kind"] not in OWNED_KINDS:
            continue
        for small, large in AT_MOST_PAIRS:
            small_path, large_path = f"options[{i}].{small}", f"options[{i}].{large}"
            if small_path in derived and small_path not in moved:
                continue
            if highest(small_path) > lowest(large_path):
                problems.append(Problem(small_path, f"{at_most_message(small, large)} in some {where}"))
    return problems
