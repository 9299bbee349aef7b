"""simulate: triangular Monte Carlo over ranged inputs, checked against evaluate and closed forms."""

from __future__ import annotations

import importlib
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.engine import ScenarioError, evaluate, simulate
from tco.engine.validation import normalise
from tco.engine.variants import npvs
from tests.hypothesis_profiles import examples

from .docs import owned, rental, scenario
from .strategies import scenarios
from .uncertainty_docs import level, rich_scenario, with_value

REL = 1e-9
# The module, not the function tco.engine exports under the same name.
simulate_module = importlib.import_module("tco.engine.simulate")


def _degenerate(value: float) -> dict[str, float]:
    return {"low": value, "likely": value, "high": value}


def _assert_npvs_equal_evaluate(result: dict, expected: dict) -> None:
    for got, want in zip(result["options"], expected["options"], strict=True):
        assert got["name"] == want["name"]
        for key in ("p10", "p50", "p90", "mean"):
            assert got["npv"][key] == pytest.approx(want["npv"], rel=REL, abs=1e-6), (got["name"], key)


# --- degenerate ranges are evaluate ---------------------------------------------------------


@pytest.mark.parametrize("make", [scenario, rich_scenario])
def test_ranges_at_the_documents_own_values_give_evaluates_npvs(make):
    doc = make()
    uncertainty = {
        "utilization": _degenerate(level(doc)),
        "discount_rate": _degenerate(doc["discount_rate"]),
        "burst_price_per_gpu_hour": _degenerate(doc["burst_price_per_gpu_hour"]),
        "workload.tokens_per_second_per_gpu": _degenerate(doc["workload"]["tokens_per_second_per_gpu"]),
        "options[0].capex": _degenerate(doc["options"][0]["capex"]),
        "options[0].residual_value": _degenerate(doc["options"][0]["residual_value"]),
        "options[1].price_per_gpu_hour": _degenerate(doc["options"][1].get("price_per_gpu_hour", 1.0)),
    }
    if "price_per_gpu_hour" not in doc["options"][1]:
        del uncertainty["options[1].price_per_gpu_hour"]
    result = simulate(doc, uncertainty, trials=50, seed=3)
    _assert_npvs_equal_evaluate(result, evaluate(doc))


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("utilization", 0.8),  # the rising forecast is clipped at 1 in its last months
        ("utilization", 0.1),
        ("discount_rate", 0.15),
        ("burst_price_per_gpu_hour", 9.5),
        ("workload.acceptance_rate", 0.7),
        ("options[0].useful_life_years", 2.5),
        ("options[1].power_kw", 7.0),  # idle power is defaulted from it, so it moves too
        ("options[2].cost_of_capital", 0.2),
        ("options[3].price_change_per_year", 0.3),
        ("options[5].price_per_gpu_hour", 1.5),
        ("options[6].tokens_per_second_per_gpu", 900),
        ("options[7].price_per_million_output_tokens", 4.0),
    ],
)
def test_a_degenerate_range_elsewhere_is_evaluate_of_that_variant(path, value):
    doc = rich_scenario()
    result = simulate(doc, {path: _degenerate(value)}, trials=10)
    _assert_npvs_equal_evaluate(result, evaluate(with_value(doc, path, value)))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=scenarios(), data=st.data())
def test_every_trial_of_the_vectorised_pass_is_evaluate_of_its_variant(doc, data):
    """The array path (one row per trial) against evaluate row by row, for random documents."""
    normal, derived = normalise(doc)
    paths = ["utilization", "discount_rate", "options[0].capex", "options[1].price_per_gpu_hour"]
    rows = 3
    values = {
        "utilization": data.draw(st.lists(st.floats(0, 1), min_size=rows, max_size=rows)),
        "discount_rate": data.draw(st.lists(st.floats(0, 0.3), min_size=rows, max_size=rows)),
        "options[0].capex": data.draw(
            st.lists(st.floats(doc["options"][0]["capex"], 2e6), min_size=rows, max_size=rows)
        ),
        "options[1].price_per_gpu_hour": data.draw(st.lists(st.floats(0, 20), min_size=rows, max_size=rows)),
    }
    if level(doc) == 0 and len(doc["utilization"]) > 1:
        del values["utilization"]
    got = npvs(normal, derived, {p: np.array(v).reshape(-1, 1) for p, v in values.items()}, rows)
    for j in range(rows):
        variant = doc
        for path in paths:
            if path in values:
                variant = with_value(variant, path, values[path][j])
        want = [o["npv"] for o in evaluate(variant)["options"]]
        assert got[:, j] == pytest.approx(want, rel=REL, abs=1e-6)


