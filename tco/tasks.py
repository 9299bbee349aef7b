"""Celery tasks of the TCO app. A task takes ids and runs its job (lib.jobs.run_claimed), which calls a service."""

from __future__ import annotations

from celery import shared_task

from lib.jobs import run_claimed, sweep_all
from tco.charts import build_figures
from tco.charts.uncertainty import uncertainty_figures
from tco.models import ScenarioRun, UncertaintyRun
from tco.services import run_execute
from tco.services.actuals import actuals_check_all
from tco.services.uncertainty import uncertainty_run_execute


@shared_task(bind=True, max_retries=3)
def scenario_evaluate(self, run_id: int) -> str:
    """Evaluate one queued run."""
    return run_claimed(self, ScenarioRun, run_id, lambda run: run_execute(run=run, figures_of=build_figures))


@shared_task(bind=True, max_retries=3)
def scenario_simulate(self, run_id: int) -> str:
    """Run one queued simulation (simulation, tornado, fleet plan); the service writes progress on the row and
    stops when cancel is asked for."""
    return run_claimed(
        self, UncertaintyRun, run_id, lambda run: uncertainty_run_execute(run=run, figures_of=uncertainty_figures)
    )


@shared_task(name="tco.tasks.sweep_jobs")
def sweep_jobs() -> str:
    """Celery beat, every minute: send again jobs whose message was never sent or lost, fail those whose
    worker died (every job model). `manage.py sweep_jobs` does the same from cron or by hand."""
    return "; ".join(f"{model.noun}s: {result}" for model, result in sweep_all())


@shared_task(name="tco.tasks.check_actuals")
def check_actuals() -> str:
    """Celery beat, hourly: hold every decision with actuals against them again; e-mail the owner of a decision
    whose verdict has turned, once per turn."""
    checked, sent = actuals_check_all()
    return f"{checked} decision(s) checked, {sent} warning(s) sent"
