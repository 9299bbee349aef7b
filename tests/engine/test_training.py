"""Training runs and capacity blocks (docs/money-math.md "Training runs"): the worked figures, hand-computed costs,
the refusals and the properties."""

from __future__ import annotations

import copy
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import ScenarioError, annual_cost_curve, capital_charge, evaluate
from tests.hypothesis_profiles import examples

SETTINGS = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])

OWNED = {
    "name": "Own 16x H100",
    "kind": "owned",
    "gpu_count": 16,
    "capex": 640000,
    "residual_value": 80000,
    "useful_life_years": 4,
    "cost_of_capital": 0.07,
    "power_kw": 20.4,
    "idle_power_kw": 7,
    "pue": 1.35,
    "electricity_per_kwh": 0.11,
    "operations_per_year": 30000,
}
ON_DEMAND = {"name": "Lambda", "kind": "neocloud", "price_per_gpu_hour": 3.99}
BLOCK = {
    "name": "EC2 capacity block",
    "kind": "hyperscaler",
    "price_per_gpu_hour": 4.5,
    "billing": "capacity_block",
    "block_gpus": 8,
    "block_days": 7,
    "on_demand_price_per_gpu_hour": 6.88,
}
API = {"name": "API", "kind": "api", "price_per_million_input_tokens": 0.5, "price_per_million_output_tokens": 1.5}
TRAINING = {
    "runs_per_year": 4,
    "gpu_hours": 10000,
    "cluster_gpus": 8,
    "interruptions_per_million_gpu_hours": 20,
    "checkpoint_interval_hours": 2,
    "restart_hours": 0.5,
    "success_rate": 0.5,
    "other_cost_per_run": 1000,
}


def scenario(training=TRAINING, options=(OWNED, ON_DEMAND, BLOCK), **top):
    doc = {
        "schema": "tco-scenario/1",
        "name": "Training plan",
        "horizon_months": 36,
        "discount_rate": 0.08,
        "fleet_gpus": 8,
        "utilization": [0.5],
        "burst_price_per_gpu_hour": 6.16,
        "options": [copy.deepcopy(o) for o in options],
        **top,
    }
    if training is not None:
        doc["training"] = copy.deepcopy(training)
    return doc


def option(result, name):
    return next(o for o in result["options"] if o["name"] == name)


def paths(document):
    with pytest.raises(ScenarioError) as caught:
        evaluate(document)
    return {problem.path: problem.message for problem in caught.value.problems}


# --- The worked figures ----------------------------------------------------------------------------------------


def test_a_trillion_tokens_at_1007_tokens_per_second_per_gpu_is_275847_gpu_hours():
    # 64.86B parameters on H100s (989 dense TFLOPS at BF16) measured at 1,007 tokens/s per GPU: 6·N·1007 FLOPs a
    # second of 989e12 is the MFU, and the run is 1e12/1007/3600 GPU-hours.
    mfu = 6 * 64.86e9 * 1007 / 989e12
    plan = {"runs_per_year": 1, "params_billion": 64.86, "tokens_billion": 1000, "mfu": mfu, "peak_tflops": 989}
    result = evaluate(scenario({**plan, "cluster_gpus": 1024}, options=(ON_DEMAND,)))
    assert round(result["training"]["gpu_hours_per_attempt"]) == 275_847


def test_a_6nd_run_takes_its_flops_over_the_peak_at_the_mfu_and_the_mfu_recomputes_from_its_hours():
    # 8B parameters x 1e12 tokens x 6 = 4.8e22 FLOPs; 989 TFLOPS at 40 % for an hour = 1.42416e18 FLOPs.
    plan = {"runs_per_year": 1, "params_billion": 8, "tokens_billion": 1000, "mfu": 0.4, "peak_tflops": 989}
    hours = evaluate(scenario({**plan, "cluster_gpus": 256}, options=(ON_DEMAND,)))["training"]["gpu_hours_per_attempt"]
    assert hours == pytest.approx(4.8e22 / 1.42416e18, rel=1e-12)
    assert round(hours, 2) == 33_704.08
    # Read back from the hours, the MFU is the one given: 4.8e22 / (989e12 x 3600 x hours).
    assert 4.8e22 / (989e12 * 3600 * hours) == pytest.approx(0.4, rel=1e-12)


