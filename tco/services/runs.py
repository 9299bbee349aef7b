"""Evaluation runs (jobs, lib.jobs): queue one per saved version, execute it in its Celery task."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from django.contrib.auth.models import AbstractBaseUser

from lib.users import signed_in_user
from tco.documents import scenario_document
from tco.engine import ENGINE_VERSION, ScenarioError, evaluate
from tco.models import RunStatus, Scenario, ScenarioRun


def run_queue(*, scenario: Scenario, user: AbstractBaseUser | None = None, document: dict | None = None) -> ScenarioRun:
    """Create a pending run for the scenario's current version and send its evaluation on commit.
    Never fails because of the broker: an unsent run stays pending (the page says results are delayed)."""
    return ScenarioRun.objects.queue(
        scenario=scenario,
        scenario_version=scenario.version,
        document=document if document is not None else scenario_document(scenario),
        requested_by=signed_in_user(user),
    )


def run_execute(*, run: ScenarioRun, figures_of: Callable[[dict, dict], dict]) -> ScenarioRun:
    """Evaluate the run's frozen document and store the result and figures (``figures_of(document, result)``,
    the charts the task composes), or the engine's problems.

    The caller (lib.jobs.run_claimed) has claimed the run, and fails it on any other error."""
    try:
        result = evaluate(run.document)
        figures = figures_of(run.document, result)
    except ScenarioError as error:
        problems = [asdict(problem) for problem in error.problems]
        run.finish(RunStatus.FAILED, problems=problems, error=str(error), engine_version=ENGINE_VERSION)
    else:
        run.finish(RunStatus.DONE, result=result, figures=figures, problems=[], error="", engine_version=ENGINE_VERSION)
    return run
