from __future__ import annotations

import json

import pytest

from lib.chart_style import KIND_DASHES, KIND_PATTERNS, OPTION_COLORS
from tco.charts import annual_cost_vs_utilization, cost_per_accepted_output, cumulative_cost

from .results import make_result, pair, result_option

OWN = "Own 8x H100"
LAMBDA = "Lambda"
API = "Hosted API"
UTILIZATIONS = [step / 50 for step in range(51)]


def _curve():
    # Rental: 8 GPUs x 8760 h x $4 x u = 280,320 u. Owned: 140,160 + 56,064 u. They cross at u = 140,160 / 224,256
    # = 0.625, where both cost 175,200 a year.
    return {
        "utilization": UTILIZATIONS,
        "options": [
            {"name": OWN, "kind": "owned", "annual_cost": [140_160 + 56_064 * u for u in UTILIZATIONS]},
            {"name": LAMBDA, "kind": "neocloud", "annual_cost": [280_320 * u for u in UTILIZATIONS]},
            {"name": API, "kind": "api", "annual_cost": [500_000 * u for u in UTILIZATIONS]},
        ],
    }


def _result(break_even=None, **kwargs):
    options = [
        result_option(OWN, "owned", npv=500_000.0, cumulative=[300_000.0 + 6_000 * m for m in range(36)]),
        result_option(LAMBDA, "neocloud", npv=400_000.0, cost_per_million_accepted_tokens=0.5131),
        result_option(
            API, "api", npv=900_000.0, cost_per_million_accepted_tokens=3.5714, cost_per_accepted_response=0.00125
        ),
    ]
    return make_result(options, break_even if break_even is not None else [pair(OWN, LAMBDA, 0.625, 20)], **kwargs)


def _lines(figure):
    return [trace for trace in figure["data"] if trace["mode"] == "lines"]


def test_it_draws_one_annual_cost_line_per_option_named_with_its_kind():
    figure = annual_cost_vs_utilization(_result(), _curve())
    assert [trace["name"] for trace in _lines(figure)] == [
        "Own 8x H100 (owned)",
        "Lambda (neocloud)",
        "Hosted API (API)",
    ]


def test_it_gives_each_annual_cost_line_its_options_colour_and_its_kinds_dash():
    figure = annual_cost_vs_utilization(_result(), _curve())
    styles = [(trace["line"]["color"], trace["line"]["dash"]) for trace in _lines(figure)]
    assert styles == [
        (OPTION_COLORS[0], KIND_DASHES["owned"]),
        (OPTION_COLORS[1], KIND_DASHES["neocloud"]),
        (OPTION_COLORS[2], KIND_DASHES["api"]),
    ]


def test_it_puts_utilization_in_percent_on_the_annual_cost_x_axis():
    figure = annual_cost_vs_utilization(_result(), _curve())
    assert _lines(figure)[0]["x"][25] == 50.0
    assert figure["layout"]["xaxis"]["title"]["text"] == "Reference utilization (%)"
    assert figure["layout"]["yaxis"]["title"]["text"] == "Annual cost (USD per year)"
    assert "Annual cost" in figure["layout"]["title"]["text"]


def test_it_rounds_annual_costs_to_whole_dollars():
    figure = annual_cost_vs_utilization(_result(), _curve())
    assert _lines(figure)[1]["y"][-1] == 280_320


def test_it_hovers_annual_costs_with_currency_and_units():
    template = _lines(annual_cost_vs_utilization(_result(), _curve()))[0]["hovertemplate"]
    assert "$%{y:,.0f} per year" in template
    assert "%{x:.1f}%" in template


def test_it_marks_the_break_even_point_where_the_lines_cross():
    figure = annual_cost_vs_utilization(_result(), _curve())
    (points,) = [trace for trace in figure["data"] if trace["mode"] == "markers"]
    assert points["name"] == "Break-even (owned = rental)"
    assert (points["x"][0], points["y"][0]) == (62.5, 175_200)
    assert list(points["customdata"][0]) == [OWN, LAMBDA, "62.5%"]


def test_it_marks_no_break_even_point_when_owning_never_pays():
    figure = annual_cost_vs_utilization(_result([pair(OWN, LAMBDA, None)]), _curve())
    assert [trace for trace in figure["data"] if trace["mode"] == "markers"] == []


def test_it_marks_the_forecast_mean_utilization():
    figure = annual_cost_vs_utilization(_result(mean_utilization=0.55), _curve())
    (line,) = figure["layout"]["shapes"]
    assert (line["x0"], line["x1"]) == (55.0, 55.0)
    assert figure["layout"]["annotations"][0]["text"] == "Forecast mean 55.0%"


def test_it_names_other_currencies_on_axes_and_hovers():
    figure = annual_cost_vs_utilization(_result(currency="EUR"), _curve())
    assert figure["layout"]["yaxis"]["title"]["text"] == "Annual cost (EUR per year)"
    assert "EUR %{y:,.0f} per year" in _lines(figure)[0]["hovertemplate"]


