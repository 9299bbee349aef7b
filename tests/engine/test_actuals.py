"""Plan against actual (docs/money-math.md): plan per month, variance, break-even at the price paid, the verdict.

Golden numbers by hand: an owner whose annual cost is exactly 150,000 whatever its use (capex 150,000 over one
year at r = 0, no power) against a rental at 4.00/GPU-hour for a fleet of 8, no workload unless said so.
"""

from __future__ import annotations

import pytest

from tco.engine import evaluate
from tco.engine.actuals import (
    Actual,
    compare,
    month_index,
    month_label,
    month_words,
    pair_break_even,
    plan_months,
    reforecast_utilization,
    verdict,
)
from tco.engine.validation import validate

from .docs import DROP, rental, scenario

OWNER = {
    "name": "Own",
    "kind": "owned",
    "capex": 150000,
    "useful_life_years": 1,
    "power_kw": 0,
    "electricity_per_kwh": 0,
}


def _doc(**fields):
    base = {"workload": DROP, "horizon_months": 12, "utilization": [0.55], "burst_price_per_gpu_hour": DROP}
    return validate(scenario(dict(OWNER), rental(price_per_gpu_hour=4.0), **{**base, **fields}))


def test_months_are_counted_from_the_plan_start_across_years():
    assert month_label("2026-11", 1) == "2026-11"
    assert month_label("2026-11", 3) == "2027-01"
    assert month_index("2026-11", "2027-01") == 3
    assert month_index("2026-11", "2026-10") == 0
    assert month_words("2027-03") == "March 2027"


def test_the_plan_per_month_is_the_results_cash_cost_and_the_forecast_hours():
    doc = _doc()
    plans = plan_months(doc, evaluate(doc))
    rent = plans["Rent"][0]
    # 8 GPUs x 730 h x 0.55 = 3,212 busy GPU-hours at 4.00 = 12,848.
    assert rent.busy_gpu_hours == pytest.approx(3212)
    assert rent.cost == pytest.approx(12848)
    assert rent.price_per_gpu_hour == pytest.approx(4.0)
    assert rent.utilization == pytest.approx(0.55)
    assert rent.cost_per_accepted_output is None  # no workload, no accepted output
    own = plans["Own"]
    assert own[0].cost == pytest.approx(150000)  # capex in month 1
    assert own[1].cost == pytest.approx(0)


def test_cost_per_accepted_output_divides_by_the_months_accepted_responses():
    doc = validate(
        scenario(dict(OWNER), rental(price_per_gpu_hour=4.0), horizon_months=12, utilization=[0.5])
    )  # workload: 2,400 tokens/s, 350 output tokens a response, 90 % accepted
    plan = plan_months(doc, evaluate(doc))["Rent"][0]
    hours = 8 * 730 * 0.5
    accepted = hours * 2400 * 3600 * 0.9 / 350
    assert plan.cost_per_accepted_output == pytest.approx(hours * 4.0 / accepted)


def test_the_break_even_is_recomputed_at_the_price_paid():
    doc = _doc()
    assert pair_break_even(doc, "Own", "Rent") == pytest.approx(150000 / (8 * 8760 * 4))  # 53.5 %
    assert pair_break_even(doc, "Own", "Rent", price=3.0) == pytest.approx(150000 / (8 * 8760 * 3))  # 71.3 %
    assert pair_break_even(doc, "Own", "Rent", price=1.0) is None  # owning is dearer even at 100 %


