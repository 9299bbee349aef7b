"""Break-even utilization beyond the plain case, and crossover month (docs/money-math.md)."""

from __future__ import annotations

import pytest

from tco.engine import break_even_utilization, evaluate

from .docs import DROP, pair, rental, scenario


def _fixed_cost_owner(annual: float, **fields) -> dict:
    """Owned hardware costing exactly ``annual`` a year whatever its use (capex/1 year, r = 0)."""
    base = {
        "name": "Own",
        "kind": "owned",
        "capex": annual,
        "useful_life_years": 1,
        "power_kw": 0,
        "electricity_per_kwh": 0,
    }
    return {**base, **fields}


def test_it_solves_on_the_overflow_segment_when_owned_capacity_is_smaller_than_the_fleet():
    # 4 owned GPUs for an 8-GPU fleet: owned T(u) = 100,000 up to u = 0.5, then + 8760 x (8u - 4) x 2.
    # Rental R(u) = 8 x 8760 x u x 2.5. Owned is dearer at u = 0.5 (100,000 > 87,600), so the root is
    # on the overflow segment: 100,000 + 17,520 x (8u - 4) = 175,200u  ->  u = 29,920 / 35,040.
    doc = scenario(
        _fixed_cost_owner(100000, gpu_count=4),
        rental(price_per_gpu_hour=2.5),
        workload=DROP,
        burst_price_per_gpu_hour=2.0,
        utilization=[0.25],
    )
    assert pair(evaluate(doc), "Own", "Rent")["utilization"] == pytest.approx(29920 / 35040, rel=1e-12)


def test_it_solves_below_the_kink_when_owning_already_wins_there():
    # Same owner against 3.00: 100,000 = 8 x 8760 x u x 3 at u = 0.4756 < 0.5; at u = 1 owned costs
    # 100,000 + 70,080 = 170,080 < 210,240.
    doc = scenario(
        _fixed_cost_owner(100000, gpu_count=4),
        rental(price_per_gpu_hour=3.0),
        workload=DROP,
        burst_price_per_gpu_hour=2.0,
        utilization=[0.25],
    )
    assert pair(evaluate(doc), "Own", "Rent")["utilization"] == pytest.approx(100000 / (8 * 8760 * 3), rel=1e-12)


def test_it_scales_owned_hours_by_the_throughput_ratio():
    # 4 owned GPUs twice as fast as the 8-GPU reference fleet: H = 8 x 8760 x u / 2, so own use v = u
    # and nothing overflows (the 100/GPU-hour burst price would otherwise make owning lose at 100 %).
    # T(u) = 100,000 + 10 kW x 8760 x 0.10 x u, R(u) = 8 x 8760 x u x 4.
    owner = _fixed_cost_owner(
        100000, gpu_count=4, tokens_per_second_per_gpu=2400, power_kw=10, idle_power_kw=0, electricity_per_kwh=0.1
    )
    doc = scenario(owner, rental(price_per_gpu_hour=4), burst_price_per_gpu_hour=100, utilization=[0.25])
    doc["workload"]["tokens_per_second_per_gpu"] = 1200
    expected = 100000 / (8 * 8760 * 4 - 10 * 8760 * 0.1)
    assert pair(evaluate(doc), "Own", "Rent")["utilization"] == pytest.approx(expected, rel=1e-12)


def test_it_scales_rental_hours_by_the_throughput_and_acceptance_ratio():
    # The rental GPUs are half as fast and accept 0.6 against 0.9: H = D x 2 x 1.5 = 3 D.
    doc = scenario(
        _fixed_cost_owner(100000), rental(price_per_gpu_hour=4, tokens_per_second_per_gpu=1200, acceptance_rate=0.6)
    )
    expected = 100000 / (8 * 8760 * 4 * (2400 / 1200) * (0.9 / 0.6))
    assert pair(evaluate(doc), "Own", "Rent")["utilization"] == pytest.approx(expected, rel=1e-12)


def test_it_returns_none_when_owning_is_dearer_at_full_use():
    doc = scenario(_fixed_cost_owner(1_000_000), rental(price_per_gpu_hour=4))
    assert pair(evaluate(doc), "Own", "Rent")["utilization"] is None


def test_it_returns_zero_when_owning_is_cheaper_even_idle():
    doc = scenario(_fixed_cost_owner(10000), rental(price_per_gpu_hour=4, extras_per_year=20000))
    assert pair(evaluate(doc), "Own", "Rent")["utilization"] == 0.0


def test_it_returns_none_when_full_use_overflows_capacity_without_a_burst_price():
    # The forecast (25 %) fits in 4 GPUs, but at 100 % half the work has nowhere to run.
    doc = scenario(
        _fixed_cost_owner(1000, gpu_count=4),
        rental(price_per_gpu_hour=4),
        burst_price_per_gpu_hour=DROP,
        utilization=[0.25],
    )
    assert pair(evaluate(doc), "Own", "Rent")["utilization"] is None


def test_it_pairs_only_owned_with_on_demand_rentals_in_document_order():
    doc = scenario(
        _fixed_cost_owner(1000, name="A"),
        rental(name="R1"),
        rental(name="Committed", billing="committed"),
        _fixed_cost_owner(1000, name="B", kind="secondary"),
        rental(name="R2", kind="marketplace"),
    )
    pairs = [(p["owned"], p["rental"]) for p in evaluate(doc)["break_even"]]
    assert pairs == [("A", "R1"), ("A", "R2"), ("B", "R1"), ("B", "R2")]


def test_it_finds_the_first_month_owning_is_cumulatively_no_dearer():
    # Capex 7,300 and nothing else against 1 GPU x 730 h x 0.5 x 2.00 = 730 a month: equal in month 10.
    doc = scenario(
        _fixed_cost_owner(7300, useful_life_years=5), rental(price_per_gpu_hour=2.0), fleet_gpus=1, utilization=[0.5]
    )
    assert pair(evaluate(doc), "Own", "Rent")["crossover_month"] == 10


def test_it_reports_no_crossover_when_renting_stays_cheaper():
    doc = scenario(
        _fixed_cost_owner(7300, useful_life_years=5),
        rental(price_per_gpu_hour=2.0),
        fleet_gpus=1,
        utilization=[0.5],
        horizon_months=9,
    )
    assert pair(evaluate(doc), "Own", "Rent")["crossover_month"] is None


def test_helper_takes_the_highest_sign_change_of_a_non_monotone_difference():
    # Owned cheaper near 0, dearer in the middle, cheaper again from 0.75 on: the answer is 0.75.
    grid = [0.0, 0.5, 1.0]
    owned = [0.0, 10.0, 0.0]
    rental = [5.0, 5.0, 5.0]
    assert break_even_utilization(grid, owned, rental) == pytest.approx(0.75)


def test_helper_treats_nan_owned_cost_as_not_serviceable():
    assert break_even_utilization([0.0, 0.5, 1.0], [1.0, 1.0, float("nan")], [2.0, 2.0, 2.0]) is None
