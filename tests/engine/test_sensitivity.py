"""sensitivity: every tornado row is two evaluate calls, widest bar first."""

from __future__ import annotations

import pytest

from tco.engine import ScenarioError, sensitivity

from .docs import api, owned, rental, scenario
from .uncertainty_docs import evaluated_difference, level, rich_scenario

OWNED_SWUNG = (
    "capex", "residual_value", "useful_life_years", "cost_of_capital", "power_kw", "electricity_per_kwh",
    "facility_per_year", "network_per_year", "software_per_year", "support_per_year", "operations_per_year",
)  # fmt: skip
ROW_KEYS = {"path", "label", "low", "high", "difference_at_low", "difference_at_high"}


def _assert_rows_are_evaluate(doc: dict, rows: list[dict]) -> None:
    for row in rows:
        assert set(row) == ROW_KEYS
        for side in ("low", "high"):
            expected = evaluated_difference(doc, row["path"], row[side])
            assert row[f"difference_at_{side}"] == pytest.approx(expected, rel=1e-9, abs=1e-6), (row["path"], side)


@pytest.mark.parametrize("make", [scenario, rich_scenario])
def test_each_default_row_equals_two_evaluate_calls(make):
    doc = make()
    rows = sensitivity(doc)
    assert len(rows) > 10
    _assert_rows_are_evaluate(doc, rows)


def test_rows_are_sorted_by_the_width_of_their_bar():
    rows = sensitivity(rich_scenario())
    widths = [abs(r["difference_at_high"] - r["difference_at_low"]) for r in rows]
    assert widths == sorted(widths, reverse=True)
    assert widths[0] > widths[-1]


def test_default_swings_are_twenty_percent_of_every_nonzero_input_within_bounds():
    doc = scenario(
        owned(name="Own", pue=1.0, idle_power_kw=None),
        rental(name="Rent"),
        api(name="API", acceptance_rate=0.9),
        workload={"tokens_per_second_per_gpu": 2400, "output_tokens_per_response": 350, "acceptance_rate": 0.9},
    )
    rows = {row["path"]: row for row in sensitivity(doc)}
    expected_paths = {
        "utilization",
        "discount_rate",
        "burst_price_per_gpu_hour",
        "workload.tokens_per_second_per_gpu",
        "workload.output_tokens_per_response",
        "workload.acceptance_rate",
        *(f"options[0].{field}" for field in OWNED_SWUNG),
        "options[1].price_per_gpu_hour",
        "options[2].price_per_million_input_tokens",
        "options[2].price_per_million_output_tokens",
        "options[2].acceptance_rate",
        "options[0].pue",  # at its floor of 1: swung only upwards
    }
    # Left out: counts (fleet, gpu_count, committed_gpus), zeros (input tokens, extras, price change)
    # and the idle power, which is defaulted from the power and moves with it.
    assert set(rows) == expected_paths
    assert (rows["utilization"]["low"], rows["utilization"]["high"]) == pytest.approx((0.44, 0.66))
    assert (rows["options[0].capex"]["low"], rows["options[0].capex"]["high"]) == pytest.approx((256000, 384000))
    assert (rows["options[0].pue"]["low"], rows["options[0].pue"]["high"]) == pytest.approx((1.0, 1.2))
    assert (rows["workload.acceptance_rate"]["low"], rows["workload.acceptance_rate"]["high"]) == pytest.approx(
        (0.72, 1.0)
    )
    assert rows["options[0].capex"]["label"] == "Own: Capex, whole option"


def test_default_swing_keeps_the_residual_value_within_the_capex():
    doc = scenario(owned(capex=100000, residual_value=90000), rental())
    rows = {row["path"]: row for row in sensitivity(doc)}
    assert rows["options[0].residual_value"]["high"] == 100000
    assert rows["options[0].capex"]["low"] == 90000
    _assert_rows_are_evaluate(doc, list(rows.values()))


def test_given_swings_including_whole_numbers_and_a_monthly_forecast():
    doc = rich_scenario()
    swings = {
        "options[0].gpu_count": {"low": 6, "high": 12},
        "fleet_gpus": {"low": 4, "high": 10},
        "utilization": {"low": 0.2, "likely": level(doc), "high": 0.9},  # simulate's ranges are accepted
        "options[4].price_per_gpu_hour": {"low": 1.0, "high": 1.0},
    }
    rows = sensitivity(doc, swings)
    assert [row["path"] for row in rows][-1] == "options[4].price_per_gpu_hour"  # a zero-width bar
    assert rows[-1]["difference_at_low"] == rows[-1]["difference_at_high"]
    _assert_rows_are_evaluate(doc, rows)


def test_bad_swings_are_named_by_path():
    with pytest.raises(ScenarioError) as caught:
        sensitivity(
            scenario(),
            {
                "options[0].colour": {"low": 1, "high": 2},
                "discount_rate": {"low": 0.2, "high": 0.1},
                "options[0].gpu_count": {"low": 6.5, "high": 8},
                "options[1].price_per_gpu_hour": {"low": 1},
                "options[0].residual_value": {"low": 0, "high": 400000},
            },
        )
    problems = {p.path: p.message for p in caught.value.problems}
    assert set(problems) == {
        "options[0].colour",
        "discount_rate",
        "options[0].gpu_count",
        "options[1].price_per_gpu_hour",
        "options[0].residual_value",
    }
    assert "low ≤ high" in problems["discount_rate"]
    assert "whole number" in problems["options[0].gpu_count"]
    assert "more than the capex" in problems["options[0].residual_value"]


def test_a_tornado_needs_both_sides():
    with pytest.raises(ScenarioError) as caught:
        sensitivity(scenario(rental(), rental(name="Other")))
    assert [p.path for p in caught.value.problems] == ["options"]


def test_a_commitment_term_bought_on_demand_at_the_burst_price_swings_with_it():
    # The months after the terms are bought at the burst price, which the tornado moves: each row is still two
    # evaluations (the commitment's own figures belong to one scenario, not to its variants).
    committed = rental(billing="committed", commitment_term_months=12, after_term="on_demand", upfront_share=0.5)
    doc = scenario(owned(), committed)
    rows = sensitivity(doc)
    assert "burst_price_per_gpu_hour" in {row["path"] for row in rows}
    _assert_rows_are_evaluate(doc, rows)