def test_variance_per_month_and_to_date_is_actual_minus_plan():
    doc = _doc()
    actuals = {
        "2027-01": {"Own": Actual(cost=151000, busy_gpu_hours=8 * 730 * 0.5)},
        "2027-02": {"Own": Actual(cost=900, busy_gpu_hours=8 * 730 * 0.25)},
    }
    result = compare(doc, evaluate(doc), chosen="Own", start_month="2027-01", actuals=actuals)
    own = next(o for o in result.options if o.name == "Own")
    first, second = own.months
    assert first.variance.cost == pytest.approx(1000)
    assert first.actual.utilization == pytest.approx(0.5)
    assert first.variance.utilization == pytest.approx(-0.05)
    assert second.variance.busy_gpu_hours == pytest.approx(8 * 730 * (0.25 - 0.55))
    # To date: 151,900 against 150,000; 2 x 5,840 x 0.375 busy hours; utilization 0.375 against 0.55.
    assert own.variance_to_date.cost == pytest.approx(1900)
    assert own.actual_to_date.utilization == pytest.approx(0.375)
    assert own.plan_to_date.utilization == pytest.approx(0.55)
    assert own.actual_to_date.price_per_gpu_hour == pytest.approx(151900 / (2 * 5840 * 0.375))
    rent = next(o for o in result.options if o.name == "Rent")
    assert rent.months[0].actual.cost is None  # nothing billed: unknown, not zero
    assert rent.actual_to_date.cost == 0.0


def test_the_verdict_turns_after_three_months_below_and_names_the_first():
    months = [f"2027-0{m}" for m in range(1, 10)]
    low = {m: (0.40 if m >= "2027-07" else 0.60) for m in months}
    threshold = dict.fromkeys(months, 0.58)
    assert verdict(months[:8], low, threshold).holds
    turned = verdict(months, low, threshold)
    assert not turned.holds
    assert turned.since == "2027-07"
    assert turned.text == (
        "The decision no longer holds since July 2027: utilization has been below the 58.0% break-even for 3 months."
    )


def test_a_month_above_or_without_a_measurement_breaks_the_run():
    months = ["2027-01", "2027-02", "2027-03", "2027-04", "2027-05"]
    threshold = dict.fromkeys(months, 0.5)
    u = {"2027-01": 0.4, "2027-02": 0.4, "2027-03": 0.6, "2027-04": 0.4, "2027-05": None}
    assert verdict(months, u, threshold).holds
    assert verdict(months, u, threshold, months_in_a_row=2).since == "2027-01"


def test_a_rental_choice_loses_when_utilization_stays_above_the_break_even():
    doc = _doc()
    # Paid 4.00 as listed: break-even 53.5 %; 80 % use three months running means owning would have been cheaper.
    hours = 8 * 730 * 0.8
    actuals = {
        f"2027-0{m}": {"Rent": Actual(cost=hours * 4, busy_gpu_hours=hours, billed_gpu_hours=hours)} for m in (1, 2, 3)
    }
    result = compare(doc, evaluate(doc), chosen="Rent", start_month="2027-01", actuals=actuals)
    assert result.verdict.direction == "above"
    assert result.verdict.since == "2027-01"
    assert "above the 53.5% break-even" in result.verdict.text


def test_the_owned_verdict_uses_the_rentals_price_paid_that_month():
    doc = _doc()
    # 60 % use is above the listed 53.5 % break-even, but the rental was really billed at 3.00: break-even 71.3 %.
    own = Actual(cost=0, busy_gpu_hours=8 * 730 * 0.6)
    rent = Actual(cost=300, billed_gpu_hours=100)
    actuals = {f"2027-0{m}": {"Own": own, "Rent": rent} for m in (1, 2, 3)}
    result = compare(doc, evaluate(doc), chosen="Own", start_month="2027-01", actuals=actuals)
    assert result.break_even_by_month["2027-01"] == pytest.approx(150000 / (8 * 8760 * 3))
    assert not result.verdict.holds
    without_bills = compare(
        doc, evaluate(doc), chosen="Own", start_month="2027-01", actuals={m: {"Own": own} for m in actuals}
    )
    assert without_bills.verdict.holds


def test_the_reforecast_starts_from_the_measured_months():
    doc = _doc(horizon_months=4, utilization=[0.5, 0.6, 0.7, 0.8])
    values = reforecast_utilization(doc, "2027-01", {"2027-01": 0.3, "2027-02": 1.2, "2026-12": 0.1})
    assert values == [0.3, 1.0, 0.7, 0.8]
