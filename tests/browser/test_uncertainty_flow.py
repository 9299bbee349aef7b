"""Decisions under uncertainty in real Chromium: give a rental price a range with ±, run the simulation, see
the probability headline and the histogram, tornado and fleet-plan charts drawn."""

from __future__ import annotations

import re
import time
from decimal import ROUND_HALF_UP, Decimal

import pytest

from tco.models import InputRange, ScenarioOption, UncertaintyRun
from tco.services import scenario_create_from_document
from tests.browser.helpers import log_in
from tests.documents import DESIGN_EXAMPLE

pytestmark = [pytest.mark.browser]


@pytest.fixture
def page(page):
    page.set_default_timeout(20_000)
    return page


def test_a_range_then_a_run_shows_the_headline_and_the_charts(page, live_server, analyst):
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")

    disclosure = page.locator(f"#range-o{rental.pk}-price_per_gpu_hour")
    disclosure.locator("summary").click()
    disclosure.locator("input[name=low]").fill("3")
    disclosure.locator("input[name=likely]").fill("3.99")
    disclosure.locator("input[name=high]").fill("6")
    disclosure.get_by_role("button", name="Save range").click()
    page.wait_for_function(
        "(id) => document.querySelector(`#${id} .range-text`)?.innerText.includes('3.99')",
        arg=f"range-o{rental.pk}-price_per_gpu_hour",
    )
    saved = InputRange.objects.get(option=rental, field="price_per_gpu_hour")
    assert (float(saved.low), float(saved.likely), float(saved.high)) == (3.0, 3.99, 6.0)

    page.fill("#u-trials", "5000")
    page.click("#u-run")
    page.wait_for_selector("#u-headline")
    headline = page.inner_text("#u-headline")
    assert re.fullmatch(r"Owning is cheaper in \d{1,3} % of 5,000 trials", headline), headline
    run = UncertaintyRun.objects.get(scenario=scenario)
    assert run.status == "done" and run.progress == 1.0
    share = run.result["simulation"]["owned_minus_rental"]["probability_owning_cheaper"]
    whole = Decimal(str(share * 100)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    assert headline == f"Owning is cheaper in {whole} % of 5,000 trials"
    for key in ("outcome_histogram", "tornado", "fleet_plan"):
        page.wait_for_function(f"() => document.getElementById('u-chart-{key}')?.data !== undefined")
    assert "Owned baseline" in page.inner_text("#u-lanes-table")
    assert page.locator("#uncertainty").get_attribute("hx-trigger") is None  # polling has stopped


def test_the_run_button_is_disabled_and_says_running_while_the_run_is_sent(page, live_server, analyst):
    """In-process a large run answers only when it is done: meanwhile the button cannot be pressed twice and the
    panel says it is running (in both modes, while the request is in flight)."""
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    held = []
    page.route(re.compile(r".*/uncertainty/run/$"), lambda route: held.append(route))
    assert not page.locator("#u-running").is_visible()
    page.fill("#u-trials", "1000")
    page.click("#u-run")
    while not held:
        page.wait_for_timeout(50)
    assert page.locator("#u-run").is_disabled()
    assert page.locator("#u-running").is_visible() and "Running" in page.inner_text("#u-running")
    held[0].continue_()
    page.wait_for_selector("#u-headline")
    assert UncertaintyRun.objects.filter(scenario=scenario).count() == 1


def test_a_run_computed_by_its_own_request_shows_its_progress_until_its_answer(page, live_server, analyst, monkeypatch):
    """Without a worker the Run request computes the simulation itself; the page meanwhile shows the progress the
    run writes on its row (stage and percent), then the answer. Each progress report is slowed to make it visible."""
    from tco.services import uncertainty

    report = uncertainty._report
    monkeypatch.setattr(uncertainty, "_report", lambda *args: (time.sleep(0.25), report(*args)))
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.fill("#u-trials", "20000")
    page.click("#u-run")
    page.wait_for_function(
        "() => /Running: simulation · [1-9]\\d? %/.test(document.querySelector('#u-running')?.innerText || '')"
    )
    shown = page.locator("#u-running progress").evaluate("(bar) => [bar.value, bar.max]")
    assert 0 < shown[0] < 100 and shown[1] == 100
    page.wait_for_selector("#u-headline")
    assert UncertaintyRun.objects.get(scenario=scenario).status == "done"


def test_a_run_computed_by_its_own_request_can_be_cancelled_while_it_runs(page, live_server, analyst, monkeypatch):
    from tco.services import uncertainty

    report = uncertainty._report
    monkeypatch.setattr(uncertainty, "_report", lambda *args: (time.sleep(0.25), report(*args)))
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.fill("#u-trials", "20000")
    page.click("#u-run")
    page.click("#u-running #u-cancel")
    page.wait_for_selector("#u-cancelled")
    assert re.fullmatch(r"Cancelled at \d{1,2} %; .*", page.inner_text("#u-cancelled"))
    assert UncertaintyRun.objects.get(scenario=scenario).status == "cancelled"


def test_a_range_opened_by_keyboard_fetches_its_inputs_and_keeps_them_through_an_edit(page, live_server, analyst):
    """The page carries each "±" disclosure's summary only: its inputs come when it is opened (here with the
    keyboard), and an edit elsewhere, answered with the whole workspace, leaves the open disclosure and what was
    typed in it as they were."""
    scenario = scenario_create_from_document(document=DESIGN_EXAMPLE, user=analyst)
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")

    disclosure = page.locator(f"#range-o{owned.pk}-capex")
    assert disclosure.locator("input").count() == 0
    disclosure.locator("summary").focus()
    page.keyboard.press("Enter")
    low = disclosure.locator("input[name=low]")
    low.wait_for()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.name") == "low"  # the next stop is the range's first input
    low.fill("300,000")

    price = page.locator(f"#f-o{rental.pk}-price_per_gpu_hour-input")
    price.fill("4.25")
    price.press("Tab")
    page.wait_for_function("() => document.getElementById('workspace').dataset.version === '2'")
    page.wait_for_function(
        "(id) => !document.querySelector(`#${id}-inputs`).hasAttribute('data-lazy')", arg=f"range-o{owned.pk}-capex"
    )
    assert disclosure.evaluate("(element) => element.open")
    assert low.input_value() == "300,000"  # typed, not sent: kept

    disclosure.locator("input[name=likely]").fill("324,000")
    disclosure.locator("input[name=high]").fill("400,000")
    disclosure.get_by_role("button", name="Save range").click()
    page.wait_for_function(
        "(id) => document.querySelector(`#${id} .range-text`)?.innerText.includes('324,000')",
        arg=f"range-o{owned.pk}-capex",
    )
    saved = InputRange.objects.get(option=owned, field="capex")
    assert (saved.low, saved.likely, saved.high) == (300000, 324000, 400000)
    assert "(1 set)" in page.inner_text("#uncertainty")
    page.wait_for_function(
        "(id) => document.querySelector(`#${id} .range-actions`)?.innerText.includes('Clear')",
        arg=f"range-o{owned.pk}-capex",
    )  # its inputs were fetched again: now it can be cleared
