"""Every edit answers with the whole workspace as it now is: what the scenario still lacks is listed in the
page's own words, the results say what they wait for, and no part of the answer shows another version than the
rest (option headings, provenance, range counts, the stale-decision notice, the exports box, results, history)."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tco.models import Scenario, ScenarioOption
from tco.services import scenario_create, scenario_create_from_document
from tests.scenarios import factories
from tests.scenarios.workspace_html import Workspace

HTMX = {"HTTP_HX_REQUEST": "true"}
WORKLOAD = {
    "workload_tokens_per_second_per_gpu": "2,400",
    "workload_output_tokens_per_response": "350",
    "workload_input_tokens_per_response": "1,200",
    "workload_acceptance_rate": "90%",
}


def _post(client, url, data, version):
    return Workspace(client.post(url, {**data, "version": version}, **HTMX).content.decode())


def _scenario_field(client, scenario, name, text, version):
    return _post(client, reverse("tco:scenario_field", args=[scenario.pk]), {name: text}, version)


def _option_field(client, scenario, option, name, text, version):
    return _post(client, reverse("tco:option_field", args=[scenario.pk, option.pk]), {name: text}, version)


@pytest.mark.parametrize("seed", [7, 8])
def test_a_blank_scenarios_workload_is_entered_in_any_order_and_what_is_missing_is_listed(editor_client, editor, seed):
    scenario = scenario_create(user=editor, name="Blank")
    order = list(WORKLOAD)
    random.Random(seed).shuffle(order)
    for number, name in enumerate(order, start=1):
        page = _scenario_field(editor_client, scenario, name, WORKLOAD[name], number)
        assert page.version == number + 1 and page.error(f"s-{name}") == ""
        if "workload_output_tokens_per_response" not in order[:number]:
            assert "Workload → Output tokens per response" in page.text("to-complete")
    assert "Workload →" not in page.text("to-complete")
    assert "Options" in page.text("to-complete")  # all the blank scenario still lacks
    assert "Waiting for 1 input" in page.text("results")
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.workload_tokens_per_second_per_gpu, fresh.workload_acceptance_rate) == (2400, Decimal("0.9"))


def test_throughput_alone_says_output_tokens_are_missing_in_the_pages_words(editor_client, editor):
    scenario = scenario_create(user=editor, name="Blank")
    page = _scenario_field(editor_client, scenario, "workload_tokens_per_second_per_gpu", "2400", 1)
    assert "Workload → Output tokens per response" in page.text("to-complete")
    assert page.attrs("to-complete")  # a link to the input
    assert "Waiting for 2 inputs" in page.text("results")  # the output tokens and an option


def test_a_rental_without_its_price_is_listed_with_the_options_name_and_the_price_label(editor_client, editor):
    scenario = scenario_create(user=editor, name="Blank")
    url = reverse("tco:option_add", args=[scenario.pk])
    page = _post(editor_client, url, {"kind": "neocloud"}, 1)
    assert "Neocloud rental → Price (USD per GPU-hour)" in page.text("to-complete")
    option = scenario.options.get()
    page = _option_field(editor_client, scenario, option, "price_per_gpu_hour", "2.49", 2)
    assert not page.has("to-complete")


def test_a_typed_price_replaces_the_market_provenance_in_the_same_answer(editor_client, scenario, editor):
    from tco.services import option_pick_price

    rental = scenario.options.get(kind="neocloud")
    option_pick_price(option=rental, user=editor, expected_version=1, observation=factories.observation(price="3.49"))
    page = _option_field(editor_client, scenario, rental, "price_per_gpu_hour", "2.49", 2)
    assert page.text(f"provenance-{rental.pk}") == "Typed-in price: no Market source."


def test_a_renamed_option_has_its_new_heading_in_the_same_answer(editor_client, scenario):
    rental = scenario.options.get(kind="neocloud")
    page = _option_field(editor_client, scenario, rental, "name", "Lambda on demand", 1)
    assert page.text(f"option-{rental.pk}-title").endswith("Lambda on demand")
    assert page.value(f"o{rental.pk}-name") == "Lambda on demand"


def test_a_decision_made_before_an_edit_is_marked_stale_in_the_answer_to_the_edit(editor_client, scenario, editor):
    from tco.services.decisions import decision_record

    decision_record(scenario=scenario, user=editor, option_name="Lambda 8x H100 SXM", rationale="Cheapest")
    before = Workspace(editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode())
    assert not before.has("stale-decision")
    page = _scenario_field(editor_client, scenario, "fleet_gpus", "9", 1)
    assert "made on version 1; the scenario is now at version 2" in page.text("stale-decision")


def test_a_blank_scenarios_exports_box_says_there_is_nothing_to_export_after_an_edit(editor_client, editor):
    scenario = scenario_create(user=editor, name="Blank")
    page = _scenario_field(editor_client, scenario, "fleet_gpus", "16", 1)
    assert page.text("exports").startswith("Nothing to export yet.")
    assert "options.csv" not in str(page.attrs("exports"))
    answer = editor_client.get(reverse("tco:scenario_export_results", args=[scenario.pk, "options.csv"]))
    assert answer.status_code == 409  # what the box says


def test_results_of_an_earlier_version_are_shown_as_stale_with_what_they_wait_for(editor_client, scenario):
    owned = scenario.options.get(kind="owned")
    page = _option_field(editor_client, scenario, owned, "capex", "", 1)  # cleared: a gap, saved
    assert ScenarioOption.objects.get(pk=owned.pk).capex is None
    results = page.text("results")
    assert "Waiting for 1 input" in results
    assert "Own 8x H100 (new) → Capex, whole option (USD)" in results
    assert "the results below are for version 1" in page.text("stale-note")
    assert "stale" in page.attrs("answer")["class"]


def test_an_edits_queries_do_not_grow_with_the_number_of_options(editor_client, editor, example_document, run_jobs):
    def edit_queries(options: list[dict]) -> int:
        with run_jobs():
            scenario = scenario_create_from_document(document={**example_document, "options": options}, user=editor)
        editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk]))
        url = reverse("tco:scenario_field", args=[scenario.pk])
        with CaptureQueriesContext(connection) as queries, run_jobs():
            page = editor_client.post(url, {"discount_rate": "7%", "version": 1}, **HTMX)
        assert Workspace(page.content.decode()).version == 2
        return len(queries)

    options = example_document["options"]
    rentals = [{**options[1], "name": f"Rental {n}", "price_per_gpu_hour": 3 + n} for n in range(4)]
    assert edit_queries(options) == edit_queries([*options, *rentals])


def test_the_readmes_walk_through_quotes_what_the_page_says(editor_client, editor):
    """README → Scenarios describes the page as it behaves: each message it quotes is the page's, word for word."""
    from pathlib import Path

    from tco.demos import demo

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = " ".join(readme[readme.index("## Scenarios") : readme.index("## Decisions under uncertainty")].split())
    blank = scenario_create(user=editor, name="Blank")
    page = _scenario_field(editor_client, blank, "workload_tokens_per_second_per_gpu", "2400", 1)
    added = _post(editor_client, reverse("tco:option_add", args=[blank.pk]), {"kind": "neocloud"}, 2)
    quoted = {
        "Workload → Output tokens per response": page.text("to-complete"),
        "Options: add at least one way to own or rent capacity": page.text("to-complete"),
        "Neocloud rental → Price (USD per GPU-hour)": added.text("to-complete"),
    }
    scenario = scenario_create_from_document(document=demo("01-h100-inference-own-vs-rent").document, user=editor)
    owned = scenario.options.get(kind="owned")
    refused = _option_field(editor_client, scenario, owned, "capex", "-5", 1)
    quoted["Own 8\u00d7 H100 SXM (new) → Capex, whole option (USD) must not be negative; got -5"] = refused.error(
        f"o{owned.pk}-capex"
    )
    for quote, shown in quoted.items():
        assert f"“{quote}”" in section or f'"{quote}"' in section, quote
        assert quote in shown, (quote, shown)
