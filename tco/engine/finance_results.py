"""The finance depth's results (docs/money-math.md "Finance depth"): what ``evaluate`` adds to each option, pair and
the result itself when the document uses any finance input.

Per option: ``npv_after_tax`` with the parts it is made of (``npv - pv_opex_tax_saving - pv_depreciation_tax_shield
- pv_financing_tax_saving + pv_tax_on_disposals``) and ``total_cash_cost`` (undiscounted, after tax); per owned
option the depreciation, book and tax values, the after-tax capital charge, replacements, and its loan or lease
(with the NAL when the scenario has a cost of debt); per committed rental with a term, the commitment's figures;
per break-even pair ``utilization_after_tax``; at the top ``effective_horizon_months`` and ``cheapest_after_tax``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lib.kinds import OWNED_KINDS

from .finance import cycle_months, first_figure, tax_depreciation_by_year
from .financing import nal
from .model import Context, Flows
from .resale import residual
from .tax import after_tax_capital_charge


def effective_horizon(doc: Mapping[str, Any]) -> int:
    """``H_eff``: the horizon, cut to the shortest owned cycle when the refresh policy is ``truncate``."""
    horizon = doc["horizon_months"]
    if doc.get("refresh_policy") != "truncate":
        return horizon
    cycles = [cycle_months(option) for option in doc["options"] if option["kind"] in OWNED_KINDS]
    return min([horizon, *cycles])


def truncated(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    """The document evaluated over ``H_eff`` months (a monthly forecast cut to its first H_eff months)."""
    horizon = effective_horizon(doc)
    if horizon == doc["horizon_months"]:
        return doc
    utilization = doc["utilization"]
    if not isinstance(utilization, list):  # a sweep's grid of flat levels
        return {**doc, "horizon_months": horizon}
    return {
        **doc,
        "horizon_months": horizon,
        "utilization": utilization if len(utilization) == 1 else utilization[:horizon],
    }


def cash_series(flows: Flows) -> tuple[list[float], float]:
    """``(monthly cash cost with month 0 folded into month 1, sale proceeds)`` of an option's ledger."""
    cash = np.asarray(flows.ledger.cash, dtype=float)
    if cash.ndim > 1:
        cash = cash.reshape(-1, cash.shape[-1])[0]
    monthly = cash[1:].copy()
    monthly[0] += cash[0]
    proceeds = float(np.add.reduce(np.asarray(flows.ledger.proceeds, dtype=float).reshape(-1)[: cash.size]))
    return monthly.tolist(), proceeds


def option_extras(option: Mapping[str, Any], flows: Flows, ctx: Context) -> dict[str, Any]:
    ledger = flows.ledger
    parts = {key: first_figure(value) for key, value in ledger.savings(ctx).items()}
    extras: dict[str, Any] = {
        "npv_after_tax": first_figure(ledger.npv_after_tax(ctx)),
        **parts,
        "total_cash_cost": first_figure(ledger.total_after_tax(ctx)),
    }
    if option["kind"] in OWNED_KINDS:
        details = dict(ledger.details)
        extras["tax_depreciation_by_year"] = tax_depreciation_by_year(ledger, ctx.horizon_months)
        extras["capital_charge_after_tax_per_year"] = first_figure(
            after_tax_capital_charge(option, ctx.tax_rate, residual(option))
        )
        if option.get("financing") == "lease":
            extras.update(_lease(option, ctx))
        extras.update(details)
    if flows.details:
        extras.update(flows.details)
    return extras


def _lease(option: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    if ctx.cost_of_debt is None:
        return {"nal": None, "after_tax_cost_of_debt": None, "break_even_lease_payment": None}
    advantage, payment = nal(option, ctx.tax_rate, ctx.cost_of_debt)
    return {
        "nal": first_figure(advantage),
        "after_tax_cost_of_debt": first_figure(ctx.cost_of_debt * (1.0 - ctx.tax_rate)),
        "break_even_lease_payment": first_figure(payment),
    }


def after_tax_curves(
    tax_rate: float,
    curves: Mapping[int, np.ndarray],
    results: list[Mapping[str, Any]],
    owned: list[int],
    rentals: list[int],
) -> dict[int, list[float]]:
    """The after-tax annual curves the after-tax break-even compares, by option index: owned ``A_AT + (1 - T)·(annual
    - A)``, a rental ``(1 - T)·annual``."""
    after = {
        i: (
            results[i]["capital_charge_after_tax_per_year"]
            + (1.0 - tax_rate) * (curves[i] - results[i]["capital_charge_per_year"])
        ).tolist()
        for i in owned
    }
    after.update({j: ((1.0 - tax_rate) * curves[j]).tolist() for j in rentals})
    return after
