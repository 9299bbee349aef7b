"""The scenario workspace in real Chromium: edit an input, see the chart and headline recompute; see errors;
pick a price imported through the Market's upload page."""

from __future__ import annotations

import re
from pathlib import Path

import numpy_financial as npf
import pytest

from tco.models import ScenarioOption
from tco.services import scenario_create_from_document
from tests.browser.helpers import log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]


def owned_break_even(price_per_gpu_hour: float) -> float:
    """The closed form for the example's own 8x H100 vs an on-demand rental (same throughput, G = fleet)."""
    owned = DESIGN_EXAMPLE["options"][0]
    capital = npf.pmt(owned["cost_of_capital"], owned["useful_life_years"], -owned["capex"], owned["residual_value"])
    energy_idle = owned["idle_power_kw"] * owned["pue"] * 8760 * owned["electricity_per_kwh"]
    fixed = sum(owned[key] for key in owned if key.endswith("_per_year"))
    energy_slope = (owned["power_kw"] - owned["idle_power_kw"]) * owned["pue"] * 8760 * owned["electricity_per_kwh"]
    return (capital + energy_idle + fixed) / (8 * 8760 * price_per_gpu_hour - energy_slope)


def test_changing_a_price_redraws_the_headline_and_the_chart(page, live_server, analyst, scenario):
    lambda_option = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.wait_for_function("() => document.getElementById('chart-annual_cost')?.data !== undefined")
    assert "61.7%" in page.inner_text("#card-break-even")  # 3.99/GPU-hour, before the change

    expected = f"{owned_break_even(6.0) * 100:.1f}%"
    assert expected == "40.6%"
    field = page.locator(f"#f-o{lambda_option.pk}-price_per_gpu_hour-input")
    field.fill("6")
    field.press("Tab")
    page.wait_for_function(
        "(text) => document.getElementById('card-break-even').innerText.includes(text)", arg=expected
    )
    assert f"breaks even above {expected} utilization" in page.inner_text("#headline")
    # The annual-cost chart was redrawn from the new run: the rental's line ends at 8 GPUs x 8,760 h x $6.
    # The swapped-in chart element has no data until htmx settles and charts.js draws it, so look for it
    # without throwing in between.
    page.wait_for_function(
        "() => (document.getElementById('chart-annual_cost')?.data || []).some("
        "t => t.name.startsWith('Lambda') && t.y[t.y.length - 1] === 420480)"
    )
    assert page.locator("#results .status-done").count() == 1


def test_a_bad_value_shows_the_engines_message_next_to_the_field(page, live_server, analyst, scenario):
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    field = page.locator(f"#f-o{owned.pk}-capex-input")
    field.fill("-5")
    field.press("Tab")
    error = page.locator(f"#err-o{owned.pk}-capex")
    error.wait_for(state="visible")
    assert error.inner_text() == "Own 8x H100 (new) → Capex, whole option (USD) must not be negative; got -5"
    assert "stale" not in page.get_attribute("#answer", "class")  # nothing was saved: the answer is still current
    assert "Renting Lambda 8x H100 SXM" in page.inner_text("#headline")
    assert page.input_value("#scenario-version") == "1"


def test_a_price_imported_on_the_market_page_can_be_picked_for_an_option(
    page, live_server, analyst, scenario, tmp_path
):
    from pricing.services import reference_data_load

    reference_data_load(path=ROOT / "fixtures" / "reference.json")
    prices = tmp_path / "nebius-2026-10.csv"
    prices.write_text(
        "provider,provider_kind,gpu_model,gpus_per_instance,offering,region,pricing_term,"
        "price_per_instance_hour,price_per_gpu_hour,currency,observed_on,source_url\n"
        "Nebius,neocloud,H100 SXM,8,gpu-h100-sxm 8gpu,eu-north1,on_demand,,2.95,USD,2026-10-15,"
        "https://nebius.com/prices\n"
    )
    lambda_option = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/market/import/")
    page.set_input_files("input[name=file]", str(prices))
    page.get_by_role("button", name="Import", exact=True).click()
    page.wait_for_url(re.compile(r".*/market/snapshots/\d+/"))
    # In scale-out mode the worker imports it a moment later; the page polls until it has.
    page.locator("#snapshot-status .status-imported").wait_for()

    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    card = page.locator(f"#option-{lambda_option.pk}")
    card.locator("summary", has_text="Pick a price from the Market").click()
    card.locator("input[name=provider]").fill("nebius")
    use = card.locator("button", has_text="Use this price")
    use.wait_for()
    assert "$2.95" in card.locator(".picker-results").inner_text()
    use.click()
    page.locator(f"#provenance-{lambda_option.pk}", has_text="Nebius").wait_for()
    provenance = page.inner_text(f"#provenance-{lambda_option.pk}")
    assert "Price from the Market: Nebius · gpu-h100-sxm 8gpu · eu-north1 · On demand · as of 2026-10-15" in provenance
    assert page.input_value(f"#f-o{lambda_option.pk}-price_per_gpu_hour-input") == "2.95"
    option = ScenarioOption.objects.get(pk=lambda_option.pk)
    assert option.price_source["source_url"] == "https://nebius.com/prices"


def test_picking_the_maps_rental_redraws_the_map_against_its_prices(page, live_server, analyst):
    document = {
        **DESIGN_EXAMPLE,
        "options": [
            *DESIGN_EXAMPLE["options"],
            {"name": "GCP A3 High", "kind": "hyperscaler", "price_per_gpu_hour": 11.06, "billing": "on_demand"},
        ],
    }
    scenario = scenario_create_from_document(document=document, user=analyst)
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.wait_for_function("() => document.getElementById('chart-break_even_map')?.data !== undefined")

    page.select_option("#map-rental", "GCP A3 High")

    # The heatmap's rows are the chosen rental's price from 0.25x to 2.5x today's: up to 11.06 x 2.5.
    page.wait_for_function(
        "() => { const data = document.getElementById('chart-break_even_map')?.data;"
        " return !!data && Math.abs(data[0].y[data[0].y.length - 1] - 27.65) < 1e-9; }"
    )
    assert page.input_value("#map-rental") == "GCP A3 High"
    assert "GCP A3 High price" in page.text_content("#chart-box-break_even_map .gtitle")


def test_a_managed_model_api_option_picks_a_per_token_price_from_the_market(page, live_server, analyst, scenario):
    from tests.scenarios import factories

    factories.observation(provider="CoreWeave", price="6.16", offering="HGX H100")  # a GPU price: not listed
    factories.api_observation(provider="Amazon Bedrock", model="amazon.nova-2-lite-v1:0", input_price="0.30")
    api_option = ScenarioOption.objects.get(scenario=scenario, kind="api")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    card = page.locator(f"#option-{api_option.pk}")
    card.locator("summary", has_text="Pick a price from the Market").click()
    card.locator("input[name=gpu]").fill("nova")
    use = card.locator("button", has_text="Use this price")
    use.wait_for()
    listed = card.locator(".picker-results").inner_text()
    assert "amazon.nova-2-lite-v1:0" in listed and "HGX H100" not in listed
    use.click()
    page.locator(f"#provenance-{api_option.pk}", has_text="Amazon Bedrock").wait_for()
    provenance = page.inner_text(f"#provenance-{api_option.pk}")
    assert "Price from the Market: Amazon Bedrock · amazon.nova-2-lite-v1:0 · us-east-1 · On demand" in provenance
    assert page.input_value(f"#f-o{api_option.pk}-price_per_million_input_tokens-input") == "0.3"
    assert page.input_value(f"#f-o{api_option.pk}-price_per_million_output_tokens-input") == "2.5"
