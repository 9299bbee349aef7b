"""fleet_plan: the yearly cost curve over owned GPU counts, against brute force and the marginal rule."""

from __future__ import annotations

import json
import math
from unittest import mock

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.engine import ScenarioError, fleet, fleet_plan
from tests.hypothesis_profiles import examples

from .docs import api, owned, rental, scenario


def _per_gpu_hour(option: dict) -> tuple[float, float]:
    """c_fix and c_busy straight from docs/money-math.md, with the capital charge from numpy-financial."""
    charge = npf.pmt(option["cost_of_capital"], option["useful_life_years"], -option["capex"], option["residual_value"])
    opex = sum(option.get(k, 0.0) for k in ("facility_per_year", "network_per_year", "software_per_year",
                                             "support_per_year", "operations_per_year"))  # fmt: skip
    per_kw = option["pue"] * 8760 * option["electricity_per_kwh"]
    gpus_hours = option["gpu_count"] * 8760
    return (charge + opex + option["idle_power_kw"] * per_kw) / gpus_hours, (
        (option["power_kw"] - option["idle_power_kw"]) * per_kw / gpus_hours
    )


def _brute_force(loads: list[float], c_fix: float, c_busy: float, price: float) -> list[float]:
    costs = []
    for k in range(math.ceil(max(loads)) + 1):
        total = sum(k * c_fix + min(x, k) * c_busy + max(x - k, 0) * price for x in loads)
        costs.append(total * 8760 / len(loads))
    return costs


OWN = owned(name="Own", gpu_count=8)
CHEAP_OWN = owned(name="Cheap own", gpu_count=8, capex=200000, residual_value=20000)


def _doc(price: float = 3.99) -> dict:
    return scenario(OWN, rental(name="Rent", price_per_gpu_hour=price), CHEAP_OWN, api(name="API"))


@settings(max_examples=examples(60), deadline=None)
@given(
    loads=st.lists(st.one_of(st.integers(0, 12), st.floats(0, 12)), min_size=24, max_size=60),
    price=st.floats(0.5, 12),
)
def test_the_curve_is_the_brute_force_sum_over_every_hour_and_count(loads, price):
    doc = _doc(price)
    plan = fleet_plan(doc, loads, owned="Own", rental="Rent")
    c_fix, c_busy = _per_gpu_hour({**OWN, "pue": 1.35, "idle_power_kw": 3.5})
    expected = _brute_force([float(x) for x in loads], c_fix, c_busy, price)
    assert [row["owned_gpus"] for row in plan["costs"]] == list(range(len(expected)))
    assert [row["annual_cost"] for row in plan["costs"]] == pytest.approx(expected, rel=1e-9)
    best = min(range(len(expected)), key=lambda k: (expected[k], k))
    assert expected[plan["owned_gpus"]] == pytest.approx(expected[best], rel=1e-9)
    assert plan["annual_cost"] == plan["costs"][plan["owned_gpus"]]["annual_cost"]
    assert plan["annual_cost"] == min(row["annual_cost"] for row in plan["costs"])


@settings(max_examples=examples(60), deadline=None)
@given(loads=st.lists(st.integers(0, 16), min_size=24, max_size=96), price=st.floats(0.5, 12))
def test_the_kth_gpu_pays_exactly_when_enough_hours_need_it(loads, price):
    plan = fleet_plan(_doc(price), loads, owned=0, rental=1)
    rule = plan["rule"]
    costs = [row["annual_cost"] for row in plan["costs"]]
    margin = price - rule["busy_per_gpu_hour"]
    for k in range(1, len(costs)):
        share = sum(x >= k for x in loads) / len(loads)
        assert rule["share_of_hours_at_least"][k - 1] == pytest.approx(share)
        if margin <= 0:
            assert costs[k] > costs[k - 1]
            continue
        break_even = rule["fixed_per_gpu_hour"] / margin
        assert rule["break_even_utilization"] == pytest.approx(break_even)
        if abs(share - break_even) < 1e-9:
            continue  # on the knife edge the step is 0 up to rounding
        pays = costs[k] <= costs[k - 1]
        assert pays == (share >= break_even), (k, share, break_even)


def test_a_profile_of_a_day_is_scaled_to_a_year():
    day = [2, 2, 2, 2, 2, 2, 4, 6, 8, 8, 8, 8, 8, 8, 8, 8, 6, 6, 4, 4, 3, 3, 2, 2]
    one = fleet_plan(_doc(), day)
    week = fleet_plan(_doc(), day * 7)
    assert [r["annual_cost"] for r in week["costs"]] == pytest.approx([r["annual_cost"] for r in one["costs"]])
    assert week["owned_gpus"] == one["owned_gpus"]
    # Owning nothing rents every busy GPU-hour of the year at the rental's price.
    assert one["costs"][0]["annual_cost"] == pytest.approx(sum(day) * 365 * 3.99)


