"""An edit the server saved whose answer never reached the page (its web worker died, the connection dropped): the
page finds the saved version by itself, without a reload, and shows the saved value and the current answer; an
edit that was not saved keeps what was typed and says so."""

from __future__ import annotations

import re

import pytest

from tco.models import Scenario, ScenarioOption
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser]
FIELD = re.compile(r".*/scenarios/\d+/options/\d+/field/$")
# Counts the answers the workspace's own requests (the page asking what the server holds) have had, once handled.
ASKED_JS = """() => { window.askedWhatIsSaved = 0; document.addEventListener('htmx:afterRequest', (event) => {
  if (event.detail.elt.id === 'workspace') window.askedWhatIsSaved += 1; }); }"""


def _lose_answers(page, *, saved: bool) -> list[str]:
    """The next edit's answer is lost: the server gets the edit (or, ``saved=False``, not even that) and the page
    sees a dropped connection."""
    lost = []

    def handle(route):
        if saved:
            route.fetch()  # the server commits the edit and answers; the answer never arrives
        lost.append(route.request.url)
        route.abort("connectionreset")
        page.unroute(FIELD)

    page.route(FIELD, handle)
    return lost


def _edit_capex(page, owned: ScenarioOption, text: str) -> None:
    capex = page.locator(f"#f-o{owned.pk}-capex-input")
    capex.fill(text)
    capex.press("Tab")


def test_an_edit_saved_whose_answer_was_lost_shows_as_saved_with_its_answer(page, live_server, analyst, scenario):
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    assert page.input_value("#scenario-version") == "1"
    lost = _lose_answers(page, saved=True)

    _edit_capex(page, owned, "350,000")

    page.wait_for_function("() => document.getElementById('scenario-version').value === '2'", timeout=8_000)
    assert lost and Scenario.objects.get(pk=scenario.pk).version == 2
    page.wait_for_function(
        "() => /Up to date.*version 2,/.test(document.querySelector('#results .run-status').innerText)", timeout=8_000
    )
    assert page.input_value(f"#f-o{owned.pk}-capex-input") == "350,000"
    assert page.locator(".not-saved").count() == 0
    assert "not saved" not in (page.locator("#request-problem").all_inner_texts() or [""])[0]

    _edit_capex(page, owned, "360,000")  # the next edit is made on the saved version: no conflict
    page.wait_for_function("() => document.getElementById('scenario-version').value === '3'")
    assert ScenarioOption.objects.get(pk=owned.pk).capex == 360000


def test_an_edit_that_never_reached_the_server_keeps_what_was_typed_and_says_it_was_not_saved(
    page, live_server, analyst, scenario
):
    owned = ScenarioOption.objects.get(scenario=scenario, kind="owned")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    lost = _lose_answers(page, saved=False)
    page.evaluate(ASKED_JS)
    refresh = live_server.url + page.get_attribute("#workspace", "data-refresh-url")

    # The page asks the server what it holds (a second after the edit is lost) and takes its answer in.
    with page.expect_response(lambda response: response.url == refresh and response.request.method == "GET"):
        _edit_capex(page, owned, "350,000")
    page.wait_for_selector("#request-problem")
    page.wait_for_function("() => window.askedWhatIsSaved > 0 && !document.querySelector('.htmx-settling')")
    assert lost and Scenario.objects.get(pk=scenario.pk).version == 1
    assert page.input_value(f"#f-o{owned.pk}-capex-input") == "350,000"
    assert "not saved" in page.inner_text("#request-problem")
    assert page.input_value("#scenario-version") == "1"
