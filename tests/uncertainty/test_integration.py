"""Scale-out mode only: a simulation travels through Redis to the real Celery worker, which writes its progress
on the run row while the test (like the page) polls it, and stops when cancelled."""

from __future__ import annotations

import copy
import time

import pytest
from django.conf import settings

from tco.models import UncertaintyRun, UncertaintyStatus
from tco.services import scenario_create_from_document
from tco.services.uncertainty import uncertainty_run_cancel, uncertainty_run_queue
from tests.documents import DESIGN_EXAMPLE
from tests.scenarios.factories import price_range

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not settings.REDIS_URL, reason="scale-out mode only (set REDIS_URL and start a worker)"),
    # Real commits (the worker reads the rows); the rows migrations made, such as the role groups, are put back after.
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _ranged_scenario():
    scenario = scenario_create_from_document(document=copy.deepcopy(DESIGN_EXAMPLE), user=None)
    rental = scenario.options.get(kind="neocloud")
    price_range(scenario, option=rental)
    scenario.refresh_from_db()
    return scenario


def _wait(run: UncertaintyRun, seconds: float = 60) -> list[float]:
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.refresh_from_db()
        seen.append(run.progress)
        if run.is_finished:
            break
        time.sleep(0.05)
    return seen


def test_a_simulation_runs_in_the_worker_with_progress():
    run = uncertainty_run_queue(scenario=_ranged_scenario(), user=None, trials=200_000, load_profile=[4.0] * 24)
    seen = _wait(run)
    assert run.status == UncertaintyStatus.DONE, run.error
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert 0 < run.result["simulation"]["owned_minus_rental"]["probability_owning_cheaper"] < 1


def test_a_simulation_in_the_worker_can_be_cancelled():
    run = uncertainty_run_queue(scenario=_ranged_scenario(), user=None, trials=200_000)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and UncertaintyRun.objects.get(pk=run.pk).status == UncertaintyStatus.PENDING:
        time.sleep(0.02)
    uncertainty_run_cancel(run=run)
    _wait(run)
    assert run.status in (UncertaintyStatus.CANCELLED, UncertaintyStatus.DONE)  # it may have finished first
    if run.status == UncertaintyStatus.CANCELLED:
        assert run.result is None and run.progress < 1
