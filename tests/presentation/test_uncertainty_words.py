"""The simulation in words a leader can read: shares that never say 0 % of something that happened, which options
"owned minus rental" compares, what P10/P50/P90 mean, and a tornado without bars of zero width."""

from __future__ import annotations

import copy

import pytest

from lib.formatting import format_pct, round_half_up
from tco.charts.uncertainty import tornado
from tco.engine import evaluate, fleet_plan, sensitivity
from tco.presentation.uncertainty import (
    PERCENTILES_NOTE,
    plan_rule_sentence,
    probability_headline,
    share_text,
    simulation_rows,
    spread_sentence,
    tornado_rows,
)
from tests.documents import DESIGN_EXAMPLE


def _simulation(owning_cheaper: int, trials: int) -> dict:
    return {
        "trials": trials,
        "options": [
            {"name": "Own", "npv": {"p10": 1, "p50": 2, "p90": 3, "mean": 2}, "probability_cheapest": 0.0008},
            {"name": "Rent", "npv": {"p10": 1, "p50": 2, "p90": 3, "mean": 2}, "probability_cheapest": 0.9992},
        ],
        "owned_minus_rental": {
            "p10": -5.0,
            "p50": 10.0,
            "p90": 2_000_000.4,
            "probability_owning_cheaper": owning_cheaper / trials,
        },
    }


@pytest.mark.parametrize(
    ("owning_cheaper", "trials", "expected"),
    [
        (160, 200_000, "< 1 %"),  # 0.08 %: it happened, so not "0 %"
        (0, 200_000, "0 %"),
        (199_900, 200_000, "> 99 %"),  # 99.95 %: it did not always happen, so not "100 %"
        (200_000, 200_000, "100 %"),
        (1_240, 2_000, "62 %"),
        (999, 2_000, "50 %"),  # 49.95 % rounds half up
    ],
)
def test_a_share_of_trials_that_rounds_to_0_or_100_but_is_not_says_so(owning_cheaper, trials, expected):
    assert (
        probability_headline(_simulation(owning_cheaper, trials))
        == f"Owning is cheaper in {expected} of {trials:,} trials"
    )


def test_the_options_table_writes_each_share_the_way_the_headline_does():
    rows = simulation_rows(_simulation(160, 200_000))
    assert [row["cheapest_text"] for row in rows] == ["< 1 %", "> 99 %"]
    assert share_text(0.5) == "50 %"


def test_the_spread_names_the_owned_options_and_the_rentals_it_compares():
    sentence = spread_sentence(_simulation(160, 200_000), DESIGN_EXAMPLE)
    assert "Own 8x H100 (new) minus the cheaper of Lambda 8x H100 SXM and Hosted model API" in sentence
    assert "P10 \u2212$5, P50 $10, P90 $2,000,000" in sentence
    two_owned = copy.deepcopy(DESIGN_EXAMPLE)
    two_owned["options"].append({**two_owned["options"][0], "name": "Used 8x H100", "kind": "secondary"})
    sentence = spread_sentence(_simulation(160, 200_000), two_owned)
    assert "the cheaper of Own 8x H100 (new) and Used 8x H100 minus the cheaper of Lambda" in sentence


def test_a_taxed_scenarios_spread_says_it_is_after_tax():
    taxed = {**copy.deepcopy(DESIGN_EXAMPLE), "tax_rate": 0.21}
    assert spread_sentence(_simulation(160, 200_000), taxed).startswith(
        "Owned minus rental present value of cost after tax, in each trial "
    )
    assert " after tax" not in spread_sentence(_simulation(160, 200_000), {**taxed, "tax_rate": 0.0})


def test_p10_p50_p90_are_explained_in_one_line():
    assert PERCENTILES_NOTE.count(".") == 1
    assert "1 in 10 trials" in PERCENTILES_NOTE and "P10" in PERCENTILES_NOTE and "P90" in PERCENTILES_NOTE


