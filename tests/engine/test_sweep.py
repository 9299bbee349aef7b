"""sweep: each cell of the grid is the evaluate of that variant, computed in one vectorised pass."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import ScenarioError, evaluate, sweep
from tests.hypothesis_profiles import examples

from .docs import DROP, api, owned, rental, scenario
from .strategies import scenarios


def _set(doc: dict, path: str, value: float) -> dict:
    """The variant evaluate would see: ``doc`` with ``path`` set to ``value``."""
    doc = copy.deepcopy(doc)
    if path == "utilization":
        doc["utilization"] = [value]
    elif path == "fleet_gpus":
        doc["fleet_gpus"] = int(value)
    elif match := re.fullmatch(r"options\[(\d+)\]\.(\w+)", path):
        option = doc["options"][int(match[1])]
        option[match[2]] = int(value) if match[2] in ("gpu_count", "committed_gpus") else value
    elif match := re.fullmatch(r"workload\.(\w+)", path):
        doc["workload"][match[1]] = value
    else:
        doc[path] = value
    return doc


def _expected_cell(variant: dict) -> tuple[float, float | None]:
    options = evaluate(variant)["options"]
    owned = [o["npv"] for o in options if o["kind"] in ("owned", "secondary")]
    others = [o["npv"] for o in options if o["kind"] not in ("owned", "secondary")]
    best = min(o["npv"] for o in options)
    return best, (min(owned) - min(others) if owned and others else None)


def _assert_cells_match(doc: dict, x: tuple, y: tuple) -> None:
    grid = sweep(doc, x, y)
    for j, y_value in enumerate(y[1]):
        for i, x_value in enumerate(x[1]):
            variant = _set(_set(doc, x[0], x_value), y[0], y_value)
            best, difference = _expected_cell(variant)
            npv_of_named = next(o["npv"] for o in evaluate(variant)["options"] if o["name"] == grid["cheapest"][j][i])
            assert npv_of_named == pytest.approx(best, rel=1e-9)
            if difference is None:
                assert grid["owned_minus_rental"][j][i] is None
            else:
                assert grid["owned_minus_rental"][j][i] == pytest.approx(difference, rel=1e-9, abs=1e-6)


def _axis_values(draw, doc: dict, path: str) -> list[float]:
    owned = doc["options"][0]
    ranges = {
        "utilization": st.floats(0, 1),
        "discount_rate": st.floats(0, 0.3),
        "fleet_gpus": st.integers(1, 16).map(float),
        "burst_price_per_gpu_hour": st.floats(0, 15),
        "options[0].capex": st.floats(1, 3).map(lambda f: owned["capex"] * f),
        "options[0].gpu_count": st.integers(1, 32).map(float),
        "options[0].power_kw": st.floats(0, 10).map(lambda f: owned["idle_power_kw"] + f),
        "options[0].useful_life_years": st.floats(0.5, 10),
        "options[1].price_per_gpu_hour": st.floats(0.1, 15),
        "options[1].price_change_per_year": st.floats(-0.5, 0.5),
        "options[2].committed_gpus": st.integers(1, 32).map(float),
        "workload.tokens_per_second_per_gpu": st.floats(500, 4000),
        "options[0].tokens_per_second_per_gpu": st.floats(500, 4000),
    }
    return draw(st.lists(ranges[path], min_size=1, max_size=3))


PATHS = [
    "utilization",
    "discount_rate",
    "fleet_gpus",
    "burst_price_per_gpu_hour",
    "options[0].capex",
    "options[0].gpu_count",
    "options[0].power_kw",
    "options[0].useful_life_years",
    "options[1].price_per_gpu_hour",
    "options[1].price_change_per_year",
    "options[2].committed_gpus",
]
WORKLOAD_PATHS = ["workload.tokens_per_second_per_gpu", "options[0].tokens_per_second_per_gpu"]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_cell_equals_evaluate_of_the_same_variant(data):
    doc = data.draw(scenarios())
    paths = PATHS + (WORKLOAD_PATHS if "workload" in doc else [])
    x_path, y_path = data.draw(st.lists(st.sampled_from(paths), min_size=2, max_size=2, unique=True))
    x = (x_path, _axis_values(data.draw, doc, x_path))
    y = (y_path, _axis_values(data.draw, doc, y_path))
    _assert_cells_match(doc, x, y)


def test_it_returns_rows_for_y_and_columns_for_x():
    grid = sweep(scenario(), ("utilization", [0.1, 0.5, 0.9]), ("options[1].price_per_gpu_hour", [2, 4]))
    assert grid["x"] == {"path": "utilization", "values": [0.1, 0.5, 0.9]}
    assert grid["y"] == {"path": "options[1].price_per_gpu_hour", "values": [2.0, 4.0]}
    assert [len(row) for row in grid["cheapest"]] == [3, 3]
    assert [len(row) for row in grid["owned_minus_rental"]] == [3, 3]


def test_it_moves_gpu_count_and_commitment_with_the_fleet_when_they_were_defaulted():
    doc = scenario(owned(), rental(), rental(name="Reserved", billing="committed", price_per_gpu_hour=2.5))
    _assert_cells_match(doc, ("fleet_gpus", [4, 8, 16]), ("utilization", [0.3, 0.9]))


def test_it_moves_idle_power_with_maximum_power_when_idle_was_defaulted():
    doc = scenario(owned(idle_power_kw=DROP), rental())
    _assert_cells_match(doc, ("options[0].power_kw", [2, 10, 30]), ("options[0].electricity_per_kwh", [0.1, 0.5]))


def test_it_leaves_out_an_option_that_cannot_serve_a_cell_without_a_burst_price():
    no_opex = dict.fromkeys(("facility_per_year", "network_per_year", "software_per_year", "operations_per_year"), 0)
    half = owned(name="Half", gpu_count=4, capex=1000, residual_value=0, support_per_year=0, **no_opex)
    doc = scenario(half, rental(), burst_price_per_gpu_hour=DROP, utilization=[0.25])
    grid = sweep(doc, ("utilization", [0.25, 0.5, 0.75]), ("discount_rate", [0.05]))
    assert grid["cheapest"] == [["Half", "Half", "Rent"]]
    assert grid["owned_minus_rental"][0][2] is None
    assert grid["owned_minus_rental"][0][0] < 0


def test_it_reports_no_difference_without_an_owned_option():
    grid = sweep(scenario(rental(), api()), ("utilization", [0.5]), ("discount_rate", [0.1]))
    assert grid["owned_minus_rental"] == [[None]]
    assert grid["cheapest"] in ([["Rent"]], [["API"]])


@pytest.mark.parametrize(
    "x, path, words",
    [
        (("horizon_months", [12]), "horizon_months", "can vary utilization"),
        (("options[9].capex", [1]), "options[9].capex", "there is no option 9"),
        (("options[1].capex", [1]), "options[1].capex", "has no numeric field 'capex'"),
        (("options[1].billing", [1]), "options[1].billing", "has no numeric field 'billing'"),
        (("utilization", [0.5, 1.5]), "utilization", "value 2: Utilization must be between 0 and 1"),
        (("fleet_gpus", [2.5]), "fleet_gpus", "whole number"),
        (("options[0].capex", [float("nan")]), "options[0].capex", "NaN"),
        (("options[0].capex", []), "options[0].capex", "non-empty list of values"),
        (("options[0].capex", [1000]), "options[0].residual_value", "cannot be more than the capex"),
        (("discount_rate", [0.1]), "discount_rate", "must vary different fields"),
    ],
)
def test_it_rejects_invalid_paths_and_values_naming_the_path(x, path, words):
    with pytest.raises(ScenarioError) as caught:
        sweep(scenario(), x, ("discount_rate", [0.05, 0.1]))
    assert any(p.path == path and words in p.message for p in caught.value.problems), caught.value.problems


def test_it_rejects_a_workload_path_when_there_is_no_workload():
    with pytest.raises(ScenarioError) as caught:
        sweep(scenario(owned(), rental(), workload=DROP), ("workload.acceptance_rate", [0.5]), ("utilization", [0.5]))
    assert caught.value.problems[0].path == "workload.acceptance_rate"
