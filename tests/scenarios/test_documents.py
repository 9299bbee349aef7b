"""Scenario rows ⇄ tco-scenario/1 documents: import → export gives the document back."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tco.documents import scenario_document
from tco.engine import ScenarioError, validate
from tco.models import ForecastKind, Scenario, ScenarioOption
from tco.selectors.uncertainty import export_document
from tco.services import scenario_create_from_document
from tests.documents import DESIGN_EXAMPLE
from tests.hypothesis_profiles import examples

DEMO_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios"
DEMO_FILES = sorted(DEMO_DIR.glob("*.json"))


def _round_trip(document: dict) -> dict:
    scenario = scenario_create_from_document(document=document, user=None)
    return scenario_document(Scenario.objects.get(pk=scenario.pk))


def test_there_are_three_demo_scenarios():
    names = {json.loads(path.read_text())["name"] for path in DEMO_FILES}
    assert names == {
        "8\u00d7 H100 inference: own vs rent",
        "Secondary H100 for steady inference",
        "Training burst capacity",
    }


@pytest.mark.parametrize("path", DEMO_FILES, ids=lambda p: p.stem)
def test_it_round_trips_every_demo_document_exactly(db, path):
    """A demo file is an export: the document, with the serving configuration beside it where the demo has one."""
    document = json.loads(path.read_text())
    scenario = scenario_create_from_document(document=document, user=None)
    exported = export_document(Scenario.objects.get(pk=scenario.pk))
    assert exported == document
    assert json.dumps(exported, sort_keys=True) == json.dumps(document, sort_keys=True)


def test_it_round_trips_the_design_example(db, example_document):
    assert _round_trip(example_document) == example_document


def test_it_stores_a_single_utilization_as_a_flat_forecast(db, example_document):
    scenario = scenario_create_from_document(document=example_document, user=None)
    assert scenario.forecast_kind == ForecastKind.FLAT
    assert str(scenario.forecast_flat_utilization.normalize()) == "0.55"


def test_it_keeps_a_monthly_forecast_as_pasted_values(db, example_document):
    example_document["utilization"] = [round(0.3 + 0.01 * m, 2) for m in range(36)]
    scenario = scenario_create_from_document(document=example_document, user=None)
    assert scenario.forecast_kind == ForecastKind.PASTED
    assert scenario_document(Scenario.objects.get(pk=scenario.pk))["utilization"] == example_document["utilization"]


def test_it_leaves_unset_inputs_out_of_the_document(db, example_document):
    del example_document["options"][0]["idle_power_kw"]
    del example_document["burst_price_per_gpu_hour"]
    exported = _round_trip(example_document)
    assert "idle_power_kw" not in exported["options"][0]
    assert "burst_price_per_gpu_hour" not in exported


@pytest.mark.parametrize("currency", [None, "absent"])
def test_a_null_or_missing_currency_is_imported_as_usd_as_the_engine_reads_it(db, example_document, currency):
    # found by the upload property test: a JSON null currency passed the engine (which reads it as USD) and then
    # failed the database's NOT NULL, a 500
    if currency == "absent":
        del example_document["currency"]
    else:
        example_document["currency"] = currency
    scenario = Scenario.objects.get(pk=scenario_create_from_document(document=example_document, user=None).pk)
    assert scenario.currency_code == "USD"
    assert validate(scenario_document(scenario))["currency"] == "USD"


def test_it_carries_price_provenance_verbatim(db, example_document):
    source = {
        "provider": "Lambda",
        "offering": "8-GPU instance",
        "region": None,
        "pricing_term": "on_demand",
        "observed_on": "2026-09-01",
        "source_url": None,
        "snapshot_id": 3,
    }
    example_document["options"][1]["price_source"] = source
    assert _round_trip(example_document)["options"][1]["price_source"] == source


def test_it_refuses_an_invalid_document_with_every_problem_and_writes_nothing(db, example_document):
    example_document["options"][0]["capex"] = -1
    example_document["fleet_gpus"] = 0
    with pytest.raises(ScenarioError) as caught:
        scenario_create_from_document(document=example_document, user=None)
    paths = {problem.path for problem in caught.value.problems}
    assert {"options[0].capex", "fleet_gpus"} <= paths
    assert Scenario.objects.count() == 0


def test_it_refuses_values_it_cannot_store_exactly(db, example_document):
    example_document["options"][0]["electricity_per_kwh"] = 0.123456789012  # 12 decimal places
    with pytest.raises(ScenarioError) as caught:
        scenario_create_from_document(document=example_document, user=None)
    assert caught.value.problems[0].path == "options[0].electricity_per_kwh"
    assert "precision" in caught.value.problems[0].message
    assert Scenario.objects.count() == 0


def test_it_refuses_a_file_that_is_not_an_object(db):
    with pytest.raises(ScenarioError) as caught:
        scenario_create_from_document(document=[1, 2], user=None)
    assert "JSON object" in caught.value.problems[0].message


@pytest.mark.parametrize("bad_name", ["Q3\x00plan", "two\nlines"])
def test_it_refuses_names_with_control_characters_before_they_reach_the_database(db, bad_name):
    document = copy.deepcopy(DESIGN_EXAMPLE)
    document["name"] = bad_name
    with pytest.raises(ScenarioError) as caught:
        scenario_create_from_document(document=document, user=None)
    assert [p.path for p in caught.value.problems] == ["name"]
    assert "control characters" in caught.value.problems[0].message
    assert not Scenario.objects.exists()


# Property: any valid document made of realistic inputs (money to the cent, rates to 4 places) round-trips.
money = st.decimals(min_value=0, max_value=10_000_000, places=2).map(float)
rate = st.decimals(min_value=0, max_value=1, places=4).map(float)
share = st.decimals(min_value=0, max_value=1, places=3).map(float)
positive = st.decimals(min_value="0.5", max_value=100_000, places=1).map(float)
whole = st.one_of(money.map(round), money)
# Any printable text: control characters (NUL, line breaks) are refused by validation, tested below.
names = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=40).filter(str.strip)


@st.composite
def documents(draw) -> dict:
    horizon = draw(st.integers(min_value=1, max_value=60))
    fleet = draw(st.integers(min_value=1, max_value=64))
    owned_fields = {
        "gpu_count": st.integers(min_value=1, max_value=64),
        "capex": whole,
        "residual_value": st.just(0),
        "useful_life_years": st.decimals(min_value=1, max_value=10, places=1).map(float),
        "cost_of_capital": rate,
        "power_kw": positive,
        "pue": st.decimals(min_value=1, max_value=3, places=2).map(float),
        "electricity_per_kwh": st.decimals(min_value=0, max_value=1, places=4).map(float),
        "support_per_year": money,
    }
    options = [{"name": "own", "kind": draw(st.sampled_from(["owned", "secondary"]))}]
    for key, strategy in owned_fields.items():
        if draw(st.booleans()):
            options[0][key] = draw(strategy)
    for required in ("capex", "power_kw", "useful_life_years", "electricity_per_kwh"):
        options[0].setdefault(required, draw(owned_fields[required]))
    for index in range(draw(st.integers(min_value=1, max_value=3))):
        rental = {
            "name": f"rent {index}",
            "kind": draw(st.sampled_from(["hyperscaler", "neocloud", "marketplace"])),
            "price_per_gpu_hour": draw(st.decimals(min_value="0.01", max_value=50, places=4).map(float)),
        }
        if draw(st.booleans()):
            rental["price_change_per_year"] = draw(st.decimals(min_value="-0.5", max_value="0.5", places=3).map(float))
        if draw(st.booleans()):
            rental["price_source"] = {"provider": "P", "observed_on": "2026-09-01", "price_observation_id": index}
        options.append(rental)
    monthly = st.lists(share, min_size=horizon, max_size=horizon)
    utilization = draw(st.one_of(st.lists(share, min_size=1, max_size=1), monthly))
    document = {
        "schema": "tco-scenario/1",
        "name": draw(names),
        "horizon_months": horizon,
        "discount_rate": draw(rate),
        "fleet_gpus": fleet,
        "utilization": utilization,
        "burst_price_per_gpu_hour": draw(st.decimals(min_value=0, max_value=50, places=2).map(float)),
        "options": options,
    }
    if draw(st.booleans()):
        document["currency"] = draw(st.sampled_from(["USD", "EUR", "GBP"]))
    return document


@pytest.mark.django_db
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=documents())
def test_any_valid_document_round_trips_exactly(document):
    validate(document)  # the strategy only makes valid documents
    assert _round_trip(document) == document


def test_every_catalogued_input_is_a_model_field_labelled_from_the_catalogue():
    from tco.engine.catalogue import OPTION_FIELDS

    for entry in OPTION_FIELDS:
        field = ScenarioOption._meta.get_field(entry.name)
        assert (str(field.verbose_name), str(field.help_text)) == (entry.label, entry.help), entry.name
