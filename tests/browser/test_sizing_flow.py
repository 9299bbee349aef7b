"""An analyst starts from the workload in Chromium: picks a model and a latency target, types the traffic, sizes it
on the measured rows of two GPUs, applies the answer, and finds the scenario's figures equal to ``evaluate`` of the
document the database then holds, each sized figure with the measured row it came from."""

from __future__ import annotations

import pytest

from lib.formatting import format_money, format_unit_money
from lib.kinds import API_KINDS
from tco.documents import scenario_document
from tco.engine import evaluate
from tco.models import Scenario
from tests.browser.helpers import log_in
from tests.scenarios.sizing_fixtures import two_gpus

pytestmark = [pytest.mark.browser]


def _cell(page, table: str, row_text: str, column: int) -> str:
    row = page.locator(f"#{table} tbody tr", has_text=row_text).first
    return row.locator("td").nth(column).inner_text().strip()


def test_a_workload_sized_and_applied_gives_the_engines_figures_for_the_scenario(page, live_server, analyst, scenario):
    h100, h200 = two_gpus()
    scenario.options.filter(kind="owned").update(gpu_model=h100)
    scenario.options.filter(kind="neocloud").update(gpu_model=h200)
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.click("#sizing-link")
    page.wait_for_url(f"**/scenarios/{scenario.pk}/sizing/")

    # A value out of range is refused at its field; nothing is saved.
    page.select_option("#id_serving_language_model", "Llama-3.1-70B")
    page.fill("#id_serving_traffic", "10, 1000, 100\n1000000000, 1000, 100")
    page.click("#size-button")
    page.locator("#f-serving_traffic.invalid").wait_for()
    assert "line 2: Requests per second must be" in page.inner_text("#err-serving_traffic")
    assert Scenario.objects.get(pk=scenario.pk).serving_traffic == []

    page.fill("#id_serving_traffic", "10, 1000, 100")
    page.fill("#id_serving_tpot_ms", "50")
    page.click("#size-button")
    page.locator("#sizing-headline").wait_for()
    assert page.inner_text("#sizing-headline").startswith("Serve it on 1 H200 SXM")
    assert "h200 run (2026-08-01)" in page.inner_text("#gpu-h200-sxm")
    page.wait_for_function("() => document.querySelector('[data-figure=\"figure-sizing\"]')?.data !== undefined")

    page.set_viewport_size({"width": 390, "height": 900})  # a phone: the page fits, its tables scroll in their box
    page.reload()
    page.wait_for_function("() => document.querySelector('[data-figure=\"figure-sizing\"]')?.data !== undefined")
    wide = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 392)"
        ".slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)"
    )
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, wide
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.emulate_media(media="print")  # on paper: the configuration and the answer, no buttons
    assert page.is_visible("#serving-form") and page.is_visible("#sizing-headline")
    assert not page.is_visible("#apply-button") and not page.is_visible("#size-button")
    page.emulate_media(media="screen")

    page.click("#apply-button")
    page.wait_for_url(f"**/scenarios/{scenario.pk}/")
    stored = Scenario.objects.get(pk=scenario.pk)
    page.wait_for_function(
        "(v) => document.querySelector('#results .status-done') !== null"
        " && document.getElementById('results').innerText.includes('version ' + v + ',')",
        arg=stored.version,
    )
    owned = stored.options.get(kind="owned")
    assert (stored.fleet_gpus, owned.gpu_count) == (1, 2)
    assert "h100 run (2026-08-01)" in page.inner_text(f"#sized-{owned.pk}")
    assert "From sizing Llama-3.1-70B on H200 SXM" in page.inner_text("#sized-scenario")

    result = evaluate(scenario_document(stored))
    assert page.inner_text("#card-cheapest") == result["cheapest"]
    for figures in result["options"]:  # every option's row is the engine's for the sized scenario
        name = figures["name"]
        assert _cell(page, "option-table", name, 2) == format_money(figures["npv"]), name
        assert _cell(page, "option-table", name, 4) == format_money(figures["annual_cost"]), name
        # A managed API has no busy GPU-hour to be priced per: the page shows a dash where the engine has a figure.
        per_hour = None if figures["kind"] in API_KINDS else figures["cost_per_gpu_hour"]
        assert _cell(page, "option-table", name, 5) == format_unit_money(per_hour), name
    assert page.console_errors == []
