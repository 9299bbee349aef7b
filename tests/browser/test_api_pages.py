"""The API's pages in real Chromium: the interactive docs draw every operation from the vendored swagger-ui under
the Content-Security-Policy, and the token page makes a token at a phone's width."""

from __future__ import annotations

import pytest

from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


def test_the_docs_draw_every_operation_under_the_policy(page, live_server, transactional_db):
    page.add_init_script(RECORD_VIOLATIONS)
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{live_server.url}/api/v1/docs")
    page.wait_for_selector(".opblock-summary-path")
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/api/v1/evaluate" in path for path in paths) and any("/api/v1/prices" in path for path in paths)
    assert page.evaluate("() => window.__cspViolations") == []
    assert all(url.startswith(live_server.url) or url.startswith("data:") for url in requested)  # nothing from a CDN


def test_a_token_is_made_on_the_page_at_a_phones_width(page, live_server, analyst):
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/account/api-tokens/")
    page.get_by_label("Name").fill("capacity notebook")
    page.get_by_label("Scope").select_option("write")
    page.get_by_role("button", name="Create token").click()
    token = page.get_by_role("textbox", name="Token", exact=True).input_value()
    assert token.startswith("gpc_")
    assert page.get_by_role("cell", name="capacity notebook", exact=True).is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
