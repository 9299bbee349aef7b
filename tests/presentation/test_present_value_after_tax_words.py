"""Where a taxed scenario names a present value, it says which: the simulation, the tornado and the break-even map
compare present values after tax (the engine's decision NPV), and so do a taxed scenario's column in a comparison;
an untaxed scenario's words are unchanged."""

from __future__ import annotations

import copy
import re

import pytest

from lib.formatting import format_money, format_pct
from lib.kinds import is_owned
from tco.charts.break_even_map import break_even_map
from tco.charts.uncertainty import uncertainty_figures
from tco.documents import scenario_document
from tco.engine import evaluate, sensitivity, simulate, sweep
from tco.presentation.comparison import comparison
from tco.services import scenario_create_from_document
from tco.services.uncertainty import _tornado
from tests.documents import DESIGN_EXAMPLE

RANGES = {"options[1].price_per_gpu_hour": {"low": 3.0, "likely": 3.99, "high": 6.0}}


def _taxed() -> dict:
    return {**copy.deepcopy(DESIGN_EXAMPLE), "tax_rate": 0.21}


def _owned_minus_rental(result: dict, key: str) -> float:
    owned = [option[key] for option in result["options"] if is_owned(option["kind"])]
    other = [option[key] for option in result["options"] if not is_owned(option["kind"])]
    return min(owned) - min(other)


def _figures(document: dict) -> dict:
    result = {
        "simulation": simulate(document, RANGES, trials=500, seed=1),
        "tornado": _tornado(document, RANGES),
    }
    return uncertainty_figures(result, document)


def _titles(figure: dict) -> tuple[str, str]:
    layout = figure["layout"]
    return layout["title"]["text"], layout["xaxis"]["title"]["text"]


def test_a_taxed_scenarios_histogram_and_tornado_say_after_tax():
    figures = _figures(_taxed())
    title, axis = _titles(figures["outcome_histogram"])
    assert title == "Owned minus rental present value of cost after tax over 500 trials (USD)"
    assert axis == "Owned minus rental present value of cost after tax, USD (below 0: owning is cheaper)"
    title, axis = _titles(figures["tornado"])
    assert title == "What moves the answer most: owned minus rental present value of cost after tax (USD)"
    assert axis == "Owned minus rental present value of cost after tax, USD (below 0: owning is cheaper)"


def test_an_untaxed_scenarios_charts_do_not_speak_of_tax():
    figures = _figures(copy.deepcopy(DESIGN_EXAMPLE))
    for key in ("outcome_histogram", "tornado"):
        title, axis = _titles(figures[key])
        assert "present value of cost" in title and "tax" not in title + axis, key


def test_the_simulated_difference_of_a_taxed_scenario_is_after_tax():
    """Without ranges every trial is the scenario as entered: its difference is the after-tax one, not pre-tax."""
    document = _taxed()
    result = evaluate(document)
    simulated = simulate(document, {}, trials=10, seed=1)["owned_minus_rental"]["p50"]
    assert simulated == pytest.approx(_owned_minus_rental(result, "npv_after_tax"), rel=1e-9)
    assert simulated != pytest.approx(_owned_minus_rental(result, "npv"), rel=1e-3)


def test_the_tornado_bars_of_a_taxed_scenario_start_at_its_after_tax_difference():
    document = _taxed()
    base = _tornado(document, {})["base"]
    assert base == pytest.approx(_owned_minus_rental(evaluate(document), "npv_after_tax"), rel=1e-9)
    # An input swung to its own value on both sides moves nothing: both ends sit on the base, as the bars do.
    same = sensitivity(document, {"discount_rate": {"low": 0.08, "high": 0.08}})[0]
    assert same["difference_at_low"] == pytest.approx(base, rel=1e-9)


def test_the_break_even_maps_hover_says_after_tax_when_taxed():
    swept = sweep(_taxed(), ("utilization", [0.3, 0.6]), ("options[1].price_per_gpu_hour", [3.0, 4.0]))
    names = [option["name"] for option in DESIGN_EXAMPLE["options"]]
    text = break_even_map(swept, names, taxed=" after tax")["data"][0]["text"][0][0]
    assert "Owned \u2212 rental present value of cost after tax " in text
    untaxed = break_even_map(swept, names)["data"][0]["text"][0][0]
    assert "present value of cost " in untaxed and "tax" not in untaxed


