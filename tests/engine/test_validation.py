"""Every validation rule of docs/money-math.md, each checked by the field path it reports."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from tco.engine import ScenarioError, evaluate, validate

from .docs import DROP, api, owned, rental, scenario


def _problems(doc) -> list:
    with pytest.raises(ScenarioError) as caught:
        validate(doc)
    return caught.value.problems


def _opt(i, **fields):
    def mutate(doc):
        doc["options"][i].update(fields)
        for key, value in fields.items():
            if value is DROP:
                del doc["options"][i][key]

    return mutate


def _top(**fields):
    def mutate(doc):
        doc.update(fields)
        for key, value in fields.items():
            if value is DROP:
                del doc[key]

    return mutate


def _workload(**fields):
    def mutate(doc):
        doc["workload"].update(fields)
        for key, value in fields.items():
            if value is DROP:
                del doc["workload"][key]

    return mutate


CASES = [
    # (mutation, path, words the message must contain)
    (_top(schema=DROP), "schema", "Schema must be 'tco-scenario/1'"),
    (_top(schema="tco-scenario/2"), "schema", "got 'tco-scenario/2'"),
    (_top(colour="blue"), "colour", "Unknown field 'colour'"),
    (_top(name=DROP), "name", "Scenario name is required"),
    (_top(name="  "), "name", "non-empty text"),
    (_top(currency="US"), "currency", "3-letter code"),
    (_top(currency="XYZ"), "currency", "ISO 4217 code such as USD or EUR; got 'XYZ'"),
    (_top(horizon_months=DROP), "horizon_months", "Horizon (months) is required"),
    (_top(horizon_months=0), "horizon_months", "Horizon (months) must be between 1 and 240; got 0"),
    (_top(horizon_months=241), "horizon_months", "Horizon (months) must be between 1 and 240; got 241"),
    (_top(horizon_months=36.5), "horizon_months", "whole number"),
    (_top(horizon_months="36"), "horizon_months", "got '36' (text)"),
    (_top(horizon_months=True), "horizon_months", "got true (a yes/no value)"),
    (_top(discount_rate=DROP), "discount_rate", "Discount rate (per year) is required"),
    (_top(discount_rate=8), "discount_rate", "between 0 and 1 (0.08 means 8%); got 8"),
    (_top(discount_rate=-0.01), "discount_rate", "between 0 and 1"),
    (_top(discount_rate=math.nan), "discount_rate", "NaN"),
    (_top(discount_rate=math.inf), "discount_rate", "finite number; got infinity"),
    (_top(discount_rate=False), "discount_rate", "must be a number; got false"),
    (_top(fleet_gpus=0), "fleet_gpus", "Fleet size (GPUs) must be between 1 and 1,000,000; got 0"),
    (_top(fleet_gpus=2.5), "fleet_gpus", "whole number"),
    (_top(utilization=DROP), "utilization", "Utilization forecast is required"),
    (_top(utilization=[]), "utilization", "list of 1 value or one value per month"),
    (_top(utilization=0.5), "utilization", "list of 1 value or one value per month"),
    (_top(utilization=[0.5, 0.6]), "utilization", "exactly 36 values (one per month of the horizon); got 2"),
    (_top(utilization=[1.2]), "utilization[0]", "between 0 and 1 (0.55 means 55%); got 1.2"),
    (_top(utilization=[0.5] * 5 + [-0.1] + [0.5] * 30), "utilization[5]", "between 0 and 1"),
    (_top(utilization=[True]), "utilization[0]", "a yes/no value"),
    (_top(utilization=[math.nan]), "utilization[0]", "NaN"),
    (_top(burst_price_per_gpu_hour=-1), "burst_price_per_gpu_hour", "must not be negative; got -1"),
    (_top(burst_price_per_gpu_hour=math.inf), "burst_price_per_gpu_hour", "finite"),
    (_top(workload=[1, 2]), "workload", "Workload must be an object"),
    (_workload(tokens_per_second_per_gpu=0), "workload.tokens_per_second_per_gpu", "more than 0"),
    (_workload(output_tokens_per_response=DROP), "workload.output_tokens_per_response", "is required"),
    (_workload(input_tokens_per_response=-5), "workload.input_tokens_per_response", "must not be negative"),
    (_workload(acceptance_rate=0), "workload.acceptance_rate", "must be more than 0 (0.9 means 90%); got 0"),
    (_workload(acceptance_rate=1.1), "workload.acceptance_rate", "more than 0 and at most 1"),
    (_workload(batch=4), "workload.batch", "Unknown field 'batch'"),
    (_top(options=DROP), "options", "Options are required"),
    (_top(options=[]), "options", "Options are required: add at least one way to own or rent capacity"),
    (_top(options={"a": 1}), "options", "non-empty list"),
    (_top(options=[owned(), 3]), "options[1]", "must be an object"),
    (_opt(0, kind=DROP), "options[0].kind", "Kind must be one of"),
    (_opt(0, kind="colo"), "options[0].kind", "got 'colo'"),
    (_opt(0, name=DROP), "options[0].name", "Option name is required"),
    (_opt(1, name="Own 8x H100"), "options[1].name", "already used by option 1"),
    (_opt(1, capex=1000), "options[1].capex", "Unknown field 'capex' for a neocloud option"),
    (_opt(2, billing="committed"), "options[2].billing", "Unknown field 'billing' for an api option"),
    (_opt(0, capex=-5), "options[0].capex", "Capex, whole option (USD) must not be negative; got -5"),
    (_opt(0, capex="lots"), "options[0].capex", "Capex, whole option (USD) must be a number; got 'lots' (text)"),
    (_opt(0, capex=DROP), "options[0].capex", "Capex, whole option (USD) is required"),
    (_opt(0, useful_life_years=0), "options[0].useful_life_years", "Useful life (years) must be more than 0"),
    (_opt(0, useful_life_years=DROP), "options[0].useful_life_years", "is required"),
    (_opt(0, cost_of_capital=7), "options[0].cost_of_capital", "between 0 and 1 (0.08 means 8%); got 7"),
    (_opt(0, pue=0.9), "options[0].pue", "PUE must be between 1 and 3; got 0.9"),
    (_opt(0, pue=3.5), "options[0].pue", "between 1 and 3"),
    (_opt(0, power_kw=-1), "options[0].power_kw", "must not be negative"),
    (_opt(0, idle_power_kw=11), "options[0].idle_power_kw", "cannot be more than the power at full load"),
    (_opt(0, residual_value=400000), "options[0].residual_value", "cannot be more than the capex"),
    (_opt(0, gpu_count=0), "options[0].gpu_count", "GPU count (GPUs) must be between 1"),
    (_opt(0, electricity_per_kwh=Decimal("NaN")), "options[0].electricity_per_kwh", "NaN"),
    (_opt(0, support_per_year=-1), "options[0].support_per_year", "must not be negative"),
    (
        _opt(0, tokens_per_second_per_gpu=0),
        "options[0].tokens_per_second_per_gpu",
        "Output tokens per second per GPU (tokens/s) must be more than 0",
    ),
    (_opt(0, acceptance_rate=0), "options[0].acceptance_rate", "Acceptance rate must be more than 0"),
    (_opt(1, price_per_gpu_hour=DROP), "options[1].price_per_gpu_hour", "Price (USD per GPU-hour) is required"),
    (_opt(1, price_per_gpu_hour=-3.99), "options[1].price_per_gpu_hour", "must not be negative"),
    (_opt(1, billing="spot"), "options[1].billing", "on_demand, committed; got 'spot'"),
    (_opt(1, committed_gpus=0), "options[1].committed_gpus", "between 1"),
    (_opt(1, price_change_per_year=3), "options[1].price_change_per_year", "between -0.9 and 2"),
    (_opt(1, price_change_per_year=-0.95), "options[1].price_change_per_year", "between -0.9 and 2"),
    (_opt(1, extras_per_year=-1), "options[1].extras_per_year", "must not be negative"),
    (_opt(1, acceptance_rate=1.5), "options[1].acceptance_rate", "at most 1"),
    (_opt(2, price_per_million_output_tokens=DROP), "options[2].price_per_million_output_tokens", "is required"),
    (_opt(2, price_per_million_input_tokens=-1), "options[2].price_per_million_input_tokens", "not be negative"),
    (_opt(1, price_source=[1]), "options[1].price_source", "Price source must be an object"),
    (_opt(1, price_source={"vendor": "x"}), "options[1].price_source.vendor", "Unknown field 'vendor'"),
    (_opt(1, price_source={"observed_on": "last week"}), "options[1].price_source.observed_on", "such as 2026-09-01"),
    (_opt(1, price_source={"observed_on": "0001-01-01"}), "options[1].price_source.observed_on", "years 2000-2099"),
    (_opt(1, price_source={"observed_on": "20260901"}), "options[1].price_source.observed_on", "such as 2026-09-01"),
    (_opt(1, price_source={"snapshot_id": "7"}), "options[1].price_source.snapshot_id", "whole-number id"),
    (_opt(1, price_source={"region": 1.5}), "options[1].price_source.region", "text or whole numbers"),
]


@pytest.mark.parametrize("mutate, path, words", CASES, ids=[f"{c[1]}:{c[2][:30]}" for c in CASES])
def test_it_reports_the_field_path_and_reason(mutate, path, words):
    doc = scenario()
    mutate(doc)
    with pytest.raises(ScenarioError) as caught:
        validate(doc)
    assert f"{path}: " in str(caught.value)
    assert any(p.path == path and words in p.message for p in caught.value.problems), caught.value.problems


def test_it_explains_zero_useful_life_in_plain_words():
    doc = scenario()
    doc["options"][0]["useful_life_years"] = 0
    (problem,) = _problems(doc)
    assert (problem.path, problem.message) == (
        "options[0].useful_life_years",
        "Useful life (years) must be more than 0; got 0",
    )


def test_it_rejects_a_document_that_is_not_an_object():
    (problem,) = _problems([1, 2])
    assert problem.path == ""
    assert "must be a JSON object" in problem.message


def test_it_needs_a_workload_for_an_api_option():
    (problem,) = _problems(scenario(owned(), api(name="Hosted"), workload=DROP))
    assert problem.path == "workload"
    assert "'Hosted' is priced per token" in problem.message


def test_it_needs_a_workload_for_a_throughput_override():
    (problem,) = _problems(scenario(owned(tokens_per_second_per_gpu=900), rental(), workload=DROP))
    assert problem.path == "options[0].tokens_per_second_per_gpu"
    assert "needs a scenario workload" in problem.message


def test_it_needs_a_burst_price_when_owned_capacity_is_exceeded():
    doc = scenario(owned(name="Half", gpu_count=4), rental(), burst_price_per_gpu_hour=DROP)
    (problem,) = _problems(doc)
    assert problem.path == "burst_price_per_gpu_hour"
    assert "In month 1 'Half' needs 3,212 GPU-hours but owns only 4 GPUs" in problem.message


def test_it_needs_a_burst_price_when_a_commitment_is_exceeded_in_a_later_month():
    forecast = [0.4] * 29 + [0.9] * 7  # 6 committed GPUs carry 8 x 0.9 = 7.2 GPUs' work from month 30
    doc = scenario(
        rental(name="Reserved", billing="committed", committed_gpus=6),
        burst_price_per_gpu_hour=DROP,
        utilization=forecast,
    )
    (problem,) = _problems(doc)
    assert problem.path == "burst_price_per_gpu_hour"
    assert "In month 30 'Reserved' needs" in problem.message
    assert "commits to only 6 GPUs" in problem.message


def test_it_needs_a_burst_price_when_a_slower_owned_gpu_cannot_keep_up():
    # 8 owned GPUs at 2000 tokens/s do the reference's 8 x 0.9 x 2400/2000 = 8.64 GPUs of work.
    doc = scenario(owned(tokens_per_second_per_gpu=2000), burst_price_per_gpu_hour=DROP, utilization=[0.9])
    (problem,) = _problems(doc)
    assert problem.path == "burst_price_per_gpu_hour"


def test_it_accepts_demand_exactly_at_capacity_without_a_burst_price():
    doc = scenario(owned(), rental(), burst_price_per_gpu_hour=DROP, utilization=[1.0])
    assert evaluate(doc)["options"][0]["overflow_gpu_hours"] == 0.0


def test_it_does_not_need_a_burst_price_for_on_demand_rentals():
    doc = scenario(rental(tokens_per_second_per_gpu=1000), burst_price_per_gpu_hour=DROP, utilization=[1.0])
    assert validate(doc)["options"][0]["name"] == "Rent"


def test_it_reports_every_problem_at_once():
    doc = scenario()
    doc["horizon_months"] = 0
    doc["options"][0]["capex"] = -1
    doc["options"][1]["billing"] = "monthly"
    doc["options"][2]["price_per_million_input_tokens"] = "free"
    paths = [p.path for p in _problems(doc)]
    assert paths == [
        "horizon_months",
        "options[0].capex",
        "options[1].billing",
        "options[2].price_per_million_input_tokens",
    ]


def test_it_fills_design_defaults():
    doc = scenario(
        owned(name="Own", idle_power_kw=DROP, pue=DROP, residual_value=DROP, cost_of_capital=DROP, gpu_count=DROP),
        rental(name="Rent"),
        currency=DROP,
    )
    normalised = validate(doc)
    own, rent = normalised["options"]
    assert normalised["currency"] == "USD"
    assert (own["idle_power_kw"], own["pue"], own["residual_value"], own["cost_of_capital"]) == (10.2, 1.0, 0.0, 0.0)
    assert own["gpu_count"] == 8
    assert (rent["billing"], rent["committed_gpus"], rent["extras_per_year"], rent["price_change_per_year"]) == (
        "on_demand",
        8,
        0.0,
        0.0,
    )


def test_it_treats_null_optional_fields_as_absent():
    doc = scenario(owned(residual_value=None, pue=None), rental(billing=None), burst_price_per_gpu_hour=None)
    own, rent = validate(doc)["options"]
    assert (own["residual_value"], own["pue"], rent["billing"]) == (0.0, 1.0, "on_demand")


def test_it_reads_decimals_as_numbers():
    doc = scenario(owned(capex=Decimal("320000.00"), cost_of_capital=Decimal("0.07")), rental())
    assert validate(doc)["options"][0]["capex"] == 320000.0


def test_it_passes_price_source_through_untouched():
    source = {"provider": "Lambda", "observed_on": "2026-09-01", "snapshot_id": 4, "region": None}
    assert validate(scenario(rental(price_source=source)))["options"][0]["price_source"] == source


def test_its_normalised_document_is_valid_and_stable():
    once = validate(scenario())
    assert validate(once) == once


def test_it_reads_numpy_scalars_as_numbers_but_not_numpy_bools():
    doc = scenario(owned(capex=np.float32(320000), gpu_count=np.int64(8)), rental(price_per_gpu_hour=np.bool_(True)))
    (problem,) = _problems(doc)
    assert problem.path == "options[1].price_per_gpu_hour"
    assert "a yes/no value" in problem.message


@pytest.mark.parametrize("path", ["name", "options[1].name", "options[1].price_source.offering"])
def test_it_refuses_control_characters_in_text(path):
    doc = scenario(owned(), rental(price_source={"offering": "8x H100"}))
    *parents, key = path.replace("options[1]", "options.1").split(".")
    target = doc
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    target[key] = "8x\x00H100"
    problems = _problems(doc)
    assert [p.path for p in problems] == [path]
    assert "control characters" in problems[0].message


@pytest.mark.parametrize(
    ("mutate", "path", "code", "reason"),
    [
        (_top(horizon_months=DROP), "horizon_months", "required", ""),
        (_top(options=DROP), "options", "required", "add at least one way to own or rent capacity"),
        (_top(utilization=DROP), "utilization", "required", "one value for a flat forecast or one per month"),
        (_top(discount_rate=8), "discount_rate", "out_of_range", ""),
        (_top(discount_rate="8%"), "discount_rate", "not_a_number", ""),
        (_top(fleet_gpus=2.5), "fleet_gpus", "not_whole", ""),
        (_top(fleet=8), "fleet", "unknown_field", ""),
    ],
)
def test_a_problem_carries_a_code_a_page_can_react_to(mutate, path, code, reason):
    doc = scenario()
    mutate(doc)
    found = next(problem for problem in _problems(doc) if problem.path == path)
    assert (found.code, found.reason) == (code, reason)
