"""No page logs an error or violates the Content-Security-Policy in Chromium: the scenario editor (loaded,
edited, a value refused, the price picker searched), the Market, a decision link and compare. htmx runs with eval
disallowed, so no code path may need it (an hx-trigger filter, hx-on, js: values would log an error here)."""

from __future__ import annotations

import pytest

from tco.charts import snapshot as snapshot_output
from tco.models import ScenarioOption
from tco.services import scenario_create_from_document
from tco.services.decisions import link_create
from tests.browser.helpers import log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]

RECORD = """
window.__problems = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__problems.push(`CSP ${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
for (const name of ["htmx:evalDisallowedError", "htmx:oobErrorNoTarget", "htmx:targetError", "htmx:swapError",
                    "htmx:responseError", "htmx:sendError", "htmx:onLoadError"]) {
  document.addEventListener(name, (event) => window.__problems.push(`${name} ${event.detail && event.detail.error}`));
}
"""


@pytest.fixture
def page(page):
    page.add_init_script(RECORD)  # for every page the tab opens from now on
    return page


def _clean(page) -> None:
    assert page.console_errors == []
    assert page.evaluate("() => window.__problems") == []


def test_the_editor_market_decision_link_and_compare_log_no_error(page, live_server, analyst):
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    other = scenario_create_from_document(document={**DESIGN_EXAMPLE, "name": "Other plan"}, user=analyst)
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    _, token = link_create(scenario=scenario, user=analyst, output=snapshot_output)
    log_in(page, live_server, analyst)

    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.wait_for_function("() => document.getElementById('chart-annual_cost')?.data !== undefined")
    page.locator("#decision-panel h2#decision-panel-title").wait_for()  # the panel loaded itself
    assert page.evaluate("() => htmx.config.allowEval") is False
    field = page.locator(f"#f-o{owned.pk}-capex-input")
    field.fill("-5")
    field.press("Tab")
    page.locator(f"#f-o{owned.pk}-capex[data-refused]").wait_for()
    price = page.locator(f"#f-o{rental.pk}-price_per_gpu_hour-input")
    price.fill("6")
    price.press("Tab")
    page.wait_for_function("() => document.getElementById('card-break-even').innerText.includes('40.6%')")
    card = page.locator(f"#option-{rental.pk}")
    card.locator("summary", has_text="Pick a price from the Market").click()
    card.locator("select[name=term]").select_option("spot")  # searches without an hx-trigger filter
    card.locator(".picker-results p").wait_for()
    page.get_by_role("button", name="Create decision link").click()
    page.locator("#new-link-url").wait_for()
    _clean(page)

    page.goto(f"{live_server.url}/market/")
    page.wait_for_load_state("networkidle")
    _clean(page)

    page.goto(f"{live_server.url}/d/{token}")
    page.wait_for_function("() => [...document.querySelectorAll('[data-figure]')].every((el) => el.data)")
    _clean(page)

    page.goto(f"{live_server.url}/scenarios/compare/?s={scenario.pk}&s={other.pk}")
    page.wait_for_load_state("networkidle")
    _clean(page)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"status": 503, "content_type": "text/html", "body": "<h1>This page took too long</h1>"}, "took too long"),
        ({"status": 500, "content_type": "text/html", "body": "<h1>Server error</h1>"}, "went wrong on our side"),
        ({"status": 400, "content_type": "text/plain", "body": "capex cannot be edited here."}, "cannot be edited"),
    ],
)
def test_an_edit_the_server_refuses_or_fails_says_so_instead_of_nothing(page, live_server, analyst, answer, said):
    """htmx swaps no error answer: without a word the page would look as if the edit had been saved."""
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.route(f"**/scenarios/{scenario.pk}/options/{owned.pk}/field/", lambda route: route.fulfill(**answer))

    field = page.locator(f"#f-o{owned.pk}-capex-input")
    field.fill("300,000")
    field.press("Tab")

    alert = page.locator("#request-problem")
    alert.wait_for()
    assert said in alert.inner_text() and "not saved" in alert.inner_text().lower()
