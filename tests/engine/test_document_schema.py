"""The documents' JSON Schemas are derived from the catalogue and the sizing's tables: every input is there with
its own bounds and type, the demo documents pass, and a typo or an out-of-range value does not."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema_rs
import pytest

from lib.kinds import KINDS
from tco.documents import SERVING_KEY
from tco.engine.catalogue import OPTION_FIELDS, option_fields, scenario_fields
from tco.engine.document_schema import scenario_document_schema, sizing_document_schema
from tco.engine.sizing import document as sizing
from tests.documents import DESIGN_EXAMPLE

DEMOS = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "scenarios").glob("*.json"))


@pytest.fixture(scope="module")
def validator():
    return jsonschema_rs.validator_for(scenario_document_schema())


@pytest.mark.parametrize("path", DEMOS, ids=lambda path: path.name)
def test_every_demo_document_passes(validator, path):
    """A demo file is an export: the serving configuration an export writes beside the document is not part of it."""
    exported = json.loads(path.read_text())
    assert validator.is_valid({key: value for key, value in exported.items() if key != SERVING_KEY})


def test_the_design_example_passes_and_its_typos_do_not(validator):
    assert validator.is_valid(DESIGN_EXAMPLE)
    for broken in (
        {**DESIGN_EXAMPLE, "horizon_month": 36},  # an unknown field
        {**DESIGN_EXAMPLE, "discount_rate": 8},  # 8 for 8 %
        {**DESIGN_EXAMPLE, "fleet_gpus": 8.5},  # a count is whole
        {**DESIGN_EXAMPLE, "schema": "tco-scenario/2"},
    ):
        assert not validator.is_valid(broken)
    owned_typo = copy.deepcopy(DESIGN_EXAMPLE)
    owned_typo["options"][0]["capex"] = -1
    assert not validator.is_valid(owned_typo)


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_has_exactly_its_catalogue_inputs_with_their_bounds(kind):
    option = scenario_document_schema()["$defs"][f"option_{kind}"]
    entries = option_fields(kind)
    assert {entry.name for entry in entries} <= set(option["properties"])
    for entry in entries:
        shown = option["properties"][entry.name]
        assert shown["title"] == entry.label
        if entry.check is None:
            continue
        assert ("integer" if entry.check.integer else "number") in (
            shown["type"] if isinstance(shown["type"], list) else [shown["type"]]
        )
        low = shown.get("exclusiveMinimum" if entry.check.lo_open else "minimum")
        high = shown.get("exclusiveMaximum" if entry.check.hi_open else "maximum")
        assert (low, high) == (entry.check.lo, entry.check.hi)


def test_every_option_input_is_in_some_kinds_shape():
    shapes = scenario_document_schema()["$defs"]
    named = {name for shape in shapes.values() for name in shape["properties"]}
    assert {entry.name for entry in OPTION_FIELDS} <= named


def test_every_stored_scenario_input_is_a_property():
    properties = scenario_document_schema()["properties"]
    assert {entry.name for entry in scenario_fields("scenario") if entry.stored} <= set(properties)
    assert {entry.name for entry in scenario_fields("workload")} == set(properties["workload"]["properties"])


def test_the_sizing_schema_has_every_table_and_refuses_a_precision_it_does_not_know():
    schema = sizing_document_schema()
    assert set(sizing.MODEL_NUMBERS) <= set(schema["properties"]["model"]["properties"])
    assert set(sizing.GPU_NUMBERS) <= set(schema["properties"]["gpus"]["items"]["properties"])
    assert schema["properties"]["weight_bits"]["enum"] == list(sizing.WEIGHT_BITS)
    assert set(sizing.TOP_NUMBERS) <= set(schema["properties"])
