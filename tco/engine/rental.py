"""Rented GPUs and managed model APIs (docs/money-math.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lib.kinds import ON_DEMAND

from .constants import HOURS_PER_MONTH, HOURS_PER_YEAR, MONTHS_PER_YEAR, SECONDS_PER_HOUR
from .demand import work_factor
from .model import Context, Flows, mean_months, sum_months
from .price_path import monthly_price_factor


def rental_flows(option: Mapping[str, Any], ctx: Context) -> Flows:
    """Hyperscaler, neocloud or marketplace GPUs at p per GPU-hour (docs/money-math.md).

    ``p_m = p·P(m)``, ``P(m) = (1+g)^((m-1)/12)`` or the price path by year (price_path.py).
    On demand: ``cost_m = H_m·p_m + extras/12``. Committed to K GPUs:
    ``cost_m = K·730·p_m + max(H_m - K·730, 0)·burst + extras/12``. Annual cost at today's price p:
    ``12·mean(H_m)·p + extras`` on demand, ``K·8760·p + 12·mean(overflow_m)·burst + extras`` committed.
    """
    price = option["price_per_gpu_hour"]
    monthly_price = price * monthly_price_factor(option, ctx.months)
    extras = option["extras_per_year"]
    hours = ctx.demand * work_factor(ctx.workload, option)
    if option["billing"] == ON_DEMAND:
        return Flows(
            usage=hours * monthly_price + extras / MONTHS_PER_YEAR,
            annual_cost=MONTHS_PER_YEAR * mean_months(hours) * price + extras,
            overflow_gpu_hours=0.0,
        )
    committed_hours = option["committed_gpus"] * HOURS_PER_MONTH
    overflow = hours - np.minimum(hours, committed_hours)  # max(H_m - K·730, 0)
    burst = ctx.burst_cost(overflow, committed_hours)
    return Flows(
        usage=committed_hours * monthly_price + burst + extras / MONTHS_PER_YEAR,
        annual_cost=option["committed_gpus"] * HOURS_PER_YEAR * price + MONTHS_PER_YEAR * mean_months(burst) + extras,
        overflow_gpu_hours=sum_months(overflow),
    )


def api_flows(option: Mapping[str, Any], ctx: Context) -> Flows:
    """A managed model API priced per token (docs/money-math.md).

    Attempts in month m = ``D_m·θ_ref·3600/k_out · a_ref/a_o``; ``cost_m = attempts ·
    (k_in·price_in + k_out·price_out)/1e6 + extras/12``; annual cost ``12·mean(attempts)·unit + extras``.
    """
    workload = ctx.workload
    output_tokens = workload["output_tokens_per_response"]
    attempts = (
        ctx.demand
        * workload["tokens_per_second_per_gpu"]
        * SECONDS_PER_HOUR
        / output_tokens
        * work_factor(workload, option)
    )
    per_attempt = (
        workload["input_tokens_per_response"] * option["price_per_million_input_tokens"]
        + output_tokens * option["price_per_million_output_tokens"]
    ) / 1e6
    extras = option["extras_per_year"]
    return Flows(
        usage=attempts * per_attempt + extras / MONTHS_PER_YEAR,
        annual_cost=MONTHS_PER_YEAR * mean_months(attempts) * per_attempt + extras,
        overflow_gpu_hours=0.0,
    )
