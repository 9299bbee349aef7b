"""Celery tasks of the TCO app. A task takes ids, claims its row, and calls a service."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from config.jobs import soft_time_limit
from pricing.services import price_snapshots_sweep
from tco.models import RunStatus, ScenarioRun, UncertaintyRun, UncertaintyStatus
from tco.services import run_execute, runs_sweep
from tco.services.runs import over_time_message
from tco.services.uncertainty import SIMULATE_TASK, uncertainty_run_execute, uncertainty_runs_sweep


def _run_claimed(task, model, run_id: int, *, statuses: tuple[str, str, str], execute, requeue: dict, over_time) -> str:
    """Claim the row pending → running and execute it. The conditional update makes a run execute once even if
    its message is delivered twice; a lost database connection puts it back and retries; a run past its soft time
    limit fails with a message the user sees."""
    pending, running, failed = statuses
    rows = model.objects.filter(pk=run_id)
    try:
        claimed = rows.filter(status=pending).update(status=running, started_at=timezone.now())
    except (OperationalError, InterfaceError) as error:
        raise task.retry(exc=error, countdown=2**task.request.retries) from error
    if not claimed:
        return "already claimed"
    run = model.objects.get(pk=run_id)
    try:
        execute(run=run)
    except (OperationalError, InterfaceError) as error:
        rows.filter(status=running).update(status=pending, **requeue)
        raise task.retry(exc=error, countdown=2**task.request.retries) from error
    except SoftTimeLimitExceeded:
        rows.filter(status=running).update(status=failed, error=over_time(), finished_at=timezone.now())
        return failed
    return run.status


@shared_task(bind=True, max_retries=3)
def scenario_evaluate(self, run_id: int) -> str:
    """Evaluate one queued run."""
    return _run_claimed(
        self,
        ScenarioRun,
        run_id,
        statuses=(RunStatus.PENDING, RunStatus.RUNNING, RunStatus.FAILED),
        execute=run_execute,
        requeue={},
        over_time=over_time_message,
    )


@shared_task(bind=True, max_retries=3)
def scenario_simulate(self, run_id: int) -> str:
    """Run one queued simulation (simulation, tornado, fleet plan); the service writes progress on the row and
    stops when cancel is asked for."""
    return _run_claimed(
        self,
        UncertaintyRun,
        run_id,
        statuses=(UncertaintyStatus.PENDING, UncertaintyStatus.RUNNING, UncertaintyStatus.FAILED),
        execute=uncertainty_run_execute,
        requeue={"progress": 0.0},
        over_time=lambda: (
            f"The simulation took longer than its {soft_time_limit(SIMULATE_TASK)} s limit and was stopped. "
            "Your ranges are saved; try fewer trials."
        ),
    )


@shared_task(name="tco.tasks.sweep_jobs")
def sweep_jobs() -> str:
    """Celery beat, every minute: send again jobs whose message was never sent or lost, fail those whose
    worker died (runs and price imports). `manage.py sweep_jobs` does the same from cron or by hand."""
    runs, imports, simulations = runs_sweep(), price_snapshots_sweep(), uncertainty_runs_sweep()
    return f"runs: {runs}; imports: {imports}; simulations: {simulations}"
