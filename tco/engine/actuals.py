"""Decisions against actuals (docs/money-math.md, "Plan against actual"): the plan of a decided scenario month by
month, the variance of what happened (actual - plan) per month and to date, the break-even recomputed at the price
actually paid, and the verdict in words.

Pure: a validated ``tco-scenario/1`` document, its ``tco-result/1`` and the actual figures per calendar month and
option in; plain dataclasses out. Months are ``"YYYY-MM"`` labels; the plan's month 1 is ``start_month``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lib.formatting import format_pct
from lib.kinds import OWNED_KINDS, is_on_demand_rental

from .constants import HOURS_PER_MONTH, SECONDS_PER_HOUR
from .curve import annual_costs_at
from .demand import expand_utilization, work_factor
from .results import _pair_break_even

MONTHS_IN_A_ROW_DEFAULT = 3
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
FIGURES = ("cost", "busy_gpu_hours", "utilization", "price_per_gpu_hour", "cost_per_accepted_output")


@dataclass(frozen=True)
class Figures:
    """One option's figures for one month (plan or actual); None = not known (no hours to divide by, no data)."""

    cost: float | None = None
    busy_gpu_hours: float | None = None
    utilization: float | None = None
    price_per_gpu_hour: float | None = None
    cost_per_accepted_output: float | None = None

    def minus(self, other: Figures) -> Figures:
        """``self - other`` figure by figure; None where either side is unknown."""
        return Figures(
            **{name: _difference(getattr(self, name), getattr(other, name)) for name in FIGURES},
        )


@dataclass(frozen=True)
class Actual:
    """What one option really cost and did in one month.

    ``cost`` is in the scenario's currency (converted before it gets here); ``busy_gpu_hours`` is measured use
    (utilization imports; None when nothing was measured); ``billed_gpu_hours`` are the GPU-hours a bill charged
    for (instance hours x GPUs per instance), which give the price actually paid per GPU-hour."""

    cost: float = 0.0
    busy_gpu_hours: float | None = None
    billed_gpu_hours: float = 0.0


@dataclass(frozen=True)
class MonthRow:
    month: str
    plan: Figures
    actual: Figures
    variance: Figures


@dataclass(frozen=True)
class OptionComparison:
    name: str
    kind: str
    months: list[MonthRow]
    plan_to_date: Figures
    actual_to_date: Figures
    variance_to_date: Figures


@dataclass(frozen=True)
class Verdict:
    holds: bool
    since: str | None  # the first month of the run that broke the decision
    break_even: float | None  # the latest month's recomputed break-even
    months_in_a_row: int
    text: str
    direction: str = "below"  # owning loses below the break-even; renting loses above it


@dataclass(frozen=True)
class Comparison:
    chosen: str
    months: list[str]
    options: list[OptionComparison]
    break_even_by_month: dict[str, float | None]
    utilization_by_month: dict[str, float | None]
    verdict: Verdict


def month_label(start_month: str, index: int) -> str:
    """The calendar month of plan month ``index`` (1-based) when month 1 is ``start_month`` ("YYYY-MM")."""
    year, month = (int(part) for part in start_month.split("-"))
    total = year * 12 + (month - 1) + (index - 1)
    return f"{total // 12:04d}-{total % 12 + 1:02d}"


def month_index(start_month: str, label: str) -> int:
    """The plan month (1-based) of a calendar month; 0 or less is before the plan starts."""
    y0, m0 = (int(part) for part in start_month.split("-"))
    y1, m1 = (int(part) for part in label.split("-"))
    return (y1 * 12 + m1) - (y0 * 12 + m0) + 1


def month_words(label: str) -> str:
    """ "2027-03" -> "March 2027"."""
    year, month = label.split("-")
    return f"{MONTH_NAMES[int(month) - 1]} {year}"


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _per(amount: float | None, quantity: float | None) -> float | None:
    if amount is None or not quantity:
        return None
    return amount / quantity


def _accepted_per_reference_hour(doc: Mapping[str, Any]) -> float | None:
    """Accepted responses per busy reference GPU-hour (θ_ref·3600·a_ref / k_out), None without a workload."""
    workload = doc.get("workload")
    if workload is None:
        return None
    return (
        workload["tokens_per_second_per_gpu"]
        * SECONDS_PER_HOUR
        * workload["acceptance_rate"]
        / workload["output_tokens_per_response"]
    )


