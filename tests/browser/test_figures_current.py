"""Every figure on the scenario page is the current version's, in Chromium: a "±" range summary follows its input
at once, in the input's own format, and a refused range says it was not saved."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tco.models import ScenarioOption
from tco.services.uncertainty import range_set
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser]


def test_a_range_summary_follows_its_input_at_once_with_thousands_separators(page, live_server, analyst, scenario):
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    range_set(
        scenario=scenario,
        user=analyst,
        expected_version=None,
        option=owned,
        field="capex",
        low=Decimal(288000),
        likely=Decimal(320000),
        high=Decimal(400000),
    )
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    summary = page.locator(f"#range-o{owned.pk}-capex > summary")
    assert summary.inner_text() == "± 288,000 · 320,000 · 400,000"

    capex = page.locator(f"#f-o{owned.pk}-capex-input")
    capex.fill("350,000")
    capex.press("Tab")  # the focus moves to the range's summary, which the answer must still update
    page.wait_for_function("() => document.getElementById('scenario-version').value === '3'")
    assert summary.inner_text() == "± 315,000 · 350,000 · 437,500"  # low and high keep their ratio to likely
    assert page.console_errors == []
