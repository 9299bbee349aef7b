"""The simulation job: progress written on its row as it goes, cancel between batches. What it shares with every
job (claimed once, sent again when lost, failed when its worker died) is tests/test_job_model.py."""

from __future__ import annotations

import pytest

from tco.documents import scenario_document
from tco.engine import fleet_plan, sensitivity, simulate
from tco.load_profiles import from_forecast
from tco.models import UncertaintyRun, UncertaintyStatus
from tco.services import uncertainty as service
from tco.services.uncertainty import uncertainty_run_cancel, uncertainty_run_queue
from tco.tasks import scenario_simulate
from tests.scenarios.factories import price_range

RANGE = {"low": 3, "likely": 3.99, "high": 6}


@pytest.fixture
def ranged(scenario, editor, run_jobs):
    rental = list(scenario.options.all())[1]
    with run_jobs():
        change = price_range(scenario, user=editor, option=rental)
    return change.scenario


def profile_of(scenario):
    return from_forecast(scenario.utilization_values(), horizon_months=36, fleet_gpus=8, peak_ratio=1.5, peak_hour=14)


def test_a_run_computes_the_engines_simulation_tornado_and_fleet_plan(ranged, editor, run_jobs):
    profile = profile_of(ranged)
    with run_jobs():
        run = uncertainty_run_queue(scenario=ranged, user=editor, trials=3_000, load_profile=profile)
    run.refresh_from_db()
    assert run.status == UncertaintyStatus.DONE and run.progress == 1.0 and run.started_at and run.finished_at
    document = scenario_document(ranged)
    uncertainty = {"options[1].price_per_gpu_hour": RANGE}
    assert run.document == document and run.uncertainty == uncertainty
    assert run.result["simulation"] == simulate(document, uncertainty, trials=3_000, seed=0)
    assert run.result["fleet_plan"] == fleet_plan(document, profile)
    # The ranged price swings over its range in the tornado; the others ±20 % (engine defaults).
    rows = {row["path"]: row for row in run.result["tornado"]["rows"]}
    assert (rows["options[1].price_per_gpu_hour"]["low"], rows["options[1].price_per_gpu_hour"]["high"]) == (3, 6)
    defaults = {row["path"]: row for row in sensitivity(document)}
    assert rows["discount_rate"] == defaults["discount_rate"]
    assert set(run.figures) == {"outcome_histogram", "tornado", "fleet_plan"}


def test_progress_rises_on_the_row_while_the_job_runs(ranged, editor, run_jobs, monkeypatch):
    seen = []

    def watching(*args, progress, **kwargs):
        def report(done, total):
            progress(done, total)
            seen.append(UncertaintyRun.objects.values_list("status", "progress", "stage").get())

        return simulate(*args, progress=report, **kwargs)

    monkeypatch.setattr(service, "engine_simulate", watching)
    with run_jobs():
        run = uncertainty_run_queue(scenario=ranged, user=editor, trials=2_000)
    assert len(seen) >= 10
    assert all(status == "running" and stage == "simulation" for status, _, stage in seen)
    shares = [progress for _, progress, _ in seen]
    assert shares == sorted(shares) and 0 < shares[0] < shares[-1] == pytest.approx(service.SIMULATION_SHARE)
    run.refresh_from_db()
    assert run.progress == 1.0


def test_cancel_stops_the_job_after_its_current_batch(ranged, editor, run_jobs, monkeypatch):
    calls = []

    def cancelling(*args, progress, **kwargs):
        def report(done, total):
            calls.append(done)
            progress(done, total)
            if len(calls) == 3:  # someone presses Cancel on the page
                assert uncertainty_run_cancel(run=UncertaintyRun.objects.get())

        return simulate(*args, progress=report, **kwargs)

    monkeypatch.setattr(service, "engine_simulate", cancelling)
    with run_jobs():
        run = uncertainty_run_queue(scenario=ranged, user=editor, trials=2_000)
    run.refresh_from_db()
    assert run.status == UncertaintyStatus.CANCELLED
    assert len(calls) == 4  # the batch after the request noticed it
    assert run.progress == pytest.approx(service.SIMULATION_SHARE * calls[-1] / 2_000)
    assert run.result is None and run.finished_at is not None


def test_a_queued_run_cancelled_before_it_starts_is_never_claimed(ranged, editor, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = uncertainty_run_queue(scenario=ranged, user=editor, trials=2_000)
    assert uncertainty_run_cancel(run=run)
    assert scenario_simulate.apply(args=[run.pk]).get() == "already claimed"
    run.refresh_from_db()
    assert run.status == UncertaintyStatus.CANCELLED and run.result is None


def test_a_finished_run_cannot_be_cancelled(ranged, editor, run_jobs):
    with run_jobs():
        run = uncertainty_run_queue(scenario=ranged, user=editor, trials=2_000)
    assert not uncertainty_run_cancel(run=run)
    run.refresh_from_db()
    assert run.status == UncertaintyStatus.DONE


def test_an_engine_refusal_fails_the_run_with_its_problems(ranged, editor, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = uncertainty_run_queue(scenario=ranged, user=editor, trials=1_000)
    UncertaintyRun.objects.filter(pk=run.pk).update(uncertainty={"options[1].price_per_gpu_hour": {"low": 9}})
    scenario_simulate.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == UncertaintyStatus.FAILED
    assert run.problems[0]["path"] == "options[1].price_per_gpu_hour"
    assert "missing likely, high" in run.problems[0]["message"]


def test_a_scenario_without_an_owned_option_still_simulates_without_tornado_or_plan(scenario, editor, run_jobs):
    from tco.services import option_delete

    owned = scenario.options.get(kind="owned")
    with run_jobs():
        change = option_delete(option=owned, user=editor, expected_version=scenario.version)
        run = uncertainty_run_queue(scenario=change.scenario, user=editor, trials=1_000, load_profile=[1.0] * 24)
    run.refresh_from_db()
    assert run.status == UncertaintyStatus.DONE
    assert run.result["tornado"] is None and run.result["fleet_plan"] is None
    assert "needs an owned or secondary option" in run.result["fleet_plan_note"]
    assert run.result["simulation"]["owned_minus_rental"] is None


def test_too_many_trials_are_refused_before_anything_is_queued(ranged, editor):
    from tco.engine import ScenarioError

    with pytest.raises(ScenarioError, match="Trials must be 1,000 to 200,000"):
        uncertainty_run_queue(scenario=ranged, user=editor, trials=500_000)
    assert not UncertaintyRun.objects.exists()
