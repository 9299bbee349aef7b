"""Input ranges saved through the service (versioned, checked by the engine), kept through export, import,
clone and option deletion."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from tco.engine import ScenarioError
from tco.models import InputRange, Scenario
from tco.selectors.uncertainty import export_document, scenario_uncertainty
from tco.services import VersionConflict, option_delete, scenario_clone, scenario_create_from_document
from tco.services.uncertainty import RangeError, range_clear, range_set

D = Decimal


def options_of(scenario):
    return list(scenario.options.all())


def set_price_range(scenario, user, low="3", likely="3.99", high="6"):
    rental = options_of(scenario)[1]
    return range_set(
        scenario=scenario,
        user=user,
        expected_version=scenario.version,
        option=rental,
        field="price_per_gpu_hour",
        low=D(low),
        likely=D(likely),
        high=D(high),
    )


def test_a_range_is_stored_by_document_path_and_bumps_the_version(scenario, editor, run_jobs):
    version = scenario.version
    with run_jobs():
        change = set_price_range(scenario, editor)
    assert change.scenario.version == version + 1
    assert scenario_uncertainty(change.scenario) == {
        "options[1].price_per_gpu_hour": {"low": 3, "likely": 3.99, "high": 6}
    }
    item = InputRange.objects.get()
    assert item.history.first().history_user == editor


def test_saving_again_replaces_the_range(scenario, editor, run_jobs):
    with run_jobs():
        set_price_range(scenario, editor)
    scenario.refresh_from_db()
    with run_jobs():
        set_price_range(scenario, editor, low="2", likely="3", high="4")
    assert scenario_uncertainty(scenario)["options[1].price_per_gpu_hour"] == {"low": 2, "likely": 3, "high": 4}
    assert InputRange.objects.count() == 1


def test_a_range_out_of_order_is_refused_with_the_engines_message_and_nothing_saved(scenario, editor):
    version = scenario.version
    with pytest.raises(RangeError, match="low ≤ likely ≤ high; got low 5, likely 4, high 6"):
        set_price_range(scenario, editor, low="5", likely="4", high="6")
    assert not InputRange.objects.exists()
    assert Scenario.objects.get(pk=scenario.pk).version == version


def test_a_rate_range_outside_its_bounds_is_refused(scenario, editor):
    with pytest.raises(RangeError, match=r"Discount rate \(per year\) must be between 0 and 1"):
        range_set(
            scenario=scenario,
            user=editor,
            expected_version=scenario.version,
            option=None,
            field="discount_rate",
            low=D("0.05"),
            likely=D("0.08"),
            high=D("8"),
        )


def test_a_count_takes_no_range(scenario, editor):
    with pytest.raises(RangeError, match="gpu_count of Own 8x H100 \\(new\\) does not take a range"):
        range_set(
            scenario=scenario,
            user=editor,
            expected_version=scenario.version,
            option=options_of(scenario)[0],
            field="gpu_count",
            low=D(4),
            likely=D(8),
            high=D(8),
        )


def test_a_stale_version_is_refused(scenario, editor):
    scenario.version -= 1
    with pytest.raises(VersionConflict):
        set_price_range(scenario, editor)
    assert not InputRange.objects.exists()


def test_clearing_removes_the_range(scenario, editor, run_jobs):
    with run_jobs():
        change = set_price_range(scenario, editor)
        range_clear(
            scenario=scenario,
            user=editor,
            expected_version=change.scenario.version,
            option=options_of(scenario)[1],
            field="price_per_gpu_hour",
        )
    assert scenario_uncertainty(scenario) == {}


def test_deleting_an_option_deletes_its_ranges_and_moves_the_others_paths(scenario, editor, run_jobs):
    owned, _rental, api = options_of(scenario)
    with run_jobs():
        change = range_set(
            scenario=scenario,
            user=editor,
            expected_version=scenario.version,
            option=api,
            field="price_per_million_output_tokens",
            low=D(1),
            likely=D("1.5"),
            high=D(2),
        )
        change = set_price_range(change.scenario, editor)
        option_delete(option=owned, user=editor, expected_version=change.scenario.version)
    assert scenario_uncertainty(scenario) == {
        "options[0].price_per_gpu_hour": {"low": 3, "likely": 3.99, "high": 6},
        "options[1].price_per_million_output_tokens": {"low": 1, "likely": 1.5, "high": 2},
    }


def test_export_then_import_gives_the_ranges_back(scenario, editor, run_jobs):
    with run_jobs():
        set_price_range(scenario, editor)
    scenario.refresh_from_db()
    exported = json.loads(json.dumps(export_document(scenario)))
    assert exported["uncertainty"] == {"options[1].price_per_gpu_hour": {"low": 3, "likely": 3.99, "high": 6}}
    with run_jobs():
        imported = scenario_create_from_document(document=exported, user=editor)
    assert export_document(imported) == exported


def test_an_import_with_a_bad_range_creates_nothing_and_names_the_path(scenario, editor):
    document = export_document(scenario)
    document["uncertainty"] = {"options[1].price_per_gpu_hour": {"low": 3, "likely": 9, "high": 6}}
    count = Scenario.objects.count()
    with pytest.raises(ScenarioError) as caught:
        scenario_create_from_document(document=document, user=editor)
    assert [p.path for p in caught.value.problems] == ["uncertainty.options[1].price_per_gpu_hour"]
    assert Scenario.objects.count() == count


def test_a_clone_keeps_the_ranges_on_its_own_options(scenario, editor, run_jobs):
    with run_jobs():
        set_price_range(scenario, editor)
        copy = scenario_clone(scenario=scenario, user=editor)
    assert scenario_uncertainty(copy) == scenario_uncertainty(scenario)
    assert InputRange.objects.get(scenario=copy).option.scenario_id == copy.pk


def test_range_changes_are_in_the_scenario_history(scenario, editor, run_jobs):
    from tco.web.viewmodels.history import scenario_history

    with run_jobs():
        change = set_price_range(scenario, editor)
        set_price_range(change.scenario, editor, low="2", likely="3.99", high="6")
    lines = [line for line in scenario_history(scenario) if line.subject.startswith("the range")]
    assert [(line.action, line.field, line.old, line.new) for line in lines] == [
        ("changed", "Low", "$3.00 per GPU-hour", "$2.00 per GPU-hour"),  # in words, as the input reads
        ("created", "", "", ""),
    ]
    assert lines[0].subject == "the range of Price of “Lambda 8x H100 SXM”"
    assert lines[0].who == editor.username
