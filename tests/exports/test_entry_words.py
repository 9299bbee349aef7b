"""An input has one label and one unit (tco.engine.catalogue): every workbook sheet that shows it, the live model's
Inputs and the inputs in words, writes the entry's own words, as the editor, the messages and the CSV do."""

from __future__ import annotations

from io import BytesIO

import pytest
from openpyxl import load_workbook

from tco.engine import evaluate
from tco.engine.catalogue import OPTION_FIELDS, scenario_fields
from tco.exports import inputs_table, results_workbook
from tco.exports.model_workbook import Names
from tco.presentation.inputs import lower_first
from tests.documents import training_example

CURRENCY = "EUR"


@pytest.fixture(scope="module")
def sheets():
    document = training_example()  # the finance example with a training plan and a capacity block
    document["currency"] = CURRENCY
    book = load_workbook(BytesIO(results_workbook(document, evaluate(document))))
    names = Names()
    slugs = {option["name"]: names.option_slug(option["name"]) for option in document["options"]}
    model = {row[3]: row for row in book["Inputs"].iter_rows(values_only=True) if row[3]}
    words = {(row[0], row[2]): row for row in book["Inputs in words"].iter_rows(values_only=True)}
    return document, slugs, model, words


def _same_words(shown: str, label: str) -> bool:
    return lower_first(shown).startswith(lower_first(label))


# The workbooks write the document; the serving configuration is not part of it (sizing reads it and writes its
# answer into the inputs, which are here), so its words are checked on the sizing page, in test_one_catalogue_entry.
SCENARIO_NUMBERS = [entry for entry in scenario_fields("scenario", "workload") if entry.check and entry.stored]


@pytest.mark.parametrize("entry", SCENARIO_NUMBERS, ids=lambda entry: entry.field)
def test_a_scenario_input_has_its_entrys_label_and_unit_on_every_sheet(sheets, entry):
    document, _, model, words = sheets
    holder = document["workload"] if entry.scope == "workload" else document
    label, _, unit, *_ = model[entry.name]
    assert _same_words(label, entry.label) and unit == entry.unit.replace("{c}", CURRENCY)
    if holder.get(entry.name) is not None:
        row = words[("scenario" if entry.scope == "scenario" else "workload", lower_first(entry.label))]
        assert row[4] == entry.unit.replace("{c}", CURRENCY)
    assert inputs_table(document).headers[2:5:2] == ["input", "unit"]


@pytest.mark.parametrize("entry", scenario_fields("training"), ids=lambda entry: entry.field)
def test_a_training_input_has_its_entrys_label_and_unit_on_every_sheet(sheets, entry):
    document, _, model, words = sheets
    if document["training"].get(entry.name) is None:  # a run sized by its model leaves the GPU-hours out
        assert f"training_{entry.name}" not in model
        return
    label, _, unit, *_ = model[f"training_{entry.name}"]
    assert _same_words(label, entry.label) and unit == entry.unit.replace("{c}", CURRENCY)
    row = words[("training", lower_first(entry.label))]
    assert row[4] == entry.unit.replace("{c}", CURRENCY)


@pytest.mark.parametrize("entry", [e for e in OPTION_FIELDS if e.value_type != "list"], ids=lambda e: e.name)
def test_an_option_input_has_its_entrys_label_and_unit_on_every_sheet(sheets, entry):
    document, slugs, model, words = sheets
    holders = [option for option in document["options"] if option["kind"] in entry.kinds and entry.name in option]
    assert holders, f"the training example sets {entry.name} on some option"
    for option in holders:
        shown = model.get(f"{entry.name}_{slugs[option['name']]}")
        if shown is not None or entry.value_type != "choice":  # the model shows only the choices that set formulas
            label, _, unit, *_ = shown
            assert _same_words(label, entry.label), (label, entry.label)
            assert (unit or "") == entry.unit.replace("{c}", CURRENCY), (unit, entry.unit)
        row = words[(option["name"], lower_first(entry.label))]
        assert (row[4] or "") == entry.unit.replace("{c}", CURRENCY)
