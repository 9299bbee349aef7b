"""A scenario is built like a spreadsheet: a value that is valid on its own saves, whatever the document
still lacks is a gap ("to complete"), and a value that is wrong on its own or against what is stored is refused."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from tco.checks import document_gaps
from tco.documents import scenario_document
from tco.models import RunStatus, Scenario, ScenarioOption, ScenarioRun
from tco.services import (
    EditRefused,
    option_add,
    option_update,
    scenario_create,
    scenario_update_field,
)

WORKLOAD = {
    "workload_tokens_per_second_per_gpu": Decimal("2400"),
    "workload_output_tokens_per_response": Decimal("350"),
    "workload_input_tokens_per_response": Decimal("1200"),
    "workload_acceptance_rate": Decimal("0.9"),
}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_blank_scenarios_workload_saves_field_by_field_in_any_order(db, editor, seed):
    scenario = scenario_create(user=editor, name="Blank")
    order = list(WORKLOAD)
    random.Random(seed).shuffle(order)
    for number, field in enumerate(order, start=1):
        change = scenario_update_field(
            scenario=scenario, user=editor, field=field, value=WORKLOAD[field], expected_version=number
        )
        assert change.scenario.version == number + 1
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert {field: getattr(fresh, field) for field in WORKLOAD} == WORKLOAD
    # Nothing to evaluate yet: the scenario has no option. That is what it lacks, and all it lacks.
    assert [gap.path for gap in document_gaps(scenario_document(fresh))] == ["options"]
    assert not ScenarioRun.objects.filter(scenario=scenario).exists()


def test_throughput_alone_saves_and_the_output_tokens_are_listed_as_a_gap(db, editor):
    scenario = scenario_create(user=editor, name="Blank")
    change = scenario_update_field(
        scenario=scenario,
        user=editor,
        field="workload_tokens_per_second_per_gpu",
        value=Decimal(2400),
        expected_version=1,
    )
    paths = [gap.path for gap in document_gaps(change.document)]
    assert "workload.output_tokens_per_response" in paths


def test_a_rental_added_without_its_price_is_a_gap_and_the_price_completes_it(db, editor, run_jobs):
    scenario = scenario_create(user=editor, name="Blank")
    option, change = option_add(scenario=scenario, user=editor, expected_version=1, kind="neocloud")
    assert [gap.path for gap in document_gaps(change.document)] == ["options[0].price_per_gpu_hour"]
    with run_jobs():
        change = option_update(
            option=option, user=editor, expected_version=2, field="price_per_gpu_hour", value=Decimal("2.49")
        )
    assert document_gaps(change.document) == [] and change.problems == []
    change.run.refresh_from_db()
    assert change.run.status == RunStatus.DONE


def test_a_value_wrong_on_its_own_is_still_refused(scenario, editor):
    option = scenario.options.get(kind="owned")
    with pytest.raises(EditRefused) as refused:
        option_update(option=option, user=editor, expected_version=1, field="capex", value=Decimal(-5))
    assert refused.value.messages == ["Own 8x H100 (new) → Capex, whole option (USD) must not be negative; got -5"]


def test_a_value_wrong_against_what_is_stored_is_still_refused(scenario, editor):
    """Idle power 3.5 kW is stored: a maximum power below it is refused, naming the option and the rule."""
    option = scenario.options.get(kind="owned")
    with pytest.raises(EditRefused) as refused:
        option_update(option=option, user=editor, expected_version=1, field="power_kw", value=Decimal(2))
    assert refused.value.messages == [
        "Own 8x H100 (new) → Idle power, whole option (3.5 kW) cannot be more than the power at full load, "
        "whole option (2 kW)"
    ]
    assert ScenarioOption.objects.get(pk=option.pk).power_kw == Decimal("10.2")


def test_clearing_a_required_value_saves_and_leaves_a_gap(scenario, editor):
    option = scenario.options.get(kind="owned")
    change = option_update(option=option, user=editor, expected_version=1, field="capex", value=None)
    assert [gap.path for gap in document_gaps(change.document)] == ["options[0].capex"]
    assert change.run is None  # nothing is evaluated while the scenario is incomplete


def test_demand_beyond_owned_capacity_saves_and_asks_for_a_burst_price(scenario, editor):
    Scenario.objects.filter(pk=scenario.pk).update(burst_price_per_gpu_hour=None)
    scenario.refresh_from_db()
    change = scenario_update_field(scenario=scenario, user=editor, field="fleet_gpus", value=64, expected_version=1)
    gaps = document_gaps(change.document)
    assert [gap.path for gap in gaps] == ["burst_price_per_gpu_hour"]
    assert "set a burst price per GPU-hour for the overflow" in gaps[0].message
