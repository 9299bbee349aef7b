"""Properties of the money math that must hold for any valid scenario (hypothesis)."""

from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import annual_cost_curve, evaluate
from tests.hypothesis_profiles import examples

from .strategies import scenarios

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])

MONEY_FIELDS = {
    "burst_price_per_gpu_hour",
    "capex",
    "residual_value",
    "electricity_per_kwh",
    "facility_per_year",
    "network_per_year",
    "software_per_year",
    "support_per_year",
    "operations_per_year",
    "price_per_gpu_hour",
    "extras_per_year",
    "price_per_million_input_tokens",
    "price_per_million_output_tokens",
}
MONEY_OUTPUTS = ("annual_cost", "resale_value", "total_cost", "npv", "capital_charge_per_year")
UNIT_OUTPUTS = ("cost_per_gpu_hour", "cost_per_accepted_response", "cost_per_million_accepted_tokens")


def _scaled(doc: dict, k: float) -> dict:
    doc = copy.deepcopy(doc)
    for key in MONEY_FIELDS & doc.keys():
        doc[key] *= k
    for option in doc["options"]:
        for key in MONEY_FIELDS & option.keys():
            option[key] *= k
    return doc


def _curve_at(doc: dict, u: float, names: tuple[str, str]) -> tuple[float, float]:
    costs = {o["name"]: o["annual_cost"][0] for o in annual_cost_curve(doc, [u])["options"]}
    return costs[names[0]], costs[names[1]]


@SETTINGS
@given(scenarios())
def test_owned_and_rental_annual_costs_are_equal_at_break_even(doc):
    pair = evaluate(doc)["break_even"][0]
    share = pair["utilization"]
    if share is None or share == 0.0:
        return
    owned, rental = _curve_at(doc, share, (pair["owned"], pair["rental"]))
    assert owned == pytest.approx(rental, rel=1e-8, abs=1e-6)


@SETTINGS
@given(scenarios())
def test_owning_is_no_dearer_anywhere_above_break_even(doc):
    pair = evaluate(doc)["break_even"][0]
    share = pair["utilization"]
    if share is None:
        return
    for step in range(11):
        u = min(share + (1 - share) * step / 10, 1.0)
        owned, rental = _curve_at(doc, u, (pair["owned"], pair["rental"]))
        assert owned is not None and owned <= rental + 1e-8 * max(abs(rental), 1)


@SETTINGS
@given(scenarios(), st.floats(1.01, 3))
def test_break_even_falls_as_the_rental_price_rises(doc, factor):
    dearer = copy.deepcopy(doc)
    dearer["options"][1]["price_per_gpu_hour"] *= factor
    before = evaluate(doc)["break_even"][0]["utilization"]
    after = evaluate(dearer)["break_even"][0]["utilization"]
    if before is None:
        return
    assert after is not None and after <= before + 1e-12


@SETTINGS
@given(scenarios())
def test_cumulative_cost_never_decreases(doc):
    for option in evaluate(doc)["options"]:
        cumulative = option["cumulative_cost"]
        assert all(later >= earlier for earlier, later in itertools.pairwise(cumulative))


@SETTINGS
@given(scenarios(), st.integers(-6, 10))
def test_scaling_every_price_by_a_power_of_two_scales_money_exactly_and_keeps_the_decision(doc, exponent):
    k = 2.0**exponent
    base, scaled = evaluate(doc), evaluate(_scaled(doc, k))
    for a, b in zip(base["options"], scaled["options"], strict=True):
        for key in MONEY_OUTPUTS + UNIT_OUTPUTS:
            assert b[key] == (None if a[key] is None else a[key] * k)
        assert b["monthly_cost"] == [c * k for c in a["monthly_cost"]]
        assert b["cumulative_cost"] == [c * k for c in a["cumulative_cost"]]
    assert scaled["break_even"] == base["break_even"]
    assert scaled["cheapest"] == base["cheapest"]


@SETTINGS
@given(scenarios(), st.floats(0.01, 100))
def test_scaling_every_price_and_cost_by_k_scales_every_money_output_by_k(doc, k):
    base, scaled = evaluate(doc), evaluate(_scaled(doc, k))
    for a, b in zip(base["options"], scaled["options"], strict=True):
        for key in MONEY_OUTPUTS + UNIT_OUTPUTS:
            assert b[key] == (None if a[key] is None else pytest.approx(a[key] * k, rel=1e-9, abs=1e-9))
        assert b["monthly_cost"] == pytest.approx([c * k for c in a["monthly_cost"]], rel=1e-9, abs=1e-9)


@SETTINGS
@given(scenarios(monthly=False))
def test_a_flat_forecast_equals_the_same_value_repeated_every_month(doc):
    repeated = {**doc, "utilization": doc["utilization"] * doc["horizon_months"]}
    assert evaluate(repeated) == evaluate(doc)


@SETTINGS
@given(scenarios(monthly=False))
def test_a_committed_rental_at_full_use_costs_the_same_as_on_demand(doc):
    doc = {**doc, "utilization": [1.0]}
    on_demand = {
        k: v for k, v in doc["options"][1].items() if k not in ("tokens_per_second_per_gpu", "acceptance_rate")
    }
    committed = {**on_demand, "name": "Committed", "billing": "committed", "committed_gpus": doc["fleet_gpus"]}
    doc["options"] = [on_demand, committed]
    a, b = evaluate(doc)["options"]
    assert b["monthly_cost"] == pytest.approx(a["monthly_cost"], rel=1e-12)
    assert b["annual_cost"] == pytest.approx(a["annual_cost"], rel=1e-12)
    assert b["npv"] == pytest.approx(a["npv"], rel=1e-12)
    assert b["overflow_gpu_hours"] == 0.0