def test_a_taxed_scenarios_column_in_a_comparison_shows_its_after_tax_present_values():
    taxed, plain = _taxed(), copy.deepcopy(DESIGN_EXAMPLE)
    entries = [
        {"id": 1, "name": "Taxed", "document": taxed, "result": evaluate(taxed)},
        {"id": 2, "name": "Untaxed", "document": plain, "result": evaluate(plain)},
    ]
    data = comparison(entries)
    assert [card["taxed"] for card in data["scenarios"]] == [True, False]
    for row in data["npv_rows"]:
        after_tax = next(o for o in entries[0]["result"]["options"] if o["name"] == row["option"])["npv_after_tax"]
        before_tax = next(o for o in entries[1]["result"]["options"] if o["name"] == row["option"])["npv"]
        assert [cell["value"] for cell in row["npv"]] == [after_tax, before_tax], row["option"]


def test_the_compare_page_names_the_taxed_column_after_tax(editor_client, editor, run_jobs):
    with run_jobs():
        taxed = scenario_create_from_document(document={**_taxed(), "name": "Taxed"}, user=editor)
        plain = scenario_create_from_document(document={**DESIGN_EXAMPLE, "name": "Untaxed"}, user=editor)
    html = editor_client.get(f"/scenarios/compare/?s={taxed.pk}&s={plain.pk}").content.decode()
    table = re.search(r'<table id="compare-npv">(.*?)</table>', html, re.S)[1]
    headers = [re.sub(r"\s+", " ", h).strip() for h in re.findall(r'<th scope="col"[^>]*>(.*?)</th>', table, re.S)]
    assert headers == ["Option", "Taxed (36 months, after tax)", "Untaxed (36 months)"]
    result = evaluate(scenario_document(taxed))
    owned = next(o for o in result["options"] if o["kind"] == "owned")
    assert f'<td class="num">{format_money(owned["npv_after_tax"])}</td>' in table
    (pair,) = result["break_even"]  # one owned option, one on-demand rental
    cards = re.search(r'id="compare-cards">(.*?)</div>\s*</div>\s*</div>', html, re.S)[0]
    after_tax = format_pct(pair["utilization_after_tax"])
    assert f"Owning breaks even vs {pair['rental']} at {after_tax} utilization after tax" in cards
    untaxed_card = cards.split('<div class="stat-label">Untaxed</div>')[1]
    assert "tax" not in untaxed_card.lower() and "utilization (forecast" in untaxed_card


def test_a_taxed_scenarios_simulation_and_tornado_tables_and_exports_say_after_tax(editor_client, editor, run_jobs):
    with run_jobs():
        scenario = scenario_create_from_document(document=_taxed(), user=editor)
        form = {"trials": "1000", "profile": "forecast", "peak_ratio": "1.5", "peak_hour": "14"}
        editor_client.post(
            f"/scenarios/{scenario.pk}/uncertainty/run/", {**form, "version": scenario.version}, HTTP_HX_REQUEST="true"
        )
    html = editor_client.get(f"/scenarios/{scenario.pk}/").content.decode()
    options = re.search(r'<table id="u-options-table">(.*?)</thead>', html, re.S)[1]
    assert "P10 present value of cost after tax, USD" in options and "P90 present value of cost after tax" in options
    tornado = re.search(r'<table id="u-tornado-table">(.*?)</thead>', html, re.S)[1]
    assert "Owned \u2212 rental at low after tax, USD" in tornado
    base = _owned_minus_rental(evaluate(scenario_document(scenario)), "npv_after_tax")
    assert "owned minus rental present value of cost after tax " in html
    assert format_money(abs(base)) in re.search(r'id="u-tornado-base">(.*?)</p>', html, re.S)[1]
    simulation = editor_client.get(f"/scenarios/{scenario.pk}/export/simulation.csv").content.decode()
    assert simulation.splitlines()[0].startswith("series,P10 present value of cost after tax (USD),")
    tornado_csv = editor_client.get(f"/scenarios/{scenario.pk}/export/tornado.csv").content.decode()
    assert "owned minus rental present value of cost after tax at low (USD)" in tornado_csv.splitlines()[0]
