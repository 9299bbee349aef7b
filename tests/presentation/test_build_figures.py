"""build_figures with the real engine on the example scenario of docs/import-formats.md."""

from __future__ import annotations

import copy
import json

import plotly.graph_objects as go
import pytest

from tco.charts import build_figures, utilization_forecast
from tco.engine import evaluate
from tco.presentation import headline
from tests.documents import DESIGN_EXAMPLE

OWN = "Own 8x H100 (new)"
LAMBDA = "Lambda 8x H100 SXM"


@pytest.fixture
def document() -> dict:
    return copy.deepcopy(DESIGN_EXAMPLE)


def _build(document, **kwargs):
    return build_figures(document, evaluate(document), **kwargs)


def _trace(figure: dict, name: str) -> dict:
    return next(trace for trace in figure["data"] if trace.get("name") == name)


def test_it_builds_every_chart_including_the_break_even_map(document):
    assert list(_build(document)) == ["annual_cost", "cumulative", "cost_per_output", "forecast", "break_even_map"]


def test_it_builds_identical_json_twice(document):
    first = json.dumps(_build(document), sort_keys=False)
    second = json.dumps(_build(copy.deepcopy(document)), sort_keys=False)
    assert first == second


def test_it_keeps_the_figures_light(document):
    assert len(json.dumps(_build(document))) < 100_000


def test_it_uses_only_plain_json_and_cartesian_trace_types(document):
    figures = _build(document)
    types = {trace["type"] for figure in figures.values() for trace in figure["data"]}
    assert types <= {"scatter", "bar", "heatmap", "histogram", "box"}
    assert "bdata" not in json.dumps(figures)  # no numpy typed arrays: plain lists only
    assert "uid" not in json.dumps(figures)


def test_it_builds_figures_that_plotly_accepts_and_reads_back_unchanged(document):
    # The charts are built as plain dicts, not go.Figure: plotly's validation here catches any misspelt property
    # (plotly.js would silently ignore it), and its own serialisation must give back exactly the same JSON.
    figures = _build(document)
    figures["forecast_preview"] = utilization_forecast([0.2, 0.4, 0.6], 3, compact=True)
    for key, figure in figures.items():
        assert json.loads(go.Figure(figure).to_json()) == figure, key


def test_it_draws_the_rental_annual_cost_at_todays_price(document):
    rental = _trace(_build(document)["annual_cost"], f"{LAMBDA} (neocloud)")
    # docs/money-math.md at u = 100 %: 8 GPUs x 8760 h x $3.99 = 279,619.20 a year (today's price, no price change).
    assert rental["x"][-1] == 100.0
    assert rental["y"][-1] == 279_619


def test_it_marks_break_even_at_the_closed_form_utilization(document):
    markers = _trace(_build(document)["annual_cost"], "Break-even (owned = rental)")
    # docs/money-math.md closed form: u* = (A + E(0) + O - extras) / (fleet 8760 p - (Pmax - Pidle) PUE 8760 price_kWh),
    # with A = 85,463.87 (the worked example), E(0) = 3.5 kW x 1.35 x 8760 h x $0.11, O = the fixed opex.
    idle_energy = 3.5 * 1.35 * 8760 * 0.11
    fixed = 24000 + 6000 + 5000 + 12000 + 30000
    slope = 8 * 8760 * 3.99 - (10.2 - 3.5) * 1.35 * 8760 * 0.11
    expected = (85_463.87 + idle_energy + fixed) / slope
    assert markers["x"][0] == pytest.approx(100 * expected, abs=0.01)


def test_it_sweeps_the_map_from_a_quarter_to_two_and_a_half_times_the_rental_price(document):
    heatmap = _build(document)["break_even_map"]["data"][0]
    assert len(heatmap["x"]) == 21
    assert (heatmap["y"][0], heatmap["y"][-1]) == (pytest.approx(0.9975), pytest.approx(9.975))


