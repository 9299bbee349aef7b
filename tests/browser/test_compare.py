"""Comparing four scenarios (one in euros, one over 60 months) in Chromium: one currency, the rate named, the
horizons warned about, and the twelve cumulative-cost lines drawn in four panels with the legend below them."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pricing.models import ExchangeRate
from tco.services import scenario_create_from_document
from tests.browser.helpers import log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]


def test_four_scenarios_compare_in_one_currency_in_readable_panels(page, live_server, analyst, scenario):
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date=date(2026, 11, 2), source="ECB euro reference rates"
    )
    others = [
        scenario_create_from_document(document={**DESIGN_EXAMPLE, **changes}, user=analyst)
        for changes in (
            {"name": "Berlin plan", "currency": "EUR"},
            {"name": "Five years", "horizon_months": 60},
            {"name": "Cheaper capital", "discount_rate": 0.05},
        )
    ]
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    log_in(page, live_server, analyst)
    query = "&".join(f"s={s.pk}" for s in (scenario, *others))
    page.goto(f"{live_server.url}/scenarios/compare/?{query}")
    page.wait_for_function("() => document.getElementById('compare-cumulative')?.data !== undefined")

    said = page.inner_text("#compare-currency")
    assert "Every amount is in USD." in said
    rate = "1 EUR = 1.08 USD (ECB euro reference rates, 2026-11-02)"
    assert f"Berlin plan: EUR amounts converted to USD at {rate}" in said
    assert "36 vs 60 months: totals cover different periods" in page.inner_text("#compare-horizons")
    assert "EUR" not in page.inner_text("#compare-npv") and "EUR" not in page.inner_text("#compare-annual")

    drawn = page.evaluate(
        """() => {
          const chart = document.getElementById('compare-cumulative');
          const panels = [...chart.querySelectorAll('.cartesianlayer .subplot')].map(p => p.getBoundingClientRect());
          const legend = chart.querySelector('.legend').getBoundingClientRect();
          return {lines: chart.data.length, panels: panels.length,
                  lowest: Math.max(...panels.map(p => p.bottom)), legendTop: legend.top,
                  legendBottom: legend.bottom, chartBottom: chart.getBoundingClientRect().bottom};
        }"""
    )
    assert drawn["lines"] == 12 and drawn["panels"] == 4
    assert drawn["legendTop"] >= drawn["lowest"]  # the legend is outside the plots, below them
    assert drawn["legendBottom"] <= drawn["chartBottom"] + 1  # and not cut off
    assert errors == []
