"""The Actuals page of a decision to own whose GPUs fell below its break-even: it shows plan against actual month by
month and the verdict in words, fits a phone 390 px wide (its wide tables scroll inside a visible, labelled box,
the page itself never), and prints the verdict and every table whole on A4."""

from __future__ import annotations

import io

import pytest

from tco.services.actuals import actuals_attach, actuals_check, actuals_import, rule_add
from tco.services.decisions import decision_record
from tests.browser.helpers import log_in
from tests.browser.test_leadership_media import A4_CONTENT_WIDTH

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

OWN = "Own 8x H100 (new)"
MONTHS = [f"2027-{m:02d}" for m in range(1, 10)]
MEASURED = [0.75] * 6 + [0.40] * 3  # the plan's 75 %, then below the 61.7 % break-even from July
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
    decision_record(scenario=scenario, user=analyst, option_name=OWN, rationale="Busy enough to own.")
    plan = actuals_attach(scenario=scenario, user=analyst, start_month="2027-01")
    rule_add(plan=plan, option_name=OWN, provider="Owned", resource="gpu-server-1")
    rule_add(plan=plan, option_name=OWN, provider="DCGM", resource="gpu-server-1")
    for month, share in zip(MONTHS, MEASURED, strict=True):
        owned = f"month,kind,amount,currency,description,resource\n{month},energy,812.40,USD,power,gpu-server-1\n"
        actuals_import(stream=io.BytesIO(owned.encode()), file_name=f"owned-{month}.csv")
        scrape = "\n".join(
            f'DCGM_FI_PROF_GR_ENGINE_ACTIVE{{gpu="{i}",UUID="GPU-{i}",Hostname="gpu-server-1"}} {share:.6f}'
            for i in range(8)
        )
        actuals_import(stream=io.BytesIO(scrape.encode()), file_name=f"dcgm-{month}.prom", month=month)
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
