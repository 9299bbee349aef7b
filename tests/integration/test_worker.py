"""Scale-out mode only: jobs travel through Redis to the separate worker process .ci/run starts."""

from __future__ import annotations

import os

import pytest
from django.conf import settings

from config.celery import ping

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not settings.REDIS_URL, reason="scale-out mode only (set REDIS_URL and start a worker)"),
]


def test_a_job_runs_in_a_separate_worker_process():
    assert ping.app.conf.task_always_eager is False
    result = ping.delay().get(timeout=30)
    assert result["pid"] != os.getpid()
