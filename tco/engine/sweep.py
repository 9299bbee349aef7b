"""``sweep``: NPV of every option over a grid of two varied inputs, vectorised with numpy.

Each varied input becomes an array (x along columns, y along rows) and the same formulas as
``evaluate`` broadcast over (rows, columns, months); no per-cell ``evaluate`` calls. Rows are
processed in chunks so a 240-month horizon never needs more than a few tens of MB.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lib.kinds import OWNED_KINDS

from .catalogue import (
    AT_MOST_PAIRS,
    FINANCE_TOP_NUMBERS,
    OVERRIDES,
    UTILIZATION,
    VARIED_TOP_NUMBERS,
    WORKLOAD_NUMBERS,
    at_most_message,
    numbers_for_kind,
)
from .demand import expand_utilization
from .errors import Problem, ScenarioError
from .fields import NumberField, check_number
from .finance_fields import REFRESH_FIXED, fixed_by_refresh, ranged_finance_numbers
from .finance_results import truncated
from .flows import option_flows
from .model import build_context
from .paths import OPTION_PATH, WORKLOAD_PATH
from .validation import normalise

MAX_AXIS_VALUES = 1000
CHUNK_ELEMENTS = 2_000_000


def sweep(
    document: Mapping[str, Any], x: tuple[str, Sequence[float]], y: tuple[str, Sequence[float]]
) -> dict[str, Any]:
    """Evaluate the grid of variants of ``document`` with ``x = (path, values)`` along columns and
    ``y = (path, values)`` along rows.

    Paths: ``utilization`` (a flat forecast), ``fleet_gpus``, ``discount_rate``,
    ``burst_price_per_gpu_hour``, ``workload.<field>``, ``options[i].<numeric field>``. Fields
    defaulted from a varied one move with it (``idle_power_kw`` with ``power_kw``; ``gpu_count`` and
    ``committed_gpus`` with ``fleet_gpus``). Each cell equals ``evaluate`` of that variant:
    ``cheapest`` is the option with the lowest NPV, ``owned_minus_rental`` the NPV of the best
    owned/secondary option minus that of the best hyperscaler/neocloud/marketplace/API option.
    An option whose demand exceeds its capacity in a cell without a burst price cannot serve that
    cell and is left out of it (``None`` where no option, or no option on one side, is left).
    With the finance depth (docs/money-math.md): ``tax_rate``, ``cost_of_debt`` and an option's finance numbers
    may vary too; with a tax rate the cells compare NPVs after tax, and under the refresh policy truncate over the
    effective horizon. Raises ScenarioError for an invalid document, path or value.
    """
    doc, derived = normalise(document)
    problems: list[Problem] = []
    x_path, x_values = _axis("x", x, doc, problems)
    y_path, y_values = _axis("y", y, doc, problems)
    if x_path is not None and x_path == y_path:
        problems.append(Problem(y_path, "Sweep x and y must vary different fields"))
    if problems:
        raise ScenarioError(problems)
    columns = np.asarray(x_values, dtype=float).reshape(1, -1, 1)
    rows = np.asarray(y_values, dtype=float).reshape(-1, 1, 1)
    _check_grid(doc, derived, x_path, columns, y_path, rows)
    doc = truncated(doc)
    horizon = doc["horizon_months"]
    chunk = max(1, CHUNK_ELEMENTS // (len(x_values) * horizon))
    npv_rows = []
    for start in range(0, len(y_values), chunk):
        variant = with_assignments(doc, derived, [(x_path, columns), (y_path, rows[start : start + chunk])])
        npv_rows.append(_npvs(variant, (min(chunk, len(y_values) - start), len(x_values))))
    npvs = np.concatenate(npv_rows, axis=1)  # (options, rows, columns)
    return {
        "x": {"path": x_path, "values": x_values},
        "y": {"path": y_path, "values": y_values},
        "cheapest": _cheapest(doc, npvs),
        "owned_minus_rental": _owned_minus_rental(doc, npvs),
    }


def _axis(axis: str, spec: Any, doc: Mapping[str, Any], problems: list[Problem]) -> tuple[str | None, list[float]]:
    if not isinstance(spec, Sequence) or isinstance(spec, str) or len(spec) != 2:
        problems.append(Problem(axis, f"Sweep {axis} must be a pair (path, values)"))
        return None, []
    path, values = spec
    field = _field_spec(axis, path, doc, problems)
    if field is None:
        return None, []
    if isinstance(values, str) or not isinstance(values, Sequence | np.ndarray) or len(values) == 0:
        problems.append(Problem(path, f"Sweep {axis} needs a non-empty list of values"))
        return None, []
    if len(values) > MAX_AXIS_VALUES:
        problems.append(Problem(path, f"Sweep {axis} takes at most {MAX_AXIS_VALUES} values; got {len(values)}"))
        return None, []
    numbers = []
    for k, value in enumerate(values):
        number, message = check_number(value.item() if isinstance(value, np.generic) else value, field)
        if message:
            problems.append(Problem(path, f"Sweep {axis} value {k + 1}: {message}"))
        numbers.append(float(number) if number is not None else None)
    return path, numbers


def _field_spec(axis: str, path: Any, doc: Mapping[str, Any], problems: list[Problem]) -> NumberField | None:
    def fail(message: str) -> None:
        problems.append(Problem(str(path), f"Sweep {axis}: {message}"))

    if not isinstance(path, str):
        fail("the path must be text such as 'utilization' or 'options[1].price_per_gpu_hour'")
        return None
    if path == "utilization":
        return UTILIZATION
    if path in VARIED_TOP_NUMBERS:
        return VARIED_TOP_NUMBERS[path]
    if path in FINANCE_TOP_NUMBERS:
        return FINANCE_TOP_NUMBERS[path]
    if match := WORKLOAD_PATH.fullmatch(path):
        if doc.get("workload") is None:
            fail("the scenario has no workload to vary")
        elif match[1] not in WORKLOAD_NUMBERS:
            fail(f"the workload has no numeric field '{match[1]}'")
        else:
            return WORKLOAD_NUMBERS[match[1]]
        return None
    if (match := OPTION_PATH.fullmatch(path)) and match[2]:
        index, name = int(match[1]), match[2]
        if index >= len(doc["options"]):
            fail(f"there is no option {index} (the scenario has {len(doc['options'])})")
            return None
        option = doc["options"][index]
        numbers = {**numbers_for_kind(option["kind"]), **ranged_finance_numbers(option["kind"])}
        if name not in numbers:
            fail(f"an option of kind {option['kind']} has no numeric field '{name}'")
        elif fixed_by_refresh(doc, name):
            fail(REFRESH_FIXED)
        elif name in OVERRIDES and doc.get("workload") is None:
            fail("an override of throughput or acceptance needs a scenario workload")
        else:
            return numbers[name]
        return None
    fail(
        "can vary utilization, fleet_gpus, discount_rate, burst_price_per_gpu_hour, workload.<field> "
        "or options[i].<field>"
    )
    return None


def with_assignments(
    doc: Mapping[str, Any], derived: frozenset[str], assignments: list[tuple[str, Any]]
) -> dict[str, Any]:
    """A shallow copy of ``doc`` with each path set to an array (and its derived defaults with it)."""
    variant = {**doc, "options": [dict(option) for option in doc["options"]]}
    if doc.get("workload") is not None:
        variant["workload"] = dict(doc["workload"])
    for path, value in assignments:
        if (match := OPTION_PATH.fullmatch(path)) and match[2]:
            option = variant["options"][int(match[1])]
            option[match[2]] = value
            if match[2] == "power_kw" and f"options[{match[1]}].idle_power_kw" in derived:
                option["idle_power_kw"] = value
        elif match := WORKLOAD_PATH.fullmatch(path):
            variant["workload"][match[1]] = value
        else:
            variant[path] = value
            if path == "fleet_gpus":
                for i, option in enumerate(variant["options"]):
                    for field in ("gpu_count", "committed_gpus"):
                        if f"options[{i}].{field}" in derived:
                            option[field] = value
    return variant


def _npvs(variant: Mapping[str, Any], shape: tuple[int, int]) -> np.ndarray:
    horizon = variant["horizon_months"]
    utilization = variant["utilization"]
    if isinstance(utilization, np.ndarray):
        months = utilization * np.ones(horizon)
    else:
        months = np.array(expand_utilization(utilization, horizon))
    ctx = build_context(variant, months)
    npvs = [
        np.broadcast_to(np.asarray(option_flows(o, ctx).decision_npv(ctx))[..., 0], shape) for o in variant["options"]
    ]
    return np.stack(npvs)


def _check_grid(
    doc: Mapping[str, Any], derived: frozenset[str], x_path: str, columns: np.ndarray, y_path: str, rows: np.ndarray
) -> None:
    """Rules that tie two fields together, checked in every cell."""
    variant = with_assignments(doc, derived, [(x_path, columns[..., 0]), (y_path, rows[..., 0])])
    problems = []
    for i, option in enumerate(variant["options"]):
        if option["kind"] not in OWNED_KINDS:
            continue
        for low, high in AT_MOST_PAIRS:
            if np.any(np.asarray(option[low]) > np.asarray(option[high])):
                message = f"{at_most_message(low, high)} in some cells of the sweep"
                problems.append(Problem(f"options[{i}].{low}", message))
    if problems:
        raise ScenarioError(problems)


def _cheapest(doc: Mapping[str, Any], npvs: np.ndarray) -> list[list[str | None]]:
    names = [option["name"] for option in doc["options"]]
    usable = np.where(np.isnan(npvs), np.inf, npvs)
    best = np.argmin(usable, axis=0)
    served = np.isfinite(np.min(usable, axis=0))
    return [
        [names[b] if ok else None for b, ok in zip(best_row, ok_row, strict=True)]
        for best_row, ok_row in zip(best.tolist(), served.tolist(), strict=True)
    ]


def _owned_minus_rental(doc: Mapping[str, Any], npvs: np.ndarray) -> list[list[float | None]]:
    owned = np.array([option["kind"] in OWNED_KINDS for option in doc["options"]])
    usable = np.where(np.isnan(npvs), np.inf, npvs)
    if owned.all() or not owned.any():
        return [[None] * npvs.shape[2] for _ in range(npvs.shape[1])]
    difference = np.min(usable[owned], axis=0) - np.min(usable[~owned], axis=0)
    return [[d if np.isfinite(d) else None for d in row] for row in difference.tolist()]