@pytest.fixture(scope="module")
def rows_and_base():
    """Lambda far cheaper than the API: the API's prices never move the cheapest rental, so their bars are empty."""
    rows = sensitivity(DESIGN_EXAMPLE)
    npvs = {o["name"]: o["npv"] for o in evaluate(DESIGN_EXAMPLE)["options"]}
    base = npvs["Own 8x H100 (new)"] - min(npvs["Lambda 8x H100 SXM"], npvs["Hosted model API"])
    return rows, base


def _width(row: dict) -> float:
    return abs(row["difference_at_high"] - row["difference_at_low"])


def test_tornado_rows_of_zero_width_are_grouped_under_one_line(rows_and_base):
    rows, _ = rows_and_base
    empty = [row for row in rows if round_half_up(_width(row), 0) == 0]
    assert any(row["path"].startswith("options[2].") for row in empty)  # the API's prices
    view = tornado_rows(DESIGN_EXAMPLE, {"rows": rows})
    assert len(view["rows"]) + len(view["no_effect"]) == len(rows)
    assert all(round_half_up(_width(row), 0) > 0 for row in view["rows"])
    assert "Hosted model API: Price per million input tokens" in view["no_effect"]
    assert view["no_effect_text"].startswith(f"{len(empty)} inputs with no effect on owned minus rental: ")


def test_tornado_rows_read_in_words(rows_and_base):
    rows, _ = rows_and_base
    view = tornado_rows(DESIGN_EXAMPLE, {"rows": rows})
    by_label = {row["label"]: row for row in view["rows"]}
    rate = by_label["Discount rate"]
    assert (rate["low_text"], rate["high_text"]) == ("6.4% per year", "9.6% per year")  # 8 % ± 20 %
    assert by_label["Own 8x H100 (new): Useful life"]["low_text"] == "3.2 years"  # 4 years less 20 %
    assert by_label["Lambda 8x H100 SXM: Price"]["low_text"] == "$3.192 per GPU-hour"  # 3.99 less 20 %


def test_the_tornado_chart_draws_only_rows_with_an_effect_labelled_in_words(rows_and_base):
    rows, base = rows_and_base
    figure = tornado({"rows": rows, "base": base}, DESIGN_EXAMPLE)
    shown = tornado_rows(DESIGN_EXAMPLE, {"rows": rows})["rows"]
    assert figure["data"][0]["y"] == [row["label"] for row in shown][: len(figure["data"][0]["y"])]
    assert "Hosted model API: Price per million input tokens" not in figure["data"][0]["y"]
    assert f"As entered ${round_half_up(base, 0):,}" == figure["layout"]["annotations"][0]["text"]


def _plan_rule(price_per_gpu_hour: float) -> dict:
    document = copy.deepcopy(DESIGN_EXAMPLE)
    for option in document["options"]:
        if option["kind"] == "neocloud":
            option["price_per_gpu_hour"] = price_per_gpu_hour
    return fleet_plan(document, [4.0] * 24)["rule"]


def test_an_owned_gpu_that_would_need_more_than_every_hour_never_pays_in_words():
    rule = _plan_rule(1.0)  # below the owned GPU's fixed cost per hour
    assert rule["break_even_utilization"] > 1  # the engine's share of hours, above 100 %
    sentence = plan_rule_sentence(rule)
    assert sentence.startswith("An owned GPU never pays at this price: even busy every hour it costs more")
    assert "%" not in sentence


def test_an_owned_gpu_that_pays_says_the_share_of_hours():
    rule = _plan_rule(6.16)
    c_fix, c_busy = rule["fixed_per_gpu_hour"], rule["busy_per_gpu_hour"]
    share = c_fix / (6.16 - c_busy)  # docs/money-math.md, the fleet plan
    assert plan_rule_sentence(rule) == f"An owned GPU pays when it is busy at least {format_pct(share)} of the hours."


def test_power_dearer_than_the_rental_never_pays_in_words():
    rule = {"rental": "Spot", "break_even_utilization": None}
    assert plan_rule_sentence(rule).startswith("An owned GPU never pays at this price: renting at Spot costs less")