def test_llama_3s_rate_of_interruptions_gives_back_its_419_interruptions_in_54_days_on_16384_gpus():
    hours = 54 * 24 * 16384
    rate = 419 / hours * 1e6  # about 19.7 per million GPU-hours
    plan = {
        "runs_per_year": 1,
        "gpu_hours": hours,
        "cluster_gpus": 16384,
        "interruptions_per_million_gpu_hours": rate,
        "checkpoint_interval_hours": 1,
        "restart_hours": 0.25,
    }
    figures = evaluate(scenario(plan, options=(ON_DEMAND,)))["training"]
    assert round(rate, 1) == 19.7
    assert figures["gpu_hours_effective"] - hours == pytest.approx(419 * 16384 * 0.75)


def test_interruptions_waste_half_a_checkpoint_and_a_restart_of_the_whole_cluster_each():
    figures = evaluate(scenario())["training"]
    # 20 per million of 10,000 GPU-hours = 0.2 interruptions, each 8 GPUs x (2/2 + 0.5) hours = 12 GPU-hours.
    assert figures["gpu_hours_per_attempt"] == 10000
    assert figures["gpu_hours_effective"] == pytest.approx(10002.4)
    assert figures["gpu_hours_per_validated_version"] == pytest.approx(20004.8)
    assert figures["wall_clock_days"] == pytest.approx(10002.4 / 8 / 24)


# --- The options' costs ------------------------------------------------------------------------------------------


def test_a_capacity_block_buys_whole_blocks_and_pays_every_hour_of_them():
    result = evaluate(scenario())
    block = option(result, "EC2 capacity block")
    # 10,002.4 GPU-hours in blocks of 8 x 24 x 7 = 1,344: 7.44, so 8 blocks, 10,752 GPU-hours paid at 4.50.
    assert block["blocks_per_run"] == 8
    assert block["cost_per_validated_version"] == pytest.approx(10752 * 4.5 / 0.5 + 1000 / 0.5)
    # A year: 4 runs' blocks plus the inference demand (8 x 8760 x 0.5 GPU-hours) at the on-demand price.
    assert block["annual_cost"] == pytest.approx(4 * 10752 * 4.5 + 8 * 8760 * 0.5 * 6.88)
    # Each month a third of a run's blocks (4 runs a year / 12) and the month's inference hours.
    assert block["monthly_cost"][0] == pytest.approx(4 / 12 * 10752 * 4.5 + 8 * 730 * 0.5 * 6.88)


def test_an_on_demand_rental_serves_the_training_hours_at_its_price():
    result = evaluate(scenario())
    rental = option(result, "Lambda")
    training_hours = 4 * 10002.4
    assert rental["annual_cost"] == pytest.approx((8 * 8760 * 0.5 + training_hours) * 3.99)
    assert rental["cost_per_validated_version"] == pytest.approx(20004.8 * 3.99 + 2000)
    assert rental["blocks_per_run"] is None


def test_an_owned_cluster_counts_the_training_hours_in_its_utilization_and_cost_per_gpu_hour():
    result = evaluate(scenario())
    owned = option(result, "Own 16x H100")
    busy_per_month = 8 * 730 * 0.5 + 4 * 10002.4 / 12
    assert owned["mean_own_utilization"] == pytest.approx(busy_per_month / (16 * 730))
    charge = capital_charge(capex=640000, residual_value=80000, useful_life_years=4, cost_of_capital=0.07)
    energy = (7 + (20.4 - 7) * busy_per_month / (16 * 730)) * 1.35 * 8760 * 0.11
    annual = charge + energy + 30000
    assert owned["annual_cost"] == pytest.approx(annual)
    assert owned["cost_per_validated_version"] == pytest.approx(annual / (12 * busy_per_month) * 20004.8 + 2000)


def test_a_managed_api_serves_no_training():
    document = scenario(
        options=(ON_DEMAND, API),
        workload={"tokens_per_second_per_gpu": 2400, "output_tokens_per_response": 350},
    )
    api = option(evaluate(document), "API")
    assert api["cost_per_validated_version"] is None
    without = option(evaluate({k: v for k, v in document.items() if k != "training"}), "API")
    assert api["annual_cost"] == without["annual_cost"]


