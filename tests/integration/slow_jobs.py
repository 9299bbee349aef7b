"""Test-only worker hook, loaded by the fault tests with `celery worker --include tests.integration.slow_jobs`.

With FAULT_TEST_SLOW_JOB_SECONDS set in the worker's environment, evaluation and import jobs sleep that long
after claiming their row, so a test can kill the worker mid-job. Production code has no such hook, and a
worker started without this module (or without the variable) is unchanged.
"""

from __future__ import annotations

import functools
import os
import time

from celery.signals import worker_process_init


def _slowed(job, seconds: float):
    @functools.wraps(job)
    def slow(**kwargs):
        time.sleep(seconds)
        return job(**kwargs)

    return slow


@worker_process_init.connect
def slow_down_jobs(**_kwargs) -> None:
    seconds = float(os.environ.get("FAULT_TEST_SLOW_JOB_SECONDS") or 0)
    if not seconds:
        return
    import pricing.services
    import tco.tasks

    tco.tasks.run_execute = _slowed(tco.tasks.run_execute, seconds)
    pricing.services.price_snapshot_run = _slowed(pricing.services.price_snapshot_run, seconds)
