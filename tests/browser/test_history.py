"""The scenario's history in Chromium: older changes a page at a time, and a currency conversion's line, naming its
rate, its date and its source, still there after many later edits."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from pricing.models import ExchangeRate
from tco.selectors.history import HISTORY_PAGE
from tco.services import scenario_update_field
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser]

LATER_EDITS = 60  # more than two pages of lines after the conversion's


def _lines(page) -> list[str]:
    return page.locator("#history-list li").all_inner_texts()


def test_a_conversions_line_names_its_rate_and_stays_reachable_page_by_page(page, live_server, analyst, scenario):
    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date=date(2026, 11, 2), source="ECB euro reference rates"
    )
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    field = page.locator("#f-s-currency-input")
    field.fill("EUR")
    field.press("Tab")
    page.locator("#currency-convert").click()
    page.locator("#history-list li", has_text="Currency conversion").wait_for()
    # The converted page loads its decision panel by itself: the edits below wait for it (SQLite's tables are locked
    # while this thread writes).
    page.locator("#decision-panel h2#decision-panel-title").wait_for()

    scenario.refresh_from_db()
    for edit in range(LATER_EDITS):
        scenario = scenario_update_field(
            scenario=scenario,
            user=analyst,
            field="discount_rate",
            value=Decimal("0.09") if edit % 2 == 0 else Decimal("0.08"),
            expected_version=scenario.version,
        ).scenario
    page.reload()
    assert len(_lines(page)) == HISTORY_PAGE
    assert not any("Currency conversion" in line for line in _lines(page))

    pages = 1
    while not any("Currency conversion" in line for line in _lines(page)):
        more = page.get_by_role("button", name="Show older changes")
        assert more.count() == 1, f"no older page after {pages}, and no conversion line"
        more.click()
        pages += 1
        page.locator(f"#history-page-{pages}").wait_for()
    lines = _lines(page)
    assert pages >= 3 and len(lines) > (pages - 1) * HISTORY_PAGE
    # Newest first, page after page: each line is no newer than the one above it.
    times = page.locator("#history-list li time").evaluate_all("(nodes) => nodes.map((n) => n.dateTime)")
    assert times == sorted(times, reverse=True)
    conversion = next(line for line in lines if "Currency conversion" in line)
    assert "from USD to EUR at 1 USD = 0.925925925926 EUR" in conversion
    assert "ECB euro reference rates" in conversion and "2026-11-02" in conversion
    assert page.console_errors == []
