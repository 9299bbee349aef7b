"""The Actuals page of a decision to own whose GPUs fell below its break-even: it shows plan against actual month by
month and the verdict in words, fits a phone 390 px wide (its wide tables scroll inside a visible, labelled box,
the page itself never), and prints the verdict and every table whole on A4."""

from __future__ import annotations

import pytest

from tco.services.actuals import actuals_check
from tests.actuals.story import MONTHS, OWN, decide_and_attach, import_nine_months
from tests.browser.helpers import log_in
from tests.browser.test_leadership_media import A4_CONTENT_WIDTH

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# Elements whose right edge passes the viewport (a page wider than the phone).
PAST_THE_EDGE_JS = """(width) => [...document.querySelectorAll('body *')].filter((e) => e.getClientRects().length)
  .filter((e) => !e.closest('.table-wrap') && e.getBoundingClientRect().right > width + 1)
  .map((e) => `${e.tagName}#${e.id}.${e.className}`).slice(0, 5)"""
# Tables cut at their own box or past the page's edge, and scroll boxes that hide part of what they hold.
CUT_JS = """(width) => [...document.querySelectorAll('table, .table-wrap')].filter((t) => t.getClientRects().length)
  .filter((t) => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > width + 1)
  .map((t) => `${t.tagName}.${t.className} ${t.scrollWidth}>${t.clientWidth}`)"""


@pytest.fixture
def decided(analyst, scenario):
    """The worked example decided for owning over 24 months from January 2027, nine months of owned costs and DCGM
    scrapes imported and mapped, and the verdict worked out as the scheduled job does."""
    scenario.refresh_from_db()
    plan = decide_and_attach(scenario, analyst)
    import_nine_months()
    actuals_check(plan=plan, notify=False)
    return plan


def test_the_actuals_page_shows_plan_against_actual_and_the_verdict_on_a_phone_and_on_paper(
    page, live_server, analyst, decided
):
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{decided.scenario_id}/actuals/")
    verdict = page.inner_text(".verdict")
    assert verdict.startswith("No longer holds.")  # in words, not by colour
    assert "no longer holds since July 2027: utilization has been below the 61.7% break-even for 3 months" in verdict

    own = page.locator("section", has=page.locator("h2", has_text=f"{OWN} (decided)"))
    assert own.locator("thead").inner_text().count("Actual \u2212 plan") == 5  # plan, actual, variance per figure
    july = own.locator("tbody tr", has=page.locator("th", has_text="July 2027")).locator("td")
    # Cost: the 812.40 energy bill; utilization: 55 % planned, 40 % measured on each of the 8 GPUs.
    assert [july.nth(i).inner_text() for i in (1, 6, 7, 8)] == ["$812", "55.0%", "40.0%", "\u221215.0%"]
    assert own.locator("tbody tr").count() == len(MONTHS)

    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the page fits, wide tables scroll in a box
    page.reload()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert page.evaluate(PAST_THE_EDGE_JS, 390) == []
    wraps = page.evaluate(
        """() => [...document.querySelectorAll('.table-wrap')].filter((w) => w.scrollWidth > w.clientWidth + 1)
        .map((w) => { const box = w.getBoundingClientRect(); return {
          label: w.getAttribute('aria-label') || (document.getElementById(w.getAttribute('aria-labelledby') || '')
            || {}).textContent || '',
          role: w.getAttribute('role'), focusable: w.tabIndex >= 0, left: box.left, right: box.right,
          visible: box.width > 0 && box.height > 0 && getComputedStyle(w).visibility === 'visible' }; })"""
    )
    assert wraps, "at 390 px the 16-column tables need their scroll box"
    for wrap in wraps:  # a box that scrolls is seen, named and reachable from the keyboard
        assert wrap["visible"] and wrap["left"] >= 0 and wrap["right"] <= 391, wrap
        assert wrap["role"] == "region" and wrap["label"].strip() and wrap["focusable"], wrap

    page.set_viewport_size({"width": A4_CONTENT_WIDTH, "height": 1000})
    page.emulate_media(media="print")  # on paper: the verdict and every table whole, no forms
    assert page.is_visible(".verdict") and page.is_visible("#actuals-verdict")
    assert not page.is_visible("#actuals-file")
    tables = page.locator("table")
    assert tables.count() == 4 and all(tables.nth(i).is_visible() for i in range(4))
    assert page.evaluate(CUT_JS, A4_CONTENT_WIDTH) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= A4_CONTENT_WIDTH
    page.emulate_media(media="screen")
    assert page.console_errors == []
