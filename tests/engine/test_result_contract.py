"""The tco-result/1 shape the rest of the project codes against (engine contract)."""

from __future__ import annotations

import json

from tco.engine import ENGINE_VERSION, evaluate

from .docs import DROP, owned, rental, scenario

OPTION_KEYS = {
    "name",
    "kind",
    "annual_cost",
    "cost_per_gpu_hour",
    "cost_per_accepted_response",
    "cost_per_million_accepted_tokens",
    "monthly_cost",
    "cumulative_cost",
    "resale_value",
    "total_cost",
    "npv",
    "capital_charge_per_year",
    "mean_own_utilization",
    "overflow_gpu_hours",
}


def _plain(value) -> bool:
    if isinstance(value, dict):
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or type(value) in (str, int, float, bool)


def test_it_returns_exactly_the_contract_keys():
    result = evaluate(scenario())
    assert set(result) == {
        "schema",
        "engine_version",
        "name",
        "currency",
        "horizon_months",
        "reference",
        "options",
        "break_even",
        "cheapest",
    }
    assert (result["schema"], result["engine_version"], result["horizon_months"]) == (
        "tco-result/1",
        ENGINE_VERSION,
        36,
    )
    assert set(result["reference"]) == {
        "fleet_gpus",
        "mean_utilization",
        "busy_gpu_hours_per_year",
        "accepted_responses_per_year",
        "accepted_output_tokens_per_year",
    }
    assert all(set(option) == OPTION_KEYS for option in result["options"])
    assert set(result["break_even"][0]) == {"owned", "rental", "utilization", "crossover_month"}


def test_it_returns_only_plain_json_values():
    result = evaluate(scenario())
    assert _plain(result)
    assert json.loads(json.dumps(result, allow_nan=False)) == result


def test_it_keeps_the_document_order_of_options_and_one_value_per_month():
    result = evaluate(scenario(horizon_months=12))
    assert [o["name"] for o in result["options"]] == ["Own 8x H100", "Lambda", "Hosted API"]
    assert all(len(o["monthly_cost"]) == len(o["cumulative_cost"]) == 12 for o in result["options"])


def test_it_leaves_output_costs_empty_without_a_workload():
    result = evaluate(scenario(owned(), rental(), workload=DROP))
    assert result["reference"]["accepted_responses_per_year"] is None
    assert all(o["cost_per_accepted_response"] is None for o in result["options"])
    assert all(o["cost_per_million_accepted_tokens"] is None for o in result["options"])


def test_it_leaves_cost_per_gpu_hour_empty_when_nothing_is_busy():
    result = evaluate(scenario(utilization=[0.0]))
    assert all(o["cost_per_gpu_hour"] is None for o in result["options"])
    assert all(o["cost_per_accepted_response"] is None for o in result["options"])


def test_it_reports_owned_only_fields_as_none_for_rentals():
    rent = evaluate(scenario())["options"][1]
    assert (rent["capital_charge_per_year"], rent["mean_own_utilization"], rent["resale_value"]) == (None, None, 0.0)