def plan_months(doc: Mapping[str, Any], result: Mapping[str, Any]) -> dict[str, list[Figures]]:
    """Each option's plan per month m = 1..horizon: cash cost (capex in month 1, as the result), busy GPU-hours
    ``H_m = fleet·730·u_m·work factor``, utilization u_m, price per GPU-hour (cost ÷ H_m) and cost per accepted
    response (cost ÷ accepted responses in the month)."""
    horizon = len(result["options"][0]["monthly_cost"])
    utilization = expand_utilization(doc["utilization"], doc["horizon_months"])[:horizon]
    fleet = doc["fleet_gpus"]
    per_hour = _accepted_per_reference_hour(doc)
    plans: dict[str, list[Figures]] = {}
    for option, outcome in zip(doc["options"], result["options"], strict=True):
        factor = float(work_factor(doc.get("workload"), option))
        months = []
        for u, cost in zip(utilization, outcome["monthly_cost"], strict=True):
            reference_hours = fleet * HOURS_PER_MONTH * u
            busy = reference_hours * factor
            accepted = None if per_hour is None else reference_hours * per_hour
            months.append(
                Figures(
                    cost=float(cost),
                    busy_gpu_hours=busy,
                    utilization=u,
                    price_per_gpu_hour=_per(cost, busy),
                    cost_per_accepted_output=_per(cost, accepted),
                )
            )
        plans[option["name"]] = months
    return plans


def actual_figures(doc: Mapping[str, Any], option: Mapping[str, Any], actual: Actual | None) -> Figures:
    """The actual month as Figures: u = busy GPU-hours ÷ (fleet·730) in reference hours (÷ the work factor)."""
    if actual is None:
        return Figures()
    factor = float(work_factor(doc.get("workload"), option))
    busy = actual.busy_gpu_hours
    utilization = None if busy is None else busy / factor / (doc["fleet_gpus"] * HOURS_PER_MONTH)
    per_hour = _accepted_per_reference_hour(doc)
    accepted = None if busy is None or per_hour is None else busy / factor * per_hour
    return Figures(
        cost=actual.cost,
        busy_gpu_hours=busy,
        utilization=utilization,
        price_per_gpu_hour=_per(actual.cost, busy),
        cost_per_accepted_output=_per(actual.cost, accepted),
    )


def _sum_figures(doc: Mapping[str, Any], option: Mapping[str, Any], rows: Sequence[Figures]) -> Figures:
    """To date: costs and hours add up; the ratios are recomputed from the sums (never averaged)."""
    costs = [row.cost for row in rows]
    hours = [row.busy_gpu_hours for row in rows]
    cost = None if not rows or any(c is None for c in costs) else sum(costs)
    busy = None if not rows or any(h is None for h in hours) else sum(hours)
    factor = float(work_factor(doc.get("workload"), option))
    utilization = None if busy is None else busy / factor / (doc["fleet_gpus"] * HOURS_PER_MONTH * len(rows))
    per_hour = _accepted_per_reference_hour(doc)
    accepted = None if busy is None or per_hour is None else busy / factor * per_hour
    return Figures(
        cost=cost,
        busy_gpu_hours=busy,
        utilization=utilization,
        price_per_gpu_hour=_per(cost, busy),
        cost_per_accepted_output=_per(cost, accepted),
    )


def pair_break_even(
    doc: Mapping[str, Any], owned_name: str, rental_name: str, price: float | None = None
) -> float | None:
    """5.6's break-even of one owned x on-demand rental pair, with the rental's price per GPU-hour replaced by
    ``price`` (the price actually paid) when given. Same solver as the result's ``break_even``."""
    options = {option["name"]: option for option in doc["options"]}
    owned, rental = options[owned_name], dict(options[rental_name])
    if price is not None:
        rental["price_per_gpu_hour"] = price
    fleet = doc["fleet_gpus"]
    kink = owned["gpu_count"] / (fleet * work_factor(doc.get("workload"), owned))
    grid = np.array(sorted({0.0, 1.0} | ({kink} if 0.0 < kink < 1.0 else set())))
    owned_costs, rental_costs = annual_costs_at(doc, grid, [owned, rental])
    return _pair_break_even(doc, owned, rental, grid, owned_costs, rental_costs)


def _paid_price(actual: Actual | None) -> float | None:
    """The price actually paid per GPU-hour: billed cost ÷ billed GPU-hours (None without billed GPU-hours)."""
    if actual is None or actual.billed_gpu_hours <= 0:
        return None
    return actual.cost / actual.billed_gpu_hours


def month_break_even(
    doc: Mapping[str, Any], chosen: str, month_actuals: Mapping[str, Actual], cache: dict | None = None
) -> tuple[float | None, str]:
    """The break-even the chosen option is held against in one month, and which side loses below it.

    Owned chosen: the highest break-even over the on-demand rentals (each at the price paid for it that month,
    its listed price without bills): below it, renting would have been cheaper. Rental chosen: the lowest
    break-even over the owned options at the price paid for the chosen rental: above it, owning would have
    been cheaper. Neither (an API, a committed rental, no pair): None."""
    options = {option["name"]: option for option in doc["options"]}
    option = options[chosen]
    cache = {} if cache is None else cache

    def pair(owned: str, rental: str, price: float | None) -> float | None:
        key = (owned, rental, price)  # months paid at the same price (or none billed) share one solve
        if key not in cache:
            cache[key] = pair_break_even(doc, owned, rental, price)
        return cache[key]

    if option["kind"] in OWNED_KINDS:
        rentals = [o["name"] for o in doc["options"] if is_on_demand_rental(o)]
        values = [pair(chosen, r, _paid_price(month_actuals.get(r))) for r in rentals]
        known = [v for v in values if v is not None]
        if not rentals:
            return None, "below"
        # None = owning is dearer even at 100 %: below every utilization, i.e. a break-even of 100 %.
        return (1.0 if len(known) < len(values) else max(known)), "below"
    if is_on_demand_rental(option):
        owners = [o["name"] for o in doc["options"] if o["kind"] in OWNED_KINDS]
        price = _paid_price(month_actuals.get(chosen))
        known = [v for v in (pair(o, chosen, price) for o in owners) if v is not None]
        return (min(known) if known else None), "above"
    return None, "below"


