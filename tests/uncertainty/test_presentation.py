"""The uncertainty answer in words, its budget lanes, its charts, and the comparison of scenarios."""

from __future__ import annotations

import copy
import math

import plotly.graph_objects as go
import pytest

from tco.charts.comparison import cumulative_comparison
from tco.charts.uncertainty import fleet_plan_chart, outcome_histogram, tornado
from tco.engine import evaluate, fleet_plan, sensitivity, simulate
from tco.presentation.comparison import comparison, input_differences
from tco.presentation.uncertainty import budget_lanes, probability_headline
from tests.documents import DESIGN_EXAMPLE

RANGES = {"options[1].price_per_gpu_hour": {"low": 3.0, "likely": 3.99, "high": 6.0}}


@pytest.fixture(scope="module")
def simulation():
    return simulate(DESIGN_EXAMPLE, RANGES, trials=4_000, seed=3)


def test_the_headline_gives_the_share_of_trials_owning_is_cheaper(simulation):
    share = simulation["owned_minus_rental"]["probability_owning_cheaper"]
    assert 0 < share < 1
    assert probability_headline(simulation) == f"Owning is cheaper in {math.floor(share * 100 + 0.5)} % of 4,000 trials"


def test_without_a_rented_side_the_headline_names_the_option_cheapest_most_often():
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["options"] = [document["options"][0], {**document["options"][0], "name": "Own B", "capex": 1_000_000}]
    result = simulate(document, {}, trials=1_000)
    assert probability_headline(result) == "Own 8x H100 (new) is cheapest in 100 % of 1,000 trials"


def test_the_budget_lanes_add_up_to_the_plans_yearly_cost():
    profile = [2, 3, 9, 12, 7, 1] * 4 + [0.5] * 24
    plan = fleet_plan(DESIGN_EXAMPLE, profile)
    lanes = budget_lanes(plan, profile)
    assert [lane["lane"] for lane in lanes] == ["Owned baseline", "Rented burst"]
    assert lanes[0]["gpus"] == plan["owned_gpus"]
    assert math.isclose(lanes[0]["cost_per_year"] + lanes[1]["cost_per_year"], plan["annual_cost"], rel_tol=1e-12)
    # Rented GPU-hours a year by brute force over the profile.
    rented = sum(max(x - plan["owned_gpus"], 0) for x in profile) * 8760 / len(profile)
    assert math.isclose(lanes[1]["gpu_hours_per_year"], rented)


def test_the_histogram_marks_p10_p50_p90_and_counts_every_trial(simulation):
    figure = outcome_histogram(simulation, "USD")
    go.Figure(figure)
    assert sum(sum(trace["y"]) for trace in figure["data"]) == 4_000
    marked = [shape["x0"] for shape in figure["layout"]["shapes"]]
    difference = simulation["owned_minus_rental"]
    assert marked == [difference["p10"], difference["p50"], difference["p90"]]


def test_the_tornado_bars_start_at_the_scenarios_own_difference():
    rows = sensitivity(DESIGN_EXAMPLE)
    npvs = {o["name"]: o["npv"] for o in evaluate(DESIGN_EXAMPLE)["options"]}
    base = npvs["Own 8x H100 (new)"] - min(npvs["Lambda 8x H100 SXM"], npvs["Hosted model API"])
    figure = tornado({"rows": rows, "base": base}, DESIGN_EXAMPLE)
    go.Figure(figure)
    low = figure["data"][0]
    assert low["y"][0] == "Lambda 8x H100 SXM: Price" and rows[0]["path"] == "options[1].price_per_gpu_hour"
    assert math.isclose(low["base"][0] + low["x"][0], rows[0]["difference_at_low"], abs_tol=1)


def test_the_fleet_plan_chart_marks_the_optimum():
    plan = fleet_plan(DESIGN_EXAMPLE, [4] * 12 + [10] * 12)
    figure = fleet_plan_chart(plan, "USD")
    go.Figure(figure)
    assert figure["data"][1]["x"] == [plan["owned_gpus"]]
    assert len(figure["data"][0]["x"]) == 11  # 0 .. 10 owned GPUs


def test_the_comparison_lists_only_the_inputs_that_differ():
    other = copy.deepcopy(DESIGN_EXAMPLE)
    other["options"][1]["price_per_gpu_hour"] = 2.5
    other["discount_rate"] = 0.1
    rows = input_differences([DESIGN_EXAMPLE, other])
    assert {row["input"]: row["values"] for row in rows} == {
        "Discount rate": ["8% per year", "10% per year"],
        "Lambda 8x H100 SXM: Price": ["$3.99 per GPU-hour", "$2.50 per GPU-hour"],
    }


def test_the_comparison_has_a_card_and_an_npv_column_per_scenario():
    other = copy.deepcopy(DESIGN_EXAMPLE)
    other["options"] = other["options"][:2]
    entries = [
        {"id": 1, "name": "A", "document": DESIGN_EXAMPLE, "result": evaluate(DESIGN_EXAMPLE)},
        {"id": 2, "name": "B", "document": other, "result": evaluate(other)},
    ]
    data = comparison(entries)
    assert [card["name"] for card in data["scenarios"]] == ["A", "B"]
    api = next(row for row in data["npv_rows"] if row["option"] == "Hosted model API")
    assert api["npv"][1]["value"] is None and api["npv"][0]["value"] == entries[0]["result"]["options"][2]["npv"]
    assert data["differences"][0] == {"input": "Hosted model API: Kind", "values": ["Managed model API", "—"]}
    go.Figure(cumulative_comparison(entries, "USD"))  # plotly accepts it
