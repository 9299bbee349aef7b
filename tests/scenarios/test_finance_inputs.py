"""The finance inputs (docs/money-math.md "Finance depth") are scenario and option fields like the others: stored,
written to the document only when set, read back by the JSON import."""

from __future__ import annotations

import copy
import io
import json

import pytest
from django.db import models
from django.urls import reverse
from openpyxl import load_workbook

from tco.charts import snapshot as snapshot_output
from tco.documents import scenario_document
from tco.engine.catalogue import OPTION_FIELDS
from tco.models import Scenario, ScenarioOption
from tco.presentation.inputs import lower_first
from tco.services import scenario_create_from_document
from tco.services.decision_snapshots import snapshot_freeze
from tests.documents import DESIGN_EXAMPLE, finance_example

pytestmark = pytest.mark.django_db

FINANCE_OPTION_FIELDS = [entry for entry in OPTION_FIELDS if entry.finance]


def _round_trip(document: dict) -> dict:
    scenario = scenario_create_from_document(document=document, user=None)
    return scenario_document(Scenario.objects.get(pk=scenario.pk))


def test_a_document_with_every_finance_input_round_trips_exactly():
    document = finance_example()
    assert _round_trip(document) == document


def test_the_example_sets_every_finance_input():
    document = finance_example()
    given = {key for option in document["options"] for key in option} | set(document)
    assert {entry.name for entry in FINANCE_OPTION_FIELDS} | {"tax_rate", "cost_of_debt", "refresh_policy"} <= given


def test_an_option_without_finance_inputs_gives_exactly_todays_document():
    document = copy.deepcopy(DESIGN_EXAMPLE)
    exported = _round_trip(document)
    assert exported == document
    assert not {"tax_rate", "cost_of_debt", "refresh_policy"} & set(exported)


def test_the_lists_are_stored_as_json_and_the_choices_as_their_values():
    scenario = scenario_create_from_document(document=finance_example(), user=None)
    owned, secondary, rental = ScenarioOption.objects.filter(scenario=scenario)[:3]
    assert owned.resale_curve == [[0, 1], [12, 0.7], [36, 0.4], [60, 0.2]]
    assert rental.price_change_by_year == [-0.25, -0.1, 0]
    assert (owned.financing, secondary.lease_end, rental.after_term) == ("loan", "buyout", "on_demand")
    assert str(scenario.tax_rate.normalize()) == "0.21" and scenario.refresh_policy == "replace"


@pytest.mark.parametrize("entry", FINANCE_OPTION_FIELDS, ids=lambda entry: entry.name)
def test_each_finance_model_field_is_derived_from_its_entry(entry):
    field = ScenarioOption._meta.get_field(entry.name)
    expected = {
        "list": models.JSONField,
        "choice": models.CharField,
        "count": models.PositiveIntegerField,
    }.get(entry.value_type, models.DecimalField)
    assert isinstance(field, expected)
    assert field.blank and (field.null or entry.value_type == "choice")
    if entry.value_type == "choice":
        assert list(field.choices) == list(entry.choices)
        assert field.max_length >= max(len(value) for value, _ in entry.choices)


# --- Exports and decision snapshots keep them ----------------------------------------------------------------------


@pytest.fixture
def finance_scenario(editor, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        created = scenario_create_from_document(document=finance_example(), user=editor)
    created.refresh_from_db()
    return created


def test_the_workbook_lists_every_finance_input_with_its_unit_in_words(viewer_client, finance_scenario):
    response = viewer_client.get(reverse("tco:scenario_export_results", args=[finance_scenario.pk, "results.xlsx"]))
    book = load_workbook(io.BytesIO(response.content))
    inputs = {
        (row[0], row[2]): (row[3], row[4]) for row in book["Inputs in words"].iter_rows(min_row=2, values_only=True)
    }
    owned, leased, rental = "Own 8x H100 (new)", "Leased 8x H100 (secondary)", "Lambda 8x H100 SXM"
    assert inputs[("scenario", "tax rate")] == (0.21, "fraction")
    assert inputs[("scenario", "cost of debt")] == (0.06, "fraction per year")
    assert inputs[("scenario", "refresh policy")] == ("Replace at the end of the useful life", None)
    assert inputs[(owned, "loan APR")] == (0.07, "fraction per year")
    assert inputs[(owned, "loan term")] == (48, "months")
    curve = "100% at 0 months, 70% at 12 months, 40% at 36 months, 20% at 60 months"
    assert inputs[(owned, "resale curve")] == (curve, "age in months: share of the price")
    assert inputs[(leased, "tax depreciation")] == ("MACRS 5-year", None)
    assert inputs[(leased, "lease payment")] == (27000, "USD per payment")
    assert inputs[(leased, "lease buyout price")] == (30000, "USD")
    assert inputs[(rental, "price change by year")][0] == "\u221225%, \u221210%, then 0% a year"
    assert inputs[(rental, "on-demand price")] == (4.5, "USD per GPU-hour")
    assert inputs[(rental, "after a term")] == ("Fall back to on demand", None)
    every = {lower_first(entry.label) for entry in FINANCE_OPTION_FIELDS}
    assert every <= {label for _, label in inputs}
    # Inputs that do not apply are not listed: the loan has no lease terms.
    assert (owned, "lease payment") not in inputs and (leased, "loan APR") not in inputs
    assert (owned, "residual value") not in inputs  # its resale curve sets it
    assert (rental, "price change") not in inputs  # its price path by year replaces it


def test_a_decision_snapshot_keeps_the_finance_inputs_and_its_document_imports_back(finance_scenario, editor):
    snapshot = snapshot_freeze(scenario=finance_scenario, user=editor, output=snapshot_output)
    frozen = json.loads(snapshot.content)["document"]
    assert frozen == scenario_document(Scenario.objects.get(pk=finance_scenario.pk)) == finance_example()
    assert _round_trip(frozen) == finance_example()
