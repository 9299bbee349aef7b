"""Nothing breaks, in real Chromium: bad and fuzzed values never break the page or its exports, and an
export made right after an edit carries the numbers and version the page shows."""

from __future__ import annotations

import csv
import io

import pytest

from tco.documents import scenario_document
from tco.models import Scenario, ScenarioOption
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser]

BAD_HORIZONS = ["0", "-1", "32768", "1E999999999", "1,2,3", "\u0661\u0660", "twelve"]


def _export(tab, what: str) -> str:
    """Click the decision panel's export link; the downloaded file's text."""
    with tab.expect_download() as download:
        tab.click(f"#exports a[href*='{what}']")
    with open(download.value.path(), encoding="utf-8") as file:
        return file.read()


def _option_table(tab) -> dict[str, list[str]]:
    """The page's per-option table: option name → its cells as shown."""
    rows = tab.locator("#option-table tbody tr").all()
    cells = [[cell.inner_text() for cell in row.locator("td").all()] for row in rows]
    return {row[0].split("\n")[0]: row for row in cells}


def test_bad_and_fuzzed_horizons_are_refused_and_the_page_and_exports_keep_working(
    page, live_server, analyst, scenario
):
    log_in(page, live_server, analyst)
    url = f"{live_server.url}/scenarios/{scenario.pk}/"
    page.goto(url)
    field = page.locator("#f-s-horizon_months-input")
    for value in BAD_HORIZONS:
        field.fill(value)
        field.press("Tab")
        page.locator("#f-s-horizon_months.invalid").wait_for()
        assert page.inner_text("#err-s-horizon_months"), value
        assert "options[" not in page.inner_text("#err-s-horizon_months")
        field = page.locator("#f-s-horizon_months-input")

    assert Scenario.objects.get(pk=scenario.pk).horizon_months == 36  # nothing was stored
    response = page.goto(url)
    assert response.status == 200
    assert page.input_value("#f-s-horizon_months-input") == "36"
    assert page.inner_text("#help-s-horizon_months") == "A whole number from 1 to 240."
    page.locator("#exports a").first.wait_for()
    rows = list(csv.reader(io.StringIO(_export(page, "options.csv"))))
    assert rows[0][0] == "option" and len(rows) == 1 + len(scenario_document(scenario)["options"])


def test_an_export_right_after_an_edit_carries_the_version_and_numbers_on_the_page(
    page, live_server, analyst, scenario
):
    lambda_option = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.locator("#exports a").first.wait_for()
    before = _option_table(page)

    field = page.locator(f"#f-o{lambda_option.pk}-price_per_gpu_hour-input")
    field.fill("$6.00")
    field.press("Tab")
    page.wait_for_function("() => document.getElementById('scenario-version').value === '2'")
    page.wait_for_function("() => document.querySelector('#exports a').href.endsWith('version=2')")

    page.locator("#results .status-done").wait_for()
    shown = _option_table(page)
    header, *rows = csv.reader(io.StringIO(_export(page, "options.csv")))
    column = dict(zip(header, zip(*rows, strict=True), strict=True))
    assert column["scenario version"] == ("2",) * len(rows)
    for name, npv, annual in zip(
        column["option"], column["present value of cost (USD)"], column["annual cost (USD)"], strict=True
    ):
        assert shown[name][2] == f"${round(float(npv)):,}"  # the page's NPV, whole dollars
        assert shown[name][4] == f"${round(float(annual)):,}"
    assert shown[lambda_option.name][4] != before[lambda_option.name][4]  # the new price's numbers, not the old
