"""Adding an input is one catalogue entry: a new scenario input and a new option input, each written as a developer
would add it, reach the editor, the engine's messages (the one under the input among them), the CSV, every sheet
of the workbook (recalculated by LibreOffice) and the decision brief, with one label and one unit everywhere."""

from __future__ import annotations

import copy
from decimal import Decimal
from io import BytesIO

import pytest
from django.template.loader import render_to_string

from lib.kinds import OWNED_KINDS, kind_label
from tco.engine import catalogue, evaluate
from tco.engine.catalogue import OptionField
from tco.engine.errors import ScenarioError
from tco.engine.fields import money_field
from tco.engine.validation import validate
from tco.exports import inputs_table, results_workbook
from tco.exports.model_workbook import Names
from tco.presentation.inputs import input_groups
from tco.services import scenario_create_from_document
from tco.web.forms import scenario_input_form
from tco.web.viewmodels.fields import error_map, input_label, option_fields, scenario_sections
from tests.documents import DESIGN_EXAMPLE
from tests.exports.test_model_workbook import recalculate
from tests.scenarios.test_one_catalogue_entry import SPARES  # the scenario input a developer adds
from tests.scenarios.workspace_html import Workspace

CURRENCY = "EUR"
INSURANCE = OptionField(
    "insurance_per_year",
    OWNED_KINDS,
    "money",
    label="Insurance",
    unit="{c} per year",
    check=money_field(),
    default_text="0",
    placeholder="0",
)


def add_entries(monkeypatch) -> None:
    """The catalogue with one more scenario input and one more option input, as a developer adding them writes them."""
    monkeypatch.setattr(catalogue, "SCENARIO_FIELDS", (*catalogue.SCENARIO_FIELDS, SPARES))
    monkeypatch.setitem(catalogue.SCENARIO_FIELD, SPARES.field, SPARES)
    monkeypatch.setattr(catalogue, "OPTION_FIELDS", (*catalogue.OPTION_FIELDS, INSURANCE))
    monkeypatch.setitem(catalogue.OPTION_FIELD, INSURANCE.name, INSURANCE)
    scenario_input_form.cache_clear()


@pytest.fixture
def with_new_entries(monkeypatch):
    add_entries(monkeypatch)
    yield
    scenario_input_form.cache_clear()


def _document(spares=0.05, insurance=12_000) -> dict:
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["currency"] = CURRENCY
    document["spares_share"] = spares
    document["options"][0]["insurance_per_year"] = insurance
    return document


def _problems(document) -> list:
    with pytest.raises(ScenarioError) as refused:
        validate(document)
    return refused.value.problems


def test_the_engine_reads_both_new_inputs_and_refuses_them_in_their_own_words(with_new_entries):
    normalised = validate(_document())
    assert (normalised["spares_share"], normalised["options"][0]["insurance_per_year"]) == (0.05, 12_000)
    (spares,) = _problems(_document(spares="lots"))
    assert (spares.path, spares.message) == ("spares_share", "Spares share must be a number; got 'lots' (text)")
    (insurance,) = _problems(_document(insurance=-5))
    assert insurance.path == "options[0].insurance_per_year"
    assert insurance.message == "Insurance (EUR per year) must not be negative; got -5"
    assert insurance.message.startswith(input_label(INSURANCE, CURRENCY))  # the words above the box


def test_the_editor_shows_each_new_input_with_its_label_and_unit_and_the_engines_message_under_it(
    monkeypatch, request, editor
):
    scenario = scenario_create_from_document(document=copy.deepcopy(DESIGN_EXAMPLE), user=editor)
    request.addfinalizer(scenario_input_form.cache_clear)
    add_entries(monkeypatch)  # after the scenario is stored: the model has no column for them (no migration here)
    scenario.currency = CURRENCY
    scenario.spares_share = Decimal("0.05")
    basics, _ = scenario_sections(scenario, {})
    spares = next(view for view in basics if view.name == "spares_share")
    page = Workspace(render_to_string("tco/scenario_detail.html#field", {"f": spares, "can_edit": True}))
    assert page.text("f-s-spares_share").startswith("Spares share") and page.value("s-spares_share") == "5%"

    option = scenario.options.get(name=DESIGN_EXAMPLE["options"][0]["name"])
    option.insurance_per_year = Decimal("-5")
    errors = error_map(_problems(_document(insurance=-5)), [o.pk for o in scenario.options.all()])
    view = next(view for view in option_fields(option, CURRENCY, errors) if view.name == "insurance_per_year")
    page = Workspace(render_to_string("tco/scenario_detail.html#field", {"f": view, "can_edit": True}))
    key = f"o{option.pk}-insurance_per_year"
    assert page.text(f"f-{key}").startswith("Insurance (EUR per year)")
    assert page.error(key) == "Insurance (EUR per year) must not be negative; got -5"


def test_the_csv_and_the_brief_write_each_new_input_with_its_label_and_unit(with_new_entries):
    document = _document()
    owned = document["options"][0]
    rows = inputs_table(document).rows
    assert ["scenario", "", "spares share", 0.05, "fraction"] in rows
    assert [owned["name"], kind_label(owned["kind"]), "insurance", 12_000, "EUR per year"] in rows
    brief = {(group["title"], row["key"]): row for group in input_groups(document) for row in group["rows"]}
    spares, insurance = brief[("Scenario", "spares_share")], brief[(owned["name"], "insurance_per_year")]
    assert (spares["title"], spares["unit"], spares["text"]) == ("Spares share", "fraction", "5%")
    assert (insurance["title"], insurance["unit"]) == ("Insurance", "EUR per year")
    assert insurance["text"] == "EUR 12,000 per year"


def test_every_workbook_sheet_writes_each_new_input_with_its_label_and_unit_after_libreoffice_recalculates(
    with_new_entries, tmp_path
):
    document = _document()
    result = evaluate(document)
    (book,) = recalculate([_load(results_workbook(document, result))], tmp_path)
    slug = Names().option_slug(document["options"][0]["name"])
    model = {row[3]: row for row in book["Inputs"].iter_rows(values_only=True) if row[3]}
    assert model["spares_share"][:3] == ("Spares share", 0.05, "fraction")
    assert model[f"insurance_per_year_{slug}"][:3] == ("insurance", 12_000, "EUR per year")
    words = {(row[0], row[2]): row for row in book["Inputs in words"].iter_rows(values_only=True)}
    assert words[("scenario", "spares share")][3:5] == (0.05, "fraction")
    assert words[(document["options"][0]["name"], "insurance")][3:5] == (12_000, "EUR per year")
    verdicts = [row[3] for row in book["Summary"].iter_rows(values_only=True) if row[3] in ("agree", "differ")]
    assert verdicts and set(verdicts) == {"agree"}  # recalculated, the model still agrees with the app's figures


def _load(content: bytes):
    from openpyxl import load_workbook

    return load_workbook(BytesIO(content))