# --- determinism and the shape of the answer ------------------------------------------------

RANGES = {
    "utilization": {"low": 0.3, "likely": 0.55, "high": 0.9},
    "options[1].price_per_gpu_hour": {"low": 2.0, "likely": 3.99, "high": 5.0},
    "options[0].electricity_per_kwh": {"low": 0.08, "likely": 0.11, "high": 0.2},
}


def test_the_same_seed_gives_the_same_answer_and_another_seed_another():
    doc = scenario()
    first = simulate(doc, RANGES, trials=2000, seed=7)
    assert simulate(doc, RANGES, trials=2000, seed=7) == first
    assert simulate(doc, RANGES, trials=2000, seed=8) != first


def test_the_answer_does_not_depend_on_the_order_of_the_ranges():
    doc = scenario()
    reordered = dict(reversed(list(RANGES.items())))
    assert simulate(doc, reordered, trials=1000) == simulate(doc, RANGES, trials=1000)


def test_adding_a_range_leaves_the_other_inputs_draws_unchanged():
    """The rental's price only moves the rental; the capex only the owned option."""
    doc = scenario()
    price = {"options[1].price_per_gpu_hour": {"low": 2.0, "likely": 3.99, "high": 5.0}}
    both = {**price, "options[0].capex": {"low": 250000, "likely": 320000, "high": 400000}}
    alone, together = simulate(doc, price, trials=500), simulate(doc, both, trials=500)
    assert together["options"][1]["npv"] == alone["options"][1]["npv"]
    assert together["options"][0]["npv"] != alone["options"][0]["npv"]


def test_the_answer_is_json_with_percentiles_per_option_and_a_histogram_of_the_difference():
    result = simulate(scenario(), RANGES, trials=np.int64(1000), seed=np.int64(1))
    assert json.loads(json.dumps(result)) == result
    assert set(result) == {"trials", "seed", "options", "owned_minus_rental"}
    assert (result["trials"], result["seed"]) == (1000, 1)
    for option in result["options"]:
        assert set(option) == {"name", "npv", "probability_cheapest"}
        assert set(option["npv"]) == {"p10", "p50", "p90", "mean"}
        assert option["npv"]["p10"] <= option["npv"]["p50"] <= option["npv"]["p90"]
    difference = result["owned_minus_rental"]
    assert set(difference) == {"p10", "p50", "p90", "mean", "probability_owning_cheaper", "histogram"}
    histogram = difference["histogram"]
    assert len(histogram["edges"]) == len(histogram["counts"]) + 1
    assert sum(histogram["counts"]) == 1000
    assert histogram["edges"] == sorted(histogram["edges"])


def test_probability_cheapest_sums_to_one_and_owning_cheaper_is_the_owned_options_share():
    doc = rich_scenario()
    ranges = {
        "utilization": {"low": 0.2, "likely": 0.6, "high": 0.75},
        "options[3].price_per_gpu_hour": {"low": 2.0, "likely": 3.99, "high": 6.0},
        "options[6].price_per_gpu_hour": {"low": 1.5, "likely": 3.0, "high": 5.0},
        "options[0].capex": {"low": 200000, "likely": 320000, "high": 400000},
    }
    result = simulate(doc, ranges, trials=5000, seed=2)
    shares = [o["probability_cheapest"] for o in result["options"]]
    assert sum(shares) == pytest.approx(1.0, abs=1e-12)
    assert all(0.0 <= s <= 1.0 for s in shares)
    owned_share = sum(s for s, o in zip(shares, doc["options"], strict=True) if o["kind"] in ("owned", "secondary"))
    assert result["owned_minus_rental"]["probability_owning_cheaper"] == pytest.approx(owned_share, abs=1e-12)
    assert 0.0 < owned_share < 1.0  # the ranges were chosen so both sides win some trials


