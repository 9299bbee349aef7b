"""The scenario's inputs are catalogue entries (tco.engine.catalogue.SCENARIO_FIELDS): the model, the forms, the
editor, the exports, the history and the decision brief all read them, so an input has one label, one unit and one
way to write its value everywhere, and a new input is one entry."""

from __future__ import annotations

import html
import re
from decimal import Decimal

import pytest
from django.db import models
from django.template.loader import render_to_string
from django.urls import reverse

from tco.documents import scenario_document
from tco.engine import catalogue
from tco.engine.catalogue import RATE_HELP, SCENARIO_FIELDS, ScenarioField, scenario_fields
from tco.engine.errors import ScenarioError
from tco.engine.fields import rate_field
from tco.engine.validation import validate
from tco.exports import inputs_table
from tco.models import Scenario, ScenarioOption
from tco.presentation.history import field_words
from tco.presentation.inputs import flat_inputs, input_groups, lower_first, path_label, scenario_fact, value_words
from tco.selectors.history import tracked_fields
from tco.services import scenario_create_from_document
from tco.web.forms import ServingForm, scenario_input_form
from tco.web.viewmodels.fields import input_label, scenario_sections
from tests.documents import training_example
from tests.scenarios.workspace_html import Workspace

# The model fields of a scenario that are not inputs: its identity, its lock, its owner and its provenance (of
# its money and of what sizing wrote).
NOT_INPUTS = {"id", "version", "owner", "created_at", "updated_at", "currency_conversions", "sizing_applied"}
STORED = [entry for entry in SCENARIO_FIELDS if entry.stored]


@pytest.mark.parametrize("entry", STORED, ids=lambda entry: entry.field)
def test_each_model_field_has_the_catalogue_entrys_label_help_and_nullability(entry):
    field = Scenario._meta.get_field(entry.field)
    assert (field.verbose_name, field.help_text) == (entry.label, entry.help)
    if entry.value_type in ("money", "rate", "number"):
        assert isinstance(field, models.DecimalField) and field.null is not entry.never_blank
    elif entry.value_type == "count":
        assert isinstance(field, models.PositiveIntegerField | models.PositiveSmallIntegerField)
        assert field.null is not entry.never_blank
    elif entry.value_type == "choice":
        assert list(field.choices) == list(entry.choices)
        assert (field.default if field.has_default() else None) == entry.initial


def test_every_input_the_model_stores_is_catalogued():
    stored = {field.name for field in Scenario._meta.concrete_fields} - NOT_INPUTS
    assert stored == {entry.field for entry in STORED}


def test_a_new_blank_scenario_starts_from_each_entrys_initial_value(editor_client):
    editor_client.post(reverse("tco:scenario_new"), {"name": "Blank"})
    created = Scenario.objects.get(name="Blank")
    for entry in scenario_fields():
        if entry.initial is not None:
            assert getattr(created, entry.field) == entry.initial, entry.field


# --- A new input is one entry -----------------------------------------------------------------------------------

SPARES = ScenarioField(
    "spares_share",
    "scenario",
    "rate",
    label="Spares share",
    unit="fraction",
    check=rate_field(default=0.0),
    default_text="0",
    help="GPUs kept aside as spares.",
)


@pytest.fixture
def with_spares(monkeypatch):
    """The catalogue with one more scenario input, as a developer adding it would write it."""
    monkeypatch.setattr(catalogue, "SCENARIO_FIELDS", (*catalogue.SCENARIO_FIELDS, SPARES))
    monkeypatch.setitem(catalogue.SCENARIO_FIELD, SPARES.field, SPARES)
    scenario_input_form.cache_clear()
    yield
    scenario_input_form.cache_clear()


def test_a_new_entry_is_an_input_of_the_edit_form(with_spares):
    form = scenario_input_form()({"spares_share": "5%", "version": "1"})
    assert form.name == "spares_share" and form.is_valid()
    assert form.value == Decimal("0.05")


def test_a_new_entry_is_an_input_of_the_editor(scenario, with_spares):
    scenario.spares_share = Decimal("0.05")
    basics, _ = scenario_sections(scenario, {})
    view = next(view for view in basics if view.name == "spares_share")
    html = render_to_string("tco/scenario_detail.html#field", {"f": view, "can_edit": True})
    page = Workspace(html)
    assert page.value("s-spares_share") == "5%"
    assert page.text("f-s-spares_share").startswith("Spares share")
    assert SPARES.help in view.help and RATE_HELP in view.help and view.inputmode == "decimal"


def test_a_new_entry_is_in_the_document_the_exports_the_brief_the_comparison_and_the_history(scenario, with_spares):
    scenario.spares_share = Decimal("0.05")
    document = scenario_document(scenario)
    assert document["spares_share"] == 0.05
    rows = {row["key"]: row for row in input_groups(document)[0]["rows"]}  # the decision brief's inputs
    assert (rows["spares_share"]["title"], rows["spares_share"]["text"]) == ("Spares share", "5%")
    assert ["scenario", "", "spares share", 0.05, "fraction"] in inputs_table(document).rows
    assert flat_inputs(document)["spares_share"] == ("Spares share", "5%")
    fact = scenario_fact("spares_share")  # what a history line of the field says
    assert (fact.label, value_words(fact, Decimal("0.05"), "USD"), value_words(fact, None, "USD")) == (
        "Spares share",
        "5%",
        "0 (default)",
    )


# --- One label, one unit, one format on every page ----------------------------------------------------------------

# The forecast's parameters are shown as the utilization they expand to; the serving configuration is not part of the
# document (sizing reads it and writes its answer into the inputs), so it has its own page: checked further down.
SHOWN = [entry for entry in STORED if entry.scope in ("scenario", "workload") and entry.value_type != "text"]