def test_it_draws_cumulative_cost_over_every_month_of_the_horizon():
    figure = cumulative_cost(_result())
    owned = _lines(figure)[0]
    assert list(owned["x"]) == list(range(1, 37))
    assert owned["y"][0] == 300_000  # the capex jump in month 1
    assert figure["layout"]["title"]["text"] == "Cumulative cash cost over 36 months (before resale)"
    assert (figure["layout"]["xaxis"]["title"]["text"], figure["layout"]["yaxis"]["title"]["text"]) == (
        "Month",
        "Cumulative cost (USD)",
    )


def test_it_hovers_cumulative_cost_with_month_and_currency():
    template = _lines(cumulative_cost(_result()))[1]["hovertemplate"]
    assert "Month %{x}" in template
    assert "$%{y:,.0f}" in template


def test_it_marks_the_crossover_month_on_the_owned_line():
    figure = cumulative_cost(_result())
    (points,) = [trace for trace in figure["data"] if trace["mode"] == "markers"]
    assert (points["x"][0], points["y"][0]) == (20, 300_000 + 6_000 * 19)


def _bars(figure):
    return {
        name: (trace["name"], x, text)
        for trace in figure["data"]
        for name, x, text in zip(trace["y"], trace["x"], trace["text"], strict=True)
    }


def test_it_shows_cost_per_million_accepted_tokens_per_option_labelled_by_kind():
    figure = cost_per_accepted_output(_result())
    bars = _bars(figure)
    assert bars["Lambda (neocloud)"] == ("Lambda (neocloud)", 0.5131, "$0.51")
    assert bars["Hosted API (API)"] == ("Hosted API (API)", 3.5714, "$3.57")
    assert figure["layout"]["xaxis"]["title"]["text"] == "Cost per million accepted output tokens (USD)"


def test_the_axis_leaves_room_for_the_longest_bars_label():
    """A label written past the end of the longest bar ("EUR 4.12") is not cut at the chart's edge: the axis runs on
    past that bar by at least the label's share of a 300 px plot (7 px a character), the narrowest printed plot."""
    result = _result()
    result["currency"] = "EUR"
    figure = cost_per_accepted_output(result)
    bars = [(x, text) for trace in figure["data"] for x, text in zip(trace["x"], trace["text"], strict=True)]
    longest, label = max(bars)
    assert label == "EUR 3.57"
    assert figure["layout"]["xaxis"]["range"][0] == 0
    assert figure["layout"]["xaxis"]["range"][1] >= longest * (1 + len(label) * 7 / 300)


def test_it_gives_each_bar_its_options_colour_and_its_kinds_pattern():
    figure = cost_per_accepted_output(_result())
    styles = {
        trace["name"]: (trace["marker"]["color"], trace["marker"]["pattern"]["shape"]) for trace in figure["data"]
    }
    assert styles == {
        "Own 8x H100 (owned)": (OPTION_COLORS[0], KIND_PATTERNS["owned"]),
        "Lambda (neocloud)": (OPTION_COLORS[1], KIND_PATTERNS["neocloud"]),
        "Hosted API (API)": (OPTION_COLORS[2], KIND_PATTERNS["api"]),
    }


def test_it_lists_the_cheapest_output_first():
    figure = cost_per_accepted_output(_result())
    assert list(figure["layout"]["yaxis"]["categoryarray"]) == [
        "Lambda (neocloud)",
        "Own 8x H100 (owned)",
        "Hosted API (API)",
    ]
    assert figure["layout"]["yaxis"]["autorange"] == "reversed"


def test_it_hovers_bars_with_the_cost_per_accepted_response_too():
    figure = cost_per_accepted_output(_result())
    api = next(trace for trace in figure["data"] if trace["name"] == "Hosted API (API)")
    assert list(api["customdata"][0]) == ["$3.57", "$0.0013"]
    assert "per accepted response" in api["hovertemplate"]


def test_it_falls_back_to_cost_per_gpu_hour_without_a_workload():
    figure = cost_per_accepted_output(_result(workload=False))
    assert figure["layout"]["xaxis"]["title"]["text"] == "Cost per busy GPU-hour (USD)"
    assert _bars(figure)["Lambda (neocloud)"][1] == 3.0


def test_it_names_options_without_a_value_instead_of_drawing_them():
    result = _result()
    result["options"][2]["cost_per_million_accepted_tokens"] = None
    figure = cost_per_accepted_output(result)
    assert "Hosted API (API)" not in _bars(figure)
    assert figure["layout"]["annotations"][0]["text"] == "No value (no busy GPU-hours): Hosted API"


@pytest.mark.parametrize(
    "build",
    [
        lambda: annual_cost_vs_utilization(_result(), _curve()),
        lambda: cumulative_cost(_result()),
        lambda: cost_per_accepted_output(_result()),
    ],
)
def test_it_builds_responsive_json_ready_figures(build):
    figure = build()
    assert "width" not in figure["layout"]
    assert figure["layout"]["autosize"] is True
    assert figure["data"]
    assert json.loads(json.dumps(figure, allow_nan=False)) == figure  # plain JSON types, nothing lost