def verdict(
    months: Sequence[str],
    utilization: Mapping[str, float | None],
    break_even: Mapping[str, float | None],
    *,
    direction: str = "below",
    months_in_a_row: int = MONTHS_IN_A_ROW_DEFAULT,
) -> Verdict:
    """ "The decision still holds", or "no longer holds since <first month>" once the actual utilization has been
    on the losing side of the break-even (below it for an owned choice, above it for a rental) ``months_in_a_row``
    calendar months in a row. A month without a measured utilization or a break-even breaks the run."""
    run: list[str] = []
    latest = None
    for month in months:
        u, threshold = utilization.get(month), break_even.get(month)
        if threshold is not None:
            latest = threshold
        losing = u is not None and threshold is not None and (u < threshold if direction == "below" else u > threshold)
        run = [*run, month] if losing else []
        if len(run) >= months_in_a_row:
            since = run[0]
            side = "below" if direction == "below" else "above"
            return Verdict(
                holds=False,
                since=since,
                break_even=threshold,
                months_in_a_row=len(run),
                direction=direction,
                text=(
                    f"The decision no longer holds since {month_words(since)}: utilization has been {side} the "
                    f"{format_pct(threshold)} break-even for {months_in_a_row} months."
                ),
            )
    if latest is None:
        text = "The decision still holds: there is no break-even to hold it against."
    else:
        text = "The decision still holds."
    return Verdict(holds=True, since=None, break_even=latest, months_in_a_row=len(run), text=text, direction=direction)


def compare(
    doc: Mapping[str, Any],
    result: Mapping[str, Any],
    *,
    chosen: str,
    start_month: str,
    actuals: Mapping[str, Mapping[str, Actual]],
    months_in_a_row: int = MONTHS_IN_A_ROW_DEFAULT,
) -> Comparison:
    """Plan against actual for every option of a validated document: per month from ``start_month`` to the last
    month with actuals (``actuals[month][option]``; months before the plan or after its horizon are left out), to
    date, the break-even recomputed each month at the price paid, and the verdict on ``chosen``."""
    plans = plan_months(doc, result)
    horizon = len(next(iter(plans.values())))
    indexes = [month_index(start_month, label) for label in actuals]
    last = max([i for i in indexes if 1 <= i <= horizon], default=0)
    months = [month_label(start_month, i) for i in range(1, last + 1)]
    by_name = {option["name"]: option for option in doc["options"]}
    compared = []
    for name, plan in plans.items():
        option = by_name[name]
        rows = []
        for i, label in enumerate(months):
            actual = actual_figures(doc, option, actuals.get(label, {}).get(name))
            rows.append(MonthRow(label, plan[i], actual, actual.minus(plan[i])))
        plan_to_date = _sum_figures(doc, option, [row.plan for row in rows])
        # To date, a month nothing was measured in still counts its cost; its hours are unknown, so is the sum.
        actual_rows = [row.actual if row.actual.cost is not None else Figures(cost=0.0) for row in rows]
        actual_to_date = _sum_figures(doc, option, actual_rows)
        compared.append(
            OptionComparison(
                name=name,
                kind=option["kind"],
                months=rows,
                plan_to_date=plan_to_date,
                actual_to_date=actual_to_date,
                variance_to_date=actual_to_date.minus(plan_to_date),
            )
        )
    chosen_rows = next(o for o in compared if o.name == chosen).months
    utilization = {row.month: row.actual.utilization for row in chosen_rows}
    break_even: dict[str, float | None] = {}
    direction = "below"
    solved: dict = {}
    for label in months:
        break_even[label], direction = month_break_even(doc, chosen, actuals.get(label, {}), solved)
    return Comparison(
        chosen=chosen,
        months=months,
        options=compared,
        break_even_by_month=break_even,
        utilization_by_month=utilization,
        verdict=verdict(months, utilization, break_even, direction=direction, months_in_a_row=months_in_a_row),
    )


def reforecast_utilization(
    doc: Mapping[str, Any], start_month: str, measured: Mapping[str, float | None]
) -> list[float]:
    """A forecast that starts from the actuals: one value per plan month, the measured utilization where there is
    one (clamped to 0..1), the plan's own value for the months still ahead or never measured."""
    planned = expand_utilization(doc["utilization"], doc["horizon_months"])
    values = list(planned)
    for label, u in measured.items():
        i = month_index(start_month, label)
        if u is not None and 1 <= i <= len(values):
            values[i - 1] = min(max(float(u), 0.0), 1.0)
    return values
