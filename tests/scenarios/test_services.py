"""Write services: version check, provenance, clone/delete, and the evaluation job's status flow."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tco.documents import scenario_document
from tco.models import OptionKind, RunStatus, Scenario, ScenarioOption, ScenarioRun, SecondaryDiligenceItem
from tco.services import (
    EditRefused,
    PriceChoiceError,
    VersionConflict,
    diligence_update,
    option_add,
    option_pick_price,
    option_update,
    run_queue,
    scenario_clone,
    scenario_delete,
    scenario_update_field,
)
from tco.tasks import scenario_evaluate
from tests.scenarios import factories


def test_a_saved_change_bumps_the_version_and_queues_an_evaluation(scenario, editor, run_jobs):
    with run_jobs():
        change = scenario_update_field(
            scenario=scenario, user=editor, field="fleet_gpus", value=16, expected_version=scenario.version
        )
    assert change.scenario.version == scenario.version + 1
    change.run.refresh_from_db()
    assert change.run.status == RunStatus.DONE
    assert change.run.scenario_version == change.scenario.version
    assert change.run.result["reference"]["fleet_gpus"] == 16


def test_a_stale_version_is_refused_and_nothing_is_written(scenario, editor):
    scenario_update_field(scenario=scenario, user=editor, field="fleet_gpus", value=16, expected_version=1)
    with pytest.raises(VersionConflict):
        scenario_update_field(scenario=scenario, user=editor, field="fleet_gpus", value=4, expected_version=1)
    fresh = Scenario.objects.get(pk=scenario.pk)
    assert (fresh.fleet_gpus, fresh.version) == (16, 2)


def test_a_value_the_engine_refuses_is_not_saved(scenario, editor):
    option = scenario.options.get(kind="owned")
    runs_before = ScenarioRun.objects.count()
    with pytest.raises(EditRefused) as refused:
        option_update(option=option, user=editor, expected_version=1, field="capex", value=Decimal(-5))
    assert [p.path for p in refused.value.problems] == ["options[0].capex"]
    assert refused.value.messages == [f"{option.name} → Capex, whole option (USD) must not be negative; got -5"]
    assert ScenarioRun.objects.count() == runs_before
    assert ScenarioOption.objects.get(pk=option.pk).capex == 320000
    scenario.refresh_from_db()
    assert scenario.version == 1


def test_picking_a_market_price_copies_price_and_provenance(scenario, editor):
    observation = factories.observation(price="3.49")
    option = scenario.options.get(kind="neocloud")
    option_pick_price(option=option, user=editor, expected_version=1, observation=observation)
    option.refresh_from_db()
    assert option.price_per_gpu_hour == Decimal("3.49")
    assert option.price_observation == observation
    assert option.price_source == {
        "provider": "Lambda",
        "offering": "8-GPU instance",
        "region": "us-east-1",
        "pricing_term": "on_demand",
        "observed_on": "2026-09-01",
        "source_url": "https://example.com/prices",
        "price_observation_id": observation.pk,
        "snapshot_id": observation.snapshot_id,
    }
    assert scenario_document(Scenario.objects.get(pk=scenario.pk))["options"][1]["price_source"] == option.price_source


def test_a_later_import_does_not_change_a_picked_price(scenario, editor):
    import datetime

    observation = factories.observation(price="3.49")
    option = scenario.options.get(kind="neocloud")
    option_pick_price(option=option, user=editor, expected_version=1, observation=observation)
    factories.observation(price="2.10", observed_on=datetime.date(2026, 10, 1))
    option.refresh_from_db()
    assert option.price_per_gpu_hour == Decimal("3.49")
    assert option.price_source["observed_on"] == "2026-09-01"


def test_typing_a_different_price_drops_the_market_provenance(scenario, editor):
    option = scenario.options.get(kind="neocloud")
    option_pick_price(option=option, user=editor, expected_version=1, observation=factories.observation())
    option_update(option=option, user=editor, expected_version=2, field="price_per_gpu_hour", value=Decimal("3.5"))
    option.refresh_from_db()
    assert option.price_source is None
    assert option.price_observation is None


def test_a_price_in_another_currency_without_a_rate_is_refused_naming_the_rate_to_import(scenario, editor):
    option = scenario.options.get(kind="neocloud")
    with pytest.raises(PriceChoiceError) as refused:
        option_pick_price(
            option=option, user=editor, expected_version=1, observation=factories.observation(currency="EUR")
        )
    assert "no EUR→USD exchange rate is known. Import exchange rates (manage.py import_fx_rates" in str(refused.value)
    option.refresh_from_db()
    assert (option.price_source, Scenario.objects.get(pk=scenario.pk).version) == (None, 1)


def test_a_price_in_another_currency_is_converted_at_the_rate_nearest_its_date_and_keeps_both(scenario, editor):
    import datetime

    from pricing.models import ExchangeRate

    for day, rate in ((datetime.date(2026, 8, 31), "1.08"), (datetime.date(2026, 9, 2), "1.10")):
        ExchangeRate.objects.create(base="EUR", quote="USD", rate=Decimal(rate), rate_date=day, source="ECB")
    option = scenario.options.get(kind="neocloud")
    observation = factories.observation(currency="EUR", price="2.75")  # as of 2026-09-01
    option_pick_price(option=option, user=editor, expected_version=1, observation=observation)
    option.refresh_from_db()
    assert option.price_per_gpu_hour == Decimal("2.97")  # 2.75 EUR * 1.08 (31 August, the last rate before)
    assert {key: value for key, value in option.price_source.items() if "fx" in key or "original" in key} == {
        "original_price_per_gpu_hour": "2.75",
        "original_currency": "EUR",
        "fx_rate": "1.08",
        "fx_rate_date": "2026-08-31",
        "fx_source": "ECB",
    }
    document = scenario_document(Scenario.objects.get(pk=scenario.pk))
    from tco.engine import validate

    assert validate(document)["options"][1]["price_source"]["fx_rate"] == "1.08"


def test_an_added_secondary_option_is_prefilled_and_carries_the_checklist(scenario, editor):
    option, _ = option_add(
        scenario=scenario, user=editor, expected_version=1, kind=OptionKind.SECONDARY, gpu_model=factories.gpu_model()
    )
    assert option.name == "Own 8\u00d7 H100 SXM (secondary)"
    assert option.power_kw == Decimal("10.2")
    assert "capex" in option.assumed_fields
    keys = list(option.diligence_items.values_list("key", flat=True))
    assert len(keys) == 8 and "warranty_months" in keys and "nic_fabric" in keys


def test_editing_a_prefilled_figure_clears_its_assumption_mark(scenario, editor):
    option, _ = option_add(
        scenario=scenario, user=editor, expected_version=1, kind=OptionKind.OWNED, gpu_model=factories.gpu_model()
    )
    option_update(option=option, user=editor, expected_version=2, field="capex", value=Decimal(300000))
    option.refresh_from_db()
    assert "capex" not in option.assumed_fields
    assert "power_kw" in option.assumed_fields


def test_a_checklist_item_records_status_note_and_warranty(scenario, editor):
    option, _ = option_add(
        scenario=scenario, user=editor, expected_version=1, kind=OptionKind.SECONDARY, gpu_model=factories.gpu_model()
    )
    item = option.diligence_items.get(key="warranty_months")
    diligence_update(
        item=item, user=editor, expected_version=2, status="ok", note="90 days from seller", warranty_months=3
    )
    item.refresh_from_db()
    assert (item.status, item.note, item.warranty_months) == ("ok", "90 days from seller", 3)


def test_a_clone_copies_options_and_checklists_at_version_one(scenario, editor):
    option_add(
        scenario=scenario, user=editor, expected_version=1, kind=OptionKind.SECONDARY, gpu_model=factories.gpu_model()
    )
    scenario.refresh_from_db()
    copy = scenario_clone(scenario=scenario, user=editor)
    assert copy.name == f"Copy of {scenario.name}"
    assert copy.version == 1
    original = scenario_document(scenario)
    assert scenario_document(copy) == {**original, "name": copy.name}
    assert SecondaryDiligenceItem.objects.filter(option__scenario=copy).count() == 8


def test_delete_removes_the_scenario_its_options_and_runs(scenario, editor):
    scenario_delete(scenario=scenario, user=editor)
    assert not Scenario.objects.filter(pk=scenario.pk).exists()
    assert not ScenarioOption.objects.exists()
    assert not ScenarioRun.objects.exists()


def test_the_job_moves_a_run_from_pending_through_running_to_done(scenario, editor):
    run = run_queue(scenario=scenario, user=editor)  # no on-commit capture: stays pending
    assert ScenarioRun.objects.get(pk=run.pk).status == RunStatus.PENDING
    assert scenario_evaluate(run.pk) == RunStatus.DONE
    run.refresh_from_db()
    assert run.status == RunStatus.DONE
    assert run.started_at <= run.finished_at
    assert set(run.figures) >= {"annual_cost", "cumulative", "cost_per_output", "forecast", "break_even_map"}
    assert run.result["cheapest"] == "Lambda 8x H100 SXM"


def test_an_engine_refusal_fails_the_run_with_its_problems(scenario, editor):
    document = scenario_document(scenario)
    document["fleet_gpus"] = 16
    document["options"][0]["gpu_count"] = 8
    del document["burst_price_per_gpu_hour"]  # owned capacity overflows with no burst price
    run = ScenarioRun.objects.create(scenario=scenario, scenario_version=1, document=document)
    scenario_evaluate(run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.problems and run.problems[0]["path"] == "burst_price_per_gpu_hour"
    assert run.result is None


def test_a_picked_price_in_another_currency_is_rounded_as_a_conversion_rounds_a_unit_price(scenario, editor):
    import datetime

    from pricing.models import ExchangeRate

    ExchangeRate.objects.create(
        base="EUR", quote="USD", rate=Decimal("1.08"), rate_date=datetime.date(2026, 8, 31), source="ECB"
    )
    option = scenario.options.get(kind="neocloud")
    observation = factories.observation(currency="EUR", price="2.1347")  # 2.1347 * 1.08 = 2.305476
    option_pick_price(option=option, user=editor, expected_version=1, observation=observation)
    option.refresh_from_db()
    assert option.price_per_gpu_hour == Decimal("2.3055")  # half up to four decimal places, like a conversion
