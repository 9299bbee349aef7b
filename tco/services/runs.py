"""Evaluation runs: queue one per saved version, execute it in a Celery task."""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from lib.users import signed_in_user
from tco.charts import build_figures
from tco.engine import ENGINE_VERSION, ScenarioError, evaluate
from tco.models import RunStatus, Scenario, ScenarioRun

logger = logging.getLogger(__name__)


def run_queue(*, scenario: Scenario, user: AbstractBaseUser | None = None, document: dict | None = None) -> ScenarioRun:
    """Create a pending run for the scenario's current version and queue its evaluation on commit."""
    from tco.tasks import scenario_evaluate

    with transaction.atomic():
        run = ScenarioRun.objects.create(
            scenario=scenario,
            scenario_version=scenario.version,
            document=document if document is not None else scenario.to_document(),
            requested_by=signed_in_user(user),
        )
        scenario_evaluate.delay_on_commit(run.pk)
    return run


def run_execute(*, run: ScenarioRun) -> ScenarioRun:
    """Evaluate the run's frozen document and store the result and figures (or the engine's problems).

    The caller has claimed the run (status running). An engine refusal is a failed run with its
    problems; any other error is a failed run with the error logged, never a half-written row.
    """
    try:
        result = evaluate(run.document)
        figures = build_figures(run.document, result)
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
