"""The finance inputs (docs/money-math.md "Finance depth") are scenario and option fields like the others: stored,
written to the document only when set, read back by the JSON import."""

from __future__ import annotations

import copy

import pytest
from django.db import models

from tco.engine.catalogue import OPTION_FIELDS
from tco.models import Scenario, ScenarioOption
from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE, finance_example

pytestmark = pytest.mark.django_db

FINANCE_OPTION_FIELDS = [entry for entry in OPTION_FIELDS if entry.finance]


def _round_trip(document: dict) -> dict:
    scenario = scenario_create_from_document(document=document, user=None)
    return Scenario.objects.get(pk=scenario.pk).to_document()


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
