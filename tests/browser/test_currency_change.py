"""Changing the scenario's currency in Chromium: the page asks, converts at the named rate, and every label follows."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pricing.models import ExchangeRate
from tco.models import Scenario, ScenarioOption
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser]


def test_changing_the_currency_converts_every_money_input_at_the_named_rate(page, live_server, analyst, scenario):
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date=date(2026, 11, 2), source="ECB euro reference rates"
    )
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.wait_for_function("() => document.getElementById('chart-annual_cost')?.data !== undefined")

    field = page.locator("#f-s-currency-input")
    field.fill("EUR")
    field.press("Tab")
    question = page.locator("#currency-question")
    question.wait_for(state="visible")
    assert "Change the currency from USD to EUR?" in question.inner_text()
    assert Scenario.objects.get(pk=scenario.pk).currency == "USD"  # nothing saved before the answer

    convert = page.locator("#currency-convert")
    assert convert.inner_text() == "Convert at 1 USD = 0.925925925926 EUR (ECB euro reference rates, 2026-11-02)"
    convert.click()
    page.wait_for_function(
        "() => document.querySelector('label[for=f-s-burst_price_per_gpu_hour-input]')?.innerText.includes('EUR')"
    )
    capex = page.locator(f"#f-o{owned.pk}-capex-input")
    assert capex.input_value() == "296,296.3"  # 320,000 * 1/1.08 (the rate named on the button), to the cent
    assert "Capex, whole option (EUR)" in page.inner_text(f"#f-o{owned.pk}-capex")
    page.wait_for_function("() => document.getElementById('option-table')?.innerText.includes('EUR')")
    assert "USD" not in page.inner_text("#option-table")
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.currency, fresh.version) == ("EUR", 2)