@pytest.mark.parametrize("entry", SHOWN, ids=lambda entry: entry.field)
def test_an_input_has_the_same_label_unit_and_words_on_every_page(entry, editor_client, scenario):
    page = Workspace(editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode())
    editor_label = page.text(f"f-s-{entry.field}")
    document = scenario_document(scenario)
    groups = input_groups(document)
    rows = {(group["title"], row["key"]): row for group in groups for row in group["rows"]}
    row = rows[("Workload" if entry.scope == "workload" else "Scenario", entry.name)]
    history = {field.attname: field_words(field) for field in tracked_fields(Scenario)}
    label, shown = history[entry.field]
    compared = flat_inputs(document)[entry.path]
    value = getattr(scenario, entry.field)

    assert editor_label.startswith(entry.label)  # the editor, then its unit: "Horizon (months)"
    assert row["title"] == label == entry.label  # the decision brief and the exports; the history
    assert compared[0].removeprefix("Workload: ") == entry.label  # the comparison
    assert row["unit"] == entry.unit.replace("{c}", "USD")
    assert row["text"] == shown(value, "USD") == compared[1]  # the value, written one way
    if entry.takes_range:
        assert path_label(document, entry.path).removeprefix("Workload: ") == entry.label  # ranges and tornado


# An option's inputs read the same way (the finance example sets every option input on some option).
@pytest.mark.parametrize("entry", catalogue.OPTION_FIELDS, ids=lambda entry: entry.name)
def test_an_option_input_has_the_same_label_unit_and_words_on_every_page(entry, editor_client, editor):
    scenario = scenario_create_from_document(document=training_example(), user=editor)
    page = Workspace(editor_client.get(reverse("tco:scenario_detail", args=[scenario.pk])).content.decode())
    options = scenario.options.all()
    option = next(o for o in options if o.kind in entry.kinds and getattr(o, entry.name) not in (None, ""))
    document = scenario_document(scenario)
    rows = {(group["title"], row["key"]): row for group in input_groups(document) for row in group["rows"]}
    row = rows[(option.name, entry.name)]
    history = {field.attname: field_words(field) for field in tracked_fields(ScenarioOption)}
    label, shown = history[entry.name]
    compared = flat_inputs(document)[f"{option.name}: {entry.name}"]
    value = getattr(option, entry.name)

    assert page.text(f"f-o{option.pk}-{entry.name}").startswith(entry.label)  # the editor, then its unit
    assert row["title"] == label == entry.label  # the decision brief and the exports; the history
    assert compared[0] == f"{option.name}: {entry.label}"  # the comparison
    assert row["label"] == lower_first(entry.label)  # the spreadsheet's row
    assert row["unit"] == entry.unit.replace("{c}", "USD")
    assert row["text"] == shown(value, "USD") == compared[1]  # the value, written one way


# --- The message under an input says the editor's words ------------------------------------------------------------

TRAINING = list(catalogue.scenario_fields("training"))
CHECKED = [entry for entry in (*SHOWN, *TRAINING, *catalogue.OPTION_FIELDS) if entry.check is not None]


@pytest.mark.parametrize("entry", CHECKED, ids=lambda entry: f"{type(entry).__name__}-{entry.name}")
def test_a_refused_value_is_named_by_the_inputs_label_and_unit_as_the_editor_shows_them(entry):
    document = training_example()  # every input set somewhere: the finance example, a training plan, a block
    document["currency"] = "EUR"
    if isinstance(entry, ScenarioField):
        nested = entry.scope in ("workload", "training")
        holder, path = (document[entry.scope] if nested else document), entry.path
    else:
        options = document["options"]  # the option that holds the input: the others may refuse it as a conflict
        index = next(i for i, option in enumerate(options) if option["kind"] in entry.kinds and entry.name in option)
        holder, path = document["options"][index], f"options[{index}].{entry.name}"
    holder[entry.name] = "lots"
    with pytest.raises(ScenarioError) as refused:
        validate(document)
    (message,) = [problem.message for problem in refused.value.problems if problem.path == path]
    words = input_label(entry, "EUR")  # what the editor writes above the box
    assert words.startswith(entry.label)
    if "{c}" in entry.unit:
        assert "EUR" in words  # the money unit in the scenario's own currency
    whole = "a whole number" if entry.value_type == "count" else "a number"
    assert message == f"{words} must be {whole}; got 'lots' (text)"


# --- The serving configuration says the same words on the sizing page, in its messages and in the history -----------

SERVING = scenario_fields("serving")


@pytest.mark.parametrize("entry", SERVING, ids=lambda entry: entry.field)
def test_a_serving_input_has_its_entrys_label_and_unit_on_the_sizing_page_in_its_messages_and_history(
    entry, editor_client, scenario
):
    page = editor_client.get(reverse("tco:scenario_sizing", args=[scenario.pk])).content.decode()
    shown = re.search(rf'<label for="id_{entry.field}">([^<]*)</label>', page)
    words = input_label(entry, scenario.currency)
    assert shown is not None and html.unescape(shown[1]) == words  # the sizing page's box, as the editor writes it
    history = {field.attname: field_words(field)[0] for field in tracked_fields(Scenario)}
    assert history[entry.field] == entry.label
    if entry.check is not None:  # out of bounds (a share above 100%, a count or time of 0): refused in the box's words
        (message,) = ServingForm({entry.field: "200%" if entry.is_percent else "0"}, model_names=[]).errors[entry.field]
        assert message.startswith(f"{words} must be ") and "; got " in message, message
