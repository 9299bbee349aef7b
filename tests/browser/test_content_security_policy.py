"""The Content-Security-Policy in real Chromium: the scenario workspace and a decision link work with no
violation (plotly draws and redraws, htmx swaps, the new link's URL is selected on focus by static/js/app.js)."""

from __future__ import annotations

import pytest

from tco.models import ScenarioOption
from tco.services import scenario_create_from_document
from tests.browser.helpers import log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]

# Runs before any page script and outside the page's CSP: collects every violation the page reports.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""
CHARTS_DRAWN = (
    "() => [...document.querySelectorAll('[data-figure]')].length > 0"
    " && [...document.querySelectorAll('[data-figure]')].every((el) => el.querySelector('.main-svg'))"
)


@pytest.fixture
def page(page):
    page.add_init_script(RECORD_VIOLATIONS)  # for every page the tab opens from now on
    return page


def test_the_workspace_and_a_decision_link_run_under_the_policy(page, live_server, analyst):
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)

    response = page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    directives = dict(part.strip().split(" ", 1) for part in response.headers["content-security-policy"].split(";"))
    assert directives["script-src"] == "'self'"
    page.wait_for_function(CHARTS_DRAWN)
    page.hover("#chart-annual_cost .nsewdrag")  # plotly's hover labels
    field = page.locator(f"#f-o{rental.pk}-price_per_gpu_hour-input")
    field.fill("6")
    field.press("Tab")
    page.wait_for_function("() => document.getElementById('card-break-even').innerText.includes('40.6%')")
    page.wait_for_function(CHARTS_DRAWN)

    page.get_by_role("button", name="Create decision link").click()
    link = page.locator("#new-link-url")
    link.focus()
    selected = page.evaluate(
        "() => { const el = document.getElementById('new-link-url'); "
        "return el.value.substring(el.selectionStart, el.selectionEnd); }"
    )
    assert selected == link.input_value()
    assert "/d/" in selected

    page.goto(selected)
    page.wait_for_function(CHARTS_DRAWN)
    assert page.evaluate("() => window.__cspViolations") == []