def test_the_break_even_is_solved_on_the_inference_utilization_with_the_training_hours_added():
    result = evaluate(scenario(options=(OWNED, ON_DEMAND)))
    u = result["break_even"][0]["utilization"]
    assert 0 < u < 1
    training = 4 * 10002.4  # GPU-hours a year, the same at every utilization
    charge = capital_charge(capex=640000, residual_value=80000, useful_life_years=4, cost_of_capital=0.07)

    def owned_cost(level):  # no overflow below 16 GPUs' worth
        busy = 8 * 8760 * level + training
        return charge + (7 + 13.4 * busy / (16 * 8760)) * 1.35 * 8760 * 0.11 + 30000

    def rental_cost(level):
        return (8 * 8760 * level + training) * 3.99

    assert owned_cost(u) == pytest.approx(rental_cost(u), rel=1e-9)
    curve = annual_cost_curve(scenario(options=(OWNED, ON_DEMAND)), [u])
    assert curve["options"][0]["annual_cost"][0] == pytest.approx(owned_cost(u), rel=1e-9)


def test_a_capacity_block_joins_no_break_even_pair():
    pairs = evaluate(scenario())["break_even"]
    assert [(p["owned"], p["rental"]) for p in pairs] == [("Own 16x H100", "Lambda")]


def test_training_hours_beyond_an_owned_cluster_overflow_at_the_burst_price():
    plan = {**TRAINING, "runs_per_year": 100, "interruptions_per_million_gpu_hours": 0, "success_rate": 1}
    owned = option(evaluate(scenario(plan, options=(OWNED, ON_DEMAND))), "Own 16x H100")
    busy = 8 * 730 * 0.5 + 100 * 10000 / 12
    assert owned["overflow_gpu_hours"] == pytest.approx(36 * (busy - 16 * 730))


def test_without_a_training_plan_the_result_has_no_training_figures():
    result = evaluate(scenario(None, options=(OWNED, ON_DEMAND)))
    assert "training" not in result
    assert all("cost_per_validated_version" not in o and "blocks_per_run" not in o for o in result["options"])


def test_a_training_plan_changes_nothing_of_an_option_that_serves_none_of_it_but_the_block_s_own_cost():
    with_plan = option(evaluate(scenario()), "EC2 capacity block")
    inference_only = 8 * 8760 * 0.5 * 6.88
    assert with_plan["annual_cost"] - inference_only == pytest.approx(4 * 8 * 1344 * 4.5)


# --- Refusals ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mfu", [0, -0.1, 1.01])
def test_an_mfu_outside_zero_to_one_is_refused_at_the_field(mfu):
    plan = {"runs_per_year": 1, "params_billion": 8, "tokens_billion": 100, "mfu": mfu, "peak_tflops": 989}
    problems = paths(scenario({**plan, "cluster_gpus": 8}))
    assert "Model FLOPs utilization (MFU) must be" in problems["training.mfu"]


def test_an_mfu_of_one_is_allowed():
    plan = {"runs_per_year": 1, "params_billion": 8, "tokens_billion": 100, "mfu": 1, "peak_tflops": 989}
    assert evaluate(scenario({**plan, "cluster_gpus": 8}))["training"]["gpu_hours_per_attempt"] > 0


def test_a_success_rate_of_zero_is_refused():
    problems = paths(scenario({**TRAINING, "success_rate": 0}))
    assert problems["training.success_rate"].startswith("Validated share of runs must be more than 0")


@pytest.mark.parametrize("days", [0, 183, 1.5])
def test_a_block_shorter_than_a_day_or_longer_than_182_days_is_refused(days):
    problems = paths(scenario(options=(OWNED, {**BLOCK, "block_days": days})))
    assert problems["options[1].block_days"].startswith("Block length (days) must be")
    assert "between 1 and 182;" in problems["options[1].block_days"]


def test_a_cluster_larger_than_an_owned_option_is_refused_naming_the_option():
    problems = paths(scenario({**TRAINING, "cluster_gpus": 32}))
    assert "'Own 16x H100', which owns only 16 GPUs" in problems["training.cluster_gpus"]


def test_a_run_is_sized_by_its_gpu_hours_or_its_model_not_both_nor_neither():
    both = paths(scenario({**TRAINING, "params_billion": 8}))
    assert "not both" in both["training.params_billion"]
    neither = paths(scenario({"runs_per_year": 1, "cluster_gpus": 8, "mfu": 0.4}))
    assert set(neither) == {"training.params_billion", "training.tokens_billion", "training.peak_tflops"}


def test_a_capacity_block_needs_a_training_plan_and_its_block():
    problems = paths(scenario(None, options=({**BLOCK, "block_gpus": None},)))
    assert "add a training plan" in problems["options[0].billing"]
    assert problems["options[0].block_gpus"].startswith("GPUs per block is required")