def test_defaults_pick_the_cheapest_owned_gpu_hour_and_the_cheapest_on_demand_price():
    doc = scenario(
        OWN,
        rental(name="Dear", price_per_gpu_hour=6.0),
        CHEAP_OWN,
        rental(name="Committed", price_per_gpu_hour=1.0, billing="committed", committed_gpus=2),
        rental(name="Cheap", kind="marketplace", price_per_gpu_hour=2.5),
    )
    rule = fleet_plan(doc, [4] * 24)["rule"]
    assert (rule["owned"], rule["rental"]) == ("Cheap own", "Cheap")
    assert rule["price_per_gpu_hour"] == 2.5


def test_renting_cheaper_than_owned_energy_has_no_break_even_and_owns_nothing():
    plan = fleet_plan(_doc(price=0.05), [5] * 24)
    assert plan["rule"]["break_even_utilization"] is None
    assert plan["owned_gpus"] == 0


def test_bad_profiles_and_choices_are_named():
    with pytest.raises(ScenarioError) as caught:
        fleet_plan(_doc(), [1.0] * 23 + [-2.0], owned="Rent", rental=7)
    problems = {p.path: p.message for p in caught.value.problems}
    assert set(problems) == {"load_profile[23]", "owned", "rental"}
    assert "not an owned or secondary option" in problems["owned"]
    assert "no option 7" in problems["rental"]
    with pytest.raises(ScenarioError) as caught:
        fleet_plan(_doc(), [1.0] * 10)
    assert "24" in caught.value.problems[0].message
    with pytest.raises(ScenarioError) as caught:
        fleet_plan(scenario(rental()), [1.0] * 24)
    assert [p.path for p in caught.value.problems] == ["options"]


# --- a bounded plan whatever the load's size (a page and a link must stay small)


def _brute_force_numpy(loads: list[float], c_fix: float, c_busy: float, price: float, peak: int) -> np.ndarray:
    """cost(k) for k = 0..peak straight from the fleet plan's sum (docs/money-math.md), hour by hour, in chunks of k."""
    x = np.asarray(loads, dtype=float)[None, :]
    out = []
    for start in range(0, peak + 1, 50_000):
        k = np.arange(start, min(peak, start + 49_999) + 1, dtype=float)[:, None]
        hours = k * c_fix + np.minimum(x, k) * c_busy + np.maximum(x - k, 0) * price
        out.append(hours.sum(axis=1) * 8760 / x.shape[1])
    return np.concatenate(out)


def _check_bounded(plan: dict, loads: list[float], price: float, limit: int) -> None:
    c_fix, c_busy = _per_gpu_hour({**OWN, "pue": 1.35, "idle_power_kw": 3.5})
    peak = math.ceil(max(loads))
    expected = _brute_force_numpy(loads, c_fix, c_busy, price, peak)
    counts = [row["owned_gpus"] for row in plan["costs"]]
    assert len(counts) <= limit + 3  # the sampled curve and the optimum with its two neighbours
    assert counts == sorted(set(counts))
    assert counts[0] == 0 and counts[-1] == peak and plan["owned_gpus"] in counts
    assert [row["annual_cost"] for row in plan["costs"]] == pytest.approx(expected[counts].tolist(), rel=1e-9)
    assert plan["annual_cost"] == pytest.approx(expected.min(), rel=1e-9)
    assert plan["annual_cost"] == min(row["annual_cost"] for row in plan["costs"])
    assert plan["peak_gpus"] == peak
    shares = [sum(x >= k for x in loads) / len(loads) for k in counts[1:]]
    assert plan["rule"]["share_of_hours_at_least"] == pytest.approx(shares)


@settings(max_examples=examples(80), deadline=None)
@given(
    loads=st.lists(st.one_of(st.integers(0, 60), st.floats(0, 60)), min_size=24, max_size=60),
    price=st.floats(0.5, 12),
    limit=st.integers(2, 9),
)
def test_past_the_curve_limit_the_optimum_is_still_the_brute_force_one(loads, price, limit):
    with mock.patch.object(fleet, "MAX_CURVE_POINTS", limit):
        plan = fleet_plan(_doc(price), loads, owned="Own", rental="Rent")
    _check_bounded(plan, [float(x) for x in loads], price, limit)


@pytest.mark.parametrize("price", [3.99, 0.05, 50.0])
def test_a_peak_of_a_million_gpus_stores_a_bounded_plan(price):
    loads = [999_999.5] * 12 + [10.0 * h for h in range(12)]
    plan = fleet_plan(_doc(price), loads, owned="Own", rental="Rent")
    assert len(json.dumps(plan)) < 120_000
    _check_bounded(plan, loads, price, 1_001)


def test_a_small_peak_keeps_every_count_on_the_curve():
    plan = fleet_plan(_doc(), [700.0] * 24)
    assert [row["owned_gpus"] for row in plan["costs"]] == list(range(701))
