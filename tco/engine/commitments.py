"""Rental commitments with a term (docs/money-math.md "Commitments").

A term of Tc months starting at month s locks the price ``p·P(s)`` for K committed GPUs: each term month costs
``(1 - a)·K·730·p·P(s)``; the upfront share ``a·K·730·p·P(s)·Tc`` is paid at month s - 1 and deducted evenly over the
term. Terms renew while a whole term fits the horizon (``after_term = renew``) or run once (``on_demand``); hours
above K·730, and every hour after the last term, are bought at the on-demand price ``x·P(m)`` (default: the burst
price, flat). Against on demand at today's prices the committed GPU-hour costs
``p_eff = p·(a·Tc/Σ_{m=1..Tc}(1+r)^(-m/12) + 1 - a)``, so the committed GPUs must be busy ``u_c = p_eff/p_od`` of
the time, and the fleet ``u* = K·u_c/(w·fleet_gpus)`` (w the work factor; none above 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lib.kinds import ON_DEMAND

from .catalogue import option_value
from .constants import HOURS_PER_MONTH, HOURS_PER_YEAR, MONTHS_PER_YEAR
from .demand import work_factor
from .model import Context, Flows, mean_months, sum_months
from .price_path import monthly_price_factor


def term_starts(option: Mapping[str, Any], horizon: int) -> list[int]:
    """First months (1-based) of the whole terms that fit the horizon."""
    term = int(option["commitment_term_months"])
    if option_value(option, "after_term") == ON_DEMAND:
        return [1] if term <= horizon else []
    return list(range(1, horizon - term + 2, term))


def on_demand_price(option: Mapping[str, Any], ctx: Context) -> Any:
    """Today's price of an hour above or outside a term (the burst price when none is given; None without either)."""
    price = option.get("on_demand_price_per_gpu_hour")
    return ctx.burst_price_per_gpu_hour if price is None else price


def committed_term_flows(option: Mapping[str, Any], ctx: Context) -> tuple[Flows, np.ndarray, dict[str, Any]]:
    """``(flows, deductible, details)``: the cash flows (the first upfront at month 0 as the flows' capex), the
    deductible cost of months 0..H (upfronts spread over their terms) and the commitment's own results."""
    horizon = ctx.horizon_months
    term = int(option["commitment_term_months"])
    upfront_share = option_value(option, "upfront_share")
    price = option["price_per_gpu_hour"]
    factor = monthly_price_factor(option, ctx.months)
    committed = option["committed_gpus"] * HOURS_PER_MONTH
    hours = ctx.demand * work_factor(ctx.workload, option)
    extras = option["extras_per_year"] / MONTHS_PER_YEAR
    od_today = on_demand_price(option, ctx)
    od_factor = 1.0 if option.get("on_demand_price_per_gpu_hour") is None else factor
    starts = term_starts(option, horizon)
    in_term = np.zeros(horizon)
    first_month = np.zeros(horizon, dtype=int)  # each term month's first month (0-based)
    for start in starts:
        in_term[start - 1 : start - 1 + term] = 1.0
        first_month[start - 1 : start - 1 + term] = start - 1
    factor = np.asarray(factor)
    start_prices = price * factor[..., [start - 1 for start in starts]]
    locked = price * factor[..., first_month] * in_term  # the locked price in each term month, 0 outside
    upfront_cash = upfront_share * committed * start_prices * term  # paid at months start - 1
    upfront = np.zeros((*np.shape(upfront_cash)[:-1], horizon + 1))
    upfront[..., [start - 1 for start in starts]] = upfront_cash
    terms = [[start, float(np.asarray(start_prices)[..., k].reshape(-1)[0])] for k, start in enumerate(starts)]
    served = np.minimum(hours, committed) * in_term
    outside = hours - served
    od_cost = np.where(outside > committed * 1e-09, np.nan, 0.0) if od_today is None else outside * od_today * od_factor
    running = (1.0 - upfront_share) * committed * locked + od_cost + extras
    usage = running + upfront[..., 1:]
    deductible = np.concatenate(
        [np.zeros((*np.shape(running)[:-1], 1)), running + upfront_share * committed * locked], axis=-1
    )
    monthly_discount = np.asarray(ctx.discount)[..., :1]  # (1 + r)^(-1/12), so that a 1-month context works too
    annuity = sum_months(monthly_discount ** np.arange(1, term + 1))
    p_eff = price * (upfront_share * term / annuity + 1.0 - upfront_share)
    overflow = np.maximum(hours - committed, 0.0)
    annual = (
        option["committed_gpus"] * HOURS_PER_YEAR * p_eff
        + MONTHS_PER_YEAR * mean_months(overflow) * (od_today if od_today is not None else np.nan)
        + option["extras_per_year"]
    )
    details = _details(option, ctx, terms, hours, served, committed * float(np.add.reduce(in_term)), p_eff, od_today)
    flows = Flows(
        usage=usage,
        annual_cost=annual,
        overflow_gpu_hours=sum_months(outside),
        capex=upfront[..., 0:1] if np.ndim(upfront) > 1 else float(upfront[0]),
    )
    return flows, deductible, details


def _details(
    option: Mapping[str, Any],
    ctx: Context,
    terms: list[list[float]],
    hours: Any,
    served: Any,
    term_hours: float,
    p_eff: Any,
    od_today: Any,
) -> dict[str, Any]:
    """The commitment's own results, for one scenario (a sweep's or a simulation's variants need only the NPVs)."""
    if (
        np.ndim(served) != 1
        or np.ndim(p_eff) > 1
        or np.ndim(od_today)
        or np.ndim(ctx.fleet_gpus)
        or np.ndim(option["committed_gpus"])
    ):
        return {}
    total_hours = float(np.add.reduce(hours))
    busy = float(np.add.reduce(served))
    first = float(np.asarray(p_eff).reshape(-1)[0])
    u_c = first / od_today if od_today else None
    fleet_u = (
        None if u_c is None else option["committed_gpus"] * u_c / (work_factor(ctx.workload, option) * ctx.fleet_gpus)
    )
    return {
        "commitment_terms": terms,
        "commitment_coverage": busy / total_hours if total_hours else None,
        "commitment_utilization": busy / term_hours if term_hours else None,
        "commitment_effective_price_per_gpu_hour": first,
        "commitment_break_even_utilization": u_c,
        "break_even_utilization_vs_on_demand": fleet_u if fleet_u is not None and fleet_u <= 1.0 else None,
    }
