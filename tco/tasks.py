"""Celery tasks of the TCO app. A task takes ids, claims its row, and calls a service."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from pricing.services import price_snapshots_sweep
from tco.models import RunStatus, ScenarioRun, UncertaintyRun, UncertaintyStatus
from tco.services import run_execute, run_fail, runs_sweep
from tco.services.runs import over_time_message
from tco.services.uncertainty import uncertainty_run_execute, uncertainty_runs_sweep


@shared_task(bind=True, max_retries=3)
def scenario_evaluate(self, run_id: int) -> str:
    """Evaluate one queued run. The conditional update pending → running makes a run execute once
    even if the message is delivered twice; a lost database connection puts it back and retries."""
    try:
        claimed = ScenarioRun.objects.filter(pk=run_id, status=RunStatus.PENDING).update(
            status=RunStatus.RUNNING, started_at=timezone.now()
        )
    except (OperationalError, InterfaceError) as error:
        raise self.retry(exc=error, countdown=2**self.request.retries) from error
    if not claimed:
        return "already claimed"
    run = ScenarioRun.objects.get(pk=run_id)
    try:
        run_execute(run=run)
    except (OperationalError, InterfaceError) as error:
        ScenarioRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(status=RunStatus.PENDING)
        raise self.retry(exc=error, countdown=2**self.request.retries) from error
    except SoftTimeLimitExceeded:
        run_fail(run_id=run_id, error=over_time_message())
        return RunStatus.FAILED
    return run.status


@shared_task(bind=True, max_retries=3)
def scenario_simulate(self, run_id: int) -> str:
    """Run one queued simulation (simulation, tornado, fleet plan), claimed pending → running like
    ``scenario_evaluate``; the service writes progress on the row and stops when cancel is asked for."""
    try:
        claimed = UncertaintyRun.objects.filter(pk=run_id, status=UncertaintyStatus.PENDING).update(
            status=UncertaintyStatus.RUNNING, started_at=timezone.now()
        )
    except (OperationalError, InterfaceError) as error:
        raise self.retry(exc=error, countdown=2**self.request.retries) from error
    if not claimed:
        return "already claimed"
    run = UncertaintyRun.objects.get(pk=run_id)
    try:
        uncertainty_run_execute(run=run)
    except (OperationalError, InterfaceError) as error:
        UncertaintyRun.objects.filter(pk=run_id, status=UncertaintyStatus.RUNNING).update(
            status=UncertaintyStatus.PENDING, progress=0.0
        )
        raise self.retry(exc=error, countdown=2**self.request.retries) from error
    return run.status


@shared_task(name="tco.tasks.sweep_jobs")
def sweep_jobs() -> str:
    """Celery beat, every minute: send again jobs whose message was never sent or lost, fail those whose
    worker died (runs and price imports). `manage.py sweep_jobs` does the same from cron or by hand."""
    runs, imports, simulations = runs_sweep(), price_snapshots_sweep(), uncertainty_runs_sweep()
    return f"runs: {runs}; imports: {imports}; simulations: {simulations}"
