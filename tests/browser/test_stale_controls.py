"""No control offers older numbers as current, in Chromium: with an input blanked ("Waiting for 1 input") or an edit
not yet computed, the export box and "Decide for" say whose numbers they hold and ask before using them; with the
answer current they do not."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from tco import tasks
from tco.models import DecisionRecord, ScenarioOption
from tests.browser.helpers import log_in

pytestmark = [pytest.mark.browser]

RENTAL = "Lambda 8x H100 SXM"


def _csv(page, link) -> list[dict]:
    with page.expect_download() as download:
        link.click()
    return list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8-sig").read())))


def _option_labels(page) -> list[str]:
    return page.locator("#decide-option option").all_inner_texts()


def test_an_input_blanked_makes_the_exports_and_decide_for_say_they_rest_on_the_older_version(
    page, live_server, analyst, scenario
):
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.locator("#decide-option").wait_for()

    # Current: the box exports version 1 at once, and the cheapest option is named as such.
    assert page.locator("#exports-older").count() == 0 and page.locator("#decide-older").count() == 0
    assert "Version 1;" in page.inner_text("#exports")
    rows = {row["option"]: row for row in _csv(page, page.get_by_role("link", name="CSV per option", exact=True))}
    assert rows[RENTAL]["scenario version"] == "1" and "note" not in rows[RENTAL]
    assert f"{RENTAL} (cheapest)" in _option_labels(page)

    price = page.locator(f"#f-o{rental.pk}-price_per_gpu_hour-input")
    price.fill("")
    price.press("Tab")
    page.locator("#results .status-waiting", has_text="Waiting for 1 input").wait_for()

    older = page.locator("#exports-older")
    older.wait_for()
    assert "Version 2 cannot be computed" in older.inner_text()
    assert "numbers of version 1, which are older than these inputs" in older.inner_text()
    link = page.get_by_role("link", name="CSV per option (version 1)")
    assert not link.is_visible()  # behind the confirmation
    page.locator("#exports-confirm summary", has_text="Export version 1's numbers anyway").click()
    rows = {row["option"]: row for row in _csv(page, link)}
    assert rows[RENTAL]["scenario version"] == "1"
    assert rows[RENTAL]["note"] == "The scenario has changed since version 1 (now version 2)."
    with page.expect_download() as download:
        page.get_by_role("link", name="Excel workbook (version 1)").click()
    about = dict(
        row[:2]
        for row in load_workbook(io.BytesIO(download.value.path().read_bytes()))["About this file"].iter_rows(
            values_only=True
        )
    )
    assert about["scenario version"] == "1"
    assert about["note"] == "The scenario has changed since version 1 (now version 2)."

    assert not any("(cheapest)" in label for label in _option_labels(page))
    assert "The numbers on this page are version 1's; the inputs are now version 2" in page.inner_text("#decide-older")
    page.select_option("#decide-option", RENTAL)
    page.fill("#decide-rationale", "Renting is cheaper at the forecast.")
    page.get_by_role("button", name="Mark decided").click()
    page.locator("#err-decide-confirm-older", has_text="Record it anyway").wait_for()
    assert not DecisionRecord.objects.filter(scenario=scenario).exists()

    page.check("#decide-confirm-older")
    page.get_by_role("button", name="Mark decided").click()
    page.locator("#decision-current", has_text=f"Decided: {RENTAL}").wait_for()
    assert DecisionRecord.objects.get(scenario=scenario).scenario_version == 1
    assert "It was made on version 1; the scenario is now at version 2." in page.inner_text("#stale-decision")
    assert f"decided for {RENTAL} (version 1)" in page.inner_text("#decision-history")
    assert page.console_errors == []


def test_an_edit_not_yet_computed_is_exported_computed_and_decide_for_asks_to_confirm(
    page, live_server, analyst, scenario, monkeypatch
):
    """As with a busy worker: the edit is saved and queued, and its run has not started."""
    rental = ScenarioOption.objects.get(scenario=scenario, kind="neocloud")
    log_in(page, live_server, analyst)
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.locator("#decide-option").wait_for()
    monkeypatch.setattr(tasks.scenario_evaluate, "apply_async", lambda *args, **kwargs: None)

    price = page.locator(f"#f-o{rental.pk}-price_per_gpu_hour-input")
    price.fill("2.5")
    price.press("Tab")
    page.locator("#results .status-running", has_text="Recomputing").wait_for()
    page.locator("#decide-older").wait_for()

    assert not any("(cheapest)" in label for label in _option_labels(page))
    assert "The numbers on this page are version 1's; the inputs are now version 2 and have not been computed" in (
        page.inner_text("#decide-older")
    )
    # The files are computed for the inputs on the page when they are asked for: no older numbers to confirm.
    assert page.locator("#exports-older").count() == 0 and "Version 2;" in page.inner_text("#exports")
    rows = {row["option"]: row for row in _csv(page, page.get_by_role("link", name="CSV per option", exact=True))}
    assert rows[RENTAL]["scenario version"] == "2" and "note" not in rows[RENTAL]
    assert rows[RENTAL]["cost per busy GPU-hour (USD)"] == "2.5"  # a rental costs its price per busy GPU-hour
