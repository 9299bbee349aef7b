"""Scale-out mode only: a scenario evaluation travels through Redis to the real Celery worker."""

from __future__ import annotations

import time

import pytest
from django.conf import settings

from tco.models import RunStatus, ScenarioRun
from tco.services import scenario_create_from_document

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not settings.REDIS_URL, reason="scale-out mode only (set REDIS_URL and start a worker)"),
]


def test_a_scenario_evaluation_runs_in_the_worker_and_reaches_done(transactional_db, example_document):
    from config.celery import app

    assert app.conf.task_always_eager is False
    scenario = scenario_create_from_document(document=example_document, user=None)
    run = ScenarioRun.objects.get(scenario=scenario)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in (RunStatus.DONE, RunStatus.FAILED):
            break
        time.sleep(0.2)
    assert run.status == RunStatus.DONE, run.error
    assert run.result["cheapest"] == "Lambda 8x H100 SXM"
    assert "annual_cost" in run.figures
