"""The worked example (docs/money-math.md): 150,000 a year of owned cost, 8 GPUs; and the 85,463.87 capital charge."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tco.engine import break_even_utilization_closed_form, capital_charge, evaluate

from .docs import cents, owned, pair, pct, rental, scenario


def _owned_costing_150k_a_year() -> dict:
    # r = 0, no residual, no energy, no opex: A = (C - S)/L = 600,000 / 4 = 150,000 a year.
    return owned(
        name="Own 8 GPUs",
        capex=600000,
        residual_value=0,
        useful_life_years=4,
        cost_of_capital=0,
        power_kw=0,
        idle_power_kw=0,
        electricity_per_kwh=0,
        facility_per_year=0,
        network_per_year=0,
        software_per_year=0,
        support_per_year=0,
        operations_per_year=0,
    )


@pytest.mark.parametrize("price, shown", [(4, "53.5"), (6, "35.7"), (11, "19.5")])
def test_it_breaks_even_where_the_worked_example_says(price, shown):
    doc = scenario(_owned_costing_150k_a_year(), rental(name="Cloud", price_per_gpu_hour=price), fleet_gpus=8)
    result = evaluate(doc)
    share = pair(result, "Own 8 GPUs", "Cloud")["utilization"]
    assert pct(share) == Decimal(shown)
    assert share == pytest.approx(150000 / (8 * 8760 * price), rel=1e-12)


def test_it_costs_the_worked_example_owner_150k_a_year_at_any_utilization():
    result = evaluate(scenario(_owned_costing_150k_a_year(), rental(), utilization=[0.2]))
    assert result["options"][0]["annual_cost"] == pytest.approx(150000, rel=1e-12)


@pytest.mark.parametrize("price, expected", [(4, 0.5351027397260274), (6, 0.3567351598173516), (11, 0.1945828144)])
def test_closed_form_helper_matches_the_first_pass_formula(price, expected):
    share = break_even_utilization_closed_form(
        owned_fixed_per_year=150000,
        owned_energy_slope_per_year=0,
        rental_extras_per_year=0,
        fleet_gpus=8,
        price_per_gpu_hour=price,
    )
    assert share == pytest.approx(expected, rel=1e-9)


def test_it_charges_85_463_87_a_year_for_the_example_server():
    charge = capital_charge(capex=320000, residual_value=40000, useful_life_years=4, cost_of_capital=0.07)
    assert cents(charge) == Decimal("85463.87")


def test_it_reports_the_example_capital_charge_on_the_owned_option():
    result = evaluate(scenario())
    assert cents(result["options"][0]["capital_charge_per_year"]) == Decimal("85463.87")


def test_it_reproduces_the_headline_numbers_of_design_section_7():
    # The product brief's sample headline for the example document: "Renting Lambda 8x H100 is $107k cheaper over
    # 36 months; owning breaks even above 62 % utilization, forecast is 55 %".
    result = evaluate(scenario())
    own, lambda_, _ = result["options"]
    assert round((own["npv"] - lambda_["npv"]) / 1000) == 107
    assert round(result["break_even"][0]["utilization"] * 100) == 62
    assert result["cheapest"] == "Lambda"