def test_owned_minus_rental_is_none_without_an_owned_option():
    result = simulate(scenario(rental(), rental(name="Other", price_per_gpu_hour=2.0)), {}, trials=10)
    assert result["owned_minus_rental"] is None
    assert [o["probability_cheapest"] for o in result["options"]] == [0.0, 1.0]


def test_chunks_of_trials_give_the_same_answer_as_one_pass(monkeypatch):
    doc = scenario(horizon_months=240, utilization=[0.5])
    whole = simulate(doc, RANGES, trials=3000, seed=4)
    monkeypatch.setattr(simulate_module, "CHUNK_ELEMENTS", 240 * 700)  # five chunks of 700 trials or fewer
    assert simulate(doc, RANGES, trials=3000, seed=4) == whole


# --- distributions against closed forms -----------------------------------------------------


def _triangular_cdf(x: float, low: float, likely: float, high: float) -> float:
    if x <= low:
        return 0.0
    if x >= high:
        return 1.0
    if x <= likely:
        return (x - low) ** 2 / ((high - low) * (likely - low))
    return 1.0 - (high - x) ** 2 / ((high - low) * (high - likely))


@pytest.mark.parametrize(("low", "likely", "high"), [(1.0, 3.0, 7.0), (2.0, 2.0, 5.0), (0.0, 4.0, 4.0)])
def test_draws_follow_the_triangular_cdf(low, likely, high):
    n = 50_000
    draws = simulate_module.triangular(np.random.default_rng(11), low, likely, high, n)[:, 0]
    assert draws.min() >= low and draws.max() <= high
    for q in (0.05, 0.25, 0.5, 0.75, 0.95):
        x = low + q * (high - low)
        expected = _triangular_cdf(x, low, likely, high)
        # A share of n independent draws has standard error sqrt(F(1-F)/n) <= 0.0023; 5 SE is a
        # false alarm about once in 1.7 million.
        assert np.mean(draws <= x) == pytest.approx(expected, abs=5 * math.sqrt(expected * (1 - expected) / n) + 1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_probability_owning_cheaper_with_one_triangular_rental_price_matches_the_closed_form(seed):
    """Rental NPV is linear in its price with no extras: NPV(p) = p·K. Owning (NPV O, fixed) is
    cheaper when p > t = O/K, so P = 1 - F(t) for the triangular CDF F."""
    doc = scenario(owned(name="Own"), rental(name="Rent", price_change_per_year=-0.05), workload=None)
    del doc["workload"]
    owned_npv = evaluate(doc)["options"][0]["npv"]
    per_unit_price = evaluate(with_value(doc, "options[1].price_per_gpu_hour", 1.0))["options"][1]["npv"]
    threshold = owned_npv / per_unit_price
    low, likely, high = 2.0, 3.5, 7.0
    assert low < threshold < high
    trials = 20_000
    result = simulate(
        doc, {"options[1].price_per_gpu_hour": {"low": low, "likely": likely, "high": high}}, trials=trials, seed=seed
    )
    expected = 1.0 - _triangular_cdf(threshold, low, likely, high)
    # A binomial share of 20,000 trials has standard error sqrt(P(1-P)/n) (about 0.0035 at most);
    # 5 standard errors: a correct engine fails this about once in 1.7 million seeds.
    tolerance = 5 * math.sqrt(expected * (1 - expected) / trials)
    difference = result["owned_minus_rental"]
    assert difference["probability_owning_cheaper"] == pytest.approx(expected, abs=tolerance)
    # The mean difference O - K·E[p], E[p] = (a+b+c)/3, within 5 standard errors K·sd(p)/sqrt(n).
    sd = math.sqrt((low**2 + likely**2 + high**2 - low * likely - low * high - likely * high) / 18)
    mean = owned_npv - per_unit_price * (low + likely + high) / 3
    assert difference["mean"] == pytest.approx(mean, abs=5 * per_unit_price * sd / math.sqrt(trials))


def test_a_utilization_range_scales_the_whole_forecast_and_clips_at_one():
    """Every trial lies between the variants at the range's ends: NPVs are monotone in the level."""
    doc = rich_scenario()
    at_low = evaluate(with_value(doc, "utilization", 0.4))
    at_high = evaluate(with_value(doc, "utilization", 0.9))  # clipped: the last months would exceed 1
    assert max(with_value(doc, "utilization", 0.9)["utilization"]) == 1.0
    result = simulate(doc, {"utilization": {"low": 0.4, "likely": 0.5, "high": 0.9}}, trials=4000)
    for option, lo, hi in zip(result["options"], at_low["options"], at_high["options"], strict=True):
        bottom, top = sorted((lo["npv"], hi["npv"]))
        assert bottom - 1e-6 <= option["npv"]["p10"] <= option["npv"]["p90"] <= top + 1e-6


# --- bad input names the path ---------------------------------------------------------------


def _problems(doc, uncertainty, **kwargs) -> dict[str, str]:
    with pytest.raises(ScenarioError) as caught:
        simulate(doc, uncertainty, **kwargs)
    return {p.path: p.message for p in caught.value.problems}


def test_every_bad_range_is_reported_by_its_path_at_once():
    problems = _problems(
        scenario(),
        {
            "options[9].capex": _degenerate(1.0),
            "options[1].colour": _degenerate(1.0),
            "utilization[3]": _degenerate(0.5),
            "utilization": {"low": 0.2, "likely": 0.9, "high": 1.2},
            "discount_rate": {"low": 0.1, "likely": 0.05, "high": 0.2},
            "options[0].gpu_count": _degenerate(8),
            "options[1].price_per_gpu_hour": {"low": 1.0, "high": 2.0},
            "options[0].capex": "lots",
        },
    )
    assert set(problems) == {
        "options[9].capex",
        "options[1].colour",
        "utilization[3]",
        "utilization",
        "discount_rate",
        "options[0].gpu_count",
        "options[1].price_per_gpu_hour",
        "options[0].capex",
    }
    assert "there is no option 9" in problems["options[9].capex"]
    assert "no numeric field 'colour'" in problems["options[1].colour"]
    assert "between 0 and 1" in problems["utilization"] and "high" in problems["utilization"]
    assert "low ≤ likely ≤ high" in problems["discount_rate"]
    assert "whole number" in problems["options[0].gpu_count"]
    assert "missing likely" in problems["options[1].price_per_gpu_hour"]
    assert "object with low, likely and high" in problems["options[0].capex"]


def test_a_residual_value_range_that_could_exceed_the_capex_is_refused():
    problems = _problems(
        scenario(),
        {
            "options[0].capex": {"low": 100000, "likely": 320000, "high": 400000},
            "options[0].residual_value": {"low": 20000, "likely": 40000, "high": 120000},
        },
    )
    assert list(problems) == ["options[0].residual_value"]


def test_trials_that_need_a_missing_burst_price_are_refused():
    doc = scenario(owned(gpu_count=4), rental(), utilization=[0.4], burst_price_per_gpu_hour=None, workload=None)
    del doc["burst_price_per_gpu_hour"], doc["workload"]
    problems = _problems(doc, {"utilization": {"low": 0.3, "likely": 0.4, "high": 0.8}})
    assert list(problems) == ["burst_price_per_gpu_hour"]
    assert "'Own' needs" in problems["burst_price_per_gpu_hour"]


def test_bad_trials_seed_and_workload_paths_are_named():
    doc = scenario(owned(), rental(), workload=None)
    del doc["workload"]
    problems = _problems(doc, {"workload.acceptance_rate": _degenerate(0.9)}, trials=0, seed=-1)
    assert set(problems) == {"trials", "seed", "workload.acceptance_rate"}
    assert "no workload" in problems["workload.acceptance_rate"]


def test_an_invalid_document_is_refused_before_anything_runs():
    doc = scenario()
    doc["options"][0]["capex"] = -1
    with pytest.raises(ScenarioError) as caught:
        simulate(doc, {})
    assert [p.path for p in caught.value.problems] == ["options[0].capex"]