def test_a_capacity_block_needs_a_price_for_the_inference_hours():
    block = {key: value for key, value in BLOCK.items() if key != "on_demand_price_per_gpu_hour"}
    problems = paths(scenario(options=(block,), burst_price_per_gpu_hour=None))
    assert "on-demand price" in problems["options[0].on_demand_price_per_gpu_hour"]
    # With the burst price the inference hours are bought at it.
    result = evaluate(scenario(options=(block,)))
    assert result["options"][0]["annual_cost"] == pytest.approx(4 * 10752 * 4.5 + 8 * 8760 * 0.5 * 6.16)


def test_block_fields_on_an_on_demand_rental_are_refused():
    problems = paths(scenario(options=({**ON_DEMAND, "block_days": 7},)))
    assert problems["options[0].block_days"] == "Block length applies to capacity-block billing"


def test_an_unknown_training_field_is_refused():
    assert "Unknown field 'gpus'" in paths(scenario({**TRAINING, "gpus": 8}))["training.gpus"]


# --- Properties --------------------------------------------------------------------------------------------------

rates = st.floats(min_value=0.0, max_value=2000.0, allow_nan=False)


@SETTINGS
@given(
    low=rates,
    extra=st.floats(min_value=0.0, max_value=2000.0, allow_nan=False),
    checkpoint=st.floats(min_value=0.0, max_value=24.0),
    restart=st.floats(min_value=0.0, max_value=12.0),
    success=st.floats(min_value=0.05, max_value=1.0),
)
def test_more_interruptions_never_lower_any_option_s_cost_per_validated_version(
    low, extra, checkpoint, restart, success
):
    def costs(rate):
        plan = {
            **TRAINING,
            "interruptions_per_million_gpu_hours": rate,
            "checkpoint_interval_hours": checkpoint,
            "restart_hours": restart,
            "success_rate": success,
        }
        return [o["cost_per_validated_version"] for o in evaluate(scenario(plan))["options"]]

    for fewer, more in zip(costs(low), costs(low + extra), strict=True):
        assert more >= fewer * (1 - 1e-12)


@SETTINGS
@given(
    hours=st.floats(min_value=1.0, max_value=1e7),
    cluster=st.integers(min_value=1, max_value=16),
    checkpoint=st.floats(min_value=0.0, max_value=24.0),
)
def test_every_run_validated_and_no_interruptions_gives_the_plain_gpu_hours(hours, cluster, checkpoint):
    plan = {"runs_per_year": 1, "gpu_hours": hours, "cluster_gpus": cluster, "checkpoint_interval_hours": checkpoint}
    figures = evaluate(scenario(plan, options=(ON_DEMAND,)))["training"]
    assert figures["gpu_hours_effective"] == hours
    assert figures["gpu_hours_per_validated_version"] == hours
    assert math.isclose(figures["wall_clock_days"], hours / cluster / 24)


def test_the_money_math_worked_example_gives_its_figures():
    owned = {
        "name": "Own",
        "kind": "owned",
        "gpu_count": 16,
        "capex": 320000,
        "residual_value": 40000,
        "useful_life_years": 4,
        "cost_of_capital": 0.07,
        "power_kw": 10.2,
        "idle_power_kw": 3.5,
        "pue": 1.35,
        "electricity_per_kwh": 0.11,
    }
    block = {**BLOCK, "block_gpus": 8, "block_days": 7}
    del block["on_demand_price_per_gpu_hour"]
    result = evaluate(scenario(options=(owned, ON_DEMAND, block), utilization=[0.55]))
    figures = {o["name"]: o for o in result["options"]}
    assert round(result["training"]["wall_clock_days"], 1) == 52.1
    assert round(figures["Lambda"]["cost_per_validated_version"], 2) == 81819.15
    assert round(figures["Lambda"]["annual_cost"], 2) == 313428.86
    assert figures["EC2 capacity block"]["blocks_per_run"] == 8
    assert round(figures["EC2 capacity block"]["cost_per_validated_version"], 2) == 98768
    assert round(figures["EC2 capacity block"]["annual_cost"], 2) == 430967.04
    assert round(figures["Own"]["annual_cost"], 2) == 94901.69
    assert round(figures["Own"]["cost_per_validated_version"], 2) == 26168.08
