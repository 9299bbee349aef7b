"""``evaluate``: a scenario document in, a ``tco-result/1`` dict out (docs/money-math.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from lib.kinds import CAPACITY_BLOCK, OWNED_KINDS, RENTAL_KINDS, is_on_demand_rental

from .breakeven import break_even_utilization, break_even_utilization_closed_form, crossover_month
from .constants import ENGINE_VERSION, HOURS_PER_MONTH, MONTHS_PER_YEAR, RESULT_SCHEMA, SECONDS_PER_HOUR
from .curve import annual_costs_at
from .demand import expand_utilization, work_factor
from .errors import Problem, ScenarioError
from .finance import OperatingLedger
from .finance_results import after_tax_curves, cash_series, option_extras, truncated
from .flows import option_flows
from .model import Flows, build_context
from .owned import capital_charge, energy_terms, fixed_opex_per_year
from .resale import residual
from .training import blocks_per_run
from .validation import validate


def evaluate(document: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate a ``tco-scenario/1`` document (docs/money-math.md) into a JSON-ready ``tco-result/1`` dict.

    Per option: annual cost (5.6), cost per busy GPU-hour and per accepted output, monthly and
    cumulative cash cost (capex in month 1, no resale), resale at the horizon, total cost
    (last cumulative - resale) and NPV (capex at month 0 undiscounted, month m at (1+r)^(m/12),
    resale at the horizon). Plus break-even utilization and crossover month of every owned x
    on-demand rental pair, and the cheapest option by NPV. Raises ScenarioError.
    """
    return evaluate_normalised(validate(document))


