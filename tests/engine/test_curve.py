"""annual_cost_curve: the annual cost of docs/money-math.md at flat reference utilizations."""

from __future__ import annotations

import pytest

from tco.engine import ScenarioError, annual_cost_curve, evaluate

from .docs import DROP, api, owned, rental, scenario


def _doc() -> dict:
    return scenario(
        owned(name="Own"),
        owned(name="Half", gpu_count=4, capex=160000, residual_value=20000),
        rental(name="Rent"),
        rental(name="Committed", billing="committed", committed_gpus=6, price_per_gpu_hour=2.5),
        api(name="API"),
    )


def test_it_equals_evaluate_with_a_flat_forecast_at_each_utilization():
    grid = [0.0, 0.3, 0.5, 0.75, 1.0]
    curve = annual_cost_curve(_doc(), grid)
    for k, u in enumerate(grid):
        result = evaluate({**_doc(), "utilization": [u]})
        for curve_option, option in zip(curve["options"], result["options"], strict=True):
            assert curve_option["annual_cost"][k] == pytest.approx(option["annual_cost"], rel=1e-12)


def test_it_lists_options_in_document_order_with_kind():
    curve = annual_cost_curve(_doc(), [0.5])
    assert [(o["name"], o["kind"]) for o in curve["options"]] == [
        ("Own", "owned"),
        ("Half", "owned"),
        ("Rent", "neocloud"),
        ("Committed", "neocloud"),
        ("API", "api"),
    ]
    assert curve["utilization"] == [0.5]


def test_it_gives_none_where_demand_exceeds_capacity_without_a_burst_price():
    doc = scenario(owned(name="Half", gpu_count=4), rental(), burst_price_per_gpu_hour=DROP, utilization=[0.25])
    curve = annual_cost_curve(doc, [0.25, 0.5, 0.75])
    assert all(isinstance(cost, float) for cost in curve["options"][0]["annual_cost"][:2])
    assert curve["options"][0]["annual_cost"][2] is None
    assert None not in curve["options"][1]["annual_cost"]


def test_it_rejects_utilizations_outside_zero_to_one():
    with pytest.raises(ScenarioError) as caught:
        annual_cost_curve(_doc(), [0.5, 1.5])
    assert [p.path for p in caught.value.problems] == ["utilizations[1]"]


def test_it_rejects_an_invalid_document():
    with pytest.raises(ScenarioError) as caught:
        annual_cost_curve({**_doc(), "fleet_gpus": 0}, [0.5])
    assert [p.path for p in caught.value.problems] == ["fleet_gpus"]
