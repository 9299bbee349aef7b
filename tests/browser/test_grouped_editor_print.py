"""The scenario page on paper prints its folded tax and financing inputs open: a closed disclosure's content would
not print (app.css hides a closed disclosure on paper), so static/js/app.js opens every [data-print-open] one to
print and closes it again afterwards. Checked with print media emulated, as the other print tests lay the page out,
and through a real print to PDF (which fires beforeprint and afterprint)."""

from __future__ import annotations

import pytest

from tests.browser.helpers import log_in
from tests.browser.test_grouped_editor import ANSWERED, financed  # noqa: F401 (a fixture)
from tests.browser.test_leadership_media import A4_CONTENT_WIDTH

pytestmark = [pytest.mark.browser]

# Runs before the page's scripts: at afterprint (before app.js closes them again) notes what was open on paper.
RECORD_PRINTED = """
window.__printedOpen = null;
window.addEventListener("afterprint", () => {
  window.__printedOpen = [...document.querySelectorAll("details.fold")].map((details) => details.open);
});
"""


def test_the_folded_finance_inputs_print_open_and_close_again_after(page, live_server, analyst, financed):  # noqa: F811
    scenario, owned, rental = financed
    page.add_init_script(RECORD_PRINTED)
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.wait_for_function(ANSWERED)
    loan_apr = page.locator(f"#f-o{owned.pk}-loan_apr-input")
    folded = [
        loan_apr,
        page.locator(f"#f-o{rental.pk}-commitment_term_months-input"),
        page.locator("#f-s-tax_rate-input"),
    ]
    assert not any(field.is_visible() for field in folded)

    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_CONTENT_WIDTH, "height": 1000})
    page.wait_for_function("() => [...document.querySelectorAll('details.fold')].every((details) => details.open)")
    assert all(field.is_visible() for field in folded)
    assert "Loan APR" in page.locator(f"#finance-{owned.pk}").inner_text() and loan_apr.input_value() == "7%"

    page.emulate_media(media="screen")  # back on screen, the groups are as the user left them
    page.wait_for_function("() => [...document.querySelectorAll('details.fold')].every((details) => !details.open)")

    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
    printed = page.evaluate("() => window.__printedOpen")
    assert printed and all(printed), printed  # every fold was open while the page printed
    assert not any(field.is_visible() for field in folded)
    assert not page.console_errors
