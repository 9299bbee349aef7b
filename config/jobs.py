"""Sending jobs to the Celery workers, and the limits the sweeper judges them by.

Sending never fails a request: when the broker cannot take a job, the error is logged and the job's row
stays pending; the sweeper (`manage.py sweep_jobs`, Celery beat, or a page polling that row) sends it again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from celery import Task
from django.conf import settings
from django.utils import timezone

logger = logging.getLogger(__name__)


@dataclass
class SweepResult:
    """What one sweep did to one kind of job."""

    resent: int = 0
    unsent: int = 0  # still pending: the broker is unreachable
    failed: int = 0  # stuck past their limit

    def __str__(self) -> str:
        return f"{self.resent} sent again, {self.unsent} still unsent (broker unreachable), {self.failed} failed"


def send_job(task: Task, *args: object) -> bool:
    """Hand one job to the broker (or run it now in the embedded mode). False, logged, when that failed."""
    try:
        task.apply_async(args=args)
    except Exception:  # broker down or frozen, or (embedded mode) the job itself crashed: never the request's problem
        logger.warning("could not send job %s%r; its row stays pending for the sweeper", task.name, args, exc_info=True)
        return False
    return True


def hard_time_limit(task_name: str) -> int:
    """Seconds after which the worker kills `task_name` (its annotation, else the default limit)."""
    annotation = settings.CELERY_TASK_ANNOTATIONS.get(task_name, {})
    return annotation.get("time_limit", settings.CELERY_TASK_TIME_LIMIT)


def soft_time_limit(task_name: str) -> int:
    annotation = settings.CELERY_TASK_ANNOTATIONS.get(task_name, {})
    return annotation.get("soft_time_limit", settings.CELERY_TASK_SOFT_TIME_LIMIT)


def stuck_before(task_name: str, now: datetime) -> datetime:
    """A row of `task_name` still running since before this has lost its worker (the hard limit has passed)."""
    return now - timedelta(seconds=hard_time_limit(task_name) + settings.JOB_STUCK_GRACE_SECONDS)


def resend_before(now: datetime | None = None) -> datetime:
    """A row still pending though sent before this may have lost its message (Redis restarted): send it again."""
    return (now or timezone.now()) - timedelta(seconds=settings.JOB_RESEND_AFTER_SECONDS)
