"""The editor's groups as the server renders them: the scenario's own inputs, the workload with the training plan, then
one group per option; the tax and financing inputs of the scenario and of each option folded in a closed disclosure
whose summary says what they hold, open whenever one of them needs the user's eyes (an error, a refused value, an
input still to fill in), never because of a value alone (the summary shows the values)."""

from __future__ import annotations

import copy

from django.urls import reverse

from tco.models import Scenario, ScenarioOption
from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE
from tests.scenarios.workspace_html import Workspace

HTMX = {"HTTP_HX_REQUEST": "true"}


def _create(editor, owned: dict | None = None, **top) -> tuple[Scenario, ScenarioOption]:
    document = {**copy.deepcopy(DESIGN_EXAMPLE), **top}
    document["options"][0].update(owned or {})
    scenario = scenario_create_from_document(document=document, user=editor)
    return scenario, ScenarioOption.objects.filter(scenario=scenario).order_by("position", "id").first()


def _page(client, scenario) -> tuple[Workspace, str]:
    html = client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode()
    return Workspace(html), html


def _is_open(page: Workspace, element_id: str) -> bool:
    return "open" in page.attrs(element_id)


def test_the_groups_come_in_order_scenario_workload_then_each_option(editor_client, editor):
    scenario, _ = _create(editor)
    page, html = _page(editor_client, scenario)
    options = [f"option-{pk}" for pk in scenario.options.order_by("position", "id").values_list("pk", flat=True)]
    ids = ["group-scenario", "finance", "forecast", "group-workload", "training", *options]
    positions = [html.index(f'id="{element_id}"') for element_id in ids]
    assert positions == sorted(positions)
    for element_id in ("group-scenario", "group-workload", *options):
        assert "group" in page.attrs(element_id)["class"].split(), element_id


def test_a_set_finance_group_is_closed_and_says_what_it_holds(editor_client, editor):
    owned_finance = {"financing": "loan", "loan_apr": 0.07, "loan_term_months": 48, "tax_depreciation": "macrs_5"}
    scenario, owned = _create(editor, owned_finance, tax_rate=0.21, refresh_policy="replace")
    page, _ = _page(editor_client, scenario)
    assert not _is_open(page, f"finance-{owned.pk}") and not _is_open(page, "finance")
    assert page.text(f"finance-{owned.pk}").startswith(
        "Tax and financing: MACRS 5-year, loan, loan APR 7% per year, loan term 48 months"
    )
    assert page.text("finance").startswith("Tax and financing: tax rate 21%, replace at the end of the useful life")
    assert page.text(f"finance-{owned.pk}-title") == "Tax and financing"
    assert "data-print-open" in page.attrs(f"finance-{owned.pk}")


def test_an_unset_finance_group_says_so(editor_client, editor):
    scenario, owned = _create(editor)
    page, _ = _page(editor_client, scenario)
    assert page.text(f"finance-{owned.pk}").startswith("Tax and financing (not set)")
    assert not _is_open(page, f"finance-{owned.pk}")


def test_a_stored_error_opens_its_group(editor_client, editor):
    lease = {"financing": "lease", "lease_payment": 27_000, "lease_payment_interval_months": 3, "lease_term_months": 36}
    scenario, owned = _create(editor, lease)
    ScenarioOption.objects.filter(pk=owned.pk).update(lease_term_months=48)  # data from before the rule
    page, _ = _page(editor_client, scenario)
    assert "longer than the horizon" in page.text(f"err-o{owned.pk}-lease_term_months")
    assert _is_open(page, f"finance-{owned.pk}")


def test_a_refused_value_keeps_its_group_open(editor_client, editor):
    lease = {"financing": "lease", "lease_payment": 27_000, "lease_payment_interval_months": 3, "lease_term_months": 36}
    scenario, owned = _create(editor, lease)
    url = reverse("tco:option_field", args=[scenario.pk, owned.pk])
    answer = editor_client.post(url, {"lease_term_months": "48", "version": scenario.version}, **HTMX)
    page = Workspace(answer.content.decode())
    assert "data-refused" in page.attrs(f"f-o{owned.pk}-lease_term_months")
    assert _is_open(page, f"finance-{owned.pk}")


def test_an_input_still_to_fill_in_opens_its_group(editor_client, editor):
    scenario, owned = _create(editor, {"financing": "loan"})  # a loan without its APR and term
    page, _ = _page(editor_client, scenario)
    assert "Loan APR" in page.text("to-complete")
    assert _is_open(page, f"finance-{owned.pk}")
    assert not _is_open(page, "finance")  # the scenario's own finance inputs lack nothing
