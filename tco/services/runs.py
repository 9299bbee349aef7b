"""Evaluation runs: queue one per saved version, execute it in a Celery task."""

from __future__ import annotations

import logging
from functools import partial

from celery.exceptions import SoftTimeLimitExceeded
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from config.jobs import SweepResult, hard_time_limit, resend_before, send_job, soft_time_limit, stuck_before
from lib.users import signed_in_user
from tco.charts import build_figures
from tco.engine import ENGINE_VERSION, ScenarioError, evaluate
from tco.models import RunStatus, Scenario, ScenarioRun

logger = logging.getLogger(__name__)


EVALUATE_TASK = "tco.tasks.scenario_evaluate"


def run_queue(*, scenario: Scenario, user: AbstractBaseUser | None = None, document: dict | None = None) -> ScenarioRun:
    """Create a pending run for the scenario's current version and send its evaluation on commit.
    Never fails because of the broker: an unsent run stays pending (the page says results are delayed)."""
    with transaction.atomic():
        run = ScenarioRun.objects.create(
            scenario=scenario,
            scenario_version=scenario.version,
            document=document if document is not None else scenario.to_document(),
            requested_by=signed_in_user(user),
            sent_at=timezone.now(),
        )
        transaction.on_commit(partial(run_send, run_id=run.pk))
    return run


def run_send(*, run_id: int) -> bool:
    """Hand the run's evaluation to the workers; when the broker is unreachable, mark it unsent (False)."""
    from tco.tasks import scenario_evaluate

    if send_job(scenario_evaluate, run_id):
        return True
    ScenarioRun.objects.filter(pk=run_id, status=RunStatus.PENDING).update(sent_at=None)
    return False


def runs_sweep(*, scenario: Scenario | None = None) -> SweepResult:
    """Unstick runs (all, or one scenario's: what its results page does while it polls).

    A run still running past its hard time limit has lost its worker: it fails with a message the user
    sees. A pending run whose job could not be sent, or was sent long ago (lost with a Redis restart),
    is sent again; a run claimed in between is not evaluated twice (the task's claim is conditional).
    """
    now = timezone.now()
    runs = ScenarioRun.objects.all() if scenario is None else ScenarioRun.objects.filter(scenario=scenario)
    result = SweepResult()
    stuck = runs.filter(status=RunStatus.RUNNING, started_at__lt=stuck_before(EVALUATE_TASK, now))
    result.failed = stuck.update(status=RunStatus.FAILED, error=interrupted_message(), finished_at=now)
    due = Q(sent_at__isnull=True) | Q(sent_at__lt=resend_before(now))
    for run_id in list(runs.filter(due, status=RunStatus.PENDING).order_by("id").values_list("id", flat=True)):
        # Take the resend: a sweeper elsewhere that reads the same row then updates nothing and skips it.
        if not ScenarioRun.objects.filter(due, pk=run_id, status=RunStatus.PENDING).update(sent_at=now):
            continue
        if run_send(run_id=run_id):
            result.resent += 1
        else:
            result.unsent += 1
    return result


def over_time_message() -> str:
    return (
        f"The evaluation took longer than its {soft_time_limit(EVALUATE_TASK)} s limit and was stopped. "
        "Your inputs are saved; change a value to compute again."
    )


def interrupted_message() -> str:
    return (
        "The evaluation was interrupted: its worker stopped, or it ran past its "
        f"{hard_time_limit(EVALUATE_TASK)} s limit. Your inputs are saved; change a value to compute again."
    )


def run_execute(*, run: ScenarioRun) -> ScenarioRun:
    """Evaluate the run's frozen document and store the result and figures (or the engine's problems).

    The caller has claimed the run (status running). An engine refusal is a failed run with its
    problems; any other error is a failed run with the error logged, never a half-written row.
    """
    try:
        result = evaluate(run.document)
        figures = build_figures(run.document, result)
    except SoftTimeLimitExceeded:  # the task fails the run with its time limit
        raise
    except ScenarioError as error:
        run.status = RunStatus.FAILED
        run.problems = [{"path": problem.path, "message": problem.message} for problem in error.problems]
        run.error = str(error)
    except Exception as error:  # a bug, not the user's input: record it and keep the page working
        logger.exception("evaluating run %s failed", run.pk)
        run.status = RunStatus.FAILED
        run.error = (
            f"The evaluation failed unexpectedly ({type(error).__name__}); the error has been logged for the team."
        )
    else:
        run.status = RunStatus.DONE
        run.result = result
        run.figures = figures
        run.problems = []
        run.error = ""
    run.engine_version = ENGINE_VERSION
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "result", "figures", "problems", "error", "engine_version", "finished_at"])
    return run