def evaluate_normalised(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``evaluate`` for a document that already passed :func:`validate`."""
    entered_horizon = doc["horizon_months"]
    doc = truncated(doc)
    horizon = doc["horizon_months"]
    ctx = build_context(doc, np.array(expand_utilization(doc["utilization"], horizon)))
    flows = [option_flows(option, ctx) for option in doc["options"]]
    reference = _reference(doc, ctx.demand, ctx.utilization)
    options = [_option_result(option, f, ctx, reference) for option, f in zip(doc["options"], flows, strict=True)]
    if ctx.training is not None:
        _add_training(doc, options, flows, ctx)
    _refuse_overflow(reference, options)
    npvs = [o["npv"] for o in options]
    result = {
        "schema": RESULT_SCHEMA,
        "engine_version": ENGINE_VERSION,
        "name": doc["name"],
        "currency": doc["currency"],
        "horizon_months": entered_horizon,
        "reference": reference,
        "options": options,
        "break_even": _break_even(doc, options, ctx),
        "cheapest": options[npvs.index(min(npvs))]["name"],
    }
    if ctx.training is not None:
        result["training"] = ctx.training.result()
    if ctx.finance:
        after_tax = [o["npv_after_tax"] for o in options]
        result["effective_horizon_months"] = horizon
        result["cheapest_after_tax"] = options[after_tax.index(min(after_tax))]["name"]
    return result


PER_UNIT_COSTS = (
    "cost_per_gpu_hour",
    "cost_per_accepted_response",
    "cost_per_million_accepted_tokens",
    "cost_per_validated_version",
)
# Every amount of money an option's result holds (the rest are shares, hours and counts): what a conversion into
# another currency multiplies.
MONEY_RESULTS = (
    "annual_cost",
    *PER_UNIT_COSTS,
    "resale_value",
    "total_cost",
    "npv",
    "capital_charge_per_year",
    # the finance depth's (finance_results.py), present only when the document uses it
    "npv_after_tax",
    "pv_opex_tax_saving",
    "pv_depreciation_tax_shield",
    "pv_financing_tax_saving",
    "pv_tax_on_disposals",
    "total_cash_cost",
    "capital_charge_after_tax_per_year",
    "book_depreciation_per_year",
    "book_value_at_horizon",
    "tax_basis_at_horizon",
    "deferred_tax_liability_at_horizon",
    "loan_payment_per_month",
    "loan_balance_repaid_at_sale",
    "lease_payment",
    "nal",
    "break_even_lease_payment",
    "commitment_effective_price_per_gpu_hour",
)
MONEY_SERIES = ("monthly_cost", "cumulative_cost", "tax_depreciation_by_year")
# [[month, amount], ...]: the finance depth's dated amounts.
MONEY_BY_MONTH = ("replacement_capex", "commitment_terms")


def _refuse_overflow(reference: Mapping[str, Any], options: list[dict[str, Any]]) -> None:
    """Finite but extreme inputs (an acceptance rate of 1e-300, a price of 1e306) can overflow
    float64; refuse them with the culprit's path rather than return Infinity or NaN, which is not JSON."""
    problems = []
    if not _all_finite(list(reference.values())):
        problems.append(Problem("workload", "The accepted output per year is too large to compute; check for a typo"))
    for i, option in enumerate(options):
        totals = [value for key, value in option.items() if key not in PER_UNIT_COSTS]
        if not _all_finite([*totals, *option["monthly_cost"], *option["cumulative_cost"]]):
            problems.append(
                Problem(
                    f"options[{i}]",
                    f"The costs of '{option['name']}' are too large to compute (beyond 1e308); "
                    "check its numbers, the workload and the utilization for a typo",
                )
            )
    if problems:
        raise ScenarioError(problems)


def _all_finite(values: list[Any]) -> bool:
    return all(math.isfinite(v) for v in values if isinstance(v, float))


def _reference(doc: Mapping[str, Any], demand: np.ndarray, utilization: np.ndarray) -> dict[str, Any]:
    busy = MONTHS_PER_YEAR * float(np.mean(demand))
    workload = doc.get("workload")
    tokens = responses = None
    if workload is not None:
        tokens = busy * workload["tokens_per_second_per_gpu"] * SECONDS_PER_HOUR * workload["acceptance_rate"]
        responses = tokens / workload["output_tokens_per_response"]
    return {
        "fleet_gpus": doc["fleet_gpus"],
        "mean_utilization": float(np.mean(utilization)),
        "busy_gpu_hours_per_year": busy,
        "accepted_responses_per_year": responses,
        "accepted_output_tokens_per_year": tokens,
    }


def _first(value: Any) -> float:
    return float(np.asarray(value).reshape(-1)[0])


def _per(amount: float, quantity: float | None, scale: float = 1.0) -> float | None:
    """Cost per unit; None when there are no units, or so few (utilization of 1e-320) that it overflows."""
    if not quantity:
        return None
    value = amount / quantity * scale
    return value if math.isfinite(value) else None


def _option_result(option: Mapping[str, Any], flows: Flows, ctx: Any, reference: Mapping[str, Any]) -> dict[str, Any]:
    if flows.ledger is None or isinstance(flows.ledger, OperatingLedger):  # the flows are the cash
        monthly = np.array(flows.usage, dtype=float)
        monthly[0] += flows.capex
        resale = _first(flows.resale)
    else:
        series, resale = cash_series(flows)
        monthly = np.array(series)
    cumulative = np.cumsum(monthly).tolist()
    annual = _first(flows.annual_cost)
    owned = option["kind"] in OWNED_KINDS
    result = {
        "name": option["name"],
        "kind": option["kind"],
        "annual_cost": annual,
        "cost_per_gpu_hour": _per(annual, reference["busy_gpu_hours_per_year"]),
        "cost_per_accepted_response": _per(annual, reference["accepted_responses_per_year"]),
        "cost_per_million_accepted_tokens": _per(annual, reference["accepted_output_tokens_per_year"], 1e6),
        "monthly_cost": monthly.tolist(),
        "cumulative_cost": cumulative,
        "resale_value": resale,
        "total_cost": cumulative[-1] - resale,
        "npv": _first(flows.npv(ctx)),
        "capital_charge_per_year": _first(flows.capital_charge) if owned else None,
        "mean_own_utilization": _first(flows.mean_own_utilization) if owned else None,
        "overflow_gpu_hours": _first(flows.overflow_gpu_hours),
    }
    if flows.ledger is not None:
        result.update(option_extras(option, flows, ctx))
    return result


def _add_training(doc: Mapping[str, Any], options: list[dict[str, Any]], flows: list[Flows], ctx: Any) -> None:
    """Each option's ``cost_per_validated_version`` and ``blocks_per_run`` (docs/money-math.md "Training runs"):
    the GPU-hours per version at the option's cost of a GPU-hour (a rental's price today; an owned option's annual
    cost over its busy hours, training included), whole blocks for a capacity block, none for an API."""
    plan = ctx.training
    for option, result, flow in zip(doc["options"], options, flows, strict=True):
        kind, blocks, cost = option["kind"], None, None
        if kind in OWNED_KINDS:
            busy = MONTHS_PER_YEAR * float(np.mean(ctx.gpu_hours(option)))
            cost = plan.version_cost_at(_per(_first(flow.annual_cost), busy))
        elif option.get("billing") == CAPACITY_BLOCK:
            blocks = int(blocks_per_run(option, plan.gpu_hours_effective))
            cost = plan.block_version_cost(option)
        elif kind in RENTAL_KINDS:
            cost = plan.version_cost_at(option["price_per_gpu_hour"])
        result["cost_per_validated_version"] = cost
        result["blocks_per_run"] = blocks


def _break_even(doc: Mapping[str, Any], results: list[dict[str, Any]], ctx: Any) -> list[dict[str, Any]]:
    """Every owned/secondary x on-demand rental pair, in document order."""
    options = doc["options"]
    owned = [i for i, o in enumerate(options) if o["kind"] in OWNED_KINDS]
    rentals = [i for i, o in enumerate(options) if is_on_demand_rental(o)]
    if not owned or not rentals:
        return []
    grid = _break_even_grid(doc, [options[i] for i in owned], ctx)
    curves = dict(zip(owned + rentals, annual_costs_at(doc, grid, [options[i] for i in owned + rentals]), strict=True))
    # Without a tax the after-tax curves are the pre-tax ones; with one, each option's is worked out once.
    after_tax = after_tax_curves(ctx.tax_rate, curves, results, owned, rentals) if ctx.finance and ctx.has_tax else None
    utilizations = grid.tolist()
    pairs = []
    for i in owned:
        for j in rentals:
            pair = {
                "owned": options[i]["name"],
                "rental": options[j]["name"],
                "utilization": _pair_break_even(doc, options[i], options[j], grid, curves[i], curves[j], ctx),
                "crossover_month": crossover_month(results[i]["cumulative_cost"], results[j]["cumulative_cost"]),
            }
            if ctx.finance:
                pair["utilization_after_tax"] = (
                    break_even_utilization(utilizations, after_tax[i], after_tax[j])
                    if after_tax is not None
                    else pair["utilization"]
                )
            pairs.append(pair)
    return pairs


def _break_even_grid(doc: Mapping[str, Any], owned: list[Mapping[str, Any]], ctx: Any) -> np.ndarray:
    """0, 1 and the kinks between: where an owned option's demand H(u) = work factor · fleet · u (+ the training's
    GPUs, the same at every u) reaches its G GPUs. The annual costs are linear in u between them."""
    training_gpus = ctx.training_hours / HOURS_PER_MONTH
    kinks = {
        (option["gpu_count"] - training_gpus) / (doc["fleet_gpus"] * work_factor(doc.get("workload"), option))
        for option in owned
    }
    return np.array(sorted({0.0, 1.0} | {k for k in kinks if 0.0 < k < 1.0}))


def break_even_of_pair(doc: Mapping[str, Any], owned: Mapping[str, Any], rental: Mapping[str, Any]) -> float | None:
    """5.6's break-even utilization of one owned x on-demand rental pair of a validated document, solved as
    ``evaluate`` solves every pair (the actuals recompute it at the price actually paid)."""
    ctx = build_context(doc, np.array(expand_utilization(doc["utilization"], doc["horizon_months"])))
    grid = _break_even_grid(doc, [owned], ctx)
    owned_costs, rental_costs = annual_costs_at(doc, grid, [owned, rental])
    return _pair_break_even(doc, owned, rental, grid, owned_costs, rental_costs, ctx)


def _pair_break_even(
    doc: Mapping[str, Any],
    owned: Mapping[str, Any],
    rental: Mapping[str, Any],
    grid: np.ndarray,
    owned_costs: np.ndarray,
    rental_costs: np.ndarray,
    ctx: Any,
) -> float | None:
    workload = doc.get("workload")
    plain = (
        ctx.training is None
        and owned["gpu_count"] == doc["fleet_gpus"]
        and work_factor(workload, owned) == 1.0
        and work_factor(workload, rental) == 1.0
    )
    if not plain:
        return break_even_utilization(grid.tolist(), owned_costs.tolist(), rental_costs.tolist())
    idle_energy, energy_slope = energy_terms(owned)
    charge = capital_charge(
        capex=owned["capex"],
        residual_value=residual(owned),
        useful_life_years=owned["useful_life_years"],
        cost_of_capital=owned["cost_of_capital"],
    )
    return break_even_utilization_closed_form(
        owned_fixed_per_year=charge + idle_energy + fixed_opex_per_year(owned),
        owned_energy_slope_per_year=energy_slope,
        rental_extras_per_year=rental["extras_per_year"],
        fleet_gpus=doc["fleet_gpus"],
        price_per_gpu_hour=rental["price_per_gpu_hour"],
    )
