"""Compare scenarios in one currency: every other scenario's money converted through a dated rate (named on the page),
a clean refusal without a rate, a warning when horizons differ, and a chart that stays readable with 11+ series."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

import pytest

from lib.formatting import format_money
from pricing.models import ExchangeRate
from tco.charts import snapshot as snapshot_output
from tco.engine import evaluate
from tco.models import DecisionLink
from tco.services import scenario_create_from_document
from tco.services.comparison import ComparisonError, scenario_comparison
from tco.services.decisions import link_create
from tests.documents import DESIGN_EXAMPLE

EUR_USD = 1.08  # 1 EUR = 1.08 USD, the rate the test stores
RATE_TEXT = "1 EUR = 1.08 USD (ECB euro reference rates, 2026-11-02)"


@pytest.fixture
def ecb_rate(db) -> ExchangeRate:
    return ExchangeRate.objects.create(
        base="EUR",
        quote="USD",
        rate=Decimal("1.08"),
        rate_date=datetime.date(2026, 11, 2),
        source="ECB euro reference rates",
    )


def create(editor, run_jobs, **changes):
    with run_jobs():
        return scenario_create_from_document(document={**DESIGN_EXAMPLE, **changes}, user=editor)


@pytest.fixture
def berlin(editor, run_jobs):
    """The same plan priced in euros."""
    return create(editor, run_jobs, name="Berlin plan", currency="EUR")


def npvs_of(document: dict) -> dict[str, float]:
    return {option["name"]: option["npv"] for option in evaluate(document)["options"]}


def test_compare_shows_every_scenario_in_the_first_ones_currency_through_a_named_dated_rate(
    editor_client, scenario, berlin, ecb_rate
):
    data = scenario_comparison(scenarios=[scenario, berlin], compose=snapshot_output.comparison)
    assert data["currency"] == "USD"
    own = npvs_of(DESIGN_EXAMPLE)
    in_euros = npvs_of({**DESIGN_EXAMPLE, "currency": "EUR"})
    for row in data["npv_rows"]:
        usd, eur = row["npv"]
        assert (usd["currency"], eur["currency"]) == ("USD", "USD")
        assert usd["value"] == pytest.approx(own[row["option"]], rel=1e-12)
        assert eur["value"] == pytest.approx(in_euros[row["option"]] * EUR_USD, rel=1e-12)
    assert data["conversions"] == [f"Berlin plan: EUR amounts converted to USD at {RATE_TEXT}"]
    berlin_lines = [t for t in data["cumulative_figure"]["data"] if t["legendgroup"] == "scenario-1"]
    cumulative = evaluate({**DESIGN_EXAMPLE, "currency": "EUR"})["options"][0]["cumulative_cost"]
    assert berlin_lines[0]["y"][-1] == round(cumulative[-1] * EUR_USD)

    html = editor_client.get(f"/scenarios/compare/?s={scenario.pk}&s={berlin.pk}").content.decode()
    assert f"Berlin plan: EUR amounts converted to USD at {RATE_TEXT}" in html
    assert "each scenario&#x27;s currency" not in html and "each scenario's currency" not in html
    table = re.search(r'<table id="compare-npv">(.*?)</table>', html, re.S)[1]
    assert "EUR" not in table
    assert format_money(in_euros["Lambda 8x H100 SXM"] * EUR_USD, "USD") in table


def test_compare_in_a_chosen_currency_converts_the_others_at_the_inverse_rate(
    editor_client, scenario, berlin, ecb_rate
):
    data = scenario_comparison(scenarios=[scenario, berlin], compose=snapshot_output.comparison, currency="EUR")
    assert data["currency"] == "EUR"
    inverse = float(Decimal(1) / Decimal("1.08"))  # 0.925925925926 to 12 digits is what the Market's rate uses
    first = data["npv_rows"][0]
    assert first["npv"][0]["value"] == pytest.approx(npvs_of(DESIGN_EXAMPLE)[first["option"]] * inverse, rel=1e-11)
    assert data["conversions"] == [
        "H100 inference 2027: USD amounts converted to EUR at 1 USD = 0.925925925926 EUR "
        "(ECB euro reference rates, 2026-11-02)"
    ]
    html = editor_client.get(f"/scenarios/compare/?s={scenario.pk}&s={berlin.pk}&currency=EUR").content.decode()
    assert '<option value="EUR" selected>' in html


def test_without_a_rate_compare_refuses_naming_the_rate_to_import_and_shows_no_mixed_currencies(
    editor_client, scenario, berlin
):
    with pytest.raises(ComparisonError) as refused:
        scenario_comparison(scenarios=[scenario, berlin], compose=snapshot_output.comparison)
    message = (
        "“Berlin plan” is in EUR and no EUR→USD exchange rate is known, so it cannot be compared in USD. Import "
        "exchange rates (manage.py import_fx_rates with the ECB reference-rate CSV) or enter a EUR→USD rate in the "
        "admin, then compare again."
    )
    assert str(refused.value) == message
    html = editor_client.get(f"/scenarios/compare/?s={scenario.pk}&s={berlin.pk}").content.decode()
    assert message in html
    assert 'id="compare-npv"' not in html and 'id="compare-cumulative"' not in html


def test_compare_says_when_horizons_differ_and_leads_with_yearly_figures(editor_client, scenario, editor, run_jobs):
    longer = create(editor, run_jobs, name="Five years", horizon_months=60)
    data = scenario_comparison(scenarios=[scenario, longer], compose=snapshot_output.comparison)
    assert data["horizon_note"] == (
        "36 vs 60 months: totals cover different periods, so compare the annual costs (one average year) "
        "rather than the present values."
    )
    annual = {row["option"]: [cell["value"] for cell in row["annual"]] for row in data["annual_rows"]}
    five_years = {o["name"]: o["annual_cost"] for o in evaluate({**DESIGN_EXAMPLE, "horizon_months": 60})["options"]}
    assert annual["Lambda 8x H100 SXM"][1] == pytest.approx(five_years["Lambda 8x H100 SXM"], rel=1e-12)
    html = editor_client.get(f"/scenarios/compare/?s={scenario.pk}&s={longer.pk}").content.decode()
    assert "36 vs 60 months: totals cover different periods" in html
    assert html.index('id="compare-annual"') < html.index('id="compare-npv"')
    assert "Five years (60 months)" in html

    same = scenario_comparison(
        scenarios=[scenario, create(editor, run_jobs, name="Same horizon")], compose=snapshot_output.comparison
    )
    assert same["horizon_note"] == ""


def test_a_decision_link_freezes_the_comparison_in_one_currency_with_its_rate(
    client, scenario, berlin, editor, ecb_rate
):
    _link, token = link_create(scenario=scenario, user=editor, output=snapshot_output, compare_with=[berlin])
    frozen = DecisionLink.objects.get().snapshot.data["comparison"]
    assert frozen["currency"] == "USD" and frozen["conversions"] == [
        f"Berlin plan: EUR amounts converted to USD at {RATE_TEXT}"
    ]
    ExchangeRate.objects.all().delete()  # frozen: the link does not need the rate any more
    page = client.get(f"/d/{token}").content.decode()
    assert f"Berlin plan: EUR amounts converted to USD at {RATE_TEXT}" in page


def test_the_cumulative_chart_stays_readable_with_four_scenarios_of_three_options(scenario, editor, run_jobs):
    others = [create(editor, run_jobs, name=f"Plan {n}", discount_rate=(0.06, 0.07, 0.1)[n]) for n in range(3)]
    figure = scenario_comparison(scenarios=[scenario, *others], compose=snapshot_output.comparison)["cumulative_figure"]
    traces, layout = figure["data"], figure["layout"]
    assert len(traces) == 12
    # One panel per scenario, each with its own money scale (a small one would lie flat), sharing the months.
    panels = {(t["xaxis"], t["yaxis"]) for t in traces}
    assert len(panels) == 4
    by_panel: dict[str, list] = {}
    for trace in traces:
        by_panel.setdefault(trace["xaxis"], []).append(trace)
    for lines in by_panel.values():
        assert len({t["legendgroup"] for t in lines}) == 1  # a panel holds one scenario
        styles = [(t["line"]["color"], t["line"]["dash"]) for t in lines]
        assert len(set(styles)) == len(styles)  # no two lines in a panel look alike
    axes = [key for key in layout if key.startswith("yaxis")]
    assert len(axes) == 4 and not any("matches" in layout[key] for key in axes)
    assert "each panel its own scale" in layout["title"]["text"]
    domains = [tuple(layout[key]["domain"]) for key in layout if key.startswith("xaxis")]
    assert len(set(domains)) == 2  # two columns
    # The legend sits outside the plots, grouped and titled by scenario; a click hides one line, not a scenario.
    legend = layout["legend"]
    assert legend["yref"] == "container" and legend["yanchor"] == "bottom" and legend["groupclick"] == "toggleitem"
    assert {t["legendgrouptitle"]["text"] for t in traces} == {scenario.name, "Plan 0", "Plan 1", "Plan 2"}
    titles = [a["text"] for a in layout["annotations"]]
    assert titles == [f"{name} · 36 months" for name in (scenario.name, "Plan 0", "Plan 1", "Plan 2")]
    assert layout["height"] >= 2 * 260


def test_the_inputs_that_differ_are_in_the_comparisons_currency_too(editor_client, scenario, berlin, ecb_rate):
    # 6.16 EUR = 6.6528 USD; 6.16 USD = 5.7037 EUR (6.16 / 1.08 to a unit price's four decimals)
    for first, second, currency, burst in ((scenario, berlin, "USD", "6.6528"), (berlin, scenario, "EUR", "5.7037")):
        html = editor_client.get(f"/scenarios/compare/?s={first.pk}&s={second.pk}&currency={currency}").content.decode()
        assert f"Every amount is in {currency}." in html
        table = re.search(r'<table id="compare-differences">(.*?)</table>', html, re.S)[1]
        cells = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td>", table)
        rows = {label: values for label, *values in cells}
        assert rows["Burst price"] == [
            f"{format_money(6.16, currency, places=2)} per GPU-hour",
            f"{format_money(float(burst), currency, places=4)} per GPU-hour",
        ]
        other = "EUR" if currency == "USD" else "USD"
        assert rows.pop("Currency") == [currency, other]  # the scenarios' own currencies: not an amount
        symbol = format_money(1, other).removesuffix("1").strip()  # "$" or "EUR"
        assert not any(symbol in value for values in rows.values() for value in values)
