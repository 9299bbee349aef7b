"""The decision panel: "Decide for" offers the cheapest option first; a decision made on an older version says so."""

from __future__ import annotations

import re

from django.test import Client
from django.urls import reverse

from tco.charts import snapshot as snapshot_output
from tco.models import DecisionRecord
from tco.services import option_add, scenario_update_field
from tco.services.decisions import decision_record, link_create

HTMX = {"HTTP_HX_REQUEST": "true"}


def _panel(client, scenario) -> str:
    return client.get(reverse("tco:decision_panel", args=[scenario.pk]), **HTMX).content.decode()


def _selected(html: str) -> str:
    select = html[html.index('id="decide-option"') : html.index("</select>", html.index('id="decide-option"'))]
    return re.search(r'<option value="([^"]*)" selected>', select).group(1)


def test_decide_for_defaults_to_the_cheapest_option_not_the_first(editor_client, scenario):
    names = list(scenario.options.values_list("name", flat=True))
    cheapest = scenario.runs.get().result["cheapest"]
    assert names[0] != cheapest == "Lambda 8x H100 SXM"  # owning is listed first, renting is cheaper
    html = _panel(editor_client, scenario)
    assert _selected(html) == cheapest
    assert f"{cheapest} (cheapest)</option>" in html


def test_a_decision_keeps_its_option_selected_over_the_cheapest(editor_client, scenario, editor):
    decision_record(scenario=scenario, user=editor, option_name="Own 8x H100 (new)", rationale="Data stays with us.")
    assert _selected(_panel(editor_client, scenario)) == "Own 8x H100 (new)"


def test_a_decision_made_on_an_older_version_says_so_on_the_page_and_on_a_later_link(
    editor_client, scenario, editor, run_jobs
):
    decision_record(scenario=scenario, user=editor, option_name="Lambda 8x H100 SXM", rationale="Cheapest.")
    assert 'id="stale-decision"' not in _panel(editor_client, scenario)
    with run_jobs():
        scenario_update_field(scenario=scenario, user=editor, field="fleet_gpus", value=16, expected_version=1)
    html = _panel(editor_client, scenario)
    assert (
        "The inputs changed after this decision.</strong> It was made on version 1; the scenario is now at version 2."
        in html
    )
    _link, token = link_create(scenario=scenario, user=editor, output=snapshot_output, expires_in_days=30, note="")
    page = Client().get(reverse("decision_page", args=[token])).content.decode()
    assert (
        "The inputs changed after this decision.</strong> It was made on scenario version 1; "
        "the numbers in this brief are from version 2." in page
    )


def test_a_link_made_on_the_decided_version_shows_no_warning(scenario, editor, run_jobs):
    decision_record(scenario=scenario, user=editor, option_name="Lambda 8x H100 SXM", rationale="Cheapest.")
    _link, token = link_create(scenario=scenario, user=editor, output=snapshot_output, expires_in_days=30, note="")
    assert 'id="stale-decision"' not in Client().get(reverse("decision_page", args=[token])).content.decode()


def test_with_an_input_blanked_no_option_is_called_cheapest_and_deciding_asks_to_confirm(
    editor_client, scenario, editor, run_jobs
):
    cheapest = scenario.runs.get().result["cheapest"]
    with run_jobs():
        option_add(scenario=scenario, user=editor, expected_version=None, kind="neocloud")  # its price blank
    html = _panel(editor_client, scenario)
    assert "(cheapest)" not in html
    assert "The numbers on this page are version 1's; the inputs are now version 2" in html.replace("&#x27;", "'")
    decide = reverse("tco:decide", args=[scenario.pk])

    refused = editor_client.post(decide, {"option": cheapest, "rationale": "Cheapest."}, **HTMX).content.decode()
    assert "tick “Record it anyway”" in refused and not DecisionRecord.objects.exists()

    html = editor_client.post(
        decide, {"option": cheapest, "rationale": "Cheapest.", "confirm_older": "1"}, **HTMX
    ).content.decode()
    record = DecisionRecord.objects.get()
    # It rests on version 1's numbers, not on version 2's inputs: the record and the panel say so.
    assert (record.option_name, record.scenario_version) == (cheapest, 1)
    assert "It was made on version 1; the scenario is now at version 2." in html