def test_it_finds_renting_cheapest_when_idle_and_owning_at_full_use_of_a_dear_rental(document):
    heatmap = _build(document)["break_even_map"]["data"][0]
    legend = [trace["name"] for trace in _build(document)["break_even_map"]["data"][1:]]
    names = [name.removeprefix("Cheapest: ") for name in legend]
    assert names[heatmap["z"][0][0]] == f"{LAMBDA} (neocloud)"  # 0 % utilization: no owned fixed costs to beat
    # At $9.98/GPU-hour and 100 % use, renting costs 8 x 8760 x 9.975 = 699,048 a year; owning about 176k.
    assert names[heatmap["z"][-1][-1]] == f"{OWN} (owned)"


def test_it_skips_the_map_without_an_owned_option(document):
    document["options"] = document["options"][1:]
    assert "break_even_map" not in _build(document)


def test_it_skips_the_map_without_an_on_demand_rental(document):
    document["options"][1]["billing"] = "committed"
    assert "break_even_map" not in _build(document)


def test_it_sweeps_the_chosen_rental(document):
    document["options"].append(
        {"name": "GCP A3 High", "kind": "hyperscaler", "price_per_gpu_hour": 11.06, "billing": "on_demand"}
    )
    figure = _build(document, map_rental="GCP A3 High")["break_even_map"]
    assert figure["layout"]["title"]["text"] == "Cheapest option by utilization and GCP A3 High price"
    assert figure["data"][0]["y"][-1] == pytest.approx(11.06 * 2.5)


def test_it_falls_back_to_the_first_rental_for_an_unknown_map_choice(document):
    figure = _build(document, map_rental="No such rental")["break_even_map"]
    assert figure["layout"]["title"]["text"] == f"Cheapest option by utilization and {LAMBDA} price"


def test_it_heads_the_real_result_with_renting_lambda(document):
    result = evaluate(document)
    answer = headline(document, result)
    # Owning never crosses below renting within 36 months here (Lambda's price falls 10 % a year),
    # and the forecast (55 %) is below the break-even computed above (about 61.7 %).
    assert answer["cheapest"]["name"] == LAMBDA
    assert answer["runner_up"]["name"] == OWN
    assert answer["sentence"].startswith(f"Renting {LAMBDA} is $")
    assert answer["sentence"].endswith("; owning breaks even above 61.7% utilization, forecast is 55.0%.")


def _with_second_neocloud(document) -> dict:
    second = copy.deepcopy(document["options"][1])
    assert second["kind"] == "neocloud"
    second.update(name="Nebius 8x H100 SXM", price_per_gpu_hour=2.95)
    document["options"].append(second)
    return document


def _option_colours(figure: dict) -> dict[str, str]:
    """Option (legend name, kind included) → colour, for the line and bar charts."""
    colours = {}
    for trace in figure["data"]:
        style = trace.get("line") if trace["type"] == "scatter" else trace.get("marker")
        if trace["type"] == "scatter" and trace["mode"] != "lines":
            continue  # break-even and crossover marks
        colours[trace["name"]] = style["color"]
    return colours


def test_two_options_of_one_kind_get_different_colours_in_every_chart(document):
    figures = _build(_with_second_neocloud(document))
    for key in ("annual_cost", "cumulative", "cost_per_output"):
        colours = _option_colours(figures[key])
        assert colours[f"{LAMBDA} (neocloud)"] != colours["Nebius 8x H100 SXM (neocloud)"], key
        assert len(set(colours.values())) == len(colours) == 4, key


def test_an_option_has_the_same_colour_in_every_chart_and_its_kind_stays_in_name_and_dash(document):
    figures = _build(_with_second_neocloud(document))
    per_chart = [_option_colours(figures[key]) for key in ("annual_cost", "cumulative", "cost_per_output")]
    assert per_chart[0] == per_chart[1] == per_chart[2]
    lines = [trace for trace in figures["annual_cost"]["data"] if trace["mode"] == "lines"]
    dashes = {trace["name"]: trace["line"]["dash"] for trace in lines}
    assert dashes[f"{LAMBDA} (neocloud)"] == dashes["Nebius 8x H100 SXM (neocloud)"] != dashes[f"{OWN} (owned)"]
    map_legend = {
        trace["name"].removeprefix("Cheapest: "): trace["marker"]["color"]
        for trace in figures["break_even_map"]["data"][1:]
    }
    for name, colour in map_legend.items():
        assert colour == per_chart[0][name]
